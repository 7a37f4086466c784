#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace halo {

// A fixed set of threads that runs the independent tasks of one call to run() (the FFT blocks
// of every channel, say) and returns when all are done: the offline engines' way to use every
// core. The threads are made by the constructor and joined by the destructor; run() never
// allocates.
//
// The calling thread works too: a pool of `threads` has threads - 1 workers. Tasks are taken
// one at a time from a shared atomic counter, so which thread runs which task changes from run
// to run: a task must give the same result on any thread (its scratch is the thread's, named
// by the `thread` argument, and holds nothing from one task to the next).
//
// Handing work over takes a mutex and a condition variable (a few microseconds per run): fine
// for an offline engine's blocks of many milliseconds, not for an audio callback. The tasks
// themselves run with no lock held. A thread that has finished its part spins up to 200 µs
// for the next run (a worker) or for the helpers (the caller) before it sleeps, since a
// wake-up can take a millisecond (thread_pool.cpp).
//
// One caller at a time: run() is not reentrant and not for concurrent callers.
class ThreadPool {
 public:
  // threads: [1, max_threads]. Throws std::system_error when the system makes no thread.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  static constexpr int max_threads = 256;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls task(index, thread) once for every index in [0, count), spread over the pool;
  // `thread` in [0, threads()) is the thread running it (0: the caller). Returns when every
  // task has returned. A single task runs on the caller without waking anyone.
  template <typename Task>
  void run(std::size_t count, Task& task) noexcept {
    run_erased(count, [](void* context, std::size_t index, int thread) noexcept {
      (*static_cast<Task*>(context))(index, thread);
    }, &task);
  }

 private:
  using TaskFunction = void (*)(void* context, std::size_t index, int thread) noexcept;

  void run_erased(std::size_t count, TaskFunction function, void* context) noexcept;
  void take_tasks(int thread) noexcept;
  void worker_loop(int thread) noexcept;
  void stop() noexcept;  // asks every worker to leave and joins it

  // The current run, written by run_erased under mutex_ before the generation changes, and
  // only read by the workers until every one of them has reported back (taking_part_ == 0).
  TaskFunction function_ = nullptr;
  void* context_ = nullptr;
  std::size_t count_ = 0;
  int helpers_ = 0;                     // workers 1..helpers_ take part in this run
  std::atomic<std::size_t> next_{0};    // the next task index to hand out
  unsigned float_control_ = 0;          // the caller's MXCSR (x86), applied by each worker

  std::mutex mutex_;
  std::condition_variable wake_;        // workers: a new run, or stopping_
  std::condition_variable finished_;    // the caller: taking_part_ reached 0
  std::uint64_t generation_ = 0;        // under mutex_: counts runs, so a worker sees each once
  // generation_ as last published (or past it once stopping_): what an idle worker spins on
  // before it sleeps on wake_.
  std::atomic<std::uint64_t> published_{0};
  // Helpers not yet done with this run: changed under mutex_ (so finished_ is never missed),
  // read without it by the caller's spin.
  std::atomic<int> taking_part_{0};
  bool stopping_ = false;               // under mutex_: the destructor asks the workers to leave
  std::vector<std::thread> workers_;
};

}  // namespace halo
