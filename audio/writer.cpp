#include "audio/writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>

#include "audio/error.hpp"
#include "audio/header_length.hpp"
#include "audio/id3_text.hpp"
#include "audio/scratch_file.hpp"
#include "audio/sndfile_log.hpp"
#include "audio/standard_streams.hpp"
#include "audio/streamed_output.hpp"

namespace halo::audio {
namespace {

// How messages name an output: "-" is standard output.
std::string output_name(const std::string& path) { return path == "-" ? "standard output" : path; }

// Why a container cannot hold `bytes` of samples (container_byte_limit), in words for a message.
std::string too_long_for(int container, std::uint64_t bytes) {
  char text[200];
  std::snprintf(text, sizeof text, "%s counts at most 4 GiB of samples (its header's sizes are 32-bit), and this output is "
                "%.1f GiB: write CAF, W64 or RF64 (.caf, .w64, .rf64)", container_name(container).c_str(),
                static_cast<double>(bytes) / (1ull << 30));
  return text;
}

// Whether a failed write to standard output means its reader went away (`| head`): EPIPE, as
// errno or in libsndfile's words, whether the header (at open) or the samples failed.
bool reader_gone(const std::string& path, int error, const std::string& reason) {
  return (path == "-" || names_standard_output(path)) &&  // (/dev/stdout had exited 1, "write failed")
         (error == EPIPE || reason.find(std::strerror(EPIPE)) != std::string::npos);
}

// No NaN or Inf among `count` samples (their exponent bits all ones): a reduction with no early
// exit, which the compiler vectorises where std::all_of's early exit kept it to one sample a
// step (20 -> 10 ms for ten minutes of stereo on the development VM).
bool all_finite(const float* samples, std::size_t count) {
  constexpr std::uint32_t exponent_bits = 0x7f800000u;
  std::uint32_t any = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, samples + i, sizeof bits);
    any |= static_cast<std::uint32_t>((bits & exponent_bits) == exponent_bits);
  }
  return any == 0;
}

}  // namespace

