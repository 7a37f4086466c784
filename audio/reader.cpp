#include "audio/reader.hpp"

#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "audio/error.hpp"
#include "audio/scratch_file.hpp"

namespace halo::audio {
namespace {

// The number after "KEY :" on the last line of libsndfile's log whose key is KEY (any case),
// -1 when none. The log is where libsndfile says what a header holds that it then overrides.
long long log_number(const std::string& log, const std::string& key) {
  long long value = -1;
  std::size_t start = 0;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(start, end - start);
    start = end + 1;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (name.size() != key.size() || strncasecmp(name.c_str(), key.c_str(), key.size()) != 0) continue;
    char* after = nullptr;
    const long long number = std::strtoll(line.c_str() + colon + 1, &after, 10);
    if (after != line.c_str() + colon + 1) value = number;
  }
  return value;
}

// libsndfile's log of an open file, or (null) of the last open that failed.
std::string log_of(SNDFILE* file) {
  std::string log(16384, '\0');
  sf_command(file, SFC_GET_LOG_INFO, log.data(), static_cast<int>(log.size()));
  log.resize(std::strlen(log.c_str()));
  return log;
}

// Why libsndfile could not open `name`, in words: where it blames its own struct for a header
// field that is zero ("Internal error : SF_INFO struct incomplete"), the field.
std::string open_failure(const std::string& name) {
  const std::string log = log_of(nullptr);
  const long long rate = log_number(log, "Sample rate");
  const long long channels = log_number(log, "Channels");
  if (rate == 0 || channels == 0)
    return name + ": the header says " + (rate == 0 ? "the sample rate is 0 Hz" : "there are 0 channels") +
           "; not a sound file halo can read";
  return name + ": not a sound file libsndfile can read (" + sf_strerror(nullptr) + ")";
}

// Bytes of one sample in the file, for fixed-width subtypes; 0 for compressed ones.
int sample_bytes(int subtype) {
  switch (subtype) {
    case SF_FORMAT_PCM_S8: case SF_FORMAT_PCM_U8: case SF_FORMAT_ULAW: case SF_FORMAT_ALAW: return 1;
    case SF_FORMAT_PCM_16: return 2;
    case SF_FORMAT_PCM_24: return 3;
    case SF_FORMAT_PCM_32: case SF_FORMAT_FLOAT: return 4;
    case SF_FORMAT_DOUBLE: return 8;
    default: return 0;
  }
}

// A writer on a pipe cannot go back to fill in its header's sizes, so it puts a stand-in for
// "unknown" there, and the file it made, kept, is whole: sox writes 0x7ffff000 in a WAV and a
// COMM count of 0x7f000000 bytes' worth in an AIFF, ffmpeg 0xffffffff (all ones in a W64).
// Those are just below 2^31 or 2^32 bytes (2^64 in a W64's 64-bit sizes); any other size is a
// length, so a file of 2-4 GiB cut short is still found truncated.
bool stand_in_size(long long bytes, int container) {
  if (container == SF_FORMAT_W64) return bytes >= (1LL << 62);
  constexpr long long window = 1LL << 24;  // 16 MiB below each power of two
  return (bytes >= (1LL << 31) - window && bytes < (1LL << 31)) || (bytes >= (1LL << 32) - window && bytes < (1LL << 32));
}

// What a WAV or AIFF header read from a pipe declares (libsndfile's info.frames, from the data
// chunk's size or the COMM count), where it is a length, not a stand-in. -1 else.
std::int64_t streamed_header_frames(const SF_INFO& info) {
  const int container = info.format & SF_FORMAT_TYPEMASK;
  if (container != SF_FORMAT_WAV && container != SF_FORMAT_WAVEX && container != SF_FORMAT_AIFF) return -1;
  const long long frame_bytes = static_cast<long long>(sample_bytes(info.format & SF_FORMAT_SUBMASK)) * info.channels;
  if (frame_bytes <= 0 || info.frames <= 0 || stand_in_size(info.frames * frame_bytes, container)) return -1;
  if (info.frames * frame_bytes >= (1LL << 32)) return -1;  // more than a 32-bit size holds: not a header's
  return info.frames;
}

// The first four bytes waiting in the pipe `fd`, left there for the reader (tee(2) copies
// without consuming). False where `fd` is not a pipe or holds fewer bytes.
bool peek_pipe(int fd, char (&magic)[4]) {
  int copy[2];
  if (pipe(copy) != 0) return false;
  ssize_t got = 0;
  // A writer may deliver fewer than four bytes first; give it a moment (10 ms at a time).
  for (int attempt = 0; attempt < 100; ++attempt) {
    got = tee(fd, copy[1], sizeof magic, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0 || got >= static_cast<ssize_t>(sizeof magic)) break;
    usleep(10000);
  }
  const bool whole = got >= static_cast<ssize_t>(sizeof magic) && read(copy[0], magic, sizeof magic) == sizeof magic;
  close(copy[0]);
  close(copy[1]);
  return whole;
}

// A pipe (standard input, a FIFO) as libsndfile can read it. libsndfile reads FLAC ("flac
// decoder lost sync"), CAF (no frames at all) and VOC only from a seekable file: on a pipe,
// such a stream is first copied to an unlinked temporary in $TMPDIR (else /tmp), as large as
// the stream; every other container is read as it comes. Returns `fd` itself, or the
// temporary's descriptor (the caller closes both). `name` is for messages.
int seekable_stream(int fd, const std::string& name) {
  char magic[4];
  if (lseek(fd, 0, SEEK_CUR) >= 0 || !peek_pipe(fd, magic)) return fd;
  if (std::memcmp(magic, "fLaC", 4) != 0 && std::memcmp(magic, "caff", 4) != 0 && std::memcmp(magic, "Crea", 4) != 0)
    return fd;
  std::string directory;
  const int spool = open_scratch_file("halo-stdin", &directory);
  if (spool < 0)
    throw Error(name + ": cannot make a temporary in " + directory +
                " to read it from (FLAC and CAF need a seekable file): " + std::strerror(errno));
  std::vector<char> block(1 << 16);
  for (;;) {
    const ssize_t got = read(fd, block.data(), block.size());
    if (got < 0 && errno == EINTR) continue;
    const int error = errno;
    ssize_t done = 0;
    while (got > 0 && done < got) {
      const ssize_t written = write(spool, block.data() + done, static_cast<std::size_t>(got - done));
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) {
        const std::string reason = std::strerror(written < 0 ? errno : EIO);
        close(spool);
        throw Error(name + ": copying it to a temporary in $TMPDIR failed: " + reason);
      }
      done += written;
    }
    if (got == 0) break;
    if (got < 0) {
      close(spool);
      throw Error(name + ": read failed: " + std::string(std::strerror(error)));
    }
  }
  if (lseek(spool, 0, SEEK_SET) != 0) {
    close(spool);
    throw Error(name + ": rereading its temporary failed: " + std::string(std::strerror(errno)));
  }
  return spool;
}

