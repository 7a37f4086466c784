// SVG plots of masks and impulse responses: panels with nice ticks, curves thinned to what a
// pixel column shows (its first, lowest, highest and last point, so no peak or notch is lost),
// spec regions shaded. Coordinates are written with two decimals: a hundredth of a pixel.
#include "filters/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "filters/error.hpp"
#include "filters/response.hpp"

namespace halo::filters {
namespace {

constexpr double page_width = 960;
constexpr double margin_left = 90;
constexpr double margin_right = 30;
constexpr double title_height = 44;
constexpr double panel_height = 230;
constexpr double panel_gap = 78;  // below each panel: tick labels and the axis label

const char* const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
const char* colour(std::size_t index) { return palette[index % (sizeof palette / sizeof palette[0])]; }

double db20(double magnitude) { return magnitude > 0 ? 20 * std::log10(magnitude) : -400.0; }

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // Control bytes are not allowed in XML 1.0; a file name could hold one.
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
  return out;
}

// Tick labels: "0", "2.5k", "10k" for Hz; "%g" otherwise, with float noise removed.
std::string tick_label(double value, bool hz) {
  if (std::fabs(value) < 1e-12) return "0";
  if (hz && std::fabs(value) >= 1000) return format("%g", std::round(value / 100) / 10) + "k";
  return format("%.6g", value);
}

// 1, 2 or 5 times a power of ten, near span / target.
double nice_step(double span, int target) {
  const double raw = span / target;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / power;
  const double nice = fraction < 1.5 ? 1 : fraction < 3.5 ? 2 : fraction < 7.5 ? 5 : 10;
  return nice * power;
}

struct Axis {
  double min = 0, max = 1;
  bool log = false;

  double fraction(double value) const {
    if (log) return (std::log10(value) - std::log10(min)) / (std::log10(max) - std::log10(min));
    return (value - min) / (max - min);
  }
};

// Ticks on [min, max]: multiples of a nice step, or for a log axis 1, 2 and 5 times each decade
// (only the decades when the axis spans more than three).
std::vector<double> ticks(const Axis& axis) {
  std::vector<double> out;
  if (axis.log) {
    const bool dense = std::log10(axis.max / axis.min) <= 3.01;
    for (double decade = std::pow(10.0, std::floor(std::log10(axis.min))); decade <= axis.max; decade *= 10)
      for (double m : {1.0, 2.0, 5.0}) {
        if (!dense && m != 1.0) continue;
        const double value = decade * m;
        if (value >= axis.min * (1 - 1e-9) && value <= axis.max * (1 + 1e-9)) out.push_back(value);
      }
    return out;
  }
  const double step = nice_step(axis.max - axis.min, 8);
  for (double value = std::ceil(axis.min / step - 1e-9) * step; value <= axis.max + step * 1e-9; value += step)
    out.push_back(std::fabs(value) < step * 1e-9 ? 0.0 : value);
  return out;
}

// A range with nice ends around [low, high]: widened to a step each side when it is flat.
Axis nice_range(double low, double high) {
  if (!(high > low)) {
    const double pad = std::max(std::fabs(low) * 0.1, 1e-6);
    low -= pad;
    high += pad;
  }
  const double step = nice_step(high - low, 6);
  return {std::floor(low / step) * step, std::ceil(high / step) * step, false};
}

using Points = std::vector<std::pair<double, double>>;  // (x, y) in data units

// One plot area with its axes.
class Panel {
 public:
  Panel(std::string id, double top, Axis x, Axis y, std::string x_label, std::string y_label, std::string title)
      : id_(std::move(id)), top_(top), x_(x), y_(y), x_label_(std::move(x_label)), y_label_(std::move(y_label)),
        title_(std::move(title)) {}

  double width() const { return page_width - margin_left - margin_right; }
  double px(double x) const { return margin_left + x_.fraction(x) * width(); }
  // Clamped a little outside the area (the clip path hides it): -inf dB stays finite.
  double py(double y) const {
    const double p = top_ + (1 - y_.fraction(y)) * panel_height;
    return std::clamp(std::isnan(p) ? top_ + panel_height + 4 : p, top_ - 4, top_ + panel_height + 4);
  }

