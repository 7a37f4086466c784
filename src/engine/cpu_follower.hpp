#pragma once
#include <atomic>
#include <cstdint>

namespace halo {

// Keeps the calling thread on the CPU another thread last reported (an atomic it stores with
// sched_getcpu()). The real-time path uses it so that the worker and the engine's own threads
// run on the audio callback's CPU: a thread woken on another CPU waits for that CPU, and on a
// virtual machine a CPU can stall for milliseconds while the callback's goes on (measured on
// the 2-core development VM at 64-frame periods: wake-ups 0.9 to 20 ms late, 14-25 underruns
// in 20 s; on one CPU, none). Below the callback's priority on its CPU, a thread runs as soon
// as the callback's thread sleeps.
//
// follow() is called by the thread to be moved, between its periods (it makes a system call
// when the CPU changed, so never from the callback). Where the system refuses the affinity (a
// cpuset without that CPU), the thread stays where it is.
// Carried state: cpu_ (where the thread is pinned, -1 before the first move), moves_.
class CpuFollower {
 public:
  CpuFollower() = default;
  explicit CpuFollower(const std::atomic<int>* target) : target_(target) {}
  void set_target(const std::atomic<int>* target) noexcept { target_.store(target, std::memory_order_release); }

  void follow() noexcept;
  int cpu() const noexcept { return cpu_.load(std::memory_order_relaxed); }
  std::uint64_t moves() const noexcept { return moves_.load(std::memory_order_relaxed); }

 private:
  std::atomic<const std::atomic<int>*> target_{nullptr};
  std::atomic<int> cpu_{-1};
  std::atomic<std::uint64_t> moves_{0};
};

}  // namespace halo
