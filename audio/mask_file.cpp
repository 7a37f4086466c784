// Mask files: text columns, raw little-endian float32, and impulse responses in any sound
// format libsndfile handles. Reading names the file (and line) of every problem; writing goes
// through an AtomicFile so a failure never leaves a half-written mask.
#include "audio/mask_file.hpp"

#include <fcntl.h>
#include <sndfile.h>
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
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "audio/atomic_file.hpp"
#include "audio/error.hpp"
#include "audio/sndfile_handle.hpp"

namespace halo::audio {

using filters::Mask;
using filters::MaskSet;

namespace {

// ---------------------------------------------------------------- formats by extension

enum class FileKind { text, raw_f32, sound };

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

std::string extension_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string extension = path.substr(dot + 1);
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return extension;
}

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

FileKind kind_of(const std::string& path) {
  const std::string extension = extension_of(path);
  if (extension == "f32") return FileKind::raw_f32;
  if (writable_container(extension) || is_read_only_sound(extension)) return FileKind::sound;
  return FileKind::text;
}

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

std::string read_bytes(const std::string& path) {
  const int fd = open_for_reading(path);
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
    bytes.append(block, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return bytes;
}

std::string line_prefix(const std::string& path, int line) {
  return path + ":" + std::to_string(line) + ": ";
}

double parse_coefficient(const std::string& token, const std::string& where) {
  const char* begin = token.data();
  const char* end = token.data() + token.size();
  if (begin != end && *begin == '+') ++begin;  // from_chars takes no '+'; people write it
  double value = 0;
  const auto parsed = std::from_chars(begin, end, value);
  if (parsed.ptr != end || parsed.ec == std::errc::invalid_argument || begin == end) {
    throw Error(where + "\"" + token + "\" is not a number");
  }
  if (parsed.ec == std::errc::result_out_of_range) {
    throw Error(where + "\"" + token + "\" is out of range for a coefficient");
  }
  if (!std::isfinite(value)) throw Error(where + "NaN or Inf coefficient");
  if (std::fabs(value) > FLT_MAX) throw Error(where + "\"" + token + "\" does not fit in a float");
  return value;
}

// The numbers of one line, comment removed: separated by whitespace and/or single commas.
std::vector<double> parse_text_line(std::string line, const std::string& where) {
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
      ++i;
    } else {
      const std::size_t start = i;
      while (i < line.size() && line[i] != ',' && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      values.push_back(parse_coefficient(line.substr(start, i - start), where));
      comma_pending = false;
    }
  }
  if (comma_pending) throw Error(where + "empty column after ','");
  return values;
}

MaskSet read_text(const std::string& path) {
  const std::string text = read_bytes(path);
  std::vector<std::vector<float>> columns;
  int first_data_line = 0;
  int line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line_number;
    const std::string where = line_prefix(path, line_number);
    const std::vector<double> values = parse_text_line(text.substr(start, end - start), where);
    start = end + 1;
    if (values.empty()) continue;
    if (columns.empty()) {
      columns.resize(values.size());
      first_data_line = line_number;
    } else if (values.size() != columns.size()) {
      throw Error(where + std::to_string(values.size()) + " columns, but line " +
                  std::to_string(first_data_line) + " has " + std::to_string(columns.size()));
    }
    for (std::size_t c = 0; c < values.size(); ++c) columns[c].push_back(static_cast<float>(values[c]));
  }
  if (columns.empty()) throw Error(path + ": no coefficients");

  MaskSet masks(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    masks[c].taps = std::move(columns[c]);
    masks[c].provenance = "file " + path;
    if (columns.size() > 1) masks[c].provenance += " column " + std::to_string(c + 1);
  }
  return masks;
}

