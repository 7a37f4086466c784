// CpuFftEngine on several threads (issue 15): masks of 1 to 2^20 taps, inputs shorter and
// longer than the mask, odd lengths, blocks smaller than the mask and blocks of many FFT hops
// (where the blocks of one channel run in parallel), 1, 2 and 6 channels, one mask and a mask
// per channel. Every run is checked against the plain float64 reference (test_signals.cpp) to
// a relative error of 1e-5, and 1, 2, 3 and 8 threads, each fed differently cut blocks, must
// give the same bits. Outputs are poisoned with NaN first so an unwritten sample fails.
// Also: the thread pool runs every task exactly once, and the FFT length the cost model picks
// is one the engine can use.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "engine_harness.hpp"
#include "src/engine/cpu_fft_engine.hpp"
#include "src/engine/fft_size.hpp"
#include "src/engine/thread_pool.hpp"

namespace halo {
namespace {

using namespace test;

constexpr double tolerance = 1e-5;
constexpr int thread_counts[] = {1, 2, 3, 8};

struct Case {
  std::size_t taps;
  int channels;
  bool per_channel;    // a mask per channel, of lengths taps/channels .. taps
  std::size_t frames;  // input frames (odd, shorter or longer than the mask)
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return std::to_string(c.taps) + "taps_" + std::to_string(c.channels) + "ch_" +
         (c.per_channel ? "per_channel_" : "shared_") + std::to_string(c.frames) + "frames";
}

filters::MaskSet masks_for(const Case& c, std::uint64_t seed) {
  if (!c.per_channel) return {mask_of(random_taps(c.taps, seed))};
  filters::MaskSet masks;
  for (int ch = 0; ch < c.channels; ++ch)
    masks.push_back(mask_of(random_taps(std::max<std::size_t>(1, c.taps * (ch + 1) / c.channels), seed + 1 + ch)));
  return masks;
}

class CpuFftThreads : public testing::TestWithParam<Case> {};

TEST_P(CpuFftThreads, EveryThreadCountGivesTheSameBitsAndTheReference) {
  const Case c = GetParam();
  const std::uint64_t seed = 7919 * c.taps + 131 * c.channels + c.frames + (c.per_channel ? 1 : 0);
  const filters::MaskSet masks = masks_for(c, seed);
  const auto in = random_signal(c.frames * c.channels, seed + 100);
  const std::size_t total = c.frames + c.taps - 1;  // the whole convolution
  const auto ref = reference_output(in, c.channels, masks, total);

  // Blocks of many hops (every channel's blocks in parallel) and blocks cut small (shorter
  // than the mask, single frames), alternately, so threads and blocking both change.
  const std::size_t hop = CpuFftEngine::latency_frames_for(ProcessSpec{c.channels, 1, c.taps, 48000});
  // (No block is longer than the whole run: latency + the convolution.)
  const std::size_t many_hops = std::min<std::size_t>(4 * hop + 17, hop + total + 1);
  const std::size_t small = std::max<std::size_t>(2, c.taps / 3);
  std::vector<float> first;
  for (const int threads : thread_counts) {
    const bool cut_small = threads % 2 == 0;
    const std::size_t max_block = cut_small ? small : many_hops;
    const auto sizes = cut_small ? random_chunks(c.taps, max_block, seed + threads) : std::vector<std::size_t>{max_block};
    CpuFftEngine engine(threads);
    prepare_with(engine, masks, c.channels, max_block, c.taps);
    ASSERT_EQ(engine.threads(), threads);
    ASSERT_EQ(engine.latency_frames(), hop);
    const auto out = run_aligned(engine, in, c.channels, sizes);
    const std::string context = case_name({c, 0}) + ", " + std::to_string(threads) + " threads, FFT of " +
                                std::to_string(engine.fft_frames()) + ", " + describe_chunks(sizes, seed + threads);
    EXPECT_LE(worst_channel_error(out, ref, c.channels, total), tolerance) << context;
    if (first.empty())
      first = out;
    else
      EXPECT_TRUE(same_bits(out, first)) << context << ": differs from 1 thread's output";
  }
}

// Long masks on short inputs keep the float64 reference (frames x taps multiply-adds) and the
// engine's FFTs (N of several M) small enough for a test run.
INSTANTIATE_TEST_SUITE_P(
    Masks, CpuFftThreads,
    testing::Values(Case{1, 1, false, 1}, Case{1, 6, false, 1001}, Case{2, 2, true, 7}, Case{7, 6, true, 3},
                    Case{64, 1, false, 20011}, Case{255, 2, false, 50001}, Case{255, 6, true, 12345},
                    Case{1000, 2, true, 30001}, Case{1000, 6, false, 999}, Case{4095, 1, false, 100003},
                    Case{4095, 2, true, 2047}, Case{16383, 2, false, 40001}, Case{16383, 6, true, 5001},
                    Case{65535, 2, false, 10001}, Case{65535, 1, false, 131071}, Case{65535, 6, true, 301},
                    Case{262143, 2, true, 1001}, Case{1048576, 1, false, 257}, Case{1048575, 2, true, 33}),
    case_name);

// The carry survives many calls that each complete many blocks: a long input in blocks of
// several hops on all threads equals the same input fed one frame at a time on one thread.
TEST(CpuFftThreadsCarry, ManyHopsPerCallEqualsOneFrameAtATime) {
  const filters::MaskSet masks = {mask_of(random_taps(100, 41)), mask_of(random_taps(37, 42))};
  const auto in = random_signal(2 * 60001, 43);
  CpuFftEngine wide(8), narrow(1);
  const std::size_t hop = CpuFftEngine::latency_frames_for(ProcessSpec{2, 1, 100, 48000});
  prepare_with(wide, masks, 2, 9 * hop + 5);
  prepare_with(narrow, masks, 2, 1);
  const auto many = run_aligned(wide, in, 2, {9 * hop + 5, 3 * hop, 1, 7 * hop + 3});
  const auto single = run_aligned(narrow, in, 2, {1});
  EXPECT_TRUE(same_bits(many, single));
  const std::size_t total = 60001 + 99;
  EXPECT_LE(worst_channel_error(many, reference_output(in, 2, masks, total), 2, total), tolerance);
}

// The block a pipeline gives cpu-fft so that one call has a task for every thread and at
// least min_call_frames_per_thread frames a thread: whole hops, and no hop more than the
// larger of the two needs.
TEST(CpuFftThreadsCarry, AParallelBlockHasATaskForEveryThread) {
  for (const std::size_t taps : {std::size_t{255}, std::size_t{16383}, std::size_t{65535}})
    for (const int channels : {1, 2, 6})
      for (const int threads : {1, 2, 3, 16, 64}) {
        const ProcessSpec spec{channels, 1, taps, 48000};
        const std::size_t hop = CpuFftEngine::latency_frames_for(spec);
        const std::size_t block = CpuFftEngine::parallel_block_frames(spec, threads);
        ASSERT_EQ(block % hop, 0u);
        const std::size_t per_block = CpuFftEngine::tasks_per_block(spec, threads);
        const std::size_t tasks = block / hop * per_block;
        const std::size_t enough = static_cast<std::size_t>(threads) * CpuFftEngine::min_call_frames_per_thread;
        EXPECT_GE(tasks, static_cast<std::size_t>(threads)) << taps << " taps, " << channels << " ch";
        EXPECT_GE(block, enough) << taps << " taps, " << channels << " ch";
        const bool one_hop_less_falls_short =
            (tasks - per_block < static_cast<std::size_t>(threads)) || block - hop < enough;
        EXPECT_TRUE(one_hop_less_falls_short) << taps << " taps, " << channels << " ch, " << threads << " threads";
      }
  // Worked cases (the hops follow fft_size.cpp's table: 393218, 98305 and 65538 frames now):
  // at 262143 taps (an FFT past pair_fft_frames: a task a channel) the 16 threads' tasks set
  // the size, 8 hops of 2 channels; at 65535 taps on 2 threads a task takes both channels (2
  // hops a call either way), on 16 one (pairs would need 16 hops a call, a task a channel 11:
  // the 16 x 65536 frames the threads should each bring); at 16383 taps those frames, in
  // whole hops (16), with pairs.
  const ProcessSpec long_mask{2, 1, 262143, 48000}, stereo{2, 1, 65535, 48000}, shorter_mask{2, 1, 16383, 48000};
  const std::size_t stereo_hop = CpuFftEngine::latency_frames_for(stereo);
  EXPECT_EQ(CpuFftEngine::channels_per_task(long_mask, 2), 1);
  EXPECT_EQ(CpuFftEngine::channels_per_task(stereo, 2), 2);
  EXPECT_EQ(CpuFftEngine::parallel_block_frames(stereo, 2), 2 * stereo_hop);
  EXPECT_EQ(CpuFftEngine::channels_per_task(stereo, 16), 1);
  EXPECT_EQ(CpuFftEngine::parallel_block_frames(stereo, 16), 11 * stereo_hop);
  EXPECT_EQ(CpuFftEngine::channels_per_task(shorter_mask, 16), 2);
  EXPECT_EQ(CpuFftEngine::tasks_per_block(ProcessSpec{6, 1, 65535, 48000}, 2), 3u);
  EXPECT_EQ(CpuFftEngine::tasks_per_block(ProcessSpec{3, 1, 65535, 48000}, 2), 2u);
  const std::size_t long_hop = CpuFftEngine::latency_frames_for(long_mask);
  const std::size_t shorter_hop = CpuFftEngine::latency_frames_for(shorter_mask);
  ASSERT_GT(long_hop, 16u * 65536u / 8);  // so that the tasks, not the frames, set it
  EXPECT_EQ(CpuFftEngine::parallel_block_frames(long_mask, 16), 8 * long_hop);
  EXPECT_EQ(CpuFftEngine::parallel_block_frames(shorter_mask, 16),
            (16u * 65536u + shorter_hop - 1) / shorter_hop * shorter_hop);
}

// A task that takes two channels (channels_per_task) transforms each as a task of one would:
// every channel of a 2-, 3- and 6-channel run, each with its own mask, has the bits of that
// channel run alone through a mono engine with the same longest mask (so the same FFT), in
// blocks of many hops and blocks cut small.
TEST(CpuFftThreadsCarry, ChannelsTakenInPairsKeepTheBitsOfEachChannelAlone) {
  for (const int channels : {2, 3, 6}) {
    const std::size_t taps = 1000, frames = 20011;
    const ProcessSpec spec{channels, 1, taps, 48000};
    ASSERT_EQ(CpuFftEngine::channels_per_task(spec, 2), 2);
    filters::MaskSet masks;
    for (int c = 0; c < channels; ++c) masks.push_back(mask_of(random_taps(taps - 97 * c, 500 + c)));
    const std::size_t width = static_cast<std::size_t>(channels);
    const auto in = random_signal(frames * width, 600 + channels);
    const std::size_t hop = CpuFftEngine::latency_frames_for(spec);
    for (const std::size_t block : {4 * hop + 3, std::size_t{333}}) {
      CpuFftEngine together(2);
      prepare_with(together, masks, channels, block, taps);
      const auto all = run_aligned(together, in, channels, {block});
      const std::size_t out_frames = all.size() / width;  // frames + taps - 1
      for (std::size_t c = 0; c < width; ++c) {
        std::vector<float> mono(frames);
        for (std::size_t i = 0; i < frames; ++i) mono[i] = in[i * width + c];
        CpuFftEngine alone(1);
        prepare_with(alone, {masks[c]}, 1, block, taps);
        const auto single = run_aligned(alone, mono, 1, {block});
        ASSERT_LE(single.size(), out_frames);  // the run alone ends with its own, shorter mask's tail
        std::vector<float> channel(single.size());
        for (std::size_t i = 0; i < single.size(); ++i) channel[i] = all[i * width + c];
        EXPECT_TRUE(same_bits(channel, single)) << channels << " channels, channel " << c << ", blocks of " << block;
      }
    }
  }
}

// ---------------------------------------------------------------- the pool

TEST(ThreadPool, RunsEveryTaskOnceOnAThreadOfThePool) {
  for (const int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{1000}}) {
      for (int repeat = 0; repeat < 20; ++repeat) {
        std::vector<std::atomic<int>> runs(count);
        std::atomic<int> bad_thread{0};
        auto task = [&](std::size_t index, int thread) noexcept {
          runs[index].fetch_add(1);
          if (thread < 0 || thread >= threads) bad_thread.fetch_add(1);
        };
        pool.run(count, task);
        for (std::size_t i = 0; i < count; ++i)
          ASSERT_EQ(runs[i].load(), 1) << threads << " threads, " << count << " tasks, task " << i;
        EXPECT_EQ(bad_thread.load(), 0);
      }
    }
  }
}

TEST(ThreadPool, RefusesAThreadCountOutOfRange) {
  EXPECT_THROW(ThreadPool(0), Error);
  EXPECT_THROW(ThreadPool(ThreadPool::max_threads + 1), Error);
  EXPECT_THROW(CpuFftEngine(-1), Error);
}

// ---------------------------------------------------------------- the FFT length

TEST(FftSize, EveryLengthHasAHopAndFftwFriendlyFactors) {
  for (std::size_t m = 1; m <= ProcessSpec::max_mask_frames_limit; m = m < 64 ? m + 1 : m + m / 7) {
    const std::size_t n = fft_frames_for(m);
    EXPECT_GE(n, m + m / 8 + 1) << m << " taps";
    EXPECT_GE(n, 64u) << m << " taps";
    std::size_t odd = n;
    while (odd % 2 == 0) odd /= 2;
    EXPECT_TRUE(odd == 1 || odd == 3 || odd == 5 || odd == 9 || odd == 15) << m << " taps: " << n;
    EXPECT_EQ(CpuFftEngine::latency_frames_for(ProcessSpec{1, 1, m, 0}), n - m + 1);
  }
}

}  // namespace
}  // namespace halo