  std::string open(bool x_is_hz) const {
    std::string s;
    s += "<g class=\"panel\" id=\"" + id_ + "\" data-left=\"" + format("%.2f", margin_left) + "\" data-top=\"" +
         format("%.2f", top_) + "\" data-width=\"" + format("%.2f", width()) + "\" data-height=\"" +
         format("%.2f", panel_height) + "\" data-x-min=\"" + format("%.17g", x_.min) + "\" data-x-max=\"" +
         format("%.17g", x_.max) + "\" data-x-scale=\"" + (x_.log ? "log" : "linear") + "\" data-y-min=\"" +
         format("%.17g", y_.min) + "\" data-y-max=\"" + format("%.17g", y_.max) + "\">\n";
    s += "<clipPath id=\"clip-" + id_ + "\"><rect x=\"" + format("%.2f", margin_left) + "\" y=\"" + format("%.2f", top_) +
         "\" width=\"" + format("%.2f", width()) + "\" height=\"" + format("%.2f", panel_height) + "\"/></clipPath>\n";
    s += "<rect x=\"" + format("%.2f", margin_left) + "\" y=\"" + format("%.2f", top_) + "\" width=\"" +
         format("%.2f", width()) + "\" height=\"" + format("%.2f", panel_height) +
         "\" fill=\"#ffffff\" stroke=\"none\"/>\n";
    s += "<text x=\"" + format("%.2f", margin_left) + "\" y=\"" + format("%.2f", top_ - 8) +
         "\" font-size=\"14\" font-weight=\"bold\">" + escaped(title_) + "</text>\n";
    // Grid and tick labels.
    for (double t : ticks(x_)) {
      const double x = px(t);
      s += "<line x1=\"" + format("%.2f", x) + "\" y1=\"" + format("%.2f", top_) + "\" x2=\"" + format("%.2f", x) +
           "\" y2=\"" + format("%.2f", top_ + panel_height) + "\" stroke=\"#dddddd\"/>\n";
      s += "<text x=\"" + format("%.2f", x) + "\" y=\"" + format("%.2f", top_ + panel_height + 18) +
           "\" font-size=\"12\" text-anchor=\"middle\">" + tick_label(t, x_is_hz) + "</text>\n";
    }
    for (double t : ticks(y_)) {
      const double y = py(t);
      s += "<line x1=\"" + format("%.2f", margin_left) + "\" y1=\"" + format("%.2f", y) + "\" x2=\"" +
           format("%.2f", margin_left + width()) + "\" y2=\"" + format("%.2f", y) + "\" stroke=\"#dddddd\"/>\n";
      s += "<text x=\"" + format("%.2f", margin_left - 6) + "\" y=\"" + format("%.2f", y + 4) +
           "\" font-size=\"12\" text-anchor=\"end\">" + tick_label(t, false) + "</text>\n";
    }
    s += "<text x=\"" + format("%.2f", margin_left + width() / 2) + "\" y=\"" +
         format("%.2f", top_ + panel_height + 40) + "\" font-size=\"13\" text-anchor=\"middle\">" + escaped(x_label_) +
         "</text>\n";
    const double mid = top_ + panel_height / 2;
    s += "<text x=\"" + format("%.2f", 20.0) + "\" y=\"" + format("%.2f", mid) +
         "\" font-size=\"13\" text-anchor=\"middle\" transform=\"rotate(-90 20 " + format("%.2f", mid) + ")\">" +
         escaped(y_label_) + "</text>\n";
    s += "<g clip-path=\"url(#clip-" + id_ + ")\">\n";
    return s;
  }

  // Closes the clipped group, draws the frame over the curves, then the legend.
  std::string close(const std::vector<std::pair<std::string, std::string>>& legend) const {
    std::string s = "</g>\n";
    s += "<rect x=\"" + format("%.2f", margin_left) + "\" y=\"" + format("%.2f", top_) + "\" width=\"" +
         format("%.2f", width()) + "\" height=\"" + format("%.2f", panel_height) +
         "\" fill=\"none\" stroke=\"#333333\"/>\n";
    double y = top_ + 16;
    for (const auto& [label, stroke] : legend) {
      const double x = margin_left + width() - 190;
      s += "<line x1=\"" + format("%.2f", x) + "\" y1=\"" + format("%.2f", y - 4) + "\" x2=\"" + format("%.2f", x + 22) +
           "\" y2=\"" + format("%.2f", y - 4) + "\" stroke=\"" + stroke + "\" stroke-width=\"2\"" +
           (label.find("fit") != std::string::npos ? " stroke-dasharray=\"6 4\"" : "") + "/>\n";
      s += "<text x=\"" + format("%.2f", x + 28) + "\" y=\"" + format("%.2f", y) + "\" font-size=\"12\">" +
           escaped(label) + "</text>\n";
      y += 16;
    }
    s += "</g>\n";
    return s;
  }