Writer::Writer(const std::string& path, const Format& format, std::size_t max_chunk_frames,
               const WriteOptions& options)
    : path_(path),
      format_(format),
      scale_(sample_scale(format.subtype)),
      max_chunk_frames_(max_chunk_frames),
      piece_frames_(std::min(max_chunk_frames, std::max<std::size_t>(1, (std::size_t{1} << 20) /
                                                                               static_cast<std::size_t>(std::max(format.channels, 1))))),
      options_(options),
      dither_(options.dither && scale_.integer && scale_.full_scale < 8388608.0) {
  {
    const int subtype = format.subtype & SF_FORMAT_SUBMASK;
    const bool alac = subtype == SF_FORMAT_ALAC_16 || subtype == SF_FORMAT_ALAC_20 || subtype == SF_FORMAT_ALAC_24 ||
                      subtype == SF_FORMAT_ALAC_32;
    verify_ = alac || is_paf24(format.container | format.subtype);
  }
  SF_INFO info{};
  info.samplerate = format.rate_hz;
  info.channels = format.channels;
  info.format = format.container | format.subtype;
  if (!sf_format_check(&info))
    throw Error(output_name(path) + ": " + container_name(format.container) + " cannot hold " + subtype_name(format.subtype) +
                " at " + std::to_string(format.rate_hz) + " Hz with " + std::to_string(format.channels) +
                " channels (choose another --subtype or extension)");

  // Opus codes 8, 12, 16, 24 or 48 kHz only; libsndfile says so only when it opens the file, and
  // on a pipe that read as "cannot write OGG to a pipe".
  if ((format.subtype & SF_FORMAT_SUBMASK) == SF_FORMAT_OPUS && format.rate_hz != 8000 && format.rate_hz != 12000 &&
      format.rate_hz != 16000 && format.rate_hz != 24000 && format.rate_hz != 48000)
    throw Error(output_name(path) + ": Opus codes 8, 12, 16, 24 or 48 kHz, not " + std::to_string(format.rate_hz) +
                " Hz; resample IN first, or write Vorbis (.ogg)");
  // Refused on a pipe before a byte goes out (writes_to_a_pipe says which and why), and a FIFO
  // before opening it, which would wait for a reader first.
  struct stat target {};
  if (path != "-" && stat(path.c_str(), &target) == 0 && S_ISFIFO(target.st_mode) && !writes_to_a_pipe(format.container))
    throw Error(path + (names_a_descriptor(path) ? ": a pipe, and " : ": a FIFO, and ") + pipe_refusal(format.container));
  if (path == "-" && closed_at_start(STDOUT_FILENO))
    throw Error("standard output: closed when halo started (>&-); name OUT instead");
  if (path == "-" && open_for_reading_only(STDOUT_FILENO))
    throw Error("standard output is open for reading only (1< FILE); redirect it with > or name OUT");
  // A header whose 32-bit sizes the output would pass (an AIFF of 9.7 GB had been written with
  // them wrapped, exit 0: a review): refused before a byte is written where the length is known;
  // otherwise commit() refuses it.
  // (A codec's bytes are not known before it codes: its length is judged at the end.)
  if (const std::uint64_t limit = container_byte_limit(format.container);
      limit > 0 && fixed_sample_bytes(format.subtype) > 0 && sample_bytes_of(format) > limit)
    throw Error(output_name(path) + ": " + too_long_for(format.container, sample_bytes_of(format)));
  const int descriptor = path == "-" ? STDOUT_FILENO : output_.emplace(path).fd();
  // A terminal: said as such (every refusal had blamed a pipe, and AU's had advised --type au).
  if (isatty(descriptor)) {
    discard();
    throw Error(output_name(path) + ": a terminal, which plays no sound: redirect it (> out.au, | halo play -) or name a file");
  }
  if (!writes_to_a_pipe(format.container) && lseek(descriptor, 0, SEEK_CUR) < 0) {
    discard();
    throw Error(output_name(path) + ": " + pipe_refusal(format.container));
  }
  // A file open for appending (`- >> out.au`) takes every write at its end: libsndfile's return
  // to complete a header (WAV, AU, IRCAM, AVR, ...) had landed after the samples, a second AU
  // header read as 48 bytes of noise at the end (a QA pass). Raw and Ogg never go back.
  if (appends_to_a_file(descriptor) && !writes_front_to_back(format.container)) {
    discard();
    throw Error(output_name(path) + ": open for appending (>>), and libsndfile goes back to complete " +
                container_name(format.container) +
                "'s header, which appending cannot; append raw (--type raw) or Ogg, or name a file");
  }

  // Raw and Ogg append from offset 0 as libsndfile sees it: where the shell's offset is past it
  // (`{ echo x; halo ...; } >> log`), libsndfile took OUT for a file embedded in another and
  // refused both (a review). Every write still lands at the end.
  if (appends_to_a_file(descriptor)) lseek(descriptor, 0, SEEK_SET);
  descriptor_ = descriptor;

  // A seekable output goes through a CheckedOutput, which sees every write's result. A WAV there
  // that may pass 4 GiB (format.frames says how long it will be) is written as RF64; when the
  // length is not known, as RF64 that libsndfile turns back into a WAV (WAVEX) at close if small.
  if (CheckedOutput::suits(descriptor)) {
    sink_.emplace(descriptor);
    SF_INFO rf64 = info;
    rf64.format = SF_FORMAT_RF64 | format.subtype;
    // WAVEX too (a .wav of more than two channels from another container): its sizes wrap as a WAV's.
    wav_as_rf64_ = (format.container == SF_FORMAT_WAV || format.container == SF_FORMAT_WAVEX) && wav_may_outgrow(format) &&
                   sf_format_check(&rf64);
    if (wav_as_rf64_) info = rf64;
    file_.reset(sink_->open(info));
    if (file_ && wav_as_rf64_ && format.frames < 0)
      sf_command(file_.get(), SFC_RF64_AUTO_DOWNGRADE, nullptr, SF_TRUE);
  } else {
    // SF_FALSE: the descriptor stays the AtomicFile's, which closes it and checks the close.
    file_.reset(sf_open_fd(descriptor, SFM_WRITE, &info, SF_FALSE));
  }
  if (!file_) {
    const std::string reason = sf_strerror(nullptr);
    discard();
    // A reader gone before the header went out (`| nosuchplayer`): quietly, as mid-stream
    // (exit 141); it had said libsndfile cannot write AU to a pipe, and to choose AU.
    if (reader_gone(path, 0, reason)) throw ReaderGone();  // (errno is discard()'s by now)
    if (path == "-")
      throw Error("standard output: libsndfile cannot write " + container_name(format.container) +
                  " to a pipe (" + reason + "); name a file, or choose a container with --type au");
    throw Error(path + ": cannot write " + container_name(format.container) + ": " + reason);
  }
  // Bytes that go straight to their target (a pipe, or standard output or a device even where
  // seekable: a file `>` redirects to) are there for good: a failure now leaves part of them
  // (a run interrupted into `> p.au` had said "nothing was written" over 88 MB, a QA pass).
  if (!sink_ || path == "-" || (output_ && output_->direct())) mark_output_streamed();
  // libsndfile's PEAK chunk costs a pass over every float written (a tenth of the writer's time);
  // sox and most tools do not write one either. Not in AIFF: without it libsndfile 1.2 writes a
  // float or double AIFF of 24 bytes of samples or fewer (a mono float of 1 to 5 frames) with a
  // second SSND header after them and a frame count that takes that header for samples (a
  // 1-frame file read back as 4 frames, one of them 9e11: a QA pass).
  if (format.container != SF_FORMAT_AIFF) sf_command(file_.get(), SFC_SET_ADD_PEAK_CHUNK, nullptr, SF_FALSE);
  // The input's speaker layout, where this container holds one (WAVEX, CAF; elsewhere libsndfile
  // says no, and nothing is lost that the container could have kept).
  if (format.channel_map.size() == static_cast<std::size_t>(format.channels)) {
    std::vector<int> map = format.channel_map;
    sf_command(file_.get(), SFC_SET_CHANNEL_MAP_INFO, map.data(), static_cast<int>(map.size() * sizeof(int)));
  }
  if (scale_.clips || scale_.integer || options_.norm_peak > 0) converted_.resize(piece_frames_ * format.channels);
  if (scale_.integer) converted_int_.resize(piece_frames_ * format.channels);
  if (!format.channel_moves.empty()) moved_.resize(max_chunk_frames * format.channels);
  if (options_.norm_peak > 0) {
    std::string directory;
    spool_fd_ = open_scratch_file("halo-norm", &directory);
    if (spool_fd_ < 0) {
      const std::string reason = why_no_file_in(directory, errno);
      discard();
      throw Error("--norm: cannot make its temporary in " + directory + ": " + reason);
    }
  }
}

