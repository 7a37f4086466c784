#include "audio/standard_streams.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bitset>
#include <cerrno>
#include <cstdio>

namespace halo::audio {
namespace {

bool closed[3] = {false, false, false};
bool counting[3] = {false, false, false};  // fd 1 in a memory file, whose size is what was printed
constexpr int recorded_descriptors = 1024;
std::bitset<recorded_descriptors> open_at_start;  // which were open, as guard_standard_streams found them
bool recorded = false;                            // whether it has run

}  // namespace

void guard_standard_streams() noexcept {
  for (int fd = 0; fd < recorded_descriptors; ++fd) open_at_start[static_cast<std::size_t>(fd)] = fcntl(fd, F_GETFD) != -1;
  recorded = true;
  for (int fd = 0; fd < 3; ++fd) {
    if (fcntl(fd, F_GETFD) != -1) continue;
    // Opened in turn from 0 up, each takes the lowest free number: the closed one. Where no
    // memory file can be made (an old kernel, a filter on system calls), /dev/null holds the
    // place all the same, and what is printed there goes uncounted.
    int opened = fd == 1 ? memfd_create("halo-closed-standard-output", 0) : -1;
    const bool counted = opened >= 0;
    if (opened < 0) opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened == fd) {
      closed[fd] = true;
      counting[fd] = counted;
    } else if (opened >= 0) {
      close(opened);
    }
  }
}

bool closed_at_start(int fd) noexcept { return fd >= 0 && fd < 3 && closed[fd]; }

bool open_when_halo_started(int fd) noexcept {
  if (fd < 0) return false;
  if (!recorded || fd >= recorded_descriptors) return true;
  return open_at_start[static_cast<std::size_t>(fd)];
}

long long bytes_printed_to_closed_output() noexcept {
  struct stat status {};
  if (!counting[1] || fstat(1, &status) != 0) return 0;
  return static_cast<long long>(status.st_size);
}

namespace {
int first_output_error = 0;  // main thread only: design and the one-text exports print there
}  // namespace

void print_to_standard_output(const std::string& text) noexcept {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() && first_output_error == 0)
    first_output_error = errno != 0 ? errno : EIO;
}

int standard_output_error() noexcept { return first_output_error; }

}  // namespace halo::audio
