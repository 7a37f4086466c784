#include "audio/format.hpp"

#include <sndfile.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

#include "audio/error.hpp"
#include "audio/format_probe.hpp"
#include "audio/speaker_order.hpp"

namespace halo::audio {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

namespace {

const std::map<std::string, int>& subtype_names() {
  static const std::map<std::string, int> names = {
      {"pcm8", SF_FORMAT_PCM_S8},   {"pcmu8", SF_FORMAT_PCM_U8},  {"pcm16", SF_FORMAT_PCM_16},
      {"pcm24", SF_FORMAT_PCM_24},  {"pcm32", SF_FORMAT_PCM_32},  {"float", SF_FORMAT_FLOAT},
      {"double", SF_FORMAT_DOUBLE}, {"ulaw", SF_FORMAT_ULAW},     {"alaw", SF_FORMAT_ALAW},
      {"vorbis", SF_FORMAT_VORBIS}, {"opus", SF_FORMAT_OPUS},     {"mp3", SF_FORMAT_MPEG_LAYER_III},
      {"ima-adpcm", SF_FORMAT_IMA_ADPCM}, {"ms-adpcm", SF_FORMAT_MS_ADPCM}, {"gsm610", SF_FORMAT_GSM610},
      {"alac16", SF_FORMAT_ALAC_16}, {"alac20", SF_FORMAT_ALAC_20}, {"alac24", SF_FORMAT_ALAC_24},
      {"alac32", SF_FORMAT_ALAC_32}, {"dpcm8", SF_FORMAT_DPCM_8}, {"dpcm16", SF_FORMAT_DPCM_16},
  };
  return names;
}

// Layouts libsndfile 1.2.0 accepts but writes wrong: SDS at 8 and 24 bits reads back off by up
// to 63 LSB and 3 million LSB (its own round trip, through python-soundfile too). halo does not
// write what it cannot read back.
bool writes_correctly(int container, int subtype) {
  const int sub = subtype & SF_FORMAT_SUBMASK;
  const int major = container & SF_FORMAT_TYPEMASK;
  // And MPEG audio it writes only as an MP3 file: a WAV "holds" it on paper, and opening one
  // failed with libsndfile's "Supported file format but unsupported encoding" (a QA pass).
  const bool mpeg = sub == SF_FORMAT_MPEG_LAYER_I || sub == SF_FORMAT_MPEG_LAYER_II || sub == SF_FORMAT_MPEG_LAYER_III;
  if (mpeg && major != SF_FORMAT_MPEG) return false;
  return !(major == SF_FORMAT_SDS && (sub == SF_FORMAT_PCM_S8 || sub == SF_FORMAT_PCM_24));
}

// OUT's speaker order where its container fixes one, IN's channels moved into it: Ogg's
// (Vorbis, Opus) and FLAC's by their count, where IN holds those speakers; WAV's mask order
// (WAV, WAVEX, RF64, W64), whatever speakers IN holds. CAF takes WAV's order too: libsndfile
// has CAF layout tags for it from 3 to 6 channels, where Vorbis's 3 and 7 had gone without one,
// and 7 and 8 channels, which get none, are then in the order a reader assumes (a QA pass).
// Elsewhere (AIFF, AU, ...) IN's order. FLAC's eight channels, say, are 7.1 in a WAV (mask
// 0x63F, as sox writes, where libsndfile's own 0xFF called the sides front-of-centre: a QA
// pass), and a 5.1 Vorbis file's centre is no longer played on the right.
void place_speakers(Format& output, const std::vector<int>& input_speakers) {
  if (output.channels < 3 || input_speakers.size() != static_cast<std::size_t>(output.channels)) return;
  std::vector<int> order;
  switch (output.container) {
    case SF_FORMAT_OGG: order = vorbis_speakers(output.channels); break;
    case SF_FORMAT_FLAC: order = wav_speakers(output.channels); break;
    case SF_FORMAT_WAV:
    case SF_FORMAT_WAVEX:
    case SF_FORMAT_RF64:
    case SF_FORMAT_W64: order = in_wav_mask_order(input_speakers); break;
    // CAF's layouts of 3 to 6 channels (the ones libsndfile has tags for) name their surround
    // pair Ls and Rs, which libsndfile holds as rear: a 5.1 of side speakers (WAV's 0x60F,
    // ffmpeg's) had found no layout tag and been written with none, its order lost further down
    // a chain (a QA pass). Past 6, sides stay sides (7.1 has both pairs).
    case SF_FORMAT_CAF:
      order = in_wav_mask_order(output.channels <= 6 ? sides_as_rears(input_speakers) : input_speakers);
      break;
    default: return;
  }
  // The same speakers, under WAV's names where both have them (CAF's "front left" is "left"),
  // a 5.1 of side speakers (ffmpeg's) taken for the 5.1 that Vorbis and FLAC define.
  const std::vector<int> wanted = in_wav_mask_order(order);
  const auto holds_them = [&wanted](const std::vector<int>& speakers) {
    const std::vector<int> held = in_wav_mask_order(speakers);
    return !held.empty() && held == wanted;
  };
  const std::vector<int> from = holds_them(input_speakers) ? input_speakers : sides_as_rears(input_speakers);
  if (!holds_them(from)) return;
  output.channel_moves = channel_moves(from, order);
  output.channel_map = order;
}

}  // namespace

std::string container_name(int container) {
  // libsndfile calls NIST SPHERE "WAV (NIST Sphere)".
  if ((container & SF_FORMAT_TYPEMASK) == SF_FORMAT_NIST) return "NIST";
  // And IRCAM "SF (Berkeley/IRCAM/CARL)": its readers and its extension call it IRCAM.
  if ((container & SF_FORMAT_TYPEMASK) == SF_FORMAT_IRCAM) return "IRCAM";
  SF_FORMAT_INFO info{};
  info.format = container & SF_FORMAT_TYPEMASK;
  if (sf_command(nullptr, SFC_GET_FORMAT_INFO, &info, sizeof(info)) == 0 && info.name) {
    std::string name = info.name;
    return name.substr(0, name.find(' '));
  }
  return "unknown container";
}

std::string subtype_name(int subtype) {
  for (const auto& [name, code] : subtype_names())
    if (code == (subtype & SF_FORMAT_SUBMASK)) return name;
  SF_FORMAT_INFO info{};
  info.format = subtype & SF_FORMAT_SUBMASK;
  if (sf_command(nullptr, SFC_GET_FORMAT_INFO, &info, sizeof(info)) == 0 && info.name) return info.name;
  return "unknown subtype";
}

std::string lower_extension(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return lower(path.substr(dot + 1));
}

int container_for_extension(const std::string& path) {
  const std::string extension = lower_extension(path);
  if (extension.empty()) return 0;
  // Names libsndfile's table does not list under the extension users type.
  static const std::map<std::string, int> aliases = {
      {"aif", SF_FORMAT_AIFF}, {"aiff", SF_FORMAT_AIFF}, {"aifc", SF_FORMAT_AIFF},
      {"ogg", SF_FORMAT_OGG},  {"oga", SF_FORMAT_OGG},  {"opus", SF_FORMAT_OGG},  {"snd", SF_FORMAT_AU},
      {"mp3", SF_FORMAT_MPEG}, {"rf64", SF_FORMAT_RF64}, {"wave", SF_FORMAT_WAV},
      {"ircam", SF_FORMAT_IRCAM}, {"nist", SF_FORMAT_NIST}, {"sph", SF_FORMAT_NIST}, {"mat4", SF_FORMAT_MAT4},
      {"mat5", SF_FORMAT_MAT5}, {"svx", SF_FORMAT_SVX}, {"wavex", SF_FORMAT_WAVEX},
      {"mpc2k", SF_FORMAT_MPC2K}};  // as soundfile and libsndfile's own name say it (its extension is .mpc)
  if (auto it = aliases.find(extension); it != aliases.end()) return it->second;
  int count = 0;
  sf_command(nullptr, SFC_GET_FORMAT_MAJOR_COUNT, &count, sizeof(int));
  for (int i = 0; i < count; ++i) {
    SF_FORMAT_INFO info{};
    info.format = i;
    sf_command(nullptr, SFC_GET_FORMAT_MAJOR, &info, sizeof(info));
    if (info.extension && lower(info.extension) == extension) return info.format & SF_FORMAT_TYPEMASK;
  }
  return 0;
}

int parse_subtype(const std::string& text) {
  if (auto it = subtype_names().find(lower(text)); it != subtype_names().end()) return it->second;
  throw Error(text + ": not a subtype (pcm16, pcm24, pcm32, float, double, pcm8, pcmu8, ulaw, alaw, vorbis, opus, mp3, "
                     "ima-adpcm, ms-adpcm, gsm610, alac16, alac20, alac24, alac32, dpcm8, dpcm16)");
}

SampleScale sample_scale(int subtype) {
  auto integer = [](double full_scale) { return SampleScale{full_scale, -full_scale, full_scale - 1, true, true}; };
  switch (subtype & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_S8:
    case SF_FORMAT_PCM_U8: return integer(128.0);
    case SF_FORMAT_PCM_16: return integer(32768.0);
    case SF_FORMAT_PCM_24: return integer(8388608.0);
    case SF_FORMAT_PCM_32: return integer(2147483648.0);
    // ALAC is lossless integer PCM: rounded and dithered as PCM is (from floats libsndfile
    // truncated, 0.5 LSB of DC, and never dithered: a QA pass).
    case SF_FORMAT_ALAC_16: return integer(32768.0);
    case SF_FORMAT_ALAC_20: return integer(524288.0);
    case SF_FORMAT_ALAC_24: return integer(8388608.0);
    case SF_FORMAT_ALAC_32: return integer(2147483648.0);
    // XI's delta PCM is PCM of its width, coded as differences: exact, rounded and dithered too.
    case SF_FORMAT_DPCM_8: return integer(128.0);
    case SF_FORMAT_DPCM_16: return integer(32768.0);
    case SF_FORMAT_FLOAT:
    case SF_FORMAT_DOUBLE: return SampleScale{1.0, -1.0, 1.0, false, false};
    default: return SampleScale{1.0, -1.0, 1.0, false, true};  // codecs: normalised, clipped at ±1
  }
}

}  // namespace halo::audio