void Writer::spool(const float* interleaved, std::size_t frames) {
  const std::size_t samples = frames * format_.channels;
  for (std::size_t i = 0; i < samples; ++i)
    if (std::isfinite(interleaved[i])) spool_peak_ = std::max(spool_peak_, std::fabs(double{interleaved[i]}));
  const char* bytes = reinterpret_cast<const char*>(interleaved);
  std::size_t left = samples * sizeof(float);
  while (left > 0) {
    const ssize_t done = ::write(spool_fd_, bytes, left);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) throw Error("--norm: writing its temporary in $TMPDIR failed: " + std::string(std::strerror(errno)));
    bytes += done;
    left -= static_cast<std::size_t>(done);
  }
}

Writer::~Writer() {
  if (!committed_) discard();
}

void Writer::discard() noexcept {
  if (spool_fd_ >= 0) close(spool_fd_);
  spool_fd_ = -1;
  file_.reset();
  output_.reset();  // closes the descriptor and removes the temporary
}

void Writer::write(const float* interleaved, std::size_t frames) {
  if (frames == 0) return;
  if (frames > max_chunk_frames_) throw Error(path_ + ": internal: chunk larger than the writer was sized for");
  if (!format_.channel_moves.empty()) {  // into OUT's speaker order (Format::channel_moves)
    const std::size_t channels = format_.channel_moves.size();
    for (std::size_t frame = 0; frame < frames; ++frame)
      for (std::size_t k = 0; k < channels; ++k)
        moved_[frame * channels + k] = interleaved[frame * channels + static_cast<std::size_t>(format_.channel_moves[k])];
    interleaved = moved_.data();
  }
  if (spool_fd_ >= 0) return spool(interleaved, frames);
  convert_and_write(interleaved, frames, 1.0);
}

