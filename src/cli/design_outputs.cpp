// halo design's --format and --plot: the names checked before any work, then the export
// (audio/mask_export) and the SVG (filters/svg_plot) written through atomic files.
#include "src/cli/design_outputs.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include "audio/atomic_file.hpp"
#include "audio/error.hpp"
#include "audio/format.hpp"
#include "audio/mask_file.hpp"
#include "audio/standard_streams.hpp"
#include "audio/same_file.hpp"
#include "src/cli/command.hpp"

namespace halo::cli {
namespace {

const char* band_name(filters::Band band) {
  switch (band) {
    case filters::Band::lowpass: return "lowpass";
    case filters::Band::highpass: return "highpass";
    case filters::Band::bandpass: return "bandpass";
    case filters::Band::bandstop: return "bandstop";
    case filters::Band::multiband: return "bands";
  }
  return "";
}

// JSON has no infinity: an exact zero's attenuation is written as null.
nlohmann::json finite_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); }

}  // namespace

void add_design_output_options(cxxopts::Options& options) {
  options.add_options("Output")
      ("format", "txt|f32|wav|json|h|camilladsp|eqapo|sox (default: from -o's extension; .json, .h, .yml too)",
       cxxopts::value<std::string>(), "F")
      ("plot", "draw the magnitude, group delay and impulse response into FILE.svg", cxxopts::value<std::string>(),
       "FILE.svg")
      ("plot-scale", "frequency axis of --plot: linear|log (default linear)", cxxopts::value<std::string>(), "S");
}

void check_plot_name(const std::string& option, const std::string& path) {
  if (path.empty()) throw UsageError(option + ": an empty name");
  if (audio::lower_extension(path) != "svg") throw UsageError(option + " " + path + ": a plot is an SVG file; name it .svg");
  const std::size_t slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw audio::Error(option + " " + path + ": cannot create a file in " + folder + ": no such folder");  // exit 1, as -o's
}

void check_export_output_name(const std::string& output, audio::ExportFormat format) {
  try {
    audio::check_export_name(output, format);
  } catch (const audio::Error& error) {
    throw UsageError(error.what());
  }
  audio::check_export_output(output, format);
}

DesignOutputs parse_design_outputs(const cxxopts::ParseResult& parsed, const std::string& output) {
  DesignOutputs outputs;
  outputs.output = output;
  try {
    outputs.format = parsed.count("format") ? audio::parse_export_format(parsed["format"].as<std::string>())
                                            : audio::export_format_for(output);
  } catch (const audio::Error& error) {
    throw UsageError(error.what());
  }
  // Standard output takes text: halo's own (the taps a line) or one of the one-file texts.
  if (output == "-" && outputs.format != audio::ExportFormat::txt && outputs.format != audio::ExportFormat::mask_file &&
      !audio::export_is_one_text(outputs.format))
    throw UsageError("--format " + parsed["format"].as<std::string>() + " writes files: give -o FILE");
  if (output != "-") check_export_output_name(output, outputs.format);
  if (parsed.count("plot")) {
    outputs.plot = parsed["plot"].as<std::string>();
    check_plot_name("--plot", outputs.plot);
    const std::vector<std::string> files =
        output == "-" ? std::vector<std::string>{} : audio::export_files(output, outputs.format, 1);
    for (const std::string& file : files)
      if (names_one_file(file, outputs.plot))
        throw UsageError("--plot " + outputs.plot + " names a file design writes already (" + file + "): choose another");
  }
  if (parsed.count("plot-scale")) {
    const std::string scale = parsed["plot-scale"].as<std::string>();
    if (scale != "linear" && scale != "log") throw UsageError("--plot-scale " + scale + ": give linear or log");
    if (!parsed.count("plot")) throw UsageError("--plot-scale goes with --plot FILE.svg");
    outputs.scale = scale == "log" ? filters::FrequencyScale::log : filters::FrequencyScale::linear;
  }
  return outputs;
}

