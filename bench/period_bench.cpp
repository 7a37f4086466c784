// period_bench: what one audio period costs the thread that calls cuda-fast's process() --
// the worker of `halo play` / `halo live --engine cuda-fast` -- host to host (pageable block
// in, pageable outputs out), on the period path (one CUDA graph per period) against the chunk
// path that `halo filter --engine cuda-fast --chunk 64` runs. Prints markdown tables.
//
//   period_bench [periods per row, default 20000] [--soak SECONDS] [--realtime]
//
// 1. Unpaced: 64-frame stereo periods back to back, masks of 255, 1023, 4095 and 16383 seeded
//    random taps; per period the wall time of process() (p50, p99, p99.9, max), for the chunk
//    path and the period path with either PeriodIo; every output compared bit for bit with the
//    chunk path's (the period path promises the same bits).
// 2. Block sizes: 16383 taps, stereo, blocks of 64 .. 16384 frames, both paths (median per
//    block and per frame): where the period path stops paying (PeriodTuning::max_frames).
// 3. --soak SECONDS: the period path paced like a sound card at 48 kHz (each period starts
//    1.333 ms after the last, absolute sleeps), 16383 taps stereo: p50 / p99 / p99.9 / max of
//    process(), periods over the 1.333 ms deadline, and how late the wake-ups were.
// --realtime: the calling thread at SCHED_FIFO 80, as `halo live`'s worker (the header says
// whether it was granted).
// Work per period: 64 frames x 2 channels x M taps FMAs (2M at 16383 taps); bytes host <->
// device: 512 in, 512 out (+ 16 of header).
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cuda/direct/direct_engine.hpp"
#include "src/engine/tap_set.hpp"
#include "bench_signals.hpp"

namespace {

using halo::cuda::Kernel;
using halo::cuda::PeriodIo;
using halo::cuda::PeriodTuning;

constexpr int channels = 2;
constexpr double rate_hz = 48000;

using halo::bench::random_values;

struct Variant {
  const char* name;
  PeriodTuning tuning;
};
const Variant variants[] = {
    {"chunk path (as --chunk 64)", PeriodTuning{0, PeriodIo::copies}},
    {"period path, copies in graph", PeriodTuning{1u << 20, PeriodIo::copies}},
    {"period path, mapped pinned", PeriodTuning{1u << 20, PeriodIo::mapped}},
};

std::unique_ptr<halo::Engine> make(const PeriodTuning& tuning, std::size_t taps, std::size_t block) {
  auto engine = halo::cuda::make_engine(Kernel::fast, halo::EngineOptions{}, tuning);
  halo::filters::Mask mask;
  mask.taps = random_values(taps, 1000 + taps, 1.0f / std::sqrt(static_cast<float>(taps)));
  mask.rate_hz = rate_hz;
  engine->prepare({channels, block, taps, rate_hz});
  engine->set_taps(halo::TapSet::from_masks({mask}, channels));
  return engine;
}

void check(halo::Engine& engine, halo::Status status) {
  if (status != halo::Status::ok) {
    std::fprintf(stderr, "period_bench: %s\n", engine.failure());
    std::exit(1);
  }
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(p / 100.0 * v.size())) - 1);
  return v[i];
}

double us_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

double thread_cpu_us() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return 1e6 * static_cast<double>(now.tv_sec) + 1e-3 * static_cast<double>(now.tv_nsec);
}

bool realtime_granted = true;
void go_realtime() {
  sched_param param{};
  param.sched_priority = 80;
  realtime_granted = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
}

// 1. Unpaced periods.
void unpaced(std::size_t periods) {
  const std::size_t frames = 64;
  const auto in = random_values((periods + 1) * frames * channels, 7, 1.0f);
  std::printf("\n## 64-frame stereo periods, back to back: wall time of process() per period (us)\n\n");
  std::printf("| taps | path | periods | p50 | p99 | p99.9 | max | mean | same bits as chunk path |\n");
  std::printf("|---:|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const std::size_t taps : {255, 1023, 4095, 16383}) {
    std::vector<float> reference;
    for (const Variant& variant : variants) {
      auto engine = make(variant.tuning, taps, frames);
      std::vector<float> out(periods * frames * channels);
      std::vector<double> times;
      times.reserve(periods);
      for (int warm = 0; warm < 50; ++warm) check(*engine, engine->process(in.data(), out.data(), frames));
      engine->reset();
      for (std::size_t p = 0; p < periods; ++p) {
        const auto t0 = std::chrono::steady_clock::now();
        check(*engine, engine->process(in.data() + p * frames * channels, out.data() + p * frames * channels, frames));
        times.push_back(us_since(t0));
      }
      double mean = 0;
      for (double t : times) mean += t;
      mean /= static_cast<double>(times.size());
      std::string same = "(reference)";
      if (reference.empty())
        reference = out;
      else
        same = std::memcmp(reference.data(), out.data(), out.size() * sizeof(float)) == 0 ? "yes" : "NO";
      std::printf("| %zu | %s | %zu | %.1f | %.1f | %.1f | %.1f | %.1f | %s |\n", taps, variant.name, periods,
                  percentile(times, 50), percentile(times, 99), percentile(times, 99.9),
                  *std::max_element(times.begin(), times.end()), mean, same.c_str());
      std::fflush(stdout);
    }
  }
}