namespace {

// splitmix64's finaliser: a counter-based generator, so a sample's dither depends only on
// where the sample is, never on what was drawn before it.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Triangular (TPDF) dither in (-1, 1) LSB for sample (frame, channel): the difference of two
// uniform values on [0, 1) taken from one 64-bit hash. The seed is fixed: runs repeat.
double tpdf_dither(std::uint64_t frame, int channel) {
  constexpr std::uint64_t seed = 0x68616C6F64697468ull;  // "halodith"
  const std::uint64_t bits = mix(mix(frame ^ seed) + static_cast<std::uint64_t>(channel));
  constexpr double unit = 1.0 / 4294967296.0;  // 2^-32
  return static_cast<double>(bits >> 32) * unit - static_cast<double>(bits & 0xFFFFFFFFull) * unit;
}

}  // namespace

void Writer::convert_and_write(const float* interleaved, std::size_t frames, double gain) {
  const std::size_t channels = static_cast<std::size_t>(format_.channels);
  for (std::size_t done = 0; done < frames;) {
    const std::size_t piece = std::min(piece_frames_, frames - done);
    convert_and_write_piece(interleaved + done * channels, piece, gain);
    done += piece;
  }
}

void Writer::convert_and_write_piece(const float* interleaved, std::size_t frames, double gain) {
  sf_count_t written = 0;
  const std::size_t samples = frames * format_.channels;
  const bool finite = all_finite(interleaved, samples);
  errno = 0;  // what the write sets, not what an earlier call left (an lseek on a pipe: ESPIPE)
  if (!scale_.clips && !scale_.integer && gain == 1.0 && finite) {
    written = sf_writef_float(file_.get(), interleaved, static_cast<sf_count_t>(frames));
  } else {
    if (converted_.empty()) converted_.resize(piece_frames_ * format_.channels);  // float output, first NaN
    const double scale = scale_.full_scale * gain;
    // float32 carries a sample to 24 bits: a full-scale pcm24 or pcm32 sample lands a few of
    // its steps past the edge by rounding alone (2147483647 / 2^31 is 1.0 in float32, and an FFT
    // engine's rounding moved full-scale samples up to 5 steps past it in a QA pass, pcm24
    // samples up to 8 LSB at 65535 taps). Held at the edge as any overshoot, but not counted as
    // clipped within 16 float32 steps of full scale itself, 2^-19 of it (-114 dB), on either
    // side: a unity copy of a full-scale file had said "clipped 474 samples; lower --gain" on
    // cpu-fft, with 2 steps allowed, and from the largest positive integer, one LSB nearer
    // than the negative edge. pcm16 and pcm8 count as before: their steps are far coarser than
    // float32's. The normalised codecs (u-law, A-law, Vorbis, Opus, MP3) get the same slack.
    const bool fine_steps = !scale_.integer || scale_.full_scale >= 8388608.0;
    const double rounding_slack = fine_steps ? scale_.full_scale * 0x1p-19 : 0.0;
    const double top = fine_steps ? scale_.full_scale : scale_.highest;
    std::uint64_t clipped = 0, held = 0;
    for (std::size_t i = 0; i < samples; ++i) {
      double value = static_cast<double>(interleaved[i]) * scale;
      if (!std::isfinite(value)) {  // NaN or Inf is never written: 0, or Inf clipped to full scale
        ++nonfinite_samples_;
        if (std::isnan(value) || !scale_.clips) {
          converted_[i] = 0;
          if (scale_.clips) ++clipped;  // where output clips, a NaN counts as clipped too
          continue;
        }
      }
      // Compare after rounding, as the value will be stored: 32767.4 fits pcm16, 32767.6 does not.
      const double stored = scale_.integer ? std::nearbyint(value) : value;
      if (scale_.clips && stored > scale_.highest) {
        clipped += stored > top + rounding_slack;
        value = scale_.highest;
      } else if (scale_.clips && stored < scale_.lowest) {
        clipped += stored < scale_.lowest - rounding_slack;
        value = scale_.lowest;
      } else if (dither_ && value != 0.0) {
        // Digital silence (exactly 0, as every engine gives for a silent stretch) stays silent:
        // dither there would turn it into noise at -90 dBFS (pcm16) with nothing to decorrelate.
        // The dither may carry a sample that fits one LSB past the end: held there, and counted
        // apart from the clipped (it had gone unsaid; sox says "dither clipped", a QA pass).
        const int channel = static_cast<int>(i % static_cast<std::size_t>(format_.channels));
        const std::uint64_t frame = frames_out_ + i / static_cast<std::size_t>(format_.channels);
        const double dithered = std::nearbyint(value + tpdf_dither(frame, channel));
        held += dithered > scale_.highest || dithered < scale_.lowest;
        value = std::clamp(dithered, scale_.lowest, scale_.highest);
      }
      converted_[i] = value;
    }
    clipped_samples_ += clipped;
    dither_held_samples_ += held;
    if (scale_.integer) {
      // Rounded to whole numbers in output units (to nearest, ties to even, as libsndfile's own
      // conversion did), written as ints at 32-bit full scale (a shift: exact), the path every
      // libsndfile integer codec takes as it is. Unnormalised doubles, which halo wrote before,
      // came out wrong from libsndfile 1.2.0 for PAF 24-bit and SDS 8 and 24-bit (errors of 0.75
      // to 1.75 of full scale, a QA pass found).
      const long long to_int32 = static_cast<long long>(2147483648.0 / scale_.full_scale);  // a power of two
      for (std::size_t i = 0; i < samples; ++i)
        converted_int_[i] = static_cast<int>(std::llrint(converted_[i]) * to_int32);
      if (verify_)
        for (std::size_t i = 0; i < samples; ++i) written_hash_ = mix(written_hash_ ^ static_cast<std::uint32_t>(converted_int_[i]));
      written = sf_writef_int(file_.get(), converted_int_.data(), static_cast<sf_count_t>(frames));
    } else {
      written = sf_writef_double(file_.get(), converted_.data(), static_cast<sf_count_t>(frames));
    }
  }
  frames_out_ += frames;
  if (written != static_cast<sf_count_t>(frames) || (sink_ && sink_->error() != 0)) {
    const int error = sink_ && sink_->error() != 0 ? sink_->error() : errno;
    // Not sf_strerror for a code outside libsndfile's table: it prints "Not a valid error number
    // (-1)." to standard output (its Ogg writer on a full disk), into what a pipe there carries,
    // and its words for one it does not know ("No error defined ... a bug in libsndfile", on a
    // FIFO whose reader left) say nothing (a QA pass). The system's words where it said why.
    const int code = sf_error(file_.get());
    std::string reason = error_words(file_.get());
    if (reader_gone(path_, error, reason)) throw ReaderGone();
    const bool system_said = error == EPIPE || error == ENOSPC || error == EDQUOT || error == EFBIG || error == EIO;
    if ((sink_ && sink_->error() != 0) || system_said || (code <= 0 && error != 0)) reason = std::strerror(error);
    throw Error(output_name(path_) + ": write failed: " + reason);
  }
}

