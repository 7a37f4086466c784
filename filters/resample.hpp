#pragma once
#include "filters/mask.hpp"

namespace halo::filters {

// The same filter at another sample rate: the taps resampled with libsamplerate's best sinc
// (SRC_SINC_BEST_QUALITY, band-limited, 97 dB of stop band) and scaled by old/new rate, so that
// the frequency response below both Nyquists stays what it was (resampling keeps a signal's
// amplitude, but a filter's gain is the sum of its taps, which grows with the rate). The length
// becomes ceil(taps * new / old), and stays odd for a centred mask of odd length (an even one's
// centre lies between two taps, where filter's (M - 1) / 2 leaves it half a frame late). A
// causal mask keeps its first tap's time; a centred one its centre's, so that its (M - 1) / 2
// frames of delay stay where halo removes them and a symmetric mask stays symmetric. rate_hz
// of the result is new_rate_hz; the provenance says so.
// A causal mask whose first taps are loud rings before its start once band-limited, and that
// part is cut: `energy_cut`, where given, receives its share of the resampled mask's energy
// (a response whose direct sound is at frame 0 had lost 2.6 dB without a word, a QA pass).
// Throws filters::Error when either rate is not above 0 or libsamplerate fails.
Mask resample(const Mask& mask, double new_rate_hz, double* energy_cut = nullptr);

// Every mask of a set, and what `energy_cut` says for the one that loses most (its share).
MaskSet resample(const MaskSet& masks, double new_rate_hz, double* energy_cut = nullptr);

// Where a causal mask's ring before its start, cut, is worth saying: a thousandth of its
// energy, where its response moves by about 0.05 dB (one tap at frame 20 of 48 kHz, taken to
// 96 kHz, cuts 0.08 %; at frame 5, 0.8 %; at frame 0, 26 %, and 2.6 dB of its response).
constexpr double audible_energy_cut = 1e-3;

}  // namespace halo::filters