nlohmann::json spec_json(const filters::Spec& spec) {
  nlohmann::json j;
  j["band"] = band_name(spec.band);
  j["method"] = filters::to_string(spec.method);
  j["rate_hz"] = spec.rate_hz;
  if (spec.band == filters::Band::multiband) {
    nlohmann::json bands = nlohmann::json::array();
    for (const filters::BandGoal& goal : spec.bands)
      bands.push_back({{"low_hz", goal.low_hz}, {"high_hz", goal.high_hz}, {"gain", goal.gain}, {"weight", goal.weight}});
    j["bands"] = bands;
  } else if (spec.band == filters::Band::bandpass || spec.band == filters::Band::bandstop) {
    j["low_hz"] = spec.low_hz;
    j["high_hz"] = spec.high_hz;
  } else {
    j["cutoff_hz"] = spec.low_hz;
  }
  j["taps"] = spec.taps;
  if (spec.transition_hz > 0) j["transition_hz"] = spec.transition_hz;
  if (spec.attenuation_db > 0) j["attenuation_db"] = spec.attenuation_db;
  if (spec.ripple_db > 0) j["ripple_db"] = spec.ripple_db;
  if (spec.method == filters::Method::window) j["window"] = filters::to_string(spec.window);
  j["minimum_phase"] = spec.minimum_phase;
  return j;
}

nlohmann::json report_json(const filters::DesignReport& report) {
  nlohmann::json j;
  j["method"] = report.method;
  if (!report.window.empty()) j["window"] = report.window;
  j["taps"] = report.taps;
  j["rate_hz"] = report.rate_hz;
  j["phase"] = report.phase == filters::Phase::linear ? "linear" : "minimum";
  j["delay_samples"] = report.delay_samples;
  j["delay_ms"] = report.delay_ms;
  nlohmann::json bands = nlohmann::json::array();
  for (const filters::BandMeasure& band : report.bands) {
    nlohmann::json b = {{"low_hz", band.low_hz}, {"high_hz", band.high_hz}, {"gain", band.gain},
                        {"weight", band.weight}, {"min_gain", band.min_gain}, {"max_gain", band.max_gain}};
    if (band.gain > 0) b["ripple_db"] = band.ripple_db;
    else b["attenuation_db"] = finite_or_null(band.attenuation_db);
    bands.push_back(b);
  }
  j["bands"] = bands;
  // With no pass (stop) band measured (a band narrower than the measuring guard, a mask too
  // short for its edge), there is no ripple (attenuation) to give: null, not a 0 that reads as
  // a figure.
  const auto has = [&](bool pass) {
    return std::any_of(report.bands.begin(), report.bands.end(),
                       [&](const filters::BandMeasure& band) { return (band.gain > 0) == pass; });
  };
  j["ripple_db"] = has(true) ? nlohmann::json(report.ripple_db) : nlohmann::json(nullptr);
  j["attenuation_db"] = has(false) ? finite_or_null(report.attenuation_db) : nlohmann::json(nullptr);
  j["minus_3db_hz"] = report.minus_3db_hz;
  j["minus_6db_hz"] = report.minus_6db_hz;
  j["worst_case_gain"] = report.worst_case_gain;
  j["worst_case_gain_db"] = report.worst_case_gain_db;
  if (report.target_attenuation_db > 0) j["target_attenuation_db"] = report.target_attenuation_db;
  if (report.target_ripple_db > 0) j["target_ripple_db"] = report.target_ripple_db;
  // null where nothing was judged (no edge given): a script reading true would take it for a pass.
  j["met"] = report.spec_given ? nlohmann::json(report.met) : nlohmann::json();
  j["grid_points"] = report.grid_points;
  return j;
}

void write_text_file(const std::string& path, const std::string& text) { write_text_files({{path, text}}); }

void write_text_files(const std::vector<audio::TextFile>& files) {
  std::vector<std::unique_ptr<audio::AtomicFile>> written;
  for (const audio::TextFile& file : files) {
    written.push_back(std::make_unique<audio::AtomicFile>(file.path));
    written.back()->write_all(file.text.data(), file.text.size());
  }
  for (auto& file : written) file->close_checked();
  for (auto& file : written) file->commit();
}

bool names_one_file(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return a == b;
  std::error_code error;
  // Absolute first: a relative name with no existing part stays as written ("./m.json").
  const auto canonical_a = std::filesystem::weakly_canonical(std::filesystem::absolute(a, error), error);
  const auto canonical_b = std::filesystem::weakly_canonical(std::filesystem::absolute(b, error), error);
  return (!error && canonical_a == canonical_b) || audio::is_same_file(a, b);
}

