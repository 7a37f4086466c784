#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "filters/mask.hpp"

namespace halo::audio {

// Mask exports that other programs load unchanged (`halo design --format`):
//   txt, f32, wav: halo's own mask files (audio/mask_file.hpp), the extension agreeing;
//   json:       {"format": "halo-mask", "rate_hz" (where the mask has a rate), "provenance", "spec", "measured",
//               "coefficients"} (nlohmann-json); coefficients is a list for one mask, a list of
//               lists (one per channel) for several; each float written with the fewest digits
//               that read back to the same float;
//   h:          a C/C++ header: `static const float NAME[] = {...};` (NAME[C][M] for C masks),
//               NAME_taps, NAME_rate_hz (where the mask has a rate), the spec and measured figures in a comment; %.9g
//               with an f suffix, so the compiler rounds to the very same floats;
//   camilladsp: a YAML file (.yml/.yaml, yaml-cpp) with a `filters:` entry of type Conv and the
//               `pipeline:` step that uses it, beside its coefficient file: raw F32_LE (NAME.f32,
//               `type: Raw`) for one mask, a float WAV (NAME.wav, `type: Wav`, `channel: c`,
//               one pipeline step per channel) for several;
//   eqapo:      an Equalizer APO config text: `Preamp: -X dB` from the worst-case gain (sum|h|,
//               so that no full-scale input clips), then `Convolution: NAME.wav` (one mono float
//               WAV; with several masks, `Channel: c` and NAME_chC.wav for each);
//   sox:        the coefficient text sox's `fir` effect reads (`sox in out fir FILE`): '#'
//               comments, one coefficient a line; one mask (sox's fir filters every channel
//               with the same one).
// Companion files are named after the main file's stem, in its folder, and referred to by
// their bare names (both CamillaDSP and Equalizer APO look beside the config file first).
// mask_file: no --format, an extension of halo's own mask files (text, .f32, any sound file
// write_mask takes): write_mask's rules, as `design -o` always had.
enum class ExportFormat { mask_file, txt, f32, wav, json, header, camilladsp, eqapo, sox };

// "txt|f32|wav|json|h|camilladsp|eqapo|sox"; throws audio::Error naming the list.
ExportFormat parse_export_format(const std::string& text);

// The format the extension implies when --format is not given: .json, .h/.hpp, .yml/.yaml,
// else mask_file.
ExportFormat export_format_for(const std::string& path);

// What an export writes beside the coefficients: the spec asked for and the figures measured
// (both JSON objects, possibly empty; JSON and the header carry them).
struct ExportNotes {
  nlohmann::json spec = nlohmann::json::object();
  nlohmann::json measured = nlohmann::json::object();
};

// Every file an export of `mask_count` masks to `path` writes, the main file first.
std::vector<std::string> export_files(const std::string& path, ExportFormat format, std::size_t mask_count);

// An extension that contradicts the format (a --format camilladsp to x.txt), or that no mask
// file has (x.xyz) or can have exactly (x.mp3). Throws audio::Error naming the file.
void check_export_name(const std::string& path, ExportFormat format);

// What write_export would refuse from the names alone (an extension that contradicts the
// format, a folder that does not exist), before any work. Throws audio::Error naming the file.
void check_export_output(const std::string& path, ExportFormat format);

// A text file that goes into place with an export, or not at all (design's --plot).
struct TextFile {
  std::string path;
  std::string text;
};

// Writes the export, and `companions` with it: every file through an AtomicFile, each written
// and closed before any is renamed into place, the main file last. Throws audio::Error naming
// the file: masks of different lengths, NaN/Inf taps, several masks where the format holds one.
void write_export(const std::string& path, ExportFormat format, const filters::MaskSet& masks,
                  const ExportNotes& notes, const std::vector<TextFile>& companions = {});

// json, h and sox: one text file, which design may also write to standard output (-o -).
bool export_is_one_text(ExportFormat format);

// That text, for `path` (a header's array is named after its stem; "-": `mask`). Throws
// audio::Error naming `path`, as write_export does.
std::string export_text(const std::string& path, ExportFormat format, const filters::MaskSet& masks,
                        const ExportNotes& notes);

// The fewest decimal digits (6 to 9) that read back to `value`: "0.1", "1.00000012".
std::string shortest_float(float value);

}  // namespace halo::audio
