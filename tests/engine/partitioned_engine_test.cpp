// CpuPartitionedEngine (non-uniformly partitioned convolution, a worker thread for the long
// partitions) beyond what the contract suite (engine_contract_test.cpp) asks of every engine:
// masks of 1 to 2^18 taps against the float64 reference, periods of 1 to 4096 frames and
// random mixes, 1/2/6 channels, per-channel masks, the same bits whatever the blocks, set_taps
// and reset while the worker holds blocks, and the partition plan itself. Outputs are poisoned
// with NaN first so an unwritten sample fails; the seed and the shape are in every message.
//
// The long masks run on signals a little longer than the mask and are checked in windows of
// frames (the start, around the mask's length, the last frames of the input and of the tail),
// so the reference stays affordable: a frame past the mask's length involves every tap, so a
// window there checks every partition of every level.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/allocation_counter.hpp"
#include "engine_harness.hpp"
#include "src/engine/partitioned_engine.hpp"
#include "src/engine/registry.hpp"

namespace halo {
namespace {

using namespace test;

// The direct head makes the engine latency-free (partitioned_engine.hpp).
constexpr std::size_t latency = 0;

// Relative L2 error allowed against the float64 reference: float32 rounding in FFTs of up to
// 32768 points, summed over partitions, grows about as the square root of the mask's length.
double tolerance_for(std::size_t taps) { return 1e-6 * std::max(1.0, std::sqrt(static_cast<double>(taps) / 65536.0)); }

struct Window {
  std::size_t first, count;
};

// Every frame where that is cheap; otherwise windows of 256 frames: the start, around the
// mask's length, the end of the input and the end of the tail.
std::vector<Window> windows_for(std::size_t frames, std::size_t taps, int channels) {
  const std::size_t total = frames + taps - 1;
  if (static_cast<double>(frames) * taps * channels <= 3e7) return {{0, total}};
  const std::size_t w = 256;
  std::vector<Window> windows = {{0, std::min(w, total)}};
  for (const std::size_t centre : {taps, frames - 1, total - w / 2})
    windows.push_back({std::min(centre - std::min(centre, w / 2), total - w), w});
  return windows;
}

// Worst per-channel ||out - ref|| / ||ref|| over the windows; `out` is aligned (latency
// removed), interleaved; inf where an output sample is NaN.
double worst_error_in_windows(const std::vector<float>& out, const std::vector<float>& in, int channels,
                              const filters::MaskSet& masks, const std::vector<Window>& windows) {
  double worst = 0;
  for (int c = 0; c < channels; ++c) {
    const auto& taps = masks[masks.size() == 1 ? 0 : c].taps;
    double diff2 = 0, ref2 = 0;
    for (const Window& window : windows) {
      const auto ref = reference_frames(in, channels, c, taps, window.first, window.count);
      for (std::size_t i = 0; i < window.count; ++i) {
        const double got = out[(window.first + i) * channels + c];
        if (std::isnan(got)) return INFINITY;
        diff2 += (got - ref[i]) * (got - ref[i]);
        ref2 += ref[i] * ref[i];
      }
    }
    worst = std::max(worst, ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? INFINITY : 0.0));
  }
  return worst;
}

// Block sizes: a fixed period (cycled), or 0 for a seeded random mix of 1 .. 4096.
std::vector<std::size_t> blocks_for(std::size_t period, std::uint64_t seed) {
  if (period > 0) return {period};
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> sizes = {1, 4096, 63, 64, 65};
  for (int i = 0; i < 60; ++i) sizes.push_back(1 + rng() % (rng() % 2 ? 100 : 4096));
  return sizes;
}

// ---------------------------------------------------------------- the partition plan

TEST(PartitionPlan, CoversEveryTapOnceWithGrowingPartitions) {
  for (const std::size_t m : {1, 2, 63, 64, 65, 256, 257, 1000, 4097, 65535, 65536, 262144, 1048575, 1 << 24}) {
    const PartitionPlan plan = plan_partitions(m);
    ASSERT_FALSE(plan.levels.empty()) << m;
    EXPECT_EQ(plan.base_frames, 64u);
    std::size_t end = 0, size = 0;
    for (std::size_t l = 0; l < plan.levels.size(); ++l) {
      const PartitionLevel& level = plan.levels[l];
      const std::string what = std::to_string(m) + " taps, level " + std::to_string(l);
      EXPECT_EQ(level.offset_frames, end) << what << ": a gap or an overlap";
      EXPECT_GE(level.count, 1u) << what;
      EXPECT_EQ(level.partition_frames, l == 0 ? 64 : 2 * size) << what << ": sizes double";
      EXPECT_LE(level.partition_frames, max_partition_frames) << what;
      if (l > 0) {
        EXPECT_EQ(level.delay_blocks(), 2u) << what << ": the worker's slack is P + B";
      }
      if (l + 1 < plan.levels.size()) {
        EXPECT_LE(level.count, l == 0 ? 4u : 2u) << what;
      }
      EXPECT_EQ(level.on_worker, level.partition_frames >= worker_from_frames) << what;
      end = level.end_frames();
      size = level.partition_frames;
    }
    EXPECT_GE(end, m) << "the levels miss taps";
    EXPECT_LT(end - size, m) << "a last partition with no tap";
  }
}

// ---------------------------------------------------------------- against the reference

struct Case {
  std::size_t taps;
  int channels;
  std::size_t period;  // 0: a random mix of block sizes
  std::size_t frames;  // input frames (the tail follows)
};

std::string describe(const Case& c) {
  return std::to_string(c.taps) + "taps_" + std::to_string(c.channels) + "ch_" +
         (c.period ? "period" + std::to_string(c.period) : std::string("mixed")) + "_" + std::to_string(c.frames) +
         "frames";
}

std::vector<Case> reference_cases() {
  std::vector<Case> cases;
  for (const std::size_t taps : {1, 2, 63, 64, 65, 1000})
    for (const std::size_t period : {1, 7, 64, 100, 4096, 0})
      for (const int channels : {1, 2, 6}) cases.push_back({taps, channels, period, 2 * taps + 3001});
  for (const std::size_t period : {1, 64, 100, 4096, 0})
    for (const int channels : {1, 2, 6}) cases.push_back({4097, channels, period, 9001});
  for (const std::size_t period : {7, 64, 100, 4096, 0})
    for (const int channels : {1, 2}) cases.push_back({65535, channels, period, 65535 + 5001});
  cases.push_back({65535, 6, 64, 65535 + 3001});
  for (const std::size_t period : {64, 4096, 0}) cases.push_back({1 << 18, 1, period, (1 << 18) + 3001});
  cases.push_back({1 << 18, 2, 100, (1 << 18) + 2001});
  return cases;
}

class PartitionedReference : public testing::TestWithParam<Case> {};

TEST_P(PartitionedReference, EqualsTheFloat64Reference) {
  const Case c = GetParam();
  const std::uint64_t seed = 1000003 * c.taps + 1009 * c.channels + 17 * c.period + c.frames;
  const filters::MaskSet masks = {mask_of(random_taps(c.taps, seed))};
  const auto in = random_signal(c.frames * c.channels, seed + 1);
  const auto blocks = blocks_for(c.period, seed + 2);
  const std::size_t max_block = *std::max_element(blocks.begin(), blocks.end());

  CpuPartitionedEngine engine;
  prepare_with(engine, masks, c.channels, max_block);
  EXPECT_EQ(engine.latency_frames(), latency);
  EXPECT_EQ(engine.has_worker(), c.taps > 2 * worker_from_frames);
  const auto out = run_aligned(engine, in, c.channels, blocks);
  const double error = worst_error_in_windows(out, in, c.channels, masks, windows_for(c.frames, c.taps, c.channels));
  EXPECT_LE(error, tolerance_for(c.taps)) << describe(c) << ", seed " << seed << ", "
                                          << describe_chunks(blocks, seed + 2);
  if (engine.has_worker()) {
    EXPECT_GT(engine.worker_cpu_seconds(), 0.0) << describe(c);
  }
}

INSTANTIATE_TEST_SUITE_P(Masks, PartitionedReference, testing::ValuesIn(reference_cases()),
                         [](const testing::TestParamInfo<Case>& info) { return describe(info.param); });

// Per-channel masks of different lengths, two of them equal (the TapSet shares one copy).
TEST(PartitionedEngine, PerChannelMasks) {
  const std::size_t lengths[] = {1, 65, 20000, 4097, 63, 20000};
  const int channels = 6;
  const std::uint64_t seed = 4242;
  filters::MaskSet masks;
  for (int c = 0; c < channels; ++c) masks.push_back(mask_of(random_taps(lengths[c], seed + (c == 5 ? 2 : c))));
  ASSERT_EQ(TapSet::from_masks(masks, channels).distinct_masks(), 5u);
  const std::size_t frames = 25001;
  const auto in = random_signal(frames * channels, seed + 10);
  for (const std::size_t period : {std::size_t{64}, std::size_t{0}}) {
    const auto blocks = blocks_for(period, seed + 11);
    CpuPartitionedEngine engine;
    prepare_with(engine, masks, channels, 4096);
    const auto out = run_aligned(engine, in, channels, blocks);
    const double error = worst_error_in_windows(out, in, channels, masks, windows_for(frames, 20000, channels));
    EXPECT_LE(error, tolerance_for(20000)) << "lengths 1 65 20000 4097 63 20000, seed " << seed << ", "
                                           << describe_chunks(blocks, seed + 11);
  }
}

// ---------------------------------------------------------------- the same bits

// Whatever the blocks and whatever max_block_frames the engine was prepared for: the FFT
// blocks sit at fixed stream positions and the worker's results do not depend on its timing.
TEST(PartitionedEngine, BlockSizesChangeNoBit) {
  for (const std::size_t taps : {std::size_t{1000}, std::size_t{65535}}) {
    const int channels = 2;
    const std::uint64_t seed = 777 + taps;
    const filters::MaskSet masks = {mask_of(random_taps(taps, seed)), mask_of(random_taps(taps, seed + 1))};
    const std::size_t frames = taps + 20011;
    const auto in = random_signal(frames * channels, seed + 2);

    CpuPartitionedEngine whole;
    prepare_with(whole, masks, channels, 1 << 16);
    const auto expected = run_aligned(whole, in, channels, {1 << 16});
    for (const std::size_t period : {1, 7, 64, 100, 4096, 0}) {
      const auto blocks = blocks_for(period, seed + 3);
      CpuPartitionedEngine engine;
      prepare_with(engine, masks, channels, *std::max_element(blocks.begin(), blocks.end()));
      EXPECT_TRUE(same_bits(run_aligned(engine, in, channels, blocks), expected))
          << taps << " taps, seed " << seed << ", " << describe_chunks(blocks, seed + 3);
    }
  }
}

// ---------------------------------------------------------------- set_taps and reset

// set_taps while the worker's levels hold computed blocks: from t + latency on, the output is a
// fresh engine's with the new taps (the FDLs keep the input; the blocks are computed again).
TEST(PartitionedEngine, SetTapsMidStreamWithTheWorkerBusy) {
  const int channels = 2;
  const std::size_t max_mask = 65535;
  const std::uint64_t seed = 9090;
  const filters::MaskSet a = {mask_of(random_taps(65535, seed)), mask_of(random_taps(65535, seed + 1))};
  const filters::MaskSet b = {mask_of(random_taps(30000, seed + 2))};
  const filters::MaskSet c = {mask_of(random_taps(65535, seed + 3))};
  const std::size_t frames = 3 * 16384 + 70001;
  const auto in = random_signal(frames * channels, seed + 4);
  const auto blocks = blocks_for(0, seed + 5);
  const ProcessSpec spec{channels, 4096, max_mask, 48000};

  for (const auto* after : {&b, &c}) {
    CpuPartitionedEngine fresh;
    fresh.prepare(spec);
    fresh.set_taps(TapSet::from_masks(*after, channels));
    const auto expected = run_in_chunks(fresh, in, channels, {4096});
    CpuPartitionedEngine before;
    before.prepare(spec);
    before.set_taps(TapSet::from_masks(a, channels));
    const auto with_a = run_in_chunks(before, in, channels, {4096});

    for (const std::size_t t : {std::size_t{0}, std::size_t{5 * 16384 + 37}, std::size_t{99999}}) {
      CpuPartitionedEngine engine;
      engine.prepare(spec);
      engine.set_taps(TapSet::from_masks(a, channels));
      std::vector<float> out(in.size(), NAN);
      process_frames(engine, in, out, channels, 0, t, blocks);
      engine.set_taps(TapSet::from_masks(*after, channels));
      process_frames(engine, in, out, channels, t, frames, blocks);
      const auto part = [&](const std::vector<float>& v, std::size_t from, std::size_t to) {
        return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(from * channels),
                                  v.begin() + static_cast<std::ptrdiff_t>(to * channels));
      };
      const std::string context = "65535 taps, then " + std::to_string((*after)[0].taps.size()) + " at t " +
                                  std::to_string(t) + ", seed " + std::to_string(seed) + ", " +
                                  describe_chunks(blocks, seed + 5);
      EXPECT_TRUE(same_bits(part(out, 0, t), part(with_a, 0, t))) << context << ": before t";
      EXPECT_TRUE(same_bits(part(out, t + latency, frames), part(expected, t + latency, frames)))
          << context << ": from t + latency on";
    }
  }
}

