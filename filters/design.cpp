// Windowed-sinc FIR design with the semantics of scipy.signal.firwin and kaiserord.
#include "filters/design.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "filters/band_spec.hpp"
#include "filters/error.hpp"
#include "filters/methods.hpp"

namespace halo::filters {
namespace {

constexpr double pi = 3.14159265358979323846;

// sin(pi x) / (pi x), 1 at 0: numpy.sinc.
double sinc(double x) {
  if (x == 0) return 1.0;
  const double y = pi * x;
  return std::sin(y) / y;
}

// A pass band as fractions of Nyquist: [left, right] with 0 <= left < right <= 1.
struct PassBand {
  double left;
  double right;
};

// The pass bands of a spec, lowest first, as firwin builds them from cutoff and pass_zero.
std::vector<PassBand> pass_bands(const Spec& spec) {
  const double nyquist = 0.5 * spec.rate_hz;
  const double low = spec.low_hz / nyquist;
  const double high = spec.high_hz / nyquist;
  switch (spec.band) {
    case Band::lowpass: return {{0.0, low}};
    case Band::highpass: return {{low, 1.0}};
    case Band::bandpass: return {{low, high}};
    case Band::bandstop: return {{0.0, low}, {high, 1.0}};
    case Band::multiband: break;
  }
  throw Error(Field::method, "window and kaiser design the four band types, not a multi-band spec");
}

// The length and window a spec resolves to, and how the length was reached.
struct Resolved {
  int taps;
  Window window;
  std::string length_note;  // for provenance: "" or how kaiserord chose the length
};

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

Resolved resolve(const Spec& spec) {
  if (spec.taps != 0) return {spec.taps, spec.window, ""};

  const KaiserOrder order = kaiser_order(spec.attenuation_db, spec.transition_hz, spec.rate_hz);
  Resolved resolved{order.taps, Window{WindowKind::kaiser, order.beta}, ""};
  std::string note = " (kaiserord: " + number(spec.attenuation_db) + " dB, " +
                     number(spec.transition_hz) + " Hz transition";
  // A band that passes Nyquist needs an odd length; one more tap only narrows the transition.
  const bool passes_nyquist = spec.band == Band::highpass || spec.band == Band::bandstop;
  if (passes_nyquist && resolved.taps % 2 == 0) {
    note += ", " + std::to_string(resolved.taps) + " made odd";
    resolved.taps += 1;
  }
  resolved.length_note = note + ")";
  return resolved;
}

// h[n] = sum over pass bands of right*sinc(right*m) - left*sinc(left*m), m = n - (M-1)/2,
// times the window, then scaled to unit gain at the centre of the first pass band
// (0 when it starts at DC, Nyquist when it ends there): firwin with scale=True.
std::vector<double> windowed_sinc(const std::vector<PassBand>& bands, int taps, const Window& window) {
  const double alpha = 0.5 * (taps - 1);
  std::vector<double> h(taps, 0.0);
  for (int n = 0; n < taps; ++n) {
    const double m = n - alpha;
    for (const PassBand& band : bands) {
      h[n] += band.right * sinc(band.right * m);
      h[n] -= band.left * sinc(band.left * m);
    }
  }

  const std::vector<double> w = window_coefficients(window, taps);
  for (int n = 0; n < taps; ++n) h[n] *= w[n];

  const PassBand& first = bands.front();
  double scale_frequency = 0.5 * (first.left + first.right);
  if (first.left == 0) scale_frequency = 0.0;
  else if (first.right == 1) scale_frequency = 1.0;

  double gain = 0;
  for (int n = 0; n < taps; ++n) gain += h[n] * std::cos(pi * (n - alpha) * scale_frequency);
  // A 2-tap hann window is exactly zero, and scipy divides 0 by 0. Say so instead of
  // handing out NaN. (Blackman's ends are rounding noise, not zero: the scale cancels it,
  // as in scipy.)
  if (!(std::fabs(gain) > 0) || !std::isfinite(gain)) {
    throw Error(Field::taps, std::to_string(taps) + " with a " + to_string(window) +
                                 " window is all zeros: use more taps or another window");
  }
  for (double& tap : h) tap /= gain;
  return h;
}

std::string edges_text(const Spec& spec) {
  if (spec.band == Band::multiband) return "bands " + to_string(spec.bands) + " Hz";
  std::string edges = number(spec.low_hz);
  if (spec.band == Band::bandpass || spec.band == Band::bandstop) edges += ":" + number(spec.high_hz);
  return to_string(spec.band) + " " + edges + " Hz";
}

}  // namespace

// scipy.signal.kaiser_beta (Oppenheim & Schafer): beta for a stop-band attenuation in dB.
double kaiser_beta(double attenuation_db) {
  if (attenuation_db > 50) return 0.1102 * (attenuation_db - 8.7);
  if (attenuation_db > 21) {
    return 0.5842 * std::pow(attenuation_db - 21, 0.4) + 0.07886 * (attenuation_db - 21);
  }
  return 0.0;
}

KaiserOrder kaiser_order(double attenuation_db, double transition_hz, double rate_hz) {
  validate_kaiser(attenuation_db, transition_hz, rate_hz);
  // The same operations in the same order as scipy, so that ceil() lands on the same side.
  const double width = transition_hz / (0.5 * rate_hz);
  const double taps = (attenuation_db - 7.95) / 2.285 / (pi * width) + 1;
  const double too_many = 1 << 30;  // keeps the cast defined; validate() has the real limit
  return {taps >= too_many ? static_cast<int>(too_many) : static_cast<int>(std::ceil(taps)),
          kaiser_beta(attenuation_db)};
}

std::vector<double> coefficients_of(const Spec& resolved) {
  std::vector<double> h;
  switch (resolved.method) {
    case Method::window:
    case Method::kaiser: h = windowed_sinc(pass_bands(resolved), resolved.taps, resolved.window); break;
    case Method::remez: h = remez(resolved.taps, band_layout(resolved, resolved.taps), resolved.rate_hz); break;
    case Method::firls: h = least_squares(resolved.taps, band_layout(resolved, resolved.taps), resolved.rate_hz); break;
    case Method::automatic: throw Error(Field::method, "auto is resolved before any taps are made");
  }
  return resolved.minimum_phase ? minimum_phase(h) : h;
}

Mask mask_of(const std::vector<double>& taps, const Spec& resolved, const std::string& how) {
  Mask mask;
  mask.taps.assign(taps.begin(), taps.end());  // double inside, float on the way out
  mask.rate_hz = resolved.rate_hz;
  mask.causal = resolved.minimum_phase;
  std::string method;
  switch (resolved.method) {
    case Method::window: method = to_string(resolved.window) + " window"; break;
    case Method::kaiser: method = "kaiser (" + to_string(resolved.window) + ")"; break;
    default: method = to_string(resolved.method); break;
  }
  mask.provenance = edges_text(resolved) + ", " + std::to_string(resolved.taps) + (resolved.taps == 1 ? " tap" : " taps") + how + ", " + method +
                    (resolved.minimum_phase ? ", minimum phase" : "") + ", " + number(resolved.rate_hz) + " Hz";
  return mask;
}

Designed design_to_spec(const Spec& spec, const SearchObserver& observer) {
  validate(spec);
  if (spec.taps == 0 && spec.method != Method::window) return shortest_design(spec, observer);
  Spec resolved = spec;
  std::string how;
  if (spec.method == Method::window) {
    const Resolved r = resolve(spec);
    resolved.taps = r.taps;
    resolved.window = r.window;
    how = r.length_note;
    // kaiserord's length was reached from the goal: keep it for the report, as a given length.
  } else if (spec.method == Method::kaiser) {
    resolved.window = Window{WindowKind::kaiser, kaiser_beta(spec.attenuation_db)};
  }
  const std::vector<double> h = coefficients_of(resolved);
  return {mask_of(h, resolved, how), resolved};
}

Mask design(const Spec& spec) { return design_to_spec(spec).mask; }

std::vector<double> design_coefficients(const Spec& spec) {
  // The taps at the resolved length once more, in double (design_to_spec keeps the float mask).
  return coefficients_of(design_to_spec(spec).spec);
}

}  // namespace halo::filters
