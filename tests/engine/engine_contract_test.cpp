// The Engine contract (src/engine/engine.hpp), one test body run over every engine the
// registry has (registered_engines(): the CPU engines, and the CUDA engines in a CUDA build),
// as liquid-dsp runs one test over every filter type. A new engine joins by being registered.
//
// Every property is checked against the float64 reference written plainly in
// test_signals.cpp, on seeded random signals (the seed and the shape in every failure
// message), into outputs poisoned with NaN so an unwritten sample fails:
//   - equal to the reference for 1..1000 taps, 1/2/3/6 channels, one mask, per-channel masks
//     of different lengths and repeated columns [a, a, b] (deduplicated by the TapSet);
//   - chunking changes no bit (random block sizes, 1 and max_block_frames among them);
//   - reset() gives a fresh engine's output;
//   - latency_frames() is honest (an impulse and noise land exactly that late);
//   - set_taps mid-stream: from t + latency on, a fresh engine's output with the new taps
//     (shorter, longer, up to max_mask_frames);
//   - process() allocates nothing (counted on the calling thread over many calls), writes
//     exactly its frames, and refuses what it must with Status::failed and a message.
// An engine that does not accept a case (accepts() says why) skips it with the reason; the
// CPU engines accept everything. A CUDA engine where no GPU is usable skips with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/allocation_counter.hpp"
#include "engine/handover_entry.hpp"
#include "engine_harness.hpp"
#include "src/engine/registry.hpp"

namespace halo {
namespace {

using namespace test;

constexpr float nan = std::numeric_limits<float>::quiet_NaN();

// Relative L2 error allowed against the float64 reference: float32 rounding grows about as
// the square root of the number of terms summed.
double tolerance_for(std::size_t taps) {
  return 4.0 * std::ldexp(1.0, -24) * (1.0 + std::sqrt(static_cast<double>(taps)));
}

// ---------------------------------------------------------------- mask shapes

enum class Columns {
  shared,       // one mask for every channel
  per_channel,  // a mask per channel, of lengths up to M (the shorter ones padded)
  repeated,     // [a, a, b, a, a, b, ...]: channels sharing a column share one copy
};

struct Shape {
  std::size_t taps;
  int channels;
  Columns columns;
};

std::string describe(const Shape& shape) {
  static const char* const names[] = {"shared", "per_channel", "repeated"};
  return std::to_string(shape.taps) + "taps_" + std::to_string(shape.channels) + "ch_" +
         names[static_cast<int>(shape.columns)];
}

filters::MaskSet masks_for(const Shape& shape, std::uint64_t seed) {
  if (shape.columns == Columns::shared) return {mask_of(random_taps(shape.taps, seed))};
  filters::MaskSet masks;
  const auto a = random_taps(shape.taps, seed), b = random_taps(shape.taps, seed + 1);
  for (int c = 0; c < shape.channels; ++c) {
    if (shape.columns == Columns::repeated) {
      masks.push_back(mask_of(c % 3 == 2 ? b : a));
    } else {
      const std::size_t taps = std::max<std::size_t>(1, shape.taps * (c + 1) / shape.channels);
      masks.push_back(mask_of(random_taps(taps, seed + 10 + c)));
    }
  }
  return masks;
}

std::vector<Shape> all_shapes() {
  std::vector<Shape> shapes;
  for (const std::size_t taps : {1, 2, 7, 64, 255, 1000}) {
    for (const int channels : {1, 2, 6}) shapes.push_back({taps, channels, Columns::shared});
    for (const int channels : {2, 6}) shapes.push_back({taps, channels, Columns::per_channel});
    for (const int channels : {3, 6}) shapes.push_back({taps, channels, Columns::repeated});
  }
  return shapes;
}

// ---------------------------------------------------------------- the fixture

// The engine under test, by name; skips where it cannot run. `ready` makes one engine,
// prepared and with its taps set, or says (skip_reason_) why the engine does not accept them.
class EngineFixture {
 protected:
  bool start(const std::string& name) {
    entry_ = &contract_entry(name);  // a registered engine, or the test-only hand-over
    skip_reason_ = why_unusable(*entry_);
    return skip_reason_.empty();
  }

