#pragma once
#include <cstddef>
#include <string>

#include "audio/format.hpp"
#include "audio/sndfile_handle.hpp"

namespace halo::audio {

// Reads any file libsndfile reads ("-" = standard input) in chunks of interleaved float
// frames, normalised to [-1, 1) for integer subtypes (pcm16: v / 32768).
class Reader {
 public:
  explicit Reader(const std::string& path);

  const Format& format() const { return format_; }
  const std::string& path() const { return path_; }

  // Reads up to `frames` frames; fewer only at the end of the file. Throws audio::Error.
  std::size_t read(float* interleaved, std::size_t frames);

 private:
  std::string path_;
  Format format_;
  SndfileHandle file_;
};

}  // namespace halo::audio