  // The curve thinned to at most four points per pixel column (first, lowest, highest, last
  // of the column, in their order), which draws exactly what all the points would.
  std::string curve(const Points& points, const std::string& stroke, const std::string& channel,
                    const std::string& extra = "") const {
    std::string s = "<polyline class=\"curve\" data-channel=\"" + channel + "\" fill=\"none\" stroke=\"" + stroke +
                    "\" stroke-width=\"1.5\" stroke-linejoin=\"round\"" + extra + " points=\"";
    std::size_t begin = 0;
    while (begin < points.size()) {
      const long column = std::lround(std::floor(px(points[begin].first)));
      std::size_t end = begin;
      std::size_t low = begin, high = begin;
      while (end < points.size() && std::lround(std::floor(px(points[end].first))) == column) {
        if (points[end].second < points[low].second) low = end;
        if (points[end].second > points[high].second) high = end;
        ++end;
      }
      std::vector<std::size_t> keep = {begin, low, high, end - 1};
      std::sort(keep.begin(), keep.end());
      keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
      for (std::size_t i : keep)
        s += format("%.2f", px(points[i].first)) + "," + format("%.2f", py(points[i].second)) + " ";
      begin = end;
    }
    if (s.back() == ' ') s.pop_back();
    s += "\"/>\n";
    return s;
  }

  // A band shaded over the full height between two x values.
  std::string band(double x0, double x1, const std::string& fill, const std::string& label) const {
    const double left = std::max(px(std::max(x0, x_.min)), margin_left);
    const double right = std::min(px(std::min(x1, x_.max)), margin_left + width());
    if (!(right > left)) return "";
    std::string s = "<rect class=\"region\" x=\"" + format("%.2f", left) + "\" y=\"" + format("%.2f", top_) +
                    "\" width=\"" + format("%.2f", right - left) + "\" height=\"" + format("%.2f", panel_height) +
                    "\" fill=\"" + fill + "\" fill-opacity=\"0.16\"/>\n";
    if (right - left > 36)
      s += "<text x=\"" + format("%.2f", (left + right) / 2) + "\" y=\"" + format("%.2f", top_ + panel_height - 8) +
           "\" font-size=\"12\" text-anchor=\"middle\" fill=\"" + fill + "\">" + escaped(label) + "</text>\n";
    return s;
  }

  // A dashed horizontal line from x0 to x1 at y: a spec limit.
  std::string limit(double x0, double x1, double y, const std::string& stroke) const {
    return "<line class=\"limit\" x1=\"" + format("%.2f", px(std::max(x0, x_.min))) + "\" y1=\"" + format("%.2f", py(y)) +
           "\" x2=\"" + format("%.2f", px(std::min(x1, x_.max))) + "\" y2=\"" + format("%.2f", py(y)) +
           "\" stroke=\"" + stroke + "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n";
  }

  const Axis& x() const { return x_; }
  const Axis& y() const { return y_; }

