#include "src/realtime/memory_lock.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

namespace halo::realtime {

std::string lock_process_memory() noexcept {
  try {
    if (mlockall(MCL_CURRENT) == 0) return {};
    return std::strerror(errno);
  } catch (...) {  // the string's allocation
    return "unknown";
  }
}

}  // namespace halo::realtime