namespace halo::audio {

Format output_format(const Format& input, const std::string& output_path, int subtype, int container,
                     std::int64_t frames) {
  Format output = input;
  output.frames = frames;
  if (container != 0)
    output.container = container;
  else if (output_path != "-")
    if (int by_extension = container_for_extension(output_path)) output.container = by_extension;
  // A WAVEX input (the channel mask of a 5.1 file, say) stays WAVEX in a .wav: as plain WAV it
  // lost its mask.
  if (container == 0 && output.container == SF_FORMAT_WAV && input.container == SF_FORMAT_WAVEX)
    output.container = SF_FORMAT_WAVEX;
  // And a .wav of more than two channels from another container (FLAC, CAF) is
  // WAVE_FORMAT_EXTENSIBLE, as Microsoft asks and sox writes: a plain WAV says nothing of which
  // speaker a channel is for (a QA pass). A plain WAV's IN keeps its format.
  // Not where a --subtype asked for is one WAVEX does not hold (IMA ADPCM): the plain WAV's
  // refusal then says what holds it.
  if (container == 0 && output.container == SF_FORMAT_WAV && output.channels > 2 && input.container != SF_FORMAT_WAV) {
    SF_INFO wavex{};
    wavex.samplerate = output.rate_hz;
    wavex.channels = output.channels;
    wavex.format = SF_FORMAT_WAVEX | (subtype != 0 ? subtype : SF_FORMAT_PCM_16);
    if (sf_format_check(&wavex) != 0) output.container = SF_FORMAT_WAVEX;
  }
  place_speakers(output, input.channel_map);
  if (output.container == SF_FORMAT_SD2)  // OUT without an extension, from an SD2 IN (check_output_name)
    throw Error(output_path + ": halo cannot write SD2 (its header goes in a separate resource fork); choose aiff or wav");
  auto fits_on_paper = [&](int candidate) {
    SF_INFO info{};
    info.samplerate = output.rate_hz;
    info.channels = output.channels;
    info.format = output.container | candidate;
    return sf_format_check(&info) != 0 && writes_correctly(output.container, candidate);
  };
  // And in fact: libsndfile writes some layouts it accepts at another rate or length
  // (format_probe.hpp), which the summary had then misnamed.
  std::string problem;  // the first layout's that fits only on paper, for the refusal below
  auto fits = [&](int candidate) {
    if (!fits_on_paper(candidate)) return false;
    const std::string found = layout_problem(output.container, candidate, output.rate_hz, output.channels, frames);
    if (!found.empty() && problem.empty()) problem = subtype_name(candidate) + ": " + found;
    return found.empty();
  };
  // 8-bit PCM is unsigned in WAV and signed elsewhere (FLAC, AIFF): each is the other with its
  // sign bit flipped, so either stands for "8 bits" where the container holds only the other.
  const auto other_8bit = [](int candidate) {
    return candidate == SF_FORMAT_PCM_S8 ? SF_FORMAT_PCM_U8 : candidate == SF_FORMAT_PCM_U8 ? SF_FORMAT_PCM_S8 : 0;
  };
  if (subtype != 0 && !fits_on_paper(subtype) && other_8bit(subtype) != 0 && fits_on_paper(other_8bit(subtype)))
    subtype = other_8bit(subtype);  // --subtype pcm8 for a WAV: its unsigned 8 bits
  // AIFF holds unsigned 8 bits only as AIFC 'raw ', which sox and many players cannot open: its
  // own 8 bits are signed.
  if (subtype == SF_FORMAT_PCM_U8 && output.container == SF_FORMAT_AIFF) subtype = SF_FORMAT_PCM_S8;
  if (subtype != 0) {
    // (Opus at a rate it does not code: the Writer's refusal says what to do instead.)
    const bool opus = (subtype & SF_FORMAT_SUBMASK) == SF_FORMAT_OPUS;
    const bool on_paper = fits_on_paper(subtype);
    if (on_paper && !opus)
      if (const std::string found = layout_problem(output.container, subtype, output.rate_hz, output.channels, frames);
          !found.empty())
        throw Error(output_path + ": " + container_name(output.container) + " " + subtype_name(subtype) + " at " +
                    std::to_string(output.rate_hz) + " Hz: " + found + "; choose another --subtype or container");
    if (!on_paper) {  // (tried in memory just above: not again)
      // Held at some channel count (ADPCM and GSM in a WAV: mono or stereo, GSM mono only): say
      // that, not that the container never holds it (a QA pass).
      SF_INFO mono{};
      mono.samplerate = output.rate_hz;
      mono.channels = 1;
      mono.format = output.container | subtype;
      if (output.channels > 1 && sf_format_check(&mono) != 0)
        throw Error(output_path + ": " + container_name(output.container) + " holds --subtype " + subtype_name(subtype) +
                    " with fewer channels than IN's " + std::to_string(output.channels));
      throw Error(output_path + ": " + container_name(output.container) + " cannot hold --subtype " +
                  subtype_name(subtype));
    }
    output.subtype = subtype;
    return output;
  }
  // An .opus name asks for Opus in the Ogg container, which would otherwise get Vorbis (or keep
  // a Vorbis input's codec): a player takes an .opus file for Opus.
  if (output_path != "-" && lower_extension(output_path) == "opus") {
    // libsndfile checks Opus's rates only when it opens the file; the Writer refuses them first.
    if (!fits_on_paper(SF_FORMAT_OPUS))
      throw Error(output_path + ": this libsndfile cannot write Ogg Opus of " + std::to_string(output.channels) +
                  " channels at " + std::to_string(output.rate_hz) + " Hz");
    output.subtype = SF_FORMAT_OPUS;
    return output;
  }
  // And an .ogg or .oga name Vorbis, from an Opus input too, as the README says (it had kept Opus).
  if (output_path != "-" && (lower_extension(output_path) == "ogg" || lower_extension(output_path) == "oga") &&
      (input.subtype & SF_FORMAT_SUBMASK) == SF_FORMAT_OPUS && fits(SF_FORMAT_VORBIS)) {
    output.subtype = SF_FORMAT_VORBIS;
    return output;
  }
  // A lossy input (MP3, Vorbis, Opus) keeps its codec only in its own container: WAV "holds"
  // MP3 on paper but libsndfile writes none. Elsewhere it becomes pcm16, as sox decodes MP3.
  const int input_subtype = input.subtype & SF_FORMAT_SUBMASK;
  const bool lossy_input = input_subtype == SF_FORMAT_VORBIS || input_subtype == SF_FORMAT_OPUS ||
                           input_subtype == SF_FORMAT_MPEG_LAYER_I || input_subtype == SF_FORMAT_MPEG_LAYER_II ||
                           input_subtype == SF_FORMAT_MPEG_LAYER_III;
  // AIFF's unsigned 8 bits (AIFC 'raw '): as above.
  const bool aifc_raw = input_subtype == SF_FORMAT_PCM_U8 && output.container == SF_FORMAT_AIFF;
  if (fits(input.subtype) && !aifc_raw && (!lossy_input || output.container == input.container)) return output;
  if (other_8bit(input_subtype) != 0 && fits(other_8bit(input_subtype))) {  // 8 bits stay 8 bits
    output.subtype = other_8bit(input_subtype);
    return output;
  }
  // ALAC and XI's delta PCM elsewhere: the PCM of their width (20 bits in 24; 8 bits as the
  // container holds them). XI's had become float, twice the size (a QA pass).
  const int coded_as_pcm[][2] = {{SF_FORMAT_ALAC_16, SF_FORMAT_PCM_16}, {SF_FORMAT_ALAC_20, SF_FORMAT_PCM_24},
                                 {SF_FORMAT_ALAC_24, SF_FORMAT_PCM_24}, {SF_FORMAT_ALAC_32, SF_FORMAT_PCM_32},
                                 {SF_FORMAT_DPCM_16, SF_FORMAT_PCM_16}, {SF_FORMAT_DPCM_8, SF_FORMAT_PCM_S8}};
  for (const auto& [coded, pcm] : coded_as_pcm)
    for (const int candidate : {pcm, other_8bit(pcm)})
      if (input_subtype == coded && candidate != 0 && fits(candidate)) {
        output.subtype = candidate;
        return output;
      }
  // Integer input keeps its precision where it can: 8 and 16 bits in 16 (then wider), 24 and 32
  // bits in 24 or 32 (which hold every sample halo computes exactly), then float; only then 16
  // bits, and then what codecs take. A 24-bit IN had become pcm16 in IRCAM, MAT and PVF, which
  // hold pcm32 (a QA pass), and an 8-bit one must not become pcm32 there (a review).
  const SampleScale input_scale = sample_scale(input.subtype);
  const bool integer_input = input_scale.integer;
  // XI holds delta PCM alone: last, it takes the rest of any list (its "cannot hold 1 channels
  // at 44100 Hz" had been untrue, a QA pass). Companded 8 bits after it, last of all: WVE holds
  // A-law alone (its "cannot hold 1 channels at 8000 Hz" had been untrue, a QA pass).
  const std::vector<int> fallbacks_integer =
      input_scale.full_scale <= 32768.0
          ? std::vector<int>{SF_FORMAT_PCM_16, SF_FORMAT_PCM_24, SF_FORMAT_PCM_32,         SF_FORMAT_FLOAT,
                             SF_FORMAT_VORBIS, SF_FORMAT_OPUS,   SF_FORMAT_MPEG_LAYER_III, SF_FORMAT_DPCM_16,
                             SF_FORMAT_ULAW,   SF_FORMAT_ALAW}
          : std::vector<int>{SF_FORMAT_PCM_24, SF_FORMAT_PCM_32, SF_FORMAT_FLOAT,          SF_FORMAT_PCM_16,
                             SF_FORMAT_VORBIS, SF_FORMAT_OPUS,   SF_FORMAT_MPEG_LAYER_III, SF_FORMAT_DPCM_16,
                             SF_FORMAT_ULAW,   SF_FORMAT_ALAW};
  const std::vector<int> fallbacks_float = {SF_FORMAT_FLOAT, SF_FORMAT_PCM_24, SF_FORMAT_PCM_16,         SF_FORMAT_VORBIS,
                                            SF_FORMAT_OPUS,  SF_FORMAT_MPEG_LAYER_III, SF_FORMAT_DPCM_16, SF_FORMAT_ULAW,
                                            SF_FORMAT_ALAW};
  const std::vector<int> fallbacks_lossy = {SF_FORMAT_PCM_16, SF_FORMAT_FLOAT, SF_FORMAT_PCM_24,         SF_FORMAT_VORBIS,
                                            SF_FORMAT_OPUS,   SF_FORMAT_MPEG_LAYER_III, SF_FORMAT_DPCM_16, SF_FORMAT_ULAW,
                                            SF_FORMAT_ALAW};
  for (int candidate : lossy_input ? fallbacks_lossy : integer_input ? fallbacks_integer : fallbacks_float) {
    if (fits(candidate)) {
      output.subtype = candidate;
      return output;
    }
  }
  throw Error(output_path + ": " + container_name(output.container) + " cannot hold " + std::to_string(output.channels) +
              (output.channels == 1 ? " channel" : " channels") + " at " + std::to_string(output.rate_hz) + " Hz" +
              (problem.empty() ? "" : " (" + problem + ")"));
}

}  // namespace halo::audio

