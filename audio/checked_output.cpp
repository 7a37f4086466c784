#include "audio/checked_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace halo::audio {

bool CheckedOutput::suits(int fd) {
  const int flags = fcntl(fd, F_GETFL);  // O_APPEND (>>) would send a header rewritten at close to the end
  return lseek(fd, 0, SEEK_CUR) >= 0 && flags >= 0 && (flags & O_APPEND) == 0;  // (Writer: only raw and Ogg there)
}

CheckedOutput::CheckedOutput(int fd) : fd_(fd), start_(lseek(fd, 0, SEEK_CUR)) {}

SNDFILE* CheckedOutput::open(SF_INFO& info, int mode) {
  static SF_VIRTUAL_IO io = {&CheckedOutput::length, &CheckedOutput::seek, &CheckedOutput::read_bytes,
                             &CheckedOutput::write_bytes, &CheckedOutput::tell};
  mode_ = mode;
  return sf_open_virtual(&io, mode, &info, this);
}

void CheckedOutput::leave_at_end() {
  if (lseek(fd_, static_cast<off_t>(start_ + end_), SEEK_SET) < 0 && error_ == 0) error_ = errno;
}

sf_count_t CheckedOutput::bytes_after_end() const {
  struct stat status {};
  if (fstat(fd_, &status) != 0 || !S_ISREG(status.st_mode)) return 0;
  return std::max<sf_count_t>(0, static_cast<sf_count_t>(status.st_size) - (start_ + end_));
}

sf_count_t CheckedOutput::length(void* self) {
  auto& sink = *static_cast<CheckedOutput*>(self);
  // Writing, the stream is what was written: a file opened in place (`1<> old.au`) holds more
  // past it, which an AU header had counted as samples (a QA pass).
  if (sink.mode_ != SFM_READ) return sink.end_;
  struct stat status {};
  if (fstat(sink.fd_, &status) == 0) return std::max<sf_count_t>(0, static_cast<sf_count_t>(status.st_size - sink.start_));
  if (sink.error_ == 0) sink.error_ = errno;
  return -1;
}

sf_count_t CheckedOutput::seek(sf_count_t offset, int whence, void* self) {
  auto& sink = *static_cast<CheckedOutput*>(self);
  // Where it would land, from the stream's start, refused before the descriptor moves if that is
  // before the start: the bytes there are not this stream's, and the descriptor is shared.
  sf_count_t target = offset;
  if (whence == SEEK_CUR) target += sink.position_;
  if (whence == SEEK_END) {
    const sf_count_t size = length(self);
    if (size < 0) return -1;
    target += size;
  }
  if (target < 0) {
    if (sink.error_ == 0) sink.error_ = EINVAL;
    return -1;
  }
  if (lseek(sink.fd_, static_cast<off_t>(sink.start_ + target), SEEK_SET) < 0) {
    if (sink.error_ == 0) sink.error_ = errno;
    return -1;
  }
  sink.position_ = target;
  return sink.position_;
}

sf_count_t CheckedOutput::read_bytes(void* data, sf_count_t count, void* self) {
  auto& sink = *static_cast<CheckedOutput*>(self);
  const ssize_t got = read(sink.fd_, data, static_cast<std::size_t>(count));
  // Writing, the descriptor is write-only (EBADF) and libsndfile only probes; reading back
  // (verify_written), any other error is a real failure, kept.
  if (got < 0) {
    if (errno != EBADF && sink.error_ == 0) sink.error_ = errno;
    return 0;
  }
  sink.position_ += got;
  return got;
}

sf_count_t CheckedOutput::write_bytes(const void* data, sf_count_t count, void* self) {
  auto& sink = *static_cast<CheckedOutput*>(self);
  if (sink.position_ == 0 && count >= 4) std::memcpy(sink.magic_, data, 4);
  const char* bytes = static_cast<const char*>(data);
  sf_count_t done = 0;
  while (done < count) {
    const ssize_t written = write(sink.fd_, bytes + done, static_cast<std::size_t>(count - done));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      if (sink.error_ == 0) sink.error_ = written < 0 ? errno : EIO;
      break;
    }
    done += written;
  }
  sink.position_ += done;
  sink.end_ = std::max(sink.end_, sink.position_);
  return done;
}

sf_count_t CheckedOutput::tell(void* self) { return static_cast<CheckedOutput*>(self)->position_; }

}  // namespace halo::audio
