#include "audio/scratch_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

namespace halo::audio {

int open_scratch_file(const std::string& prefix, std::string* directory) {
  const char* tmpdir = std::getenv("TMPDIR");
  *directory = tmpdir && *tmpdir ? tmpdir : "/tmp";
  std::string pattern = *directory + "/" + prefix + "-XXXXXX";
  const int fd = mkostemp(pattern.data(), O_CLOEXEC);
  if (fd >= 0) unlink(pattern.c_str());
  return fd;
}

}  // namespace halo::audio