 private:
  std::string id_;
  double top_;
  Axis x_, y_;
  std::string x_label_, y_label_, title_;
};

double panel_top(int index) { return title_height + 26 + index * (panel_height + panel_gap); }

std::string document_open(int panels, const std::string& title) {
  const double height = panel_top(panels) - 8;
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + format("%.0f", page_width) + "\" height=\"" +
       format("%.0f", height) + "\" viewBox=\"0 0 " + format("%.0f", page_width) + " " + format("%.0f", height) +
       "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#fafafa\"/>\n";
  s += "<text x=\"" + format("%.2f", margin_left) + "\" y=\"28\" font-size=\"17\">" + escaped(title) + "</text>\n";
  return s;
}

void check_masks(const MaskSet& masks) {
  if (masks.empty()) throw Error("plot: no mask");
  for (const Mask& mask : masks) {
    if (mask.taps.empty()) throw Error("plot: a mask has no taps");
    if (!(mask.rate_hz > 0)) throw Error("plot: the sample rate is unknown");
  }
}

// Response points: enough that a log axis from rate/4800 Hz has several per pixel at its low
// end, and at least two per tap so long masks show their fine structure; 2^18 at most (the
// columns thin them anyway).
int response_points(const MaskSet& masks) {
  std::size_t taps = 0;
  for (const Mask& mask : masks) taps = std::max(taps, mask.taps.size());
  return static_cast<int>(std::clamp<std::size_t>(2 * taps, 16384, std::size_t{1} << 18)) + 1;
}

Axis frequency_axis(double nyquist, FrequencyScale scale) {
  if (scale == FrequencyScale::linear) return {0, nyquist, false};
  // A log axis starts at a power of ten about three decades below Nyquist (10 Hz at 48 kHz).
  return {std::pow(10.0, std::floor(std::log10(nyquist / 1000))), nyquist, true};
}

struct MagnitudeCurves {
  std::vector<Points> magnitude_db;
  std::vector<Points> group_delay_ms;  // where |H| is within 40 dB of its peak, split at gaps
  std::vector<std::size_t> group_delay_owner;  // the mask each group-delay run belongs to
  double max_db = -400, min_db = 400;
};

MagnitudeCurves magnitude_curves(const MaskSet& masks, const Axis& x, bool with_group_delay) {
  MagnitudeCurves c;
  const int points = response_points(masks);
  for (std::size_t m = 0; m < masks.size(); ++m) {
    const Response r = response(masks[m], points);
    const double peak = *std::max_element(r.magnitude.begin(), r.magnitude.end());
    Points curve, delay;
    for (std::size_t i = 0; i < r.freq_hz.size(); ++i) {
      if (r.freq_hz[i] < x.min || r.freq_hz[i] > x.max) continue;
      const double level = db20(r.magnitude[i]);
      curve.emplace_back(r.freq_hz[i], level);
      c.max_db = std::max(c.max_db, level);
      c.min_db = std::min(c.min_db, level);
      if (!with_group_delay) continue;
      if (r.magnitude[i] >= peak * 0.01 && peak > 0) {
        delay.emplace_back(r.freq_hz[i], 1000 * r.group_delay[i] / masks[m].rate_hz);
      } else if (!delay.empty()) {
        c.group_delay_ms.push_back(std::move(delay));
        c.group_delay_owner.push_back(m);
        delay.clear();
      }
    }
    if (!delay.empty()) {
      c.group_delay_ms.push_back(std::move(delay));
      c.group_delay_owner.push_back(m);
    }
    c.magnitude_db.push_back(std::move(curve));
  }
  return c;
}

// dB range: from a multiple of 10 above the highest level down to the lowest, at most 160 dB
// and at least 40 dB below the top, and 20 dB past the deepest stop-band target.
Axis magnitude_axis(double max_db, double min_db, double deepest_target_db) {
  const double top = std::ceil((max_db + 3) / 10) * 10;
  double bottom = std::floor((min_db - 5) / 20) * 20;
  bottom = std::clamp(bottom, top - 160, top - 40);
  if (deepest_target_db > 0) bottom = std::min(bottom, std::floor((-deepest_target_db - 20) / 20) * 20);
  return {bottom, top, false};
}

std::string channel_name(const MaskSet& masks, std::size_t m) {
  return masks.size() == 1 ? "mask" : "ch " + std::to_string(m + 1);
}

std::vector<std::pair<std::string, std::string>> channel_legend(const MaskSet& masks) {
  std::vector<std::pair<std::string, std::string>> legend;
  if (masks.size() > 1)
    for (std::size_t m = 0; m < masks.size(); ++m) legend.emplace_back(channel_name(masks, m), colour(m));
  return legend;
}

// The impulse-response panel: a line through the samples, and for short masks stems and dots.
std::string impulse_panel(const MaskSet& masks, int index, const std::string& title) {
  std::size_t longest = 0;
  double low = 0, high = 0;
  for (const Mask& mask : masks) {
    longest = std::max(longest, mask.taps.size());
    for (float tap : mask.taps) {
      low = std::min(low, static_cast<double>(tap));
      high = std::max(high, static_cast<double>(tap));
    }
  }
  const double rate = masks.front().rate_hz;
  const double end_s = longest > 1 ? static_cast<double>(longest - 1) / rate : 1 / rate;
  const Axis y = nice_range(low, high);
  const Panel panel("impulse", panel_top(index), {0, end_s, false}, y, "time (s)", "amplitude", title);
  std::string s = panel.open(false);
  for (std::size_t m = 0; m < masks.size(); ++m) {
    Points points;
    for (std::size_t k = 0; k < masks[m].taps.size(); ++k)
      points.emplace_back(static_cast<double>(k) / masks[m].rate_hz, masks[m].taps[k]);
    if (masks[m].taps.size() <= 160) {
      std::string stems;
      for (const auto& [t, v] : points)
        stems += "M" + format("%.2f", panel.px(t)) + " " + format("%.2f", panel.py(0)) + "V" + format("%.2f", panel.py(v));
      s += "<path d=\"" + stems + "\" stroke=\"" + colour(m) + "\" stroke-opacity=\"0.5\" fill=\"none\"/>\n";
      for (const auto& [t, v] : points)
        s += "<circle cx=\"" + format("%.2f", panel.px(t)) + "\" cy=\"" + format("%.2f", panel.py(v)) +
             "\" r=\"2.2\" fill=\"" + colour(m) + "\"/>\n";
    }
    s += panel.curve(points, colour(m), std::to_string(m + 1));
  }
  s += panel.close(channel_legend(masks));
  return s;
}

std::string magnitude_panel(const MaskSet& masks, const MagnitudeCurves& curves, const Axis& x,
                            const std::vector<SpecRegion>& regions, int index) {
  double deepest = 0;
  for (const SpecRegion& region : regions)
    if (region.kind == SpecRegion::Kind::stop) deepest = std::max(deepest, region.attenuation_db);
  const Axis y = magnitude_axis(curves.max_db, curves.min_db, deepest);
  const Panel panel("magnitude", panel_top(index), x, y, "frequency (Hz)", "magnitude (dB)", "Magnitude response");
  std::string s = panel.open(true);
  for (const SpecRegion& region : regions) {
    const bool pass = region.kind == SpecRegion::Kind::pass;
    const std::string fill = pass ? "#2ca02c" : "#d62728";
    s += panel.band(region.low_hz, region.high_hz, fill, pass ? "pass" : "stop");
    if (!pass && region.attenuation_db > 0) s += panel.limit(region.low_hz, region.high_hz, -region.attenuation_db, fill);
    if (pass && region.ripple_db > 0) {
      s += panel.limit(region.low_hz, region.high_hz, region.gain_db + region.ripple_db / 2, fill);
      s += panel.limit(region.low_hz, region.high_hz, region.gain_db - region.ripple_db / 2, fill);
    }
  }
  for (std::size_t m = 0; m < masks.size(); ++m) s += panel.curve(curves.magnitude_db[m], colour(m), std::to_string(m + 1));
  s += panel.close(channel_legend(masks));
  return s;
}

}  // namespace

