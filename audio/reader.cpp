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
#include "audio/float_frames.hpp"
#include "audio/header_length.hpp"
#include "audio/id3_text.hpp"
#include "audio/scratch_file.hpp"
#include "audio/sndfile_log.hpp"
#include "audio/speaker_order.hpp"
#include "audio/standard_streams.hpp"
#include "audio/stated_rate.hpp"

namespace halo::audio {
namespace {

// What is wrong with a file whose size says 0 (/proc's files, most of which have bytes to read):
// "an empty file (0 bytes)" where a read finds none, the system's words where the read fails
// (/proc/self/mem had been called empty); empty where it yields a byte, or cannot be opened,
// which the checks after this one name.
std::string why_no_byte(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  char byte = 0;
  const ssize_t got = read(fd, &byte, 1);
  const int error = errno;
  close(fd);
  if (got == 1) return {};
  return got == 0 ? "an empty file (0 bytes)" : "cannot be read: " + std::string(std::strerror(error));
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
  // A headerless file by its name: said how to read it, as sox's users pass -t raw (the line had
  // not said that halo reads one, a QA pass).
  const std::string extension = lower_extension(name);
  const bool headerless = extension == "raw" || extension == "pcm" || extension == "sw" || extension == "sb" ||
                          extension == "s16" || extension == "s24" || extension == "s32" || extension == "u8";
  return name + ": not a sound file libsndfile can read (" + sf_strerror(nullptr) + ")" +
         (headerless ? "; filter, play and live read a headerless file given -t raw, --rate, --channels and --encoding" : "");
}

// The first bytes waiting in the pipe `fd` (up to sizeof head), left there for the reader
// (tee(2) copies without consuming); how many, or 0 where `fd` is not a pipe.
// A WAV's RIFF header and its fmt chunk's format tag (24 bytes); an AIFC's COMM chunk after its
// FVER, to its compression type (bytes 50 to 53).
constexpr std::size_t peeked_bytes = 64;
std::size_t peek_pipe(int fd, char (&head)[peeked_bytes]) {
  int copy[2];
  if (pipe(copy) != 0) return 0;
  ssize_t kept = 0;
  // A writer may deliver its first bytes in pieces; give it a moment (10 ms at a time). Each
  // copy is read back at once: a pipe holds 16 buffers, however small, and the 17th tee of a
  // stream that had ended after 2 bytes blocked for ever.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const ssize_t got = tee(fd, copy[1], sizeof head, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    kept = read(copy[0], head, static_cast<std::size_t>(got));
    if (kept < 0 || kept >= static_cast<ssize_t>(sizeof head)) break;
    usleep(10000);
  }
  close(copy[0]);
  close(copy[1]);
  return kept > 0 ? static_cast<std::size_t>(kept) : 0;
}

// Whether a stream whose first `bytes` are `head` is one libsndfile reads as it comes, from a
// pipe: WAV, AIFF and IFF, AU, Ogg, MP3, NIST, AVR and MAT5, by their magic, but for an AIFC of
// GSM 6.10 (or one whose codec is not where it is looked for) and an AU of G.721 or G.723. The others it
// reads only from a seekable file; from a pipe it read FLAC with "lost sync", CAF as no frames,
// RF64 from its fmt chunk on as audio (wrong samples, exit 0), SDS in a loop at full CPU, and
// refused HTK, XI, WVE and 24-bit PAF ("SF_INFO struct incomplete", QA passes); WAVs of block codecs, known by the format tag in the fmt
// chunk every writer puts first, below. So does a stream that brought fewer than peeked_bytes in a second, most
// likely one that has ended: libsndfile read a 2-byte pipe in a loop for ever; from the
// temporary it meets the end.
bool streams_from_a_pipe(const char (&head)[peeked_bytes], std::size_t bytes) {
  if (bytes < peeked_bytes) return false;
  if (std::memcmp(head, "RIFF", 4) == 0 && std::memcmp(head + 8, "WAVEfmt ", 8) == 0) {
    // PCM, float, A-law, u-law and WAVE_FORMAT_EXTENSIBLE stream; a block codec does not: GSM
    // 6.10 is refused, and IMA or MS ADPCM behind a pipe writer's stand-in size was decoded for
    // the whole 2 GiB it "declares" (a 0.5 s file from sox became 2118119480 frames).
    const unsigned tag = static_cast<unsigned char>(head[20]) | static_cast<unsigned>(static_cast<unsigned char>(head[21])) << 8;
    return tag == 0x0001 || tag == 0x0003 || tag == 0x0006 || tag == 0x0007 || tag == 0xFFFE;
  }
  // A WAV whose first chunk is another (JUNK, bext, LIST) hides its format tag past what was
  // peeked: copied first, as a block codec is, rather than taken for one that streams (a review).
  if (std::memcmp(head, "RIFF", 4) == 0 && std::memcmp(head + 8, "WAVE", 4) == 0) return false;
  // libsndfile reads an AIFC of GSM 6.10 only from a file ("Unspecified internal error" from a
  // pipe), and an AU of G.721 or G.723 (encodings 23, 25 and 26 at byte 12) too (a pipe had given
  // "no audio frames"): copied first (QA passes). An AIFC's codec is the COMM chunk's
  // compression type, 26 bytes into it; one whose COMM is not within reach is copied too.
  if (std::memcmp(head, "FORM", 4) == 0 && std::memcmp(head + 8, "AIFC", 4) == 0) {
    const char* comm = std::search(head + 12, head + peeked_bytes, "COMM", "COMM" + 4);
    if (comm + 30 > head + peeked_bytes || std::memcmp(comm + 26, "GSM ", 4) == 0) return false;
  }
  const auto byte = [&head](int i) { return static_cast<unsigned>(static_cast<unsigned char>(head[i])); };
  const auto g72x = [](unsigned encoding) { return encoding == 23 || encoding == 25 || encoding == 26; };
  if (std::memcmp(head, ".snd", 4) == 0 && byte(12) == 0 && byte(13) == 0 && byte(14) == 0 && g72x(byte(15)))
    return false;
  if (std::memcmp(head, "dns.", 4) == 0 && byte(15) == 0 && byte(14) == 0 && byte(13) == 0 && g72x(byte(12)))
    return false;
  static const char* const streamed[] = {"RIFF", "FORM", ".snd", "dns.", "OggS", "ID3", "NIST", "2BIT", "MATL"};
  for (const char* prefix : streamed)
    if (std::memcmp(head, prefix, std::strlen(prefix)) == 0) return true;
  // An MPEG audio frame without an ID3 tag: 11 sync bits.
  return static_cast<unsigned char>(head[0]) == 0xFF && (static_cast<unsigned char>(head[1]) & 0xE0) == 0xE0;
}

// A pipe (standard input, a FIFO) as libsndfile can read it: a stream that does not stream
// (streams_from_a_pipe) is first copied to an unlinked temporary in $TMPDIR (else /tmp), as
// large as the stream; the others are read as they come. Returns `fd` itself, or the
// temporary's descriptor (the caller closes both). `name` is for messages.
int seekable_stream(int fd, const std::string& name) {
  char head[peeked_bytes];
  if (lseek(fd, 0, SEEK_CUR) >= 0) return fd;
  if (streams_from_a_pipe(head, peek_pipe(fd, head))) return fd;
  std::string directory;
  // Closed on every way out (a failed copy, a bad_alloc) until it is handed back.
  struct Spool {
    int fd;
    ~Spool() {
      if (fd >= 0) close(fd);
    }
  } spool{open_scratch_file("halo-stdin", &directory)};
  if (spool.fd < 0)
    throw Error(name + ": cannot make a temporary in " + directory +
                " to read it from (libsndfile reads this container only from a seekable file): " +
                why_no_file_in(directory, errno));
  std::vector<char> block(1 << 16);
  for (;;) {
    const ssize_t got = read(fd, block.data(), block.size());
    if (got < 0 && errno == EINTR) continue;
    const int error = errno;
    ssize_t done = 0;
    while (got > 0 && done < got) {
      const ssize_t written = write(spool.fd, block.data() + done, static_cast<std::size_t>(got - done));
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) {
        const std::string reason = std::strerror(written < 0 ? errno : EIO);
        throw Error(name + ": copying it to a temporary in $TMPDIR failed: " + reason);
      }
      done += written;
    }
    if (got == 0) break;
    if (got < 0) throw Error(name + ": read failed: " + std::string(std::strerror(error)));
  }
  if (lseek(spool.fd, 0, SEEK_SET) != 0)
    throw Error(name + ": rereading its temporary failed: " + std::string(std::strerror(errno)));
  const int copied = spool.fd;
  spool.fd = -1;
  return copied;
}

}  // namespace

