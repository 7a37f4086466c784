// Mask files: text columns, raw little-endian float32, and impulse responses in any sound
// format libsndfile handles. Reading names the file (and line) of every problem; writing goes
// through an AtomicFile so a failure never leaves a half-written mask.
#include "audio/mask_file.hpp"

#include <fcntl.h>
#include <sndfile.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "audio/atomic_file.hpp"
#include "audio/c_header_reader.hpp"
#include "audio/checked_output.hpp"
#include "audio/error.hpp"
#include "audio/float_frames.hpp"
#include "audio/format.hpp"
#include "audio/header_length.hpp"
#include "audio/mask_json_header.hpp"
#include "audio/reader.hpp"
#include "audio/sndfile_log.hpp"
#include "audio/sndfile_handle.hpp"
#include "audio/standard_streams.hpp"
#include "audio/stated_rate.hpp"

namespace halo::audio {

using filters::Mask;
using filters::MaskSet;

namespace {

// ---------------------------------------------------------------- formats by extension

enum class FileKind { text, raw_f32, sound, json, header };

// Sound containers halo writes masks into, and the sample format each one holds exactly
// (float). FLAC has no float samples: 24-bit PCM is its closest, exact to 2^-23 within [-1, 1].
struct SoundContainer {
  const char* extension;
  int format;
};
constexpr SoundContainer writable_sound[] = {
    {"wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT},     {"wave", SF_FORMAT_WAV | SF_FORMAT_FLOAT},
    {"bwf", SF_FORMAT_WAV | SF_FORMAT_FLOAT},     {"w64", SF_FORMAT_W64 | SF_FORMAT_FLOAT},
    {"rf64", SF_FORMAT_RF64 | SF_FORMAT_FLOAT},   {"aif", SF_FORMAT_AIFF | SF_FORMAT_FLOAT},
    {"aiff", SF_FORMAT_AIFF | SF_FORMAT_FLOAT},   {"aifc", SF_FORMAT_AIFF | SF_FORMAT_FLOAT},
    {"au", SF_FORMAT_AU | SF_FORMAT_FLOAT},       {"snd", SF_FORMAT_AU | SF_FORMAT_FLOAT},
    {"caf", SF_FORMAT_CAF | SF_FORMAT_FLOAT},     {"mat", SF_FORMAT_MAT5 | SF_FORMAT_FLOAT},
    {"ircam", SF_FORMAT_IRCAM | SF_FORMAT_FLOAT}, {"sf", SF_FORMAT_IRCAM | SF_FORMAT_FLOAT},
    {"flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24},
};

// Sound formats libsndfile reads but halo does not write masks into: lossy codecs and
// containers without float samples.
constexpr const char* read_only_sound[] = {
    "ogg", "oga", "opus", "mp3", "mp2", "mpeg", "voc", "paf", "pvf", "xi",
    "htk", "sds", "avr", "wve", "mpc2k", "nist", "sph", "mat4", "mat5",
};

// FLAC is not among the exact ones: it holds 24-bit integers (taps rounded to 2^-23, none past 1).
constexpr const char* cannot_hold_a_mask =
    " cannot hold a mask exactly; write .wav, .aiff, .caf, .w64, .txt or .f32 (float32), or .flac (24-bit)";

const SoundContainer* writable_container(const std::string& extension) {
  for (const SoundContainer& container : writable_sound) {
    if (extension == container.extension) return &container;
  }
  return nullptr;
}

bool is_read_only_sound(const std::string& extension) {
  return std::find(std::begin(read_only_sound), std::end(read_only_sound), extension) !=
         std::end(read_only_sound);
}

FileKind kind_of_extension(const std::string& extension) {
  if (extension == "f32") return FileKind::raw_f32;
  if (extension == "json") return FileKind::json;
  if (extension == "h" || extension == "hpp") return FileKind::header;
  if (writable_container(extension) || is_read_only_sound(extension)) return FileKind::sound;
  return FileKind::text;
}

FileKind kind_of(const std::string& path) { return kind_of_extension(lower_extension(path)); }

std::string system_error(const std::string& path) { return path + ": " + std::strerror(errno); }

// ---------------------------------------------------------------- reading

// Opens for reading with the system's reason on failure (missing, permission, a directory),
// so that messages read "ir.wav: No such file or directory" whatever the format.
int open_for_reading(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(system_error(path));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    if (S_ISDIR(info.st_mode)) errno = EISDIR;
    const Error error(system_error(path));
    ::close(fd);
    throw error;
  }
  return fd;
}

// How large a mask may be, checked while reading so that `--mask /dev/zero` or an endless
// FIFO is refused early: 2^24 taps (the engines' limit), so 64 MiB as .f32 and 256 MiB of
// text (16 bytes a tap).
using filters::max_mask_taps;
constexpr std::size_t max_text_bytes = std::size_t{256} << 20;

std::string too_large(const std::string& path, std::size_t limit_bytes) {
  return path + ": larger than " + std::to_string(limit_bytes >> 20) + " MiB; a mask holds at most " +
         std::to_string(max_mask_taps) + " taps";
}

// A text file may hold 2^24 taps in more than 256 MiB (numpy's savetxt writes 25 bytes a tap):
// its size is what is refused, not its count (which too_large's words had seemed to blame, a QA
// pass).
std::string text_too_large(const std::string& path) {
  return path + ": larger than " + std::to_string(max_text_bytes >> 20) + " MiB, the most halo reads of a text mask " +
         "(16 bytes a tap for its 2^24 taps); write it with fewer digits, or as .f32";
}

// A text mask with a NUL byte is a binary file read as text: say so instead of quoting it. A
// .txt is text whatever it holds, so a sound file named .txt is not called one libsndfile
// cannot read (it had been, a QA pass).
std::string binary_as_text(const std::string& path) {
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".txt") == 0)
    return path + ": a binary file named .txt, which halo reads as a text mask: name it for what it holds (.wav, .f32, ...)";
  // A raw mask is told only by its name: one on standard input cannot be (a QA pass: the hint
  // had sent float64 and int32 files to a rename, which read them as garbage).
  return path + ": a binary file, not a text mask nor a sound file libsndfile reads (" +
         (path == input_name("-") ? std::string("a raw mask, little-endian float32, is read from a file named .f32")
                                  : std::string("a raw mask must be little-endian float32, named .f32")) +
         ")";
}

// Whether `bytes` open as a sound file (its header): a whole file's, or with `more_follow` the
// first block of a longer one; mask_file.cpp below.
bool opens_as_sound(const std::string& bytes, bool more_follow = false);

// What read_bytes takes a file for: text (refused at its first NUL byte), binary (anything), or
// text unless its first block holds a NUL byte, and then a sound file, whose header that first
// block must hold: binary bytes that are none are refused at once, not read to the limit first
// (`--mask /dev/zero`).
enum class Content { text, binary, text_or_sound };

// The whole of what descriptor fd (which this closes) holds, named `path` in the messages:
// refused once it passes limit_bytes, or as `content` says.
std::string read_descriptor(int fd, const std::string& path, std::size_t limit_bytes, Content content) {
  std::string bytes;
  char block[65536];
  for (;;) {
    const ssize_t got = ::read(fd, block, sizeof block);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const Error error(system_error(path));
      ::close(fd);
      throw error;
    }
    if (got == 0) break;
    bool binary = content != Content::binary && std::memchr(block, '\0', static_cast<std::size_t>(got)) != nullptr;
    if (binary && content == Content::text_or_sound && bytes.empty()) {
      // The first block whole before deciding: a pipe may bring a header in pieces (a review).
      std::string first(block, static_cast<std::size_t>(got));
      for (;;) {
        if (first.size() == sizeof block) break;
        const ssize_t more = ::read(fd, block, sizeof block - first.size());
        if (more < 0 && errno == EINTR) continue;
        if (more <= 0) break;
        first.append(block, static_cast<std::size_t>(more));
      }
      // A block full, more may follow: libsndfile is told the file is longer, or a CAF whose
      // data chunk runs past it is refused (an IR of 8192 stereo frames on standard input had
      // been "a binary file", a QA pass).
      if (opens_as_sound(first, first.size() == sizeof block)) {
        content = Content::binary;
        bytes = std::move(first);
        continue;
      }
    }
    if (binary || bytes.size() + static_cast<std::size_t>(got) > limit_bytes) {
      ::close(fd);
      throw Error(binary                       ? binary_as_text(path)
                  : content == Content::binary ? too_large(path, limit_bytes)
                                               : text_too_large(path));
    }
    bytes.append(block, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return bytes;
}

std::string read_bytes(const std::string& path, std::size_t limit_bytes, Content content) {
  return read_descriptor(open_for_reading(path), path, limit_bytes, content);
}

// `--mask -`: standard input, a text mask or a sound file (its content says which; no name
// says .f32 or JSON). It can be read only once, so its bytes are kept: a second mask of the
// same set, or live's reload on SIGHUP, reads what the first read did. A terminal is refused
// rather than waited on.
const std::string& standard_input_bytes() {
  static const std::string bytes = [] {
    const std::string name = input_name("-");
    // (As an IN of -: it had read the stand-in's nothing, "no coefficients", a QA pass.)
    if (closed_at_start(STDIN_FILENO)) throw Error(name + ": closed when halo started (<&-); pipe it in, or name the file");
    if (::isatty(STDIN_FILENO) == 1)
      throw Error(name + " is a terminal: pipe the mask in (halo design ... | halo filter IN OUT --mask -)");
    const int fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) throw Error(system_error(name));
    return read_descriptor(fd, name, max_text_bytes, Content::text_or_sound);
  }();
  return bytes;
}


// The sample rate a "# rate" line says: "# rate 44100 Hz" (as write_mask writes it), or as a
// hand may write it, "# rate 44100", "# rate 44.1 kHz", "# rate 44.1k", "# Rate: 44100" (each had been taken for
// no rate, without a word, and the mask used at any rate, --mask-rate refuse or not: QA passes).
// 0 for a line that says none ("# rate of decay" is prose: no figure follows the word). A
// figure that is no rate ("# rate 0", "# rate -44100", "# rate 44100 Hz stereo") is refused,
// naming the line (`where`).
double rate_comment(const std::string& line, const std::string& where) {
  const std::size_t hash = line.find('#');
  if (hash == std::string::npos) return 0;
  const char* text = line.c_str() + hash + 1;
  while (*text == ' ' || *text == '\t') ++text;
  // In any case, and with a colon or an equals sign ("# rate: 44100", np.savetxt's
  // header='rate: 44100', "# Rate=44100" had been prose, the rate check gone without a word:
  // a QA pass).
  if (strncasecmp(text, "rate", 4) != 0 || std::strchr(" \t:=", text[4]) == nullptr || text[4] == '\0') return 0;
  const char* figure = text + 4;
  while (*figure == ' ' || *figure == '\t') ++figure;
  if (*figure == ':' || *figure == '=') ++figure;
  while (*figure == ' ' || *figure == '\t') ++figure;
  // A figure: a digit, after a sign or a point or both ("# rate - see below" is prose).
  const char* digit = figure + (*figure == '+' || *figure == '-');
  digit += *digit == '.';
  if (!std::isdigit(static_cast<unsigned char>(*digit))) return 0;
  char* end = nullptr;
  double rate = std::strtod(figure, &end);
  const std::string digits(figure, static_cast<std::size_t>(end - figure));
  const auto unit = [&end](const char* word) {
    const std::size_t size = std::strlen(word);
    if (strncasecmp(end, word, size) != 0) return false;
    end += size;
    return true;
  };
  while (*end == ' ' || *end == '\t') ++end;
  // kHz as the decimal it is: "8.005 kHz" read as 8.005 times 1000 had been 8004.999999999999 Hz.
  if (unit("khz") || unit("k")) rate = std::strtod((digits + "e3").c_str(), nullptr);
  else unit("hz");
  while (*end == ' ' || *end == '\t' || *end == '\r') ++end;
  std::string said = text;
  while (!said.empty() && (said.back() == '\r' || said.back() == ' ' || said.back() == '\t')) said.pop_back();
  if (*end != '\0' || !std::isfinite(rate) || rate <= 0)
    throw Error(where + "\"# " + excerpt(said, 60) + "\" says no sample rate: write it as # rate 44100 Hz (or 44.1 kHz)");
  // What --rate takes, up to 10 MHz: "# rate 1e9" had been a mask's rate, exported (a QA pass).
  if (rate > max_rate_hz)
    throw Error(where + "\"# " + excerpt(said, 60) + "\" is past 10 MHz, the highest rate halo takes");
  return rate;
}

// The alignment an "# align" line says: "# align causal" (as write_mask writes it for a mask
// that starts at its first tap) or "# align same" (centred, filter's default for text, said).
// Other single words are refused, naming the line ("# align weird" had been a comment, a QA
// pass); a line of more words is prose. In any case, and with `:` or `=`, as rate lines are
// read (`# Align: causal` had been prose, the mask read back centred: a QA pass).
enum class AlignComment { none, causal, centred };
AlignComment align_comment(const std::string& line, const std::string& where) {
  const std::size_t hash = line.find('#');
  if (hash == std::string::npos) return AlignComment::none;
  std::string text = line.substr(hash + 1);
  std::replace_if(text.begin(), text.end(), [](char c) { return c == ':' || c == '='; }, ' ');
  std::istringstream words(text);
  std::string key, value, rest;
  if (!(words >> key >> value) || lower(key) != "align" || words >> rest) return AlignComment::none;
  const std::string word = lower(value);
  if (word == "causal") return AlignComment::causal;
  if (word == "same" || word == "centred" || word == "centered") return AlignComment::centred;
  throw Error(where + "\"# align " + excerpt(value, 40) + "\" is no alignment: a mask says # align causal or # align same");
}

std::string line_prefix(const std::string& path, int line) {
  return path + ":" + std::to_string(line) + ": ";
}

std::string rate_text(double rate_hz) {
  char text[48];
  std::snprintf(text, sizeof text, "%.10g Hz", rate_hz);
  return text;
}

double parse_coefficient(const std::string& token, const std::string& where) {
  const char* begin = token.data();
  const char* end = token.data() + token.size();
  if (begin != end && *begin == '+') ++begin;  // from_chars takes no '+'; people write it
  double value = 0;
  const auto parsed = std::from_chars(begin, end, value);
  if (parsed.ptr != end || parsed.ec == std::errc::invalid_argument || begin == end) {
    throw Error(where + "\"" + excerpt(token) + "\" is not a number");
  }
  if (parsed.ec == std::errc::result_out_of_range) {
    // Too small for a double is 0 to a float as well, as JSON and C headers read it (1e-50,
    // which a double holds, was already 0 here; 1e-400 had been refused, a review). strtod,
    // which halo's "C" locale leaves plain, tells underflow (0) from overflow (HUGE_VAL).
    if (std::strtod(token.c_str(), nullptr) == 0) return 0;
    throw Error(where + "\"" + excerpt(token) + "\" is out of range for a coefficient");
  }
  if (!std::isfinite(value)) throw Error(where + "NaN or Inf coefficient");
  if (std::fabs(value) > FLT_MAX) throw Error(where + "\"" + excerpt(token) + "\" does not fit in a float");
  // The float nearest the decimal, read as a float: rounded to a double first and then to a
  // float, a decimal just past halfway between two floats had come out as the lower one (a
  // double rounding). Below float's range, the double's own rounding to float.
  float nearest = 0;
  const auto as_float = std::from_chars(begin, end, nearest);
  return as_float.ec == std::errc() && as_float.ptr == end ? static_cast<double>(nearest) : value;
}

// How a line's numbers were written, for parse_text's check of decimal commas.
struct LineShape {
  bool comma = false;     // a comma separated two of them
  bool fraction = false;  // one of them had a point or an exponent
};

// The numbers of one line, comment removed: separated by whitespace and/or single commas.
std::vector<double> parse_text_line(std::string line, const std::string& where, LineShape& shape) {
  line = line.substr(0, line.find('#'));
  std::vector<double> values;
  bool comma_pending = false;  // a comma seen and no number after it yet
  std::size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == ',') {
      if (values.empty() || comma_pending) throw Error(where + "empty column before ','");
      comma_pending = true;
      shape.comma = true;
      ++i;
    } else {
      const std::size_t start = i;
      while (i < line.size() && line[i] != ',' && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      const std::string token = line.substr(start, i - start);
      values.push_back(parse_coefficient(token, where));
      shape.fraction = shape.fraction || token.find_first_of(".eE") != std::string::npos;
      comma_pending = false;
    }
  }
  if (comma_pending) throw Error(where + "empty column after ','");
  return values;
}