std::vector<SpecRegion> spec_regions(const DesignReport& report) {
  std::vector<SpecRegion> regions;
  for (const BandMeasure& band : report.bands) {
    SpecRegion region;
    region.kind = band.gain > 0 ? SpecRegion::Kind::pass : SpecRegion::Kind::stop;
    region.low_hz = band.low_hz;
    region.high_hz = band.high_hz;
    if (band.gain > 0) {
      region.gain_db = 20 * std::log10(band.gain);
      region.ripple_db = report.target_ripple_db;
    } else {
      region.attenuation_db = report.target_attenuation_db;
    }
    regions.push_back(region);
  }
  return regions;
}

std::string design_plot_svg(const MaskSet& masks, const std::vector<SpecRegion>& regions, const PlotOptions& options) {
  check_masks(masks);
  const Axis x = frequency_axis(masks.front().rate_hz / 2, options.scale);
  const MagnitudeCurves curves = magnitude_curves(masks, x, true);

  std::string s = document_open(3, options.title);
  s += magnitude_panel(masks, curves, x, regions, 0);

  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (const Points& run : curves.group_delay_ms)
    for (const auto& point : run) {
      low = std::min(low, point.second);
      high = std::max(high, point.second);
    }
  if (!std::isfinite(low)) low = high = 0;
  // A linear-phase mask's delay is one value: show it with room either side (a tenth of it, or
  // a sample), so that the axis has a few round ticks rather than many long ones.
  const double sample_ms = 1000 / masks.front().rate_hz;
  if (high - low < sample_ms) {
    const double pad = std::max(sample_ms, 0.1 * std::fabs(high));
    low -= pad;
    high += pad;
  }
  const Panel delay("group-delay", panel_top(1), x, nice_range(low, high), "frequency (Hz)", "group delay (ms)",
                    "Group delay (where the magnitude is within 40 dB of its peak)");
  s += delay.open(true);
  for (std::size_t run = 0; run < curves.group_delay_ms.size(); ++run) {
    const std::size_t m = curves.group_delay_owner[run];
    s += delay.curve(curves.group_delay_ms[run], colour(m), std::to_string(m + 1));
  }
  s += delay.close(channel_legend(masks));

  s += impulse_panel(masks, 2, "Impulse response");
  s += "</svg>\n";
  return s;
}

