#pragma once
#include <vector>

#include "filters/mask.hpp"
#include "filters/spec.hpp"

namespace halo::filters {

// Length and Kaiser beta for a ripple/attenuation target, as scipy.signal.kaiserord:
// numtaps = ceil((A - 7.95) / (2.285 * pi * width) + 1) with width = transition / (rate/2),
// beta from A (kaiser_beta). Checks its inputs with validate_kaiser (spec.hpp): throws
// filters::Error when A is outside [8, 300] dB or the transition outside (0, rate/2).
struct KaiserOrder {
  int taps;
  double beta;
};
KaiserOrder kaiser_order(double attenuation_db, double transition_hz, double rate_hz);

// Window w[0..taps-1] (symmetric), as scipy.signal.get_window(..., fftbins=False).
std::vector<double> window_coefficients(const Window& window, int taps);

// Windowed-sinc design, as scipy.signal.firwin(numtaps, cutoff, window, pass_zero, scale=True,
// fs=rate): double precision inside, float on the way out. Validates first. When taps == 0 the
// length and beta come from kaiser_order and a highpass/bandstop length is bumped to odd
// (the provenance says so). A window that is all zeros (hann at 2 taps, where scipy returns
// NaN) throws filters::Error.
Mask design(const Spec& spec);

// Same as design() but the double coefficients, for tests and analysis.
std::vector<double> design_coefficients(const Spec& spec);

}  // namespace halo::filters
