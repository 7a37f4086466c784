#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "audio/format.hpp"
#include "audio/sndfile_handle.hpp"

namespace halo::audio {

// Writes interleaved float frames to any format libsndfile writes ("-" = standard output).
//
// Nothing lost: a regular file is written to a temporary file beside the target and renamed
// over it only by commit(); a Writer destroyed without commit() (an error, Ctrl-C) removes the
// temporary and leaves any existing target untouched. Devices and pipes are written directly.
//
// Samples beyond what the subtype holds are clipped and counted (as sox reports them);
// float and double are written as they are.
class Writer {
 public:
  // max_chunk_frames sizes the conversion buffer once.
  Writer(const std::string& path, const Format& format, std::size_t max_chunk_frames);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void write(const float* interleaved, std::size_t frames);
  // Closes (checking libsndfile's close, which flushes) and renames into place.
  void commit();

  std::uint64_t clipped_samples() const { return clipped_samples_; }
  std::uint64_t frames_written() const { return frames_written_; }
  const std::string& path() const { return path_; }

 private:
  void discard() noexcept;

  std::string path_;            // the target the user named
  std::string temporary_path_;  // where frames go until commit(); empty when writing directly
  Format format_;
  SampleScale scale_;
  SndfileHandle file_;
  std::vector<double> converted_;  // one chunk in output units, for integer and clipped subtypes
  std::size_t max_chunk_frames_;
  std::uint64_t clipped_samples_ = 0;
  std::uint64_t frames_written_ = 0;
  bool committed_ = false;
};

}  // namespace halo::audio
