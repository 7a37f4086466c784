// Impulse-response figures: peak, onset, energy, worst-case gain and the Schroeder decay with its
// T20/T30/EDT fits. Double precision throughout; one pass for the sums, one backward pass for
// the decay.
#include "filters/ir_analysis.hpp"

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

double db20(double magnitude) {
  return magnitude > 0 ? 20 * std::log10(magnitude) : -std::numeric_limits<double>::infinity();
}

}  // namespace

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
  // Least squares over t = i / rate, centred for accuracy over long runs.
  const double count = static_cast<double>(last - first + 1);
  const double mean_i = (static_cast<double>(first) + static_cast<double>(last)) / 2;
  double mean_y = 0;
  for (std::size_t i = first; i <= last; ++i) mean_y += decay_db[i];
  mean_y /= count;
  double sxy = 0, sxx = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double di = static_cast<double>(i) - mean_i;
    sxy += di * (decay_db[i] - mean_y);
    sxx += di * di;
  }
  const double per_sample = sxy / sxx;
  const double per_second = per_sample * rate_hz;
  if (slope) *slope = per_second;
  if (offset) *offset = mean_y - per_sample * mean_i;
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

  const double onset_level = largest * std::pow(10.0, -onset_below_peak_db / 20);
  a.onset_index = a.peak_index;
  for (std::size_t i = 0; i < a.peak_index; ++i) {
    if (std::fabs(static_cast<double>(mask.taps[i])) >= onset_level) {
      a.onset_index = i;
      break;
    }
  }
  a.pre_delay_s = static_cast<double>(a.onset_index) / rate;

  // Backward integration: the energy left at each sample, from the onset on.
  const std::size_t length = a.frames - a.onset_index;
  a.decay_db.assign(length, 0.0);
  double left = 0;
  for (std::size_t i = length; i-- > 0;) {
    const double h = mask.taps[a.onset_index + i];
    left += h * h;
    a.decay_db[i] = left;
  }
  const double total = a.decay_db.empty() ? 0 : a.decay_db.front();
  for (double& value : a.decay_db)
    value = total > 0 && value > 0 ? 10 * std::log10(value / total) : -std::numeric_limits<double>::infinity();

  a.edt_s = reverberation_time(a.decay_db, rate, 0, -10);
  a.t20_s = reverberation_time(a.decay_db, rate, -5, -25, &a.fit_slope_db_per_s, &a.fit_offset_db);
  double slope = 0, offset = 0;
  a.t30_s = reverberation_time(a.decay_db, rate, -5, -35, &slope, &offset);
  if (!std::isnan(a.t30_s)) {
    a.fit_slope_db_per_s = slope;
    a.fit_offset_db = offset;
  }
  if (std::isnan(a.t20_s) && std::isnan(a.t30_s)) a.fit_slope_db_per_s = a.fit_offset_db = 0;
  return a;
}

}  // namespace halo::filters
