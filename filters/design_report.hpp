#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "filters/mask.hpp"
#include "filters/spec.hpp"

namespace halo::filters {

// One band of the spec, as measured on the dense response. The edges are where the spec puts
// them: for --lowpass F with a transition T, the pass band is [0, F - T/2] and the stop band
// [F + T/2, rate/2] (the cutoff is the middle of the transition, as firwin's is). Without a
// transition, T is 4 * rate / taps (four bins of the mask's resolution).
struct BandMeasure {
  double low_hz = 0;            // [0, rate/2]
  double high_hz = 0;           // (low_hz, rate/2]
  double gain = 0;              // the |H| asked for: > 0 a pass band, 0 a stop band
  double weight = 1;            // remez/firls weight, > 0 (1 unless given)
  double min_gain = 0;          // the smallest |H| on the grid inside [low_hz, high_hz]
  double max_gain = 0;          // the largest
  // Pass band: max - min of 20 log10 |H| over the band (peak to peak, dB); 0 for a stop band.
  double ripple_db = 0;
  // Stop band: -20 log10 max |H| (dB below unit gain; +inf for an exact zero); 0 for a pass band.
  double attenuation_db = 0;
};

enum class Phase { linear, minimum };

// What a designed mask measures against its spec: a small value type, printed by
// `halo design`, written as JSON by --report, and the bands a plot shades.
struct DesignReport {
  std::string method;          // "window", "kaiser", "remez", "firls" (the one used, never "auto")
  std::string window;          // window/kaiser: "hamming", "kaiser:5.65"; "" for remez/firls
  std::size_t taps = 0;        // M
  double rate_hz = 0;          // > 0
  Phase phase = Phase::linear;
  // Linear phase: (M - 1) / 2 exactly. Minimum phase: the mean group delay over the pass bands
  // (what a signal in the pass band is delayed by).
  double delay_samples = 0;
  double delay_ms = 0;         // delay_samples / rate * 1000
  // Lowest first. A band that a short mask's guard squeezes to a point (no transition given:
  // a 100 Hz low-pass of 31 taps, whose guard of 4 bins is 6194 Hz wide) is not measured:
  // it is counted below instead, and the -3 dB frequencies say where the mask's edge lies.
  std::vector<BandMeasure> bands;
  std::size_t squeezed_pass_bands = 0;
  std::size_t squeezed_stop_bands = 0;
  double ripple_db = 0;        // the worst pass band's ripple_db (0 when there is no pass band)
  double attenuation_db = 0;   // the worst (smallest) stop band's attenuation_db (0 when none)
  // Frequencies (Hz, ascending) where |H| crosses -3 dB / -6 dB of the highest pass band's
  // gain (1 for the one-band designs), linearly interpolated between grid points: one per
  // transition of a lowpass, two of a bandpass; none inside a pass band of a lower gain.
  std::vector<double> minus_3db_hz;
  std::vector<double> minus_6db_hz;
  // sum |h|: the largest |output| any input within [-1, 1] can give. worst_case_gain_db is its
  // dB (20 log10): the headroom a signal needs never to clip (e.g. a preamp of -that).
  double worst_case_gain = 0;
  double worst_case_gain_db = 0;
  // The goals the spec gave (0 = not given) and whether the mask meets every one.
  double target_attenuation_db = 0;
  double target_ripple_db = 0;
  // A target given (attenuation or ripple) and band edges to judge it at (a transition, or a
  // multi-band spec): without edges the bands lie at a guard halo chose, and nothing is judged.
  bool spec_given = false;
  // How far the pass band furthest from its gain lies from it (dB, 0 where every pass band's
  // gain lies between its lowest and highest |H|): judged where a spec is, against the deviation
  // the spec allows there.
  double pass_band_off_db = 0;
  bool pass_band_off = false;  // ... and that is more than the spec allows (a goal missed)
  // The response's peak anywhere (between and outside the bands too), in dB over the highest
  // band's gain, and where. Judged where a spec is: more than overshoot_limit_db over it is a
  // goal missed (a firls mask of a multi-band spec had +74 dB at 12 kHz, between its bands,
  // and was called met, a QA pass).
  double peak_over_bands_db = 0;
  double peak_hz = 0;
  bool overshoot = false;
  bool met = true;             // every judged target met (true when none was judged; false
                               // when a band with a target was squeezed out)
  std::size_t grid_points = 0; // the dense response's size over [0, rate/2]
};

constexpr double overshoot_limit_db = 6;

// Measures `mask` against `spec` on a dense grid over [0, rate/2]: at least 16 points per tap
// and 8193 points, at most 2^22 + 1. `spec` is the spec as design() resolved it
// (Designed::spec in design.hpp: the method used, never automatic; taps the length used; the
// window used), so that the report says how the mask was made. Throws filters::Error for an
// empty mask.
DesignReport measure(const Mask& mask, const Spec& spec);

// The goals judged and what the mask reaches: "attenuation >= 80 dB (78.9), ripple <= 0.1 dB
// (0.087)"; a figure that misses its goal by less than its last digit shows more digits
// ("(80.0)" under a missed 80 dB had read as met). Empty where no goal was judged.
std::string judged_goals(const DesignReport& report);

// A one-band design (low-, high-, band-pass or band-stop) whose response never crosses -3 dB
// has no edge: too few taps for its cutoff; a band-pass or band-stop that crosses it once
// lacks one of its two edges. scipy.signal.firwin designs the same taps (with 1 tap, [1] for
// every band), so halo designs them too, and says what they are: the words of a warning, or
// empty where the mask has its edges.
std::string missing_edge_warning(const Spec& spec, const DesignReport& report);

}  // namespace halo::filters
