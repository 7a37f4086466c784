// cuda-fast's period path (small blocks: one CUDA graph per block, the history in a device
// ring, the split-K period kernel) against its chunk path and the float64 reference: the same
// bits as the chunk path for every summation form (short masks, pipelined stages, the
// constant-kernel fallback), both PeriodIo modes, random block sizes up to the period, many
// trips around the ring, set_taps mid-stream and reset. Skips without a usable CUDA device.
// Inputs are seeded random signals; outputs start as NaN (run_in_chunks), so an unwritten
// sample fails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/direct/direct_engine.hpp"
#include "engine_harness.hpp"
#include "test_signals.hpp"

namespace halo::cuda {
namespace {

#define SKIP_WITHOUT_DEVICE()                                                      \
  do {                                                                             \
    std::string why;                                                               \
    if (!device_usable(0, &why)) GTEST_SKIP() << "no usable CUDA device: " << why; \
  } while (0)

constexpr double tolerance = 1e-6;

filters::Mask random_mask(std::size_t taps, std::uint64_t seed) {
  return test::mask_of(test::random_signal(taps, seed, 1.0f / std::sqrt(static_cast<float>(taps))));
}

const PeriodTuning chunk_path{0, PeriodIo::copies};
const PeriodTuning period_copies{8192, PeriodIo::copies};
const PeriodTuning period_mapped{8192, PeriodIo::mapped};

std::unique_ptr<Engine> prepared(const PeriodTuning& tuning, const filters::MaskSet& masks, int channels,
                                 std::size_t max_block, std::size_t max_mask = 0) {
  auto engine = make_engine(Kernel::fast, EngineOptions{}, tuning);
  test::prepare_with(*engine, masks, channels, max_block, max_mask);
  return engine;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<std::size_t> random_blocks(std::size_t largest, std::uint64_t seed) {
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::uniform_int_distribution<std::size_t> size(1, largest);
  std::vector<std::size_t> sizes{largest, 1, largest, largest - 1};
  for (int i = 0; i < 60; ++i) sizes.push_back(size(rng));
  return sizes;
}

void expect_matches_reference(const std::vector<float>& out, const std::vector<float>& in, int channels,
                              const filters::MaskSet& masks, const std::string& what) {
  const std::size_t frames = in.size() / channels;
  for (int c = 0; c < channels; ++c) {
    const auto ref = test::reference_convolution(in, channels, c, masks[masks.size() == 1 ? 0 : c].taps);
    EXPECT_LE(test::relative_error(out.data() + c, frames, channels, ref.data()), tolerance)
        << what << ", channel " << c;
  }
}

struct Case {
  std::string what;
  filters::MaskSet masks;
  int channels;
};

// Every summation form: short (<= 128 padded taps), one and many pipelined stages, the
// longest mask, per-channel and repeated masks, and the constant fallback (7 distinct masks
// of 2340 taps fit the bank unpadded, not padded to 2368).
std::vector<Case> cases() {
  std::vector<Case> all;
  for (const std::size_t taps : {1, 31, 100, 129, 255, 1000, 4095, 16383})
    all.push_back({std::to_string(taps) + " taps, stereo", {random_mask(taps, 10 + taps)}, 2});
  all.push_back({"per-channel 300 and 77 taps", {random_mask(300, 3), random_mask(77, 4)}, 2});
  const auto a = random_mask(500, 5), b = random_mask(500, 6);
  all.push_back({"repeated [a, a, b]", {a, a, b}, 3});
  filters::MaskSet seven;
  for (int c = 0; c < 7; ++c) seven.push_back(random_mask(2340, 20 + c));
  all.push_back({"constant fallback, 7 x 2340 taps", seven, 7});
  return all;
}

TEST(CudaPeriodPath, ChosenForSmallBlocksOnly) {
  SKIP_WITHOUT_DEVICE();
  const filters::MaskSet masks{random_mask(255, 1)};
  EXPECT_TRUE(runs_period_path(*prepared(PeriodTuning{}, masks, 2, 64)));
  EXPECT_TRUE(runs_period_path(*prepared(PeriodTuning{}, masks, 2, PeriodTuning{}.max_frames)));
  EXPECT_FALSE(runs_period_path(*prepared(PeriodTuning{}, masks, 2, PeriodTuning{}.max_frames + 1)));
  EXPECT_FALSE(runs_period_path(*prepared(chunk_path, masks, 2, 64)));
  EXPECT_FALSE(runs_period_path(*make_engine(Kernel::constant)));
}

// Random blocks of up to 64 frames, several trips around the ring (its size is the next power
// of two above taps + 64): the chunk path's bits, and the reference.
TEST(CudaPeriodPath, SameBitsAsChunkPath) {
  SKIP_WITHOUT_DEVICE();
  for (const Case& c : cases()) {
    const std::size_t taps = test::longest(c.masks);
    const std::size_t frames = 2 * 32768 + 777 + (taps < 2000 ? 0 : 2 * taps);
    const auto in = test::random_signal(frames * c.channels, 100 + taps);
    // One engine at a time: two 16383-tap engines do not fit one GPU's constant bank.
    const auto expected = test::run_in_chunks(*prepared(chunk_path, c.masks, c.channels, frames), in, c.channels, {frames});
    expect_matches_reference(expected, in, c.channels, c.masks, c.what + ", chunk path");
    for (const PeriodTuning& tuning : {period_copies, period_mapped}) {
      const std::string what = c.what + (tuning.io == PeriodIo::copies ? ", copies" : ", mapped");
      auto engine = prepared(tuning, c.masks, c.channels, 64);
      ASSERT_TRUE(runs_period_path(*engine)) << what;
      const auto out = test::run_in_chunks(*engine, in, c.channels, random_blocks(64, taps));
      EXPECT_TRUE(same_bits(out, expected)) << what << ": the period path's bits differ from the chunk path's";
    }
  }
}

// Larger periods (several tiles per block, tiles past a short block) and a block of 1.
TEST(CudaPeriodPath, LargerBlocks) {
  SKIP_WITHOUT_DEVICE();
  // Two distinct masks padded to 8192 taps: the whole bank (one engine at a time).
  const filters::MaskSet masks{random_mask(8192, 31), random_mask(5000, 32)};
  const std::size_t frames = 50000;
  const auto in = test::random_signal(frames * 2, 33);
  const auto expected = test::run_in_chunks(*prepared(chunk_path, masks, 2, frames), in, 2, {frames});
  for (const std::size_t block : {std::size_t{1000}, std::size_t{8192}}) {
    auto engine = prepared(period_copies, masks, 2, block);
    const auto out = test::run_in_chunks(*engine, in, 2, random_blocks(block, block));
    EXPECT_TRUE(same_bits(out, expected)) << "blocks up to " << block;
  }
}

// set_taps mid-stream (shorter, then the longest mask) keeps the history: the same bits as
// the chunk path doing the same switches at the same frames; reset forgets it.
TEST(CudaPeriodPath, SetTapsMidStreamAndReset) {
  SKIP_WITHOUT_DEVICE();
  const int channels = 2;
  const std::size_t frames = 40000;
  const auto in = test::random_signal(frames * channels, 41);
  const filters::MaskSet first{random_mask(255, 42)}, second{random_mask(16383, 43)}, third{random_mask(40, 44)};
  const auto run = [&](const PeriodTuning& tuning, std::size_t block) {
    auto engine = prepared(tuning, first, channels, block, 16383);
    std::vector<float> out;
    const std::size_t cuts[] = {0, 9000, 25000, frames};
    const filters::MaskSet* sets[] = {&first, &second, &third};
    for (int part = 0; part < 3; ++part) {
      if (part > 0) engine->set_taps(TapSet::from_masks(*sets[part], channels));
      const std::vector<float> piece(in.begin() + cuts[part] * channels, in.begin() + cuts[part + 1] * channels);
      const auto got = test::run_in_chunks(*engine, piece, channels, {block, 17, block});
      out.insert(out.end(), got.begin(), got.end());
    }
    engine->reset();
    const std::vector<float> head(in.begin(), in.begin() + 3000 * channels);
    const auto after_reset = test::run_in_chunks(*engine, head, channels, {block});
    out.insert(out.end(), after_reset.begin(), after_reset.end());
    return out;
  };
  const auto expected = run(chunk_path, 40000);
  EXPECT_TRUE(same_bits(run(period_copies, 64), expected)) << "copies";
  EXPECT_TRUE(same_bits(run(period_mapped, 64), expected)) << "mapped";
  const std::vector<float> head(in.begin(), in.begin() + 3000 * channels);
  const std::vector<float> after_reset(expected.end() - 3000 * channels, expected.end());
  expect_matches_reference(after_reset, head, channels, third, "after reset");
}

// For compute-sanitizer (memcheck, racecheck): the period path in both modes, a multi-stage
// mask and per-channel masks, short and full blocks.
TEST(CudaSanitizerSubset, PeriodPath) {
  SKIP_WITHOUT_DEVICE();
  const int channels = 2;
  const std::size_t frames = 3000;
  const filters::MaskSet masks{random_mask(1000, 51), random_mask(600, 52)};
  const auto in = test::random_signal(frames * channels, 53);
  for (const PeriodTuning& tuning : {period_copies, period_mapped}) {
    auto engine = prepared(tuning, masks, channels, 128);
    const auto out = test::run_in_chunks(*engine, in, channels, {128, 5, 64, 127});
    expect_matches_reference(out, in, channels, masks, "period path (sanitizer subset)");
  }
}

}  // namespace
}  // namespace halo::cuda