std::vector<std::string> design_output_files(const DesignOutputs& outputs, std::size_t mask_count) {
  std::vector<std::string> files;
  if (outputs.output != "-") files = audio::export_files(outputs.output, outputs.format, mask_count);
  if (!outputs.plot.empty()) files.push_back(outputs.plot);
  return files;
}

std::string alignment_lost_warning(const std::string& path, audio::ExportFormat format, const filters::MaskSet& masks) {
  const bool a_mask_file = format == audio::ExportFormat::mask_file || format == audio::ExportFormat::f32 ||
                           format == audio::ExportFormat::wav;  // JSON and headers keep it; sox's export warns itself
  if (path == "-" || masks.empty() || !a_mask_file) return {};
  if (masks.front().causal && !audio::keeps_alignment(path))
    return path + " holds no alignment: --mask reads it back centred, and filter's output with it would come " +
           std::to_string((masks.front().taps.size() - 1) / 2) +
           " frames early (filter --align causal reads it so, or write .txt, .json, .h or .wav, which keep it)";
  // A centred statement (ir fix's, of a mask made asymmetric): --mask reads any such file back
  // centred, but ir fix would read it back as an impulse response, causal.
  const bool asymmetric = std::any_of(masks.begin(), masks.end(), [](const filters::Mask& m) { return !filters::linear_phase(m); });
  if (masks.front().alignment_stated && !masks.front().causal && asymmetric && !audio::keeps_alignment(path))
    return path + " holds no alignment: ir fix would read it back as an impulse response, causal (write .txt, "
                  ".json, .h or .wav, which keep it)";
  return {};
}

std::string sox_delay_warning(const std::string& path, audio::ExportFormat format, const filters::MaskSet& masks,
                              const std::string& what) {
  if (format != audio::ExportFormat::sox || masks.empty() || !masks.front().causal) return {};
  return (path == "-" ? std::string("standard output") : path) + ": sox's fir removes " +
         std::to_string((masks.front().taps.size() - 1) / 2) + " frames of delay, as for a linear-phase mask: this " + what +
         "'s output comes that much early there";
}

void write_design_outputs(const DesignOutputs& outputs, const filters::MaskSet& masks,
                          const std::vector<audio::TextFile>& companions, const filters::Spec* spec,
                          const filters::DesignReport* report) {
  // The plot is made (pure, may throw) before any file is written.
  std::string svg;
  if (!outputs.plot.empty()) {
    filters::MaskSet plotted = masks;
    const double rate_hz = spec ? spec->rate_hz : 0;
    for (filters::Mask& mask : plotted)
      if (!(mask.rate_hz > 0)) mask.rate_hz = rate_hz > 0 ? rate_hz : 48000;
    filters::PlotOptions options;
    char rate[48];
    std::snprintf(rate, sizeof rate, " at %.10g Hz", plotted.front().rate_hz);
    options.title = masks.size() == 1 ? masks.front().provenance : std::to_string(masks.size()) + " masks";
    if (options.title.find(" Hz") == std::string::npos) options.title += rate;  // a designed mask's names its rate
    options.scale = outputs.scale;
    svg = filters::design_plot_svg(plotted, report ? filters::spec_regions(*report) : std::vector<filters::SpecRegion>{},
                                   options);
  }
  audio::ExportNotes notes;
  if (spec) notes.spec = spec_json(*spec);
  if (report) notes.measured = report_json(*report);
  std::vector<audio::TextFile> files = companions;
  if (!svg.empty()) files.push_back({outputs.plot, svg});
  if (outputs.output != "-") {
    audio::write_export(outputs.output, outputs.format, masks, notes, files);
    return;
  }
  // Standard output's text is made first (it may be refused: several masks for sox), the files
  // written next, the text printed last, when nothing can fail that would leave them alone (a
  // plot had been left by a refused export, a review).
  const std::string text =
      audio::export_is_one_text(outputs.format) ? audio::export_text(outputs.output, outputs.format, masks, notes) : "";
  write_text_files(files);
  if (!text.empty()) audio::print_to_standard_output(text);  // a failed write is main's to report, as for every stdout text
}

}  // namespace halo::cli
