// `halo filter` on the GPU, through the built binary and real files: every CUDA engine's OUT
// matches the float64 reference and the CPU engine's OUT within 1e-6, --chunk changes no byte,
// and `auto` says which engine it took. Skips where no CUDA device is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cli_test_support.hpp"
#include "cuda/direct/direct_engine.hpp"

namespace halo::test {
namespace {

constexpr double tolerance = 1e-6;

#define SKIP_WITHOUT_GPU()                                                     \
  do {                                                                         \
    std::string why;                                                           \
    if (!cuda::device_usable(0, &why)) GTEST_SKIP() << "no usable GPU: " << why;  \
  } while (0)

Result halo_ok(const std::vector<std::string>& args) {
  std::vector<std::string> command = halo_args({});
  command.insert(command.end(), args.begin(), args.end());
  Result result = run(command);
  EXPECT_EQ(result.exit_code, 0) << describe(command, result);
  return result;
}

TEST(CliCuda, EveryCudaEngineMatchesReferenceAndCpuOnRealFiles) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  struct Input {
    std::string name;
    int channels;
    int format;
    std::size_t frames;
  };
  const Input inputs[] = {{"mono.wav", 1, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 300001},
                          {"stereo.flac", 2, SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 100003},
                          {"six.caf", 6, SF_FORMAT_CAF | SF_FORMAT_FLOAT, 20011}};
  std::uint64_t seed = 500;
  for (const auto& input : inputs) {
    const Sound in = make_noise_file(dir / input.name, input.frames, input.channels, 48000, input.format, seed++);
    for (const std::size_t taps : {63, 1023}) {
      const bool tail = taps > 100;
      const std::vector<float> mask = random_signal(taps, seed++, 2.0f / std::sqrt(static_cast<float>(taps)));
      write_mask_text(dir / "mask.txt", {mask});
      const std::vector<double> reference =
          expected_output(in.samples, input.channels, {mask}, Align::same, tail);
      auto filter = [&](const std::string& engine, const std::string& chunk) {
        const std::string out = dir / ("out_" + engine + chunk + ".wav");
        std::vector<std::string> args = {"filter", dir / input.name, out, "--mask", dir / "mask.txt",
                                         "--subtype", "float", "--engine", engine, "--quiet"};
        if (tail) args.push_back("--tail");
        if (!chunk.empty()) args.insert(args.end(), {"--chunk", chunk});
        halo_ok(args);
        return out;
      };
      const Sound cpu = read_sound(filter("cpu", ""));
      const std::vector<double> cpu_samples(cpu.samples.begin(), cpu.samples.end());
      for (const std::string engine : {"cuda-basic", "cuda-constant", "cuda-tiled", "cuda-cached", "cuda-fast"}) {
        const std::string context = input.name + ", " + engine + ", " + std::to_string(taps) + " taps";
        const std::string whole = filter(engine, "");
        const Sound gpu = read_sound(whole);
        EXPECT_LE(relative_error(gpu.samples, reference), tolerance) << context;
        EXPECT_LE(relative_error(gpu.samples, cpu_samples), tolerance) << context << " against the CPU engine";
        EXPECT_EQ(read_bytes(filter(engine, "4093")), read_bytes(whole)) << context << ": --chunk 4093 differs";
      }
    }
  }
}

// Digital silence on the GPU: every output whose inputs (the mask's reach) are all exactly 0 is
// written exactly 0 by every CUDA engine, whatever its latency and block (the stream's silence
// gate; an FFT engine leaves rounding dust there, which pcm16's dither would turn into noise),
// and the burst itself is there. The silent region is computed here from the input.
TEST(CliCuda, DigitalSilenceStaysZeroOnEveryCudaEngine) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  constexpr std::size_t frames = 200000, taps = 4095;
  std::vector<float> x(frames * 2, 0.0f);
  const std::vector<float> burst = random_signal(2 * 20000, 520, 0.3f);
  std::copy(burst.begin(), burst.end(), x.begin() + 2 * 60000);  // frames 60000 .. 80000
  write_sound(dir / "burst.wav", x, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const std::vector<float> mask = random_signal(taps, 521, 0.02f);
  write_mask_text(dir / "mask.txt", {mask});
  for (const std::string engine : {"cuda-fast", "cuda-fft", "cuda-fft-fused", "auto"}) {
    for (const std::string subtype : {"float", "pcm16"}) {
      const std::string out = dir / ("out_" + engine + "_" + subtype + ".wav");
      halo_ok({"filter", dir / "burst.wav", out, "--mask", dir / "mask.txt", "--subtype", subtype, "--engine", engine,
               "--tail", "--quiet"});
      const Sound y = read_sound(out);
      ASSERT_EQ(y.frames, static_cast<std::int64_t>(frames + taps - 1 - (taps - 1) / 2)) << engine;
      // Output frame i is y_full[i + (M - 1) / 2]: non-zero inputs 60000 .. 79999 reach
      // y_full 60000 .. 79999 + M - 1.
      std::size_t stray = 0, sound = 0;
      for (std::size_t i = 0; i < static_cast<std::size_t>(y.frames); ++i) {
        const std::size_t n = i + (taps - 1) / 2;
        const bool silent = n < 60000 || n >= 80000 + taps - 1;
        for (int c = 0; c < 2; ++c) {
          const float v = y.samples[2 * i + static_cast<std::size_t>(c)];
          if (silent) stray += v != 0.0f;
          else sound += v != 0.0f;
        }
      }
      EXPECT_EQ(stray, 0u) << engine << ", " << subtype << ": non-zero samples where every input is 0";
      EXPECT_GT(sound, 2 * 20000u) << engine << ", " << subtype;
    }
  }
}

// 4 M samples at 255 taps: the CPU finishes before a CUDA context would have started
// (crossover.cpp), so auto keeps the job there and says why. The GPU's side of auto (the
// hand-over) is tested in handover_test.cpp.
TEST(CliCuda, AutoKeepsASmallJobOnTheCpuAndSaysWhy) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  make_noise_file(dir / "in.wav", 2'000'000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 77);
  const Result result = halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--lowpass", "1000"});
  EXPECT_NE(result.err.find("engine cpu-fft"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("too small to pay for starting CUDA"), std::string::npos) << result.err;
}


// The review's case: per-channel columns [a, a, b] of 6000 taps hold two distinct masks,
// 2 x 6016 padded taps, which fit the 16384-tap bank. From a pipe (a job of unknown length)
// `auto` hands over to a GPU engine that accepts them (crossover.cpp: the FFT engines first at
// this length, cuda-fast after them), and the output is the float64 convolution of each
// channel with its column.
TEST(CliCuda, AutoRunsRepeatedPerChannelMasksOnTheGpu) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  const std::size_t taps = 6000;
  const Sound in = make_noise_file(dir / "in.wav", 400'000, 3, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 91);
  const float scale = 2.0f / std::sqrt(static_cast<float>(taps));
  const std::vector<float> a = random_signal(taps, 92, scale), b = random_signal(taps, 93, scale);
  write_mask_text(dir / "mask.txt", {a, a, b});
  const std::string command = "cat '" + (dir / "in.wav") + "' | '" HALO_BINARY "' filter - '" + (dir / "out.wav") +
                              "' --mask '" + (dir / "mask.txt") + "' --subtype float --engine auto";
  const Result result = run({"/bin/sh", "-c", command});
  ASSERT_EQ(result.exit_code, 0) << describe_command(command, result);
  EXPECT_NE(result.err.find("takes over once CUDA has started"), std::string::npos) << result.err;
  const std::vector<double> reference = expected_output(in.samples, 3, {a, a, b}, Align::same, false);
  EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples, reference), tolerance);
}