  bool accepts(const TapSet& taps, const ProcessSpec& spec) {
    std::string why;
    const bool accepted = entry_->accepts(taps, spec, &why);
    if (entry_->device == EngineDevice::cpu) {
      EXPECT_TRUE(accepted) << entry_->name << ": a CPU engine accepts every TapSet, but says: " << why;
    }
    if (!accepted)
      skip_reason_ = entry_->name + " does not accept " + std::to_string(taps.distinct_masks()) + " mask(s) of " +
                     std::to_string(taps.mask_frames()) + " taps on " + std::to_string(spec.channels) +
                     " channels (max_mask_frames " + std::to_string(spec.max_mask_frames) + "): " + why;
    return accepted;
  }

  std::unique_ptr<Engine> ready(const filters::MaskSet& masks, const ProcessSpec& spec) {
    const TapSet taps = TapSet::from_masks(masks, spec.channels);
    if (!accepts(taps, spec)) return nullptr;
    auto engine = entry_->make(EngineOptions{});
    engine->prepare(spec);
    engine->set_taps(taps);
    EXPECT_EQ(engine->mask_frames(), taps.mask_frames());
    EXPECT_TRUE(engine->ready());
    return engine;
  }

  const EngineEntry* entry_ = nullptr;
  std::string skip_reason_;
};

#define READY_OR_SKIP(engine, masks, spec) \
  auto engine = ready(masks, spec);        \
  if (!engine) GTEST_SKIP() << skip_reason_

class EngineContract : public EngineFixture, public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!start(GetParam())) GTEST_SKIP() << skip_reason_;
  }
};

class EngineShapes : public EngineFixture, public testing::TestWithParam<std::tuple<std::string, Shape>> {
 protected:
  void SetUp() override {
    if (!start(std::get<0>(GetParam()))) GTEST_SKIP() << skip_reason_;
  }
  const Shape& shape() const { return std::get<1>(GetParam()); }
  std::string context(std::size_t frames, std::uint64_t seed) const {
    return entry_->name + ", " + describe(shape()) + ", " + std::to_string(frames) + " frames, seed " +
           std::to_string(seed);
  }
};

std::string engine_param_name(const testing::TestParamInfo<std::string>& info) { return identifier(info.param); }

std::string shape_param_name(const testing::TestParamInfo<std::tuple<std::string, Shape>>& info) {
  return identifier(std::get<0>(info.param)) + "_" + describe(std::get<1>(info.param));
}

// ---------------------------------------------------------------- equals the reference

TEST_P(EngineShapes, EqualsTheFloat64Reference) {
  const std::size_t m = shape().taps;
  const int channels = shape().channels;
  // Shorter than the mask, and long enough for many blocks of the largest size.
  for (const std::size_t frames : {std::size_t{1}, std::max<std::size_t>(1, m / 2), 3 * m + 9001}) {
    const std::uint64_t seed = 1000003 * m + 1009 * channels + 17 * static_cast<int>(shape().columns) + frames;
    const filters::MaskSet masks = masks_for(shape(), seed);
    const auto in = random_signal(frames * channels, seed + 2);
    READY_OR_SKIP(engine, masks, (ProcessSpec{channels, 4096, m, 48000}));
    const auto out = run_aligned(*engine, in, channels, {4096});
    const std::size_t total = frames + m - 1;
    const auto ref = reference_output(in, channels, masks, total);
    EXPECT_LE(worst_channel_error(out, ref, channels, total), tolerance_for(m)) << context(frames, seed);
  }
}

// ---------------------------------------------------------------- chunk invariance