namespace {

// Other tools' text that is no list of taps, named with what to give halo instead, at its first
// line: each had been '"Preamp:" is not a number' or '"*" is not a number' (a QA pass).
void refuse_other_tools_text(const std::string& line, const std::string& where) {
  const std::size_t first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return;
  const std::string start = line.substr(first);
  for (const char* directive : {"Preamp:", "Filter:", "Filter ", "Convolution:", "Include:", "Device:", "Channel:"})
    if (start.rfind(directive, 0) == 0)
      throw Error(where + "an Equalizer APO configuration, not coefficients: give --mask the WAV file its Convolution: "
                          "line names");
  if (start[0] == '*')
    throw Error(where + "REW's text export ('*' lines), not a list of taps: export the impulse response from REW as a "
                        "WAV file, which halo reads");
}

}  // namespace

MaskSet parse_text(const std::string& path, const std::string& text) {
  if (text.find('\0') != std::string::npos) throw Error(binary_as_text(path));
  if (text.size() > max_text_bytes) throw Error(text_too_large(path));
  double rate_hz = 0;  // from a "# rate R Hz" line, as write_mask writes it
  int rate_line = 0;    // the line that said it
  AlignComment alignment = AlignComment::none;  // from a "# align causal" (or "same") line
  int align_line = 0;
  LineShape shape;  // of every line together
  std::vector<std::vector<float>> columns;
  int first_data_line = 0;
  int line_number = 0;
  // A UTF-8 byte-order mark, as Notepad saves text, is no part of the first number (it had been
  // "\xEF\xBB\xBF0.25 is not a number", a QA pass).
  std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  while (start < text.size()) {
    // Lines end in \n, \r\n or a lone \r (classic Mac OS: its lines had been read as one row of
    // columns, a gain per channel, a QA pass).
    std::size_t end = text.find_first_of("\r\n", start);
    if (end == std::string::npos) end = text.size();
    ++line_number;
    const std::string where = line_prefix(path, line_number);
    const std::string line = text.substr(start, end - start);
    // Two lines that disagree are refused: which one meant it is not for halo to guess (the last
    // rate and the first "causal" had won, silently: a QA pass).
    if (const double rate = rate_comment(line, where); rate > 0) {
      if (rate_line > 0 && rate != rate_hz)
        throw Error(where + "# rate " + rate_text(rate) + ", but line " + std::to_string(rate_line) + " says " +
                    rate_text(rate_hz));
      rate_hz = rate;
      rate_line = line_number;
    }
    if (const AlignComment said = align_comment(line, where); said != AlignComment::none) {
      if (align_line > 0 && said != alignment)
        throw Error(where + "# align " + (said == AlignComment::causal ? "causal" : "same") + ", but line " +
                    std::to_string(align_line) + " says " + (alignment == AlignComment::causal ? "causal" : "same"));
      alignment = said;
      align_line = line_number;
    }
    if (columns.empty()) refuse_other_tools_text(line, where);
    const std::vector<double> values = parse_text_line(line, where, shape);
    start = end + (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n' ? 2 : 1);
    if (values.empty()) continue;
    if (columns.empty()) {
      columns.resize(values.size());
      first_data_line = line_number;
    } else if (values.size() != columns.size()) {
      const auto count = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " column" : " columns"); };
      throw Error(where + count(values.size()) + ", but line " + std::to_string(first_data_line) + " has " +
                  std::to_string(columns.size()));
    }
    for (std::size_t c = 0; c < values.size(); ++c) columns[c].push_back(static_cast<float>(values[c]));
    // As every other reader: design had written a mask past the limit that halo then refused
    // to read, and filter had refused it without naming the file (a QA pass).
    if (columns.front().size() > max_mask_taps)
      throw Error(path + ": more than " + std::to_string(max_mask_taps) + " taps, the most a mask holds");
  }
  if (columns.empty()) throw Error(path + ": no coefficients");
  // Columns of whole numbers split by commas, and no point anywhere: decimal commas, as a
  // European locale writes 0,25. Read as columns, "0,25" had been a mask of 0 for the left
  // channel and of 25 for the right (+32 dBFS), without a word (a QA pass).
  if (columns.size() > 1 && shape.comma && !shape.fraction)
    throw Error(path + ":" + std::to_string(first_data_line) + ": commas split whole numbers into " +
                std::to_string(columns.size()) + " columns: decimal commas? write 0.25 with a point (columns of whole "
                "numbers: separate them with spaces)");

  MaskSet masks(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    masks[c].taps = std::move(columns[c]);
    masks[c].rate_hz = rate_hz;
    masks[c].causal = alignment == AlignComment::causal;
    masks[c].alignment_stated = alignment != AlignComment::none;
    masks[c].provenance = "file " + path;
    if (columns.size() > 1) masks[c].provenance += " column " + std::to_string(c + 1);
  }
  return masks;
}

