// halo ir inspect FILE [--plot F.svg] [--json]: what a measured impulse response holds.
// halo ir fix IN OUT [--trim-silence] [--remove-delay] [--normalize peak|energy|DB] [--rate HZ]
//                    [--minimum-phase] [--fade-out MS] [--format F]: the usual repairs before it is used.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cxxopts.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "audio/atomic_file.hpp"
#include "audio/error.hpp"
#include "audio/json_text.hpp"
#include "audio/mask_export.hpp"
#include "audio/mask_file.hpp"
#include "audio/reader.hpp"
#include "audio/same_file.hpp"
#include "audio/standard_streams.hpp"
#include "filters/error.hpp"
#include "filters/ir_analysis.hpp"
#include "filters/methods.hpp"
#include "filters/resample.hpp"
#include "filters/svg_plot.hpp"
#include "src/cli/command.hpp"
#include "src/cli/design_outputs.hpp"
#include "src/cli/interrupt.hpp"
#include "src/cli/mask_options.hpp"
#include "src/cli/number_parser.hpp"

namespace halo::cli {
namespace {

constexpr double pi = 3.14159265358979323846;

// Below the loudest peak by this much, a sample is silence for --trim-silence: under 24-bit
// dither, and far under anything a room measurement resolves.
constexpr double silence_below_peak_db = 120;

using filters::db10;
using filters::db20;

// JSON has no NaN or infinity: null stands for "does not exist".
nlohmann::json number_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

std::vector<std::string> positionals(const cxxopts::ParseResult& parsed) {
  return parsed.count("files") ? parsed["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
}

// The IR of FILE with a known rate: a sound file's own, a text mask's "# rate" line, or the
// option named `rate_option` (inspect's --rate, fix's --in-rate: its --rate resamples), which
// is for a file that does not say it and may not contradict one that does.
filters::MaskSet read_ir(const std::string& path, double rate_hz, const char* rate_option) {
  filters::MaskSet masks = audio::read_mask(path);
  for (filters::Mask& mask : masks) {
    if (rate_hz > 0 && mask.rate_hz > 0 && mask.rate_hz != rate_hz) {
      char says[64];
      std::snprintf(says, sizeof says, "%.10g Hz", mask.rate_hz);
      throw UsageError(std::string(rate_option) + ": " + audio::input_name(path) + " says its rate, " + says +
                       "; the option is for a text or .f32 file that does not" +
                       (std::string(rate_option) == "--in-rate" ? " (--rate resamples)" : ""));
    }
    if (rate_hz > 0) mask.rate_hz = rate_hz;
    if (!(mask.rate_hz > 0))
      throw UsageError(audio::input_name(path) + ": the file does not say its sample rate: give " + rate_option + " HZ");
  }
  return masks;
}

std::string seconds(double value) {
  char text[32];
  if (std::isnan(value)) return "n/a";
  std::snprintf(text, sizeof text, "%.3f s", value);
  return text;
}

// The background noise and where the decay meets it, with the figures its depth rules out
// (a T30 of an IR with 60 dB of peak-to-noise had been given 3.5 times too long, a QA pass).
std::string noise_words(const filters::IrAnalysis& a, double rate) {
  char text[200];
  switch (a.noise_floor) {
    case filters::NoiseFloor::exact_zeros: return "none: the response ends in exact zeros";
    case filters::NoiseFloor::too_short: return "not measured: fewer than 20 frames from the onset";
    case filters::NoiseFloor::no_decay:
      std::snprintf(text, sizeof text, "%.1f dBFS, with no decay above it to measure",
                    a.noise_dbfs);
      return text;
    case filters::NoiseFloor::measured: break;
  }
  std::snprintf(text, sizeof text, "%.1f dBFS; the decay meets it %.3f s after the onset, %.1f dB down", a.noise_dbfs,
                static_cast<double>(a.decay_db.size()) / rate, -a.decay_depth_db());
  std::string words = text;
  std::string short_of;
  for (const auto& [figure, value, lower] : {std::tuple{"EDT", a.edt_s, -10.0}, std::tuple{"T20", a.t20_s, -25.0},
                                             std::tuple{"T30", a.t30_s, -35.0}})
    if (std::isnan(value) && a.decay_depth_db() > lower - filters::decay_margin_db)
      short_of += std::string(short_of.empty() ? "" : ", ") + figure + " needs " +
                  std::to_string(static_cast<int>(filters::decay_margin_db - lower));
  return short_of.empty() ? words : words + " (" + short_of + ")";
}

void print_inspection(const std::string& path, const filters::MaskSet& masks,
                      const std::vector<filters::IrAnalysis>& analyses) {
  const double rate = masks.front().rate_hz;
  const std::size_t frames = masks.front().taps.size();
  std::printf("file:      %s\n", audio::input_name(path).c_str());
  std::printf("rate:      %.10g Hz\n", rate);
  std::printf("channels:  %zu\n", masks.size());
  std::printf("length:    %zu frames (%.6f s)\n", frames, static_cast<double>(frames) / rate);
  for (std::size_t c = 0; c < analyses.size(); ++c) {
    const filters::IrAnalysis& a = analyses[c];
    std::printf("ch %zu:\n", c + 1);
    // A silent channel has no peak and no onset (frame 0 had been given for both, a QA pass).
    if (a.silent()) {
      std::printf("  peak:            none: the channel is silent\n");
      std::printf("  pre-delay:       n/a (no onset)\n");
    } else {
      std::printf("  peak:            %.2f dBFS (%.9g) at frame %zu (%.6f s)\n", a.peak_dbfs, a.peak, a.peak_index,
                  static_cast<double>(a.peak_index) / rate);
      std::printf("  pre-delay:       %.6f s (onset, within 20 dB of the peak, at frame %zu)\n", a.pre_delay_s,
                  a.onset_index);
    }
    std::printf("  energy:          %.9g (%.2f dB)\n", a.energy, db10(a.energy));
    std::printf("  decay:           EDT %s, T20 %s, T30 %s (Schroeder, extrapolated to 60 dB)\n",
                seconds(a.edt_s).c_str(), seconds(a.t20_s).c_str(), seconds(a.t30_s).c_str());
    if (!a.silent()) std::printf("  noise:           %s\n", noise_words(a, rate).c_str());
    std::printf("  DC:              gain %.6g (%.2f dB), offset %.3g\n", a.dc_gain, db20(std::fabs(a.dc_gain)),
                a.dc_offset);
    std::printf("  clipped:         %zu %s at or beyond full scale\n", a.clipped, a.clipped == 1 ? "sample" : "samples");
    std::printf("  worst-case gain: %.6g (%.2f dB): sum |h|, the largest output of a full-scale input\n",
                a.worst_case_gain, db20(a.worst_case_gain));
  }
}

nlohmann::ordered_json inspection_json(const std::string& path, const filters::MaskSet& masks,
                                       const std::vector<filters::IrAnalysis>& analyses) {
  const double rate = masks.front().rate_hz;
  nlohmann::ordered_json j;
  j["file"] = path;
  j["rate_hz"] = rate;
  j["channels"] = masks.size();
  j["frames"] = masks.front().taps.size();
  j["duration_s"] = static_cast<double>(masks.front().taps.size()) / rate;
  nlohmann::ordered_json channels = nlohmann::ordered_json::array();
  for (const filters::IrAnalysis& a : analyses) {
    nlohmann::ordered_json c;
    c["peak"] = a.peak;
    c["peak_dbfs"] = number_or_null(a.peak_dbfs);
    const bool silent = a.silent();  // no peak, no onset: null, as the figures of no decay are
    c["peak_index"] = silent ? nlohmann::ordered_json() : nlohmann::ordered_json(a.peak_index);
    c["peak_s"] = silent ? nlohmann::ordered_json() : nlohmann::ordered_json(static_cast<double>(a.peak_index) / rate);
    c["onset_index"] = silent ? nlohmann::ordered_json() : nlohmann::ordered_json(a.onset_index);
    c["pre_delay_s"] = silent ? nlohmann::ordered_json() : nlohmann::ordered_json(a.pre_delay_s);
    c["energy"] = a.energy;
    c["energy_db"] = number_or_null(db10(a.energy));
    c["edt_s"] = number_or_null(a.edt_s);
    c["t20_s"] = number_or_null(a.t20_s);
    c["t30_s"] = number_or_null(a.t30_s);
    c["noise_dbfs"] = number_or_null(a.noise_dbfs);
    // As the noise line says: no end nor depth where there is no decay to measure.
    const bool decay = !silent && (a.noise_floor == filters::NoiseFloor::measured ||
                                   a.noise_floor == filters::NoiseFloor::exact_zeros);
    c["decay_end_s"] = decay ? nlohmann::ordered_json(static_cast<double>(a.decay_db.size()) / rate) : nlohmann::ordered_json();
    c["decay_depth_db"] = decay ? nlohmann::ordered_json(number_or_null(a.decay_depth_db())) : nlohmann::ordered_json();
    c["dc_gain"] = a.dc_gain;
    c["dc_offset"] = a.dc_offset;
    c["clipped"] = a.clipped;
    c["worst_case_gain"] = a.worst_case_gain;
    c["worst_case_gain_db"] = number_or_null(db20(a.worst_case_gain));
    channels.push_back(c);
  }
  j["channel"] = channels;
  return j;
}

int inspect(int argc, char** argv) {
  cxxopts::Options options("halo ir inspect", "Describe an impulse response.\n  halo ir inspect FILE [--plot F.svg] [--json]");
  options.positional_help("FILE");
  options.add_options()
      ("json", "print the figures as JSON (NaN figures as null)")
      ("plot", "draw the IR, its energy decay and its response into FILE.svg", cxxopts::value<std::string>(), "FILE.svg")
      ("plot-scale", "frequency axis of --plot: linear|log (default log)", cxxopts::value<std::string>(), "S")
      ("rate", "the sample rate of a text or .f32 IR, which does not say it", cxxopts::value<std::string>(), "HZ")
      ("in-rate", "the same, by ir fix's name for it", cxxopts::value<std::string>(), "HZ")
      ("h,help", "this help")
      ("files", "", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"files"});
  const auto parsed = parse_strictly(options, argc, argv);
  if (parsed.count("help")) {
    audio::print_to_standard_output(options.help() + "\n");
    return 0;
  }
  refuse_repeats(parsed, {"help", "json", "files"});
  refuse_misplaced_values(parsed);
  const std::vector<std::string> files = positionals(parsed);
  if (files.size() > 1) throw UsageError("ir inspect takes one FILE: '" + files[1] + "' is a second file name");
  if (files.size() != 1) throw UsageError("ir inspect needs one FILE (see halo ir inspect --help)");
  if (files[0].empty()) throw UsageError("ir inspect: an empty FILE name (- reads standard input)");  // not ": No such file"
  const std::string plot = parsed.count("plot") ? parsed["plot"].as<std::string>() : "";
  if (!plot.empty()) check_plot_name("--plot", plot);
  filters::FrequencyScale scale = filters::FrequencyScale::log;
  if (parsed.count("plot-scale")) {
    const std::string text = parsed["plot-scale"].as<std::string>();
    if (text != "linear" && text != "log") throw UsageError("--plot-scale " + text + ": give linear or log");
    if (plot.empty()) throw UsageError("--plot-scale goes with --plot FILE.svg");
    scale = text == "linear" ? filters::FrequencyScale::linear : filters::FrequencyScale::log;
  }
  // --in-rate too, as ir fix calls it (where --rate is the rate to resample to).
  if (parsed.count("rate") && parsed.count("in-rate")) throw UsageError("--rate and --in-rate: give one");
  const char* rate_option = parsed.count("in-rate") ? "in-rate" : "rate";
  const double rate_hz =
      parsed.count(rate_option) ? parse_rate_hz(std::string("--") + rate_option, parsed[rate_option].as<std::string>()) : 0;

  if (!plot.empty()) refuse_closed_report_output("ir inspect prints its figures there");  // before the plot is written
  const filters::MaskSet masks = read_ir(files.front(), rate_hz, "--rate");
  std::vector<filters::IrAnalysis> analyses;
  for (const filters::Mask& mask : masks) analyses.push_back(filters::analyse_ir(mask));
  if (!plot.empty()) {
    filters::PlotOptions plot_options;
    plot_options.title = "impulse response " + files.front();
    plot_options.scale = scale;
    write_text_file(plot, filters::ir_plot_svg(masks, analyses, plot_options));
  }
  if (parsed.count("json")) {
    std::printf("%s\n", audio::json_text(inspection_json(files.front(), masks, analyses), 1).c_str());
  } else {
    print_inspection(files.front(), masks, analyses);
    if (!plot.empty()) std::printf("plot:      %s\n", plot.c_str());
  }
  return 0;
}

// --normalize: "peak" (the loudest sample at 0 dBFS), "energy" (sum h^2 = 1 in the loudest
// channel), or a level in dBFS for the peak ("-3").
struct Normalize {
  enum class Kind { none, peak, energy, level } kind = Kind::none;
  double level_dbfs = 0;
};

Normalize parse_normalize(const cxxopts::ParseResult& parsed) {
  Normalize normalize;
  if (!parsed.count("normalize")) return normalize;
  const std::string text = parsed["normalize"].as<std::string>();
  if (text == "peak") {
    normalize.kind = Normalize::Kind::peak;
  } else if (text == "energy") {
    normalize.kind = Normalize::Kind::energy;
  } else {
    normalize.kind = Normalize::Kind::level;
    const std::string range = "give peak, energy or a peak level in dBFS in [-200, 0]";
    try {
      normalize.level_dbfs = parse_db("--normalize", text);
    } catch (const UsageError&) {  // "peek", "foo": name the words too, not only "a number"
      throw UsageError("--normalize " + text + ": " + range);
    }
    if (normalize.level_dbfs > 0 || normalize.level_dbfs < -200)
      throw UsageError("--normalize " + text + ": " + range);
  }
  return normalize;
}

// The first and one past the last frame any channel holds above `threshold`.
std::pair<std::size_t, std::size_t> span_above(const filters::MaskSet& masks, double threshold) {
  std::size_t first = masks.front().taps.size(), end = 0;
  for (const filters::Mask& mask : masks)
    for (std::size_t i = 0; i < mask.taps.size(); ++i)
      if (std::fabs(static_cast<double>(mask.taps[i])) > threshold) {
        first = std::min(first, i);
        end = std::max(end, i + 1);
      }
  return {first, end};
}

void keep_frames(filters::MaskSet& masks, std::size_t first, std::size_t end) {
  for (filters::Mask& mask : masks)
    mask.taps = std::vector<float>(mask.taps.begin() + static_cast<long>(first), mask.taps.begin() + static_cast<long>(end));
}

bool silent(const filters::Mask& mask) {
  return std::all_of(mask.taps.begin(), mask.taps.end(), [](float tap) { return tap == 0.0f; });
}

// The earliest onset of the channels that are not silent (a silent one has none: its frame 0
// had kept every frame, a QA pass); 0 where every channel is silent.
std::size_t earliest_onset(const filters::MaskSet& masks) {
  std::size_t earliest = masks.front().taps.size();
  for (const filters::Mask& mask : masks)
    if (!silent(mask)) earliest = std::min(earliest, filters::onset_index(mask));
  return earliest == masks.front().taps.size() ? 0 : earliest;
}

// Each channel of `masks` made minimum phase, keeping its polarity and the channels' timing
// (`input` names IN in messages); every channel silent is refused by the caller. Returns the
// frames OUT grew by.
std::size_t make_minimum_phase(filters::MaskSet& masks, const std::string& input) {
  // Each channel's minimum phase starts at its first tap: the channels' onsets are put back at
  // their spacing, so that they keep their timing (it had been dropped, a QA pass: a stereo
  // IR's channels 201 frames apart came out together), each result shifted so that its own
  // onset lands there. OUT grows by the largest shift.
  const std::size_t earliest = earliest_onset(masks);
  std::vector<filters::Mask> minimum(masks.size());
  std::vector<std::size_t> spacing(masks.size(), 0), lead(masks.size(), 0);  // IN's onset after the earliest; the result's
  std::size_t start = 0;  // where the earliest onset lands: after every result's own lead
  for (std::size_t c = 0; c < masks.size(); ++c) {
    if (silent(masks[c])) continue;
    try {
      const std::vector<double> measured(masks[c].taps.begin(), masks[c].taps.end());
      std::vector<double> taps = filters::minimum_phase(measured);
      filters::keep_polarity(measured, taps);
      minimum[c].taps.assign(taps.begin(), taps.end());
    } catch (const filters::Error& error) {  // a mask of zeros
      throw audio::Error(input + ": " + error.detail());
    }
    spacing[c] = filters::onset_index(masks[c]) - earliest;
    lead[c] = filters::onset_index(minimum[c]);
    if (lead[c] > spacing[c]) start = std::max(start, lead[c] - spacing[c]);
  }
  std::vector<std::size_t> shifts(masks.size(), 0);
  for (std::size_t c = 0; c < masks.size(); ++c)
    if (!silent(masks[c])) shifts[c] = start + spacing[c] - lead[c];
  const std::size_t latest_shift = *std::max_element(shifts.begin(), shifts.end());
  const std::size_t length = masks.front().taps.size() + latest_shift;
  for (std::size_t c = 0; c < masks.size(); ++c) {
    filters::Mask& mask = masks[c];
    if (silent(mask)) {
      mask.taps.resize(length, 0.0f);
      continue;
    }
    mask.taps.assign(shifts[c], 0.0f);
    mask.taps.insert(mask.taps.end(), minimum[c].taps.begin(), minimum[c].taps.end());
    mask.taps.resize(length, 0.0f);
    for (float tap : mask.taps)
      if (!std::isfinite(tap)) throw audio::Error(input + ": the minimum-phase transform did not give finite taps");
  }
  return latest_shift;
}

double loudest_peak(const filters::MaskSet& masks) {
  double peak = 0;
  for (const filters::Mask& mask : masks)
    for (float tap : mask.taps) peak = std::max(peak, std::fabs(static_cast<double>(tap)));
  return peak;
}

int fix(int argc, char** argv) {
  cxxopts::Options options("halo ir fix",
                           "Repair an impulse response: in this order, resample, make minimum phase, remove the\n"
                           "pre-delay, trim silence, fade out, normalize; every channel alike (their timing and\n"
                           "balance kept).\n"
                           "  halo ir fix IN OUT [--rate HZ] [--minimum-phase] [--remove-delay] [--trim-silence]\n"
                           "                     [--fade-out MS] [--normalize peak|energy|DB] [--format F]");
  options.positional_help("IN OUT");
  options.add_options()
      ("rate", "resample to HZ (libsamplerate, best sinc; the response kept)", cxxopts::value<std::string>(), "HZ")
      ("minimum-phase", "the minimum-phase IR of the same magnitude (channels keep their onsets' spacing)")
      ("remove-delay", "cut what comes before the earliest onset (within 20 dB of the peak)")
      ("trim-silence", "cut leading and trailing samples more than 120 dB below the peak")
      ("fade-out", "a half-cosine fade over the last MS milliseconds", cxxopts::value<std::string>(), "MS")
      ("normalize", "peak (0 dBFS), energy (sum h^2 = 1) or a peak level DB in dBFS", cxxopts::value<std::string>(),
       "peak|energy|DB")
      ("in-rate", "the sample rate of a text or .f32 IN, which does not say it", cxxopts::value<std::string>(), "HZ")
      ("format", "txt|f32|wav|json|h|camilladsp|eqapo|sox, as design's (default: from OUT's extension)",
       cxxopts::value<std::string>(), "F")
      ("q,quiet", "print nothing")
      ("h,help", "this help")
      ("files", "", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"files"});
  const auto parsed = parse_strictly(options, argc, argv);
  if (parsed.count("help")) {
    audio::print_to_standard_output(options.help() + "\n");
    return 0;
  }
  refuse_repeats(parsed, {"help", "files", "quiet", "minimum-phase", "remove-delay", "trim-silence"});
  refuse_misplaced_values(parsed);
  const std::vector<std::string> files = positionals(parsed);
  if (files.size() > 2) throw UsageError("ir fix takes one IN and one OUT: '" + files[2] + "' is a third file name");
  if (files.size() != 2) throw UsageError("ir fix needs IN and OUT (see halo ir fix --help)");
  const std::string& input = files[0];
  const std::string& output = files[1];
  if (input.empty()) throw UsageError("ir fix: an empty IN name (- reads standard input)");
  if (output.empty() || output == "-") throw UsageError("ir fix: OUT must be a file name");
  // As design's --format: Equalizer APO's config is a .txt, which the extension alone takes for
  // a text mask (the README had promised eqapo from ir fix, which had no way to ask for it).
  audio::ExportFormat format = audio::export_format_for(output);
  if (parsed.count("format")) {
    try {
      format = audio::parse_export_format(parsed["format"].as<std::string>());
    } catch (const audio::Error& error) {
      throw UsageError(error.what());
    }
  }
  check_export_output_name(output, format);  // before any work
  audio::check_output_descriptor(output);
  audio::refuse_overwriting_input(input, output);
  audio::check_output_writable(output);  // a read-only folder had been found after the resampling (a QA pass)