namespace halo::audio {

namespace {
constexpr std::uint64_t size_field_limit = 0xFFFFFFFFull;  // a 32-bit size field (RIFF's: file length - 8)
constexpr std::uint64_t header_bytes = 1 << 16;            // the header's own chunks, strings (metadata copied over)
}  // namespace

std::uint64_t sample_bytes_of(const Format& format) {
  if (format.frames < 0) return 0;
  const int fixed = fixed_sample_bytes(format.subtype);
  const std::uint64_t sample_bytes = fixed > 0 ? static_cast<std::uint64_t>(fixed) : 8;  // else the widest: double
  return static_cast<std::uint64_t>(format.frames) * static_cast<std::uint64_t>(format.channels) * sample_bytes;
}

bool wav_may_outgrow(const Format& format) {
  return format.frames < 0 || sample_bytes_of(format) > size_field_limit - header_bytes;
}

std::uint64_t container_byte_limit(int container) {
  switch (container & SF_FORMAT_TYPEMASK) {
    // (AU is not among them: libsndfile writes its "unknown" size past 2 GiB, read to the end;
    // nor VOC, whose blocks count 24 bits, and which libsndfile writes as one.)
    case SF_FORMAT_AIFF: case SF_FORMAT_SVX: case SF_FORMAT_MAT4: case SF_FORMAT_MAT5:
    case SF_FORMAT_PAF: case SF_FORMAT_AVR: case SF_FORMAT_HTK:
      return size_field_limit - header_bytes;
    default: return 0;
  }
}

void check_output_subtype(const std::string& path, int container, int subtype) {
  if (subtype == 0) return;
  if (container == 0 && path != "-") container = container_for_extension(path);
  if (container == 0) return;
  const int eight_bit_twin = subtype == SF_FORMAT_PCM_S8 ? SF_FORMAT_PCM_U8 : subtype == SF_FORMAT_PCM_U8 ? SF_FORMAT_PCM_S8 : 0;
  for (int candidate : {subtype, eight_bit_twin}) {
    if (candidate == 0) continue;
    for (int rate : {8000, 16000, 22050, 44100, 48000, 96000}) {
      for (int channels : {1, 2}) {
        SF_INFO info{};
        info.samplerate = rate;
        info.channels = channels;
        info.format = container | candidate;
        if (sf_format_check(&info) && writes_correctly(container, candidate)) return;
      }
    }
  }
  throw Error((path == "-" ? std::string("standard output") : path) + ": " + container_name(container) +
              " cannot hold --subtype " + subtype_name(subtype) + "; choose another --subtype, or another container");
}

void check_output_pipe(const std::string& path, int container) {
  struct stat status {};
  if (path == "-" || stat(path.c_str(), &status) != 0 || !S_ISFIFO(status.st_mode)) return;
  const int named = container != 0 ? container : container_for_extension(path);
  if (named != 0 && !writes_to_a_pipe(named)) throw Error(path + ": a FIFO, and " + pipe_refusal(named));
}

void check_output_is_no_folder(const std::string& path) {
  struct stat status {};
  if (path != "-" && stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode))
    throw Error(path + ": is a directory; give OUT a file name");
}