// A job of known size past the table's size for a 600000-tap mask (crossover.cpp's last row,
// gpu_alone): `auto` runs cuda-fft alone, with no hand-over, and the output is the float64
// convolution, checked at 64 frames spread over the file (the whole reference would take
// 10^13 multiply-adds). 2.5e7 samples pass the H100's row (1.2e7), the H200's (1e7) and the
// fallback's (2.4e7).
TEST(CliCuda, AutoRunsAVeryLongMaskOnALongJobOnTheGpuAlone) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  const std::size_t taps = 600000, frames = 12'500'000;
  const Sound in = make_noise_file(dir / "in.wav", frames, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 95);
  const std::vector<float> h = random_signal(taps, 96, 1.0f / std::sqrt(static_cast<float>(taps)));
  write_mask_text(dir / "mask.txt", {h});
  const Result result =
      halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.txt", "--subtype", "float"});
  EXPECT_NE(result.err.find("engine cuda-fft "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("cuda-fft alone"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("takes over"), std::string::npos) << result.err;
  const Sound out = read_sound(dir / "out.wav");
  ASSERT_EQ(out.frames, static_cast<std::int64_t>(frames));
  // Centred, as --mask is: y[n] = sum_k h[k] x[n + (M-1)/2 - k].
  const long delay = static_cast<long>(taps - 1) / 2;
  double error = 0, energy = 0;
  for (long i = 0; i < 64; ++i) {
    const long n = static_cast<long>(frames - 1) * i / 63;
    for (int c = 0; c < 2; ++c) {
      double sum = 0;
      for (long k = 0; k < static_cast<long>(taps); ++k) {
        const long s = n + delay - k;
        if (s >= 0 && s < static_cast<long>(frames)) sum += static_cast<double>(h[k]) * in.samples[s * 2 + c];
      }
      const double difference = sum - out.samples[n * 2 + c];
      error += difference * difference;
      energy += sum * sum;
    }
  }
  ASSERT_GT(energy, 0.0);
  EXPECT_LE(std::sqrt(error / energy), 1e-5);
}

}  // namespace
}  // namespace halo::test
