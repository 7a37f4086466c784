#pragma once
#include <atomic>

namespace halo {

// A request to stop, passed into the pipeline rather than read from a global: the CLI's
// signal handler sets one (a lock-free atomic store is async-signal-safe); a library caller
// sets its own, or passes one that is never set. Polled between chunks.
class Cancellation {
 public:
  void request() noexcept { requested_.store(true, std::memory_order_relaxed); }
  bool requested() const noexcept { return requested_.load(std::memory_order_relaxed); }

 private:
  static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
  std::atomic<bool> requested_{false};
};

}  // namespace halo
