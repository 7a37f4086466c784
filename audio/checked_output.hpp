#pragma once
#include <sndfile.h>

#include <cstdint>

namespace halo::audio {

// libsndfile's own descriptor I/O drops some write errors: its MP3 and Vorbis encoders ignore
// what a write returns, so a full disk ended in a truncated file and exit 0. Opened through
// this sink, every byte that any container writes passes through write_bytes(), which keeps
// the first error; the Writer checks it after each chunk and after sf_close.
//
// For seekable descriptors only, starting at offset 0 and not in append mode: libsndfile takes every virtual stream
// for seekable and seeks back to rewrite headers. Pipes keep sf_open_fd (and libsndfile's own
// checks, which every container that can stream to a pipe has).
class CheckedOutput {
 public:
  explicit CheckedOutput(int fd) : fd_(fd) {}

  // True when this descriptor can go through the sink (seekable, at offset 0, not O_APPEND).
  static bool suits(int fd);

  // sf_open_virtual over this sink; nullptr as sf_open_fd would (sf_strerror(nullptr) says why).
  SNDFILE* open(SF_INFO& info);

  // The first errno a write, seek or length query met; 0 when none.
  int error() const { return error_; }
  // The first four bytes last written at offset 0: the container's magic as it stands (an
  // RF64 header that libsndfile downgraded to WAV at close reads "RIFF").
  const char* magic() const { return magic_; }

 private:
  static sf_count_t length(void* self);
  static sf_count_t seek(sf_count_t offset, int whence, void* self);
  static sf_count_t read_bytes(void* data, sf_count_t count, void* self);
  static sf_count_t write_bytes(const void* data, sf_count_t count, void* self);
  static sf_count_t tell(void* self);

  int fd_;
  sf_count_t position_ = 0;  // where the next write lands, as lseek last set it plus what was written
  int error_ = 0;
  char magic_[5] = {};
};

}  // namespace halo::audio