void Writer::copy_strings(const std::vector<std::pair<int, std::string>>& strings) {
  // LAME's ID3 frames (libsndfile's MP3 writer) hold Latin-1 text: UTF-8 written into them read
  // back as "Ã¼" for "ü", one more layer at each pass through halo (a QA pass).
  const bool latin1 = (format_.container & SF_FORMAT_TYPEMASK) == SF_FORMAT_MPEG;
  std::size_t lost = 0;
  // AIFF's copyright and software chunks hold ASCII (its title, artist and comment carry UTF-8).
  const bool aiff = (format_.container & SF_FORMAT_TYPEMASK) == SF_FORMAT_AIFF;
  for (const auto& [kind, text] : strings) {
    const bool ascii = aiff && (kind == SF_STR_COPYRIGHT || kind == SF_STR_SOFTWARE);
    sf_set_string(file_.get(), kind,
                  (latin1 ? latin1_for_id3(text, lost) : ascii ? ascii_for_tags(text, lost) : text).c_str());
  }
  if (lost > 0)
    add_note(output_name(path_) +
            (latin1 ? ": MP3 tags hold Latin-1 text only: " : ": AIFF's copyright and software hold ASCII only: ") +
            std::to_string(lost) + (lost == 1 ? " character" : " characters") + " of IN's tags written as '?'");
}

