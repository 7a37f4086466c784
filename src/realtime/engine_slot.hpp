#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/engine/engine.hpp"
#include "src/engine/silence_gate.hpp"

namespace halo::realtime {

// A delay of a fixed number of frames on an interleaved stream, storage made once.
// Carried state: buffer_ holds the last delay_frames_ input frames; cursor_ is the frame that
// leaves next (and is overwritten by the frame that enters).
class DelayLine {
 public:
  DelayLine(int channels, std::size_t delay_frames);
  std::size_t delay_frames() const noexcept { return delay_frames_; }
  // out[f] = the input delay_frames frames earlier (zeros at first); in and out may alias.
  void process(const float* in, float* out, std::size_t frames) noexcept;
  void clear() noexcept;

 private:
  int channels_;
  std::size_t delay_frames_;
  std::vector<float> buffer_;
  std::size_t cursor_ = 0;
};

// One engine with its taps installed, and how its output lines up with the others: what the
// slot crossfades between. Built whole (engine made, prepared, taps set, delay lines sized) on
// a thread that is neither the audio callback nor the worker, then offered to the slot.
//
//   wet delay  frames added after the engine, so that every voice of a session comes out with
//              the same delay (play: masks of different lengths, centred, line up)
//   dry delay  frames the unfiltered input is delayed by for bypass, so that A (filtered) and
//              B (dry) line up: the engine's latency + the mask's alignment delay + wet delay
struct VoiceSetup {
  std::unique_ptr<Engine> engine;  // prepared, taps set
  std::size_t wet_delay_frames = 0;
  std::size_t dry_delay_frames = 0;
  std::string label;               // for the status line: the mask's name
  int mask_index = 0;              // which of the session's masks (n/p)
};

class Voice {
 public:
  Voice(VoiceSetup setup, std::size_t max_block_frames);  // allocates its delay lines and scratch
  Engine& engine() noexcept { return *engine_; }
  const std::string& label() const noexcept { return label_; }
  int mask_index() const noexcept { return mask_index_; }
  std::size_t dry_delay_frames() const noexcept { return dry_.delay_frames(); }
  // Input frames after which its output is exact (the whole mask has seen real input, the
  // engine's latency and the delays have passed): M - 1 + latency + wet delay, and the dry delay.
  std::size_t warmup_frames() const noexcept { return warmup_frames_; }

  // wet[] and dry[] (frames x channels each) for one block of input. noexcept, no allocation.
  // Wet outputs whose inputs in the mask's reach are all 0 are exactly 0, as filter writes
  // them (the silence gate): an FFT engine leaves rounding dust there (up to about 1e-7).
  Status process(const float* in, std::size_t frames) noexcept;
  const float* wet() const noexcept { return wet_.data(); }
  const float* dry() const noexcept { return dry_out_.data(); }

 private:
  std::unique_ptr<Engine> engine_;
  std::string label_;
  int mask_index_;
  DelayLine wet_delay_, dry_;
  std::vector<float> wet_, dry_out_;
  std::size_t warmup_frames_;
  // The silence gate, sized once: the zero runs of each block of input, and those an output
  // still to come may fall in (between calls: the runs the engine's latency holds back).
  ChunkZeros input_zeros_;
  SilenceGate silence_gate_;
  std::int64_t engine_frames_ = 0;  // frames the engine has put out so far, its latency's included
  // Set by EngineSlot::offer before the voice is published: the offer's number, which tells a
  // cancel_switch() that came after it from one that came before.
  std::uint64_t offer_number_ = 0;
  friend class EngineSlot;
};

// What the worker filters through: the current voice and, for a few milliseconds after a
// switch, the previous one, crossfaded; bypass (delay-matched dry signal) and output gain, both
// ramped. The JUCE Convolution idea: build the new engine off the audio thread, hand it over
// without blocking, crossfade, retire the old one off the audio thread.
//
// Threads and contract:
//   the control thread (one; never the worker or the callback) calls offer(), take_retired(),
//     cancel_switch(), set_bypass(), set_gain_db(); offer() and take_retired() hand owned Voices through
//     single-slot atomic mailboxes, never blocking either side;
//   the worker calls process() and nothing else. process() never allocates, locks, frees,
//     throws or logs: a voice the worker lets go of goes to the retired mailbox, and the
//     control thread destroys it (an engine's destructor may join threads or free memory).
// A switch starts only when no crossfade runs and the retired mailbox is empty; until then
// the offered voice waits in its mailbox. A voice offered while another warms up (below)
// supersedes it, once a warm-up: the one never heard is retired, the newer one warms up to the
// end, and the next waits for it; cancel_switch() calls off every voice offered so far (the one
// offered comes back, the warming one is retired unheard). Then the new voice warms up: it is fed the same
// input as the current one, unheard, until it has seen a whole mask's length of it (plus its
// latency), so that its output is the exact filtered signal and not the onset transient of
// a signal that seems to start at the switch; only then, and with the retired mailbox empty
// (the fade's end retires the old voice there), does the crossfade start. For a mask
// of M taps a switch so takes M frames (plus the fade) and twice the work meanwhile.
//
// Crossfades are equal-gain (linear): old and new outputs of the same input are strongly
// correlated (the same signal through two masks, or wet and dry lined up), and for correlated
// signals equal-gain keeps the level where equal-power would bulge by up to 3 dB.
class EngineSlot {
 public:
  // fade_frames: length of every crossfade and gain ramp (>= 1). Allocates.
  EngineSlot(int channels, std::size_t max_block_frames, std::size_t fade_frames);
  ~EngineSlot();
  EngineSlot(const EngineSlot&) = delete;
  EngineSlot& operator=(const EngineSlot&) = delete;