// 2. Block sizes at 16383 taps.
void block_sizes() {
  const std::size_t taps = 16383;
  std::printf("\n## Block sizes, 16383 taps, stereo: median wall time of process() (us)\n\n");
  std::printf("| frames | chunk path | period, copies | period, mapped | chunk / period (copies) |\n");
  std::printf("|---:|---:|---:|---:|---:|\n");
  for (const std::size_t frames : {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}) {
    const int blocks = static_cast<int>(std::max<std::size_t>(40, 40000 / frames));
    const auto in = random_values(static_cast<std::size_t>(blocks) * frames * channels, 11 + frames, 1.0f);
    std::vector<float> out(in.size());
    double medians[3] = {};
    for (int v = 0; v < 3; ++v) {
      auto engine = make(variants[v].tuning, taps, frames);
      for (int warm = 0; warm < 5; ++warm) check(*engine, engine->process(in.data(), out.data(), frames));
      std::vector<double> times;
      for (int b = 0; b < blocks; ++b) {
        const auto t0 = std::chrono::steady_clock::now();
        check(*engine, engine->process(in.data() + b * frames * channels, out.data() + b * frames * channels, frames));
        times.push_back(us_since(t0));
      }
      medians[v] = percentile(times, 50);
    }
    std::printf("| %zu | %.1f | %.1f | %.1f | %.1fx |\n", frames, medians[0], medians[1], medians[2],
                medians[0] / medians[1]);
    std::fflush(stdout);
  }
}

// 3. A paced soak on the period path.
void soak(double seconds, PeriodIo io) {
  const std::size_t frames = 64, taps = 16383;
  const double period_ns = 1e9 * static_cast<double>(frames) / rate_hz;
  const std::size_t periods = static_cast<std::size_t>(seconds * rate_hz / static_cast<double>(frames));
  const std::size_t pool = 48000;  // one second of distinct random input, cycled
  const auto in = random_values(pool * channels, 23, 1.0f);
  std::vector<float> out(frames * channels);
  auto engine = make(PeriodTuning{1u << 20, io}, taps, frames);
  std::vector<double> times, wake, off_cpu;
  times.reserve(periods);
  wake.reserve(periods);
  off_cpu.reserve(periods);
  std::size_t over = 0;
  timespec next{};
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (std::size_t p = 0; p < periods; ++p) {
    next.tv_nsec += static_cast<long>(period_ns);
    while (next.tv_nsec >= 1000000000L) {
      next.tv_nsec -= 1000000000L;
      ++next.tv_sec;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    wake.push_back(1e-3 * (1e9 * static_cast<double>(now.tv_sec - next.tv_sec) + static_cast<double>(now.tv_nsec - next.tv_nsec)));
    const std::size_t at = (p * frames) % (pool - frames);
    const double cpu0 = thread_cpu_us();
    const auto t0 = std::chrono::steady_clock::now();
    check(*engine, engine->process(in.data() + at * channels, out.data(), frames));
    const double t = us_since(t0);
    off_cpu.push_back(std::max(0.0, t - (thread_cpu_us() - cpu0)));  // the wait spins: off CPU = preempted
    times.push_back(t);
    if (t > period_ns * 1e-3) ++over;
  }
  std::printf("\n## Paced soak: %zu periods of 64 frames (%.0f s at 48 kHz), 16383 taps, stereo, period path (%s)%s\n\n",
              periods, seconds, io == PeriodIo::copies ? "copies in graph" : "mapped pinned",
              realtime_granted ? "" : " [SCHED_FIFO refused]");
  // Off CPU: wall time of process() minus the thread's CPU time in it. The engine's wait spins
  // (the CUDA runtime spins when the host has more cores than GPUs), so time off the CPU is
  // time the thread was preempted or blocked, not GPU time.
  std::size_t preempted = 0;
  for (double t : off_cpu) preempted += t > 20.0;
  const std::size_t worst = static_cast<std::size_t>(std::max_element(times.begin(), times.end()) - times.begin());
  std::printf("| p50 us | p99 us | p99.9 us | max us | periods over 1333 us | worst period's time off CPU us | periods >20 us off CPU | wake-up late p99.9 / max us |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::printf("| %.1f | %.1f | %.1f | %.1f | %zu | %.1f | %zu | %.1f / %.1f |\n", percentile(times, 50),
              percentile(times, 99), percentile(times, 99.9), times[worst], over, off_cpu[worst], preempted,
              percentile(wake, 99.9), *std::max_element(wake.begin(), wake.end()));
  for (const auto& [part, secs] : engine->time_breakdown()) std::printf("  %s: %.3f s\n", part.c_str(), secs);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::size_t periods = 20000;
    double soak_seconds = 0;
    bool realtime = false, only_soak = false;
    PeriodIo soak_io = PeriodIo::copies;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--soak" && i + 1 < argc) soak_seconds = std::atof(argv[++i]);
      else if (arg == "--realtime") realtime = true;
      else if (arg == "--only-soak") only_soak = true;
      else if (arg == "--mapped") soak_io = PeriodIo::mapped;
      else periods = static_cast<std::size_t>(std::atol(arg.c_str()));
    }
    std::string why;
    if (!halo::cuda::device_usable(0, &why)) {
      std::fprintf(stderr, "period_bench: %s\n", why.c_str());
      return 1;
    }
    if (realtime) go_realtime();
    std::printf("period_bench: cuda-fast, %d channels, %s\n", channels,
                realtime ? (realtime_granted ? "SCHED_FIFO 80" : "SCHED_FIFO refused") : "normal priority");
    if (!only_soak) {
      unpaced(periods);
      block_sizes();
    }
    if (soak_seconds > 0) soak(soak_seconds, soak_io);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "period_bench: %s\n", e.what());
    return 1;
  }
}
