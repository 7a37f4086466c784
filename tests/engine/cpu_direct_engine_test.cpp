// CpuDirectEngine against the plain float64 reference (test_signals.hpp) beyond what the
// contract suite (engine_contract_test.cpp) asks of every engine: mask lengths up to 16383,
// inputs of 1 frame to 10^5+3 with the tail, chunked runs equal to the whole bit for bit,
// channels kept apart, recovery from non-finite input, and prepare() again with a new shape.
// Outputs are poisoned with NaN first so an unwritten sample fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine_harness.hpp"
#include "src/engine/cpu_direct_engine.hpp"

namespace halo {
namespace {

using namespace test;

constexpr double tolerance = 1e-6;
// Each case stays under this many multiply-adds in the engine (and as many in the reference).
constexpr double max_macs_per_case = 1e9;
constexpr float nan = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------- one mask, many shapes

struct Shape {
  std::size_t taps;
  int channels;
};

std::string shape_name(const testing::TestParamInfo<Shape>& info) {
  return "taps" + std::to_string(info.param.taps) + "_ch" + std::to_string(info.param.channels);
}

// `in` followed by `zeros` frames of zeros (to reach the tail of the convolution).
std::vector<float> with_zeros(const std::vector<float>& in, int channels, std::size_t zeros) {
  std::vector<float> padded = in;
  padded.resize(in.size() + zeros * channels, 0.0f);
  return padded;
}

class CpuDirectEngineShapes : public testing::TestWithParam<Shape> {};

// Input lengths for a mask: 1, 7, shorter than the mask, and 10^5+3 (fewer where that would
// exceed the per-case budget).
std::vector<std::size_t> lengths_for(const Shape& shape) {
  const double per_frame = static_cast<double>(shape.taps) * shape.channels;
  const auto affordable = static_cast<std::size_t>(max_macs_per_case / per_frame);
  std::vector<std::size_t> lengths = {1, 7};
  if (shape.taps > 2) lengths.push_back(shape.taps / 2);
  if (shape.taps > 1 && shape.taps - 1 <= affordable) lengths.push_back(shape.taps - 1);
  lengths.push_back(std::min<std::size_t>(100003, affordable / 2));
  return lengths;
}

TEST_P(CpuDirectEngineShapes, WholeSignalAndTailMatchReference) {
  const Shape shape = GetParam();
  for (const std::size_t frames : lengths_for(shape)) {
    const std::uint64_t seed = 1000 * shape.taps + 10 * shape.channels + frames;
    const filters::MaskSet masks = {mask_of(random_taps(shape.taps, seed))};
    const auto in = random_signal(frames * shape.channels, seed + 1);
    // With the tail (M-1 zero frames fed after the input) where the budget allows.
    const bool tail = static_cast<double>(frames + shape.taps - 1) * shape.taps * shape.channels <= max_macs_per_case;
    const std::size_t tail_frames = tail ? shape.taps - 1 : 0;
    const std::size_t total = frames + tail_frames;

    CpuDirectEngine engine;
    prepare_with(engine, masks, shape.channels, total);
    EXPECT_EQ(engine.mask_frames(), shape.taps);
    EXPECT_EQ(engine.latency_frames(), 0u);
    const auto out = run_in_chunks(engine, with_zeros(in, shape.channels, tail_frames), shape.channels, {total});
    const auto ref = reference_output(in, shape.channels, masks, total);
    EXPECT_LE(worst_channel_error(out, ref, shape.channels, total), tolerance)
        << "taps " << shape.taps << ", channels " << shape.channels << ", frames " << frames << ", tail "
        << tail_frames << ", seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Masks, CpuDirectEngineShapes,
                         testing::Values(Shape{1, 1}, Shape{1, 2}, Shape{1, 6}, Shape{2, 1}, Shape{2, 2}, Shape{2, 6},
                                         Shape{3, 1}, Shape{3, 2}, Shape{3, 6}, Shape{64, 1}, Shape{64, 2},
                                         Shape{64, 6}, Shape{255, 1}, Shape{255, 2}, Shape{255, 6},
                                         Shape{4096, 1}, Shape{4096, 2}, Shape{4096, 6}, Shape{16383, 1},
                                         Shape{16383, 2}, Shape{16383, 6}),
                         shape_name);

class CpuDirectEngineChunks : public testing::TestWithParam<Shape> {};

TEST_P(CpuDirectEngineChunks, RandomChunksEqualWholeSignal) {
  const Shape shape = GetParam();
  // Long enough for many chunks and several mask lengths, and at least one frame more than
  // the mask; runs whole, chunked and in the reference, with the tail.
  const double per_frame = static_cast<double>(shape.taps) * shape.channels;
  const std::size_t frames =
      std::max<std::size_t>(std::min<std::size_t>(3 * shape.taps + 5000, static_cast<std::size_t>(2e8 / per_frame)),
                            shape.taps + 3);
  const std::size_t total = frames + shape.taps - 1;
  const std::uint64_t seed = 7000 * shape.taps + shape.channels;
  const filters::MaskSet masks = {mask_of(random_taps(shape.taps, seed))};
  const auto in = random_signal(frames * shape.channels, seed + 1);

  CpuDirectEngine whole_engine;
  prepare_with(whole_engine, masks, shape.channels, total);
  const auto whole = run_aligned(whole_engine, in, shape.channels, {total});

  const std::size_t max_chunk = std::max<std::size_t>(2 * shape.taps, 64);
  const auto sizes = random_chunks(shape.taps, max_chunk, seed + 2);
  CpuDirectEngine chunked_engine;
  prepare_with(chunked_engine, masks, shape.channels, max_chunk);
  const auto chunked = run_aligned(chunked_engine, in, shape.channels, sizes);

  const std::string context = "taps " + std::to_string(shape.taps) + ", channels " + std::to_string(shape.channels) +
                              ", frames " + std::to_string(frames) + ", " + describe_chunks(sizes, seed + 2);
  const auto ref = reference_output(in, shape.channels, masks, total);
  EXPECT_LE(worst_channel_error(chunked, ref, shape.channels, total), tolerance) << context;
  // Chunking never changes the samples: bit for bit, not just within the tolerance.
  EXPECT_TRUE(same_bits(chunked, whole)) << context;
}

// The longest masks chunked on fewer channels: a 16383-tap mask on 6 channels would cost
// several 10^9 multiply-adds per run; the carry is per channel, so 1 and 2 channels show it.
INSTANTIATE_TEST_SUITE_P(Masks, CpuDirectEngineChunks,
                         testing::Values(Shape{1, 1}, Shape{1, 2}, Shape{1, 6}, Shape{2, 1}, Shape{2, 6}, Shape{3, 1},
                                         Shape{3, 6}, Shape{64, 1}, Shape{64, 2}, Shape{64, 6}, Shape{255, 1},
                                         Shape{255, 2}, Shape{255, 6}, Shape{4096, 1}, Shape{4096, 2},
                                         Shape{16383, 1}),
                         shape_name);

// ---------------------------------------------------------------- channels and state

TEST(CpuDirectEngine, ChannelsAreNotMixed) {
  // Each channel's mask applied to the other channels would still be "a convolution": check
  // the channels directly against their own references, with very different masks.
  const int channels = 2;
  const filters::MaskSet masks = {mask_of({1.0f}), mask_of({0.0f, 0.0f, 0.0f, -2.0f})};
  const auto in = random_signal(100 * channels, 80);
  CpuDirectEngine engine;
  prepare_with(engine, masks, channels, 100);
  std::vector<float> out(in.size(), nan);
  ASSERT_EQ(engine.process(in.data(), out.data(), 100), Status::ok) << engine.failure();
  for (std::size_t n = 0; n < 100; ++n) {
    EXPECT_EQ(out[2 * n], in[2 * n]) << "frame " << n;
    EXPECT_EQ(out[2 * n + 1], n >= 3 ? -2.0f * in[2 * (n - 3) + 1] : 0.0f) << "frame " << n;
  }
}

TEST(CpuDirectEngine, ResetAfterNonFiniteInputRecovers) {
  // An Inf in the input poisons the carry; reset() must clear it completely.
  const filters::MaskSet masks = {mask_of(random_taps(64, 95))};
  std::vector<float> bad = random_signal(100, 94);
  bad[90] = std::numeric_limits<float>::infinity();
  CpuDirectEngine engine;
  prepare_with(engine, masks, 1, 100);
  std::vector<float> out(100);
  ASSERT_EQ(engine.process(bad.data(), out.data(), 100), Status::ok) << engine.failure();
  engine.reset();
  const auto in = random_signal(100, 96);
  const auto after = run_in_chunks(engine, in, 1, {100});
  EXPECT_LE(worst_channel_error(after, reference_output(in, 1, masks, 100), 1, 100), tolerance);
}

TEST(CpuDirectEngine, PrepareAgainTakesANewShape) {
  const auto in = random_signal(500, 97);
  CpuDirectEngine engine;
  prepare_with(engine, {mask_of(random_taps(300, 98))}, 1, 500);
  run_in_chunks(engine, in, 1, {500});
  const filters::MaskSet second = {mask_of(random_taps(9, 99))};
  prepare_with(engine, second, 1, 250);
  EXPECT_EQ(engine.mask_frames(), 9u);
  EXPECT_EQ(engine.spec().max_block_frames, 250u);
  const auto again = run_in_chunks(engine, in, 1, {250});
  EXPECT_LE(worst_channel_error(again, reference_output(in, 1, second, 500), 1, 500), tolerance);
}

// Both builds of the kernel (AVX2 + FMA where this CPU has them, and the x86-64 baseline that
// any x86-64 runs): the reference, and blocks of every size (single frames, the 8-output tail,
// the 32-output blocks) give the same bits as one whole block.
TEST(CpuDirectEngine, BothKernelsMatchTheReferenceAndIgnoreTheBlocking) {
  for (const auto kernel : {CpuDirectEngine::Kernel::best, CpuDirectEngine::Kernel::portable}) {
    for (const std::size_t taps : {1, 3, 31, 64, 65, 200}) {
      const int channels = 2;
      const std::uint64_t seed = 4000 + taps;
      const filters::MaskSet masks = {mask_of(random_taps(taps, seed)), mask_of(random_taps(taps, seed + 1))};
      const auto in = random_signal(3001 * channels, seed + 2);
      const std::size_t total = 3001 + taps - 1;
      CpuDirectEngine whole_engine(kernel), chunked_engine(kernel);
      if (kernel == CpuDirectEngine::Kernel::portable) {
        EXPECT_FALSE(whole_engine.uses_avx2());
      }
      prepare_with(whole_engine, masks, channels, total);
      prepare_with(chunked_engine, masks, channels, 100);
      const auto whole = run_aligned(whole_engine, in, channels, {total});
      const auto sizes = random_chunks(taps, 100, seed + 3);
      const auto chunked = run_aligned(chunked_engine, in, channels, sizes);
      const std::string context = std::string(kernel == CpuDirectEngine::Kernel::best ? "best" : "portable") +
                                  " kernel, " + std::to_string(taps) + " taps, " + describe_chunks(sizes, seed + 3);
      EXPECT_LE(worst_channel_error(whole, reference_output(in, channels, masks, total), channels, total), tolerance)
          << context;
      EXPECT_TRUE(same_bits(whole, chunked)) << context;
    }
  }
}

TEST(CpuDirectEngine, FailedPrepareLeavesTheEngineUnprepared) {
  CpuDirectEngine engine;
  EXPECT_THROW(engine.prepare(ProcessSpec{1, 0, 8, 48000}), Error);
  EXPECT_FALSE(engine.ready());
  EXPECT_THROW(engine.set_taps(TapSet::from_masks({mask_of(random_taps(8, 103))}, 1)), Error);
  const auto in = random_signal(8, 104);
  std::vector<float> out(8, nan);
  EXPECT_EQ(engine.process(in.data(), out.data(), 8), Status::failed);
  EXPECT_STRNE(engine.failure(), "");
}

// Taps far below any audible level go to the engine scaled up by a power of two (Engine::set_taps);
// only as far as -240 dB, so that its sums overflow no sooner than the taps' own level lets
// them: four taps of 1.9e-35 on inputs of 3e38 are outputs near 2e4, which taps brought to
// full scale had overflowed to Inf (a review).
TEST(CpuDirectEngine, TinyTapsOverflowNoSoonerThanTheirOwnLevel) {
  const std::vector<float> h(4, 1.9e-35f);
  const int channels = 1;
  std::vector<float> in(64);
  for (std::size_t n = 0; n < in.size(); ++n) in[n] = (n % 3 == 0 ? -3e38f : 3e38f) * (1.0f - 0.01f * static_cast<float>(n % 7));
  CpuDirectEngine engine;
  prepare_with(engine, {mask_of(h)}, channels, 64);
  std::vector<float> out(in.size(), nan);
  ASSERT_EQ(engine.process(in.data(), out.data(), in.size()), Status::ok);
  const auto ref = reference_output(in, channels, {mask_of(h)}, in.size());
  for (std::size_t n = 0; n < in.size(); ++n) {
    ASSERT_TRUE(std::isfinite(out[n])) << "frame " << n;
    EXPECT_NEAR(out[n], ref[n], 1e-6 * std::fabs(ref[n]) + 1e-3) << "frame " << n;
  }
}

}  // namespace
}  // namespace halo