void check_output_name(const std::string& path, int container) {
  if (path.empty()) throw Error("an empty output name: give a file name, or - for standard output");
  if (path == "-") return;
  // SD2 keeps its header in a resource fork, which libsndfile writes as a file "._NAME" beside
  // NAME only when it opens NAME itself; halo writes through a temporary, so the fork went to a
  // "._" in the working directory and OUT could not be read.
  if (container == SF_FORMAT_SD2 || (container == 0 && container_for_extension(path) == SF_FORMAT_SD2))
    throw Error(path + ": halo cannot write SD2 (its header goes in a separate resource fork); choose aiff or wav");
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1) &&
                             dot + 1 < path.size();
  if (!has_extension) return;  // no extension (a device, a FIFO, "out"): --type, else the input's container
  const int by_extension = container_for_extension(path);
  const std::string extension = path.substr(dot);
  if (by_extension == 0 && container == 0)
    throw Error(path + ": " + extension + " is not an extension halo knows (wav, flac, aiff, au, caf, w64, rf64, "
                "ogg, opus, mp3, ...); rename OUT, or name its container with --type");
  // WAVEX (WAVE_FORMAT_EXTENSIBLE) is a WAV: `--type wavex` for out.wav agrees with its name.
  const bool wav_as_wavex = by_extension == SF_FORMAT_WAV && container == SF_FORMAT_WAVEX;
  if (by_extension != 0 && container != 0 && by_extension != container && !wav_as_wavex)
    throw Error(path + ": --type " + container_name(container) + " contradicts the name's " + extension + " (" +
                container_name(by_extension) + "); drop --type or rename OUT");
}

