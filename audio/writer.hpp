#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "audio/atomic_file.hpp"
#include "audio/format.hpp"
#include "audio/sndfile_handle.hpp"

namespace halo::audio {

// Writes interleaved float frames to any format libsndfile writes ("-" = standard output).
//
// Nothing lost: the file goes through an AtomicFile (a temporary beside a regular target,
// renamed over it only by commit(); devices and pipes directly); a Writer destroyed without
// commit() (an error, Ctrl-C) removes the temporary and leaves any existing target untouched.
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
  // Closes (checking libsndfile's close, which writes the final header, then the descriptor's)
  // and renames into place.
  void commit();

  std::uint64_t clipped_samples() const { return clipped_samples_; }

 private:
  void discard() noexcept;

  std::string path_;                  // the target the user named; "-" for standard output
  std::optional<AtomicFile> output_;  // the file's descriptor; none for standard output
  Format format_;
  SampleScale scale_;
  SndfileHandle file_;                // declared after output_: closed before its descriptor
  std::vector<double> converted_;  // one chunk in output units, for integer and clipped subtypes
  std::size_t max_chunk_frames_;
  std::uint64_t clipped_samples_ = 0;
  bool committed_ = false;
};

}  // namespace halo::audio