// Bytes a sample of a raw layout takes; 0 for one without a fixed size.
int raw_sample_bytes(int subtype) {
  switch (subtype & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_S8:
    case SF_FORMAT_PCM_U8:
    case SF_FORMAT_ULAW:
    case SF_FORMAT_ALAW: return 1;
    case SF_FORMAT_PCM_16: return 2;
    case SF_FORMAT_PCM_24: return 3;
    case SF_FORMAT_PCM_32:
    case SF_FORMAT_FLOAT: return 4;
    case SF_FORMAT_DOUBLE: return 8;
    default: return 0;
  }
}

}  // namespace

// The frames a seekable file's header declares. libsndfile trims a data chunk that runs past
// the end of the file to what is there and says so only in its log ("data : 352800 (should
// be 176378)", or AIFF's COMM frame count "not equal to" what its SSND chunk holds), so a
// truncated file looks whole; the header's own count is taken from that log. A stand-in
// (stand_in_size: a WAV that went through a pipe, whole) is no count: what is there is.
std::int64_t header_declared_frames(SNDFILE* file, const SF_INFO& info) {
  std::int64_t declared = info.frames;
  const std::string log = log_of(file);
  const int container = info.format & SF_FORMAT_TYPEMASK;
  // A W64's data chunk past the end of the file goes without a word in the log: its size is
  // read whatever the log says.
  if (container != SF_FORMAT_W64 && log.find("should be") == std::string::npos &&
      log.find("not equal") == std::string::npos)
    return declared;
  const long long frame_bytes = static_cast<long long>(sample_bytes(info.format & SF_FORMAT_SUBMASK)) * info.channels;
  if (container == SF_FORMAT_AIFF) {
    const long long frames = log_number(log, "Frames");
    if (frame_bytes > 0 && stand_in_size(frames * frame_bytes, container)) return declared;
    return std::max<std::int64_t>(declared, frames);
  }
  long long data_bytes = container == SF_FORMAT_AU ? log_number(log, "Data Size") : log_number(log, "data");
  if (stand_in_size(data_bytes, container)) return declared;
  // W64 counts its chunk header (24 bytes) and pads the chunk to 8 bytes: up to 7 bytes past
  // the frames are padding, not frames missing.
  if (container == SF_FORMAT_W64 && data_bytes >= 24) {
    data_bytes -= 24;
    if (frame_bytes > 0 && data_bytes - declared * frame_bytes < 8) return declared;
  }
  if (frame_bytes > 0 && data_bytes > 0) declared = std::max<std::int64_t>(declared, data_bytes / frame_bytes);
  return declared;
}

