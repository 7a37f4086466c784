#pragma once
#include <semaphore.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "src/engine/cpu_follower.hpp"
#include "src/realtime/callback.hpp"
#include "src/realtime/engine_slot.hpp"
#include "src/realtime/frame_ring.hpp"
#include "src/realtime/period_stats.hpp"

namespace halo::realtime {

// The worker: the one thread that runs engines (and so the only one that talks to CUDA through
// Engine::process). It takes blocks from `input`, filters them through the EngineSlot and puts
// them into `output`, period by period, timing each against its deadline.
//
//   live  input is the callback's ring of device input; each block is what has arrived (up to
//         block_frames), so the output is one period behind the input plus the engine's latency
//   play  input is the reader's ring of file frames; the worker fills `output` ahead in whole
//         blocks, trims the first skip_frames outputs (the alignment delay and the engine's
//         latency, as offline::Stream does) and, once the input has ended, feeds zeros until
//         it has written exactly end_frames outputs; then it sets the callback's `draining`.
//
// Contract: step() (the loop body) never allocates, locks, throws or logs; the thread waits on
// a semaphore that the callback (and the reader) post. Non-finite input samples are fed to
// the engine as 0, non-finite results written as 0, as offline::Stream does.
// One CPU for the period's hand-over: a period is a hand-over from the callback to the worker,
// which must answer before the next callback. Once the first callback has run, the worker pins
// the callback's thread to the CPU it ran on, and follows it there (cpu_follower.hpp, which
// says why: cross-CPU wake-ups arrive milliseconds late on a virtual machine); so do the
// engine's own threads (place_engine_threads). Pinned, the callback's thread stops wandering
// between CPUs when other clients share the server (measured: 600 moves in 30 s with a player
// and a recorder on the same JACK server), and each move would cost the worker a migration.
// Polling (Config::poll, `--worker-cpu own`): where the worker may not have realtime priority
// (a container that refuses SCHED_FIFO), a wake-up can come a period late however little the
// period costs (measured on the 16-core H100 machine: 3-14 underruns in 5 minutes pinned to
// the callback's CPU, 400 unpinned, with the worker's own compute at p99 0.07 ms). Polling,
// the worker waits for no wake-up: it pins itself to the highest CPU it may use before the
// stream starts (to another should the callback run there) and looks at its rings in a loop,
// with a pause between looks. That CPU is spent; the summary says so. Measured there: 1 and 4
// underruns in two 5-minute runs and no period late: no cure, so not the default.
// Priority: SCHED_FIFO where the system grants it (as jconvolver's threads); where it refuses
// (a container), and always when polling, the worker asks for nice -20 instead: not realtime,
// but the fair scheduler then gives any other thread on its CPU a share about 1/87 of its own,
// so a thread that lands there takes its slice rarely rather than every few milliseconds.
// The callback's thread (the host's) keeps its nice value: given -20 too, on the H100 machine
// the worker that shares its CPU ran late (2-13 periods, 4-12 underruns of halo's own in three
// soaks, against 0 late and 0 underruns in four with the worker alone at -20).
// live, realtime: once the callback has run, the worker takes the SCHED_FIFO priority one
// above the callback's thread (libjack's, 65 under `jackd -P 70`), where that is above the
// asked one (under `jackd -R` at its default the callback runs at 5: the worker keeps 60). On the callback's CPU the
// worker then runs as soon as the callback posts, before the callback's thread goes on, as if
// it computed inside the callback (as jconvolver computes its first partition), and after a
// stall of that CPU it finishes its period before the next callback looks at the ring; below
// the callback, the callback ran first and found the ring short. Its period is short (p99
// 0.06 ms at 65535 taps); the engine's own thread stays below the callback. play's worker,
// which fills ahead in long blocks, stays below the callback: one below its thread where the
// asked priority is not (4 under `jackd -R` at its default), or outside SCHED_FIFO at nice -20
// under a callback at the lowest priority, 1.
// Carried state: in_frames_ (frames taken from input), out_frames_ (frames produced by the
// slot, trimmed ones included), written_ (frames put into output).
class Worker {
 public:
  struct Config {
    int channels = 0;                // processing channels (the engines')
    int output_channels = 0;         // device output channels: equal, or mono mapped to two
    std::size_t block_frames = 0;    // the period
    double rate_hz = 0;
    bool play = false;
    std::uint64_t skip_frames = 0;   // play: outputs trimmed from the start
    int realtime_priority = 0;       // SCHED_FIFO priority to ask for (0: ask for nothing, not even nice)
    // The callback's state, or null: the worker ranks itself against the callback's thread and,
    // with follow_callback, keeps that thread on the CPU it first ran on and runs there itself
    // (see above); without (`--worker-cpu any`), both stay where the scheduler puts them.
    CallbackState* callback = nullptr;
    bool follow_callback = true;
    bool poll = false;  // poll the rings on a CPU apart from the callback's (see above)
    // play: device channel k takes channel speaker_moves[k] of the engines' (a file that names
    // its speakers, in WAV's order); empty: in the file's order. Only where the counts are equal.
    std::vector<int> speaker_moves;
  };

  // Allocates its block buffers. The rings, slot and stats outlive the worker.
  Worker(const Config& config, EngineSlot& slot, FrameRing& input, FrameRing& output, PeriodStats& stats,
         std::atomic<bool>* draining);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void start();         // starts the thread (which asks for realtime priority first)
  void stop() noexcept; // joins it
  void wake() noexcept { sem_post(&wake_); }
  sem_t* semaphore() noexcept { return &wake_; }

