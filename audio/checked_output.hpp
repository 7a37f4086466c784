#pragma once
#include <sndfile.h>

#include <cstdint>

namespace halo::audio {

// libsndfile's own descriptor I/O drops some write errors: its MP3 and Vorbis encoders ignore
// what a write returns, so a full disk ended in a truncated file and exit 0. Opened through
// this sink, every byte that any container writes passes through write_bytes(), which keeps
// the first error; the Writer checks it after each chunk and after sf_close.
//
// For seekable descriptors only, not in append mode: libsndfile takes every virtual stream for
// seekable and seeks back to rewrite headers. Pipes keep sf_open_fd (and libsndfile's own
// checks, which every container that can stream to a pipe has). The stream starts where the
// descriptor stands (`{ halo filter a.wav - --type raw ...; halo filter b.wav - --type raw ...; }
// > both.raw`: the second one's offset is past the first's bytes), and every offset libsndfile sees is from there, so
// each container writes after what the file holds, its header where its own bytes begin.
class CheckedOutput {
 public:
  explicit CheckedOutput(int fd);

  // True when this descriptor can go through the sink (seekable, not O_APPEND).
  static bool suits(int fd);

  // sf_open_virtual over this sink; nullptr as sf_open_fd would (sf_strerror(nullptr) says why).
  // SFM_READ reads the bytes from start() back as a file of their own: libsndfile's own reading
  // from an offset (an embedded file) found no frames in a CAF of ALAC there.
  SNDFILE* open(SF_INFO& info, int mode = SFM_WRITE);

  // The first errno a write, read, seek or length query met; 0 when none.
  int error() const { return error_; }
  // The first four bytes last written at the stream's start: the container's magic as it
  // stands (an RF64 header that libsndfile downgraded to WAV at close reads "RIFF").
  const char* magic() const { return magic_; }
  // The descriptor's offset where the stream begins.
  sf_count_t start() const { return start_; }
  // After sf_close: the shared descriptor moved to the end of what was written. libsndfile
  // leaves it where it last went back to (FLAC 18 bytes in, at its STREAMINFO), and what the
  // shell wrote next (`{ halo ... - --type flac; echo END; } > f`) overwrote the FLAC (a QA pass).
  void leave_at_end();
  // After sf_close: the bytes the file holds past what was written, which it held before (a file
  // opened in place, `1<> old.raw`, is not truncated by the shell); 0 when none, or not a file.
  sf_count_t bytes_after_end() const;
  // The bytes written so far, from start(): the stream's length.
  sf_count_t bytes_written() const { return end_; }

 private:
  static sf_count_t length(void* self);
  static sf_count_t seek(sf_count_t offset, int whence, void* self);
  static sf_count_t read_bytes(void* data, sf_count_t count, void* self);
  static sf_count_t write_bytes(const void* data, sf_count_t count, void* self);
  static sf_count_t tell(void* self);

  int fd_;
  sf_count_t start_;         // the descriptor's offset when the sink was made: the stream's 0
  sf_count_t position_ = 0;  // where the next write lands, from start_, as lseek last set it plus what was written
  sf_count_t end_ = 0;       // the furthest byte written, from start_: the stream's length while writing
  int mode_ = SFM_WRITE;     // open()'s
  int error_ = 0;
  char magic_[5] = {};
};

}  // namespace halo::audio
