// Exports for other programs: CamillaDSP (yaml-cpp), Equalizer APO, sox's fir, a C header and
// JSON, plus halo's own text, raw float32 and WAV masks. The formats are as each program's
// documentation gives them: CamillaDSP's README ("FIR": Conv with type Raw/Wav; "Pipeline":
// Filter steps), Equalizer APO's configuration reference (Preamp, Channel, Convolution), sox(1)
// (fir: white-space separated coefficients, '#' comments).
#include "audio/mask_export.hpp"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "audio/atomic_file.hpp"
#include "audio/json_text.hpp"
#include "audio/error.hpp"
#include "audio/utf8.hpp"
#include "audio/format.hpp"
#include "audio/mask_file.hpp"
#include "audio/mask_json_header.hpp"

namespace halo::audio {

using filters::Mask;
using filters::MaskSet;

namespace {

struct PathParts {
  std::string folder;     // "" or "dir/" (with its slash)
  std::string stem;       // the name without folder and extension
  std::string extension;  // lower case, without the dot
};

PathParts split(const std::string& path) {
  PathParts parts;
  const std::size_t slash = path.find_last_of('/');
  parts.folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.find_last_of('.');
  parts.stem = dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
  if (dot != std::string::npos && dot != 0) parts.extension = name.substr(dot + 1);
  parts.extension = lower(parts.extension);
  return parts;
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Whether a file name can stand in a configuration's line as it is: UTF-8 (YAML takes nothing
// else) without control characters, C1's included. A newline had split Equalizer APO's
// "Convolution:" line and a 0xFF byte made CamillaDSP's YAML unreadable, each written with exit
// 0 (a QA pass).
bool fits_a_config_line(const std::string& name) {
  bool plain = true;
  const bool utf8 = for_each_code_point(name, [&plain](unsigned code) {
    if (code < 0x20 || (code >= 0x7F && code <= 0x9F)) plain = false;
  });
  return utf8 && plain;
}

bool is_sound_extension(const std::string& extension) {
  static const char* const sound[] = {"wav", "wave", "bwf", "w64", "rf64", "aif", "aiff", "aifc", "au", "snd", "caf",
                                      "mat", "ircam", "sf", "flac", "ogg", "oga", "opus", "mp3", "voc"};
  return std::find(std::begin(sound), std::end(sound), extension) != std::end(sound);
}

const char* format_name(ExportFormat format) {
  switch (format) {
    case ExportFormat::mask_file: return "";
    case ExportFormat::txt: return "txt";
    case ExportFormat::f32: return "f32";
    case ExportFormat::wav: return "wav";
    case ExportFormat::json: return "json";
    case ExportFormat::header: return "h";
    case ExportFormat::camilladsp: return "camilladsp";
    case ExportFormat::eqapo: return "eqapo";
    case ExportFormat::sox: return "sox";
  }
  return "";
}

void check_masks(const std::string& path, const MaskSet& masks) {
  if (masks.empty()) throw Error(path + ": no mask to write");
  for (std::size_t m = 0; m < masks.size(); ++m) {
    if (masks[m].taps.empty()) throw Error(path + ": mask " + std::to_string(m + 1) + " has no taps");
    if (masks[m].taps.size() != masks.front().taps.size())
      throw Error(path + ": masks of different lengths (" + std::to_string(masks.front().taps.size()) + " and " +
                  std::to_string(masks[m].taps.size()) + ") cannot share one file");
    for (float tap : masks[m].taps)
      if (!std::isfinite(tap)) throw Error(path + ": NaN or Inf coefficient in mask " + std::to_string(m + 1));
  }
}

// One line for comments: what the mask is (its provenance names length and rate).
std::string summary(const MaskSet& masks) {
  // The set's source: "file two.txt", not its first mask's "file two.txt column 1" (a QA pass).
  std::string line = masks.front().provenance.empty() ? "halo mask" : filters::mask_set_source(masks);
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::replace(line.begin(), line.end(), '\r', ' ');
  if (masks.size() > 1) line += "; " + std::to_string(masks.size()) + " masks, one per channel";
  return line;
}

std::string one_line(const nlohmann::json& object) { return object.empty() ? "" : json_text(object); }

// Companion files, beside the main file.
std::string coefficient_file(const PathParts& parts, std::size_t mask_count) {
  return parts.folder + parts.stem + (mask_count == 1 ? ".f32" : ".wav");
}
std::string eqapo_wav(const PathParts& parts, std::size_t mask_count, std::size_t channel) {
  return parts.folder + parts.stem + (mask_count == 1 ? std::string() : "_ch" + std::to_string(channel + 1)) + ".wav";
}

// A coefficient file beside the config that exists is replaced only by a re-run of the same
// export: the config OUT names exists and names it (CamillaDSP's and Equalizer APO's configs
// read it by its bare name). Any other file of that name is someone's: `design --format eqapo
// -o song.txt` had replaced song.wav, a recording, without a word (a QA pass).
void refuse_replacing_unnamed(const std::string& path, const std::vector<std::string>& files) {
  std::string config;
  bool config_read = false;
  for (const std::string& file : files) {
    struct stat info {};
    if (file == path || ::lstat(file.c_str(), &info) != 0) continue;
    if (!config_read) {  // a regular file's first MiB: OUT may be a FIFO, which would wait
      struct stat out {};
      if (::stat(path.c_str(), &out) == 0 && S_ISREG(out.st_mode)) {
        std::ifstream existing(path, std::ios::binary);
        config.resize(1 << 20);
        existing.read(config.data(), static_cast<std::streamsize>(config.size()));
        config.resize(static_cast<std::size_t>(existing.gcount()));
      }
      config_read = true;
    }
    // Named as the config names it (CamillaDSP's "filename: x.f32", quoted where YAML needs it,
    // Equalizer APO's "Convolution: x.wav"), at a line's end: not "mysong.wav" for song.wav.
    const std::string bare = file.substr(file.find_last_of('/') + 1);
    bool names_it = false;
    for (const std::string& named : {": " + bare, ": \"" + bare + "\"", ": '" + bare + "'"})
      for (std::size_t at = config.find(named); at != std::string::npos && !names_it; at = config.find(named, at + 1)) {
        const std::size_t end = at + named.size();
        names_it = end == config.size() || config[end] == '\n' || config[end] == '\r';
      }
    if (!names_it)
      throw Error(file + " exists, and this export would replace it with " + path +
                  "'s coefficients: move it, or give OUT another name");
  }
}

std::string sox_contents(const MaskSet& masks, const ExportNotes& notes) {
  std::string out = "# " + summary(masks) + "\n";
  out += "# for sox's fir effect: sox IN OUT fir THIS_FILE (sox removes the delay of (M-1)/2 samples, rounded down)\n";
  if (!notes.spec.empty()) out += "# spec " + one_line(notes.spec) + "\n";
  if (masks.front().rate_hz > 0) {
    char rate[48];
    std::snprintf(rate, sizeof rate, "# rate %.10g Hz\n", masks.front().rate_hz);
    out += rate;
  }
  char number[32];
  for (float tap : masks.front().taps) {
    std::snprintf(number, sizeof number, "%.9g\n", static_cast<double>(tap));
    out += number;
  }
  return out;
}

std::string camilladsp_contents(const PathParts& parts, const MaskSet& masks) {
  const std::string name = c_identifier(parts.stem);
  const std::string coefficients = base_name(coefficient_file(parts, masks.size()));
  YAML::Emitter out;
  out << YAML::Comment("halo: " + summary(masks));
  out << YAML::Newline;
  out << YAML::Comment("Paste into a CamillaDSP config; " + coefficients + " is read beside this file.");
  out << YAML::BeginMap;
  out << YAML::Key << "filters" << YAML::Value << YAML::BeginMap;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    const std::string filter = masks.size() == 1 ? name : name + "_ch" + std::to_string(m + 1);
    out << YAML::Key << filter << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "type" << YAML::Value << "Conv";
    out << YAML::Key << "parameters" << YAML::Value << YAML::BeginMap;
    if (masks.size() == 1) {
      out << YAML::Key << "type" << YAML::Value << "Raw";
      out << YAML::Key << "filename" << YAML::Value << coefficients;
      out << YAML::Key << "format" << YAML::Value << "F32_LE";
    } else {
      out << YAML::Key << "type" << YAML::Value << "Wav";
      out << YAML::Key << "filename" << YAML::Value << coefficients;
      out << YAML::Key << "channel" << YAML::Value << m;
    }
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "pipeline" << YAML::Value << YAML::BeginSeq;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    out << YAML::BeginMap;
    out << YAML::Key << "type" << YAML::Value << "Filter";
    // Without `channels` a step filters every channel: one mask for all.
    if (masks.size() > 1)
      out << YAML::Key << "channels" << YAML::Value << YAML::Flow << YAML::BeginSeq << m << YAML::EndSeq;
    out << YAML::Key << "names" << YAML::Value << YAML::BeginSeq
        << (masks.size() == 1 ? name : name + "_ch" + std::to_string(m + 1)) << YAML::EndSeq;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::EndMap;
  if (!out.good()) throw Error(parts.stem + ": YAML: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

// A preamp that keeps every full-scale input from clipping: -20 log10(sum |h|), rounded down to
// the hundredth of a dB (so it is never too little); 0 when the mask cannot raise any peak.
std::string preamp_db(const MaskSet& masks) {
  const double gain = worst_case_gain(masks);
  const double db = gain > 1 ? -std::ceil(20 * std::log10(gain) * 100) / 100 : 0.0;
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", db);
  return text;
}

std::string eqapo_contents(const PathParts& parts, const MaskSet& masks) {
  std::string out = "# halo: " + summary(masks) + "\n";
  out += "# Preamp: the worst-case gain sum|h| is " + std::to_string(worst_case_gain(masks)) +
         "; this preamp keeps a full-scale input from clipping\n";
  out += "Preamp: " + preamp_db(masks) + " dB\n";
  if (masks.size() == 1) {
    out += "Convolution: " + base_name(eqapo_wav(parts, 1, 0)) + "\n";
    return out;
  }
  for (std::size_t m = 0; m < masks.size(); ++m) {
    out += "Channel: " + std::to_string(m + 1) + "\n";
    out += "Convolution: " + base_name(eqapo_wav(parts, masks.size(), m)) + "\n";
  }
  return out;
}

std::string header_comment(const MaskSet& masks, const ExportNotes& notes) {
  std::string comment = "halo mask: " + summary(masks) + "\n * y[n] = sum_k h[k] x[n-k] (true convolution)";
  if (!notes.spec.empty()) comment += "\n * spec: " + one_line(notes.spec);
  if (!notes.measured.empty()) comment += "\n * measured: " + one_line(notes.measured);
  if (!(masks.front().rate_hz > 0)) comment += "\n * no sample rate given: the taps are for whatever rate they were made for";
  return comment;
}

}  // namespace

std::string shortest_float(float value) {
  char text[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  return text;
}

ExportFormat parse_export_format(const std::string& text) {
  for (ExportFormat format : {ExportFormat::txt, ExportFormat::f32, ExportFormat::wav, ExportFormat::json,
                              ExportFormat::header, ExportFormat::camilladsp, ExportFormat::eqapo, ExportFormat::sox})
    if (text == format_name(format)) return format;
  throw Error("--format " + text + ": give txt, f32, wav, json, h, camilladsp, eqapo or sox");
}

ExportFormat export_format_for(const std::string& path) {
  const std::string extension = split(path).extension;
  if (extension == "json") return ExportFormat::json;
  if (extension == "h" || extension == "hpp") return ExportFormat::header;
  if (extension == "yml" || extension == "yaml") return ExportFormat::camilladsp;
  return ExportFormat::mask_file;
}

std::vector<std::string> export_files(const std::string& path, ExportFormat format, std::size_t mask_count) {
  const PathParts parts = split(path);
  std::vector<std::string> files = {path};
  if (format == ExportFormat::camilladsp) files.push_back(coefficient_file(parts, mask_count));
  if (format == ExportFormat::eqapo)
    for (std::size_t m = 0; m < mask_count; ++m) files.push_back(eqapo_wav(parts, mask_count, m));
  return files;
}

void check_export_name(const std::string& path, ExportFormat format) {
  const PathParts parts = split(path);
  const std::string& extension = parts.extension;
  // A name that is all extension, ".h": the exports read it as a stem with none, the mask files
  // as the extension h, so design and ir fix had told the user to name it .h, or written a text
  // mask into ".yml" that --mask then took for a CamillaDSP configuration (a review).
  if (extension.empty() && !parts.stem.empty() && parts.stem[0] == '.') {
    const std::string looks_like = lower_extension(parts.stem);
    if (looks_like == "json" || looks_like == "h" || looks_like == "hpp" || looks_like == "yml" || looks_like == "yaml")
      throw Error(path + ": a name that is only an extension: give the file a name (mask" + parts.stem + ")");
  }
  const auto refuse = [&](const std::string& wanted) {
    throw Error(path + ": --format " + format_name(format) + " writes " + wanted);
  };
  // /dev/stdout, /dev/fd/3: a text --format says the format, as for -, whatever the name (they
  // had been told to be named .json, a QA pass); a binary one is written by its extension.
  const bool text = format == ExportFormat::txt || format == ExportFormat::json || format == ExportFormat::header ||
                    format == ExportFormat::sox;
  if (text && names_a_descriptor(path)) return;
  switch (format) {
    case ExportFormat::mask_file:
      // The format is the extension's: one halo does not know (a typo, .ogg's cousin) would have
      // become text under a name that says otherwise, where filter refuses such an OUT.
      if (!mask_extension_known(extension))
        throw Error(path + ": ." + extension +
                    " is not an extension halo knows for a mask (.txt, .f32, .json, .h, .yml, or a sound file such as "
                    ".wav or .flac)");
      check_mask_name(path);
      break;
    case ExportFormat::txt:
      if (extension == "f32" || is_sound_extension(extension) || extension == "json" || extension == "h" ||
          extension == "hpp" || extension == "yml" || extension == "yaml")
        refuse("text; name it .txt");
      break;
    case ExportFormat::f32:
      if (extension != "f32") refuse("raw float32; name it .f32");
      break;
    case ExportFormat::wav:
      if (extension != "wav") refuse("a WAV file; name it .wav");
      break;
    case ExportFormat::json:
      if (extension != "json") refuse("JSON; name it .json");
      break;
    case ExportFormat::header:
      if (extension != "h" && extension != "hpp") refuse("a C/C++ header; name it .h or .hpp");
      break;
    case ExportFormat::camilladsp:
      if (extension != "yml" && extension != "yaml") refuse("CamillaDSP's YAML; name it .yml or .yaml");
      if (!fits_a_config_line(base_name(path)))
        throw Error(path + ": CamillaDSP's YAML names its coefficients' file, and YAML takes only UTF-8 without "
                    "control characters: give such a name");
      break;
    case ExportFormat::eqapo:
    case ExportFormat::sox:
      if (format == ExportFormat::eqapo && !fits_a_config_line(base_name(path)))
        throw Error(path + ": Equalizer APO's config names its WAV on a line of text: give a name without control "
                    "characters, in UTF-8");
      if (extension == "f32" || is_sound_extension(extension) || extension == "json" || extension == "yml" ||
          extension == "yaml" || extension == "h" || extension == "hpp")
        refuse(std::string(format == ExportFormat::eqapo ? "Equalizer APO's config" : "sox's coefficient") +
               " text; name it .txt");
      break;
  }
}

void check_export_output(const std::string& path, ExportFormat format) {
  check_export_name(path, format);
  check_mask_output(path);  // the folder exists
}

bool export_is_one_text(ExportFormat format) {
  return format == ExportFormat::json || format == ExportFormat::header || format == ExportFormat::sox;
}

std::string export_text(const std::string& path, ExportFormat format, const MaskSet& masks, const ExportNotes& notes) {
  check_masks(path, masks);
  switch (format) {
    case ExportFormat::json:
      return json_contents(masks, notes.spec, notes.measured);
    case ExportFormat::header:
      return header_contents(masks, path == "-" ? "mask" : c_identifier(split(path).stem), header_comment(masks, notes));
    case ExportFormat::sox:
      if (masks.size() != 1)
        throw Error(path + ": sox's fir applies one mask to every channel; " + std::to_string(masks.size()) +
                    " masks given (export them one at a time, or use --format camilladsp or eqapo)");
      return sox_contents(masks, notes);
    default:
      throw Error(path + ": --format " + format_name(format) + " is not one text file");
  }
}

void write_export(const std::string& path, ExportFormat format, const MaskSet& masks, const ExportNotes& notes,
                  const std::vector<TextFile>& companions) {
  // Every file is written and closed before any name changes, the main file renamed into place
  // last: a failure (a full disk) changes none of them. A camilladsp coefficient file had been
  // renamed before its config was written, and design's mask before its --plot failed, each
  // leaving a new file beside an old one (QA passes).
  std::vector<std::unique_ptr<AtomicFile>> files;
  const auto text_file = [&files](const std::string& name, const std::string& bytes) {
    files.push_back(std::make_unique<AtomicFile>(name));
    files.back()->write_all(bytes.data(), bytes.size());
  };
  for (const TextFile& companion : companions) text_file(companion.path, companion.text);
  if (export_is_one_text(format)) {
    text_file(path, export_text(path, format, masks, notes));  // which checks the masks
  } else {
    check_masks(path, masks);
    const PathParts parts = split(path);
    switch (format) {
      case ExportFormat::mask_file:
      case ExportFormat::txt:
      case ExportFormat::f32:
      case ExportFormat::wav:
        files.push_back(std::make_unique<AtomicFile>(path));
        write_mask_into(*files.back(), path, masks);
        break;
      case ExportFormat::json:  // one text each: written above
      case ExportFormat::header:
      case ExportFormat::sox:
        break;
      case ExportFormat::camilladsp:
      case ExportFormat::eqapo: {
        refuse_replacing_unnamed(path, export_files(path, format, masks.size()));
        const std::string config =
            format == ExportFormat::camilladsp ? camilladsp_contents(parts, masks) : eqapo_contents(parts, masks);
        if (format == ExportFormat::camilladsp) {
          const std::string coefficients = coefficient_file(parts, masks.size());
          files.push_back(std::make_unique<AtomicFile>(coefficients));
          write_mask_into(*files.back(), coefficients, masks);
        } else {
          for (std::size_t m = 0; m < masks.size(); ++m) {
            const std::string wav = eqapo_wav(parts, masks.size(), m);
            files.push_back(std::make_unique<AtomicFile>(wav));
            write_mask_into(*files.back(), wav, {masks[m]});
          }
        }
        text_file(path, config);
        break;
      }
    }
  }
  for (auto& file : files) file->close_checked();  // every write and close has succeeded ...
  for (auto& file : files) file->commit();         // ... before any name changes
}

}  // namespace halo::audio
