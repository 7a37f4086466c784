#include "audio/writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "audio/error.hpp"

namespace halo::audio {

Writer::Writer(const std::string& path, const Format& format, std::size_t max_chunk_frames)
    : path_(path), format_(format), scale_(sample_scale(format.subtype)), max_chunk_frames_(max_chunk_frames) {
  SF_INFO info{};
  info.samplerate = format.rate_hz;
  info.channels = format.channels;
  info.format = format.container | format.subtype;
  if (!sf_format_check(&info))
    throw Error(path + ": " + container_name(format.container) + " cannot hold " + subtype_name(format.subtype) +
                " at " + std::to_string(format.rate_hz) + " Hz with " + std::to_string(format.channels) +
                " channels (choose another --subtype or extension)");

  int descriptor = STDOUT_FILENO;
  if (path == "-") {
    // libFLAC rewrites its header at the end; on a pipe that lands as junk after the frames.
    if (format.container == SF_FORMAT_FLAC && lseek(STDOUT_FILENO, 0, SEEK_CUR) < 0)
      throw Error("standard output: FLAC cannot be written to a pipe (its header is rewritten at the end); "
                  "name a file, or choose a container with --type au");
  } else {
    descriptor = output_.emplace(path).fd();
  }

  // SF_FALSE: the descriptor stays the AtomicFile's, which closes it and checks the close.
  file_.reset(sf_open_fd(descriptor, SFM_WRITE, &info, SF_FALSE));
  if (!file_) {
    const std::string reason = sf_strerror(nullptr);
    discard();
    if (path == "-")
      throw Error("standard output: libsndfile cannot write " + container_name(format.container) +
                  " to a pipe (" + reason + "); name a file, or choose a container with --type au");
    throw Error(path + ": cannot write " + container_name(format.container) + ": " + reason);
  }
  if (scale_.integer) sf_command(file_.get(), SFC_SET_NORM_DOUBLE, nullptr, SF_FALSE);
  // libsndfile's PEAK chunk costs a pass over every float written (a tenth of the writer's time);
  // sox and most tools do not write one either.
  sf_command(file_.get(), SFC_SET_ADD_PEAK_CHUNK, nullptr, SF_FALSE);
  if (scale_.clips || scale_.integer) converted_.resize(max_chunk_frames * format.channels);
}

Writer::~Writer() {
  if (!committed_) discard();
}

void Writer::discard() noexcept {
  file_.reset();
  output_.reset();  // closes the descriptor and removes the temporary
}

void Writer::write(const float* interleaved, std::size_t frames) {
  if (frames == 0) return;
  if (frames > max_chunk_frames_) throw Error(path_ + ": internal: chunk larger than the writer was sized for");
  sf_count_t written = 0;
  if (!scale_.clips && !scale_.integer) {
    written = sf_writef_float(file_.get(), interleaved, static_cast<sf_count_t>(frames));
  } else {
    const std::size_t samples = frames * format_.channels;
    std::uint64_t clipped = 0;
    for (std::size_t i = 0; i < samples; ++i) {
      double value = static_cast<double>(interleaved[i]) * scale_.full_scale;
      // Compare after rounding, as the value will be stored: 32767.4 fits pcm16, 32767.6 does not.
      const double stored = scale_.integer ? std::nearbyint(value) : value;
      if (stored > scale_.highest) {
        value = scale_.highest;
        ++clipped;
      } else if (stored < scale_.lowest) {
        value = scale_.lowest;
        ++clipped;
      }
      converted_[i] = value;
    }
    clipped_samples_ += clipped;
    written = sf_writef_double(file_.get(), converted_.data(), static_cast<sf_count_t>(frames));
  }
  if (written != static_cast<sf_count_t>(frames)) {
    const int error = errno;
    std::string reason = sf_strerror(file_.get());
    if (error == ENOSPC || error == EDQUOT || error == EFBIG) reason = std::strerror(error);
    throw Error((path_ == "-" ? std::string("standard output") : path_) + ": write failed: " + reason);
  }
}

void Writer::commit() {
  const int status = sf_close(file_.release());
  if (status != 0) {
    discard();
    throw Error(path_ + ": closing failed: " + sf_error_number(status));
  }
  if (output_) output_->commit();  // on failure the destructor discards
  committed_ = true;
}

}  // namespace halo::audio