TEST(PartitionedEngine, ResetMidStreamGivesAFreshEnginesOutput) {
  const int channels = 2;
  const std::uint64_t seed = 5150;
  const filters::MaskSet masks = {mask_of(random_taps(65535, seed))};
  const auto first = random_signal((40000 + 17) * channels, seed + 1);
  const auto second = random_signal(70000 * channels, seed + 2);
  const auto blocks = blocks_for(0, seed + 3);

  CpuPartitionedEngine engine;
  prepare_with(engine, masks, channels, 4096);
  run_in_chunks(engine, first, channels, blocks);
  engine.reset();
  const auto after_reset = run_aligned(engine, second, channels, blocks);
  CpuPartitionedEngine fresh;
  prepare_with(fresh, masks, channels, 4096);
  EXPECT_TRUE(same_bits(after_reset, run_aligned(fresh, second, channels, blocks))) << "seeds 5150..5153";
}

// prepare() again (another shape, another worker) and the engine still equals the reference.
TEST(PartitionedEngine, PrepareAgain) {
  CpuPartitionedEngine engine;
  const filters::MaskSet long_mask = {mask_of(random_taps(50000, 61))};
  prepare_with(engine, long_mask, 2, 64);
  run_aligned(engine, random_signal(20000 * 2, 62), 2, {64});
  const filters::MaskSet short_mask = {mask_of(random_taps(3000, 63))};
  prepare_with(engine, short_mask, 1, 100);
  EXPECT_TRUE(engine.has_worker());
  const auto in = random_signal(9000, 64);
  const auto out = run_aligned(engine, in, 1, {100, 3});
  EXPECT_LE(worst_error_in_windows(out, in, 1, short_mask, windows_for(9000, 3000, 1)), tolerance_for(3000))
      << "seeds 61..64";
}

