#pragma once
#include <semaphore.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

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
// Carried state: in_frames_ (frames taken from input), out_frames_ (frames produced by the
// slot, trimmed ones included), written_frames_ (frames put into output).
class Worker {
 public:
  struct Config {
    int channels = 0;                // processing channels (the engines')
    int output_channels = 0;         // device output channels: equal, or mono mapped to two
    std::size_t block_frames = 0;    // the period
    double rate_hz = 0;
    bool play = false;
    std::uint64_t skip_frames = 0;   // play: outputs trimmed from the start
    int realtime_priority = 0;       // SCHED_FIFO priority to ask for (0: do not ask)
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
  // After start(): whether SCHED_FIFO was granted, and the line that says so.
  bool realtime() const noexcept { return realtime_.load(std::memory_order_acquire); }
  std::string realtime_note() const;

 private:
  void loop() noexcept;
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
  std::atomic<std::int64_t> end_frames_{-1};
  std::atomic<bool> stopping_{false}, done_{false}, failed_{false}, realtime_{false};
  std::atomic<bool> priority_known_{false};
  int priority_error_ = 0;
  sem_t wake_{};
  std::thread thread_;
};

// Asks for SCHED_FIFO at `priority` for the calling thread; 0 on success, else the errno.
int make_thread_realtime(int priority) noexcept;
// Engines with threads of their own (cpu-partitioned) get them one step below `priority`.
void give_engine_threads_priority(Engine& engine, int priority) noexcept;

}  // namespace halo::realtime
