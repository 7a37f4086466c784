#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "audio/format.hpp"
#include "audio/sndfile_handle.hpp"

namespace halo::audio {

// How messages name an input: "standard input" for `-`, else its path.
std::string input_name(const std::string& path);

// Reads any file libsndfile reads ("-" = standard input) in chunks of interleaved float
// frames, normalised to [-1, 1) for integer subtypes (pcm16: v / 32768).
class Reader {
 public:
  // `raw` (subtype non-zero): the file has no header; read it as that layout (-t raw).
  explicit Reader(const std::string& path, const RawInput& raw = {});
  ~Reader();  // in reader.cpp, where CountedPipe is whole
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  const Format& format() const { return format_; }
  const std::string& path() const { return path_; }

  // The frames the header declares, which a truncated file does not hold (format().frames
  // is what libsndfile finds there); -1 when unknown (a pipe).
  std::int64_t declared_frames() const { return declared_frames_; }
  // On a pipe: the frames a WAV or AIFF header declares, where that looks like a length rather
  // than a stand-in for "unknown" (writers that cannot seek put 2 GiB or 4 GiB there); -1
  // otherwise and for seekable files. Only a warning's worth: a stream may be cut on purpose.
  std::int64_t streamed_declared_frames() const { return streamed_declared_frames_; }
  // What the header declares, a file's or a stream's: where fewer frames come, IN was cut short.
  std::int64_t header_frames() const { return declared_frames_ > 0 ? declared_frames_ : streamed_declared_frames_; }
  // The metadata strings (SF_STR_TITLE, SF_STR_ARTIST, ...) the file carries, with their kind.
  const std::vector<std::pair<int, std::string>>& strings() const { return strings_; }

  // Reads up to `frames` frames; fewer only at the end of the file. Throws audio::Error when
  // libsndfile cannot decode on (a FLAC cut mid-frame: "lost sync"), unless stop_at_damage.
  std::size_t read(float* interleaved, std::size_t frames);

  // With `stop`, a decoding error ends the file instead: read returns the frames decoded before
  // it, then 0, and damage() says what libsndfile reported (`filter --accept-short`, `info`).
  void stop_at_damage(bool stop) { stop_at_damage_ = stop; }
  // Why reading ended before the end of the file; empty while it has not.
  const std::string& damage() const { return damage_; }

  // A headerless (-t raw) input's last bytes that make no whole frame, which libsndfile does
  // not read; 0 for other files. From a pipe (standard input, a FIFO) known once read() has
  // returned 0.
  std::size_t partial_frame_bytes() const;
  // What filter and play say of them: "NAME ends with 3 bytes that make no whole frame of 2
  // channels: they were not read (check --channels and --encoding)"; empty where there are none.
  std::string partial_frame_note() const;
  // "NAME: has no audio frames", and why where a raw input's bytes make no whole frame (a raw
  // file shorter than a frame had said only that, a QA pass): what filter and play refuse.
  std::string no_frames_message() const;

 private:
  std::string path_;
  Format format_;
  std::int64_t declared_frames_ = -1;
  std::int64_t streamed_declared_frames_ = -1;
  std::vector<std::pair<int, std::string>> strings_;
  bool stop_at_damage_ = false;
  std::string damage_;  // libsndfile's message for the error that ended reading early
  std::size_t partial_frame_bytes_ = 0;  // a raw file's, from its size
  // A raw stream from a pipe, read through libsndfile's virtual I/O so that its bytes are
  // counted (libsndfile drops a last part-frame without a word); null otherwise. Declared
  // before file_, which reads from it, so that it outlives it.
  struct CountedPipe;
  std::unique_ptr<CountedPipe> pipe_;
  std::size_t frame_bytes_ = 0;         // a raw input's bytes a frame
  std::uint64_t frames_read_ = 0;       // frames read() has returned
  // The frames still to read where libsndfile counts more than the file holds (HeaderLength::
  // present: a cut SDS); -1 where its own end of file is the end.
  std::int64_t frames_left_ = -1;
  std::vector<int> ints_;               // read_float_frames's buffer, where it reads ints
  SndfileHandle file_;
};

}  // namespace halo::audio