std::string input_name(const std::string& path) { return path == "-" ? "standard input" : path; }

// libsndfile reads it as a file of unknown length that it never seeks: every byte it takes is
// counted here, so that those past the last whole frame can be said.
struct Reader::CountedPipe {
  int fd = -1;
  bool owned = false;  // a FIFO opened here (closed with it); not standard input
  sf_count_t bytes = 0;
  int error = 0;  // errno of a failed read (libsndfile sees only a short one, as at the end)
  ~CountedPipe() {
    if (owned) close(fd);
  }
  static sf_count_t length(void*) { return SF_COUNT_MAX; }
  static sf_count_t seek(sf_count_t offset, int whence, void* self) {
    const sf_count_t at = static_cast<CountedPipe*>(self)->bytes;  // only "where it is" is answered
    return (whence == SEEK_CUR && offset == 0) || (whence == SEEK_SET && offset == at) ? at : -1;
  }
  static sf_count_t read(void* into, sf_count_t wanted, void* self) {
    auto* pipe = static_cast<CountedPipe*>(self);
    sf_count_t got = 0;
    while (got < wanted) {
      const ssize_t n = ::read(pipe->fd, static_cast<char*>(into) + got, static_cast<std::size_t>(wanted - got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) pipe->error = errno;
      if (n <= 0) break;
      got += n;
    }
    pipe->bytes += got;
    return got;
  }
  static sf_count_t write(const void*, sf_count_t, void*) { return 0; }
  static sf_count_t tell(void* self) { return static_cast<CountedPipe*>(self)->bytes; }
};

Reader::Reader(const std::string& path, const RawInput& raw) : path_(path) {
  SF_INFO info{};
  if (raw.subtype != 0) {  // libsndfile opens a raw file only with its layout filled in first
    info.samplerate = raw.rate_hz;
    info.channels = raw.channels;
    info.format = SF_FORMAT_RAW | raw.subtype;
    if (!sf_format_check(&info))
      throw Error(input_name(path) + ": raw " + subtype_name(raw.subtype) + " with " + std::to_string(raw.channels) +
                  " channels at " + std::to_string(raw.rate_hz) + " Hz is not a layout libsndfile reads");
  }
  // Whether libsndfile reads a file whose end it can see (a regular file, a temporary standing
  // in for a pipe), where a header's length means what it says. Not info.seekable: libsndfile
  // calls a GSM 6.10 WAV on disk unseekable, since the codec cannot seek.
  bool from_a_file = false;
  // Where standard input stands: a pipe (-1), or a file, maybe read into already (`head -c 4;
  // halo ...` in one redirect), which libsndfile refuses to open raw anywhere but at 0.
  if (path == "-" && closed_at_start(STDIN_FILENO))
    throw Error("standard input: closed when halo started (<&-); name IN instead");
  const off_t stdin_start = path == "-" ? lseek(STDIN_FILENO, 0, SEEK_CUR) : 0;
  SF_VIRTUAL_IO counted{CountedPipe::length, CountedPipe::seek, CountedPipe::read, CountedPipe::write,
                        CountedPipe::tell};
  if (raw.subtype != 0) {
    const int sample_bytes = fixed_sample_bytes(raw.subtype);
    frame_bytes_ = sample_bytes > 0 ? static_cast<std::size_t>(sample_bytes) * static_cast<std::size_t>(raw.channels) : 0;
  }
  // Raw samples from a pipe or a device are read as they come: a device (/dev/zero, a sound
  // card's node) seeks and reports no size, and libsndfile had read it as empty ("has no audio
  // frames", a QA pass).
  struct stat named {};
  const bool raw_pipe = raw.subtype != 0 && frame_bytes_ > 0 &&
                        (path == "-" ? stdin_start != 0 || (fstat(STDIN_FILENO, &named) == 0 && S_ISCHR(named.st_mode))
                                     : stat(path.c_str(), &named) == 0 && (S_ISFIFO(named.st_mode) || S_ISCHR(named.st_mode)));
  if (raw_pipe) {
    pipe_ = std::make_unique<CountedPipe>();
    if (path == "-") {
      pipe_->fd = STDIN_FILENO;
    } else {
      pipe_->fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (pipe_->fd < 0) throw Error(path + ": " + std::strerror(errno));
      pipe_->owned = true;
    }
    file_.reset(sf_open_virtual(&counted, SFM_READ, &info, pipe_.get()));
    if (!file_) throw Error(open_failure(input_name(path)));
    info.seekable = SF_FALSE;  // as libsndfile would say of the pipe itself: no length to trust
  } else if (path == "-") {
    const int input = raw.subtype != 0 ? STDIN_FILENO : seekable_stream(STDIN_FILENO, "standard input");
    from_a_file = lseek(input, 0, SEEK_CUR) >= 0;
    // SF_TRUE for a temporary: libsndfile closes it (and so removes it) with the file, or at once
    // when it cannot open it.
    struct stat input_status {};
    const bool no_bytes = fstat(input, &input_status) == 0 && S_ISREG(input_status.st_mode) && input_status.st_size == 0;
    // A device (`< /dev/null`, seekable, so not copied to a temporary) has no size to look at,
    // but a read where libsndfile will start says whether it gives bytes (/dev/zero does, and is
    // no sound); pread moves nothing.
    char byte = 0;
    const bool empty_device = S_ISCHR(input_status.st_mode) && pread(input, &byte, 1, stdin_start) == 0;
    file_.reset(sf_open_fd(input, SFM_READ, &info, input == STDIN_FILENO ? SF_FALSE : SF_TRUE));
    if (!file_)
      throw Error((no_bytes || empty_device) && raw.subtype == 0 ? "standard input: empty: no bytes came"
                                                                 : open_failure("standard input"));
  } else {
    // libsndfile's message for a missing file is vague; ask the file system first.
    struct stat status {};
    if (stat(path.c_str(), &status) != 0) throw Error(path + ": " + std::strerror(errno));
    if (S_ISDIR(status.st_mode)) throw Error(path + ": is a directory, not an audio file");
    // libsndfile says "Format not recognised" of a file with no bytes at all. A size of 0 is not
    // enough to say so: /proc's files have that size and bytes to read (/proc/cpuinfo had been
    // "an empty file", a QA pass).
    if (S_ISREG(status.st_mode) && status.st_size == 0 && raw.subtype == 0)
      if (const std::string why = why_no_byte(path); !why.empty()) throw Error(path + ": " + why);
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
      from_a_file = input != fifo;
      file_.reset(sf_open_fd(input, SFM_READ, &info, SF_TRUE));
    } else {
      from_a_file = S_ISREG(status.st_mode);
      file_.reset(sf_open(path.c_str(), SFM_READ, &info));
    }
    if (!file_) throw Error(open_failure(path));
  }
  if (frame_bytes_ > 0 && !pipe_) {  // a raw file, named or on standard input: what is left past its frames
    struct stat status {};
    const bool sized = path == "-" ? fstat(STDIN_FILENO, &status) == 0 : stat(path.c_str(), &status) == 0;
    if (sized && S_ISREG(status.st_mode)) partial_frame_bytes_ = static_cast<std::size_t>(status.st_size) % frame_bytes_;
  }
  if (!states_its_rate(file_.get(), info))
    throw Error(input_name(path) + ": a MAT-file that does not say its rate: libsndfile reads its first variable, 1x1, as the "
                "rate, and the second as the samples, a row a channel");
  format_.rate_hz = info.samplerate;
  format_.channels = info.channels;
  format_.container = info.format & SF_FORMAT_TYPEMASK;
  format_.subtype = info.format & SF_FORMAT_SUBMASK;
  if (info.channels > 0) {
    std::vector<int> map(static_cast<std::size_t>(info.channels));
    if (sf_command(file_.get(), SFC_GET_CHANNEL_MAP_INFO, map.data(), static_cast<int>(map.size() * sizeof(int))) ==
        SF_TRUE)
      format_.channel_map = map;
    else  // Ogg's and FLAC's orders are theirs by definition, and libsndfile does not say them
      format_.channel_map = container_speakers(format_.container, format_.subtype, format_.channels);
  }
  // A pipe reports a huge or zero length; trust only what a seekable file says, and not
  // SF_COUNT_MAX, libsndfile's "not known" (an Ogg cut short).
  const bool whole = from_a_file || info.seekable;
  format_.frames = whole && info.frames != SF_COUNT_MAX ? static_cast<std::int64_t>(info.frames) : -1;
  if (whole) {
    const HeaderLength length = header_length(file_.get(), info, path);
    declared_frames_ = length.declared;
    if (length.present >= 0) format_.frames = frames_left_ = length.present;
  }
  if (!whole) streamed_declared_frames_ = streamed_header_frames(info);
  for (int kind = SF_STR_FIRST; kind <= SF_STR_LAST; ++kind)
    if (const char* text = sf_get_string(file_.get(), kind); text && *text)  // UTF-8 whatever the container
      strings_.emplace_back(kind, format_.container == SF_FORMAT_MPEG ? utf8_from_id3(text) : std::string(text));
  if (format_.channels < 1 || format_.rate_hz < 1)
    throw Error(input_name(path) + ": header says " + std::to_string(format_.channels) + " channels at " +
                std::to_string(format_.rate_hz) + " Hz");
}