MaskSet parse_raw_f32(const std::string& path, const std::string& bytes) {
  if (bytes.empty()) throw Error(path + ": no coefficients");
  if (bytes.size() > 4 * max_mask_taps) throw Error(too_large(path, 4 * max_mask_taps));
  if (bytes.size() % 4 != 0) {
    throw Error(path + ": size " + std::to_string(bytes.size()) + " is not a multiple of 4 bytes");
  }
  Mask mask;
  mask.provenance = "file " + path;
  mask.taps.resize(bytes.size() / 4);
  for (std::size_t i = 0; i < mask.taps.size(); ++i) {
    // Little-endian by definition of the format, whatever this machine is.
    std::uint32_t word = 0;
    for (int b = 3; b >= 0; --b) word = (word << 8) | static_cast<unsigned char>(bytes[4 * i + b]);
    float value;
    std::memcpy(&value, &word, sizeof value);
    if (!std::isfinite(value)) {
      throw Error(path + ": NaN or Inf coefficient at index " + std::to_string(i));
    }
    mask.taps[i] = value;
  }
  return {mask};
}

// The comment string a sound mask that starts at its first tap carries (Mask::causal).
constexpr const char* causal_sound_comment = "halo mask: align causal";
constexpr const char* centred_sound_comment = "halo mask: align same";