MaskSet read_raw_f32(const std::string& path) {
  const std::string bytes = read_bytes(path);
  if (bytes.empty()) throw Error(path + ": no coefficients");
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

MaskSet read_sound(const std::string& path) {
  // open(2) first: a missing or unreadable file gets the system's words, not libsndfile's
  // "System error : ..." wrapping.
  ::close(open_for_reading(path));
  SF_INFO info{};
  SndfileHandle file(sf_open(path.c_str(), SFM_READ, &info));
  if (!file) throw Error(path + ": not a sound file libsndfile can read (" + sf_strerror(nullptr) + ")");
  if (info.channels < 1) throw Error(path + ": no channels");

  // Read to the end rather than trusting info.frames: some codecs only estimate it.
  const sf_count_t block_frames = 4096;
  std::vector<float> block(static_cast<std::size_t>(block_frames) * info.channels);
  std::vector<float> interleaved;
  for (;;) {
    const sf_count_t frames = sf_readf_float(file.get(), block.data(), block_frames);
    if (frames <= 0) break;
    interleaved.insert(interleaved.end(), block.begin(), block.begin() + frames * info.channels);
  }
  if (sf_error(file.get()) != SF_ERR_NO_ERROR) throw Error(path + ": " + sf_strerror(file.get()));
  if (interleaved.empty()) throw Error(path + ": no coefficients");

  const std::size_t channels = static_cast<std::size_t>(info.channels);
  const std::size_t frames = interleaved.size() / channels;
  MaskSet masks(channels);
  for (std::size_t c = 0; c < channels; ++c) {
    masks[c].rate_hz = info.samplerate;
    masks[c].provenance = "file " + path;
    if (channels > 1) masks[c].provenance += " ch " + std::to_string(c + 1);
    masks[c].taps.resize(frames);
    for (std::size_t f = 0; f < frames; ++f) {
      const float value = interleaved[f * channels + c];
      if (!std::isfinite(value)) {
        throw Error(path + ": NaN or Inf coefficient in channel " + std::to_string(c + 1) +
                    " at frame " + std::to_string(f));
      }
      masks[c].taps[f] = value;
    }
  }
  return masks;
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

std::string text_contents(const MaskSet& masks) {
  std::string out;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    out += "# ";
    if (masks.size() > 1) out += "column " + std::to_string(m + 1) + ": ";
    out += masks[m].provenance.empty() ? "halo mask" : comment_text(masks[m].provenance);
    out += "\n";
  }
  if (masks[0].rate_hz > 0) {
    char rate[48];
    std::snprintf(rate, sizeof rate, "# rate %.10g Hz\n", masks[0].rate_hz);
    out += rate;
  }
  char number[32];
  for (std::size_t i = 0; i < masks[0].taps.size(); ++i) {
    for (std::size_t m = 0; m < masks.size(); ++m) {
      // %.9g: enough digits for any float to read back to the same float.
      std::snprintf(number, sizeof number, m == 0 ? "%.9g" : " %.9g", static_cast<double>(masks[m].taps[i]));
      out += number;
    }
    out += "\n";
  }
  return out;
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
  return rate > 0 ? static_cast<int>(std::lround(rate)) : 48000;  // 48000 when unknown
}

// How a mask set goes into a sound file, settled before any file is created.
struct SoundPlan {
  SF_INFO info;
  bool pcm24;  // FLAC: 24-bit PCM, clipped at full scale
};

SoundPlan plan_sound(const std::string& path, const MaskSet& masks) {
  const std::string extension = extension_of(path);
  const SoundContainer* container = writable_container(extension);
  if (!container) {
    throw Error(path + ": ." + extension +
                " cannot hold a mask exactly; write .wav, .flac, .aiff, .caf, .w64 or .txt");
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

void write_sound(const std::string& path, const MaskSet& masks, SoundPlan plan, AtomicFile& output) {
  // SF_FALSE: the descriptor stays the AtomicFile's, which closes it and checks the close.
  SndfileHandle file(sf_open_fd(output.fd(), SFM_WRITE, &plan.info, SF_FALSE));
  if (!file) throw Error(path + ": " + sf_strerror(nullptr));
  // PCM cannot hold +1.0 exactly: clip it to full scale instead of letting it wrap around.
  if (plan.pcm24) sf_command(file.get(), SFC_SET_CLIPPING, nullptr, SF_TRUE);

  const std::size_t frames = masks[0].taps.size();
  std::vector<float> interleaved(frames * masks.size());
  for (std::size_t f = 0; f < frames; ++f) {
    for (std::size_t c = 0; c < masks.size(); ++c) interleaved[f * masks.size() + c] = masks[c].taps[f];
  }
  const sf_count_t written = sf_writef_float(file.get(), interleaved.data(), static_cast<sf_count_t>(frames));
  if (written != static_cast<sf_count_t>(frames)) throw Error(path + ": " + sf_strerror(file.get()));
  // sf_close writes the final header: if it fails the file is broken, whatever was written.
  const int closed = sf_close(file.release());
  if (closed != 0) throw Error(path + ": " + sf_error_number(closed));
}

}  // namespace

MaskSet read_mask(const std::string& path) {
  switch (kind_of(path)) {
    case FileKind::raw_f32: return read_raw_f32(path);
    case FileKind::sound: return read_sound(path);
    case FileKind::text: break;
  }
  return read_text(path);
}

void write_mask(const std::string& path, const MaskSet& masks) {
  check_writable_set(path, masks);
  // Every format problem is found before a temporary file exists.
  const FileKind kind = kind_of(path);
  std::string bytes;
  SoundPlan sound{};
  switch (kind) {
    case FileKind::text: bytes = text_contents(masks); break;
    case FileKind::raw_f32: bytes = raw_f32_contents(path, masks); break;
    case FileKind::sound: sound = plan_sound(path, masks); break;
  }

  AtomicFile output(path);
  if (kind == FileKind::sound) {
    write_sound(path, masks, sound, output);
  } else {
    output.write_all(bytes.data(), bytes.size());
  }
  output.commit();
}

}  // namespace halo::audio
