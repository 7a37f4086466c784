// The hand-over from a CPU engine to a CUDA engine (auto's path on a GPU machine): the
// composite's output against the float64 reference and against each engine alone (1e-5
// relative), with the hand-over at a set frame (the CUDA engine made ready before set_taps
// returns) and with the real, asynchronous start of the CUDA context; `halo filter` from a
// pipe (a job of unknown length, which auto hands over) says which engine took which part.
// Skips where no CUDA device is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "cuda/direct/direct_engine.hpp"
#include "engine_harness.hpp"
#include "src/engine/handover_engine.hpp"
#include "src/engine/registry.hpp"

namespace halo::test {
namespace {

constexpr double tolerance = 1e-5;

#define SKIP_WITHOUT_GPU()                                                       \
  do {                                                                           \
    std::string why;                                                             \
    if (!cuda::device_usable(0, &why)) GTEST_SKIP() << "no usable GPU: " << why; \
  } while (0)

bool registered(const std::string& name) {
  for (const auto& entry : registered_engines())
    if (entry.name == name) return true;
  return false;
}

std::size_t latency_of(const std::string& name, const ProcessSpec& spec) {
  auto engine = make_engine(name);
  engine->prepare(spec);
  return engine->latency_frames();
}

struct GpuCase {
  std::string first, second;
  int channels;
  bool per_channel;
  std::size_t taps, frames, block;
  std::uint64_t earliest;
};

void check_case(const GpuCase& c) {
  const std::string context = c.first + " then " + c.second + ", " + std::to_string(c.channels) + " ch, " +
                              std::to_string(c.taps) + " taps, hand-over at " + std::to_string(c.earliest);
  if (!registered(c.second)) {
    std::printf("note: %s is not in this build; skipped %s\n", c.second.c_str(), context.c_str());
    return;
  }
  const std::uint64_t seed = 900 + c.taps + c.channels;
  filters::MaskSet masks;
  for (int m = 0; m < (c.per_channel ? c.channels : 1); ++m)
    masks.push_back(mask_of(random_taps(c.per_channel ? std::max<std::size_t>(1, c.taps * (m + 1) / c.channels) : c.taps,
                                        seed + m)));
  const auto in = random_signal(c.frames * c.channels, seed + 50);
  const ProcessSpec spec{c.channels, c.block, c.taps, 48000};
  HandoverTiming timing;
  timing.earliest_frame = c.earliest;
  timing.wait_in_set_taps = true;
  HandoverEngine engine(make_engine(c.first), c.second, [second = c.second] { return make_engine(second); },
                        latency_of(c.second, spec), timing);
  engine.prepare(spec);
  const std::size_t latency = engine.latency_frames();
  engine.set_taps(TapSet::from_masks(masks, c.channels));
  const std::vector<std::size_t> chunks = {c.block, c.block / 3 + 1, 7};
  const auto out = run_aligned(engine, in, c.channels, chunks);
  EXPECT_EQ(engine.latency_frames(), latency) << context;
  const HandoverReport report = engine.report();
  EXPECT_TRUE(report.handed_over) << context << ": " << report.second_failure;
  EXPECT_EQ(report.first_frames, c.earliest) << context;

  const std::size_t total = c.frames + c.taps - 1;
  const auto ref = reference_output(in, c.channels, masks, total);
  EXPECT_LE(worst_channel_error(out, ref, c.channels, total), tolerance) << context;
  for (const std::string& name : {c.first, c.second}) {
    auto alone = make_engine(name);
    prepare_with(*alone, masks, c.channels, c.block);
    const auto alone_out = run_aligned(*alone, in, c.channels, chunks);
    EXPECT_LE(worst_channel_error(out, std::vector<double>(alone_out.begin(), alone_out.end()), c.channels, total),
              tolerance)
        << context << ": against " << name << " alone";
  }
}

TEST(GpuHandover, CpuThenCudaEqualsTheReferenceAndEitherEngineAlone) {
  SKIP_WITHOUT_GPU();
  const GpuCase cases[] = {
      {"cpu-fft", "cuda-fast", 2, false, 1023, 100003, 4096, 30001},  // inside a block
      {"cpu-fft", "cuda-fast", 1, false, 255, 50000, 16384, 0},       // at the first block
      {"cpu", "cuda-fast", 6, true, 15, 40000, 1000, 3000},           // at a block boundary
      {"cpu-fft", "cuda-fast", 6, true, 1200, 30000, 2048, 12345},  // two engines of 6 x 1200 fit constant memory
      {"cpu-fft", "cuda-fft", 2, false, 16383, 60000, 8192, 20001},
      {"cpu-fft", "cuda-fft-fused", 2, true, 1023, 60000, 4096, 20001},
      {"cpu-fft", "cuda-fft-fused", 2, false, 16383, 60000, 8192, 20001},  // split transforms
  };
  for (const GpuCase& c : cases) check_case(c);
}

// The real thing: the CUDA context starts on the background thread while the CPU runs; the
// hand-over comes whenever it is ready (or never, if the stream ends first). Either way the
// output is the reference's.
TEST(GpuHandover, AsynchronousStartGivesTheReferenceWheneverItLands) {
  SKIP_WITHOUT_GPU();
  const int channels = 2;
  // The direct engine on 24 M samples of 63 taps takes longer than the context's start
  // (0.2-0.3 s), so the hand-over most likely lands mid-stream; the reference costs 1.5e9
  // multiply-adds.
  const std::size_t taps = 63, frames = 12'000'000, block = 65536;
  const filters::MaskSet masks = {mask_of(random_taps(taps, 31)), mask_of(random_taps(taps, 32))};
  const auto in = random_signal(frames * channels, 33);
  auto engine = make_engine(EngineChoice{"cpu", "test", "cuda-fast", 0});
  prepare_with(*engine, masks, channels, block);
  const auto out = run_aligned(*engine, in, channels, {block});
  const auto* handover = dynamic_cast<const HandoverEngine*>(engine.get());
  ASSERT_NE(handover, nullptr);
  const HandoverReport report = handover->report();
  std::printf("note: cpu filtered %llu of %zu frames; cuda-fast %s after %.3f s%s%s\n",
              static_cast<unsigned long long>(report.first_frames), frames,
              report.handed_over ? "took over" : "did not take over", report.second_start_s,
              report.second_failure.empty() ? "" : ": ", report.second_failure.c_str());
  EXPECT_EQ(report.second_failure, "");
  const std::size_t total = frames + taps - 1;
  const auto ref = reference_output(in, channels, masks, total);
  EXPECT_LE(worst_channel_error(out, ref, channels, total), tolerance);
}

TEST(GpuHandover, FilterFromAPipeHandsOverAndSaysSo) {
  SKIP_WITHOUT_GPU();
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 4'000'000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 77);
  const std::vector<float> mask = random_signal(1023, 78, 2.0f / std::sqrt(1023.0f));
  write_mask_text(dir / "mask.txt", {mask});
  const std::string command = "cat '" + (dir / "in.wav") + "' | '" HALO_BINARY "' filter - '" + (dir / "out.wav") +
                              "' --mask '" + (dir / "mask.txt") + "' --timings";
  const Result result = run({"/bin/sh", "-c", command});
  ASSERT_EQ(result.exit_code, 0) << describe_command(command, result);
  std::printf("note: %s", result.err.c_str());
  EXPECT_NE(result.err.find("takes over once CUDA has started"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("hand-over:"), std::string::npos) << result.err;
  const Sound out = read_sound(dir / "out.wav");
  EXPECT_LE(relative_error(out.samples, expected_output(in.samples, 2, {mask}, Align::same, false)), tolerance);
}

}  // namespace
}  // namespace halo::test
