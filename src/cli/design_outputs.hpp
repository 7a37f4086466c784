#pragma once
#include <cxxopts.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "audio/mask_export.hpp"
#include "filters/design_report.hpp"
#include "filters/mask.hpp"
#include "filters/spec.hpp"
#include "filters/svg_plot.hpp"

namespace halo::cli {

// What `halo design` writes besides its report: the mask in a format other programs load
// (--format) and a picture of it (--plot). Options shared with nothing else; design.cpp calls
// these three.
void add_design_output_options(cxxopts::Options& options);

struct DesignOutputs {
  std::string output;                 // -o; "-" is standard output (text only)
  audio::ExportFormat format = audio::ExportFormat::mask_file;
  std::string plot;                   // --plot FILE.svg; empty when not asked
  filters::FrequencyScale scale = filters::FrequencyScale::linear;
};

// Reads --format, --plot and --plot-scale, and checks every name they lead to before any design
// work (a format the extension contradicts, a missing folder): UsageError.
DesignOutputs parse_design_outputs(const cxxopts::ParseResult& parsed, const std::string& output);

// An output's name checked before any work: one whose extension contradicts the format, or
// that no mask file has or can have exactly, is how the command was called (UsageError, exit 2,
// as filter's OUT of an unknown extension); a folder that does not exist is the file's
// (audio::Error, exit 1). design's -o and ir fix's OUT.
void check_export_output_name(const std::string& output, audio::ExportFormat format);

// Every file write_design_outputs writes for `mask_count` masks: the export's (an Equalizer APO
// config's WAV, CamillaDSP's raw coefficients beside it) and the plot.
std::vector<std::string> design_output_files(const DesignOutputs& outputs, std::size_t mask_count);
// Whether two names are one file: the same path once "./", ".." and links are resolved, or two
// links to one existing file.
bool names_one_file(const std::string& a, const std::string& b);

// Writes the export to outputs.output (or, "-", its text to standard output), the plot and
// `companions` (--report's JSON), every file into place together or none (a full disk at the
// plot or the report had left the mask replaced and the run failed, a QA pass and a review).
// `spec` and `report`: the design and what it measured, null for a mask read from a file (then
// the plot shades no band).
void write_design_outputs(const DesignOutputs& outputs, const filters::MaskSet& masks,
                          const std::vector<audio::TextFile>& companions, const filters::Spec* spec,
                          const filters::DesignReport* report);

// A causal mask (minimum phase, an impulse response) written where its alignment has no room
// (raw .f32, a sound container without comments: W64, ...) reads back centred, and filter's
// output with it comes (M-1)/2 frames early: the warning that says so, or nothing (decided by
// the format, audio::keeps_alignment, never by reading OUT, which may be a FIFO). design's -o
// and ir fix's OUT (a QA pass: none had been given).
std::string alignment_lost_warning(const std::string& path, audio::ExportFormat format, const filters::MaskSet& masks);

// sox's fir takes every mask for linear phase and removes M/2 frames of delay: a causal mask's
// (minimum phase, an impulse response) output comes that much early there (CamillaDSP and
// Equalizer APO convolve as is). The warning that says so for the sox export, or nothing;
// `what` names the mask ("minimum-phase mask", "causal mask").
std::string sox_delay_warning(const std::string& path, audio::ExportFormat format, const filters::MaskSet& masks,
                              const std::string& what);

// The spec and the report as JSON objects (the JSON export's "spec" and "measured").
nlohmann::json spec_json(const filters::Spec& spec);
nlohmann::json report_json(const filters::DesignReport& report);

// Writes `text` to `path` through an AtomicFile (nothing under the name unless complete).
void write_text_file(const std::string& path, const std::string& text);
// Several: each written and closed before any goes into place.
void write_text_files(const std::vector<audio::TextFile>& files);

// Refuses a --plot name that is not .svg or whose folder does not exist (UsageError).
void check_plot_name(const std::string& option, const std::string& path);

}  // namespace halo::cli