// The masks of an open sound file, one per channel: read_sound opens a path, parse_sound bytes
// (`on_disk`: whether `path` names the file itself, where its header may be read again).
MaskSet decode_sound(const std::string& path, SNDFILE* file, const SF_INFO& info, bool on_disk) {
  if (info.channels < 1) throw Error(path + ": no channels");
  const char* comment = sf_get_string(file, SF_STR_COMMENT);
  const bool causal = comment != nullptr && std::strcmp(comment, causal_sound_comment) == 0;
  const bool stated = causal || (comment != nullptr && std::strcmp(comment, centred_sound_comment) == 0);

  // Read to the end rather than trusting info.frames: some codecs only estimate it. (A cut SDS
  // is the other way round: libsndfile counts frames past its end; length.present stops there.)
  // A mask is whole in memory or on disk (a GSM 6.10 file is "unseekable" to libsndfile only
  // because its codec cannot seek).
  const bool whole = on_disk || info.seekable;
  const HeaderLength length = whole ? header_length(file, info, on_disk ? path : std::string()) : HeaderLength{};
  const sf_count_t block_frames = 4096;
  std::vector<float> block(static_cast<std::size_t>(block_frames) * info.channels);
  std::vector<float> interleaved;
  std::vector<int> ints;  // read_float_frames's
  for (;;) {
    sf_count_t wanted = block_frames;
    if (length.present >= 0)
      wanted = std::min<sf_count_t>(wanted, length.present - static_cast<sf_count_t>(interleaved.size() / info.channels));
    if (wanted <= 0) break;
    const sf_count_t frames = read_float_frames(file, info.format, info.channels, block.data(), wanted, ints);
    if (frames <= 0) break;
    if (interleaved.size() / info.channels + static_cast<std::size_t>(frames) > max_mask_taps)
      throw Error(path + ": longer than " + std::to_string(max_mask_taps) + " frames, the most a mask holds");
    interleaved.insert(interleaved.end(), block.begin(), block.begin() + frames * info.channels);
  }
  if (sf_error(file) != SF_ERR_NO_ERROR) throw Error(path + ": " + sf_strerror(file));
  if (interleaved.empty()) throw Error(path + ": no coefficients");

  const std::size_t channels = static_cast<std::size_t>(info.channels);
  const std::size_t frames = interleaved.size() / channels;
  // A file cut short would filter with a response cut short (a reverb's tail gone): refused as
  // a truncated IN is, naming both counts.
  if (const std::int64_t declared = length.declared; whole && declared > static_cast<std::int64_t>(frames))
    throw Error(path + ": truncated: its header declares " + std::to_string(declared) + " frames but only " +
                std::to_string(frames) + " could be read (a mask or impulse response must be whole)");
  MaskSet masks(channels);
  for (std::size_t c = 0; c < channels; ++c) {
    masks[c].rate_hz = states_its_rate(file, info) ? info.samplerate : 0;  // 0: unknown, as a text mask's
    masks[c].causal = causal;
    masks[c].alignment_stated = stated;
    masks[c].provenance = "file " + path;
    if (channels > 1) masks[c].provenance += " ch " + std::to_string(c + 1);
    masks[c].taps.resize(frames);
    for (std::size_t f = 0; f < frames; ++f) {
      const float value = interleaved[f * channels + c];
      if (!std::isfinite(value)) {
        throw Error(path + ": NaN or Inf coefficient in channel " + std::to_string(c + 1) +
                    " at frame " + std::to_string(f) + " (counted from 0)");  // channels from 1, as everywhere
      }
      masks[c].taps[f] = value;
    }
  }
  return masks;
}