bool is_paf24(int format) {
  return (format & SF_FORMAT_TYPEMASK) == SF_FORMAT_PAF && (format & SF_FORMAT_SUBMASK) == SF_FORMAT_PCM_24;
}

bool writes_front_to_back(int container) { return container == SF_FORMAT_RAW || container == SF_FORMAT_OGG; }

bool writes_to_a_pipe(int container) {
  switch (container & SF_FORMAT_TYPEMASK) {
    case SF_FORMAT_AU: case SF_FORMAT_RAW: case SF_FORMAT_IRCAM: case SF_FORMAT_OGG: case SF_FORMAT_AVR: return true;
    default: return false;
  }
}

std::string pipe_refusal(int container) {
  const int type = container & SF_FORMAT_TYPEMASK;
  const char* why = type == SF_FORMAT_FLAC || type == SF_FORMAT_MPEG ? "its header is completed at the end"
                    : type == SF_FORMAT_AIFF || type == SF_FORMAT_PAF ? "libsndfile writes its header there, then fails"
                    : type == SF_FORMAT_SDS                          ? "its header there would count no frames"
                                                                     : "libsndfile does not write it there";
  return container_name(container) + " cannot be written to a pipe (" + why +
         "); AU, raw, IRCAM, AVR and Ogg can: choose one with --type au, or name a file";
}

int fixed_sample_bytes(int subtype) {
  switch (subtype & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_S8: case SF_FORMAT_PCM_U8: case SF_FORMAT_ULAW: case SF_FORMAT_ALAW: return 1;
    case SF_FORMAT_PCM_16: return 2;
    case SF_FORMAT_PCM_24: return 3;
    case SF_FORMAT_PCM_32: case SF_FORMAT_FLOAT: return 4;
    case SF_FORMAT_DOUBLE: return 8;
    default: return 0;
  }
}

}  // namespace halo::audio
