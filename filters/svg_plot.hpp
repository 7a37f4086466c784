#pragma once
#include <string>
#include <vector>

#include "filters/design_report.hpp"
#include "filters/ir_analysis.hpp"
#include "filters/mask.hpp"

namespace halo::filters {

// Plots as SVG text, written by hand: no SVG-plotting C++ library in Debian fits (PLplot and
// gnuplot draw through their own drivers and would be a second program to run). Pure: returns
// the document; the caller writes it (audio/atomic_file).
//
// Every panel is a <g class="panel"> that carries its own mapping as data- attributes
// (data-left/top/width/height: the plot area in pixels; data-x-min/max, data-y-min/max: the
// values at its edges; data-x-scale: linear or log), and every curve is a
// <polyline class="curve"> inside it, so a reader (or a test) can map points back to values.

enum class FrequencyScale { linear, log };

// A band of the spec, shaded behind the magnitude curve.
struct SpecRegion {
  enum class Kind { pass, stop } kind = Kind::pass;
  double low_hz = 0;
  double high_hz = 0;
  double gain_db = 0;         // pass: the level asked for (0 dB for unit gain)
  double ripple_db = 0;       // pass: the allowed ripple (peak to peak), 0 when the spec gives none
  double attenuation_db = 0;  // stop: the level the response must stay below, as a positive dB, 0 when none
};

// The report's bands as regions: its pass bands with the spec's ripple goal, its stop bands with
// the attenuation goal (0 when the spec gave none).
std::vector<SpecRegion> spec_regions(const DesignReport& report);

struct PlotOptions {
  std::string title;                             // one line at the top (escaped here)
  FrequencyScale scale = FrequencyScale::linear;
};

// A designed (or any) mask set: magnitude in dB with the regions shaded, group delay in ms
// where the magnitude is within 40 dB of its peak (elsewhere it means nothing), and the impulse
// response against time in seconds; one colour per mask. Every mask needs rate_hz > 0.
// Throws filters::Error for an empty set, an empty mask or a missing rate.
std::string design_plot_svg(const MaskSet& masks, const std::vector<SpecRegion>& regions, const PlotOptions& options);

// An impulse response, one colour per channel: the response against time in seconds, its
// Schroeder energy decay in dB with the T30 (or T20) line, and its magnitude response.
// `analyses[i]` is analyse_ir(masks[i]). Throws filters::Error as design_plot_svg.
std::string ir_plot_svg(const MaskSet& masks, const std::vector<IrAnalysis>& analyses, const PlotOptions& options);

}  // namespace halo::filters