std::string ir_plot_svg(const MaskSet& masks, const std::vector<IrAnalysis>& analyses, const PlotOptions& options) {
  check_masks(masks);
  if (analyses.size() != masks.size()) throw Error("plot: one analysis per channel is needed");
  std::string s = document_open(3, options.title);
  s += impulse_panel(masks, 0, "Impulse response");

  // Energy decay: time from the start of the file, the curve starting at each channel's onset.
  std::size_t longest = 0;
  double lowest = 0;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    longest = std::max(longest, masks[m].taps.size());
    for (double level : analyses[m].decay_db)
      if (std::isfinite(level)) lowest = std::min(lowest, level);
  }
  const double rate = masks.front().rate_hz;
  const double end_s = longest > 1 ? static_cast<double>(longest - 1) / rate : 1 / rate;
  const Axis decay_y{std::max(std::floor((lowest - 5) / 20) * 20, -160.0), 5, false};
  const Panel decay("decay", panel_top(1), {0, end_s, false}, decay_y, "time (s)", "energy left (dB)",
                    "Energy decay (Schroeder backward integration)");
  s += decay.open(false);
  std::vector<std::pair<std::string, std::string>> legend;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    const IrAnalysis& a = analyses[m];
    Points points;
    for (std::size_t i = 0; i < a.decay_db.size(); ++i)
      points.emplace_back(static_cast<double>(a.onset_index + i) / masks[m].rate_hz, a.decay_db[i]);
    s += decay.curve(points, colour(m), std::to_string(m + 1));
    const bool t30 = !std::isnan(a.t30_s);
    const double t60 = t30 ? a.t30_s : a.t20_s;
    if (!std::isnan(t60)) {
      // The fitted line, from the onset down to 60 dB of decay past its offset.
      const double t0 = a.pre_delay_s;
      const double t1 = t0 + (a.fit_offset_db + 60) / -a.fit_slope_db_per_s;
      s += "<line class=\"fit\" x1=\"" + format("%.2f", decay.px(t0)) + "\" y1=\"" +
           format("%.2f", decay.py(a.fit_offset_db)) + "\" x2=\"" + format("%.2f", decay.px(t1)) + "\" y2=\"" +
           format("%.2f", decay.py(-60)) + "\" stroke=\"" + colour(m) + "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n";
      legend.emplace_back((masks.size() > 1 ? channel_name(masks, m) + " " : std::string()) + (t30 ? "T30" : "T20") +
                              " fit: T60 " + format("%.3g", t60) + " s",
                          colour(m));
    } else if (masks.size() > 1) {
      legend.emplace_back(channel_name(masks, m), colour(m));
    }
  }
  s += decay.close(legend);

  const Axis x = frequency_axis(rate / 2, options.scale);
  const MagnitudeCurves curves = magnitude_curves(masks, x, false);
  s += magnitude_panel(masks, curves, x, {}, 2);
  s += "</svg>\n";
  return s;
}

}  // namespace halo::filters