TEST_P(EngineShapes, RandomBlockSizesChangeNoBit) {
  const std::size_t m = shape().taps;
  const int channels = shape().channels;
  const std::size_t frames = 3 * m + 5003;
  const std::uint64_t seed = 7000 * m + 31 * channels + static_cast<int>(shape().columns);
  const filters::MaskSet masks = masks_for(shape(), seed);
  const auto in = random_signal(frames * channels, seed + 2);

  // One engine takes everything (input, latency and tail) in one block.
  // More than any latency here (cuda-fft-fused's is two hops of an FFT up to 8x the mask).
  const std::size_t whole_block = frames + m - 1 + 16 * m + 4096;
  READY_OR_SKIP(whole_engine, masks, (ProcessSpec{channels, whole_block, m, 48000}));
  ASSERT_LE(frames + m - 1 + whole_engine->latency_frames(), whole_block);
  const auto whole = run_aligned(*whole_engine, in, channels, {whole_block});

  const std::size_t max_block = 2 * m + 100;
  const auto sizes = random_chunks(m, max_block, seed + 3);
  READY_OR_SKIP(chunked_engine, masks, (ProcessSpec{channels, max_block, m, 48000}));
  const auto chunked = run_aligned(*chunked_engine, in, channels, sizes);

  const std::string context = entry_->name + ", " + describe(shape()) + ", " + std::to_string(frames) +
                              " frames, max block " + std::to_string(max_block) + ", " + describe_chunks(sizes, seed + 3);
  const auto ref = reference_output(in, channels, masks, frames + m - 1);
  EXPECT_LE(worst_channel_error(chunked, ref, channels, frames + m - 1), tolerance_for(m)) << context;
  EXPECT_TRUE(same_bits(chunked, whole)) << "blocked output differs from one whole block: " << context;
}

INSTANTIATE_TEST_SUITE_P(Registered, EngineShapes,
                         testing::Combine(testing::ValuesIn(registered_names()), testing::ValuesIn(all_shapes())),
                         shape_param_name);

// ---------------------------------------------------------------- reset

TEST_P(EngineContract, ResetGivesAFreshEnginesOutput) {
  const int channels = 2;
  const std::size_t frames = 3001;  // not a multiple of any block: reset lands mid-block
  const filters::MaskSet masks = {mask_of(random_taps(255, 90)), mask_of(random_taps(100, 91))};
  const auto first = random_signal(frames * channels, 92);
  const auto second = random_signal(frames * channels, 93);
  const ProcessSpec spec{channels, 1000, 255, 48000};

  READY_OR_SKIP(engine, masks, spec);
  run_in_chunks(*engine, first, channels, {1000, 17});
  engine->reset();
  const auto after_reset = run_aligned(*engine, second, channels, {1000, 17});

  READY_OR_SKIP(fresh, masks, spec);
  const auto from_fresh = run_aligned(*fresh, second, channels, {1000, 17});
  EXPECT_TRUE(same_bits(after_reset, from_fresh)) << entry_->name << ": seeds 90..93";
  const auto ref = reference_output(second, channels, masks, frames + 254);
  EXPECT_LE(worst_channel_error(after_reset, ref, channels, frames + 254), tolerance_for(255)) << entry_->name;

  // The check can fail: without the reset, the carry of `first` shows in the output.
  READY_OR_SKIP(carried, masks, spec);
  run_in_chunks(*carried, first, channels, {1000, 17});
  const auto no_reset = run_aligned(*carried, second, channels, {1000, 17});
  EXPECT_GT(worst_channel_error(no_reset, ref, channels, frames + 254), 1e-3) << entry_->name;
}

// ---------------------------------------------------------------- latency

