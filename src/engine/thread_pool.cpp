#include "src/engine/thread_pool.hpp"

#include <algorithm>
#include <chrono>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define HALO_POOL_MXCSR 1
#endif

#include "src/engine/error.hpp"
#include "src/engine/started_thread.hpp"

namespace halo {
namespace {

// How long a thread that has finished its part spins for what it waits on (the next run; the
// helpers' reports) before it sleeps. Runs come back to back: cpu-fft's three a call, calls a
// few hundred microseconds apart. A sleeping thread's wake-up took about a millisecond on the
// 16-core H100 machine, and the caller waits for every helper it woke, so with sleeps alone
// each run cost that: cpu-fft at 4095 taps (three runs a call) filtered an hour of stereo in
// 1.27 s of engine time, 0.45 s with the spin (bench/end_to_end.sh, SOX=0).
constexpr auto spin_before_sleep = std::chrono::microseconds(200);

// Spins until done() or spin_before_sleep has passed; returns done(). Each poll yields, so a
// spinning thread gives its CPU to any other that is ready (the stream's reader and writer
// share the cores with the pool): spinning with a pause instead raised cpu-fft's engine time
// for the hour at 255 taps on the H100 machine from 0.40 to 0.70 s (0.33 s with the yield).
template <typename Done>
bool spin_until(Done done) noexcept {
  const auto until = std::chrono::steady_clock::now() + spin_before_sleep;
  for (int polls = 0;; ++polls) {
    if (done()) return true;
    std::this_thread::yield();
    if (polls % 16 == 15 && std::chrono::steady_clock::now() >= until) return done();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads < 1 || threads > max_threads)
    throw Error("a pool of " + std::to_string(threads) + " threads: give 1 to " + std::to_string(max_threads));
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  try {
    for (int thread = 1; thread < threads; ++thread)
      workers_.push_back(started_thread("the engine's pool (" + std::to_string(threads) + " threads; --threads takes fewer)",
                                        [this, thread] { worker_loop(thread); }));
  } catch (...) {
    stop();  // the workers already started
    throw;
  }
}

ThreadPool::~ThreadPool() { stop(); }

void ThreadPool::stop() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    published_.store(generation_ + 1, std::memory_order_release);  // ends the helpers' spins
  }
  wake_.notify_all();
  for (auto& worker : workers_)
    if (worker.joinable()) worker.join();
  workers_.clear();
}

void ThreadPool::run_erased(std::size_t count, TaskFunction function, void* context) noexcept {
  if (count == 0) return;
  const int helpers = static_cast<int>(std::min<std::size_t>(workers_.size(), count - 1));
  if (helpers == 0) {
    for (std::size_t index = 0; index < count; ++index) function(context, index, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    function_ = function;
    context_ = context;
#if defined(HALO_POOL_MXCSR)
    float_control_ = _mm_getcsr();  // the caller's denormal flushing (Engine::process sets it)
#endif
    count_ = count;
    helpers_ = helpers;
    taking_part_.store(helpers, std::memory_order_relaxed);
    next_.store(0, std::memory_order_relaxed);
    ++generation_;
    published_.store(generation_, std::memory_order_release);
  }
  wake_.notify_all();
  take_tasks(0);
  // Every helper reports back, even one that woke after the tasks ran out: then none of them
  // still reads this run's function and context when the next run replaces them.
  if (spin_until([this] { return taking_part_.load(std::memory_order_acquire) == 0; })) return;
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [this] { return taking_part_.load(std::memory_order_relaxed) == 0; });
}

void ThreadPool::take_tasks(int thread) noexcept {
  for (std::size_t index = next_.fetch_add(1, std::memory_order_relaxed); index < count_;
       index = next_.fetch_add(1, std::memory_order_relaxed))
    function_(context_, index, thread);
}

void ThreadPool::worker_loop(int thread) noexcept {
  std::uint64_t seen = 0;
  for (;;) {
    spin_until([&] { return published_.load(std::memory_order_acquire) != seen; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || (generation_ != seen && thread <= helpers_); });
      if (stopping_) return;
      seen = generation_;
    }
#if defined(HALO_POOL_MXCSR)
    // Tasks run with the caller's floating-point control (FTZ/DAZ), so a result never depends
    // on which thread computed it.
    _mm_setcsr(float_control_);
#endif
    take_tasks(thread);
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      last = taking_part_.fetch_sub(1, std::memory_order_acq_rel) == 1;
    }
    if (last) finished_.notify_one();
  }
}

}  // namespace halo
