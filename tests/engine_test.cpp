// CpuEngine against the plain float64 reference (test_signals.hpp): every mask length from 1
// tap to 16383, 1/2/6 channels, one mask and per-channel masks, inputs of 1 frame to 10^5+3,
// chunked runs (seeded random chunk sizes) equal to the whole, reset(), and the rejections of
// the Engine seam. Outputs are poisoned with NaN first so an unwritten sample fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "filters/mask.hpp"
#include "src/engine/cpu_direct_engine.hpp"
#include "src/engine/engine.hpp"
#include "test_signals.hpp"

namespace halo {
namespace {

using test::random_signal;
using test::reference_convolution;

constexpr double tolerance = 1e-6;
// Each case stays under this many multiply-adds in the engine (and as many in the reference).
constexpr double max_macs_per_case = 1e9;
constexpr float nan = std::numeric_limits<float>::quiet_NaN();

filters::Mask mask_of(std::vector<float> taps) {
  filters::Mask mask;
  mask.taps = std::move(taps);
  return mask;
}

// Taps like a real mask's scale (sum of |h| near 1) so outputs stay near the inputs' level.
std::vector<float> random_taps(std::size_t count, std::uint64_t seed) {
  return random_signal(count, seed, static_cast<float>(2.0 / std::sqrt(static_cast<double>(count))));
}

// The causal convolution of every channel, frames [0, out_frames), from the reference.
std::vector<double> reference(const std::vector<float>& in, int channels, const filters::MaskSet& masks,
                              std::size_t out_frames) {
  std::vector<double> out(out_frames * channels, 0.0);
  for (int c = 0; c < channels; ++c) {
    const auto full = reference_convolution(in, channels, c, masks[masks.size() == 1 ? 0 : c].taps);
    for (std::size_t n = 0; n < out_frames && n < full.size(); ++n) out[n * channels + c] = full[n];
  }
  return out;
}

// Worst per-channel ||out - ref|| / ||ref|| over the first `frames` frames.
double worst_channel_error(const std::vector<float>& out, const std::vector<double>& ref, int channels,
                           std::size_t frames) {
  double worst = 0;
  std::vector<double> channel_ref(frames);
  for (int c = 0; c < channels; ++c) {
    for (std::size_t n = 0; n < frames; ++n) channel_ref[n] = ref[n * channels + c];
    worst = std::max(worst, test::relative_error(out.data() + c, frames, channels, channel_ref.data()));
  }
  return worst;
}

// Runs `in` (then `extra_zero_frames` of zeros, to reach the tail) through a prepared engine in
// chunks of the given sizes (cycled), into a NaN-poisoned output.
std::vector<float> run_chunked(Engine& engine, const std::vector<float>& in, int channels,
                               std::size_t extra_zero_frames, const std::vector<std::size_t>& chunk_sizes) {
  std::vector<float> padded = in;
  padded.resize(in.size() + extra_zero_frames * channels, 0.0f);
  return test::run_in_chunks(engine, padded, channels, chunk_sizes);
}

// Seeded random chunk sizes: single frames, chunks shorter than the mask and longer ones.
std::vector<std::size_t> random_chunks(std::size_t mask_frames, std::size_t max_chunk, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> sizes = {1, 1};
  for (int i = 0; i < 64; ++i) {
    const int kind = static_cast<int>(rng() % 4);
    std::size_t size = 1;
    if (kind == 1) size = 1 + rng() % std::max<std::size_t>(1, mask_frames / 2);   // shorter than the mask
    if (kind == 2) size = 1 + rng() % std::max<std::size_t>(1, mask_frames + 7);   // around the mask
    if (kind == 3) size = 1 + rng() % max_chunk;                                    // up to the largest
    sizes.push_back(std::min(size, max_chunk));
  }
  return sizes;
}

// ---------------------------------------------------------------- one mask, many shapes

struct Shape {
  std::size_t taps;
  int channels;
};

std::string shape_name(const testing::TestParamInfo<Shape>& info) {
  return "taps" + std::to_string(info.param.taps) + "_ch" + std::to_string(info.param.channels);
}

class CpuEngineShapes : public testing::TestWithParam<Shape> {};

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

TEST_P(CpuEngineShapes, WholeSignalAndTailMatchReference) {
  const Shape shape = GetParam();
  for (const std::size_t frames : lengths_for(shape)) {
    const std::uint64_t seed = 1000 * shape.taps + 10 * shape.channels + frames;
    const filters::MaskSet masks = {mask_of(random_taps(shape.taps, seed))};
    const auto in = random_signal(frames * shape.channels, seed + 1);
    // With the tail (M-1 zero frames fed after the input) where the budget allows.
    const bool tail = static_cast<double>(frames + shape.taps - 1) * shape.taps * shape.channels <= max_macs_per_case;
    const std::size_t tail_frames = tail ? shape.taps - 1 : 0;
    const std::size_t total = frames + tail_frames;

    CpuEngine engine;
    engine.prepare(masks, shape.channels, total);
    EXPECT_EQ(engine.mask_frames(), shape.taps);
    EXPECT_EQ(engine.latency_frames(), 0u);
    const auto out = run_chunked(engine, in, shape.channels, tail_frames, {total});
    const auto ref = reference(in, shape.channels, masks, total);
    EXPECT_LE(worst_channel_error(out, ref, shape.channels, total), tolerance)
        << "taps " << shape.taps << ", channels " << shape.channels << ", frames " << frames << ", tail "
        << tail_frames << ", seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Masks, CpuEngineShapes,
                         testing::Values(Shape{1, 1}, Shape{1, 2}, Shape{1, 6}, Shape{2, 1}, Shape{2, 2}, Shape{2, 6},
                                         Shape{3, 1}, Shape{3, 2}, Shape{3, 6}, Shape{64, 1}, Shape{64, 2},
                                         Shape{64, 6}, Shape{255, 1}, Shape{255, 2}, Shape{255, 6},
                                         Shape{4096, 1}, Shape{4096, 2}, Shape{4096, 6}, Shape{16383, 1},
                                         Shape{16383, 2}, Shape{16383, 6}),
                         shape_name);

class CpuEngineChunks : public testing::TestWithParam<Shape> {};

TEST_P(CpuEngineChunks, RandomChunksEqualWholeSignal) {
  const Shape shape = GetParam();
  // Long enough for many chunks and several mask lengths, and at least one frame more than
  // the mask; runs whole, chunked and in the reference, with the tail.
  const double per_frame = static_cast<double>(shape.taps) * shape.channels;
  const std::size_t frames =
      std::max<std::size_t>(std::min<std::size_t>(3 * shape.taps + 5000, static_cast<std::size_t>(2e8 / per_frame)),
                            shape.taps + 3);
  const std::size_t tail_frames = shape.taps - 1;
  const std::size_t total = frames + tail_frames;
  const std::uint64_t seed = 7000 * shape.taps + shape.channels;
  const filters::MaskSet masks = {mask_of(random_taps(shape.taps, seed))};
  const auto in = random_signal(frames * shape.channels, seed + 1);

  CpuEngine whole_engine;
  whole_engine.prepare(masks, shape.channels, total);
  const auto whole = run_chunked(whole_engine, in, shape.channels, tail_frames, {total});

  const std::size_t max_chunk = std::max<std::size_t>(2 * shape.taps, 64);
  const auto sizes = random_chunks(shape.taps, max_chunk, seed + 2);
  CpuEngine chunked_engine;
  chunked_engine.prepare(masks, shape.channels, max_chunk);
  const auto chunked = run_chunked(chunked_engine, in, shape.channels, tail_frames, sizes);

  std::ostringstream context;
  context << "taps " << shape.taps << ", channels " << shape.channels << ", frames " << frames << ", chunk sizes";
  for (std::size_t i = 0; i < 12; ++i) context << " " << sizes[i];
  context << " ... (seed " << seed + 2 << ")";
  const auto ref = reference(in, shape.channels, masks, total);
  EXPECT_LE(worst_channel_error(chunked, ref, shape.channels, total), tolerance) << context.str();
  // Chunking never changes the samples: bit for bit, not just within the tolerance.
  ASSERT_EQ(chunked.size(), whole.size());
  EXPECT_EQ(std::memcmp(chunked.data(), whole.data(), whole.size() * sizeof(float)), 0) << context.str();
}

// The longest masks chunked on fewer channels: a 16383-tap mask on 6 channels would cost
// several 10^9 multiply-adds per run; the carry is per channel, so 1 and 2 channels show it.
INSTANTIATE_TEST_SUITE_P(Masks, CpuEngineChunks,
                         testing::Values(Shape{1, 1}, Shape{1, 2}, Shape{1, 6}, Shape{2, 1}, Shape{2, 6}, Shape{3, 1},
                                         Shape{3, 6}, Shape{64, 1}, Shape{64, 2}, Shape{64, 6}, Shape{255, 1},
                                         Shape{255, 2}, Shape{255, 6}, Shape{4096, 1}, Shape{4096, 2},
                                         Shape{16383, 1}),
                         shape_name);

// ---------------------------------------------------------------- per-channel masks

TEST(CpuEngine, PerChannelMasksOfDifferentLengths) {
  const int channels = 6;
  const std::size_t lengths[channels] = {1, 2, 5, 64, 300, 77};
  filters::MaskSet masks;
  for (int c = 0; c < channels; ++c) masks.push_back(mask_of(random_taps(lengths[c], 50 + c)));
  const std::size_t m = 300;
  for (const std::size_t frames : {std::size_t{1}, std::size_t{7}, std::size_t{150}, std::size_t{20011}}) {
    const auto in = random_signal(frames * channels, 60 + frames);
    const std::size_t total = frames + m - 1;
    const auto ref = reference(in, channels, masks, total);

    CpuEngine whole;
    whole.prepare(masks, channels, total);
    EXPECT_EQ(whole.mask_frames(), m);
    const auto out = run_chunked(whole, in, channels, m - 1, {total});
    EXPECT_LE(worst_channel_error(out, ref, channels, total), tolerance) << "frames " << frames;

    CpuEngine chunked;
    chunked.prepare(masks, channels, 512);
    const auto pieces = run_chunked(chunked, in, channels, m - 1, random_chunks(m, 512, 70 + frames));
    EXPECT_LE(worst_channel_error(pieces, ref, channels, total), tolerance) << "chunked, frames " << frames;
  }
}

TEST(CpuEngine, ChannelsAreNotMixed) {
  // Each channel's mask applied to the other channels would still be "a convolution": check
  // the channels directly against their own references, with very different masks.
  const int channels = 2;
  const filters::MaskSet masks = {mask_of({1.0f}), mask_of({0.0f, 0.0f, 0.0f, -2.0f})};
  const auto in = random_signal(100 * channels, 80);
  CpuEngine engine;
  engine.prepare(masks, channels, 100);
  std::vector<float> out(in.size(), nan);
  engine.process(in.data(), out.data(), 100);
  for (std::size_t n = 0; n < 100; ++n) {
    EXPECT_EQ(out[2 * n], in[2 * n]) << "frame " << n;
    EXPECT_EQ(out[2 * n + 1], n >= 3 ? -2.0f * in[2 * (n - 3) + 1] : 0.0f) << "frame " << n;
  }
}

// ---------------------------------------------------------------- reset

TEST(CpuEngine, ResetForgetsTheCarry) {
  const int channels = 2;
  const std::size_t taps = 255, frames = 3001;
  const filters::MaskSet masks = {mask_of(random_taps(taps, 90))};
  const auto first = random_signal(frames * channels, 91);
  const auto second = random_signal(frames * channels, 92);

  CpuEngine engine;
  engine.prepare(masks, channels, 1000);
  run_chunked(engine, first, channels, 0, {1000, 17});
  engine.reset();
  const auto after_reset = run_chunked(engine, second, channels, 0, {1000, 17});

  CpuEngine fresh;
  fresh.prepare(masks, channels, 1000);
  const auto from_fresh = run_chunked(fresh, second, channels, 0, {1000, 17});

  const auto ref = reference(second, channels, masks, frames);
  EXPECT_LE(worst_channel_error(after_reset, ref, channels, frames), tolerance);
  EXPECT_EQ(std::memcmp(after_reset.data(), from_fresh.data(), after_reset.size() * sizeof(float)), 0);

  // Without the reset the carry of `first` shows in the first M-1 frames.
  CpuEngine carried;
  carried.prepare(masks, channels, 1000);
  run_chunked(carried, first, channels, 0, {1000});
  const auto no_reset = run_chunked(carried, second, channels, 0, {1000});
  EXPECT_GT(worst_channel_error(no_reset, ref, channels, taps - 1), 1e-3);
}

TEST(CpuEngine, ResetAfterNonFiniteInputRecovers) {
  // An Inf in the input poisons the carry; reset() must clear it completely.
  const filters::MaskSet masks = {mask_of(random_taps(64, 95))};
  std::vector<float> bad(100, 0.25f);
  bad[90] = std::numeric_limits<float>::infinity();
  CpuEngine engine;
  engine.prepare(masks, 1, 100);
  std::vector<float> out(100);
  engine.process(bad.data(), out.data(), 100);
  engine.reset();
  const auto in = random_signal(100, 96);
  std::vector<float> after(100, nan);
  engine.process(in.data(), after.data(), 100);
  const auto ref = reference(in, 1, masks, 100);
  EXPECT_LE(worst_channel_error(after, ref, 1, 100), tolerance);
}

TEST(CpuEngine, PrepareAgainReplacesTheMask) {
  const auto in = random_signal(500, 97);
  CpuEngine engine;
  engine.prepare({mask_of(random_taps(300, 98))}, 1, 500);
  std::vector<float> out(500, nan);
  engine.process(in.data(), out.data(), 500);
  const filters::MaskSet second = {mask_of(random_taps(9, 99))};
  engine.prepare(second, 1, 250);
  EXPECT_EQ(engine.mask_frames(), 9u);
  EXPECT_EQ(engine.max_chunk_frames(), 250u);
  std::fill(out.begin(), out.end(), nan);
  const auto again = run_chunked(engine, in, 1, 0, {250});
  EXPECT_LE(worst_channel_error(again, reference(in, 1, second, 500), 1, 500), tolerance);
}

// ---------------------------------------------------------------- rejections

TEST(CpuEngine, PrepareRejectsMaskCountNotMatchingChannels) {
  CpuEngine engine;
  const filters::MaskSet two = {mask_of({1.0f}), mask_of({0.5f})};
  EXPECT_THROW(engine.prepare(two, 3, 64), Error);
  EXPECT_THROW(engine.prepare(two, 1, 64), Error);
  EXPECT_NO_THROW(engine.prepare(two, 2, 64));
  EXPECT_THROW(engine.prepare({}, 2, 64), Error);
}

TEST(CpuEngine, PrepareRejectsEmptyAndNonFiniteMasks) {
  CpuEngine engine;
  EXPECT_THROW(engine.prepare({mask_of({})}, 1, 64), Error);
  EXPECT_THROW(engine.prepare({mask_of({1.0f}), mask_of({})}, 2, 64), Error);
  EXPECT_THROW(engine.prepare({mask_of({0.5f, nan, 0.5f})}, 1, 64), Error);
  EXPECT_THROW(engine.prepare({mask_of({0.5f, std::numeric_limits<float>::infinity()})}, 1, 64), Error);
  EXPECT_THROW(engine.prepare({mask_of({1.0f}), mask_of({-std::numeric_limits<float>::infinity()})}, 2, 64),
               Error);
}

TEST(CpuEngine, PrepareRejectsNoChannelsAndNoChunk) {
  CpuEngine engine;
  EXPECT_THROW(engine.prepare({mask_of({1.0f})}, 0, 64), Error);
  EXPECT_THROW(engine.prepare({mask_of({1.0f})}, 1, 0), Error);
}

TEST(CpuEngine, ProcessRejectsChunksBeyondThePreparedSizeAndBeforePrepare) {
  std::vector<float> in(200, 0.5f), out(200, nan);
  CpuEngine unprepared;
  EXPECT_THROW(unprepared.process(in.data(), out.data(), 10), Error);

  CpuEngine engine;
  engine.prepare({mask_of(random_taps(31, 100))}, 2, 64);
  EXPECT_THROW(engine.process(in.data(), out.data(), 65), Error);
  EXPECT_TRUE(std::isnan(out[0])) << "a rejected chunk must not be written";
  EXPECT_NO_THROW(engine.process(in.data(), out.data(), 64));
  EXPECT_NO_THROW(engine.process(in.data(), out.data(), 0));
}

TEST(CpuEngine, FailedPrepareKeepsTheEngineUnprepared) {
  CpuEngine engine;
  EXPECT_THROW(engine.prepare({mask_of({nan})}, 1, 64), Error);
  std::vector<float> in(8, 0.5f), out(8, nan);
  EXPECT_THROW(engine.process(in.data(), out.data(), 8), Error);
}

}  // namespace
}  // namespace halo