// Output frame n + latency_frames() is y[n]: with an impulse (its mask shows up exactly that
// late, nothing earlier) and with noise (one frame earlier or later is far off).
TEST_P(EngineContract, LatencyIsHonest) {
  for (const auto& [taps, max_mask] : {std::pair<std::size_t, std::size_t>{1, 1}, {64, 64}, {64, 1000}, {1000, 1000}}) {
    const int channels = 2;
    const std::uint64_t seed = 3000 + taps + max_mask;
    const filters::MaskSet masks = {mask_of(random_taps(taps, seed)), mask_of(random_taps(taps, seed + 1))};
    const ProcessSpec spec{channels, 512, max_mask, 48000};
    const std::string context = entry_->name + ", " + std::to_string(taps) + " taps, max_mask_frames " +
                                std::to_string(max_mask) + ", seed " + std::to_string(seed);

    for (const bool impulse : {true, false}) {
      READY_OR_SKIP(engine, masks, spec);
      const std::size_t latency = engine->latency_frames();
      const std::size_t frames = 2 * taps + 700;
      std::vector<float> in;
      if (impulse) {
        in.assign(frames * channels, 0.0f);
        in[5 * channels] = 1.0f;       // channel 0: at frame 5
        in[9 * channels + 1] = -0.5f;  // channel 1: at frame 9
      } else {
        in = random_signal(frames * channels, seed + 2);
      }
      const std::size_t total = frames + taps - 1;
      std::vector<float> padded = in;
      padded.resize((total + latency + 1) * channels, 0.0f);
      const auto out = run_in_chunks(*engine, padded, channels, {512, 77, 1});
      const auto ref = reference_output(in, channels, masks, total);
      const auto error_at = [&](std::size_t offset) {
        const std::vector<float> shifted(out.begin() + static_cast<std::ptrdiff_t>(offset * channels), out.end());
        return worst_channel_error(shifted, ref, channels, total);
      };
      const std::string what = context + (impulse ? ", impulse" : ", noise") + ", latency " + std::to_string(latency);
      EXPECT_LE(error_at(latency), tolerance_for(taps)) << what;
      EXPECT_GT(error_at(latency + 1), 1e-2) << what << ": one frame later also matches";
      if (latency > 0) {
        EXPECT_GT(error_at(latency - 1), 1e-2) << what << ": one frame earlier also matches";
      }
      if (impulse) {
        // Nothing comes out before the impulse has passed through the latency.
        for (std::size_t n = 0; n < latency + 5; ++n)
          for (int c = 0; c < channels; ++c)
            ASSERT_LE(std::fabs(out[n * channels + c]), 1e-6f) << what << ": frame " << n << " channel " << c;
      }
    }
  }
}

// ---------------------------------------------------------------- set_taps mid-stream

struct TapChange {
  std::size_t taps_a, taps_b, max_mask;
  int channels;
};

