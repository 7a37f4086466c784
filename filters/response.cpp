// Frequency response by direct evaluation of H(w) = sum_k h[k] e^{-jwk}: O(points * taps),
// exact to double rounding at any frequency, no FFT grid to align with.
#include "filters/response.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <string>

#include "filters/error.hpp"

namespace halo::filters {
namespace {

constexpr double pi = 3.14159265358979323846;

// Below this |H| the phase has no meaning and the group delay is set to 0, as
// scipy.signal.group_delay does.
constexpr double singular_magnitude = 10 * DBL_EPSILON;

// numpy.unwrap: remove jumps larger than pi by adding multiples of 2 pi.
void unwrap(std::vector<double>& phase) {
  double correction = 0;
  double previous = phase.empty() ? 0 : phase.front();
  for (std::size_t i = 1; i < phase.size(); ++i) {
    const double raw = phase[i];
    const double step = raw - previous;
    previous = raw;
    if (std::fabs(step) >= pi) {
      double wrapped = std::fmod(step + pi, 2 * pi);
      if (wrapped < 0) wrapped += 2 * pi;
      wrapped -= pi;
      if (wrapped == -pi && step > 0) wrapped = pi;
      correction += wrapped - step;
    }
    phase[i] = raw + correction;
  }
}

}  // namespace

Response response(const Mask& mask, int points) {
  if (points < 1) {
    throw Error("response: " + std::to_string(points) + " points requested, at least 1 is needed");
  }
  if (mask.taps.empty()) throw Error("response: the mask has no taps");

  const double rate = mask.rate_hz > 0 ? mask.rate_hz : 1.0;
  Response r;
  r.freq_hz.resize(points);
  r.magnitude.resize(points);
  r.phase_rad.resize(points);
  r.group_delay.resize(points);

  for (int i = 0; i < points; ++i) {
    const double fraction = points == 1 ? 0.0 : static_cast<double>(i) / (points - 1);
    const double omega = pi * fraction;  // radians per sample, [0, pi]
    // H and its derivative's companion sum_k k h[k] e^{-jwk}: tau = Re(that / H).
    std::complex<double> h_sum = 0;
    std::complex<double> k_h_sum = 0;
    for (std::size_t k = 0; k < mask.taps.size(); ++k) {
      const double angle = -omega * static_cast<double>(k);
      const std::complex<double> term =
          static_cast<double>(mask.taps[k]) * std::complex<double>(std::cos(angle), std::sin(angle));
      h_sum += term;
      k_h_sum += static_cast<double>(k) * term;
    }
    r.freq_hz[i] = fraction * rate / 2;
    r.magnitude[i] = std::abs(h_sum);
    r.phase_rad[i] = std::arg(h_sum);
    r.group_delay[i] =
        r.magnitude[i] < singular_magnitude ? 0.0 : std::real(k_h_sum / h_sum);
  }
  unwrap(r.phase_rad);
  return r;
}

double magnitude_at(const Mask& mask, double hz, double rate_hz) {
  double re = 0, im = 0;
  const double omega = 2.0 * pi * hz / rate_hz;
  for (std::size_t k = 0; k < mask.taps.size(); ++k) {
    re += mask.taps[k] * std::cos(omega * static_cast<double>(k));
    im -= mask.taps[k] * std::sin(omega * static_cast<double>(k));
  }
  return std::hypot(re, im);
}

StopBand stop_band(const Mask& mask, const Spec& spec) {
  if (mask.taps.empty()) throw Error("stop band: the mask has no taps");
  constexpr int grid_points = 4096;
  const Response r = response(mask, grid_points);
  StopBand band;
  band.guard_hz = spec.transition_hz > 0 ? spec.transition_hz
                                         : 4.0 * spec.rate_hz / static_cast<double>(mask.taps.size());
  const double guard = band.guard_hz;
  for (std::size_t i = 0; i < r.freq_hz.size(); ++i) {
    const double f = r.freq_hz[i];
    bool stop = false;
    switch (spec.band) {
      case Band::lowpass: stop = f > spec.low_hz + guard; break;
      case Band::highpass: stop = f < spec.low_hz - guard; break;
      case Band::bandpass: stop = f < spec.low_hz - guard || f > spec.high_hz + guard; break;
      case Band::bandstop: stop = f > spec.low_hz + guard && f < spec.high_hz - guard; break;
    }
    if (stop) {
      band.worst_magnitude = std::max(band.worst_magnitude, r.magnitude[i]);
      ++band.points;
    }
  }
  if (spec.band == Band::bandstop) {
    band.centre_hz = (spec.low_hz + spec.high_hz) / 2;
    band.centre_magnitude = magnitude_at(mask, band.centre_hz, spec.rate_hz);
  }
  return band;
}

}  // namespace halo::filters
