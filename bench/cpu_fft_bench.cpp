// cpu_fft_bench: the CPU engines on this machine (issue 15). Three parts, each a markdown table:
//
//   cpu_fft_bench sizes [SECONDS]        one overlap-save block as cpu-fft runs it (the packed
//                                        forward transform, the product, the inverse;
//                                        FFTW_ESTIMATE, one thread) for every FFT length that
//                                        fft_size.cpp considers, 64 to 2^24: ns per N log2 N, the
//                                        figure its table holds, beside the table's
//   cpu_fft_bench engine [THREADS ...]   cpu-fft at 15 to 2^20 taps, stereo, 262144-frame blocks
//                                        (halo filter's default), for each thread count (default
//                                        1 and one per core): output frames per second, the FFT
//                                        length and latency chosen, and the model's figure
//   cpu_fft_bench crossover              the direct engine (cpu, one core) against cpu-fft (every
//                                        core, as `auto` runs it) at 2 to 128 taps, stereo
//
// Work per figure: a block of N frames costs about 2.5 N log2 N flops per FFT and 6 per bin in
// the multiply; the engine moves 8 bytes a sample in and out (float32, interleaved), which
// the tables state as GB/s beside the time. Inputs and taps are seeded random values (never
// zeros). Each figure is the best of several runs of at least SECONDS (default 0.5).
#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_signals.hpp"
#include "src/engine/cpu_direct_engine.hpp"
#include "src/engine/cpu_fft_engine.hpp"
#include "src/engine/fft_size.hpp"
#include "src/engine/fftw.hpp"
#include "src/engine/packed_real_fft.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int channels = 2;
constexpr std::size_t block_frames = 262144;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Runs `once` until `seconds` have passed, five times; the best time per call.
template <typename Once>
double best_seconds_per_call(double seconds, Once&& once) {
  double best = INFINITY;
  for (int trial = 0; trial < 5; ++trial) {
    std::size_t calls = 0;
    const auto start = Clock::now();
    do {
      once();
      ++calls;
    } while (seconds_since(start) < seconds / 5);
    best = std::min(best, seconds_since(start) / static_cast<double>(calls));
  }
  return best;
}

// ---------------------------------------------------------------- sizes

void sizes(double seconds) {
  std::printf("| N | block us | ns per N log2 N | model ns per N log2 N |\n|---:|---:|---:|---:|\n");
  for (std::size_t power = 64; power <= (std::size_t{1} << 24); power *= 2) {
    for (const std::size_t odd : {1, 3, 5, 9, 15}) {
      const std::size_t n = power * odd;
      if (n > (std::size_t{1} << 24)) continue;
      const std::size_t bins = n / 2 + 1;
      auto time = halo::fftw::allocate<float>(n);
      auto spectrum = halo::fftw::allocate<fftwf_complex>(bins);
      auto mask = halo::fftw::allocate<fftwf_complex>(bins);
      const auto values = halo::bench::random_values(n + bins, n, 1.0f);
      std::copy_n(values.data(), n, time.get());
      // Bins of modulus 1/n at random phases (cpu-fft scales its masks by 1/n): each repeat
      // keeps the block's energy, so the values neither grow nor fade into subnormals, which
      // run far slower (random moduli had shrunk them about 0.6x a repeat).
      for (std::size_t b = 0; b < bins; ++b) {
        const float phase = 3.14159265f * values[n + b];
        mask[b][0] = std::cos(phase) / static_cast<float>(n);
        mask[b][1] = std::sin(phase) / static_cast<float>(n);
      }
      const halo::PackedRealFft fft(n, time.get(), spectrum.get());
      const double block_s = best_seconds_per_call(seconds, [&] {
        fft.forward(time.get(), spectrum.get());
        fft.multiply(spectrum.get(), mask.get());
        fft.inverse(spectrum.get(), time.get());
      });
      const double points = static_cast<double>(n) * std::log2(static_cast<double>(n));
      std::printf("| %zu | %.1f | %.3f | %.3f |\n", n, block_s * 1e6, block_s * 1e9 / points,
                  halo::modelled_block_ns(n) / points);
      std::fflush(stdout);
    }
  }
}

// ---------------------------------------------------------------- engines

