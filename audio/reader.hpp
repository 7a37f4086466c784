#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "audio/format.hpp"
#include "audio/sndfile_handle.hpp"

namespace halo::audio {

// Reads any file libsndfile reads ("-" = standard input) in chunks of interleaved float
// frames, normalised to [-1, 1) for integer subtypes (pcm16: v / 32768).
class Reader {
 public:
  // `raw` (subtype non-zero): the file has no header; read it as that layout (-t raw).
  explicit Reader(const std::string& path, const RawInput& raw = {});

  const Format& format() const { return format_; }
  const std::string& path() const { return path_; }

  // The frames the header declares, which a truncated file does not hold (format().frames
  // is what libsndfile finds there); -1 when unknown (a pipe).
  std::int64_t declared_frames() const { return declared_frames_; }
  // The metadata strings (SF_STR_TITLE, SF_STR_ARTIST, ...) the file carries, with their kind.
  const std::vector<std::pair<int, std::string>>& strings() const { return strings_; }

  // Reads up to `frames` frames; fewer only at the end of the file. Throws audio::Error.
  std::size_t read(float* interleaved, std::size_t frames);

 private:
  std::string path_;
  Format format_;
  std::int64_t declared_frames_ = -1;
  std::vector<std::pair<int, std::string>> strings_;
  SndfileHandle file_;
};

}  // namespace halo::audio