void Writer::commit(const std::function<bool()>& stop) {
  if (spool_fd_ >= 0) {  // --norm's second pass: read the spool back, scaled to the peak asked for
    double target = options_.norm_peak;
    if (scale_.integer) target = std::min(target, scale_.highest / scale_.full_scale);  // +full scale does not fit
    norm_found_noise_ = spool_peak_ > 0 && spool_peak_ <= norm_noise_floor_;
    const double gain = spool_peak_ > 0 && !norm_found_noise_ ? target / spool_peak_ : 1.0;
    norm_gain_ = gain;
    norm_found_silence_ = !(spool_peak_ > 0);
    if (lseek(spool_fd_, 0, SEEK_SET) != 0)
      throw Error("--norm: rereading its temporary failed: " + std::string(std::strerror(errno)));
    std::vector<float> chunk(max_chunk_frames_ * format_.channels);
    const std::size_t frame_bytes = sizeof(float) * format_.channels;
    std::size_t held = 0;  // bytes in chunk
    for (;;) {
      if (stop && stop()) throw Error("interrupted");
      const ssize_t got = read(spool_fd_, reinterpret_cast<char*>(chunk.data()) + held, chunk.size() * sizeof(float) - held);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw Error("--norm: rereading its temporary failed: " + std::string(std::strerror(errno)));
      held += static_cast<std::size_t>(got);
      if (got > 0 && held < chunk.size() * sizeof(float)) continue;
      if (held >= frame_bytes) convert_and_write(chunk.data(), held / frame_bytes, gain);
      if (got == 0) break;
      held = 0;
    }
    close(spool_fd_);
    spool_fd_ = -1;
  }
  errno = 0;
  const int status = sf_close(file_.release());
  const int close_errno = errno;
  if (status != 0) {
    discard();
    // Not sf_error_number for a code outside its table (Ogg's close returns -1): it printed "Not
    // a valid error number (-1)." to standard output (error_number_words); the system's words
    // where the close set errno (cleared before it).
    throw Error(output_name(path_) + ": closing failed: " +
                (status <= 0 && close_errno != 0 ? std::string(std::strerror(close_errno)) : error_number_words(status)));
  }
  if (sink_) sink_->leave_at_end();  // (CheckedOutput::leave_at_end: the shell writes on from there)
  if (sink_ && sink_->error() != 0) {  // an encoder's last frames, a header rewritten at close
    discard();
    throw Error(output_name(path_) + ": write failed: " + std::strerror(sink_->error()));
  }
  // A length not known at the start (IN on a pipe) that passed the header's sizes.
  if (const std::uint64_t limit = container_byte_limit(format_.container);
      sink_ && limit > 0 && static_cast<std::uint64_t>(sink_->bytes_written()) > limit + (std::uint64_t{1} << 16)) {
    discard();
    throw Error(output_name(path_) + ": " + too_long_for(format_.container, static_cast<std::uint64_t>(sink_->bytes_written())) +
                "; " + failed_output_note());
  }
  // A file opened in place (`1<> old.raw`) keeps what it held past halo's bytes: said, since a
  // reader that goes by the file's size (raw, IRCAM, AVR) takes them for more samples (an AVR
  // had counted them, a QA pass).
  if (const sf_count_t left = sink_ ? sink_->bytes_after_end() : 0; left > 0)
    add_note(output_name(path_) + ": " + std::to_string(left) +
             " bytes the file held before remain after halo's output (opened in place, as 1<> opens it, it was not "
             "truncated): a reader of raw, IRCAM or AVR takes them for samples");
  if (wav_as_rf64_ && std::memcmp(sink_->magic(), "RF64", 4) == 0) {
    format_.container = SF_FORMAT_RF64;
    add_note(output_name(path_) + ": more than 4 GiB, beyond what a WAV header can count: written as RF64 (the 64-bit WAV "
             "that sox, ffmpeg and libsndfile read)");
  } else if (wav_as_rf64_) {
    // Turned back into a WAV at close, libsndfile keeps RF64's fmt chunk, WAVE_FORMAT_EXTENSIBLE:
    // the summary had called it WAV.
    format_.container = SF_FORMAT_WAVEX;
  }
  // Read back where OUT can be: a file halo names into place, or a file written through
  // (`- > out.caf`, whose bytes are out by now: the run then fails, saying so).
  struct stat written {};
  const bool readable_back = fstat(descriptor_, &written) == 0 && S_ISREG(written.st_mode);
  if (verify_ && readable_back) verify_written();
  if (output_) output_->commit();  // on failure the destructor discards
  committed_ = true;
  note_padding();
}

