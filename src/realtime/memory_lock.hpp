#pragma once
// Keeps a real-time session's pages in RAM: mlockall(MCL_CURRENT | MCL_ONFAULT), as JACK's
// own servers and clients lock theirs, so that nothing the audio threads touch (the engines'
// buffers, and the code of halo and its libraries) is evicted and then faulted back from disk
// in the middle of a period. Pages resident now are locked now; the rest when first touched.
//
// Why here: the development VM's kernel runs DAMON with a pageout scheme over physical memory;
// without swap it can still drop clean file pages (program text, FFTW's codelets for the
// long partitions that run a few times a second), and the live worker's worst period reached
// 17 ms in a 10-minute soak while its p99.9 was 0.13 ms.
//
// MCL_CURRENT and not MCL_FUTURE: where the locked-memory limit is small (not root), a locked
// future would make later allocations (a mask reloaded) fail; the control thread locks again
// after it builds each new engine instead.
#include <string>

namespace halo::realtime {

// Locks every page the process has mapped now (as above). Empty when done, else why not (the errno's
// text, e.g. "Cannot allocate memory" where RLIMIT_MEMLOCK is below the process's size).
std::string lock_process_memory() noexcept;

}  // namespace halo::realtime
