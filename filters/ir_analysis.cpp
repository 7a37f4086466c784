// Impulse-response figures: peak, onset, energy, worst-case gain and the Schroeder decay with its
// T20/T30/EDT fits, cut where the decay meets the noise. Double precision throughout; one pass
// for the sums, Lundeby's rounds over the squared response, one backward pass for the decay.
#include "filters/ir_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "filters/error.hpp"

namespace halo::filters {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The onset is where the response has risen to within this many dB of its peak (ISO 3382-1).
constexpr double onset_below_peak_db = 20;

// 16-bit full scale: a stored pcm16 sample at +32767 or -32768 is what clipping leaves.
constexpr double clip_level = 32767.0 / 32768.0;

// The mean of e[start, end).
double mean_from(const std::vector<double>& e, std::size_t start, std::size_t end) {
  double sum = 0;
  for (std::size_t i = start; i < end; ++i) sum += e[i];
  return start < end ? sum / static_cast<double>(end - start) : 0;
}

// The envelope of e[0, end): its mean over intervals of `width` frames, in dB (interval k
// centred on frame (k + 1/2) width).
std::vector<double> envelope_db(const std::vector<double>& e, std::size_t end, std::size_t width) {
  std::vector<double> level(end / width);
  for (std::size_t k = 0; k < level.size(); ++k) {
    double sum = 0;
    for (std::size_t i = k * width; i < (k + 1) * width; ++i) sum += e[i];
    level[k] = db10(sum / static_cast<double>(width));
  }
  return level;
}

struct Line {  // level = a + b t, in dB, t in frames
  double a = 0, b = 0;
};

// The least-squares line through (t[i], y[i]), centred on the means for accuracy over long runs;
// at least two distinct t.
Line least_squares(const std::vector<double>& t, const std::vector<double>& y) {
  const double count = static_cast<double>(t.size());
  double mean_t = 0, mean_y = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    mean_t += t[i];
    mean_y += y[i];
  }
  mean_t /= count;
  mean_y /= count;
  double sty = 0, stt = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    sty += (t[i] - mean_t) * (y[i] - mean_y);
    stt += (t[i] - mean_t) * (t[i] - mean_t);
  }
  const double b = sty / stt;
  return {mean_y - b * mean_t, b};
}

// The least-squares line through the envelope's intervals from the first at or below
// `upper_db` to the last at or above `lower_db` (as reverberation_time takes its run: a dip
// between, a gap before the first reflection, does not end it); false where that leaves fewer
// than three intervals or the line does not fall.
bool fit_envelope(const std::vector<double>& level, std::size_t width, double lower_db, double upper_db, Line& line) {
  std::size_t first = 0;
  while (first < level.size() && level[first] > upper_db) ++first;
  std::size_t end = level.size();
  while (end > first && !(level[end - 1] >= lower_db)) --end;
  if (end < first + 3) return false;
  std::vector<double> t, y;
  for (std::size_t k = first; k < end; ++k)
    if (std::isfinite(level[k])) {  // an interval of exact zeros inside the run has no level
      t.push_back((static_cast<double>(k) + 0.5) * static_cast<double>(width));
      y.push_back(level[k]);
    }
  if (t.size() < 3) return false;
  const Line fitted = least_squares(t, y);
  if (!(fitted.b < 0)) return false;
  line = fitted;
  return true;
}

