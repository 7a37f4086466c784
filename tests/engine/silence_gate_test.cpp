// SilenceGate and ChunkZeros against the plain rule: y_full[n] must be written 0 exactly when
// x[n - M + 1 .. n] are all 0 (or -0, or subnormal: the engines flush those) on its channel (x before frame 0 and after the input is 0), and
// no other output is touched. Random signals with zero runs shorter and longer than the mask,
// at the start, inside and at the end, and a channel silent throughout, cut into chunks of
// random sizes (one frame up), fed as the stream feeds them; outputs asked for in pieces that
// do not line up with the chunks, with an engine latency in front.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/allocation_counter.hpp"
#include "src/engine/silence_gate.hpp"

namespace halo {
namespace {

// Frames [0, frames) of `channels` channels: noise with zero runs of random lengths around M.
std::vector<float> signal_with_gaps(std::size_t frames, int channels, std::size_t mask, double gap_chance,
                                    std::mt19937& random) {
  std::vector<float> x(frames * static_cast<std::size_t>(channels));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  // Rare gaps are long (up to 4000 frames more), so that there is silence to find.
  std::uniform_int_distribution<std::size_t> gap(1, 3 * mask + (gap_chance < 0.001 ? 4000 : 0));
  std::bernoulli_distribution starts_gap(gap_chance);
  for (int c = 0; c < channels; ++c) {
    if (c == channels - 1 && channels > 2 && gap_chance >= 0.001) continue;  // the last of three: silent throughout
    std::size_t zeros_left = c == 0 ? mask + 5 : 0;  // channel 0 starts silent for longer than M
    std::uniform_int_distribution<int> kind_of_zero(0, 9);
    for (std::size_t f = 0; f < frames; ++f) {
      if (zeros_left == 0 && starts_gap(random)) zeros_left = gap(random);
      if (zeros_left > 0) {
        --zeros_left;
        // Now and then -0 or a subnormal, which the engines take for 0 (they flush subnormals).
        const int kind = kind_of_zero(random);
        const float zero = kind == 0 ? -0.0f : kind == 1 ? 1e-42f : kind == 2 ? -1.1e-38f : 0.0f;
        x[f * static_cast<std::size_t>(channels) + static_cast<std::size_t>(c)] = zero;
        continue;
      }
      float v = value(random);
      while (v == 0.0f) v = value(random);
      x[f * static_cast<std::size_t>(channels) + static_cast<std::size_t>(c)] = v;
    }
  }
  return x;
}

// Whether every input of y_full[n] on channel c is 0 (the plain rule).
bool exactly_zero(const std::vector<float>& x, std::size_t frames, int channels, int c, std::size_t mask, std::int64_t n) {
  for (std::int64_t k = n - static_cast<std::int64_t>(mask) + 1; k <= n; ++k) {
    if (k < 0 || k >= static_cast<std::int64_t>(frames)) continue;
    if (std::fabs(x[static_cast<std::size_t>(k) * static_cast<std::size_t>(channels) + static_cast<std::size_t>(c)]) >=
        std::numeric_limits<float>::min())
      return false;
  }
  return true;
}

// `gap_chance`: a gap begins at a frame with this chance; at 1e-4 most 1024-frame stretches hold
// no silent sample on any channel, the vectorised path nearly all audio takes.
// `bounded`: as play's and live's voices use it, sized once (reserve_for_blocks) and fed
// through the read-only scan; then no call allocates.
void check_gate(std::size_t mask, int channels, std::uint32_t seed, double gap_chance = 0.02, bool bounded = false) {
  std::mt19937 random(seed);
  const std::size_t frames = gap_chance < 0.001 ? 200000 : 20000;
  const std::vector<float> x = signal_with_gaps(frames, channels, mask, gap_chance, random);
  const std::size_t flush = mask + 300;  // silence after the input, as the stream's flush
  const std::int64_t latency = static_cast<std::int64_t>(seed % 7);
  const std::size_t width = static_cast<std::size_t>(channels);

  SilenceGate gate(channels, mask);
  std::vector<float> out((frames + flush) * width, 1.0f);  // 1: an output the gate must leave alone
  std::uniform_int_distribution<std::size_t> chunk_size(1, std::max<std::size_t>(3 * mask, gap_chance < 0.001 ? 5000 : 1));
  std::size_t fed = 0, asked = 0;  // input frames fed, engine output frames handed to the gate
  ChunkZeros zeros;
  if (bounded) {
    zeros.reserve_for_blocks(channels, chunk_size.max(), mask);
    gate.reserve_for_blocks(static_cast<std::size_t>(latency) + chunk_size.max(), chunk_size.max());
  }
  halo::test::AllocationCounter counter;
  while (asked < frames + flush) {
    const std::size_t chunk = std::min(chunk_size(random), frames + flush - fed);
    if (fed < frames && bounded) {
      const std::size_t real = std::min(chunk, frames - fed);
      zeros.scan(static_cast<const float*>(x.data() + fed * width), real, channels, mask);
      gate.feed(zeros);
      fed += real;
    } else if (fed < frames) {
      const std::size_t real = std::min(chunk, frames - fed);
      std::vector<float> part(x.begin() + static_cast<std::ptrdiff_t>(fed * width),
                              x.begin() + static_cast<std::ptrdiff_t>((fed + real) * width));
      EXPECT_EQ(zeros.scan(part.data(), real, channels, mask), 0u);  // no NaN or Inf here
      gate.feed(zeros);
      fed += real;
    } else {
      gate.feed_silence(chunk);
      fed += chunk;
    }
    // The engine's output for the frames just fed, in two pieces that straddle the chunks.
    const std::size_t half = (fed - asked) / 2;
    for (const std::size_t piece : {half, fed - asked - half}) {
      gate.zero_silent_outputs(out.data() + asked * width, static_cast<std::int64_t>(asked) - latency, piece);
      asked += piece;
    }
  }
  counter.stop();
  if (bounded) EXPECT_EQ(counter.allocations(), 0u) << "mask " << mask << ", seed " << seed;
  std::size_t zeroed = 0, kept = 0;
  for (std::size_t e = 0; e < frames + flush; ++e) {
    const std::int64_t n = static_cast<std::int64_t>(e) - latency;  // the y_full index of engine frame e
    for (int c = 0; c < channels; ++c) {
      const bool zero = exactly_zero(x, frames, channels, c, mask, n);
      const float got = out[e * width + static_cast<std::size_t>(c)];
      ASSERT_EQ(got, zero ? 0.0f : 1.0f) << "mask " << mask << ", seed " << seed << ", channel " << c << ", y_full["
                                          << n << "]";
      zero ? ++zeroed : ++kept;
    }
  }
  EXPECT_GT(zeroed, 1000u);  // the case has silence the gate must find ...
  EXPECT_GT(kept, 1000u);    // ... and sound it must leave
}

TEST(SilenceGate, ZeroesExactlyTheOutputsWhoseInputsAreAllZero) {
  for (const std::size_t mask : {1, 2, 7, 64, 255, 1000})
    for (const int channels : {1, 2, 3})
      for (std::uint32_t seed = 1; seed <= 3; ++seed) check_gate(mask, channels, seed * 100 + static_cast<std::uint32_t>(mask));
}

// The scan's other half, the one rule for NaN and Inf: each becomes 0, is counted, and is then
// silent like any 0 (a gap of NaN longer than the mask is a run).
TEST(SilenceGate, NanAndInfAreMadeZeroCountedAndSilent) {
  constexpr std::size_t frames = 3000, mask = 100;
  std::vector<float> x(frames * 2, 0.25f);
  for (std::size_t f = 1000; f < 1500; ++f) x[2 * f] = f % 2 ? std::numeric_limits<float>::quiet_NaN()
                                                          : -std::numeric_limits<float>::infinity();
  x[2 * 2000 + 1] = std::numeric_limits<float>::infinity();
  ChunkZeros zeros;
  EXPECT_EQ(zeros.scan(x.data(), frames, 2, mask), 501u);
  for (float v : x) ASSERT_TRUE(std::isfinite(v));
  EXPECT_EQ(x[2 * 1000], 0.0f);
  ASSERT_EQ(zeros.channels[0].inner.size(), 1u);
  EXPECT_EQ(zeros.channels[0].inner[0].begin, 1000u);
  EXPECT_EQ(zeros.channels[0].inner[0].end, 1500u);
  EXPECT_TRUE(zeros.channels[1].inner.empty());  // one sample: shorter than the mask
}

// Sized once for its chunks and the lag of the outputs behind them, the gate and the scan
// never allocate, and gate as the growing ones do.
TEST(SilenceGate, SizedOnceItNeverAllocatesAndGatesTheSame) {
  for (const std::size_t mask : {1, 7, 255, 1000})
    for (const int channels : {1, 3})
      for (std::uint32_t seed = 1; seed <= 2; ++seed)
        check_gate(mask, channels, seed * 300 + static_cast<std::uint32_t>(mask), 0.02, true);
}

TEST(SilenceGate, LongStretchesOfSoundWithRareGaps) {
  for (const std::size_t mask : {1, 64, 1000})
    for (const int channels : {1, 2, 3}) check_gate(mask, channels, 7000 + static_cast<std::uint32_t>(mask), 1e-4);
}

}  // namespace
}  // namespace halo
