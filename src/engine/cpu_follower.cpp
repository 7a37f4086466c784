#include "src/engine/cpu_follower.hpp"

#include <pthread.h>
#include <sched.h>

namespace halo {

void CpuFollower::follow() noexcept {
  const std::atomic<int>* target = target_.load(std::memory_order_acquire);
  if (target == nullptr) return;
  const int cpu = target->load(std::memory_order_relaxed);
  if (cpu < 0 || cpu >= CPU_SETSIZE || cpu == cpu_.load(std::memory_order_relaxed)) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) return;
  cpu_.store(cpu, std::memory_order_relaxed);
  moves_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace halo
