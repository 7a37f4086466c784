#pragma once
#include <functional>
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

// scipy.signal.kaiser_beta: the Kaiser beta for a stop-band attenuation in dB.
double kaiser_beta(double attenuation_db);

// A mask and the spec as the design resolved it: the method used (never automatic), the
// length (taps, never 0) and the window used. measure() (design_report.hpp) takes both.
struct Designed {
  Mask mask;
  Spec spec;
};

// What the shortest-mask search (taps == 0) tells as it goes, one length measured at a time: a
// remez search of thousands of taps takes a minute, which a user should see moving.
struct SearchStep {
  Method method;
  int taps;
  bool met;  // the design at this length meets the goals
};
using SearchObserver = std::function<void(const SearchStep&)>;

// Validates, then designs by spec.method; double precision inside, float on the way out.
// - window: as scipy.signal.firwin(numtaps, cutoff, window, pass_zero, scale=True, fs=rate).
//   When taps == 0 the length and beta come from kaiser_order as they are (no search) and a
//   highpass/bandstop length is bumped to odd (the provenance says so). A window that is all
//   zeros (hann at 2 taps, where scipy returns NaN) throws filters::Error.
// - kaiser: firwin with a Kaiser window of beta kaiser_beta(attenuation_db).
// - remez, firls: on the bands of band_layout (band_spec.hpp).
// - taps == 0 (kaiser, remez, firls, automatic): the shortest mask that meets attenuation_db
//   and ripple_db on the bands (shortest_design.cpp); filters::Error naming the spec when no
//   length up to the method's max_search_taps_* does.
// minimum_phase: then the minimum-phase mask of the same length and magnitude.
// `observer`, where given, hears each length the search measures.
Designed design_to_spec(const Spec& spec, const SearchObserver& observer = {});

// design_to_spec(spec).mask.
Mask design(const Spec& spec);

// The double coefficients of design_to_spec, for tests and analysis.
std::vector<double> design_coefficients(const Spec& spec);

}  // namespace halo::filters
