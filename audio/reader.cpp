#include "audio/reader.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "audio/error.hpp"

namespace halo::audio {

Reader::Reader(const std::string& path) : path_(path) {
  SF_INFO info{};
  if (path == "-") {
    file_.reset(sf_open_fd(STDIN_FILENO, SFM_READ, &info, SF_FALSE));
    if (!file_) throw Error("standard input: " + std::string(sf_strerror(nullptr)));
  } else {
    // libsndfile's message for a missing file is vague; ask the file system first.
    struct stat status {};
    if (stat(path.c_str(), &status) != 0) throw Error(path + ": " + std::strerror(errno));
    if (S_ISDIR(status.st_mode)) throw Error(path + ": is a directory, not an audio file");
    if (access(path.c_str(), R_OK) != 0) throw Error(path + ": " + std::strerror(errno));
    file_.reset(sf_open(path.c_str(), SFM_READ, &info));
    if (!file_) throw Error(path + ": not a sound file libsndfile can read (" + sf_strerror(nullptr) + ")");
  }
  format_.rate_hz = info.samplerate;
  format_.channels = info.channels;
  format_.container = info.format & SF_FORMAT_TYPEMASK;
  format_.subtype = info.format & SF_FORMAT_SUBMASK;
  // A pipe reports a huge or zero length; trust only what a seekable file says.
  format_.frames = info.seekable ? static_cast<std::int64_t>(info.frames) : -1;
  if (format_.channels < 1 || format_.rate_hz < 1)
    throw Error(path + ": header says " + std::to_string(format_.channels) + " channels at " +
                std::to_string(format_.rate_hz) + " Hz");
}

std::size_t Reader::read(float* interleaved, std::size_t frames) {
  const sf_count_t got = sf_readf_float(file_.get(), interleaved, static_cast<sf_count_t>(frames));
  if (got < 0 || sf_error(file_.get()) != SF_ERR_NO_ERROR)
    throw Error(path_ + ": read failed: " + sf_strerror(file_.get()));
  return static_cast<std::size_t>(got);
}

}  // namespace halo::audio