// Where a decay meets its background noise (ISO 3382-1 and 18233 ask that the decay be cut
// there), by Lundeby's iteration (Lundeby, Vigran, Bietz and Vorlaender, "Uncertainties of
// measurements in room acoustics", Acustica 81, 1995), on e, the squared response from its
// onset, up to its last sample that is not 0 (zeros padded after it are no noise): the noise is
// the mean of its last tenth; a line through e's envelope (10 ms intervals) down to 10 dB above
// the noise crosses it. Then, until the crossing stays within an interval (at most 10 rounds):
// intervals of a fifth of the line's time for 10 dB, the noise from 10 dB of the line's decay
// past the crossing on (at least the last tenth), the line through the envelope between 5 and
// 25 dB above that noise, and its crossing.
struct NoiseCut {
  NoiseFloor found;
  std::size_t end;     // frames of the decay: up to the crossing (all of e where none is found)
  double tail_energy;  // the line's energy past `end`, which the noise hides (0 where none)
  double noise;        // the noise's mean square (0 where none)
};
NoiseCut find_noise_cut(const std::vector<double>& e, double rate) {
  std::size_t n = e.size();
  while (n > 0 && e[n - 1] == 0) --n;
  if (n < 20) return {n == 0 || n == e.size() ? NoiseFloor::too_short : NoiseFloor::exact_zeros, e.size(), 0.0, 0.0};
  const std::size_t last_tenth = n - n / 10;
  double noise = mean_from(e, last_tenth, n);
  if (!(noise > 0)) return {NoiseFloor::exact_zeros, e.size(), 0.0, 0.0};
  std::size_t width = std::max<std::size_t>(1, std::min(static_cast<std::size_t>(rate / 100), n / 10));
  Line line;
  if (!fit_envelope(envelope_db(e, n, width), width, db10(noise) + 10, std::numeric_limits<double>::infinity(), line))
    return {NoiseFloor::no_decay, e.size(), 0.0, noise};
  double crossing = (db10(noise) - line.a) / line.b;
  for (int round = 0; round < 10; ++round) {
    const double frames_per_10_db = -10 / line.b;
    width = static_cast<std::size_t>(std::clamp<double>(std::round(frames_per_10_db / 5), 1, static_cast<double>(n / 3)));
    const double from = std::clamp<double>(std::round(crossing + frames_per_10_db), 0, static_cast<double>(last_tenth));
    const double next_noise = mean_from(e, static_cast<std::size_t>(from), n);
    Line next;
    if (!(next_noise > 0) ||
        !fit_envelope(envelope_db(e, n, width), width, db10(next_noise) + 5, db10(next_noise) + 25, next))
      break;
    noise = next_noise;
    line = next;
    const double moved = (db10(noise) - line.a) / line.b;
    const bool settled = std::fabs(moved - crossing) < static_cast<double>(width);
    crossing = moved;
    if (settled) break;
  }
  const auto end = static_cast<std::size_t>(std::clamp<double>(std::round(crossing), 1, static_cast<double>(n)));
  // Met within its first few intervals: no decay worth the name (a 31-tap low-pass had been
  // said to meet its noise 0.000 s after its onset, a QA pass).
  if (end < 3 * width) return {NoiseFloor::no_decay, e.size(), 0.0, noise};
  // The sum of 10^((a + b t) / 10) over t >= end: the integral of an exponential.
  const double tail = std::pow(10.0, (line.a + line.b * static_cast<double>(end)) / 10) * 10 / (-line.b * std::log(10.0));
  if (!std::isfinite(tail)) return {NoiseFloor::no_decay, e.size(), 0.0, noise};
  return {NoiseFloor::measured, end, tail, noise};
}

// reverberation_time over [upper_db, lower_db], where the decay goes decay_margin_db deeper, and
// rises above the noise at all (a response of noise alone had been given a T30).
double reverberation_time_if_deep(const IrAnalysis& a, double rate_hz, double upper_db, double lower_db,
                                  double* slope = nullptr, double* offset = nullptr) {
  if (a.noise_floor == NoiseFloor::no_decay || a.decay_depth_db() > lower_db - decay_margin_db) return nan;
  return reverberation_time(a.decay_db, rate_hz, upper_db, lower_db, slope, offset);
}

}  // namespace

double db20(double magnitude) {
  return magnitude > 0 ? 20 * std::log10(magnitude) : -std::numeric_limits<double>::infinity();
}

double db10(double power) { return power > 0 ? 10 * std::log10(power) : -std::numeric_limits<double>::infinity(); }

std::size_t onset_index(const Mask& mask) {
  std::size_t peak_index = 0;
  double largest = -1;
  for (std::size_t i = 0; i < mask.taps.size(); ++i)
    if (std::fabs(static_cast<double>(mask.taps[i])) > largest) {
      largest = std::fabs(static_cast<double>(mask.taps[i]));
      peak_index = i;
    }
  const double onset_level = largest * std::pow(10.0, -onset_below_peak_db / 20);
  for (std::size_t i = 0; i < peak_index; ++i)
    if (std::fabs(static_cast<double>(mask.taps[i])) >= onset_level) return i;
  return peak_index;
}