// OUT read back by libsndfile's own decoder, every sample compared (by hash) with what its
// encoder was given, before it goes into place. libsndfile 1.2's ALAC encoder had written a
// stereo file on a 20-bit grid 1.4 of full scale off ("compressed frame too big", on standard
// output), and PAF at 24 bits 3, 5 and 6 channels wrong and files of up to 10 frames that read
// back empty, each with exit 0 (a QA pass); the ALAC faults depend on the samples, so no probe
// finds them first.
void Writer::verify_written() {
  char name[64];
  std::snprintf(name, sizeof name, "/proc/self/fd/%d", descriptor_);
  // A descriptor of its own for reading (OUT's is write-only), closed on every path, after
  // libsndfile's handle on it (declared after it) is closed.
  struct ReadDescriptor {
    int fd;
    ~ReadDescriptor() {
      if (fd >= 0) close(fd);
    }
  } const reading{open(name, O_RDONLY | O_CLOEXEC)};  // the file halo wrote, unnamed or not
  if (reading.fd < 0) {
    const std::string reason = std::strerror(errno);
    discard();
    throw Error(output_name(path_) + ": cannot read it back to check what libsndfile wrote: " + reason);
  }
  // From where OUT's bytes begin (past what a file written through held before them).
  const off_t start = sink_ ? static_cast<off_t>(sink_->start()) : 0;
  std::optional<CheckedOutput> from_start;
  int seek_error = 0;
  if (lseek(reading.fd, start, SEEK_SET) == start) from_start.emplace(reading.fd);
  else seek_error = errno;
  SF_INFO info{};
  SndfileHandle back(from_start ? from_start->open(info, SFM_READ) : nullptr);
  std::uint64_t hash = 0, frames = 0;
  if (back) {
    std::vector<int> block(4096 * static_cast<std::size_t>(format_.channels));
    while (frames < frames_out_) {
      const sf_count_t wanted = static_cast<sf_count_t>(std::min<std::uint64_t>(4096, frames_out_ - frames));
      const sf_count_t got = sf_readf_int(back.get(), block.data(), wanted);
      if (got <= 0) break;
      for (std::size_t i = 0; i < static_cast<std::size_t>(got) * format_.channels; ++i)
        hash = mix(hash ^ static_cast<std::uint32_t>(block[i]));
      frames += static_cast<std::uint64_t>(got);
    }
  }
  if (frames == frames_out_ && hash == written_hash_) return;
  // A read that failed (EIO) or a descriptor that would not seek is no encoder's fault.
  if (!from_start || from_start->error() != 0) {
    const std::string reason = std::strerror(from_start ? from_start->error() : seek_error);
    discard();
    throw Error(output_name(path_) + ": cannot read it back to check what libsndfile wrote: " + reason);
  }
  discard();
  const std::string layout = container_name(format_.container) + " " + subtype_name(format_.subtype) + " of " +
                             std::to_string(format_.channels) + (format_.channels == 1 ? " channel" : " channels");
  throw Error(output_name(path_) + ": libsndfile's " + layout + " reads back " +
              (frames < frames_out_ ? "as " + std::to_string(frames) + " of its " + std::to_string(frames_out_) + " frames"
                                    : std::string("with other samples than it was given")) +
              " (a fault of this libsndfile's encoder); " +
              (output_ && !output_->direct() ? std::string("nothing was written")
                                             : "what went to " + output_name(path_) + " is wrong") +
              ": choose another --subtype or container");
}

