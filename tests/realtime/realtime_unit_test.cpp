// src/realtime/ without a device: the ring, the period statistics, the engine slot's
// crossfades, bypass and gain, and the promise that neither the callback nor the worker's
// process loop allocates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <atomic>
#include <cmath>
#include <dirent.h>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <fstream>
#include <sys/resource.h>
#include <string>
#include <sys/mman.h>
#include <memory>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/allocation_counter.hpp"
#include "engine_harness.hpp"
#include "src/engine/partitioned_engine.hpp"
#include "src/engine/registry.hpp"
#include "src/engine/tap_set.hpp"
#include "src/realtime/callback.hpp"
#include "src/realtime/engine_slot.hpp"
#include "src/realtime/frame_ring.hpp"
#include "src/realtime/memory_lock.hpp"
#include "src/realtime/period_stats.hpp"
#include "src/realtime/worker.hpp"

namespace halo::realtime {
namespace {

constexpr double pi = 3.14159265358979323846;

TEST(FrameRing, CapacityIsAPowerOfTwoAndWrapsFramesWhole) {
  FrameRing ring(3, 5);
  EXPECT_EQ(ring.capacity_frames(), 8u);
  EXPECT_EQ(ring.writable_frames(), 8u);
  std::vector<float> in(3 * 6), out(3 * 6, -1.0f);
  float next = 0;
  float expected = 0;
  for (int round = 0; round < 50; ++round) {  // every wrap position
    const std::size_t count = 1 + static_cast<std::size_t>(round % 6);
    for (std::size_t i = 0; i < count * 3; ++i) in[i] = next++;
    ASSERT_EQ(ring.write(in.data(), count), count);
    ASSERT_EQ(ring.readable_frames(), count);
    ASSERT_EQ(ring.read(out.data(), count), count);
    for (std::size_t i = 0; i < count * 3; ++i) ASSERT_EQ(out[i], expected++) << "round " << round;
  }
  // Full and empty edges.
  EXPECT_EQ(ring.write_silence(100), 8u);
  EXPECT_EQ(ring.write(in.data(), 1), 0u);
  EXPECT_EQ(ring.discard(3), 3u);
  EXPECT_EQ(ring.readable_frames(), 5u);
  EXPECT_EQ(ring.read(out.data(), 6), 5u);
  EXPECT_EQ(ring.read(out.data(), 1), 0u);
}

TEST(FrameRing, TwoThreadsPassEveryFrameInOrder) {
  FrameRing ring(2, 64);
  constexpr std::size_t total = 1 << 20;
  std::thread producer([&] {
    std::vector<float> block(2 * 37);
    std::size_t sent = 0;
    while (sent < total) {
      const std::size_t count = std::min<std::size_t>(37, total - sent);
      for (std::size_t f = 0; f < count; ++f) block[2 * f] = block[2 * f + 1] = static_cast<float>(sent + f);
      std::size_t done = 0;
      while (done < count) done += ring.write(block.data() + 2 * done, count - done);
      sent += count;
    }
  });
  std::vector<float> block(2 * 29);
  std::size_t received = 0;
  bool in_order = true;
  while (received < total) {
    const std::size_t got = ring.read(block.data(), 29);
    for (std::size_t f = 0; f < got; ++f)
      in_order = in_order && block[2 * f] == static_cast<float>(received + f) && block[2 * f + 1] == block[2 * f];
    received += got;
  }
  producer.join();
  EXPECT_TRUE(in_order);
}

TEST(PeriodStats, PercentilesAndWorst) {
  PeriodStats stats(1333.0);
  for (int i = 0; i < 1000; ++i) stats.record(i < 990 ? 10.2 : 2000.0);
  EXPECT_EQ(stats.periods(), 1000u);
  EXPECT_EQ(stats.late_periods(), 10u);
  EXPECT_NEAR(stats.percentile_us(0.5), 11.0, 1e-9);  // the bin's upper edge
  EXPECT_NEAR(stats.percentile_us(0.999), 2000.0, 1e-6) << "the bin's upper edge (2001) held at the worst";
  EXPECT_NEAR(stats.worst_us(), 2000.0, 1e-6);
}

// A block shorter than the period (live on JACK with --frames above the server's buffer) is
// late past its own time, not the period's: 256-frame blocks had been judged against a
// 2048-frame period's 42.7 ms (a QA pass).
TEST(PeriodStats, ABlockIsLatePastItsOwnTime) {
  PeriodStats stats(2048.0, 64);  // 64 frames in 2048 us: 32 us a frame
  stats.record(600.0, 16);        // 16 frames have 512 us: late
  stats.record(600.0, 64);        // a whole period: in time
  stats.record(600.0);            // 0 frames: a whole period
  EXPECT_EQ(stats.periods(), 3u);
  EXPECT_EQ(stats.late_periods(), 1u);
  EXPECT_NEAR(stats.mean_block_frames(), 48.0, 1e-12);
  EXPECT_NEAR(stats.mean_block_deadline_us(), 1536.0, 1e-9);
}

// A voice: `engine` with `taps`, its dry path delayed by latency + the centred alignment.
std::unique_ptr<Voice> make_voice(const std::string& engine_name, const std::vector<float>& taps, int channels,
                                  std::size_t block, int index, bool centred = true) {
  auto engine = make_engine(engine_name);
  const TapSet set = TapSet::from_masks({halo::test::mask_of(taps)}, channels);
  ProcessSpec spec;
  spec.channels = channels;
  spec.max_block_frames = block;
  spec.max_mask_frames = set.mask_frames();
  spec.rate_hz = 48000;
  engine->prepare(spec);
  engine->set_taps(set);
  VoiceSetup setup;
  setup.dry_delay_frames = engine->latency_frames() + (centred ? (taps.size() - 1) / 2 : 0);
  setup.engine = std::move(engine);
  setup.label = engine_name;
  setup.mask_index = index;
  return std::make_unique<Voice>(std::move(setup), block);
}

// Windowed-sinc low-pass taps (odd length, unit DC gain): smooth, linear phase.
std::vector<float> lowpass(std::size_t taps, double cutoff) {
  std::vector<float> h(taps);
  double sum = 0;
  const double centre = static_cast<double>(taps - 1) / 2;
  for (std::size_t k = 0; k < taps; ++k) {
    const double t = static_cast<double>(k) - centre;
    const double sinc = t == 0 ? 2 * cutoff : std::sin(2 * pi * cutoff * t) / (pi * t);
    const double window = 0.54 - 0.46 * std::cos(2 * pi * static_cast<double>(k) / static_cast<double>(taps - 1));
    h[k] = static_cast<float>(sinc * window);
    sum += h[k];
  }
  for (auto& v : h) v = static_cast<float>(v / sum);
  return h;
}

double largest_step(const std::vector<float>& x, int channels, std::size_t from, std::size_t to) {
  double worst = 0;
  for (std::size_t f = std::max<std::size_t>(from, 1); f < to; ++f)
    for (int c = 0; c < channels; ++c)
      worst = std::max(worst, std::fabs(static_cast<double>(x[f * channels + c]) - x[(f - 1) * channels + c]));
  return worst;
}

// Runs `signal` through the slot in blocks; before block `switch_block`, does `action`.
template <typename Action>
std::vector<float> run_slot(EngineSlot& slot, const std::vector<float>& signal, int channels, std::size_t block,
                            std::size_t switch_block, Action action) {
  std::vector<float> out(signal.size());
  const std::size_t frames = signal.size() / channels;
  for (std::size_t b = 0; b * block < frames; ++b) {
    if (b == switch_block) action();
    const std::size_t n = std::min(block, frames - b * block);
    EXPECT_EQ(slot.process(signal.data() + b * block * channels, out.data() + b * block * channels, n), Status::ok);
    slot.take_retired();  // the control thread's part, done here between blocks
  }
  return out;
}

std::vector<float> sine(std::size_t frames, int channels, double hz, float amplitude) {
  std::vector<float> x(frames * channels);
  for (std::size_t f = 0; f < frames; ++f)
    for (int c = 0; c < channels; ++c)
      x[f * channels + c] = amplitude * static_cast<float>(std::sin(2 * pi * hz * static_cast<double>(f) / 48000.0 + c));
  return x;
}

// The silence gate in a voice, against the plain rule: a wet output whose inputs in the mask's
// reach are all 0 on its channel is exactly 0, as filter writes it (play had sent cpu-fft's
// rounding dust, up to 1e-7, there: a QA pass); every other output is the float64 convolution.
// Blocks of changing sizes; zero runs shorter and longer than the mask, on each channel apart.
TEST(Voice, OutputIsExactlyZeroWhereEveryInputInTheMasksReachIsZero) {
  const int channels = 2;
  const std::size_t block = 256, mask_frames = 1023;
  const std::vector<float> h = lowpass(mask_frames, 0.1);
  // Per channel: (sound, then zeros) frame counts.
  const std::vector<std::vector<std::pair<std::size_t, std::size_t>>> pattern = {
      {{3000, 5000}, {2000, 1500}, {500, 700}, {900, 6000}},
      {{100, 4000}, {4000, 300}, {2500, 2048}, {10, 6000}}};
  std::size_t frames = 0;
  for (const auto& [sound, zeros] : pattern[0]) frames += sound + zeros;
  std::vector<float> x(frames * channels, 0.0f);
  std::vector<float> noise = halo::test::random_signal(frames * channels, 41, 0.5f);
  for (int c = 0; c < channels; ++c) {
    std::size_t f = 0;
    for (const auto& [sound, zeros] : pattern[c]) {
      for (std::size_t i = 0; i < sound && f < frames; ++i, ++f) x[f * channels + c] = noise[f * channels + c];
      f += zeros;
    }
  }
  for (const std::string engine : {"cpu", "cpu-fft", "cpu-partitioned"}) {
    std::unique_ptr<Voice> voice = make_voice(engine, h, channels, block, 0, false);
    const std::int64_t latency = static_cast<std::int64_t>(voice->engine().latency_frames());
    const std::size_t total = frames + static_cast<std::size_t>(latency);
    std::vector<float> in(total * channels, 0.0f), out(total * channels);
    std::copy(x.begin(), x.end(), in.begin());
    const std::size_t sizes[] = {256, 1, 100, 64, 255, 17};
    for (std::size_t f = 0, i = 0; f < total; ++i) {
      const std::size_t n = std::min(sizes[i % 6], total - f);
      ASSERT_EQ(voice->process(in.data() + f * channels, n), Status::ok) << engine;
      std::copy(voice->wet(), voice->wet() + n * channels, out.begin() + static_cast<std::ptrdiff_t>(f * channels));
      f += n;
    }
    std::size_t gated = 0;
    double worst = 0;
    for (std::size_t t = static_cast<std::size_t>(latency); t < total; ++t) {
      const std::int64_t n = static_cast<std::int64_t>(t) - latency;
      for (int c = 0; c < channels; ++c) {
        double y = 0;
        bool all_zero = true;
        for (std::size_t k = 0; k < mask_frames && static_cast<std::int64_t>(k) <= n; ++k) {
          const float v = x[static_cast<std::size_t>(n - static_cast<std::int64_t>(k)) * channels + c];
          all_zero = all_zero && v == 0.0f;
          y += static_cast<double>(h[k]) * v;
        }
        const float got = out[t * channels + c];
        if (all_zero) {
          ++gated;
          ASSERT_EQ(got, 0.0f) << engine << ": output " << n << ", channel " << c << " has only zeros in its reach";
        }
        worst = std::max(worst, std::fabs(got - y));
      }
    }
    EXPECT_GT(gated, 15000u);  // 19058 outputs of the two channels
    EXPECT_LT(worst, 1e-5) << engine;
  }
}

TEST(EngineSlot, MaskSwitchCrossfadesWithoutAStep) {
  // Two linear-phase masks of one length (as play lines every mask up on one delay): the
  // outputs are in phase, and the crossfade adds no step of its own.
  const int channels = 2;
  const std::size_t block = 64;
  for (const std::string engine : {"cpu", "cpu-fft", "cpu-partitioned"}) {
    EngineSlot slot(channels, block, 240);  // 5 ms at 48 kHz
    ASSERT_EQ(slot.offer(make_voice(engine, lowpass(1023, 4000.0 / 48000), channels, block, 0)), nullptr);
    const std::vector<float> x = sine(48000, channels, 440, 0.5f);
    std::unique_ptr<Voice> second = make_voice(engine, lowpass(1023, 2000.0 / 48000), channels, block, 1);
    const std::size_t switch_block = 300;
    const auto out = run_slot(slot, x, channels, block, switch_block, [&] { ASSERT_EQ(slot.offer(std::move(second)), nullptr); });
    EXPECT_EQ(slot.current_mask(), 1) << engine;
    EXPECT_EQ(slot.switches(), 2u);
    // The crossfade starts once the new voice has warmed up (1022 taps + latency + delays).
    const std::size_t at = switch_block * block;
    // The signal's own largest step, away from the switch (after both filters have settled).
    const double own = std::max(largest_step(out, channels, 4000, at - 100), largest_step(out, channels, at + 4000, 48000));
    const double around = largest_step(out, channels, at - 100, at + 4000);
    EXPECT_LE(around, own) << engine << ": a step of " << around << " at the switch; the signal's own largest is " << own;
    EXPECT_GT(own, 0.01);
  }
}

// The switch tests' start: a mono slot of 64-frame blocks (5 ms fades) offered mask 0 (31
// taps), fed a 1 kHz sine a block at a time; step() is one block of the worker's.
struct SlotPlayingMaskZero {
  static constexpr int channels = 1;
  static constexpr std::size_t block = 64;
  EngineSlot slot{channels, block, 240};
  const std::vector<float> input = sine(block, channels, 1000, 0.5f);
  std::vector<float> output = std::vector<float>(block);
  SlotPlayingMaskZero() { slot.offer(voice("cpu", lowpass(31, 0.1), 0)); }
  static std::unique_ptr<Voice> voice(const std::string& engine, const std::vector<float>& taps, int index) {
    return make_voice(engine, taps, channels, block, index);
  }
  Status step() { return slot.process(input.data(), output.data(), block); }
  // Blocks until `mask` plays (at most `blocks` of them), the retired voices collected between
  // them as the control thread collects them; false where a block failed.
  bool step_until_playing(int mask, int blocks) {
    for (int b = 0; b < blocks && slot.current_mask() != mask; ++b) {
      if (step() != Status::ok) return false;
      slot.take_retired();
    }
    return true;
  }
};

// A voice offered while another still warms up supersedes it: the warming one is never heard
// and goes back to the control thread; the newest mask plays after its own warm-up.
TEST(EngineSlot, AVoiceOfferedDuringAWarmUpSupersedesTheWarmingOne) {
  SlotPlayingMaskZero playing;
  ASSERT_EQ(playing.step(), Status::ok);
  EXPECT_EQ(playing.slot.current_mask(), 0);
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu-partitioned", lowpass(16383, 0.1), 1)), nullptr);
  for (int b = 0; b < 10; ++b) ASSERT_EQ(playing.step(), Status::ok);  // 1 warms up
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu", lowpass(63, 0.05), 2)), nullptr);
  ASSERT_EQ(playing.step(), Status::ok);
  const std::unique_ptr<Voice> retired = playing.slot.take_retired();
  ASSERT_NE(retired, nullptr) << "the warming voice goes back";
  EXPECT_EQ(retired->mask_index(), 1);
  for (int b = 0; b < 20 && playing.slot.current_mask() != 2; ++b) ASSERT_EQ(playing.step(), Status::ok);
  EXPECT_EQ(playing.slot.current_mask(), 2) << "the newest mask plays within its own warm-up (63 taps)";
  EXPECT_EQ(playing.slot.switches(), 2u) << "mask 1 was never heard";

  // Once a warm-up: a voice that took another's place warms up to the end, whatever comes
  // after it (a file rewritten faster than a long mask warms up must still be heard).
  for (int b = 0; b < 10; ++b) {  // the crossfade from 0 to 2 ends, and 0 goes back
    ASSERT_EQ(playing.step(), Status::ok);
    playing.slot.take_retired();
  }
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu-partitioned", lowpass(16383, 0.1), 3)), nullptr);
  for (int b = 0; b < 10; ++b) ASSERT_EQ(playing.step(), Status::ok);
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu-partitioned", lowpass(4095, 0.1), 4)), nullptr);
  ASSERT_EQ(playing.step(), Status::ok);
  ASSERT_NE(playing.slot.take_retired(), nullptr) << "3 superseded by 4";
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu", lowpass(63, 0.05), 5)), nullptr);
  for (int b = 0; b < 10; ++b) ASSERT_EQ(playing.step(), Status::ok);
  EXPECT_EQ(playing.slot.take_retired(), nullptr) << "4 is not superseded in turn";
  for (int b = 0; b < 200 && playing.slot.current_mask() != 4; ++b) ASSERT_EQ(playing.step(), Status::ok);
  EXPECT_EQ(playing.slot.current_mask(), 4) << "4 is heard once warm";
  ASSERT_TRUE(playing.step_until_playing(5, 40));
  EXPECT_EQ(playing.slot.current_mask(), 5) << "then 5";
}

// The crossfade's end retires the voice it fades out, so a switch waits while a superseded
// voice still waits in the retired mailbox: it had been stored over, and leaked with its engine
// and thread, when the control thread had not collected it within the newer voice's warm-up
// and fade (a review).
TEST(EngineSlot, ASwitchWaitsForTheSupersededVoiceToBeCollected) {
  SlotPlayingMaskZero playing;
  ASSERT_EQ(playing.step(), Status::ok);
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu-partitioned", lowpass(16383, 0.1), 1)), nullptr);
  for (int b = 0; b < 4; ++b) ASSERT_EQ(playing.step(), Status::ok);
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu", lowpass(63, 0.05), 2)), nullptr);
  // 1 is superseded by 2 and retired; nobody collects it for well past 2's warm-up and fade.
  for (int b = 0; b < 20; ++b) ASSERT_EQ(playing.step(), Status::ok);
  EXPECT_EQ(playing.slot.current_mask(), 0) << "the switch to 2 waits for the mailbox";
  const std::unique_ptr<Voice> superseded = playing.slot.take_retired();
  ASSERT_NE(superseded, nullptr);
  EXPECT_EQ(superseded->mask_index(), 1);
  for (int b = 0; b < 20; ++b) ASSERT_EQ(playing.step(), Status::ok);
  EXPECT_EQ(playing.slot.current_mask(), 2);
  const std::unique_ptr<Voice> faded = playing.slot.take_retired();
  ASSERT_NE(faded, nullptr);
  EXPECT_EQ(faded->mask_index(), 0);
}

// A switch called off (the selection back to the mask playing) takes back the voice still
// offered and retires the warming one unheard; the mask playing stays, no switch is counted,
// and a voice offered afterwards is taken as ever.
TEST(EngineSlot, ACancelledSwitchLeavesTheCurrentMaskAndCountsNoSwitch) {
  SlotPlayingMaskZero playing;
  ASSERT_EQ(playing.step(), Status::ok);
  ASSERT_EQ(playing.slot.switches(), 1u);
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu-partitioned", lowpass(16383, 0.1), 1)), nullptr);
  ASSERT_EQ(playing.step(), Status::ok);  // 1 warms up
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu", lowpass(63, 0.05), 2)), nullptr);  // waits: 1 superseded once
  ASSERT_EQ(playing.step(), Status::ok);
  std::unique_ptr<Voice> superseded = playing.slot.take_retired();
  ASSERT_NE(superseded, nullptr);
  EXPECT_EQ(superseded->mask_index(), 1);
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu", lowpass(31, 0.2), 3)), nullptr);  // 2 warms to the end; 3 waits
  const std::unique_ptr<Voice> offered = playing.slot.cancel_switch();
  ASSERT_NE(offered, nullptr) << "the voice still offered comes back";
  EXPECT_EQ(offered->mask_index(), 3);
  ASSERT_EQ(playing.step(), Status::ok);
  const std::unique_ptr<Voice> warming = playing.slot.take_retired();
  ASSERT_NE(warming, nullptr) << "the warming voice goes back unheard";
  EXPECT_EQ(warming->mask_index(), 2);
  for (int b = 0; b < 40; ++b) ASSERT_EQ(playing.step(), Status::ok);
  EXPECT_EQ(playing.slot.current_mask(), 0);
  EXPECT_EQ(playing.slot.switches(), 1u);
  EXPECT_EQ(playing.slot.take_retired(), nullptr);
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu", lowpass(31, 0.3), 4)), nullptr);
  ASSERT_TRUE(playing.step_until_playing(4, 40));
  EXPECT_EQ(playing.slot.current_mask(), 4) << "a voice offered after the cancel is taken";
}

// What is heard lags what the worker plays by the frames a ring holds between them (play's
// read-ahead): a switch counts, and the new mask is the one heard, only once the block it began
// in lies further back than that. play's status line had said "filtered" 0.17 s early, and a
// quit right after a switch had counted it, never heard (a QA pass).
TEST(EngineSlot, ASwitchIsHeardOnceItsFirstBlockIsPlayed) {
  SlotPlayingMaskZero playing;
  ASSERT_EQ(playing.step(), Status::ok);
  EXPECT_EQ(playing.slot.mask_heard(0), 0);
  EXPECT_EQ(playing.slot.mask_heard(1000), -1) << "not even the first voice, with its block still in the ring";
  ASSERT_EQ(playing.slot.offer(playing.voice("cpu", lowpass(31, 0.2), 1)), nullptr);
  ASSERT_TRUE(playing.step_until_playing(1, 40));
  ASSERT_EQ(playing.slot.current_mask(), 1);
  ASSERT_EQ(playing.slot.switches(), 2u);
  // The switch began in the last block: heard with nothing left to play, not with a block's worth.
  EXPECT_EQ(playing.slot.mask_heard(0), 1);
  EXPECT_EQ(playing.slot.switches_heard(0), 2u);
  EXPECT_EQ(playing.slot.mask_heard(playing.block), 0);
  EXPECT_EQ(playing.slot.switches_heard(playing.block), 1u);
  for (int b = 0; b < 3; ++b) ASSERT_EQ(playing.step(), Status::ok);
  EXPECT_EQ(playing.slot.mask_heard(playing.block), 1) << "three blocks on, one still in the ring";
  EXPECT_EQ(playing.slot.mask_heard(4 * playing.block), 0) << "four in the ring: the switch's block among them";
}

TEST(EngineSlot, BypassIsDelayMatchedAndClickFree) {
  const int channels = 2;
  const std::size_t block = 64;
  EngineSlot slot(channels, block, 240);
  const std::vector<float> taps = lowpass(511, 8000.0 / 48000);  // passes 440 Hz unchanged, linear phase
  ASSERT_EQ(slot.offer(make_voice("cpu-partitioned", taps, channels, block, 0)), nullptr);
  const std::vector<float> x = sine(48000, channels, 440, 0.5f);
  const std::size_t switch_block = 200;
  const auto out = run_slot(slot, x, channels, block, switch_block, [&] { slot.set_bypass(true); });
  const std::size_t at = switch_block * block;
  // The signal's own largest step: filtered (A) before, dry (B) after.
  const double own = std::max(largest_step(out, channels, 2000, at - 100), largest_step(out, channels, at + 1000, 48000));
  EXPECT_LE(largest_step(out, channels, at - 100, at + 1000), own);
  // After the ramp, the output is the dry input delayed by exactly latency + (M-1)/2 frames
  // (cpu-partitioned has no latency), which is where the filtered signal sits: A and B line up.
  const std::size_t delay = make_engine("cpu-partitioned")->latency_frames() + (taps.size() - 1) / 2;
  double wet_vs_dry = 0, dry_exact = 0;
  for (std::size_t f = at + 1000; f < 48000; ++f)
    for (int c = 0; c < channels; ++c)
      dry_exact = std::max(dry_exact, std::fabs(static_cast<double>(out[f * channels + c]) - x[(f - delay) * channels + c]));
  for (std::size_t f = 4000; f < at - 100; ++f)
    for (int c = 0; c < channels; ++c)
      wet_vs_dry = std::max(wet_vs_dry, std::fabs(static_cast<double>(out[f * channels + c]) - x[(f - delay) * channels + c]));
  EXPECT_EQ(dry_exact, 0.0);
  EXPECT_LT(wet_vs_dry, 0.01);  // the filtered 440 Hz sits on the delayed dry one
}

TEST(EngineSlot, GainMovesInRampedOneDecibelSteps) {
  const int channels = 1;
  EngineSlot slot(channels, 64, 240);
  ASSERT_EQ(slot.offer(make_voice("cpu", {1.0f}, channels, 64, 0)), nullptr);
  std::vector<float> x(48000, 0.5f);
  const auto out = run_slot(slot, x, channels, 64, 100, [&] { slot.set_gain_db(-6); });
  const std::size_t at = 6400;
  EXPECT_FLOAT_EQ(out[at - 1], 0.5f);
  EXPECT_NEAR(out[at + 1000], 0.5 * std::pow(10.0, -6 / 20.0), 1e-6);
  EXPECT_LT(largest_step(out, 1, at - 1, at + 400), 0.5 / 240 + 1e-6);  // a ramp, not a jump
}

// live's rig in these tests: rings of `ring_frames` each way, a slot, the callback's state wired
// to the rings (keeping latency, as live does) and a worker of one `block` a period at 48 kHz.
struct LiveRig {
  LiveRig(int channels, std::size_t block, std::size_t ring_frames)
      : device_in(channels, ring_frames), device_out(channels, ring_frames), slot(channels, block, 240), stats(1333),
        worker(config(channels, block), slot, device_in, device_out, stats, &state.draining) {
    state.input = &device_in;
    state.output = &device_out;
    state.keep_latency = true;
  }
  static Worker::Config config(int channels, std::size_t block) {
    Worker::Config config;
    config.channels = channels;
    config.output_channels = channels;
    config.block_frames = block;
    config.rate_hz = 48000;
    return config;
  }
  FrameRing device_in, device_out;
  EngineSlot slot;
  PeriodStats stats;
  CallbackState state;
  Worker worker;
};

// live with its worker away from the callback's CPU, on a host that calls back four 64-frame
// buffers at once (a 256-frame server): the callback measures the runs, grows its lead to one
// run (192 frames more) and allocates nothing doing it; once grown, no run finds the ring short.
// Here the worker runs after each run, as one on another CPU does.
// With the pipeline shut until the runs are measured (live's start, callback.hpp), the warm-up
// runs play silence instead, and no run is ever short.
TEST(RealtimeAllocation, CallbackGrowingItsLeadNeverAllocates) {
 for (const bool shut_until_measured : {false, true}) {
  SCOPED_TRACE(shut_until_measured ? "shut until measured" : "open from the start");
  const int channels = 2;
  const std::size_t block = 64;
  LiveRig rig(channels, block, 16384);
  rig.state.wait_for_worker = shut_until_measured;
  rig.state.worker_cpu = CallbackState::worker_anywhere;
  FrameRing& device_out = rig.device_out;
  EngineSlot& slot = rig.slot;
  CallbackState& state = rig.state;
  Worker& worker = rig.worker;
  state.grow_lead = true;
  state.initial_lead_frames = block;
  device_out.write_silence(block);
  ASSERT_EQ(slot.offer(make_voice("cpu-partitioned", lowpass(255, 0.1), channels, block, 0)), nullptr);
  const std::vector<float> input = sine(block, channels, 1000, 0.5f);
  std::vector<float> output(block * channels);
  constexpr int runs = 24;  // 8 measured, then 16 with the grown lead
  std::uint64_t underruns_once_grown = 0;
  std::size_t allocations = 0;  // the callback's alone: the worker's step and the sleep are not counted
  halo::test::AllocationCounter counter;
  for (int run = 0; run < runs; ++run) {
    if (run == CallbackState::run_samples + 1) underruns_once_grown = state.underruns.load();
    const std::size_t before = counter.allocations();
    for (int k = 0; k < 4; ++k) run_callback(state, input.data(), output.data(), block, false);
    allocations += counter.allocations() - before;
    worker.step();
    std::this_thread::sleep_for(std::chrono::milliseconds(3));  // the next run starts apart
  }
  counter.stop();
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(state.host_run_frames.load(), 4 * block);
  EXPECT_EQ(state.lead_added.load(), 3 * block);
  if (shut_until_measured) {
    EXPECT_EQ(state.underruns.load(), 0u) << "no run is short, the warm-up's included";
    EXPECT_EQ(state.silent_start_frames.load(), CallbackState::run_samples * 4 * block)
        << "the measured runs play silence; the pipeline opens as the next begins";
  } else {
    EXPECT_GT(underruns_once_grown, 0u) << "the warm-up's runs find the ring short";
    EXPECT_EQ(state.underruns.load(), underruns_once_grown) << "no run is short once the lead has grown";
  }
 }
}

// The callback and the worker's process loop allocate nothing, through a mask switch, a
// bypass and a gain change, with each CPU engine (the JUCE allocation-hook test's idea).
TEST(RealtimeAllocation, CallbackAndWorkerLoopNeverAllocate) {
  if (!halo::test::counts_malloc()) GTEST_LOG_(INFO) << "counting operator new only (no malloc hook here)";
  const int channels = 2;
  const std::size_t block = 64;
  for (const std::string engine : {"cpu", "cpu-fft", "cpu-partitioned"}) {
    LiveRig rig(channels, block, 1024);
    FrameRing& device_out = rig.device_out;
    EngineSlot& slot = rig.slot;
    PeriodStats& stats = rig.stats;
    CallbackState& state = rig.state;
    Worker& worker = rig.worker;  // references, not a structured binding: C++17 lambdas capture neither
    device_out.write_silence(block);  // the one period the worker runs behind, as live starts
    ASSERT_EQ(slot.offer(make_voice(engine, lowpass(4095, 0.1), channels, block, 0)), nullptr);
    std::unique_ptr<Voice> next = make_voice(engine, lowpass(1023, 0.05), channels, block, 1);

    const std::vector<float> input = sine(block, channels, 1000, 0.5f);
    // Silent stretches of 70 periods (4480 frames, longer than either mask): the silence gate
    // keeps and lets go of its runs while the counters count.
    const std::vector<float> silence(block * channels, 0.0f);
    std::vector<float> output(block * channels);
    std::atomic<int> turn{0};  // 0: callback's, 1: worker's
    // The control thread's steps, so that the periods cannot all run before it acts (on a
    // loaded machine it may not be scheduled for the whole run): the callback waits for each
    // at a period well after the one the control thread watches for.
    std::atomic<bool> switched{false}, bypassed{false};
    std::size_t callback_allocations = 0, worker_allocations = 0;
    constexpr int periods = 400;
    std::thread callback([&] {
      halo::test::AllocationCounter counter;
      for (int p = 0; p < periods; ++p) {
        while (p == 150 && !switched.load()) std::this_thread::yield();
        while (p == 250 && !bypassed.load()) std::this_thread::yield();
        while (turn.load() != 0) std::this_thread::yield();
        run_callback(state, (p / 70) % 2 == 1 ? silence.data() : input.data(), output.data(), block, p % 97 == 0);
        turn.store(1);
      }
      callback_allocations = counter.allocations();
    });
    std::thread work([&] {
      halo::test::AllocationCounter counter;
      for (int p = 0; p < periods; ++p) {
        while (turn.load() != 1) std::this_thread::yield();
        worker.step();
        turn.store(0);
      }
      worker_allocations = counter.allocations();
    });
    // The control thread: a switch, a bypass and a gain change while they run.
    while (stats.periods() < 100) std::this_thread::yield();
    EXPECT_EQ(slot.offer(std::move(next)), nullptr);
    switched.store(true);
    while (stats.periods() < 200) std::this_thread::yield();
    slot.set_bypass(true);
    slot.set_gain_db(-3);
    bypassed.store(true);
    callback.join();
    work.join();
    auto retired = slot.take_retired();
    EXPECT_NE(retired, nullptr) << engine << ": the old voice comes back to the control thread";
    EXPECT_EQ(slot.current_mask(), 1);
    EXPECT_EQ(callback_allocations, 0u) << engine;
    EXPECT_EQ(worker_allocations, 0u) << engine;
    EXPECT_EQ(state.underruns.load(), 0u) << engine;
    EXPECT_EQ(state.host_xruns.load(), 5u);
  }
}

// The nice value of every thread of this process, read from /proc (field 19 of each task's
// stat, counted after the command's closing parenthesis).
std::vector<int> nice_values_of_threads() {
  std::vector<int> values;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return values;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream stat(std::string("/proc/self/task/") + entry->d_name + "/stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 2));  // field 3 on
    std::string field;
    for (int i = 3; i <= 19 && fields >> field; ++i) {
      if (i == 19) values.push_back(std::stoi(field));
    }
  }
  closedir(tasks);
  return values;
}

int threads_at_nice(int nice) {
  const auto values = nice_values_of_threads();
  return static_cast<int>(std::count(values.begin(), values.end(), nice));
}

// A mono worker of 64-frame periods with no callback, for the priority tests.
Worker::Config mono_worker_config(int realtime_priority, bool poll) {
  Worker::Config config;
  config.channels = 1;
  config.output_channels = 1;
  config.block_frames = 64;
  config.rate_hz = 48000;
  config.realtime_priority = realtime_priority;
  config.poll = poll;
  return config;
}

// Where SCHED_FIFO is refused (the H100 machine's container), the worker takes nice -20, and
// an engine's own thread one step less; the summary's line says which it got. A priority
// outside SCHED_FIFO's 1..99 is refused everywhere, root or not, so the fallback runs here too.
TEST(WorkerPriority, RefusedRealtimeFallsBackToNiceAndSaysSo) {
  const int before = threads_at_nice(worker_nice);
  const int own_nice = getpriority(PRIO_PROCESS, 0);  // this thread's (Linux keeps it per thread)
  FrameRing in(1, 256), out(1, 256);
  EngineSlot slot(1, 64, 240);
  PeriodStats stats(1333);
  Worker worker(mono_worker_config(101, false), slot, in, out, stats, nullptr);
  worker.start();
  const std::string note = worker.realtime_note();
  if (note.find("refused too") != std::string::npos) {
    worker.stop();
    GTEST_SKIP() << "this system refuses nice " << worker_nice << " (not root, no CAP_SYS_NICE): " << note;
  }
  EXPECT_FALSE(worker.realtime());
  EXPECT_EQ(note, std::string("no (") + std::strerror(EINVAL) + "); nice -20; --worker-cpu own polls on a CPU of its own instead");
  EXPECT_EQ(threads_at_nice(worker_nice), before + 1) << "the worker's thread, and no other";
  EXPECT_EQ(getpriority(PRIO_PROCESS, 0), own_nice) << "the calling thread keeps its own nice value";
  worker.stop();

  // The engine's thread: it takes the request when it next wakes, which process() brings.
  auto engine = make_engine("cpu-partitioned");
  const TapSet set = TapSet::from_masks({halo::test::mask_of(lowpass(20001, 0.1))}, 1);
  ProcessSpec spec;
  spec.channels = 1;
  spec.max_block_frames = 64;
  spec.max_mask_frames = set.mask_frames();
  spec.rate_hz = 48000;
  engine->prepare(spec);
  engine->set_taps(set);
  auto& partitioned = dynamic_cast<CpuPartitionedEngine&>(*engine);
  ASSERT_TRUE(partitioned.has_worker());
  const int engine_before = threads_at_nice(worker_nice + 1);
  place_engine_threads(*engine, 102, nullptr, false);  // asks SCHED_FIFO 101: refused
  const std::vector<float> signal = sine(64, 1, 1000, 0.5f);
  std::vector<float> filtered(64);
  for (int block = 0; block < 2000 && !partitioned.worker_nice_granted(); ++block) {
    ASSERT_EQ(engine->process(signal.data(), filtered.data(), 64), Status::ok);
    std::this_thread::yield();
  }
  EXPECT_TRUE(partitioned.worker_nice_granted());
  EXPECT_EQ(threads_at_nice(worker_nice + 1), engine_before + 1);
}

// Polling never takes SCHED_FIFO (it would be throttled), but takes nice -20.
TEST(WorkerPriority, PollingWorkerTakesNiceAndSaysSo) {
  FrameRing in(1, 256), out(1, 256);
  EngineSlot slot(1, 64, 240);
  PeriodStats stats(1333);
  const int before = threads_at_nice(worker_nice);
  Worker worker(mono_worker_config(60, true), slot, in, out, stats, nullptr);
  worker.start();
  const std::string note = worker.realtime_note();
  const int during = threads_at_nice(worker_nice);
  worker.stop();
  if (note.find("refused too") != std::string::npos) GTEST_SKIP() << "this system refuses nice -20: " << note;
  EXPECT_EQ(note, "no (polling: a realtime thread that never sleeps would be throttled); nice -20");
  EXPECT_EQ(during, before + 1);
}

// live: once a realtime callback has run, the worker takes the priority one above the
// callback's thread (so that on their shared CPU it runs its period before the callback's
// thread goes on), or keeps its own where that is higher; play's worker, which fills ahead in
// long blocks, stays below the callback's thread: where it was (60 under a callback at 65),
// or one below it (4 under a callback at 5, as under `jackd -R` at its default: at 60 it had
// kept the callback and the server from running when given too much work, a QA pass); under a
// callback at SCHED_FIFO 1, at nice -20 outside SCHED_FIFO.
TEST(WorkerPriority, LiveWorkerRisesOneAboveARealtimeCallbackAndPlaysStaysBelow) {
  for (const auto& [play, callback_priority, expected] :
       {std::tuple<bool, int, const char*>{false, 65, "yes (SCHED_FIFO 66: one above the callback's thread)"},
        {true, 65, "yes (SCHED_FIFO 60)"},
        {false, 5, "yes (SCHED_FIFO 60)"},
        {true, 5, "yes (SCHED_FIFO 4: one below the callback's thread)"},
        // No SCHED_FIFO priority is below 1: play's worker leaves it (it had kept 60, above).
        {true, 1, "no (play's worker stays below the callback's thread, which runs at the lowest SCHED_FIFO "
                  "priority); nice -20"}}) {
    const int priority = callback_priority;  // a lambda captures no structured binding in C++17
    FrameRing in(1, 256), out(1, 256);
    EngineSlot slot(1, 64, 240);
    PeriodStats stats(1333);
    CallbackState state;
    state.input = play ? nullptr : &in;
    state.output = &out;
    Worker::Config config = mono_worker_config(60, false);
    config.play = play;
    config.callback = &state;
    Worker worker(config, slot, in, out, stats, nullptr);
    state.wake = worker.semaphore();
    worker.start();
    if (!worker.realtime()) {
      worker.stop();
      GTEST_SKIP() << "no SCHED_FIFO here: " << worker.realtime_note();
    }
    std::thread callback([&] {
      if (make_thread_realtime(priority) != 0) return;
      const std::vector<float> period = sine(64, 1, 1000, 0.5f);
      std::vector<float> played(64);
      for (int p = 0; p < 400 && !worker.callback_pinned(); ++p) {
        run_callback(state, period.data(), played.data(), 64, false);
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the worker's next look
    });
    callback.join();
    const std::string note = worker.realtime_note();
    worker.stop();
    ASSERT_TRUE(worker.callback_pinned()) << "the callback never ran, or the worker never saw it";
    // SCHED_FIFO granted by RLIMIT_RTPRIO may come without the nice -20 the last row asks for.
    if (note.find(" refused") != std::string::npos) GTEST_SKIP() << "this system refuses nice -20: " << note;
    EXPECT_EQ(note, expected) << (play ? "play" : "live") << " under a callback at " << callback_priority;
  }
}

// live's worker on the callback's CPU tells the callback whether it can preempt that thread:
// SCHED_FIFO above it (a callback not real-time, or one it rose above) can; a worker without
// realtime priority, or one that cannot rise above a callback at the top priority, cannot, and
// the callback then grows its lead (callback.hpp). Without that, live with --no-realtime on a
// 256-frame server played three periods in four as silence (a QA pass).
TEST(WorkerPriority, LiveWorkerSaysWhetherItCanPreemptTheCallback) {
  for (const auto& [worker_priority, callback_priority, cannot_preempt] :
       {std::tuple<int, int, bool>{0, 0, true}, {60, 0, false}, {60, 65, false}, {60, 99, true}}) {
    SCOPED_TRACE("worker asks " + std::to_string(worker_priority) + ", callback at SCHED_FIFO " +
                 std::to_string(callback_priority) + " (0: not real-time)");
    const int priority = callback_priority;  // a lambda captures no structured binding in C++17
    FrameRing in(1, 256), out(1, 256);
    EngineSlot slot(1, 64, 240);
    PeriodStats stats(1333);
    CallbackState state;
    state.input = &in;
    state.output = &out;
    Worker::Config config = mono_worker_config(worker_priority, false);
    config.callback = &state;
    Worker worker(config, slot, in, out, stats, nullptr);
    state.wake = worker.semaphore();
    worker.start();
    if (worker_priority > 0 && !worker.realtime()) {
      worker.stop();
      GTEST_SKIP() << "no SCHED_FIFO here: " << worker.realtime_note();
    }
    bool callback_realtime = true;
    std::thread callback([&] {
      if (priority > 0 && make_thread_realtime(priority) != 0) {
        callback_realtime = false;
        return;
      }
      const std::vector<float> period = sine(64, 1, 1000, 0.5f);
      std::vector<float> played(64);
      for (int p = 0; p < 400 && state.worker_cpu.load() == CallbackState::worker_not_placed; ++p) {
        run_callback(state, period.data(), played.data(), 64, false);
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
    });
    callback.join();
    worker.stop();
    if (!callback_realtime) GTEST_SKIP() << "no SCHED_FIFO here for the callback's thread";
    ASSERT_NE(state.worker_cpu.load(), CallbackState::worker_not_placed) << "the worker never placed itself";
    EXPECT_EQ(state.worker_cannot_preempt.load(), cannot_preempt) << worker.realtime_note();
  }
}

// An engine's own thread stays below the callback's thread once its priority is known: under
// `jackd -R` at its default priority the callback runs at SCHED_FIFO 5, and cpu-partitioned's
// thread, asked for one below the worker (59), had preempted it on their shared CPU (a QA
// pass: host xruns at 2^20 taps). Under a callback at 5 the engine's thread ends at 4; under
// one at 1, the lowest, it leaves SCHED_FIFO (it had stayed at 1, beside the callback, where
// the callback could not preempt it: a review).
TEST(WorkerPriority, AnEngineThreadStaysBelowTheCallbacksThread) {
  for (const auto& [callback_priority, expected] : {std::pair<int, int>{5, 4}, {1, 0}}) {
    SCOPED_TRACE("a callback at SCHED_FIFO " + std::to_string(callback_priority));
    const int priority = callback_priority, wanted = expected;  // a lambda captures no structured binding in C++17
    FrameRing in(1, 256), out(1, 256);
    EngineSlot slot(1, 64, 240);
    PeriodStats stats(1333);
    CallbackState state;
    state.input = &in;
    state.output = &out;
    Worker::Config config = mono_worker_config(60, false);
    config.callback = &state;
    std::unique_ptr<Voice> voice = make_voice("cpu-partitioned", lowpass(20001, 0.1), 1, 64, 0);
    auto& partitioned = dynamic_cast<CpuPartitionedEngine&>(voice->engine());
    ASSERT_TRUE(partitioned.has_worker());
    place_engine_threads(partitioned, 60, &state, true);
    if (partitioned.worker_realtime_priority() != 59) GTEST_SKIP() << "no SCHED_FIFO here for the engine's thread";
    ASSERT_EQ(slot.offer(std::move(voice)), nullptr);
    Worker worker(config, slot, in, out, stats, nullptr);
    state.wake = worker.semaphore();
    out.write_silence(64);
    worker.start();
    std::thread callback([&] {
      if (make_thread_realtime(priority) != 0) return;
      const std::vector<float> period = sine(64, 1, 1000, 0.5f);
      std::vector<float> played(64);
      for (int p = 0; p < 2000 && partitioned.worker_realtime_priority() != wanted; ++p) {
        run_callback(state, period.data(), played.data(), 64, false);
        learn_engine_priority_ceiling(state);  // the control thread's part (Session::poll)
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
    });
    callback.join();
    worker.stop();
    EXPECT_EQ(state.engine_priority_ceiling.load(),
              expected > 0 ? expected : CpuPartitionedEngine::below_every_realtime_priority);
    EXPECT_EQ(partitioned.worker_realtime_priority(), expected) << "the engine's thread, once it woke";
  }
}

TEST(Callback, CountsUnderrunsApartFromHostXrunsAndKeepsLatency) {
  FrameRing in(1, 256), out(1, 256);
  CallbackState state;
  state.input = &in;  // live's: what is owed follows from the frames captured
  state.output = &out;
  state.keep_latency = true;
  std::vector<float> buffer(64, 1.0f);
  std::vector<float> ones(64, 1.0f);
  const std::vector<float> captured(64, 0.5f);
  run_callback(state, captured.data(), buffer.data(), 64, true);  // empty: an underrun, and a host xrun
  EXPECT_EQ(state.underruns.load(), 1u);
  EXPECT_EQ(state.host_xruns.load(), 1u);
  EXPECT_EQ(*std::max_element(buffer.begin(), buffer.end()), 0.0f);  // silence
  // The late period arrives with the next: it is dropped, so the latency stays one period.
  out.write(ones.data(), 64);
  std::vector<float> two(64, 2.0f);
  out.write(two.data(), 64);
  run_callback(state, captured.data(), buffer.data(), 64, false);
  EXPECT_EQ(buffer[0], 2.0f);
  EXPECT_EQ(state.underruns.load(), 1u);
  // Draining (the end of a file): a short ring is the end, not an underrun.
  state.draining.store(true);
  run_callback(state, nullptr, buffer.data(), 64, false);
  EXPECT_EQ(state.underruns.load(), 1u);
  EXPECT_TRUE(state.finished.load());
}

// live's callback alone, period by period: a ramp from 1 as the device's input, what it played,
// and an identity-filter worker that moves frames from the input ring to the output ring when
// the test says so. Period and lead 64 frames; no call comes "back to back".
struct CallbackRig {
  static constexpr std::size_t period = 64, lead = 64;
  FrameRing in, out;
  CallbackState state;
  std::vector<float> source, played;  // the device's input, and what was played
  std::vector<float> block = std::vector<float>(period), buffer = std::vector<float>(period);

  explicit CallbackRig(std::size_t input_ring_frames) : in(1, input_ring_frames), out(1, 4096) {
    state.input = &in;
    state.output = &out;
    state.keep_latency = true;
    state.initial_lead_frames = lead;
    out.write_silence(lead);
    state.rate_hz = 1e12;
  }
  void callback() {
    for (std::size_t i = 0; i < period; ++i) block[i] = static_cast<float>(source.size() + i + 1);
    source.insert(source.end(), block.begin(), block.end());
    run_callback(state, block.data(), buffer.data(), period, false);
    played.insert(played.end(), buffer.begin(), buffer.end());
  }
  void worker(std::size_t most = SIZE_MAX) {  // up to `most` frames of what waits
    std::vector<float> frames(std::min(most, in.readable_frames()));
    out.write(frames.data(), in.read(frames.data(), frames.size()));
  }
  // The last `periods` periods played are the input, one lead later, every frame.
  void expect_input_a_lead_later(std::size_t periods) const {
    for (std::size_t i = played.size() - periods * period; i < played.size(); ++i)
      ASSERT_EQ(played[i], source[i - lead]) << "frame " << i;
  }
};

// live's start: until the worker runs on the CPU the callback runs on (it says where it is once
// it has pinned the callback's thread), the callback plays silence, leaves the lead in the ring
// and captures nothing, so no period is short; once it is, the output is the input one lead
// later from the first frame captured. A worker that had followed a stale report of the
// callback's CPU had opened the pipeline a CPU away: 3 periods short at one start in two on a
// 256-frame server.
TEST(Callback, LiveStaysShutUntilItsWorkerRunsOnItsCpu) {
  const int cpu = sched_getcpu();
  ASSERT_GE(cpu, 0);
  // This thread pinned to `cpu` for the test, and let go however it ends (later tests read the
  // process's CPUs from this, the main thread).
  struct AffinityRestored {
    cpu_set_t before;
    AffinityRestored() { pthread_getaffinity_np(pthread_self(), sizeof before, &before); }
    ~AffinityRestored() { pthread_setaffinity_np(pthread_self(), sizeof before, &before); }
  } restored;
  ASSERT_TRUE(pin_thread(pthread_self(), cpu));
  CallbackRig rig(4096);
  rig.state.wait_for_worker = true;
  for (int p = 0; p < 3; ++p) rig.callback(), rig.worker();  // not placed yet
  rig.state.worker_cpu = cpu + 1;                            // on another CPU
  for (int p = 0; p < 3; ++p) rig.callback(), rig.worker();
  EXPECT_EQ(rig.state.silent_start_frames.load(), 6 * CallbackRig::period);
  EXPECT_EQ(rig.in.readable_frames(), 0u) << "nothing captured while shut";
  EXPECT_EQ(rig.out.readable_frames(), CallbackRig::lead) << "the lead left in the ring";
  rig.state.worker_cpu = cpu;  // where the callback runs: open
  const std::size_t opened_at = rig.played.size();
  for (int p = 0; p < 10; ++p) rig.callback(), rig.worker();
  EXPECT_EQ(rig.state.underruns.load(), 0u);
  EXPECT_EQ(rig.state.silent_start_frames.load(), 6 * CallbackRig::period);
  EXPECT_FALSE(rig.state.opened_without_worker.load());
  EXPECT_TRUE(std::all_of(rig.played.begin(), rig.played.begin() + opened_at + CallbackRig::lead,
                          [](float v) { return v == 0; }));
  for (std::size_t i = opened_at + CallbackRig::lead; i < rig.played.size(); ++i)
    ASSERT_EQ(rig.played[i], rig.source[i - CallbackRig::lead]) << "frame " << i;
}

// A worker that never gets where the callback runs (its thread could not be pinned and keeps
// moving) costs a quarter of a second of silence at most: then the pipeline opens anyway.
TEST(Callback, LiveOpensAfterAQuarterSecondWhateverTheWorker) {
  CallbackRig rig(4096);
  rig.state.wait_for_worker = true;
  rig.state.rate_hz = 2560;  // a period of 25 ms: calls 15 ms apart are not back to back
  for (int p = 0; p < 14; ++p) {
    rig.callback(), rig.worker();
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  EXPECT_EQ(rig.state.silent_start_frames.load(), 10 * CallbackRig::period) << "640 frames: a quarter of 2560";
  EXPECT_TRUE(rig.state.opened_without_worker.load()) << "the summary says why it opened";
  EXPECT_EQ(rig.state.underruns.load(), 0u);
  EXPECT_GT(rig.played.back(), 0.0f) << "open";
}

// With the lead to grow (--worker-cpu any/own), the quarter second bounds the wait for the
// worker, never the measuring of the runs: on a 4096-frame server three runs pass a quarter of
// a second, and opened then, live's next runs found a period of lead where they needed a run
// (0.3 s short at every start, a QA pass). Here a quarter second is 640 frames, 2.5 runs.
TEST(Callback, LiveWaitsForItsRunsToBeMeasuredHoweverLong) {
  CallbackRig rig(4096);
  rig.state.wait_for_worker = true;
  rig.state.grow_lead = true;
  rig.state.worker_cpu = CallbackState::worker_anywhere;
  rig.state.rate_hz = 2560;  // a period of 25 ms: calls 15 ms apart are not back to back, calls at once are
  for (int run = 0; run < 12; ++run) {
    for (int k = 0; k < 4; ++k) rig.callback();  // four callbacks at once: a host buffer of 256 frames
    rig.worker();
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  EXPECT_EQ(rig.state.silent_start_frames.load(), CallbackState::run_samples * 4 * CallbackRig::period)
      << "silent until the 8 runs are measured";
  EXPECT_EQ(rig.state.lead_added.load(), 3 * CallbackRig::period);
  EXPECT_EQ(rig.state.underruns.load(), 0u);
}

// A worker on the callback's CPU that cannot preempt its thread (no realtime priority above
// it) is no better placed than one elsewhere for a host that calls back four times at once:
// once it says so, the callback measures the runs and grows its lead, as for --worker-cpu any.
// (The first run it measures lacks the callback that saw the flag: the median of eight passes
// over it.)
TEST(Callback, LiveGrowsItsLeadForAWorkerThatCannotPreemptIt) {
  CallbackRig rig(4096);
  rig.state.wait_for_worker = true;
  rig.state.worker_cpu = CallbackState::worker_anywhere;
  rig.state.worker_cannot_preempt = true;
  rig.state.rate_hz = 2560;  // a period of 25 ms: calls 15 ms apart are not back to back, calls at once are
  for (int run = 0; run < 12; ++run) {
    for (int k = 0; k < 4; ++k) rig.callback();  // four callbacks at once: a host buffer of 256 frames
    rig.worker();
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  EXPECT_TRUE(rig.state.grow_lead);
  EXPECT_EQ(rig.state.host_run_frames.load(), 4 * CallbackRig::period);
  EXPECT_EQ(rig.state.lead_added.load(), 3 * CallbackRig::period);
  EXPECT_EQ(rig.state.silent_start_frames.load(), CallbackState::run_samples * 4 * CallbackRig::period)
      << "silent until the runs are measured";
  EXPECT_EQ(rig.state.underruns.load(), 0u);
  EXPECT_GT(rig.played.back(), 0.0f) << "open";
}

// The same flag seen only once the quarter-second bound has opened the pipeline (the worker was
// slow to place itself): the lead grows from there on, while open (a review).
TEST(Callback, LiveGrowsItsLeadWhenTheWorkerSaysSoAfterOpening) {
  CallbackRig rig(4096);
  rig.state.wait_for_worker = true;
  rig.state.rate_hz = 2560;  // a period of 25 ms; a quarter second is 10 periods
  for (int p = 0; p < 12; ++p) {
    rig.callback(), rig.worker();
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  ASSERT_TRUE(rig.state.opened_without_worker.load()) << "opened by the bound";
  EXPECT_FALSE(rig.state.grow_lead);
  rig.state.worker_cannot_preempt = true;
  for (int run = 0; run < 12; ++run) {
    for (int k = 0; k < 4; ++k) rig.callback();
    rig.worker();
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  EXPECT_TRUE(rig.state.grow_lead);
  EXPECT_EQ(rig.state.host_run_frames.load(), 4 * CallbackRig::period);
  EXPECT_EQ(rig.state.lead_added.load(), 3 * CallbackRig::period);
}

// live after an overload long enough to overrun its input ring: the worker away for 40
// periods, the input ring (256 frames) full after 4. The debt for the frames played short was
// summed, and input dropped for want of room never came out to pay it: every block the worker
// made after that was dropped as owed, and live stayed silent for good (a QA pass: 1.5 s of
// CPU overload). Now, a few periods after the worker is back, the output is the input again,
// one lead (64 frames) later, as before the overload.
TEST(Callback, LiveComesBackAfterAnOverloadThatOverranItsInput) {
  CallbackRig rig(256);
  for (int p = 0; p < 20; ++p) rig.callback(), rig.worker();
  for (int p = 0; p < 40; ++p) rig.callback();  // the worker away: the input ring overruns
  EXPECT_GT(rig.state.overruns.load(), 30u);
  EXPECT_GT(rig.state.underruns.load(), 30u);
  for (int p = 0; p < 40; ++p) rig.callback(), rig.worker();
  rig.expect_input_a_lead_later(20);
}

// After a stall of two periods, a worker that catches up only one block a period: each block
// it brings plays (late) rather than being dropped as owed into the very period it was for,
// which had left the output silent until the backlog cleared (a review's simulation: 8 silent
// periods for a 2-period stall). Silent: the two stalled periods only; once the worker has
// caught up, the surplus pays the debt and the latency is the lead again.
TEST(Callback, LiveCatchingUpSlowlyPlaysLateRatherThanSilent) {
  CallbackRig rig(4096);
  constexpr std::size_t period = CallbackRig::period;
  for (int p = 0; p < 10; ++p) rig.callback(), rig.worker();
  rig.callback(), rig.callback();  // the worker away for two periods
  for (int p = 0; p < 8; ++p) rig.callback(), rig.worker(period);  // back, but one block a period
  for (int p = 0; p < 20; ++p) rig.callback(), rig.worker();
  std::size_t silent_periods = 0;
  for (std::size_t start = CallbackRig::lead; start + period <= rig.played.size(); start += period)
    silent_periods += std::all_of(rig.played.begin() + start, rig.played.begin() + start + period,
                                  [](float v) { return v == 0; });
  EXPECT_EQ(silent_periods, 2u);
  rig.expect_input_a_lead_later(10);  // caught up: the lead again
}

// PortAudio's JACK host flags an xrun in the callback after it hears of it, often a period or
// more after the stall that left the ring short: a flag up to flag_delay_periods later makes
// the underrun the host's; one later than that leaves it halo's own.
TEST(Callback, AnUnderrunTheHostFlagsAFewPeriodsLaterIsTheHosts) {
  static_assert(CallbackState::flag_delay_periods == 4, "the periods below assume 4");
  FrameRing out(1, 4096);
  CallbackState state;
  state.output = &out;
  state.rate_hz = 1e12;  // a period of picoseconds: no call here comes "back to back"
  std::vector<float> buffer(64), ones(64, 1.0f);
  const auto period = [&](bool filled, bool flagged) {
    if (filled) out.write(ones.data(), 64);
    run_callback(state, nullptr, buffer.data(), 64, flagged);
  };
  for (int p = 0; p < 10; ++p) period(true, false);
  period(false, false);  // the ring short, no flag yet: halo's own so far
  EXPECT_EQ(state.underruns.load(), 1u);
  EXPECT_EQ(state.host_underruns.load(), 0u);
  period(true, false);
  period(true, false);
  period(true, true);  // flagged three periods later: the host's
  EXPECT_EQ(state.host_underruns.load(), 1u);
  EXPECT_EQ(state.host_underruns_flagged_later.load(), 1u);

  for (int p = 0; p < 10; ++p) period(true, false);
  period(false, false);
  for (int p = 0; p < 4; ++p) period(true, false);
  period(true, true);  // five periods later: too late to be this underrun's flag
  EXPECT_EQ(state.underruns.load(), 2u);
  EXPECT_EQ(state.host_underruns.load(), 1u);
  EXPECT_EQ(state.host_underruns_flagged_later.load(), 1u);
}

// Callbacks run back to back (the sub-callbacks PortAudio makes of one host buffer, a server
// catching up): a flag they all carry is one host xrun (play had counted four a 256-frame JACK
// buffer), and a short ring among them is the host's doing for live, whose ring holds a
// period, but halo's own for play, whose ring holds seconds (3 of 4 had gone to the host).
TEST(Callback, BackToBackCallbacksAreOneXrunAndExcuseOnlyLive) {
  for (const bool live : {false, true}) {
    FrameRing in(1, 4096), out(1, 4096);
    CallbackState state;
    state.input = live ? &in : nullptr;
    state.output = &out;
    state.rate_hz = 1.0;  // a period of a minute: every call after the first comes back to back
    std::vector<float> buffer(64), ones(64, 1.0f);
    const auto call = [&](bool filled, bool flagged) {
      if (filled) out.write(ones.data(), 64);
      run_callback(state, live ? ones.data() : nullptr, buffer.data(), 64, flagged);
    };
    for (int c = 0; c < 4; ++c) call(true, true);  // one flagged host buffer in four callbacks
    EXPECT_EQ(state.host_xruns.load(), 1u) << (live ? "live" : "play");
    for (int c = 0; c < 3; ++c) call(true, false);
    call(false, false);  // short, back to back, no flag near
    EXPECT_EQ(state.underruns.load(), 1u);
    EXPECT_EQ(state.host_underruns.load(), live ? 1u : 0u) << (live ? "live" : "play");
  }
}

// live on JACK: the trampoline hands a 256-frame host buffer on as four 64-frame slices, which
// come back to back by construction. A short ring in one of them is halo's own (the lead, or the
// worker's preemption between slices, covers a buffer): a starved worker's gaps had gone 3 of 4
// to the host's account on a 256-frame server with no xrun at all (a QA pass). A host buffer
// that comes right after the one before (a server catching up) is still the host's, every
// slice of it.
TEST(Callback, SlicesOfOneHostBufferAreNoExcuse) {
  FrameRing in(1, 4096), out(1, 4096);
  CallbackState state;
  state.input = &in;
  state.output = &out;
  state.rate_hz = 2560;  // a period of 64 frames is 25 ms: 15 ms apart is not back to back, at once is
  std::vector<float> buffer(64), ones(64, 1.0f);
  const auto host_buffer = [&](int filled_slices) {
    for (int slice = 0; slice < 4; ++slice) {
      if (slice < filled_slices) out.write(ones.data(), 64);
      run_callback(state, ones.data(), buffer.data(), 64, false, slice > 0);
    }
  };
  host_buffer(4);
  std::this_thread::sleep_for(std::chrono::milliseconds(15));
  host_buffer(2);  // on time, and the worker late for its last two slices
  EXPECT_EQ(state.underruns.load(), 2u);
  EXPECT_EQ(state.host_underruns.load(), 0u) << "slices of one buffer are no excuse";
  host_buffer(0);  // at once: the server catching up
  EXPECT_EQ(state.underruns.load(), 6u);
  EXPECT_EQ(state.host_underruns.load(), 4u) << "a buffer right after the one before is the host's, every slice";
}

// The session's memory lock: where the system allows it, every page mapped is locked (the
// kernel's own count, VmLck, says so); where not, it says why.
TEST(MemoryLock, LocksEveryMappedPageOrSaysWhy) {
  const auto locked_kib = [] {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("VmLck:", 0) == 0) return std::stol(line.substr(6));
    return -1L;
  };
  const long before = locked_kib();
  ASSERT_GE(before, 0) << "no VmLck in /proc/self/status";
  const std::string problem = lock_process_memory();
  if (!problem.empty()) GTEST_SKIP() << "mlockall refused here (" << problem << "): the summary says so";
  const long after = locked_kib();
  munlockall();  // the other tests run unlocked
  EXPECT_GT(after, before + 1024) << "VmLck " << after << " kB after the lock (the test binary maps more than 1 MiB)";
}

}  // namespace
}  // namespace halo::realtime
