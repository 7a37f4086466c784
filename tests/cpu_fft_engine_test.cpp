// CpuFftEngine (overlap-save, FFTW) against the plain float64 reference: mask lengths 1 to
// 16383, 1/2/6 channels, per-channel masks, its reported latency, chunking that never changes
// a bit, and reset(). Outputs are poisoned with NaN first so an unwritten sample fails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "src/engine/cpu_fft_engine.hpp"
#include "test_signals.hpp"

namespace halo {
namespace {

constexpr double tolerance = 1e-6;

filters::Mask random_mask(std::size_t taps, std::uint64_t seed) {
  filters::Mask mask;
  mask.taps = test::random_signal(taps, seed, static_cast<float>(2.0 / std::sqrt(static_cast<double>(taps))));
  return mask;
}

// Feeds `in` and then enough zeros for the latency and the tail, in chunks of the given sizes
// (cycled); returns the engine's output with the latency dropped: frames [0, frames + M - 1).
std::vector<float> run(CpuFftEngine& engine, const std::vector<float>& in, int channels,
                       const std::vector<std::size_t>& chunk_sizes) {
  const std::size_t frames = in.size() / channels;
  const std::size_t latency = engine.latency_frames();
  const std::size_t wanted = frames + engine.mask_frames() - 1;
  std::vector<float> padded = in;
  padded.resize((latency + wanted) * channels, 0.0f);
  const std::vector<float> out = test::run_in_chunks(engine, padded, channels, chunk_sizes);
  return std::vector<float>(out.begin() + latency * channels, out.end());
}

double worst_channel_error(const std::vector<float>& out, const std::vector<float>& in, int channels,
                           const filters::MaskSet& masks) {
  double worst = 0;
  for (int c = 0; c < channels; ++c) {
    const auto ref = test::reference_convolution(in, channels, c, masks[masks.size() == 1 ? 0 : c].taps);
    worst = std::max(worst, test::relative_error(out.data() + c, ref.size(), channels, ref.data()));
  }
  return worst;
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
  whole.prepare(masks, c.channels, 1 << 20);
  EXPECT_GT(whole.latency_frames(), 0u);
  const auto expected = run(whole, in, c.channels, {1 << 20});
  EXPECT_LE(worst_channel_error(expected, in, c.channels, masks), tolerance)
      << "taps " << c.taps << ", channels " << c.channels << ", frames " << c.frames;

  std::mt19937_64 rng(seed + 2);
  std::vector<std::size_t> sizes = {1, 1, 2};
  for (int i = 0; i < 40; ++i) sizes.push_back(1 + rng() % (2 * c.taps + 100));
  CpuFftEngine chunked;
  chunked.prepare(masks, c.channels, 2 * c.taps + 100);
  const auto got = run(chunked, in, c.channels, sizes);
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)), 0)
      << "chunked output differs; taps " << c.taps << ", channels " << c.channels << ", seed " << seed + 2;
}

INSTANTIATE_TEST_SUITE_P(Masks, CpuFftEngineCases,
                         testing::Values(Case{1, 1, 1}, Case{2, 2, 7}, Case{3, 6, 1000}, Case{64, 1, 100003},
                                         Case{255, 2, 100003}, Case{255, 6, 300}, Case{4096, 1, 100003},
                                         Case{4096, 2, 2000}, Case{16383, 1, 60000}, Case{16383, 6, 5000}));

TEST(CpuFftEngine, PerChannelMasksOfDifferentLengths) {
  const filters::MaskSet masks = {random_mask(5, 1), random_mask(300, 2)};
  const auto in = test::random_signal(2 * 5000, 3);
  CpuFftEngine engine;
  engine.prepare(masks, 2, 4096);
  const auto out = run(engine, in, 2, {4096, 17, 1});
  // The shorter mask is zero-padded to 300 taps: its reference just has trailing zeros.
  filters::MaskSet padded = masks;
  padded[0].taps.resize(300, 0.0f);
  EXPECT_LE(worst_channel_error(out, in, 2, padded), tolerance);
}

TEST(CpuFftEngine, ResetForgetsTheCarry) {
  const filters::MaskSet masks = {random_mask(100, 4)};
  const auto first = test::random_signal(3000, 5);
  const auto second = test::random_signal(3000, 6);
  CpuFftEngine fresh, reused;
  fresh.prepare(masks, 1, 512);
  reused.prepare(masks, 1, 512);
  run(reused, first, 1, {512, 3});
  reused.reset();
  const auto a = run(fresh, second, 1, {512});
  const auto b = run(reused, second, 1, {512});
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace halo
