// HandoverEngine over two real CPU engines (no mocks): the composite starts on the first,
// the second is made on the background thread, and the hand-over frame is set through the
// constructor's HandoverTiming (or by a gate the test opens). Every output is checked against
// the float64 reference written plainly in test_signals.cpp and against each engine run
// alone (1e-5 relative), on seeded random signals, into NaN-poisoned outputs; one case is
// checked against numpy's golden output (tests/data/convolution, make_convolution_golden.py).
// Hand-over at the first block, at a block boundary mid-stream, inside a block, never; 1, 2
// and 6 channels; shared and per-channel masks; blocks shorter than the mask; a second with
// more latency than the first; a second that fails to start; taps changed while the second
// starts; reset; no allocation in process() across the hand-over.
// The contract suite also runs over the composite (handover_contract_entry() below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <future>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "audio/mask_file.hpp"
#include "audio/reader.hpp"
#include "engine/allocation_counter.hpp"
#include "engine/handover_entry.hpp"
#include "engine_harness.hpp"
#include "src/engine/handover_engine.hpp"
#include "src/engine/registry.hpp"

namespace halo {
namespace test {

const EngineEntry& handover_contract_entry() {
  static const EngineEntry entry = [] {
    EngineEntry e;
    e.name = "handover(cpu-fft,cpu)";
    e.device = EngineDevice::cpu;
    e.summary = "test only: cpu-fft, then the direct engine from frame 777";
    e.accepts = [](const TapSet&, const ProcessSpec&, std::string*) { return true; };
    e.make = [](const EngineOptions&) -> std::unique_ptr<Engine> {
      HandoverTiming timing;
      timing.earliest_frame = 777;
      timing.wait_in_set_taps = true;
      return std::make_unique<HandoverEngine>(
          make_engine("cpu-fft"), "cpu", [] { return make_engine("cpu"); }, 0, timing);
    };
    return e;
  }();
  return entry;
}

const EngineEntry& contract_entry(const std::string& name) {
  if (name == handover_contract_entry().name) return handover_contract_entry();
  return engine_entry(name);
}

}  // namespace test

namespace {

using namespace test;

constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();
constexpr double either_tolerance = 1e-5;  // the composite against each engine alone

// As the contract suite: float32 rounding grows about as the square root of the terms summed.
double tolerance_for(std::size_t taps) {
  return 4.0 * std::ldexp(1.0, -24) * (1.0 + std::sqrt(static_cast<double>(taps)));
}

std::vector<double> as_double(const std::vector<float>& values) { return {values.begin(), values.end()}; }

// A composite of two registered engines whose second is ready before set_taps returns, so it
// takes over exactly at `earliest` (or never).
std::unique_ptr<HandoverEngine> composite(const std::string& first, const std::string& second, std::uint64_t earliest,
                                          std::size_t min_latency = 0) {
  HandoverTiming timing;
  timing.earliest_frame = earliest;
  timing.wait_in_set_taps = true;
  return std::make_unique<HandoverEngine>(make_engine(first), second, [second] { return make_engine(second); },
                                          min_latency, timing);
}

// The latency a registered engine has for this spec (prepared here, on the CPU).
std::size_t latency_of(const std::string& name, const ProcessSpec& spec) {
  auto engine = make_engine(name);
  engine->prepare(spec);
  return engine->latency_frames();
}

filters::MaskSet masks_for(std::size_t taps, int channels, bool per_channel, std::uint64_t seed) {
  if (!per_channel) return {mask_of(random_taps(taps, seed))};
  filters::MaskSet masks;
  for (int c = 0; c < channels; ++c)
    masks.push_back(mask_of(random_taps(std::max<std::size_t>(1, taps * (c + 1) / channels), seed + 10 + c)));
  return masks;
}

struct Case {
  std::string first, second;
  int channels;
  bool per_channel;
  std::size_t taps;
  std::size_t frames;
  std::size_t max_block;
  std::vector<std::size_t> chunks;  // cycled
  std::uint64_t earliest;           // the hand-over frame; `never`
  std::string moment;               // for the test's name
};

std::string describe(const Case& c) {
  return c.first + " then " + c.second + ", " + std::to_string(c.channels) + " ch" + (c.per_channel ? " per-channel" : "") +
         ", " + std::to_string(c.taps) + " taps, " + std::to_string(c.frames) + " frames, hand-over " + c.moment;
}

class HandoverCases : public testing::TestWithParam<Case> {};

TEST_P(HandoverCases, EqualsTheReferenceAndEitherEngineAlone) {
  const Case& c = GetParam();
  const std::string context = describe(c);
  const std::uint64_t seed = 17 * c.taps + 5 * c.channels + c.frames + c.earliest % 1000;
  const filters::MaskSet masks = masks_for(c.taps, c.channels, c.per_channel, seed);
  const auto in = random_signal(c.frames * c.channels, seed + 1);
  const ProcessSpec spec{c.channels, c.max_block, c.taps, 48000};
  const TapSet taps = TapSet::from_masks(masks, c.channels);

  // A second slower than the first: the composite takes its latency.
  const std::size_t first_latency = latency_of(c.first, spec), second_latency = latency_of(c.second, spec);
  auto engine = composite(c.first, c.second, c.earliest, second_latency);
  engine->prepare(spec);
  const std::size_t latency = engine->latency_frames();
  EXPECT_EQ(latency, std::max(first_latency, second_latency)) << context;
  engine->set_taps(taps);
  const auto out = run_aligned(*engine, in, c.channels, c.chunks);
  EXPECT_EQ(engine->latency_frames(), latency) << context << ": the latency changed with the hand-over";

  const std::size_t total = c.frames + c.taps - 1;
  const auto ref = reference_output(in, c.channels, masks, total);
  EXPECT_LE(worst_channel_error(out, ref, c.channels, total), tolerance_for(c.taps)) << context;

  for (const std::string& alone_name : {c.first, c.second}) {
    auto alone = make_engine(alone_name);
    prepare_with(*alone, masks, c.channels, c.max_block);
    const auto alone_out = run_aligned(*alone, in, c.channels, c.chunks);
    EXPECT_LE(worst_channel_error(out, as_double(alone_out), c.channels, total), either_tolerance)
        << context << ": against " << alone_name << " alone";
    if (c.earliest == never && alone_name == c.first && latency == first_latency) {
      EXPECT_TRUE(same_bits(out, alone_out)) << context << ": never handed over, so the first engine's bits";
    }
  }

  const HandoverReport report = engine->report();
  const std::uint64_t fed = latency + total;  // what run_aligned feeds
  EXPECT_TRUE(report.second_ready) << context;
  EXPECT_EQ(report.second_failure, "") << context;
  EXPECT_EQ(report.handed_over, c.earliest < fed) << context;
  EXPECT_EQ(report.first_frames, std::min<std::uint64_t>(c.earliest, fed)) << context;
  EXPECT_EQ(report.first, c.first);
  EXPECT_EQ(report.second, c.second);
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  struct Pair {
    const char* first;
    const char* second;
  };
  // cpu-fft (latency one hop) then the direct engine (none): the second's input is delayed.
  // The direct engine then cpu-fft: the composite takes cpu-fft's latency, the first is delayed.
  // cpu-fft then cpu-partitioned (a worker thread of its own).
  const Pair pairs[] = {{"cpu-fft", "cpu"}, {"cpu", "cpu-fft"}, {"cpu-fft", "cpu-partitioned"}};
  for (const Pair& pair : pairs) {
    for (const int channels : {1, 2, 6}) {
      for (const bool per_channel : {false, true}) {
        if (per_channel && channels == 1) continue;
        const std::size_t taps = channels == 6 ? 300 : 1000;
        const std::size_t frames = 9001;
        // Blocks shorter than the mask, of several sizes; the third moment falls inside one.
        const std::vector<std::size_t> chunks = {256, 37, 1, 500, 1024};
        const std::size_t max_block = 1024;
        const std::uint64_t boundary = 256 + 37 + 1 + 500 + 1024 + 256;  // a block boundary: 2074
        for (const auto& [earliest, moment] : std::vector<std::pair<std::uint64_t, std::string>>{
                 {0, "first_block"}, {boundary, "at_a_boundary"}, {3001, "inside_a_block"}, {never, "never"}})
          cases.push_back({pair.first, pair.second, channels, per_channel, taps, frames, max_block, chunks, earliest,
                           moment});
      }
    }
  }
  return cases;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return identifier(c.first + "_then_" + c.second + "_" + std::to_string(c.channels) + "ch" +
                    (c.per_channel ? "_per_channel" : "") + "_" + c.moment);
}

INSTANTIATE_TEST_SUITE_P(Pairs, HandoverCases, testing::ValuesIn(all_cases()), case_name);

// ---------------------------------------------------------------- the background thread

// A gate the test opens: the second engine is made only then.
struct Gate {
  std::promise<void> open;
  std::shared_future<void> opened = open.get_future().share();
};

TEST(HandoverEngine, TakesOverAtTheFirstCallAfterTheSecondIsReady) {
  const int channels = 2;
  const std::size_t taps = 511, frames = 30000, block = 1000;
  const filters::MaskSet masks = {mask_of(random_taps(taps, 40)), mask_of(random_taps(taps, 41))};
  const auto in = random_signal(frames * channels, 42);
  Gate gate;
  HandoverEngine engine(make_engine("cpu-fft"), "cpu", [opened = gate.opened] {
    opened.wait();
    return make_engine("cpu");
  });
  prepare_with(engine, masks, channels, block);
  const std::size_t latency = engine.latency_frames();
  std::vector<float> padded = in;
  padded.resize((frames + taps - 1 + latency) * channels, 0.0f);
  std::vector<float> out(padded.size(), std::numeric_limits<float>::quiet_NaN());

  const std::size_t released_at = 7 * block;
  process_frames(engine, padded, out, channels, 0, released_at, {block});
  EXPECT_FALSE(engine.report().second_ready);
  gate.open.set_value();
  engine.wait_for_second();
  process_frames(engine, padded, out, channels, released_at, padded.size() / channels, {block});

  const HandoverReport report = engine.report();
  EXPECT_TRUE(report.handed_over);
  EXPECT_EQ(report.first_frames, released_at) << "the hand-over comes at the first call after the second is ready";
  EXPECT_GT(report.second_start_s, 0.0);
  const std::vector<float> aligned(out.begin() + static_cast<std::ptrdiff_t>(latency * channels), out.end());
  const auto ref = reference_output(in, channels, masks, frames + taps - 1);
  EXPECT_LE(worst_channel_error(aligned, ref, channels, frames + taps - 1), tolerance_for(taps));
}

TEST(HandoverEngine, TheLatestTapsReachASecondStillStarting) {
  const int channels = 3;
  const std::size_t taps = 200, frames = 8000;
  const filters::MaskSet a = {mask_of(random_taps(taps, 50))};
  const filters::MaskSet b = {mask_of(random_taps(taps, 51)), mask_of(random_taps(taps / 2, 52)),
                              mask_of(random_taps(taps, 53))};
  const auto in = random_signal(frames * channels, 54);
  Gate gate;
  HandoverEngine engine(make_engine("cpu-fft"), "cpu-partitioned", [opened = gate.opened] {
    opened.wait();
    return make_engine("cpu-partitioned");
  });
  prepare_with(engine, a, channels, 512);
  engine.set_taps(TapSet::from_masks(b, channels));  // while the second waits at the gate
  gate.open.set_value();
  engine.wait_for_second();
  const auto out = run_aligned(engine, in, channels, {512, 100});
  EXPECT_TRUE(engine.report().handed_over);
  EXPECT_EQ(engine.report().first_frames, 0u);
  const auto ref = reference_output(in, channels, b, frames + taps - 1);
  EXPECT_LE(worst_channel_error(out, ref, channels, frames + taps - 1), tolerance_for(taps))
      << "the second filters with the taps given while it started";
}

TEST(HandoverEngine, ASecondThatFailsToStartLeavesTheFirstRunning) {
  const int channels = 2;
  const std::size_t taps = 300, frames = 5000;
  const filters::MaskSet masks = {mask_of(random_taps(taps, 60))};
  const auto in = random_signal(frames * channels, 61);
  HandoverEngine engine(make_engine("cpu-fft"), "cuda-fast",
                        []() -> std::unique_ptr<Engine> { throw Error("no CUDA device here"); });
  prepare_with(engine, masks, channels, 700);
  engine.wait_for_second();
  const auto out = run_aligned(engine, in, channels, {700, 3});

  auto alone = make_engine("cpu-fft");
  prepare_with(*alone, masks, channels, 700);
  EXPECT_TRUE(same_bits(out, run_aligned(*alone, in, channels, {700, 3}))) << "the first engine alone, bit for bit";
  const HandoverReport report = engine.report();
  EXPECT_FALSE(report.handed_over);
  EXPECT_FALSE(report.second_ready);
  EXPECT_EQ(report.second_failure, "no CUDA device here");
  EXPECT_EQ(report.first_frames, frames + taps - 1 + engine.latency_frames());
  const auto ref = reference_output(in, channels, masks, frames + taps - 1);
  EXPECT_LE(worst_channel_error(out, ref, channels, frames + taps - 1), tolerance_for(taps));
}

TEST(HandoverEngine, ASecondWithMoreLatencyThanTheStreamDoesNotTakeOver) {
  const int channels = 1;
  const std::size_t taps = 100, frames = 3000;
  const filters::MaskSet masks = {mask_of(random_taps(taps, 70))};
  const auto in = random_signal(frames * channels, 71);
  auto engine = composite("cpu", "cpu-fft", 0);  // no latency allowance: cpu-fft lags one hop
  prepare_with(*engine, masks, channels, 256);
  EXPECT_EQ(engine->latency_frames(), 0u);
  const auto out = run_aligned(*engine, in, channels, {256});
  const HandoverReport report = engine->report();
  EXPECT_FALSE(report.handed_over);
  EXPECT_NE(report.second_failure.find("latency"), std::string::npos) << report.second_failure;
  const auto ref = reference_output(in, channels, masks, frames + taps - 1);
  EXPECT_LE(worst_channel_error(out, ref, channels, frames + taps - 1), tolerance_for(taps));
}

// ---------------------------------------------------------------- reset, allocation, golden

TEST(HandoverEngine, ResetStartsOverOnTheFirstEngine) {
  const int channels = 2;
  const std::size_t taps = 400, frames = 6000;
  const filters::MaskSet masks = {mask_of(random_taps(taps, 80)), mask_of(random_taps(taps, 81))};
  const auto first = random_signal(frames * channels, 82), second = random_signal(frames * channels, 83);
  auto engine = composite("cpu-fft", "cpu", 1500);
  prepare_with(*engine, masks, channels, 512);
  run_in_chunks(*engine, first, channels, {512, 77});
  ASSERT_TRUE(engine->report().handed_over);
  engine->reset();
  const auto after_reset = run_aligned(*engine, second, channels, {512, 77});
  auto fresh = composite("cpu-fft", "cpu", 1500);
  prepare_with(*fresh, masks, channels, 512);
  EXPECT_TRUE(same_bits(after_reset, run_aligned(*fresh, second, channels, {512, 77})));
  EXPECT_EQ(engine->report().first_frames, 1500u) << "after reset the first engine ran up to the hand-over again";
}

TEST(HandoverEngine, ProcessAllocatesNothingAcrossTheHandOver) {
  for (const auto& [first, second] : {std::pair<std::string, std::string>{"cpu-fft", "cpu"}, {"cpu", "cpu-fft"}}) {
    const int channels = 2;
    const std::size_t taps = 255, max_block = 1024;
    const ProcessSpec spec{channels, max_block, taps, 48000};
    const filters::MaskSet masks = {mask_of(random_taps(taps, 90))};
    const std::size_t frames = 40 * max_block;
    const auto in = random_signal(frames * channels, 91);
    const auto sizes = random_chunks(taps, max_block, 92);
    auto engine = composite(first, second, 5000, latency_of(second, spec));
    prepare_with(*engine, masks, channels, max_block);
    std::vector<float> out(in.size());
    std::size_t calls = 0, failed = 0;
    AllocationCounter counter;
    for (std::size_t done = 0; done < frames; ++calls) {
      const std::size_t n = std::min(sizes[calls % sizes.size()], frames - done);
      failed += engine->process(in.data() + done * channels, out.data() + done * channels, n) != Status::ok;
      done += n;
    }
    counter.stop();
    EXPECT_EQ(failed, 0u) << engine->failure();
    EXPECT_TRUE(engine->report().handed_over) << first << " then " << second;
    EXPECT_EQ(counter.allocations(), 0u) << first << " then " << second << ": " << calls
                                         << " calls allocated (operator new" << (counts_malloc() ? " and malloc" : "")
                                         << " counted)";
  }
}

// numpy.convolve's output (tests/data/make_convolution_golden.py): per-channel masks of 17
// taps on 1500 stereo frames, centred ('same'); the hand-over falls inside a block.
TEST(HandoverEngine, MatchesNumpyGolden) {
  const std::string data = HALO_TEST_DATA "/convolution/";
  const filters::MaskSet masks = audio::read_mask(data + "cols17.txt");
  audio::Reader reader(data + "in_stereo_44k_float.wav");
  const int channels = reader.format().channels;
  ASSERT_EQ(channels, 2);
  std::vector<float> in(static_cast<std::size_t>(reader.format().frames) * channels);
  ASSERT_EQ(reader.read(in.data(), in.size() / channels), in.size() / channels);
  std::vector<float> expected(in.size());
  {
    std::FILE* file = std::fopen((data + "expected_stereo_cols17_same.f32").c_str(), "rb");
    ASSERT_NE(file, nullptr);
    ASSERT_EQ(std::fread(expected.data(), sizeof(float), expected.size(), file), expected.size());
    std::fclose(file);
  }
  for (const auto& [first, second] : {std::pair<std::string, std::string>{"cpu-fft", "cpu"}, {"cpu", "cpu-fft"}}) {
    const ProcessSpec spec{channels, 128, 17, 44100};
    auto engine = composite(first, second, 700, latency_of(second, spec));
    prepare_with(*engine, masks, channels, 128, 17);
    const auto out = run_aligned(*engine, in, channels, {128, 5});
    ASSERT_TRUE(engine->report().handed_over);
    const std::size_t advance = (17 - 1) / 2;  // 'same' starts (M-1)//2 into the full convolution
    const std::vector<float> same(out.begin() + static_cast<std::ptrdiff_t>(advance * channels),
                                  out.begin() + static_cast<std::ptrdiff_t>((advance + in.size() / channels) * channels));
    EXPECT_LE(worst_channel_error(same, as_double(expected), channels, in.size() / channels), 1e-6)
        << first << " then " << second;
  }
}

}  // namespace
}  // namespace halo