TEST_P(EngineContract, SetTapsMidStreamEqualsAFreshEngine) {
  const TapChange changes[] = {{255, 64, 255, 2}, {64, 255, 1000, 2}, {7, 1000, 1000, 1}, {1000, 1, 1000, 3}};
  for (const TapChange& change : changes) {
    const int channels = change.channels;
    const std::uint64_t seed = 5000 + change.taps_a * 7 + change.taps_b;
    filters::MaskSet a, b;
    for (int c = 0; c < channels; ++c) {
      // Three channels: columns [a, a, b]-like per-channel masks, two equal.
      a.push_back(mask_of(random_taps(change.taps_a, seed + (c == 1 ? 0 : c))));
      b.push_back(mask_of(random_taps(change.taps_b, seed + 100 + (c == 1 ? 0 : c))));
    }
    const std::size_t frames = 3 * change.max_mask + 4000;
    const auto in = random_signal(frames * channels, seed + 200);
    const ProcessSpec spec{channels, 512, change.max_mask, 48000};
    std::mt19937_64 rng(seed + 300);
    const auto sizes = random_chunks(change.max_mask, 512, seed + 301);
    const std::string context = entry_->name + ": " + std::to_string(change.taps_a) + " taps, then " +
                                std::to_string(change.taps_b) + " (max_mask_frames " + std::to_string(change.max_mask) +
                                ", " + std::to_string(channels) + " channels), seed " + std::to_string(seed) + ", " +
                                describe_chunks(sizes, seed + 301);
    if (!accepts(TapSet::from_masks(b, channels), spec)) GTEST_SKIP() << skip_reason_;

    for (const std::size_t t : {std::size_t{1} + rng() % (frames / 2), std::size_t{0}, std::size_t{2048}}) {
      READY_OR_SKIP(engine, a, spec);
      const std::size_t latency = engine->latency_frames();
      std::vector<float> padded = in;
      padded.resize((frames + change.max_mask + latency) * channels, 0.0f);
      const std::size_t total = padded.size() / channels;
      std::vector<float> out(padded.size(), nan);
      process_frames(*engine, padded, out, channels, 0, t, sizes);
      engine->set_taps(TapSet::from_masks(b, channels));
      EXPECT_EQ(engine->latency_frames(), latency) << context;
      process_frames(*engine, padded, out, channels, t, total, sizes);

      READY_OR_SKIP(fresh_a, a, spec);
      const auto with_a = run_in_chunks(*fresh_a, padded, channels, {512});
      READY_OR_SKIP(fresh_b, b, spec);
      const auto with_b = run_in_chunks(*fresh_b, padded, channels, {512});
      const auto frames_of = [&](const std::vector<float>& v, std::size_t from, std::size_t to) {
        return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(from * channels),
                                  v.begin() + static_cast<std::ptrdiff_t>(to * channels));
      };
      EXPECT_TRUE(same_bits(frames_of(out, 0, t), frames_of(with_a, 0, t)))
          << context << ", t " << t << ": before the change, the output is the first taps'";
      EXPECT_TRUE(same_bits(frames_of(out, t + latency, total), frames_of(with_b, t + latency, total)))
          << context << ", t " << t << ": from t + latency on, the output is a fresh engine's with the new taps";
      // And that is the new taps' convolution.
      const auto ref = reference_output(in, channels, b, frames);
      std::vector<double> ref_tail(ref.begin() + static_cast<std::ptrdiff_t>(t * channels), ref.end());
      const auto got = frames_of(out, t + latency, frames + latency);
      EXPECT_LE(worst_channel_error(got, ref_tail, channels, frames - t), tolerance_for(change.taps_b))
          << context << ", t " << t;
    }
  }
}

// Taps far below any audible level keep their figures: a mask at about -600 dB (its largest
// tap near 1e-33) had come out of cpu-fft 2e-3 off at 4095 taps, its spectrum over the FFT's
// length flushed below FLT_MIN (a QA pass). The output is such a mask's float64 convolution,
// as for any other, whatever the blocks; taps that are subnormal count as 0, as every engine
// reads them.
TEST_P(EngineContract, TapsFarBelowAnyAudibleLevelKeepTheirFigures) {
  for (const auto& [taps, exponent] : {std::pair<std::size_t, int>{255, -100}, {4095, -100}, {4095, -110}}) {
    const int channels = 2;
    const std::uint64_t seed = 9100 + taps + static_cast<std::uint64_t>(-exponent);
    filters::MaskSet masks;
    for (int c = 0; c < channels; ++c) {
      std::vector<float> h = random_taps(taps, seed + c);
      for (float& tap : h) tap = std::ldexp(tap, exponent);
      masks.push_back(mask_of(h));
    }
    filters::MaskSet as_read = masks;  // the reference's taps: subnormal ones as 0
    for (auto& mask : as_read)
      for (float& tap : mask.taps)
        if (std::fabs(tap) < std::numeric_limits<float>::min()) tap = 0;
    const std::size_t frames = 3 * taps + 5000;
    const auto in = random_signal(frames * channels, seed + 7);
    const auto sizes = random_chunks(taps, 1024, seed + 8);
    READY_OR_SKIP(engine, masks, (ProcessSpec{channels, 1024, taps, 48000}));
    const auto out = run_aligned(*engine, in, channels, sizes);
    const auto ref = reference_output(in, channels, as_read, frames + taps - 1);
    EXPECT_LE(worst_channel_error(out, ref, channels, frames + taps - 1), tolerance_for(taps))
        << entry_->name << ": " << taps << " taps scaled by 2^" << exponent << ", " << describe_chunks(sizes, seed + 8);
  }
}