  // play: the input has `frames` frames in all (the reader says so at the end).
  void end_of_input(std::uint64_t frames) noexcept { end_frames_.store(static_cast<std::int64_t>(frames), std::memory_order_release); }

  // Processes every block that input and output allow; returns the frames written.
  std::size_t step() noexcept;

  bool done() const noexcept { return done_.load(std::memory_order_acquire); }
  bool failed() const noexcept { return failed_.load(std::memory_order_acquire); }
  std::uint64_t written_frames() const noexcept { return written_.load(std::memory_order_relaxed); }
  // Input samples that were NaN or Inf (filtered as 0), and output samples past full scale
  // (|x| > 1, after the gain: the device clips them); any thread.
  std::uint64_t nonfinite_input_samples() const noexcept { return nonfinite_in_.load(std::memory_order_relaxed); }
  std::uint64_t over_full_scale_samples() const noexcept { return over_full_scale_.load(std::memory_order_relaxed); }
  // After start(): whether SCHED_FIFO was granted, and the line that says so (with the nice
  // value taken instead, where it was not).
  bool realtime() const noexcept { return realtime_.load(std::memory_order_acquire); }
  std::string realtime_note() const;
  // The CPU the worker runs on now (-1: not pinned) and how many times it moved to follow the
  // callback (never, polling).
  int pinned_cpu() const noexcept { return config_.poll ? own_cpu_.load(std::memory_order_relaxed) : cpu_.cpu(); }
  std::uint64_t cpu_moves() const noexcept { return cpu_.moves(); }
  // Whether the callback's thread was pinned to that CPU (false before the first callback, or
  // where the system refused).
  bool callback_pinned() const noexcept { return callback_pinned_.load(std::memory_order_relaxed); }

 private:
  void loop() noexcept;
  void place_threads() noexcept;  // pins the callback's thread once, then follows its CPU (or keeps apart)
  // SCHED_FIFO against the callback's thread: live at least one above it, play below it.
  void rank_against_callback() noexcept;
  // Whether this thread wakes ahead of the callback's on their shared CPU: SCHED_FIFO above
  // it (or above a thread that is not real-time). Without, a host that calls back several
  // times at once runs them all before the worker gets the CPU.
  bool preempts_callback() const noexcept;
  void wait_for_work() noexcept;  // sleeps on the semaphore until posted, or 20 ms
  void poll_for_work() noexcept;  // a pause; takes the semaphore's posts, which nobody waits for
  std::size_t put(const float* block, std::size_t frames) noexcept;  // maps channels; returns frames written

  Config config_;
  EngineSlot& slot_;
  FrameRing& input_;
  FrameRing& output_;
  PeriodStats& stats_;
  std::atomic<bool>* draining_;
  std::vector<float> in_block_, out_block_, mapped_;
  std::uint64_t in_frames_ = 0, out_frames_ = 0;
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> nonfinite_in_{0};     // input samples zeroed as NaN or Inf, since start
  std::atomic<std::uint64_t> over_full_scale_{0};  // output samples with |x| > 1, since start
  std::atomic<std::int64_t> end_frames_{-1};
  std::atomic<bool> stopping_{false}, done_{false}, failed_{false}, realtime_{false};
  std::atomic<bool> priority_known_{false};
  int priority_error_ = 0;
  std::atomic<int> priority_{0};  // the SCHED_FIFO priority the worker holds, where realtime()
  int nice_error_ = -1;  // -1: nice not asked for; 0: granted; else the errno
  std::atomic<bool> below_lowest_callback_{false};  // play: left SCHED_FIFO to stay below a callback at its lowest
  CpuFollower cpu_;
  bool callback_pin_tried_ = false;  // worker thread only
  std::atomic<bool> callback_pinned_{false};
  std::atomic<int> own_cpu_{-1};  // polling: the CPU the worker pinned itself to, -1 before
  sem_t wake_{};
  std::thread thread_;
};

// Asks for SCHED_FIFO at `priority` for the calling thread; 0 on success, else the errno.
int make_thread_realtime(int priority) noexcept;
// The fallback where SCHED_FIFO is refused: sets the nice value of one thread (Linux keeps it
// per thread) to `nice`; `tid` 0 is the calling thread. 0 on success, else the errno.
constexpr int worker_nice = -20;
int set_thread_nice(int nice, pid_t tid = 0) noexcept;
// Engines with threads of their own (cpu-partitioned): SCHED_FIFO one step below `priority`
// (where priority > 0), never above the callback's engine_priority_ceiling once it is known
// (below the callback's thread, whatever CPU either runs on: the thread caps itself when it
// wakes, before any work), and, with `follow_callback_cpu`,
// on the callback's CPU as the worker is (cpu_follower.hpp). `callback` null: neither.
void place_engine_threads(Engine& engine, int priority, CallbackState* callback, bool follow_callback_cpu) noexcept;

// Pins `thread` to `cpu`; true where the system allows it.
bool pin_thread(pthread_t thread, int cpu) noexcept;
// Pins the calling thread to the highest CPU it may use other than `apart_from`; that CPU, or
// -1 where there is none or the system refuses.
int pin_self_apart_from(int apart_from) noexcept;

}  // namespace halo::realtime