void Writer::add_note(const std::string& line) { note_ += (note_.empty() ? "" : "; ") + line; }

// ADPCM and GSM 6.10 code whole blocks of frames and pad the last with silence, so OUT holds
// more frames than were written: said, not hidden (the summary counts the frames filtered). So
// does PAF at 24 bits, in blocks of 10 frames (found by the layout probe, format_probe.hpp).
void Writer::note_padding() {
  const int subtype = format_.subtype & SF_FORMAT_SUBMASK;
  const bool paf24 = is_paf24(format_.container | format_.subtype);
  const bool block_codec = subtype == SF_FORMAT_IMA_ADPCM || subtype == SF_FORMAT_MS_ADPCM ||
                           subtype == SF_FORMAT_GSM610 || subtype == SF_FORMAT_VOX_ADPCM || paf24;
  // Not what OUT cannot be read back as it was written: a FIFO (its open would wait for a writer
  // that never comes) or a file appended to (its reading would count what it held before: a review).
  if (!block_codec || path_ == "-" || !output_ || output_->direct()) return;
  SF_INFO info{};
  if ((format_.container & SF_FORMAT_TYPEMASK) == SF_FORMAT_RAW) {  // a raw file says nothing of itself
    info.samplerate = format_.rate_hz;
    info.channels = format_.channels;
    info.format = format_.container | format_.subtype;
  }
  SndfileHandle written(sf_open(path_.c_str(), SFM_READ, &info));
  if (!written) return;  // GSM reads as not seekable
  // The length halo itself reads back (halo info, filter), as the reader takes it: a WAV's fact
  // chunk counts a GSM file of whole blocks exactly, where libsndfile's count adds a block (the
  // note had said 24320 frames of a file info called 24000, a QA pass).
  const HeaderLength length = header_length(written.get(), info, path_);
  const sf_count_t holds = length.present >= 0 ? static_cast<sf_count_t>(length.present) : info.frames;
  if (holds <= static_cast<sf_count_t>(frames_out_)) return;
  add_note(path_ + ": " + (paf24 ? std::string("PAF pcm24") : subtype_name(subtype)) + " codes whole blocks: it holds " +
           std::to_string(holds) + " frames, the last " + std::to_string(holds - static_cast<sf_count_t>(frames_out_)) +
           " of them the codec's padding");
}

}  // namespace halo::audio