// A switch mid-stream between such taps and audible ones: the frames still in flight (the
// engine's latency) were made by the taps before and keep their scale, so no frame comes out
// far above both masks' outputs (from -600 dB taps to audible ones the in-flight frames of
// cpu-fft had come out at +18 dBFS, a review); before t the first taps' output, from t +
// latency the new taps', each bit for bit a fresh engine's.
TEST_P(EngineContract, ASwitchBetweenTinyAndAudibleTapsKeepsEachScale) {
  const int channels = 2;
  const std::size_t taps = 255, frames = 6000;
  filters::MaskSet audible = {mask_of(random_taps(taps, 9301))}, tiny = {mask_of(random_taps(taps, 9302))};
  for (float& tap : tiny[0].taps) tap = std::ldexp(tap, -100);
  const auto in = random_signal(frames * channels, 9303);
  const ProcessSpec spec{channels, 64, taps, 48000};
  const auto sizes = random_chunks(taps, 64, 9304);
  for (const bool up : {true, false}) {
    const filters::MaskSet& a = up ? tiny : audible;
    const filters::MaskSet& b = up ? audible : tiny;
    const std::string context = entry_->name + (up ? ": tiny, then audible taps" : ": audible, then tiny taps");
    READY_OR_SKIP(engine, a, spec);
    const std::size_t latency = engine->latency_frames(), t = 2000;
    std::vector<float> padded = in;
    padded.resize((frames + taps + latency) * channels, 0.0f);
    const std::size_t total = padded.size() / channels;
    std::vector<float> out(padded.size(), nan);
    process_frames(*engine, padded, out, channels, 0, t, sizes);
    engine->set_taps(TapSet::from_masks(b, channels));
    process_frames(*engine, padded, out, channels, t, total, sizes);
    READY_OR_SKIP(fresh_a, a, spec);
    const auto with_a = run_in_chunks(*fresh_a, padded, channels, sizes);
    READY_OR_SKIP(fresh_b, b, spec);
    const auto with_b = run_in_chunks(*fresh_b, padded, channels, sizes);
    const auto frames_of = [&](const std::vector<float>& v, std::size_t from, std::size_t to) {
      return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(from * channels),
                                v.begin() + static_cast<std::ptrdiff_t>(to * channels));
    };
    const auto peak = [](const std::vector<float>& v) {
      float p = 0;
      for (float x : v) p = std::max(p, std::fabs(x));
      return p;
    };
    EXPECT_TRUE(same_bits(frames_of(out, 0, t), frames_of(with_a, 0, t))) << context << ": before the switch";
    EXPECT_TRUE(same_bits(frames_of(out, t + latency, total), frames_of(with_b, t + latency, total)))
        << context << ": from t + latency on";
    EXPECT_LE(peak(frames_of(out, t, t + latency)), 2 * std::max(peak(with_a), peak(with_b)))
        << context << ": the frames in flight (latency " << latency << ")";
  }
}

// ---------------------------------------------------------------- no allocation in process