MaskSet read_sound(const std::string& path) {
  // open(2) first: a missing or unreadable file gets the system's words, not libsndfile's
  // "System error : ..." wrapping.
  ::close(open_for_reading(path));
  SF_INFO info{};
  SndfileHandle file(sf_open(path.c_str(), SFM_READ, &info));
  if (!file) throw Error(path + ": not a sound file libsndfile can read (" + sf_strerror(nullptr) + ")");
  return decode_sound(path, file.get(), info, true);
}

// Bytes in memory as a read-only libsndfile virtual file: all of one, or (`length` past them)
// the first bytes of a longer one, whose rest reads as its end.
struct MemoryFile {
  const std::string& bytes;
  sf_count_t position = 0;  // the next byte read
  sf_count_t length = static_cast<sf_count_t>(bytes.size());
};

// libsndfile over bytes in memory (null where they are no sound file it reads); `memory` must
// outlive the handle.
SndfileHandle open_in_memory(MemoryFile& memory, SF_INFO& info) {
  static SF_VIRTUAL_IO io = [] {
    SF_VIRTUAL_IO made{};
    made.get_filelen = [](void* user) { return static_cast<MemoryFile*>(user)->length; };
    made.seek = [](sf_count_t offset, int whence, void* user) {
      auto* file = static_cast<MemoryFile*>(user);
      const sf_count_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? file->position : file->length;
      file->position = std::clamp<sf_count_t>(base + offset, 0, file->length);
      return file->position;
    };
    made.read = [](void* to, sf_count_t count, void* user) {
      auto* file = static_cast<MemoryFile*>(user);
      const sf_count_t left = static_cast<sf_count_t>(file->bytes.size()) - file->position;
      const sf_count_t got = std::clamp<sf_count_t>(count, 0, std::max<sf_count_t>(left, 0));
      std::memcpy(to, file->bytes.data() + file->position, static_cast<std::size_t>(got));
      file->position += got;
      return got;
    };
    made.write = [](const void*, sf_count_t, void*) { return sf_count_t{0}; };
    made.tell = [](void* user) { return static_cast<MemoryFile*>(user)->position; };
    return made;
  }();
  return SndfileHandle(sf_open_virtual(&io, SFM_READ, &info, &memory));
}

