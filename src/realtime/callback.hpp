#pragma once
#include <pthread.h>
#include <semaphore.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "src/realtime/frame_ring.hpp"

namespace halo::realtime {

// What the audio callback touches, and what it counts. The faust/CamillaDSP idea: a thin
// callback that always fills the device's buffer.
//
// Contract of run_callback (called by PortAudio's trampoline on the host's audio thread):
// it only copies device input into `input` and `output` into the device buffer, fills
// silence where `output` is short, counts, and posts `wake` (sem_post: a futex wake, no lock)
// so the worker runs. It never allocates, locks, waits, does I/O, calls an engine or CUDA, or
// logs.
//
// Two kinds of trouble are counted apart:
//   underruns   the output ring held fewer frames than the device asked for (not counted
//               once `draining` is set: the end); halo's own where the worker was late, the
//               host's (host_underruns) where the host flagged that period, the one before or
//               one of the next flag_delay_periods, or (live) ran a buffer right after the one
//               before (a server catching up); never for the trampoline's slices of one host
//               buffer, which always come back to back, and which the lead or the worker's
//               preemption covers
//   overruns    halo's own: the input ring had no room for the device's input
//   host_xruns  what the host flagged (PortAudio's statusFlags: the server or driver missed
//               a period), whatever halo did; flagged callbacks run back to back are one
//               (one host buffer split over callbacks, or a server catching up in one run)
// With keep_latency (live), frames missing after an underrun are owed: as many frames are
// dropped from the ring when they arrive late, so input-to-output latency stays what it was.
// What is owed is what the pipeline (below) holds past its target, never a running sum: input
// the input ring had no room for never arrives as output, so a debt summed over an overload
// that also overran the input could never be paid, and every later block would be dropped
// (live fell silent for good after 1.5 s of CPU overload, a QA pass found).
// Without it (play), nothing of the file is skipped.
struct CallbackState {
  FrameRing* input = nullptr;   // device input -> worker; null without input
  FrameRing* output = nullptr;  // worker -> device output; null without output
  sem_t* wake = nullptr;        // posted after each callback; may be null
  bool keep_latency = false;
  std::atomic<bool> draining{false};  // set by the worker after its last frame (play)
  std::atomic<bool> finished{false};  // set here: draining and the ring ran empty

  std::atomic<std::uint64_t> callbacks{0};
  std::atomic<std::uint64_t> frames_out{0};        // frames taken from the ring and played
  std::atomic<std::uint64_t> underruns{0};         // callbacks that found the ring short
  // Of those, the ones in a callback the host flagged, or right after one, or (live: its ring
  // holds a period; play's holds seconds) in a host buffer that came less than half a period
  // after the callback before: the server ran periods back to back (the dummy driver catching
  // up), leaving the worker no time. They are the host's doing, and counted apart from halo's
  // own (underruns - host_underruns).
  std::atomic<std::uint64_t> host_underruns{0};
  // Of those, the ones the host flagged only in one of the next flag_delay_periods callbacks:
  // PortAudio's JACK host learns of an xrun from the server's notification thread and flags
  // the callback after it learns, so a stall that left the ring short is often flagged a
  // period or more later.
  std::atomic<std::uint64_t> host_underruns_flagged_later{0};
  static constexpr int flag_delay_periods = 4;
  std::atomic<std::uint64_t> underrun_frames{0};
  std::atomic<std::uint64_t> overruns{0};
  std::atomic<std::uint64_t> host_xruns{0};

  // live, with the worker away from the callback's CPU (`--worker-cpu any|own`), or on it
  // without the realtime priority to preempt its thread: a host whose period is longer than
  // the stream's buffer (JACK at 256 frames, --frames 64) calls back several times at once,
  // and such a worker cannot answer between those calls (with `--worker-cpu callback` and
  // SCHED_FIFO above the callback's thread it preempts that thread after each). So the callback
  // measures the runs of back-to-back callbacks, and once run_samples have ended, where their
  // median is longer than one callback, lets the ring's lead grow to a run: frames that arrive
  // late are no longer owed (dropped), and silence that leaves the ring's frames there makes up
  // the rest. The latency grows by that once (lead_added), and each run finds its frames.
  // The pipeline's frames, which are live's latency (the output ring's, the worker's block in
  // flight and the input it has yet to take, in one count with no race), follow from what the
  // callback itself has done: initial_lead_frames + captured - frames_out - discarded. A run
  // that would not fit the rings (its lead and its input, each at most half a ring) is not
  // followed: run_too_long says how long it was, and the session warns.
  // Set by the session for any/own; set by the callback itself, before the pipeline opens,
  // where the worker on its CPU reports worker_cannot_preempt (written by the worker before
  // its worker_cpu, read after it).
  bool grow_lead = false;
  std::atomic<bool> worker_cannot_preempt{false};
  static constexpr int run_samples = 8;
  std::size_t initial_lead_frames = 0;            // the silence the session writes before starting
  std::atomic<std::uint64_t> lead_added{0};       // frames of latency the grown lead added
  std::atomic<std::uint64_t> host_run_frames{0};  // the median run, once measured
  std::atomic<std::uint64_t> run_too_long{0};     // the median run, where the rings cannot hold it