TEST_P(EngineContract, ProcessNeverAllocates) {
  const Shape shapes[] = {{1, 1, Columns::shared}, {255, 2, Columns::per_channel}, {1000, 6, Columns::repeated}};
  for (const Shape& shape : shapes) {
    const std::uint64_t seed = 8000 + shape.taps;
    const filters::MaskSet masks = masks_for(shape, seed);
    const std::size_t max_block = 1024;
    const auto sizes = random_chunks(shape.taps, max_block, seed + 1);
    // Many calls (hundreds, several FFT hops and every block size): a per-call allocation
    // cannot hide behind a first call's warm-up; this counts from the first call on.
    const std::size_t frames = 40 * max_block + 3 * shape.taps;
    const auto in = random_signal(frames * shape.channels, seed + 2);
    READY_OR_SKIP(engine, masks, (ProcessSpec{shape.channels, max_block, shape.taps, 48000}));
    std::vector<float> out(in.size(), nan);

    std::size_t calls = 0, failed = 0;
    AllocationCounter counter;
    for (std::size_t done = 0; done < frames; ++calls) {
      const std::size_t n = std::min(sizes[calls % sizes.size()], frames - done);
      failed += engine->process(in.data() + done * shape.channels, out.data() + done * shape.channels, n) != Status::ok;
      done += n;
    }
    counter.stop();
    const std::string context = entry_->name + ", " + describe(shape) + ", " + std::to_string(calls) + " calls";
    // halo's own code never allocates in process(), on any engine. A CUDA engine also calls the
    // CUDA runtime, which mallocs inside some of its calls (seen on the H100: 96 to 243
    // allocations over 249 to 308 calls); that is outside halo's control and
    // the reason the real-time path keeps CUDA off the audio callback (the worker calls it).
    // So the C allocator is held to zero for every engine that does not run on a GPU, and
    // reported for those that do.
    EXPECT_EQ(counter.new_allocations(), 0u) << context << ": process() allocated through operator new";
    if (entry_->device == EngineDevice::cpu)
      EXPECT_EQ(counter.allocations(), 0u)
          << context << ": process() allocated (operator new" << (counts_malloc() ? " and malloc" : "") << " counted)";
    else if (counter.allocations() > 0)
      std::printf("note: %s: the CUDA runtime allocated %zu times in %zu process() calls\n", context.c_str(),
                  counter.allocations(), calls);
    EXPECT_EQ(failed, 0u) << context << ": " << engine->failure();
    const std::size_t m = shape.taps;
    const auto ref = reference_output(in, shape.channels, masks, frames - engine->latency_frames());
    const std::vector<float> aligned(out.begin() + static_cast<std::ptrdiff_t>(engine->latency_frames() * shape.channels),
                                     out.end());
    EXPECT_LE(worst_channel_error(aligned, ref, shape.channels, frames - engine->latency_frames()), tolerance_for(m))
        << context;
  }
}

// The counter counts: an allocation made while it counts is seen.
TEST(AllocationCounter, SeesAnAllocation) {
  AllocationCounter counter;
  auto* vector = new std::vector<float>(100);
  counter.stop();
  delete vector;
  EXPECT_GE(counter.allocations(), 2u);
}

// ---------------------------------------------------------------- writes exactly its frames

TEST_P(EngineContract, EveryCallWritesItsFramesAndNoMore) {
  const int channels = 3;
  const std::size_t max_block = 700;
  const filters::MaskSet masks = {mask_of(random_taps(31, 70))};
  READY_OR_SKIP(engine, masks, (ProcessSpec{channels, max_block, 31, 48000}));
  const auto in = random_signal((max_block + 16) * channels, 71);
  for (const std::size_t frames : {std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{699}, max_block, std::size_t{5}}) {
    std::vector<float> out(in.size(), nan);
    ASSERT_EQ(engine->process(in.data(), out.data(), frames), Status::ok) << engine->failure();
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (i < frames * channels)
        ASSERT_TRUE(std::isfinite(out[i])) << entry_->name << ": block of " << frames << ", sample " << i << " not written";
      else
        ASSERT_TRUE(std::isnan(out[i])) << entry_->name << ": block of " << frames << ", sample " << i
                                        << " written past the block";
    }
  }
}

// ---------------------------------------------------------------- refusals

