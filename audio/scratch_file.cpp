#include "audio/scratch_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace halo::audio {

int open_scratch_file(const std::string& prefix, std::string* directory) {
  const char* tmpdir = std::getenv("TMPDIR");
  *directory = tmpdir && *tmpdir ? tmpdir : "/tmp";
  std::string pattern = *directory + "/" + prefix + "-XXXXXX";
  const int fd = mkostemp(pattern.data(), O_CLOEXEC);
  if (fd >= 0) unlink(pattern.c_str());
  return fd;
}

std::string why_no_file_in(const std::string& directory, int error) {
  struct stat folder {};
  if (error != ENOENT) return std::strerror(error);
  return stat(directory.c_str(), &folder) == 0 && S_ISDIR(folder.st_mode) ? "its file system makes no new files there"
                                                                            : "no such folder";
}

}  // namespace halo::audio