bool opens_as_sound(const std::string& bytes, bool more_follow) {
  MemoryFile memory{bytes};
  if (more_follow) memory.length = static_cast<sf_count_t>(max_text_bytes);
  SF_INFO info{};
  return static_cast<bool>(open_in_memory(memory, info));
}

MaskSet parse_sound(const std::string& path, const std::string& bytes) {
  MemoryFile memory{bytes};
  SF_INFO info{};
  SndfileHandle file = open_in_memory(memory, info);
  if (!file) throw Error(path + ": not a sound file libsndfile can read (" + sf_strerror(nullptr) + ")");
  return decode_sound(path, file.get(), info, false);
}

// ---------------------------------------------------------------- writing

void check_writable_set(const std::string& path, const MaskSet& masks) {
  if (masks.empty()) throw Error(path + ": no mask to write");
  for (std::size_t m = 0; m < masks.size(); ++m) {
    if (masks[m].taps.empty()) throw Error(path + ": mask " + std::to_string(m + 1) + " has no taps");
    if (masks[m].taps.size() != masks[0].taps.size()) {
      throw Error(path + ": masks of different lengths (" + std::to_string(masks[0].taps.size()) +
                  " and " + std::to_string(masks[m].taps.size()) + ") cannot share one file");
    }
    for (float tap : masks[m].taps) {
      if (!std::isfinite(tap)) throw Error(path + ": NaN or Inf coefficient in mask " + std::to_string(m + 1));
    }
  }
}

// One line, safe for a '#' comment.
std::string comment_text(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

std::string raw_f32_contents(const std::string& path, const MaskSet& masks) {
  if (masks.size() != 1) {
    throw Error(path + ": raw float32 holds one mask, " + std::to_string(masks.size()) +
                " given (use a text or sound file for per-channel masks)");
  }
  std::string out;
  out.reserve(masks[0].taps.size() * 4);
  for (float tap : masks[0].taps) {
    std::uint32_t word;
    std::memcpy(&word, &tap, sizeof word);
    for (int b = 0; b < 4; ++b) out += static_cast<char>((word >> (8 * b)) & 0xff);
  }
  return out;
}

int sound_rate(const std::string& path, const MaskSet& masks) {
  double rate = 0;
  for (const Mask& mask : masks) {
    if (mask.rate_hz <= 0) continue;
    if (rate > 0 && mask.rate_hz != rate) {
      throw Error(path + ": masks for different rates cannot share one sound file");
    }
    rate = mask.rate_hz;
  }
  // A sound file's header holds whole Hz: 44100.5 had been written as 44101 under a summary
  // that said 44100.5, and 0.4 Hz had failed inside libsndfile (a QA pass).
  if (rate > 0 && (rate != std::floor(rate) || rate < 1)) {
    char text[160];
    std::snprintf(text, sizeof text, ": a sound file's header holds a whole number of Hz, not %.10g (.txt, .json and .h "
                  "keep it)", rate);
    throw Error(path + text);
  }
  return rate > 0 ? static_cast<int>(std::lround(rate)) : 48000;  // 48000 when unknown
}

// How a mask set goes into a sound file, settled before any file is created.
struct SoundPlan {
  SF_INFO info;
  bool pcm24;  // FLAC: 24-bit PCM, clipped at full scale
};

SoundPlan plan_sound(const std::string& path, const MaskSet& masks) {
  const std::string extension = lower_extension(path);
  const SoundContainer* container = writable_container(extension);
  if (!container) {
    throw Error(path + ": ." + extension + cannot_hold_a_mask);
  }
  SoundPlan plan{};
  plan.pcm24 = (container->format & SF_FORMAT_SUBMASK) == SF_FORMAT_PCM_24;
  if (plan.pcm24) {
    for (const Mask& mask : masks) {
      for (float tap : mask.taps) {
        if (std::fabs(tap) > 1.0f) {
          throw Error(path + ": coefficient " + std::to_string(tap) +
                      " is outside FLAC's 24-bit range [-1, 1]; write .wav (float) instead");
        }
      }
    }
  }
  plan.info.samplerate = sound_rate(path, masks);
  plan.info.channels = static_cast<int>(masks.size());
  plan.info.format = container->format;
  if (!sf_format_check(&plan.info)) {
    throw Error(path + ": libsndfile cannot write " + std::to_string(plan.info.channels) +
                " channels at " + std::to_string(plan.info.samplerate) + " Hz as ." + extension);
  }
  return plan;
}

void write_sound(const std::string& path, const MaskSet& masks, SoundPlan plan, int descriptor) {
  // libsndfile goes back to complete the header, which lands at the end of a file open for
  // appending (as the Writer refuses it).
  if (appends_to_a_file(descriptor))  // (no mask is written as raw or Ogg, which append)
    throw Error(path + ": open for appending (>>), where a sound file's header cannot be completed; name a file");
  // Through a CheckedOutput where the descriptor seeks: from where it stands, so that `{ echo x;
  // halo design ... -o out.wav; } > g`, out.wav a link to /dev/stdout, puts the WAV after the x,
  // its header where its own bytes begin (libsndfile writes a file at an offset for few
  // containers: a review), and every write's result seen. A pipe keeps sf_open_fd; SF_FALSE: the descriptor
  // stays its owner's (the AtomicFile closes it and checks the close).
  if (isatty(descriptor)) throw Error(path + ": a terminal, which shows no sound file: name a file or redirect it");
  std::optional<CheckedOutput> sink;
  if (CheckedOutput::suits(descriptor)) sink.emplace(descriptor);
  SndfileHandle file(sink ? sink->open(plan.info) : sf_open_fd(descriptor, SFM_WRITE, &plan.info, SF_FALSE));
  // A pipe: libsndfile completes a sound file's header at its end, which no pipe takes back (its
  // own words had been "Error : this file format does not support pipe write.").
  if (!file && !sink) throw Error(path + ": a pipe, and a sound mask's header is completed at its end: name a file");
  if (!file) throw Error(path + ": " + sf_strerror(nullptr));
  // PCM cannot hold +1.0 exactly: clip it to full scale instead of letting it wrap around.
  if (plan.pcm24) sf_command(file.get(), SFC_SET_CLIPPING, nullptr, SF_TRUE);
  // Before the samples (FLAC takes strings only then). A container without strings (AU, CAF,
  // ...) drops it, and the mask reads back centred, as any sound file's.
  if (masks[0].causal) sf_set_string(file.get(), SF_STR_COMMENT, causal_sound_comment);
  else if (masks[0].alignment_stated) sf_set_string(file.get(), SF_STR_COMMENT, centred_sound_comment);

  const std::size_t frames = masks[0].taps.size();
  std::vector<float> interleaved(frames * masks.size());
  for (std::size_t f = 0; f < frames; ++f) {
    for (std::size_t c = 0; c < masks.size(); ++c) interleaved[f * masks.size() + c] = masks[c].taps[f];
  }
  // A failure the system gave a reason for (a full disk) is worded as every writer's is: it had
  // been libsndfile's "System error : No space left on device." (a QA pass).
  const auto failed = [&path](int error, const std::string& words) {
    return Error(path + ": write failed: " + (error != 0 ? std::string(std::strerror(error)) : words));
  };
  errno = 0;
  const sf_count_t written = sf_writef_float(file.get(), interleaved.data(), static_cast<sf_count_t>(frames));
  const auto first_error = [&sink] { return sink && sink->error() != 0 ? sink->error() : errno; };
  if (written != static_cast<sf_count_t>(frames)) throw failed(first_error(), error_words(file.get()));
  // sf_close writes the final header: if it fails the file is broken, whatever was written.
  errno = 0;
  const int closed = sf_close(file.release());
  if (closed != 0) throw failed(first_error(), error_number_words(closed));
  if (sink) sink->leave_at_end();
  if (sink && sink->error() != 0) throw failed(sink->error(), "");
}

}  // namespace

