// TapSet::from_masks: what it refuses (ported from the old Engine::prepare checks), the
// deduplication of repeated columns ([a, a, b] keeps two copies) and the padding of shorter
// masks to the longest, which every engine and the registry rely on.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "engine_harness.hpp"
#include "src/engine/tap_set.hpp"

namespace halo {
namespace {

using test::mask_of;
using test::random_taps;

constexpr float nan = std::numeric_limits<float>::quiet_NaN();
constexpr float inf = std::numeric_limits<float>::infinity();

TEST(TapSet, RefusesMaskCountsNotMatchingTheChannels) {
  const filters::MaskSet two = {mask_of({1.0f}), mask_of({0.5f})};
  EXPECT_THROW(TapSet::from_masks(two, 3), Error);
  EXPECT_THROW(TapSet::from_masks(two, 1), Error);
  EXPECT_NO_THROW(TapSet::from_masks(two, 2));
  EXPECT_THROW(TapSet::from_masks({}, 2), Error);
  EXPECT_THROW(TapSet::from_masks({mask_of({1.0f})}, 0), Error);
}

TEST(TapSet, RefusesEmptyAndNonFiniteMasks) {
  EXPECT_THROW(TapSet::from_masks({mask_of({})}, 1), Error);
  EXPECT_THROW(TapSet::from_masks({mask_of({1.0f}), mask_of({})}, 2), Error);
  EXPECT_THROW(TapSet::from_masks({mask_of({0.5f, nan, 0.5f})}, 1), Error);
  EXPECT_THROW(TapSet::from_masks({mask_of({0.5f, inf})}, 1), Error);
  EXPECT_THROW(TapSet::from_masks({mask_of({1.0f}), mask_of({-inf})}, 2), Error);
}

TEST(TapSet, OneMaskServesEveryChannel) {
  const auto h = random_taps(33, 1);
  const TapSet taps = TapSet::from_masks({mask_of(h)}, 6);
  EXPECT_EQ(taps.channels(), 6);
  EXPECT_EQ(taps.mask_frames(), 33u);
  EXPECT_TRUE(taps.one_mask());
  for (int c = 0; c < 6; ++c) EXPECT_EQ(taps.taps_of(c), h) << "channel " << c;
}

TEST(TapSet, RepeatedColumnsShareOneCopy) {
  // The case: per-channel columns [a, a, b] hold two masks, not three.
  const auto a = random_taps(6000, 2), b = random_taps(6000, 3);
  const TapSet taps = TapSet::from_masks({mask_of(a), mask_of(a), mask_of(b)}, 3);
  EXPECT_EQ(taps.distinct_masks(), 2u);
  EXPECT_FALSE(taps.one_mask());
  EXPECT_EQ(taps.mask_of(0), taps.mask_of(1));
  EXPECT_NE(taps.mask_of(0), taps.mask_of(2));
  EXPECT_EQ(taps.taps_of(1), a);
  EXPECT_EQ(taps.taps_of(2), b);
}

TEST(TapSet, ShorterMasksArePaddedWithZeros) {
  const auto a = random_taps(5, 4), b = random_taps(12, 5);
  const TapSet taps = TapSet::from_masks({mask_of(a), mask_of(b)}, 2);
  EXPECT_EQ(taps.mask_frames(), 12u);
  std::vector<float> padded = a;
  padded.resize(12, 0.0f);
  EXPECT_EQ(taps.taps_of(0), padded);
  EXPECT_EQ(taps.taps_of(1), b);
  // A mask equal to another once padded is the same mask.
  const TapSet same = TapSet::from_masks({mask_of(a), mask_of(padded)}, 2);
  EXPECT_EQ(same.distinct_masks(), 1u);
}

}  // namespace
}  // namespace halo
