#pragma once
// Counts the heap allocations made on the calling thread while a counter is alive, so a
// test can show that Engine::process never allocates (the idea of JUCE's
// juce_AllocationHooks.h). The test binary replaces the global operator new (every form), and
// on glibc also malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign (FFTW and
// C libraries allocate through those), with versions that count while this thread counts.
#include <cstddef>

namespace halo::test {

class AllocationCounter {
 public:
  AllocationCounter();   // starts counting on this thread (from zero)
  ~AllocationCounter();  // stops
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;

  std::size_t allocations() const;      // so far, on this thread: operator new and (glibc) malloc
  std::size_t new_allocations() const;  // operator new alone: what C++ code allocated itself
  void stop();                      // stop counting before the test asserts (gtest allocates)
};

// Whether malloc and friends are counted too (glibc without a sanitizer), or only operator new.
bool counts_malloc();

}  // namespace halo::test
