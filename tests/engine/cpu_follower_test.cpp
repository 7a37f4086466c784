// CpuFollower: a thread that calls follow() ends up on the CPU the target names, and moves
// again when the target changes (the real-time worker and cpu-partitioned's worker follow the
// audio callback's CPU this way).
#include "src/engine/cpu_follower.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <thread>
#include <vector>

namespace halo {
namespace {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

TEST(CpuFollower, MovesTheCallingThreadToTheTargetCpuAndAgainWhenItChanges) {
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs to move between; this process may use " << cpus.size();
  std::atomic<int> target{-1};
  CpuFollower follower(&target);
  std::vector<int> seen;
  std::thread thread([&] {
    follower.follow();  // no CPU named yet: stays unpinned
    seen.push_back(follower.cpu());
    for (int cpu : {cpus.back(), cpus.front(), cpus.back()}) {
      target.store(cpu);
      follower.follow();
      seen.push_back(sched_getcpu());
      seen.push_back(follower.cpu());
    }
    follower.follow();  // unchanged: no move
  });
  thread.join();
  const std::vector<int> expected{-1, cpus.back(), cpus.back(), cpus.front(), cpus.front(), cpus.back(), cpus.back()};
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(follower.moves(), 3u);
}

TEST(CpuFollower, WithoutATargetNeverPins) {
  CpuFollower follower;
  std::thread([&] { follower.follow(); }).join();
  EXPECT_EQ(follower.cpu(), -1);
  EXPECT_EQ(follower.moves(), 0u);
}

TEST(CpuFollower, ACpuOutsideTheAllowedSetLeavesTheThreadWhereItIs) {
  const std::vector<int> cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  if (cpus.back() + 1 >= CPU_SETSIZE) GTEST_SKIP() << "every CPU number is allowed";
  std::atomic<int> target{cpus.back() + 1};  // not in this process's set (or not present at all)
  CpuFollower follower(&target);
  std::thread([&] { follower.follow(); }).join();
  EXPECT_EQ(follower.cpu(), -1);
  EXPECT_EQ(follower.moves(), 0u);
}

}  // namespace
}  // namespace halo
