#include "audio/atomic_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "audio/error.hpp"

namespace halo::audio {
namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Regular files (or names not yet taken) go through a temporary; devices and pipes cannot.
bool writes_through_temporary(const std::string& path) {
  struct stat status {};
  if (stat(path.c_str(), &status) != 0) return true;
  return S_ISREG(status.st_mode);
}

// The process umask, read once without changing it: umask() can only be read by setting it,
// which races with any other thread creating a file meanwhile.
mode_t process_umask() {
  static const mode_t mask = [] {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
      if (key == "Umask:") {
        unsigned value = 022;
        if (status >> std::oct >> value) return static_cast<mode_t>(value & 0777);
        break;
      }
    }
    return static_cast<mode_t>(022);
  }();
  return mask;
}

// ".NAME.halo-XXXXXX" beside the target, NAME cut so that the whole stays a valid file name.
std::string temporary_pattern(const std::string& path) {
  const std::string prefix = ".";
  const std::string suffix = ".halo-XXXXXX";
  std::string name = base_name(path);
  const std::size_t room = NAME_MAX - prefix.size() - suffix.size();
  if (name.size() > room) name.resize(room);
  return directory_of(path) + "/" + prefix + name + suffix;
}

std::string reason() { return std::strerror(errno); }

}  // namespace

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  if (!writes_through_temporary(path)) {
    fd_ = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd_ < 0) throw Error(path + ": " + reason());
    return;
  }
  std::string pattern = temporary_pattern(path);
  fd_ = mkostemp(pattern.data(), O_CLOEXEC);
  if (fd_ < 0) throw Error(path + ": cannot create a file in " + directory_of(path) + ": " + reason());
  temporary_ = pattern;
  // mkstemp makes 0600; give the result the mode a plain create would have.
  if (fchmod(fd_, 0666 & ~process_umask()) != 0) {
    const Error error(path + ": " + reason());
    close(fd_);
    fd_ = -1;
    unlink(temporary_.c_str());
    throw error;
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_ && !temporary_.empty()) unlink(temporary_.c_str());
}

void AtomicFile::write_all(const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t written = write(fd_, data + done, size - done);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) throw Error(path_ + ": write failed: " + reason());
    done += static_cast<std::size_t>(written);
  }
}

void AtomicFile::commit() {
  // The descriptor closed without error, then the rename: in that order, so that the target
  // name only ever holds a complete file (a full disk or a quota can surface only at close).
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) throw Error(path_ + ": closing failed: " + reason());
  if (!temporary_.empty() && std::rename(temporary_.c_str(), path_.c_str()) != 0)
    throw Error(path_ + ": cannot rename the finished file into place: " + reason());
  committed_ = true;
}

}  // namespace halo::audio