  const double rate_hz = parsed.count("rate") ? parse_rate_hz("--rate", parsed["rate"].as<std::string>()) : 0;
  const double in_rate_hz = parsed.count("in-rate") ? parse_rate_hz("--in-rate", parsed["in-rate"].as<std::string>()) : 0;
  const double fade_ms = parsed.count("fade-out") ? parse_real("--fade-out", parsed["fade-out"].as<std::string>()) : 0;
  if (parsed.count("fade-out") && !(fade_ms > 0))
    throw UsageError("--fade-out " + parsed["fade-out"].as<std::string>() + ": give a length in ms above 0");
  const Normalize normalize = parse_normalize(parsed);
  const bool quiet = parsed.count("quiet") > 0;
  if (!quiet) refuse_closed_report_output("ir fix prints what it did there: give -q");

  filters::MaskSet masks = read_ir(input, in_rate_hz, "--in-rate");
  // An impulse response starts at its first tap, and OUT says so, so that --mask reads it back
  // as --ir applies it. Not a linear-phase mask (symmetric taps; a silent channel beside them
  // neither way) that IN does not say is causal, and that no step below moves in time (minimum
  // phase, a cut before its onset; --trim-silence cuts a symmetric mask's ends alike): that one
  // was centred, and marking OUT causal had delayed --mask's output by (M-1)/2 frames after a
  // mere --normalize (a QA pass), or after --trim-silence (a review). Nor one whose file says it
  // is centred, as OUT then says too: a mask kept centred and faded, no longer symmetric, had
  // been read back as an impulse response, and a second `ir fix` moved it (a QA pass).
  const bool stated_centred =
      std::all_of(masks.begin(), masks.end(), [](const filters::Mask& m) { return m.alignment_stated && !m.causal; });
  const bool symmetric =
      std::all_of(masks.begin(), masks.end(), [](const filters::Mask& m) { return silent(m) || filters::linear_phase(m); });
  const bool centred_in = std::none_of(masks.begin(), masks.end(), [](const filters::Mask& m) { return m.causal; }) &&
                          (symmetric || stated_centred) && !std::all_of(masks.begin(), masks.end(), silent);
  const bool moved = parsed.count("minimum-phase") || parsed.count("remove-delay");
  const bool keep_centred = centred_in && !moved;
  // Before --rate, which keeps a causal mask's start and a centred one's centre: an IR read from
  // a sound file, which says neither, had been resampled as centred and written causal, its
  // start moved by half a new frame at twice the rate (a QA pass).
  for (filters::Mask& mask : masks) mask.causal = !keep_centred;
  std::vector<std::string> done;
  const double old_rate = masks.front().rate_hz;
  if (rate_hz > 0 && std::fabs(rate_hz - old_rate) > 1e-9) {
    try {
      masks = resampled_saying_cuts(masks, rate_hz, audio::input_name(input));
    } catch (const filters::Error& error) {
      throw UsageError("--rate " + parsed["rate"].as<std::string>() + ": " + error.detail());
    }
    char line[96];
    std::snprintf(line, sizeof line, "resampled %.10g -> %.10g Hz", old_rate, rate_hz);
    done.push_back(line);
  }
  const double rate = masks.front().rate_hz;
  if (parsed.count("minimum-phase")) {
    // A silent channel (a stereo IR with one side empty) stays silent: it had failed the whole
    // file as "a mask of zeros" (a QA pass). Every channel silent is still refused.
    if (std::all_of(masks.begin(), masks.end(), silent))
      throw audio::Error(input + ": " + (masks.size() > 1 ? "every channel is silent: " : "") +
                         "a mask of zeros has no minimum phase");
    const std::size_t latest_shift = make_minimum_phase(masks, input);
    done.push_back(latest_shift == 0 ? "minimum phase"
                                     : "minimum phase, the channels' onsets kept at their spacing (" +
                                           std::to_string(latest_shift) + " frames added)");
  }
  if (parsed.count("remove-delay")) {
    // The earliest onset of all channels: the channels keep their timing against each other.
    const std::size_t onset = earliest_onset(masks);
    keep_frames(masks, onset, masks.front().taps.size());
    done.push_back("removed " + std::to_string(onset) + " frames of pre-delay");
  }
  if (parsed.count("trim-silence")) {
    const double peak = loudest_peak(masks);
    if (peak > 0) {
      const std::size_t before = masks.front().taps.size();
      const auto [first, end] = span_above(masks, peak * std::pow(10.0, -silence_below_peak_db / 20));
      keep_frames(masks, first, end);
      done.push_back("trimmed " + std::to_string(before - masks.front().taps.size()) + " silent frames");
    }
  }
  if (fade_ms > 0) {
    const std::size_t frames = masks.front().taps.size();
    const auto asked = static_cast<std::size_t>(std::llround(fade_ms / 1000 * rate));
    const std::size_t fade = std::min(frames, asked);
    // Half a cosine from 1 down to (not reaching) 0 over the last `fade` frames: the last
    // sample is scaled by the step before 0, so no sample is lost to an exact zero.
    for (filters::Mask& mask : masks)
      for (std::size_t i = 0; i < fade; ++i) {
        const double gain = 0.5 * (1 + std::cos(pi * static_cast<double>(i + 1) / static_cast<double>(fade + 1)));
        float& tap = mask.taps[frames - fade + i];
        tap = static_cast<float>(tap * gain);
      }
    done.push_back("faded out over " + std::to_string(fade) + " frames" +
                   (asked > frames ? " (the whole IR: --fade-out is longer than it)" : fade == frames ? " (the whole IR)" : ""));
  }
  if (normalize.kind != Normalize::Kind::none) {
    double scale = 1;
    if (normalize.kind == Normalize::Kind::energy) {
      double loudest = 0;
      for (const filters::Mask& mask : masks) {
        double energy = 0;
        for (float tap : mask.taps) energy += static_cast<double>(tap) * tap;
        loudest = std::max(loudest, energy);
      }
      if (loudest > 0) scale = 1 / std::sqrt(loudest);
    } else {
      const double peak = loudest_peak(masks);
      const double target = normalize.kind == Normalize::Kind::peak ? 1.0 : std::pow(10.0, normalize.level_dbfs / 20);
      if (peak > 0) scale = target / peak;
    }
    if (loudest_peak(masks) == 0) throw audio::Error(input + ": the impulse response is all zeros; nothing to normalize");
    for (filters::Mask& mask : masks)
      for (float& tap : mask.taps) tap = static_cast<float>(tap * scale);
    char line[64];
    std::snprintf(line, sizeof line, "scaled by %.6g (%.2f dB)", scale, db20(scale));
    done.push_back(line);
  }
  if (masks.front().taps.empty()) throw audio::Error(input + ": nothing is left of the impulse response");
  // A centred mask no longer symmetric (faded) says it is centred: read back, it would be taken
  // for an impulse response. A symmetric one is read back centred as it is.
  const bool say_centred = keep_centred && std::any_of(masks.begin(), masks.end(), [](const filters::Mask& m) {
                             return !silent(m) && !filters::linear_phase(m);
                           });
  for (filters::Mask& mask : masks) mask.alignment_stated = mask.causal || say_centred;
  if (keep_centred) done.push_back(symmetric ? "kept centred (IN is a linear-phase mask)" : "kept centred (as IN says)");
  std::string steps;
  for (const std::string& step : done) steps += (steps.empty() ? "" : ", ") + step;
  if (!steps.empty())
    for (filters::Mask& mask : masks) mask.provenance += " (" + steps + ")";