TEST_P(EngineContract, RefusesWithAStatusNeverAThrow) {
  const int channels = 2;
  const std::size_t max_block = 64;
  const filters::MaskSet masks = {mask_of(random_taps(31, 100))};
  const ProcessSpec spec{channels, max_block, 31, 48000};
  const auto in = random_signal(2 * max_block * channels, 101);
  std::vector<float> out(in.size(), nan);
  const auto untouched = [&] { return std::all_of(out.begin(), out.end(), [](float v) { return std::isnan(v); }); };

  auto unprepared = entry_->make(EngineOptions{});
  EXPECT_EQ(unprepared->process(in.data(), out.data(), 10), Status::failed) << entry_->name;
  EXPECT_STRNE(unprepared->failure(), "") << entry_->name;
  EXPECT_TRUE(untouched()) << entry_->name << ": a refused block must not be written";

  auto without_taps = entry_->make(EngineOptions{});
  without_taps->prepare(spec);
  EXPECT_FALSE(without_taps->ready());
  EXPECT_EQ(without_taps->process(in.data(), out.data(), 10), Status::failed) << entry_->name;
  EXPECT_STRNE(without_taps->failure(), "") << entry_->name;
  EXPECT_TRUE(untouched()) << entry_->name;

  READY_OR_SKIP(engine, masks, spec);
  EXPECT_EQ(engine->process(in.data(), out.data(), max_block + 1), Status::failed) << entry_->name;
  EXPECT_NE(std::string(engine->failure()).find(std::to_string(max_block + 1)), std::string::npos)
      << entry_->name << ": the message names the block: " << engine->failure();
  EXPECT_TRUE(untouched()) << entry_->name;
  EXPECT_EQ(engine->process(in.data(), out.data(), 0), Status::ok) << engine->failure();
  EXPECT_EQ(engine->process(in.data(), out.data(), max_block), Status::ok) << engine->failure();
  EXPECT_STREQ(engine->failure(), "") << entry_->name << ": failure() is empty after a success";

  // What set_taps and prepare refuse, they refuse by throwing halo::Error (off the audio path).
  EXPECT_THROW(engine->set_taps(TapSet::from_masks(masks, 3)), Error) << "channels differ from the spec";
  EXPECT_THROW(engine->set_taps(TapSet::from_masks({mask_of(random_taps(32, 102))}, channels)), Error)
      << "longer than max_mask_frames";
  EXPECT_THROW(entry_->make(EngineOptions{})->set_taps(TapSet::from_masks(masks, channels)), Error) << "before prepare";
  for (const ProcessSpec& bad : {ProcessSpec{0, 64, 31, 48000}, ProcessSpec{2, 0, 31, 48000},
                                 ProcessSpec{2, 64, 0, 48000}, ProcessSpec{2, 64, 31, -1}})
    EXPECT_THROW(entry_->make(EngineOptions{})->prepare(bad), Error) << entry_->name;
  // The engine still works after the refusals.
  EXPECT_EQ(engine->process(in.data(), out.data(), max_block), Status::ok) << engine->failure();
}

// ---------------------------------------------------------------- accepts

// The CPU engines take any TapSet; other engines say why not, in words.
TEST_P(EngineContract, AcceptsSaysWhy) {
  for (const Shape& shape : {Shape{1, 1, Columns::shared}, Shape{16384, 6, Columns::per_channel},
                             Shape{6000, 3, Columns::repeated}, Shape{100000, 1, Columns::shared}}) {
    const TapSet taps = TapSet::from_masks(masks_for(shape, 9), shape.channels);
    const ProcessSpec spec{shape.channels, 4096, shape.taps, 48000};
    std::string why;
    const bool accepted = entry_->accepts(taps, spec, &why);
    if (entry_->device == EngineDevice::cpu) {
      EXPECT_TRUE(accepted) << entry_->name << ", " << describe(shape) << ": " << why;
    }
    if (!accepted) {
      EXPECT_FALSE(why.empty()) << entry_->name << " refuses " << describe(shape) << " without a reason";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, EngineContract, testing::ValuesIn(registered_names()), engine_param_name);

// The hand-over composite (auto's CPU-then-GPU engine) over two CPU engines, as if registered.
INSTANTIATE_TEST_SUITE_P(Handover, EngineShapes,
                         testing::Combine(testing::Values(handover_contract_entry().name), testing::ValuesIn(all_shapes())),
                         shape_param_name);
INSTANTIATE_TEST_SUITE_P(Handover, EngineContract, testing::Values(handover_contract_entry().name), engine_param_name);

}  // namespace
}  // namespace halo
