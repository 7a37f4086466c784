#pragma once
#include <string>
#include <vector>

#include "filters/spec.hpp"

namespace halo::filters {

// Parses a multi-band spec: bands separated by commas, each "LO-HI:GAIN" in Hz (a k suffix
// means kHz) with an optional "/w=WEIGHT", e.g. "0-3000:1, 4000-24000:0/w=10". Throws
// filters::Error (Field::bands) naming the band that does not parse. Ranges are validate_bands'.
std::vector<BandGoal> parse_bands(const std::string& text);

// 2 to 64 bands, lowest first, each inside [0, rate/2] with low < high, not touching the next
// (a transition lies between), gain in [0, 1000], weight in (0, 1e6], at least one pass band.
// Throws filters::Error (Field::bands) naming the band.
void validate_bands(const std::vector<BandGoal>& bands, double rate_hz);

// The bands a spec asks for, lowest first: Spec::bands for a multi-band spec; otherwise the
// pass and stop bands around each cutoff F, [.., F - T/2] and [F + T/2, ..], T the spec's
// transition or, without one, 4 * rate / taps (four bins of the mask's resolution; an edge
// that would cross 0, Nyquist or the other edge is held inside). Pass bands weigh 1; stop bands
// delta_pass / delta_stop when the spec gives both ripple_db and attenuation_db, else 1.
std::vector<BandGoal> band_layout(const Spec& spec, int taps);

// "0-3000:1, 4000-24000:0/w=10": what parse_bands reads.
std::string to_string(const std::vector<BandGoal>& bands);

}  // namespace halo::filters
