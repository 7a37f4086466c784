#pragma once
// The design methods behind design() (design.hpp), each in its own file. Double precision;
// bands in Hz at rate_hz, already validated (band_spec.hpp's band_layout).
#include <string>
#include <vector>

#include "filters/design.hpp"
#include "filters/spec.hpp"

namespace halo::filters {

// Parks-McClellan equiripple, linear phase (type I for odd taps, type II for even), as
// scipy.signal.remez with band weights (remez.cpp). Throws filters::Error (Field::taps) when
// the exchange does not converge.
std::vector<double> remez(int taps, const std::vector<BandGoal>& bands, double rate_hz);

// Least squares, linear phase, odd taps, as scipy.signal.firls (least_squares.cpp). Throws
// filters::Error (Field::taps) when the normal equations are singular.
std::vector<double> least_squares(int taps, const std::vector<BandGoal>& bands, double rate_hz);

// The minimum-phase mask of the same length and magnitude response (minimum_phase.cpp).
std::vector<double> minimum_phase(const std::vector<double>& taps);
// A measured response's polarity, given back to its transform (minimum_phase.cpp): `changed`
// is negated where it correlates negatively with `original` at their best alignment. A
// magnitude says nothing of polarity, and minimum_phase starts every result positive: an
// inverted channel of a stereo IR had come out upright (a QA pass). Not for designed masks,
// whose minimum phase keeps its positive first tap as design has always made it.
void keep_polarity(const std::vector<double>& original, std::vector<double>& changed);

// The taps of a resolved spec (method never automatic, taps > 0, validated), minimum phase
// included (design.cpp).
std::vector<double> coefficients_of(const Spec& resolved);

// The float mask of those taps with its provenance (design.cpp). `how`: how the length was
// reached, for the provenance ("" when given).
Mask mask_of(const std::vector<double>& taps, const Spec& resolved, const std::string& how);

// The shortest mask that meets the spec's goals (taps == 0, method not window), by method or
// across kaiser, remez and firls (shortest_design.cpp).
// `observer` (may be empty) hears each length measured.
Designed shortest_design(const Spec& spec, const SearchObserver& observer);

}  // namespace halo::filters
