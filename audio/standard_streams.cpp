#include "audio/standard_streams.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace halo::audio {
namespace {

bool closed[3] = {false, false, false};

}  // namespace

void guard_standard_streams() noexcept {
  for (int fd = 0; fd < 3; ++fd) {
    if (fcntl(fd, F_GETFD) != -1) continue;
    // Opened in turn from 0 up, each takes the lowest free number: the closed one.
    const int opened = fd == 1 ? memfd_create("halo-closed-standard-output", 0)
                               : open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened == fd) {
      closed[fd] = true;
    } else if (opened >= 0) {  // a lower one was free after all: move it where it belongs
      if (dup2(opened, fd) == fd) closed[fd] = true;
      close(opened);
    }
  }
}

bool closed_at_start(int fd) noexcept { return fd >= 0 && fd < 3 && closed[fd]; }

long long bytes_printed_to_closed_output() noexcept {
  struct stat status {};
  if (!closed[1] || fstat(1, &status) != 0) return 0;
  return static_cast<long long>(status.st_size);
}

}  // namespace halo::audio