std::string mask_text(const MaskSet& masks) {
  std::string out;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    out += "# ";
    if (masks.size() > 1) out += "column " + std::to_string(m + 1) + ": ";
    out += masks[m].provenance.empty() ? "halo mask" : comment_text(masks[m].provenance);
    out += "\n";
  }
  if (masks[0].rate_hz > 0) out += "# rate " + rate_text(masks[0].rate_hz) + "\n";
  if (masks[0].causal) out += "# align causal\n";  // filter aligns it so by default
  else if (masks[0].alignment_stated) out += "# align same\n";
  char number[32];
  for (std::size_t i = 0; i < masks[0].taps.size(); ++i) {
    for (std::size_t m = 0; m < masks.size(); ++m) {
      // %.9g: enough digits for any float to read back to the same float.
      const float tap = i < masks[m].taps.size() ? masks[m].taps[i] : 0.0f;  // a shorter column ends in zeros
      std::snprintf(number, sizeof number, m == 0 ? "%.9g" : " %.9g", static_cast<double>(tap));
      out += number;
    }
    out += "\n";
  }
  return out;
}

MaskSet read_mask(const std::string& path) {
  if (path == "-") {
    // No name to say the format: JSON and C headers (design's exports, which carry the rate and
    // the alignment) are told by their first characters; they had been read as text, "{" is
    // not a number (a review).
    // A header is told by the array parse_header_mask reads, whatever it opens with (only
    // design's own `/*` comment had been, and "static const float m[3] = {...}" was "static is
    // not a number", a QA pass); a text mask's errors stay a text mask's.
    const std::string& bytes = standard_input_bytes();
    // (After a UTF-8 byte-order mark, and a bare list too: both had been read as text, "[0.5"
    // is not a number, a QA pass.)
    const std::size_t first = bytes.find_first_not_of(" \t\r\n", bytes.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0);
    // A sound file ("RIFF", "fLaC", "OggS") has NUL bytes in its header; text never does.
    if (first == std::string::npos || bytes.find('\0') != std::string::npos) return parse_mask(input_name(path), bytes);
    if (bytes[first] == '{') return parse_json_mask(input_name(path), bytes);
    if (holds_header_array(bytes)) return parse_header_mask(input_name(path), bytes);  // before `[`: [[maybe_unused]]
    if (bytes[first] == '[') return parse_json_mask(input_name(path), bytes);
    return parse_mask(input_name(path), bytes);
  }
  // design's CamillaDSP export is a configuration that names the coefficients' file; read as
  // text it was "lp.yml:3: "filters:" is not a number".
  if (const std::string extension = lower_extension(path); extension == "yml" || extension == "yaml")
    throw Error(path + ": a CamillaDSP configuration, not coefficients: give --mask the file its filename: entry names");
  switch (kind_of(path)) {
    case FileKind::raw_f32: return parse_raw_f32(path, read_bytes(path, 4 * max_mask_taps, Content::binary));
    case FileKind::sound: return read_sound(path);
    case FileKind::json: return parse_json_mask(path, read_bytes(path, max_text_bytes, Content::text));
    case FileKind::header: return parse_header_mask(path, read_bytes(path, max_text_bytes, Content::text));
    case FileKind::text: break;
  }
  // A sound file under a name whose extension says nothing (room.irs, none at all, /dev/stdin,
  // <(...)) is read by its content, as IN is: binary bytes are tried as a sound file before
  // they are refused as text (`--ir room.irs` had been "a binary file, not a text mask", a QA
  // pass). A .txt is text whatever it holds.
  if (lower_extension(path) == "txt") return parse_text(path, read_bytes(path, max_text_bytes, Content::text));
  const std::string bytes = read_bytes(path, max_text_bytes, Content::text_or_sound);
  return bytes.find('\0') == std::string::npos ? parse_text(path, bytes) : parse_sound(path, bytes);
}

