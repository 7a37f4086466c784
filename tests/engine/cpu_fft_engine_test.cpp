// CpuFftEngine (overlap-save, FFTW) against the plain float64 reference beyond what the
// contract suite (engine_contract_test.cpp) asks of every engine: mask lengths up to 16383
// on 10^5 frames, chunking that never changes a bit, shorter masks padded to the prepared
// max_mask_frames, and a latency that follows max_mask_frames only. Outputs are poisoned
// with NaN first so an unwritten sample fails.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "engine_harness.hpp"
#include "src/engine/cpu_fft_engine.hpp"
#include "src/engine/fft_size.hpp"

namespace halo {
namespace {

using namespace test;

constexpr double tolerance = 1e-6;

filters::Mask random_mask(std::size_t taps, std::uint64_t seed) { return mask_of(random_taps(taps, seed)); }

double worst_channel_error(const std::vector<float>& out, const std::vector<float>& in, int channels,
                           const filters::MaskSet& masks) {
  const std::size_t frames = in.size() / channels + longest(masks) - 1;
  return test::worst_channel_error(out, reference_output(in, channels, masks, frames), channels, frames);
}

struct Case {
  std::size_t taps;
  int channels;
  std::size_t frames;
};

class CpuFftEngineCases : public testing::TestWithParam<Case> {};

TEST_P(CpuFftEngineCases, MatchesReferenceAndChunkingChangesNoBit) {
  const Case c = GetParam();
  const std::uint64_t seed = 31 * c.taps + 7 * c.channels + c.frames;
  const filters::MaskSet masks = {random_mask(c.taps, seed)};
  const auto in = test::random_signal(c.frames * c.channels, seed + 1);

  CpuFftEngine whole;
  prepare_with(whole, masks, c.channels, 1 << 20);
  EXPECT_GT(whole.latency_frames(), 0u);
  const auto expected = run_aligned(whole, in, c.channels, {1 << 20});
  EXPECT_LE(worst_channel_error(expected, in, c.channels, masks), tolerance)
      << "taps " << c.taps << ", channels " << c.channels << ", frames " << c.frames;

  std::mt19937_64 rng(seed + 2);
  std::vector<std::size_t> sizes = {1, 1, 2};
  for (int i = 0; i < 40; ++i) sizes.push_back(1 + rng() % (2 * c.taps + 100));
  CpuFftEngine chunked;
  prepare_with(chunked, masks, c.channels, 2 * c.taps + 100);
  const auto got = run_aligned(chunked, in, c.channels, sizes);
  EXPECT_TRUE(same_bits(got, expected))
      << "chunked output differs; taps " << c.taps << ", channels " << c.channels << ", seed " << seed + 2;
}

INSTANTIATE_TEST_SUITE_P(Masks, CpuFftEngineCases,
                         testing::Values(Case{1, 1, 1}, Case{2, 2, 7}, Case{3, 6, 1000}, Case{64, 1, 100003},
                                         Case{255, 2, 100003}, Case{255, 6, 300}, Case{4096, 1, 100003},
                                         Case{4096, 2, 2000}, Case{16383, 1, 60000}, Case{16383, 6, 5000}));

TEST(CpuFftEngine, ShorterMasksArePaddedToThePreparedLength) {
  const filters::MaskSet masks = {random_mask(5, 1), random_mask(300, 2)};
  const auto in = random_signal(2 * 5000, 3);
  CpuFftEngine engine;
  prepare_with(engine, masks, 2, 4096, 1000);
  const auto out = run_aligned(engine, in, 2, {4096, 17, 1});
  EXPECT_LE(worst_channel_error(out, in, 2, masks), tolerance);
}

TEST(CpuFftEngine, LatencyFollowsMaxMaskFramesNotTheTaps) {
  CpuFftEngine engine;
  prepare_with(engine, {random_mask(3, 4)}, 1, 512, 1000);
  const std::size_t latency = engine.latency_frames();
  EXPECT_EQ(engine.preferred_block_frames(), latency);
  engine.set_taps(TapSet::from_masks({random_mask(1000, 5)}, 1));
  EXPECT_EQ(engine.latency_frames(), latency);
  // One FFT of the length the cost model picks for Mmax, of which Mmax - 1 frames are the halo.
  EXPECT_EQ(latency, fft_frames_for(1000) - 999u);
  EXPECT_EQ(latency, CpuFftEngine::latency_frames_for(engine.spec()));
}

}  // namespace
}  // namespace halo