  // Control thread. The first voice offered becomes current at the next process() with no
  // fade. Returns the voice back when one is still waiting (offer again later).
  std::unique_ptr<Voice> offer(std::unique_ptr<Voice> voice);
  bool offer_pending() const noexcept { return incoming_.load(std::memory_order_acquire) != nullptr; }
  std::unique_ptr<Voice> take_retired();
  // Calls off the switch under way (the selection came back to the mask playing): the voice
  // still offered is returned, to be destroyed; the warming one goes back through the retired
  // mailbox, never heard, at a later process(). A voice offered after this is taken as ever.
  std::unique_ptr<Voice> cancel_switch();
  void set_bypass(bool bypass) noexcept { bypass_.store(bypass, std::memory_order_relaxed); }
  bool bypass() const noexcept { return bypass_.load(std::memory_order_relaxed); }
  void set_gain_db(int db) noexcept { gain_db_.store(db, std::memory_order_relaxed); }
  int gain_db() const noexcept { return gain_db_.load(std::memory_order_relaxed); }
  // The mask the current voice plays (-1 before the first); any thread.
  int current_mask() const noexcept { return current_mask_.load(std::memory_order_relaxed); }
  std::size_t current_dry_delay_frames() const noexcept { return current_dry_delay_.load(std::memory_order_relaxed); }
  std::uint64_t switches() const noexcept { return switches_.load(std::memory_order_acquire); }
  // What is heard where the output goes on through `unplayed` frames not yet played (a ring
  // between the worker and the device: play's read-ahead): the current mask once the block it
  // began in lies further back than that, else the one before it (-1 before the first voice);
  // and the switches heard by the same measure. Any thread. (play's status line had said
  // "filtered" 0.17 s before the new mask was heard, and its summary counted a switch that a
  // quit right after it never played: a QA pass.)
  int mask_heard(std::uint64_t unplayed) const noexcept;
  std::uint64_t switches_heard(std::uint64_t unplayed) const noexcept;
  // An engine's process() failed (its message, from the worker); empty otherwise.
  const char* failure() const noexcept;

  // Worker. out = gain x [crossfade of (old, current) voices, each mixed wet/dry by bypass].
  // Silence until the first voice arrives. noexcept; no allocation.
  Status process(const float* in, float* out, std::size_t frames) noexcept;

 private:
  int channels_;
  std::size_t max_block_frames_;
  std::size_t fade_frames_;
  std::atomic<Voice*> incoming_{nullptr};  // control -> worker
  std::atomic<Voice*> retired_{nullptr};   // worker -> control
  std::atomic<bool> bypass_{false};
  std::atomic<int> gain_db_{0};
  std::atomic<int> current_mask_{-1};
  std::atomic<std::size_t> current_dry_delay_{0};
  std::atomic<std::uint64_t> switches_{0};
  std::atomic<std::uint64_t> frames_out_{0};       // frames process() has been given so far
  std::atomic<std::uint64_t> last_switch_at_{0};   // frames_out_ when the current voice began
  std::atomic<int> previous_mask_{-1};             // the mask before the last switch
  std::atomic<const Engine*> failed_{nullptr};
  std::uint64_t offers_ = 0;                         // control-only: voices offered so far
  std::atomic<std::uint64_t> cancelled_up_to_{0};   // control -> worker: offers up to this number are called off

  // Worker-only state.
  Voice* current_ = nullptr;
  Voice* fading_ = nullptr;     // the previous voice while a crossfade runs
  Voice* warming_ = nullptr;    // the next voice, fed the input until its output is exact
  std::size_t warmed_frames_ = 0;

  bool warming_superseded_ = false;  // the warming voice took the place of another (once a warm-up)
  std::size_t fade_done_ = 0;   // frames of the crossfade done
  float dry_mix_ = 0;           // 0 filtered .. 1 bypassed, ramping toward bypass_
  float gain_ = 1;              // linear, ramping toward gain_db_
  float gain_target_ = 1;       // the target the ramp runs to, and its step per frame
  float gain_step_ = 0;
};

}  // namespace halo::realtime