double reverberation_time(const std::vector<double>& decay_db, double rate_hz, double upper_db, double lower_db,
                          double* slope, double* offset) {
  // Samples from the first at or below upper_db to the last at or above lower_db (the curve
  // falls monotonically, so that is one run).
  std::size_t first = decay_db.size(), last = 0;
  bool reaches = false;
  for (std::size_t i = 0; i < decay_db.size(); ++i) {
    if (first == decay_db.size() && decay_db[i] <= upper_db) first = i;
    if (decay_db[i] >= lower_db) last = i;
    if (decay_db[i] < lower_db) reaches = true;
  }
  if (!reaches || first == decay_db.size() || last <= first) return nan;
  std::vector<double> t(last - first + 1);
  for (std::size_t i = first; i <= last; ++i) t[i - first] = static_cast<double>(i);
  const Line line = least_squares(t, std::vector<double>(decay_db.begin() + static_cast<long>(first),
                                                         decay_db.begin() + static_cast<long>(last) + 1));
  const double per_second = line.b * rate_hz;
  if (slope) *slope = per_second;
  if (offset) *offset = line.a;
  return per_second < 0 ? -60.0 / per_second : nan;
}

IrAnalysis analyse_ir(const Mask& mask) {
  if (mask.taps.empty()) throw Error("impulse response: no samples");
  if (!(mask.rate_hz > 0)) throw Error("impulse response: the sample rate is unknown");
  const double rate = mask.rate_hz;
  IrAnalysis a;
  a.frames = mask.taps.size();

  double largest = -1;
  for (std::size_t i = 0; i < mask.taps.size(); ++i) {
    const double h = mask.taps[i];
    const double magnitude = std::fabs(h);
    if (magnitude > largest) {
      largest = magnitude;
      a.peak_index = i;
      a.peak = h;
    }
    a.energy += h * h;
    a.worst_case_gain += magnitude;
    a.dc_gain += h;
    if (magnitude >= clip_level) ++a.clipped;
  }
  a.peak_dbfs = db20(largest);
  a.dc_offset = a.dc_gain / static_cast<double>(a.frames);

  a.onset_index = onset_index(mask);
  a.pre_delay_s = static_cast<double>(a.onset_index) / rate;

  // Backward integration: the energy left at each sample, from the onset to where the decay
  // meets the noise, and the decay's own energy past there.
  std::vector<double> squared(a.frames - a.onset_index);
  for (std::size_t i = 0; i < squared.size(); ++i) {
    const double h = mask.taps[a.onset_index + i];
    squared[i] = h * h;
  }
  const NoiseCut cut = find_noise_cut(squared, rate);
  a.noise_floor = cut.found;
  a.noise_dbfs = db10(cut.noise);
  a.decay_db.assign(cut.end, 0.0);
  double left = cut.tail_energy;
  for (std::size_t i = cut.end; i-- > 0;) {
    left += squared[i];
    a.decay_db[i] = left;
  }
  const double total = a.decay_db.empty() ? 0 : a.decay_db.front();
  for (double& value : a.decay_db)
    value = total > 0 && value > 0 ? 10 * std::log10(value / total) : -std::numeric_limits<double>::infinity();

  a.edt_s = reverberation_time_if_deep(a, rate, 0, -10);
  a.t20_s = reverberation_time_if_deep(a, rate, -5, -25, &a.fit_slope_db_per_s, &a.fit_offset_db);
  double slope = 0, offset = 0;
  a.t30_s = reverberation_time_if_deep(a, rate, -5, -35, &slope, &offset);
  if (!std::isnan(a.t30_s)) {
    a.fit_slope_db_per_s = slope;
    a.fit_offset_db = offset;
  }
  if (std::isnan(a.t20_s) && std::isnan(a.t30_s)) a.fit_slope_db_per_s = a.fit_offset_db = 0;
  return a;
}

}  // namespace halo::filters
