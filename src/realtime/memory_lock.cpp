#include "src/realtime/memory_lock.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

namespace halo::realtime {

std::string lock_process_memory() noexcept {
  try {
    // MCL_ONFAULT (Linux 4.4): pages not yet resident are locked when first touched, not read
    // in now: a CUDA build maps libcufft (280 MiB) and the CUDA driver reserves large address
    // ranges, none of which the audio threads need resident.
    if (mlockall(MCL_CURRENT | MCL_ONFAULT) == 0) return {};
    if (errno == EINVAL && mlockall(MCL_CURRENT) == 0) return {};  // a kernel without MCL_ONFAULT
    return std::strerror(errno);
  } catch (...) {  // the string's allocation
    return "unknown";
  }
}

}  // namespace halo::realtime