// The contract suite counts allocations with masks that need no worker; here the worker runs.
TEST(PartitionedEngine, ProcessNeverAllocatesWithTheWorker) {
  const int channels = 2;
  const filters::MaskSet masks = {mask_of(random_taps(65535, 31))};
  const std::size_t frames = 100000;
  const auto in = random_signal(frames * channels, 32);
  std::vector<float> out(in.size(), NAN);
  const auto blocks = blocks_for(0, 33);
  CpuPartitionedEngine engine;
  prepare_with(engine, masks, channels, 4096);
  ASSERT_TRUE(engine.has_worker());
  std::size_t calls = 0, failed = 0;
  AllocationCounter counter;
  for (std::size_t done = 0; done < frames; ++calls) {
    const std::size_t n = std::min(blocks[calls % blocks.size()], frames - done);
    failed += engine.process(in.data() + done * channels, out.data() + done * channels, n) != Status::ok;
    done += n;
  }
  counter.stop();
  EXPECT_EQ(counter.allocations(), 0u) << calls << " calls, seeds 31..33";
  EXPECT_EQ(failed, 0u) << engine.failure();
}

// ---------------------------------------------------------------- real-time priorities

// The real-time path runs process() under SCHED_FIFO and the engine's worker one priority below
// it, both on the audio callback's CPU (worker.cpp's place_engine_threads). When a block is due
// and the worker is late, process() must let the worker run; sched_yield() never hands the CPU
// to a lower priority, so a wait that only yields would never end. In a child process, so that
// such a wait cannot hang the run: one CPU, the caller at SCHED_FIFO 2 and the worker at 1, fed
// 64 frames at a time much faster than real time (the worker only runs while the caller
// waits: every worker block is a late wait). The child checks the output against the float64
// reference; the parent gives it 60 s.
TEST(PartitionedEngine, ALateWaitUnderRealtimePrioritiesLetsTheWorkerRun) {
  constexpr int skipped = 77, no_late_wait = 3, wrong = 4;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_param high{};
    high.sched_priority = 2;
    if (sched_setaffinity(0, sizeof one, &one) != 0 || sched_setscheduler(0, SCHED_FIFO, &high) != 0) _exit(skipped);
    const std::size_t taps = 20000, frames = 30001;
    const int channels = 2;
    const filters::MaskSet masks = {mask_of(random_taps(taps, 8080))};
    const auto in = random_signal(frames * channels, 8081);
    CpuPartitionedEngine engine;
    prepare_with(engine, masks, channels, 64);
    std::atomic<int> cpu{sched_getcpu()};
    if (!engine.request_realtime_worker(1)) _exit(skipped);
    engine.follow_cpu(&cpu);
    const auto out = run_aligned(engine, in, channels, {64});
    const std::uint64_t waits = engine.late_waits();
    sched_param normal{};
    sched_setscheduler(0, SCHED_OTHER, &normal);  // the reference at normal priority
    const double error = worst_error_in_windows(out, in, channels, masks, windows_for(frames, taps, channels));
    std::fprintf(stderr, "late waits %llu, error %.3g\n", static_cast<unsigned long long>(waits), error);
    _exit(waits == 0 ? no_late_wait : error <= tolerance_for(taps) ? 0 : wrong);
  }
  int status = 0;
  pid_t done = 0;
  for (int tenth = 0; tenth < 600 && (done = waitpid(child, &status, WNOHANG)) == 0; ++tenth) usleep(100000);
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "process() under SCHED_FIFO still waited for its lower-priority worker after 60 s";
  }
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  if (WEXITSTATUS(status) == skipped) GTEST_SKIP() << "SCHED_FIFO or the CPU affinity is refused here";
  EXPECT_NE(WEXITSTATUS(status), no_late_wait) << "the caller never outran the worker: nothing was tested";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the output differs from the float64 reference";
}

TEST(PartitionedEngine, IsRegistered) {
  const auto engine = make_engine("cpu-partitioned");
  EXPECT_EQ(engine->name(), "cpu-partitioned");
  std::string why;
  const filters::MaskSet masks = {mask_of(random_taps(1 << 20, 1))};
  EXPECT_TRUE(engine_entry("cpu-partitioned").accepts(TapSet::from_masks(masks, 2), ProcessSpec{2, 64, 1 << 20, 48000}, &why))
      << why;
}

}  // namespace
}  // namespace halo