MaskSet parse_mask(const std::string& name, const std::string& bytes) {
  switch (kind_of(name)) {
    case FileKind::raw_f32: return parse_raw_f32(name, bytes);
    case FileKind::sound: return parse_sound(name, bytes);
    case FileKind::json: return parse_json_mask(name, bytes);
    case FileKind::header: return parse_header_mask(name, bytes);
    case FileKind::text: break;
  }
  // As read_mask: binary bytes under a name that is not .txt are tried as a sound file. One
  // whose header libsndfile opens keeps its own error (a WAV cut short on standard input had
  // been "a binary file, not ... a sound file libsndfile reads", a QA pass).
  if (lower_extension(name) != "txt" && bytes.find('\0') != std::string::npos) {
    try {
      return parse_sound(name, bytes);
    } catch (const Error&) {
      if (opens_as_sound(bytes)) throw;
      throw Error(binary_as_text(name));
    }
  }
  return parse_text(name, bytes);
}

bool mask_extension_known(const std::string& extension) {
  return extension.empty() || extension == "txt" || kind_of_extension(extension) != FileKind::text;
}

void check_mask_name(const std::string& path) {
  const std::string extension = lower_extension(path);
  if (kind_of(path) == FileKind::sound && !writable_container(extension))
    throw Error(path + ": ." + extension + cannot_hold_a_mask);
}

void check_mask_output(const std::string& path) {
  check_mask_name(path);
  const std::size_t slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw Error(path + ": cannot create a file in " + folder + ": no such folder");
  // A folder as OUT, said before the work rather than after it (a long design search had run
  // 7 s before "Is a directory", a QA pass). Not the folder's permissions: OUT may be a link to
  // a file elsewhere, whose temporary goes beside that file (AtomicFile).
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) throw Error(path + ": a folder, not a file name");
}

void write_mask(const std::string& path, const MaskSet& masks) {
  AtomicFile output(path);
  write_mask_into(output, path, masks);
  output.commit();
}

void write_mask_into(AtomicFile& output, const std::string& path, const MaskSet& masks) {
  check_writable_set(path, masks);
  // Every format problem is found before a byte is written (the temporary goes with the error).
  const FileKind kind = kind_of(path);
  std::string bytes;
  SoundPlan sound{};
  switch (kind) {
    case FileKind::json:
    case FileKind::header:
      throw Error(path + ": JSON and C headers are written by halo design --format json|h");
    case FileKind::text: bytes = mask_text(masks); break;
    case FileKind::raw_f32: bytes = raw_f32_contents(path, masks); break;
    case FileKind::sound: sound = plan_sound(path, masks); break;
  }

  if (kind == FileKind::sound) {
    write_sound(path, masks, sound, output.fd());
  } else {
    output.write_all(bytes.data(), bytes.size());
  }
}

namespace {

// The bytes write_sound would put in a file named `path`, made in memory (what = what they
// hold, for the errors): masks_as_written and keeps_alignment read them back with libsndfile.
std::string sound_in_memory(const std::string& path, const MaskSet& masks, const SoundPlan& plan, const std::string& what) {
  const int memory = memfd_create("halo-mask", MFD_CLOEXEC);
  if (memory < 0) throw Error(path + ": cannot make " + what + " in memory: " + std::strerror(errno));
  std::string bytes;
  try {
    write_sound(path, masks, plan, memory);
    struct stat status {};
    if (fstat(memory, &status) != 0) throw Error(path + ": " + std::strerror(errno));
    bytes.resize(static_cast<std::size_t>(status.st_size));
    if (pread(memory, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size()))
      throw Error(path + ": cannot read back " + what + ": " + std::strerror(errno));
  } catch (...) {
    close(memory);
    throw;
  }
  close(memory);
  return bytes;
}

}  // namespace

MaskSet masks_as_written(const std::string& path, const MaskSet& masks) {
  if (kind_of(path) != FileKind::sound) return masks;
  check_writable_set(path, masks);
  const SoundPlan plan = plan_sound(path, masks);
  if (!plan.pcm24) return masks;  // the other containers hold float32: exact
  // Written into memory and read back by libsndfile itself, so the taps are the file's to the
  // bit, however libsndfile rounds and clips (its conversion, not a copy of it here).
  const std::string bytes = sound_in_memory(path, masks, plan, "the 24-bit taps");
  MaskSet written = masks;
  const MaskSet read_back = parse_sound(path, bytes);
  for (std::size_t c = 0; c < written.size(); ++c) written[c].taps = read_back.at(c).taps;
  return written;
}

bool keeps_alignment(const std::string& path) {
  switch (kind_of(path)) {
    case FileKind::text:
    case FileKind::json:
    case FileKind::header: return true;
    case FileKind::raw_f32: return false;
    case FileKind::sound: break;
  }
  filters::Mask one;
  one.taps = {0.5f};
  one.rate_hz = 48000;
  one.causal = true;  // a statement of either kind is a comment: one is kept where the other is
  const MaskSet set = {one};
  try {
    return parse_sound(path, sound_in_memory(path, set, plan_sound(path, set), "a mask")).front().causal;
  } catch (const Error&) {
    return true;  // cannot tell: nothing to warn of
  }
}

}  // namespace halo::audio
