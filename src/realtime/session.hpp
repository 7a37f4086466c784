#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "audio/format.hpp"
#include "filters/mask.hpp"
#include "src/engine/registry.hpp"
#include "src/realtime/callback.hpp"
#include "src/realtime/engine_slot.hpp"
#include "src/realtime/frame_ring.hpp"
#include "src/realtime/period_stats.hpp"
#include "src/realtime/worker.hpp"

namespace halo::audio {
class PortAudio;
class DeviceStream;
}  // namespace halo::audio

namespace halo::realtime {

// One mask a session can switch to, made for the session's rate by the caller (designed, or
// read and validated from a file).
struct MaskEntry {
  filters::MaskSet masks;
  std::string label;     // "lowpass 1000 Hz, ...", "file a.txt"
  bool centred = true;   // alignment as filter's: centred (designed, --mask) or causal (--ir)
};
// Makes mask `index` of the session's list at `rate_hz`. Throws (a bad file, a bad design).
using MaskSource = std::function<MaskEntry(int index, double rate_hz)>;

enum class WorkerCpu { callback, any, own };

struct SessionOptions {
  bool live = false;
  std::string file;               // play: the sound file
  audio::RawInput raw;            // play: -t raw FILE's layout (subtype 0: FILE says its own)
  bool loop = false;              // play: start again at the end, forever
  std::string output_device;      // name or index; "" the default
  std::string input_device;       // live; "" the output device if it has inputs, else the default
  int channels = 0;               // live: 0 = min(2, what the devices have)
  double rate_hz = 0;             // live: 0 = the output device's default
  std::size_t period_frames = 64; // the device's frames per buffer and the worker's block
  std::string engine;             // "" = auto (play), cpu-partitioned (live)
  int realtime_priority = 60;     // SCHED_FIFO priority of the worker (0: do not ask)
  // Where the worker runs (worker.hpp says why each):
  //   callback  on the callback's CPU, with an engine's own threads (the default)
  //   any       wherever the scheduler puts it
  //   own       pinned to a CPU apart from the callback's, polling the rings instead of
  //             sleeping: no wake-up to wait for, at the cost of that CPU
  WorkerCpu worker_cpu = WorkerCpu::callback;
  double fade_ms = 5;             // crossfades and gain ramps
  std::string client_name = "halo";  // the JACK client's name
  int mask_count = 1;             // masks reachable with next/previous
};

struct SessionReport {
  std::string output_device, input_device;  // "name (host API)"
  double rate_hz = 0;
  int channels = 0, device_channels = 0;
  std::uint64_t frames_played = 0;
  std::uint64_t underruns = 0;       // halo's own: the worker (or play's reader feeding it) was late
  std::uint64_t host_underruns = 0;  // ring short in a period the host flagged (periods run back to back)
  std::uint64_t host_underruns_flagged_later = 0;  // of those, flagged 1-4 periods after
  std::uint64_t underrun_frames = 0, overruns = 0, host_xruns = 0, callbacks = 0;
  double output_latency_s = 0, input_latency_s = 0;  // as PortAudio reports them
  std::size_t added_latency_frames = 0;              // what halo adds (live: period + engine latency)
  std::string added_latency_note;                    // what those frames are
  // live: the current mask's own delay, which its output carries on top of added_latency_frames
  // (a centred, linear-phase mask's (M-1)/2; 0 for a causal one: minimum phase, an IR)
  std::size_t mask_delay_frames = 0;
  // live: the silence played at the start, before the pipeline opened (callback.hpp: the worker
  // taking the callback's CPU, and the host's runs measured where the lead follows them)
  std::uint64_t silent_start_frames = 0;
  std::string silent_start_note;
  std::uint64_t nonfinite_input_samples = 0;  // NaN or Inf in the input, filtered as 0
  std::uint64_t over_full_scale_samples = 0;  // output samples past full scale (the device clips them)
  double deadline_us = 0, p50_us = 0, p99_us = 0, p999_us = 0, worst_us = 0;  // deadline: the mean block's time
  double mean_block_frames = 0;  // the worker's blocks: periods, or the server's smaller buffers (live on JACK)
  std::size_t period_frames = 0;  // SessionOptions::period_frames
  std::uint64_t periods = 0, late_periods = 0;
  std::string realtime;            // "yes (SCHED_FIFO 60)" or "no (reason)"
  std::string memory_locked;       // "yes" or "no (reason)" (memory_lock.hpp)
  std::string worker_cpu;          // "the callback's (cpu 1, moved 2 times)" or "any (not pinned)"
  std::string resampled;           // "no" or "44100 -> 48000 Hz (libsamplerate, ...)"
  std::string speaker_note;        // play: the file's channels moved into WAV's speaker order; empty: none moved
  EngineChoice engine;
  std::size_t engine_latency_frames = 0;
  std::uint64_t switches = 0;
  std::string warning;             // a truncated file, say
};

// `halo play` and `halo live` as one object: the device stream, the rings, the worker, the
// engine slot, and (play) the reader thread that reads, resamples and maps the file ahead.
// The thread that makes the session is its control thread: it builds voices (engines prepared
// and given taps) for switches and reloads, offers them to the slot and destroys the ones the
// worker retires, in poll(). Nothing of that happens on the audio or worker thread.
class Session {
 public:
  // Opens the devices, reads the masks, chooses and prepares the engine, sizes everything.
  // Throws halo::Error / audio::Error with a message for the user: no device, an unknown
  // device, an unsupported rate or channel count, a mask or engine unfit for real time.
  Session(const SessionOptions& options, MaskSource masks);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void start();  // fills ahead (play), starts the worker, then the device stream
  void stop();   // stops the stream, the worker, the reader; idempotent
  // After stop(): the device stopped calling back and its stream was left open (stop gave up).
  bool stream_abandoned() const;
  // Control thread, now and then (every few ms): collects retired voices, offers pending ones.
  void poll();
  // Play: the file has been played to its end (or the worker failed). Throws a failure.
  bool finished() const;
  // Control thread, now and then: true once the started stream has made no callback for
  // stall_seconds: its server died or stalled. PortAudio says nothing then (its JACK host
  // just stops calling), so the session would wait for ever; the caller ends it.
  static constexpr double stall_seconds = 2.0;
  static constexpr double first_callback_seconds = 5.0;  // from the stream's start to its first callback
  bool device_stalled();
  // live's rings (frames, each way): a lead of a run of 4096 frames and the run's input.
  static constexpr std::size_t live_ring_frames = 16384;

