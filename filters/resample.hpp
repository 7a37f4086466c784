#pragma once
#include "filters/mask.hpp"

namespace halo::filters {

// The same filter at another sample rate: the taps resampled with libsamplerate's best sinc
// (SRC_SINC_BEST_QUALITY, band-limited, 97 dB of stop band) and scaled by old/new rate, so that
// the frequency response below both Nyquists stays what it was (resampling keeps a signal's
// amplitude, but a filter's gain is the sum of its taps, which grows with the rate). The length
// becomes ceil(taps * new / old). A causal mask keeps its first tap's time; a centred one its
// centre's, so that its (M - 1) / 2 frames of delay stay where halo removes them and a symmetric
// mask stays symmetric. rate_hz of the result is new_rate_hz; the provenance says so.
// Throws filters::Error when either rate is not above 0 or libsamplerate fails.
Mask resample(const Mask& mask, double new_rate_hz);

}  // namespace halo::filters
