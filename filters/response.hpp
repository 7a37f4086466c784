#pragma once
#include <cstddef>
#include <vector>

#include "filters/mask.hpp"
#include "filters/spec.hpp"

namespace halo::filters {

// Frequency response of a mask at `points` frequencies spread evenly over [0, rate/2]
// (rate = mask.rate_hz, or 1 for "cycles per sample" when unknown).
struct Response {
  std::vector<double> freq_hz;
  std::vector<double> magnitude;     // |H|, linear
  std::vector<double> phase_rad;     // unwrapped; empty where not asked for (Figures)
  std::vector<double> group_delay;   // in samples; empty where not asked for
};
// Which figures response() computes: measure() needs no phase, and a linear-phase mask's no
// group delay either (its delay is (M-1)/2); their arctangents and the delay's second transform
// had been a third of design's search for the shortest mask. Those left out stay empty.
enum class Figures { all, magnitude_and_delay, magnitude };
Response response(const Mask& mask, int points, Figures figures = Figures::all);

// While one lives, response() keeps the FFTW plan of its last grid size from call to call:
// design's search for the shortest mask measures every length it tries on the same grid, and a
// plan made afresh for each had spent a fifth of the search computing FFTW's twiddles. Outside
// one, each call's plan is freed after it (kept, a 2^23-point plan's tables would have stayed
// through the filtering run that follows a designed mask: a review).
class ResponsePlanKeeper {
 public:
  ResponsePlanKeeper();
  ~ResponsePlanKeeper();
  ResponsePlanKeeper(const ResponsePlanKeeper&) = delete;
  ResponsePlanKeeper& operator=(const ResponsePlanKeeper&) = delete;
};

// |H| of the mask at one frequency `hz` for a sample rate of `rate_hz`, evaluated directly.
double magnitude_at(const Mask& mask, double hz, double rate_hz);
// |H| at each of `hz`, in one pass over the taps (a phasor a frequency, set exactly every 1024
// taps so that the recurrence cannot drift): a few frequencies of a million-tap mask cost what
// one does, where magnitude_at's sine and cosine a tap cost each of them in full.
std::vector<double> magnitudes_at(const Mask& mask, const std::vector<double>& hz, double rate_hz);

// The stop band of a mask designed from `spec` (at spec.rate_hz): the worst |H| on a
// 4096-point grid over [0, rate/2], at least `guard_hz` away from the band edges (the
// transition width when the spec gives one, else 4 bins of the mask's resolution,
// 4 * rate / taps). A bandstop narrower than its guards has no such point: then `points` is 0
// and the notch's depth at its centre is what there is to report.
struct StopBand {
  double guard_hz = 0;
  std::size_t points = 0;       // grid points in the stop band
  double worst_magnitude = 0;   // the largest |H| among them (0 when none)
  double centre_hz = 0;         // bandstop: the centre of the notch
  double centre_magnitude = 0;  // bandstop: |H| there
};
StopBand stop_band(const Mask& mask, const Spec& spec);

}  // namespace halo::filters