  for (const std::string& file : audio::export_files(output, format, masks.size()))  // OUT's companions too
    audio::refuse_overwriting_input(input, file);
  // A signal during the work above stops the command here, OUT untouched (main says so, exit
  // 128 + its number), rather than writing and exiting 0 within the signal's grace.
  if (interrupted()) throw audio::Error("interrupted");
  audio::write_export(output, format, masks, {});
  if (const std::string lost = alignment_lost_warning(output, format, masks); !lost.empty()) notice("warning: " + lost);
  if (const std::string early = sox_delay_warning(output, format, masks, "impulse response"); !early.empty())
    notice("warning: " + early);
  if (!quiet) {
    // OUT /dev/stdout: to standard error, not into the file after the IR (as design's report).
    std::FILE* to = audio::names_standard_output(output) ? stderr : stdout;
    for (const std::string& step : done) std::fprintf(to, "%s\n", step.c_str());
    std::string written;  // every file: a config's coefficient files too
    for (const std::string& file : audio::export_files(output, format, masks.size()))
      written += (written.empty() ? "" : ", ") + file;
    std::fprintf(to, "written:   %s (%zu frames, %zu channel%s, %.10g Hz)\n", written.c_str(), masks.front().taps.size(),
                 masks.size(), masks.size() == 1 ? "" : "s", masks.front().rate_hz);
  }
  return 0;
}

}  // namespace

int ir_command(int argc, char** argv) {
  const std::string sub = argc >= 2 ? argv[1] : "";
  if (sub == "inspect") return inspect(argc - 1, argv + 1);
  if (sub == "fix") return fix(argc - 1, argv + 1);
  // Both subcommands' own help, options and all: "halo COMMAND --help lists its options" (the
  // README), and `ir --help` had given the two usage lines alone (a QA pass).
  if (sub == "--help" || sub == "-h") {
    char inspect_word[] = "inspect", fix_word[] = "fix", help_word[] = "--help";
    char* inspect_help[] = {inspect_word, help_word, nullptr};
    char* fix_help[] = {fix_word, help_word, nullptr};
    inspect(2, inspect_help);
    audio::print_to_standard_output("\n");
    return fix(2, fix_help);
  }
  throw UsageError(sub.empty() ? "ir needs inspect or fix (see halo ir --help)"
                               : "ir " + sub + ": give inspect or fix (see halo ir --help)");
}

}  // namespace halo::cli
