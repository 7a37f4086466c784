#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "src/engine/engine.hpp"

namespace halo {

// What a hand-over did, for the engine notice and --timings. Read it between process() calls
// (after a run), never during one.
struct HandoverReport {
  std::string first;               // the engine that starts ("cpu-fft")
  std::string second;              // the engine meant to take over ("cuda-fast")
  bool handed_over = false;
  std::uint64_t first_frames = 0;  // stream frames the first engine filtered (all of them when
                                   // the second never took over)
  bool second_ready = false;       // made, prepared and given its taps
  double second_start_s = 0;       // from set_taps to the second ready (where a CUDA context
                                   // starts); 0 while it is not
  std::string second_failure;      // why the second never took over: its start failed, its
                                   // latency does not fit, or priming it failed; empty when it
                                   // took over or the stream ended first
};

// Test seams; production leaves both at their defaults.
struct HandoverTiming {
  std::uint64_t earliest_frame = 0;  // hand over at the first stream frame >= this once the
                                     // second is ready, splitting a process() call there;
                                     // UINT64_MAX: never
  bool wait_in_set_taps = false;     // set_taps returns only once the second is ready or has
                                     // failed, so the hand-over frame is exactly earliest_frame
};

// Two engines behind one seam: `first` (a CPU engine) filters from the first frame while the
// second (normally a CUDA engine, whose context takes 0.2-0.3 s to start) is made, prepared
// and given its taps on a background thread. When it is ready, at the next process() call
// (or, with HandoverTiming, at a given stream frame, splitting a call), the composite hands
// the stream over: the second engine is primed with the input history it needs and takes over,
// and the output goes on without a seam, each frame equal to the causal convolution within
// the engines' float32 rounding.
//
// Latency. The composite's latency_frames() is fixed by prepare() and never changes with the
// hand-over: L = max(first's latency, `min_latency_frames`). Each engine e is fed its input
// delayed by L - latency(e) frames (from the history ring below), so both emit y[n - L] at
// stream frame n. A second engine whose latency exceeds L cannot take over (it would need
// input that has not arrived); the reason is kept and the first goes on. Pass as
// `min_latency_frames` the second engine's latency when it is known to exceed the first's.
//
// The hand-over, at stream frame s: the second engine, fresh, is fed the input frames
// [s - W, s - D) from the ring (W = L + Mmax - 1, D = L - its latency; frames before the
// stream's start are zeros, as a fresh engine sees them) and its outputs are dropped. After
// that its carry is that of an engine that has run from the start (every output from frame s
// on depends only on input frames it has been fed), so its outputs from s on are y[n - L].
// Its FFT blocks sit elsewhere than a lone engine's, so results match a lone engine's within
// rounding, not bit for bit.
//
// If the second engine fails to start (no GPU, a CUDA error, its latency), or its priming
// fails, the first simply goes on, and the reason is kept (report()). A failure of the
// second's process() after the hand-over fails the composite's process(), as any engine's.
//
// Real time: process() is noexcept and allocates nothing; it takes no lock and never waits
// for the background thread (an atomic flag says when the second is ready). The hand-over
// call itself runs the second engine over L_second + Mmax - 1 frames, once; after it the
// second's process() runs on the caller's thread (a CUDA engine made on another thread works
// there: the stream has always run it so). The destructor joins the background thread, so
// destroying a composite whose second is still starting waits for that start to end.
//
// Carried state:
//   history_    ring of the last history_frames_ = L + Mmax - 1 input frames, interleaved;
//               frame q sits in slot q mod history_frames_; zeros before the stream's start.
//               Written by every process() while a hand-over may come or the running
//               engine's input is delayed; read for the delays and for priming
//   position_   stream frames received since prepare() or reset()
//   handed_over_   the second engine runs; reset() goes back to the first, as a new
//               composite starts (the second, still ready, takes over again, primed anew)
//   state_      the background's answer: starting, ready (second_ set and given its taps)
//               or failed (second_failure_ says why); published with release, read with acquire
// Engines: first_ always exists; second_ is written by the background thread before state_
// becomes ready and then only by the caller's thread (set_taps, process, reset).
class HandoverEngine final : public Engine {
 public:
  using Factory = std::function<std::unique_ptr<Engine>()>;

  // `make_second` runs on the background thread (it may start a CUDA context), then the
  // engine is prepared with this composite's spec and given its taps there; it may throw.
  // `second_name` names it before it exists.
  HandoverEngine(std::unique_ptr<Engine> first, std::string second_name, Factory make_second,
                 std::size_t min_latency_frames = 0, const HandoverTiming& timing = {});
  ~HandoverEngine() override;

  std::string name() const override;
  std::vector<std::pair<std::string, double>> time_breakdown() const override;

  // Blocks until the background thread has made the second engine ready or failed (for tests
  // and benchmarks; a pipeline never needs to). Does nothing before set_taps.
  void wait_for_second();
  HandoverReport report() const;

 protected:
  void do_prepare(const ProcessSpec& spec) override;
  void do_set_taps(const TapSet& taps) override;
  Status do_process(const float* in, float* out, std::size_t frames) noexcept override;
  void do_reset() override;
  std::size_t do_latency_frames() const override { return latency_frames_; }
  std::size_t do_preferred_block_frames() const override { return first_->preferred_block_frames(); }

 private:
  enum State : int { starting, ready, failed };

  void start_second(const TapSet& taps);
  void start_second_thread();  // the thread that makes and prepares second_; throws Error
  void stop_background();
  // The hand-over at position_: primes second_ and switches to it. A priming failure leaves
  // the first engine running and records why.
  void hand_over() noexcept;
  // Frames [first_frame, first_frame + frames) of the input, from history_, into `out`.
  void copy_history(std::int64_t first_frame, std::size_t frames, float* out) const noexcept;
  // `frames` input frames at position_ delayed by `delay`: `in` itself when delay is 0,
  // otherwise delayed_ filled from history_ and `in`.
  const float* delayed_input(const float* in, std::size_t frames, std::size_t delay) noexcept;
  void remember(const float* in, std::size_t frames) noexcept;

  std::unique_ptr<Engine> first_;
  std::unique_ptr<Engine> second_;
  std::string second_name_;
  Factory make_second_;
  std::size_t min_latency_frames_;
  HandoverTiming timing_;

  // Sized by prepare().
  std::size_t latency_frames_ = 0;   // L
  std::size_t first_delay_ = 0;      // L - the first's latency
  std::size_t history_frames_ = 0;   // L + Mmax - 1
  std::vector<float> history_;       // see above
  std::vector<float> delayed_;       // max_block_frames: a delayed block, or a priming piece
  std::vector<float> dropped_;       // max_block_frames: the second's outputs while priming

  // The stream (see above).
  std::uint64_t position_ = 0;
  bool handed_over_ = false;
  bool priming_failed_ = false;
  std::size_t second_delay_ = 0;     // L - the second's latency, from the hand-over on
  std::uint64_t first_frames_ = 0;   // frames the first engine filtered
  double first_s_ = 0, priming_s_ = 0, second_s_ = 0;  // time inside each engine's process()
  char priming_failure_[320] = {};  // room for "priming it failed: " and a failure() of 255

  // The background thread and what it hands back.
  std::thread background_;
  std::atomic<int> state_{starting};
  mutable std::mutex mutex_;            // guards the three below, between set_taps and the background
  std::optional<TapSet> pending_taps_;  // the latest taps, until the second has them
  std::string second_failure_;
  double second_start_s_ = 0;
};

}  // namespace halo