Reader::~Reader() = default;

std::size_t Reader::partial_frame_bytes() const {
  if (!pipe_) return partial_frame_bytes_;
  const std::uint64_t whole = frames_read_ * frame_bytes_;
  return static_cast<std::uint64_t>(pipe_->bytes) > whole ? static_cast<std::size_t>(pipe_->bytes - whole) : 0;
}

std::string Reader::no_frames_message() const {
  // Damage before the first frame (stop_at_damage) is said as the read failure it is.
  if (!damage_.empty()) return input_name(path_) + ": read failed before its first frame: " + damage_;
  const std::string note = partial_frame_note();
  return input_name(path_) + ": has no audio frames" + (note.empty() ? "" : "; " + note);
}

std::string Reader::partial_frame_note() const {
  const std::size_t bytes = partial_frame_bytes();
  if (bytes == 0) return "";
  return input_name(path_) + " ends with " + std::to_string(bytes) +
         (bytes == 1 ? " byte that makes" : " bytes that make") + " no whole frame of " +
         std::to_string(format_.channels) + (format_.channels == 1 ? " channel" : " channels") +
         ": they were not read (check --channels and --encoding)";
}

std::size_t Reader::read(float* interleaved, std::size_t frames) {
  if (!damage_.empty()) return 0;
  if (frames_left_ >= 0) frames = std::min<std::size_t>(frames, static_cast<std::size_t>(frames_left_));
  if (frames == 0) return 0;
  const sf_count_t got = read_float_frames(file_.get(), format_.container | format_.subtype, format_.channels, interleaved,
                                          static_cast<sf_count_t>(frames), ints_);
  if (frames_left_ >= 0 && got > 0) frames_left_ -= got;
  if (got > 0) frames_read_ += static_cast<std::uint64_t>(got);
  if (pipe_ && pipe_->error != 0) throw Error(input_name(path_) + ": read failed: " + std::strerror(pipe_->error));
  if (got < 0 || sf_error(file_.get()) != SF_ERR_NO_ERROR) {
    std::string why = sf_strerror(file_.get());
    if (why.rfind("Error : ", 0) == 0) why.erase(0, 8);  // libsndfile's FLAC messages start so
    while (!why.empty() && (why.back() == '.' || why.back() == '\n')) why.pop_back();
    if (!stop_at_damage_) throw Error(input_name(path_) + ": read failed: " + why);
    damage_ = why;
    return got > 0 ? static_cast<std::size_t>(got) : 0;  // the frames decoded before the damage
  }
  return static_cast<std::size_t>(got);
}

}  // namespace halo::audio