Reader::Reader(const std::string& path, const RawInput& raw) : path_(path) {
  SF_INFO info{};
  if (raw.subtype != 0) {  // libsndfile opens a raw file only with its layout filled in first
    info.samplerate = raw.rate_hz;
    info.channels = raw.channels;
    info.format = SF_FORMAT_RAW | raw.subtype;
    if (!sf_format_check(&info))
      throw Error(path + ": raw " + subtype_name(raw.subtype) + " with " + std::to_string(raw.channels) +
                  " channels at " + std::to_string(raw.rate_hz) + " Hz is not a layout libsndfile reads");
  }
  if (path == "-") {
    const int input = raw.subtype != 0 ? STDIN_FILENO : seekable_stream(STDIN_FILENO, "standard input");
    // SF_TRUE for a temporary: libsndfile closes it (and so removes it) with the file, or at once
    // when it cannot open it.
    file_.reset(sf_open_fd(input, SFM_READ, &info, input == STDIN_FILENO ? SF_FALSE : SF_TRUE));
    if (!file_) throw Error(open_failure("standard input"));
  } else {
    // libsndfile's message for a missing file is vague; ask the file system first.
    struct stat status {};
    if (stat(path.c_str(), &status) != 0) throw Error(path + ": " + std::strerror(errno));
    if (S_ISDIR(status.st_mode)) throw Error(path + ": is a directory, not an audio file");
    if (access(path.c_str(), R_OK) != 0) throw Error(path + ": " + std::strerror(errno));
    if (S_ISFIFO(status.st_mode) && raw.subtype == 0) {  // a named pipe: as standard input
      const int fifo = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fifo < 0) throw Error(path + ": " + std::strerror(errno));
      int input = fifo;
      try {
        input = seekable_stream(fifo, path);
      } catch (...) {
        close(fifo);
        throw;
      }
      if (input != fifo) close(fifo);
      file_.reset(sf_open_fd(input, SFM_READ, &info, SF_TRUE));
    } else {
      file_.reset(sf_open(path.c_str(), SFM_READ, &info));
    }
    if (!file_) throw Error(open_failure(path));
  }
  if (raw.subtype != 0 && path != "-") {
    const int sample_bytes = raw_sample_bytes(raw.subtype);
    struct stat status {};
    if (sample_bytes > 0 && stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode))
      partial_frame_bytes_ = static_cast<std::size_t>(status.st_size) %
                             (static_cast<std::size_t>(sample_bytes) * static_cast<std::size_t>(raw.channels));
  }
  format_.rate_hz = info.samplerate;
  format_.channels = info.channels;
  format_.container = info.format & SF_FORMAT_TYPEMASK;
  format_.subtype = info.format & SF_FORMAT_SUBMASK;
  // A pipe reports a huge or zero length; trust only what a seekable file says.
  format_.frames = info.seekable ? static_cast<std::int64_t>(info.frames) : -1;
  declared_frames_ = info.seekable ? header_declared_frames(file_.get(), info) : -1;
  if (!info.seekable) streamed_declared_frames_ = streamed_header_frames(info);
  for (int kind = SF_STR_FIRST; kind <= SF_STR_LAST; ++kind)
    if (const char* text = sf_get_string(file_.get(), kind); text && *text) strings_.emplace_back(kind, text);
  if (format_.channels < 1 || format_.rate_hz < 1)
    throw Error(path + ": header says " + std::to_string(format_.channels) + " channels at " +
                std::to_string(format_.rate_hz) + " Hz");
}

std::size_t Reader::read(float* interleaved, std::size_t frames) {
  if (!damage_.empty()) return 0;
  const sf_count_t got = sf_readf_float(file_.get(), interleaved, static_cast<sf_count_t>(frames));
  if (got < 0 || sf_error(file_.get()) != SF_ERR_NO_ERROR) {
    std::string why = sf_strerror(file_.get());
    if (why.rfind("Error : ", 0) == 0) why.erase(0, 8);  // libsndfile's FLAC messages start so
    while (!why.empty() && (why.back() == '.' || why.back() == '\n')) why.pop_back();
    if (!stop_at_damage_) throw Error(path_ + ": read failed: " + why);
    damage_ = why;
    return got > 0 ? static_cast<std::size_t>(got) : 0;  // the frames decoded before the damage
  }
  return static_cast<std::size_t>(got);
}

}  // namespace halo::audio