  // live: the callback keeps the pipeline shut (silence out, the device's input dropped, the
  // lead start() wrote left in the ring) until the worker is in place and, with grow_lead, the
  // host's runs are measured; it opens at a run's start. Open from the first callback, a period
  // handed to a worker still on another CPU, or a run the lead could not yet cover, came up
  // short: 3-6 periods at every start on a 256-frame server, 20 with --worker-cpu any (a QA
  // pass), all on the host's account. In place: worker_cpu is the CPU this callback runs on
  // (the worker publishes where it is once it has pinned the callback's thread; the CPU the
  // callback reported can be stale then, from a callback that ran elsewhere before the pin
  // took, and a worker that followed it had opened the pipeline a CPU away), or anywhere.
  bool wait_for_worker = false;
  static constexpr int worker_anywhere = -1, worker_not_placed = -2;
  std::atomic<int> worker_cpu{worker_not_placed};
  bool pipeline_open = false;                     // callback-only
  std::atomic<std::uint64_t> silent_start_frames{0};  // frames of silence played while shut
  std::atomic<bool> opened_without_worker{false};      // opened by the quarter-second bound

  std::uint64_t owed_frames = 0;  // callback-only (keep_latency): frames to drop when they arrive
  // callback-only (keep_latency): the pipeline's frames when on time: the initial lead, a run
  // once the lead has grown to one (0: not set yet, initial_lead_frames).
  std::uint64_t target_pipeline_frames = 0;
  std::size_t run_frames = 0;     // callback-only: frames of the current run of back-to-back callbacks
  std::uint32_t runs[run_samples] = {};  // callback-only: the first runs' frames (sorted once all are in)
  int runs_seen = 0;                      // callback-only
  std::uint64_t lead_to_add = 0;          // callback-only: silence still to play before taking from the ring
  std::uint64_t captured = 0;             // callback-only: input frames put into the input ring
  std::uint64_t discarded = 0;            // callback-only: output frames dropped as owed
  std::uint64_t since_host_xrun = 1000;  // callback-only: callbacks since the last flagged one
  // callback-only: bit i set when the callback i callbacks ago found the ring short and was
  // counted as halo's own; a flag within flag_delay_periods moves it to the host's.
  std::uint32_t recent_own_underruns = 0;
  // The CPU this callback ran on (sched_getcpu: glibc reads it from the rseq area the kernel
  // keeps, no system call), and the callback's thread (the host's or PortAudio's), recorded by
  // the first callback: the worker keeps that thread on that CPU and runs there itself (see
  // worker.hpp).
  std::atomic<int> cpu{-1};
  // The highest SCHED_FIFO priority an engine's own thread may hold beside the callback: one
  // below the callback's thread, where that thread is SCHED_FIFO (learn_engine_priority_ceiling
  // reads it once the callback has run; 0 until then, -1 where it is not real-time,
  // CpuPartitionedEngine::below_every_realtime_priority where it runs at the lowest). Engines'
  // threads take it as their ceiling when they wake (CpuPartitionedEngine::cap_realtime_priority).
  std::atomic<int> engine_priority_ceiling{0};
  std::atomic<bool> thread_known{false};
  pthread_t thread{};  // written once, before thread_known
  double rate_hz = 48000;                // to tell a period's length
  // The trampoline's (session.cpp): a host buffer longer than this many frames is run a slice
  // at a time, each slice one run_callback (0: whole); and the interleaved channels each way.
  std::size_t slice_frames = 0;
  std::size_t input_channels = 0, output_channels = 0;
  std::int64_t last_callback_ns = 0;     // callback-only: CLOCK_MONOTONIC of the last callback
  // callback-only: the current host buffer came less than half a period after the callback
  // before it (a server catching up); kept for the trampoline's later slices of that buffer.
  bool host_catching_up = false;
};

// continues_host_buffer: this callback is a later slice of the host buffer the one before
// began (the trampoline's, session.cpp), not a buffer of the host's own: it comes back to back
// by construction, which says nothing of the host's rhythm. Where the worker was starved, such
// slices had come up short with the pipeline's lead spent, and 3 of 4 were put on the host's
// account on a 256-frame server with no xrun at all (a QA pass).
void run_callback(CallbackState& state, const float* input, float* output, std::size_t frames,
                  bool host_xrun, bool continues_host_buffer = false) noexcept;

// Once the callback has run (thread_known): its thread's SCHED_FIFO priority, less one, into
// engine_priority_ceiling (-1 where the thread is not real-time). Off the audio thread (the
// control thread's Session::poll); later calls return at once.
void learn_engine_priority_ceiling(CallbackState& state) noexcept;

}  // namespace halo::realtime
