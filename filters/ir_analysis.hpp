#pragma once
#include <cstddef>
#include <limits>
#include <vector>

#include "filters/mask.hpp"

namespace halo::filters {

// What became of the search for a response's background noise (IrAnalysis::noise_dbfs).
enum class NoiseFloor {
  measured,     // found, and the decay cut where it meets it
  exact_zeros,  // the response ends in exact zeros: no noise to cut at
  too_short,    // fewer than 20 frames from the onset: too short a decay to tell
  no_decay,     // no decay above the noise to measure (none 10 dB above it, or met within a few intervals)
};

// What `halo ir inspect` says about one channel of an impulse response. Times are in seconds at
// the mask's rate (rate_hz > 0 is required); levels in dB are relative to full scale (1.0) unless
// named otherwise. A figure that does not exist (a decay that never falls 25 dB) is NaN.
struct IrAnalysis {
  std::size_t frames = 0;
  std::size_t peak_index = 0;        // the first sample of largest |h|
  double peak = 0;                   // h there (signed)
  // An all-zero channel: no peak and no onset (peak_index and onset_index are 0 there, not
  // places in the response).
  bool silent() const { return peak == 0; }
  double peak_dbfs = 0;              // 20 log10 |peak|; -inf for an all-zero channel
  // The onset: the first sample within 20 dB of the peak (ISO 3382-1's start of the decay). The
  // pre-delay is the time before it; what comes before is silence or noise, not the response.
  std::size_t onset_index = 0;
  double pre_delay_s = 0;
  double energy = 0;                 // sum h^2
  double worst_case_gain = 0;        // sum |h|: the largest output a full-scale input can give
  double dc_gain = 0;                // sum h: the response at 0 Hz
  double dc_offset = 0;              // the mean of h
  std::size_t clipped = 0;           // samples at or beyond 16-bit full scale, |h| >= 32767/32768
  // The background noise: its mean square in dBFS (10 log10), from the end of the response by
  // Lundeby's iteration (analyse_ir); -inf where there is none to tell (noise_floor says why).
  double noise_dbfs = -std::numeric_limits<double>::infinity();
  NoiseFloor noise_floor = NoiseFloor::too_short;
  // Schroeder backward integration from the onset, up to where the decay meets that noise:
  // decay_db[i] = 10 log10 of the energy left after onset + i over the energy after the onset
  // (0 dB at the onset, falling). Past the cut the decay is the fitted exponential's, whose
  // energy is added (Lundeby's compensation), so the noise neither lengthens the decay (it had
  // given T30 3.5 times too long at 60 dB of peak-to-noise, a QA pass) nor is cut off short.
  // decay_db.size() frames from the onset are the decay; its last value is how deep it goes.
  std::vector<double> decay_db;
  double decay_depth_db() const {
    return decay_db.empty() ? 0 : decay_db.back();
  }
  // Least-squares lines through the decay curve: T20 over -5..-25 dB, T30 over -5..-35 dB,
  // EDT over 0..-10 dB, each extrapolated to 60 dB of decay (ISO 3382-1); each only where the
  // decay goes 10 dB deeper than its range's lower end (-35, -45 and -20 dB), as ISO 3382-1
  // asks of its distance from the noise: else NaN.
  double t20_s = 0;
  double t30_s = 0;
  double edt_s = 0;
  // The T30 line, or the T20 line where T30 does not exist, as decay_db = slope * t + offset
  // with t in seconds from the onset: for plots.
  double fit_slope_db_per_s = 0;
  double fit_offset_db = 0;
};

// The onset of one channel: its first sample within 20 dB of its peak (0 for a silent one).
std::size_t onset_index(const Mask& mask);

// Levels in dB of an amplitude (20 log10) and of a power (10 log10); -inf for 0.
double db20(double magnitude);
double db10(double power);

// Analyses one mask (one channel of an IR). Throws filters::Error for an empty mask or a rate
// that is not above 0.
IrAnalysis analyse_ir(const Mask& mask);

// The evaluation ranges' margin above how deep the decay goes (ISO 3382-1: 10 dB above the noise).
constexpr double decay_margin_db = 10;

// The T60 of a decay curve (decay_db sampled at rate_hz, 0 dB first) from a least-squares line
// over [upper_db, lower_db] (e.g. -5, -25 for T20), or NaN when the curve never falls to
// lower_db. `slope` and `offset` receive the line (dB per second, dB) when not null.
double reverberation_time(const std::vector<double>& decay_db, double rate_hz, double upper_db, double lower_db,
                          double* slope = nullptr, double* offset = nullptr);

}  // namespace halo::filters