  // Controls (control thread).
  void toggle_bypass() { slot_->set_bypass(!slot_->bypass()); }
  bool bypass() const { return slot_->bypass(); }
  void change_gain_db(int steps);
  int gain_db() const { return slot_->gain_db(); }
  // Builds the voice and queues it; back to the mask being heard, calls off the switch instead.
  void select_mask(int index);
  void replace_mask(int index, const MaskEntry& entry);  // a reloaded file: validated by the caller
  int mask_index() const { return wanted_mask_; }
  const std::string& mask_label() const { return wanted_label_; }
  // Whether the mask selected is not yet the one heard (its voice waits or warms up, or its
  // first frames wait in the output ring).
  bool switching() const;
  double rate_hz() const { return rate_hz_; }

  const CallbackState& counters() const { return *callback_; }
  const PeriodStats& stats() const { return *stats_; }
  SessionReport report() const;

 private:
  struct Reader;
  std::unique_ptr<Voice> build_voice(const MaskEntry& entry, int index);
  void queue_voice(int index, const MaskEntry& entry);  // builds the voice and offers it (pending_ meanwhile)
  std::uint64_t unplayed_frames() const;                 // the worker's output not yet played (the output ring's)
  void check_live_voice(Voice& voice, const MaskEntry& entry) const;
  void check_realtime_budget(Voice& voice, const MaskEntry& entry) const;

  SessionOptions options_;
  MaskSource mask_source_;
  std::unique_ptr<audio::PortAudio> portaudio_;
  double rate_hz_ = 0;
  int channels_ = 0, device_channels_ = 0;
  std::string engine_name_;
  std::size_t common_delay_frames_ = 0;  // play: every voice lines up on it; trimmed at the start
  int wanted_mask_ = 0;
  std::string wanted_label_;
  std::map<int, std::string> labels_;  // each mask's label, from when its voice was built
  // The slot's switch count when the mask playing was last reloaded (replace_mask): while it
  // stands, that reload is still on its way, and select_mask calls nothing off.
  std::uint64_t reloaded_at_switch_ = UINT64_MAX;
  // Declared before the voices (pending_, slot_) so that it outlives them: their engines'
  // threads follow its cpu and priority ceiling, and may read them up to their last wake-up (it
  // had been destroyed first: a review).
  std::unique_ptr<CallbackState> callback_;
  std::unique_ptr<PeriodStats> stats_;
  std::unique_ptr<Voice> pending_;       // built, waiting for the slot's mailbox
  std::unique_ptr<Reader> reader_;
  std::unique_ptr<EngineSlot> slot_;
  std::unique_ptr<FrameRing> input_, output_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<audio::DeviceStream> stream_;
  SessionReport report_;
  bool started_ = false;
  // device_stalled's view: the callback count it saw last, and when that count last moved.
  std::uint64_t seen_callbacks_ = 0;
  std::chrono::steady_clock::time_point callbacks_moved_{};
  std::string memory_lock_problem_;  // the last lock_process_memory()'s answer: empty when locked
};

}  // namespace halo::realtime
