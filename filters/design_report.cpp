// The measured report of a design: every figure from a dense response of the float mask (what
// is written and filtered with), never from the design's own intentions.
#include "filters/design_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "filters/band_spec.hpp"
#include "filters/error.hpp"
#include "filters/response.hpp"

namespace halo::filters {
namespace {

double db(double magnitude) { return 20 * std::log10(magnitude); }

// A band this narrow (relative to the rate) is one band_layout squeezed: its edges 1e-9 of
// Nyquist apart.
constexpr double squeezed_width = 1e-6;

// Where |H| crosses `level` between grid points, interpolated linearly, but not inside a pass
// band of a lower gain than the highest one's (a shelf: its ripple about 0.5 had given 47
// "-6 dB" frequencies, a QA pass): an edge is where the response leaves its highest pass band.
std::vector<double> crossings(const Response& r, double level, const std::vector<BandGoal>& lower_pass_bands) {
  std::vector<double> found;
  for (std::size_t i = 1; i < r.magnitude.size(); ++i) {
    const double a = r.magnitude[i - 1] - level, b = r.magnitude[i] - level;
    if ((a >= 0) == (b >= 0)) continue;
    const double t = a / (a - b);
    const double hz = r.freq_hz[i - 1] + t * (r.freq_hz[i] - r.freq_hz[i - 1]);
    if (std::none_of(lower_pass_bands.begin(), lower_pass_bands.end(),
                     [hz](const BandGoal& band) { return hz >= band.low_hz && hz <= band.high_hz; }))
      found.push_back(hz);
  }
  return found;
}

// The grid samples each lobe some 32 times (intervals >= 16 taps, up to 2^22; fewer past 2^18
// taps), but a lobe's peak can fall between two samples: at a remez band's edge the grid's
// worst was 0.07 dB short of the taps' (a QA pass: "80.010 dB, met" for taps that reach 79.943
// at 6218 Hz). So the band's worst is refined: every grid extremum (maxima where `highest`,
// else minima; the grid points just outside the band too, whose peak may lie inside) gets the
// vertex of the parabola through it and its neighbours, held within the band; the few whose
// vertex is worst are evaluated directly there, in one pass over the taps (evaluating all of
// a long Kaiser mask's thousands of lobes had tripled design's time).
constexpr std::size_t refined_extremes = 8;
void refine_extremes(const Mask& mask, const Response& r, double rate_hz, double low_hz, double high_hz, bool highest,
                     double& worst) {
  const double step = r.freq_hz[1] - r.freq_hz[0];
  struct Candidate {
    double estimate, hz;
  };
  std::vector<Candidate> candidates;
  const auto first = static_cast<std::size_t>(std::lower_bound(r.freq_hz.begin(), r.freq_hz.end(), low_hz) - r.freq_hz.begin());
  // From the grid point before the band to the one after it; each needs a neighbour either side.
  for (std::size_t i = first > 1 ? first - 1 : 1; i + 1 < r.freq_hz.size() && r.freq_hz[i - 1] <= high_hz; ++i) {
    const double y0 = r.magnitude[i - 1], y1 = r.magnitude[i], y2 = r.magnitude[i + 1];
    if (highest ? !(y1 >= y0 && y1 >= y2) : !(y1 <= y0 && y1 <= y2)) continue;
    const double curvature = y0 - 2 * y1 + y2;
    double offset = curvature != 0 ? std::clamp(0.5 * (y0 - y2) / curvature, -1.0, 1.0) : 0.0;
    const double hz = std::clamp(r.freq_hz[i] + offset * step, low_hz, high_hz);
    offset = (hz - r.freq_hz[i]) / step;
    candidates.push_back({y1 + 0.5 * offset * (y2 - y0) + 0.5 * offset * offset * curvature, hz});
  }
  const std::size_t kept = std::min(refined_extremes, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(kept), candidates.end(),
                    [highest](const Candidate& a, const Candidate& b) { return highest ? a.estimate > b.estimate : a.estimate < b.estimate; });
  std::vector<double> hz(kept);
  for (std::size_t k = 0; k < kept; ++k) hz[k] = candidates[k].hz;
  for (const double at : magnitudes_at(mask, hz, rate_hz)) worst = highest ? std::max(worst, at) : std::min(worst, at);
}

}  // namespace

DesignReport measure(const Mask& mask, const Spec& spec) {
  if (mask.taps.empty()) throw Error("report: the mask has no taps");
  const std::size_t taps = mask.taps.size();
  std::size_t intervals = 8192;
  while (intervals < 16 * taps && intervals < (std::size_t(1) << 22)) intervals *= 2;

  Mask at_rate = mask;
  at_rate.rate_hz = spec.rate_hz;
  const Response r = response(at_rate, static_cast<int>(intervals + 1),
                              spec.minimum_phase ? Figures::magnitude_and_delay : Figures::magnitude);

  DesignReport report;
  report.method = to_string(spec.method);
  if (spec.method == Method::window || spec.method == Method::kaiser) report.window = to_string(spec.window);
  report.taps = taps;
  report.rate_hz = spec.rate_hz;
  report.phase = spec.minimum_phase ? Phase::minimum : Phase::linear;
  report.grid_points = r.freq_hz.size();

  double delay_sum = 0;
  std::size_t delay_points = 0;
  bool any_pass = false, any_stop = false;
  for (const BandGoal& goal : band_layout(spec, static_cast<int>(taps))) {
    // Without a transition the layout keeps 4 bins of the mask's resolution between bands; a
    // short mask's guard can be wider than a band, which band_layout then squeezes to a point
    // (a 100 Hz low-pass of 31 taps: "0-0 Hz"). Its figures would be those of one frequency,
    // a ripple of 0 dB that says nothing: it is left out, and a goal it had is not met.
    if (goal.high_hz - goal.low_hz <= squeezed_width * spec.rate_hz) {
      (goal.gain > 0 ? report.squeezed_pass_bands : report.squeezed_stop_bands) += 1;
      continue;
    }
    BandMeasure band;
    band.low_hz = goal.low_hz;
    band.high_hz = goal.high_hz;
    band.gain = goal.gain;
    band.weight = goal.weight;
    // The edges themselves, evaluated directly: the worst point of a band is often its edge.
    band.min_gain = band.max_gain = magnitude_at(mask, goal.low_hz, spec.rate_hz);
    const double at_high = magnitude_at(mask, goal.high_hz, spec.rate_hz);
    band.min_gain = std::min(band.min_gain, at_high);
    band.max_gain = std::max(band.max_gain, at_high);
    const auto first = std::lower_bound(r.freq_hz.begin(), r.freq_hz.end(), goal.low_hz) - r.freq_hz.begin();
    for (std::size_t i = static_cast<std::size_t>(first); i < r.freq_hz.size() && r.freq_hz[i] <= goal.high_hz; ++i) {
      band.min_gain = std::min(band.min_gain, r.magnitude[i]);
      band.max_gain = std::max(band.max_gain, r.magnitude[i]);
      if (goal.gain > 0 && !r.group_delay.empty()) {  // (a minimum-phase mask's; a linear one's is (M-1)/2)
        delay_sum += r.group_delay[i];
        ++delay_points;
      }
    }
    refine_extremes(mask, r, spec.rate_hz, goal.low_hz, goal.high_hz, true, band.max_gain);
    if (goal.gain > 0) refine_extremes(mask, r, spec.rate_hz, goal.low_hz, goal.high_hz, false, band.min_gain);
    if (goal.gain > 0) {
      band.ripple_db = band.min_gain > 0 ? db(band.max_gain / band.min_gain) : INFINITY;
      report.ripple_db = any_pass ? std::max(report.ripple_db, band.ripple_db) : band.ripple_db;
      any_pass = true;
    } else {
      band.attenuation_db = band.max_gain > 0 ? -db(band.max_gain) : INFINITY;
      report.attenuation_db = any_stop ? std::min(report.attenuation_db, band.attenuation_db) : band.attenuation_db;
      any_stop = true;
    }
    report.bands.push_back(band);
  }

  if (report.phase == Phase::minimum && delay_points == 0) {
    // No pass band laid out (a short mask given no transition): the frequencies within 3 dB
    // of the response's peak stand for it, rather than the linear-phase (M-1)/2, which a
    // minimum-phase mask does not have (a QA pass found 5.5 samples reported for 2.6).
    const double peak = *std::max_element(r.magnitude.begin(), r.magnitude.end());
    for (std::size_t i = 0; i < r.freq_hz.size(); ++i)
      if (r.magnitude[i] >= peak * std::pow(10.0, -3.0 / 20)) {
        delay_sum += r.group_delay[i];
        ++delay_points;
      }
  }
  if (report.phase == Phase::linear || delay_points == 0) {
    report.delay_samples = 0.5 * static_cast<double>(taps - 1);
  } else {
    report.delay_samples = delay_sum / static_cast<double>(delay_points);
  }
  report.delay_ms = report.delay_samples / spec.rate_hz * 1000;
  // -3 and -6 dB of the highest pass band's gain, not of 1: a pass band at 2 had its "-3 dB"
  // 9 dB below it, and one at 0.5 none (a QA pass).
  const std::vector<BandGoal> layout = band_layout(spec, static_cast<int>(taps));
  double pass_gain = 0;
  for (const BandGoal& goal : layout) pass_gain = std::max(pass_gain, goal.gain);
  if (!(pass_gain > 0)) pass_gain = 1;
  std::vector<BandGoal> lower_pass_bands;
  for (const BandGoal& goal : layout)
    if (goal.gain > 0 && goal.gain < pass_gain) lower_pass_bands.push_back(goal);
  report.minus_3db_hz = crossings(r, pass_gain * std::pow(10.0, -3.0 / 20), lower_pass_bands);
  report.minus_6db_hz = crossings(r, pass_gain * std::pow(10.0, -6.0 / 20), lower_pass_bands);

  const double sum = worst_case_gain(mask);
  report.worst_case_gain = sum;
  report.worst_case_gain_db = sum > 0 ? db(sum) : -INFINITY;

  report.target_attenuation_db = spec.attenuation_db;
  report.target_ripple_db = spec.ripple_db;
  // Judged only against edges the user gave: a transition, or a multi-band spec's bands. A Kaiser
  // length with --attenuation alone (its beta) is measured at a guard of 4 rate / taps that
  // halo chose, and "not met" there (42 dB against 80 for 101 taps, a QA pass) judged the mask
  // by an edge nobody asked for.
  const bool edges_given = spec.band == Band::multiband || spec.transition_hz > 0;
  report.spec_given = edges_given && (spec.attenuation_db > 0 || spec.ripple_db > 0);
  report.met = !report.spec_given || (!(spec.ripple_db > 0 && report.squeezed_pass_bands > 0) &&
               !(spec.attenuation_db > 0 && report.squeezed_stop_bands > 0));
  // A pass band at its gain, give or take the deviation the spec allows there: the ripple's, or
  // with --attenuation alone the stop band's (Kaiser's design and remez's equal weights give
  // the pass band that). Peak to peak alone had let a mask scaled down everywhere meet a spec:
  // one tap of 0.0062 "met" 30 dB, its pass band 44 dB below its gain (a QA pass).
  double allowed = std::pow(10.0, -spec.attenuation_db / 20);
  if (spec.ripple_db > 0) allowed = (std::pow(10.0, spec.ripple_db / 20) - 1) / (std::pow(10.0, spec.ripple_db / 20) + 1);
  for (const BandMeasure& band : report.spec_given ? report.bands : std::vector<BandMeasure>{}) {
    if (band.gain > 0 && spec.ripple_db > 0 && !(band.ripple_db <= spec.ripple_db)) report.met = false;
    if (band.gain == 0 && spec.attenuation_db > 0 && !(band.attenuation_db >= spec.attenuation_db)) report.met = false;
    if (band.gain > 0) {
      const double below = band.max_gain < band.gain ? db(band.gain / band.max_gain) : 0;  // +inf for a band at 0
      const double above = band.min_gain > band.gain ? db(band.min_gain / band.gain) : 0;
      report.pass_band_off_db = std::max({report.pass_band_off_db, below, above});
      if (!(band.max_gain >= band.gain * (1 - allowed) && band.min_gain <= band.gain * (1 + allowed))) {
        report.met = false;
        report.pass_band_off = true;
      }
    }
  }
  const auto peak = std::max_element(r.magnitude.begin(), r.magnitude.end());
  if (peak != r.magnitude.end() && *peak > 0) {
    report.peak_over_bands_db = db(*peak / pass_gain);
    report.peak_hz = r.freq_hz[static_cast<std::size_t>(peak - r.magnitude.begin())];
  }
  if (report.spec_given && report.peak_over_bands_db > overshoot_limit_db) {
    report.met = false;
    report.overshoot = true;
  }
  return report;
}

std::string judged_goals(const DesignReport& r) {
  std::string goals;
  char text[96];
  const auto figure = [](double value, int digits) {
    char number[32];
    std::snprintf(number, sizeof number, "%.*f", digits, value);
    return std::string(number);
  };
  if (r.target_attenuation_db > 0) {
    int digits = 1;
    while (digits < 6 && r.attenuation_db < r.target_attenuation_db &&
           std::stod(figure(r.attenuation_db, digits)) >= r.target_attenuation_db)
      ++digits;
    std::snprintf(text, sizeof text, "attenuation >= %g dB (%s)", r.target_attenuation_db,
                  figure(r.attenuation_db, digits).c_str());
    goals += text;
  }
  if (r.target_ripple_db > 0) {
    int digits = 3;
    while (digits < 8 && r.ripple_db > r.target_ripple_db && std::stod(figure(r.ripple_db, digits)) <= r.target_ripple_db)
      ++digits;
    std::snprintf(text, sizeof text, "%sripple <= %g dB (%s)", goals.empty() ? "" : ", ", r.target_ripple_db,
                  figure(r.ripple_db, digits).c_str());
    goals += text;
  }
  if (r.pass_band_off) {  // said where it is what failed (1.3e-7 dB off had been listed beside a missed attenuation)
    std::snprintf(text, sizeof text, "%spass band at its gain (%.3g dB off)", goals.empty() ? "" : ", ", r.pass_band_off_db);
    goals += text;
  }
  if (r.overshoot) {
    std::snprintf(text, sizeof text, "%sno more than %g dB over the bands anywhere (%+.1f dB at %.0f Hz)",
                  goals.empty() ? "" : ", ", overshoot_limit_db, r.peak_over_bands_db, r.peak_hz);
    goals += text;
  }
  return goals;
}

std::string missing_edge_warning(const Spec& spec, const DesignReport& report) {
  if (spec.band == Band::multiband) return "";
  const std::string mask = "the " + to_string(spec.band) + " mask of " + std::to_string(report.taps) +
                           (report.taps == 1 ? " tap" : " taps");
  const std::string more = " (give more --taps, or --transition with --attenuation)";
  if (report.minus_3db_hz.empty()) return mask + " never falls 3 dB below its pass band: too few taps for its cutoff" + more;
  // A band-pass or band-stop has two edges. With one crossing it is a low- or high-pass in
  // effect (a 100 Hz band-pass of 31 taps: +1.3 dB at DC, one -3 dB point at 1825 Hz, and had
  // no warning; a QA pass): the edge far from that crossing is the one the taps do not reach.
  const bool two_edges = spec.band == Band::bandpass || spec.band == Band::bandstop;
  if (two_edges && report.minus_3db_hz.size() < 2) {
    const double crossing = report.minus_3db_hz.front();
    const double missed = std::fabs(crossing - spec.low_hz) > std::fabs(crossing - spec.high_hz) ? spec.low_hz : spec.high_hz;
    char line[160];
    std::snprintf(line, sizeof line, " falls 3 dB below its pass band only at %.1f Hz, none near its %.10g Hz edge: too "
                  "few taps for that edge", crossing, missed);
    return mask + line + more;
  }
  return "";
}

}  // namespace halo::filters
