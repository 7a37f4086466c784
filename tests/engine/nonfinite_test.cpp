// zero_nonfinite: every NaN and Inf becomes 0 and is counted, wherever it sits (first and last
// sample, either side of the 4096-sample stretches it tests at once, a partial last stretch);
// every finite value, subnormals and the largest floats included, is left exactly as it was.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "src/engine/nonfinite.hpp"
#include "test_signals.hpp"

namespace halo::test {
namespace {

TEST(ZeroNonfinite, ZeroesAndCountsEveryNanAndInfAndNothingElse) {
  const std::size_t count = 3 * 4096 + 77;
  const std::vector<float> signal = random_signal(count, 41, 1.0f);
  std::vector<float> samples = signal;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<std::size_t> bad = {0, 4095, 4096, 8191, 2 * 4096 + 5, count - 1};
  for (std::size_t i = 0; i < bad.size(); ++i) samples[bad[i]] = i % 3 == 0 ? nan : (i % 3 == 1 ? inf : -inf);
  // Finite values at the edges of the float range stay as they are.
  samples[100] = std::numeric_limits<float>::max();
  samples[101] = -std::numeric_limits<float>::max();
  samples[102] = std::numeric_limits<float>::denorm_min();
  std::vector<float> expected = samples;
  for (const std::size_t i : bad) expected[i] = 0.0f;

  EXPECT_EQ(zero_nonfinite(samples.data(), count), bad.size());
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(samples[i], expected[i]) << "sample " << i;
  EXPECT_EQ(zero_nonfinite(samples.data(), count), 0u) << "a second pass finds none";
}

TEST(ZeroNonfinite, ShortAndEmptyBuffers) {
  float one[1] = {std::numeric_limits<float>::quiet_NaN()};
  EXPECT_EQ(zero_nonfinite(one, 1), 1u);
  EXPECT_EQ(one[0], 0.0f);
  float finite[3] = {0.5f, -0.25f, 1e-30f};
  EXPECT_EQ(zero_nonfinite(finite, 3), 0u);
  EXPECT_EQ(finite[2], 1e-30f);
  EXPECT_EQ(zero_nonfinite(nullptr, 0), 0u);
}

}  // namespace
}  // namespace halo::test