// Seconds per output frame of `engine` fed stereo blocks of block_frames, best of runs over
// at least `seconds` and at least two FFT hops.
double seconds_per_frame(halo::Engine& engine, std::size_t taps, double seconds) {
  engine.prepare(halo::ProcessSpec{channels, block_frames, taps, 48000});
  halo::filters::Mask mask;
  mask.taps = halo::bench::random_values(taps, taps, 1.0f / std::sqrt(static_cast<float>(taps)));
  engine.set_taps(halo::TapSet::from_masks({mask}, channels));
  const std::size_t blocks = std::max<std::size_t>(4, 2 * engine.latency_frames() / block_frames + 2);
  const auto in = halo::bench::random_values(blocks * block_frames * channels, 7, 0.5f);
  std::vector<float> out(in.size());
  std::size_t next = 0;
  const double per_call = best_seconds_per_call(seconds, [&] {
    const std::size_t at = (next++ % blocks) * block_frames * channels;
    if (engine.process(in.data() + at, out.data() + at, block_frames) != halo::Status::ok) {
      std::fprintf(stderr, "%s: %s\n", engine.name().c_str(), engine.failure());
      std::exit(1);
    }
  });
  return per_call / static_cast<double>(block_frames);
}

void engine_table(std::vector<int> thread_counts) {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  if (thread_counts.empty()) thread_counts = cores > 1 ? std::vector<int>{1, cores} : std::vector<int>{1};
  std::printf("cpu-fft, stereo, %zu-frame blocks, %d cores\n\n", block_frames, cores);
  std::printf("| taps | N | latency frames | model ns/frame (1 thread) |");
  for (const int t : thread_counts) std::printf(" %d thr Mframes/s | GB/s |", t);
  std::printf("\n|---:|---:|---:|---:|");
  for (std::size_t i = 0; i < thread_counts.size(); ++i) std::printf("---:|---:|");
  std::printf("\n");
  for (const std::size_t taps : {15, 63, 255, 1023, 4095, 16383, 65535, 262143, 1048575}) {
    const std::size_t n = halo::fft_frames_for(taps);
    const std::size_t hop = n - taps + 1;
    std::printf("| %zu | %zu | %zu | %.1f |", taps, n, hop, channels * halo::modelled_block_ns(n) / hop);
    for (const int t : thread_counts) {
      halo::CpuFftEngine engine(t);
      const double per_frame = seconds_per_frame(engine, taps, taps > 100000 ? 2.0 : 0.5);
      std::printf(" %.1f | %.2f |", 1e-6 / per_frame, 8.0 * channels / per_frame * 1e-9);
      std::fflush(stdout);
    }
    std::printf("\n");
  }
}

void crossover() {
  std::printf("direct (cpu, one core) against cpu-fft (%u threads), stereo, %zu-frame blocks\n\n",
              std::thread::hardware_concurrency(), block_frames);
  std::printf("| taps | cpu Mframes/s | cpu-fft Mframes/s | faster |\n|---:|---:|---:|---|\n");
  for (const std::size_t taps : {2, 4, 8, 12, 16, 20, 24, 32, 48, 64, 96, 128}) {
    halo::CpuDirectEngine direct;
    halo::CpuFftEngine fft;
    const double direct_s = seconds_per_frame(direct, taps, 0.5);
    const double fft_s = seconds_per_frame(fft, taps, 0.5);
    std::printf("| %zu | %.1f | %.1f | %s |\n", taps, 1e-6 / direct_s, 1e-6 / fft_s, direct_s < fft_s ? "cpu" : "cpu-fft");
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string part = argc > 1 ? argv[1] : "";
  if (part == "sizes") {
    setenv("HALO_FFTW_WISDOM", "", 1);  // the model is of estimated plans: no saved wisdom here
    sizes(argc > 2 ? std::atof(argv[2]) : 0.5);
  } else if (part == "engine") {
    std::vector<int> threads;
    for (int i = 2; i < argc; ++i) threads.push_back(std::atoi(argv[i]));
    engine_table(threads);
  } else if (part == "crossover") {
    crossover();
  } else {
    std::fprintf(stderr, "usage: cpu_fft_bench sizes [SECONDS] | engine [THREADS ...] | crossover\n");
    return 2;
  }
  return 0;
}
