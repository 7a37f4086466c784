#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "filters/mask.hpp"

namespace halo::audio {

// The two mask formats that carry their spec along: JSON and a C/C++ header, written by
// `halo design --format json|h` (audio/mask_export.hpp) and read back by --mask (mask_file.hpp
// dispatches .json, .h and .hpp here). Every mask of a set has the same length.

// {"format": "halo-mask", "version": 1, "rate_hz": R (0 unknown), "provenance": "...",
//  "taps": M, "channels": C, "spec": {...}, "measured": {...}, "coefficients": [...] or [[...], ...]}
std::string json_contents(const filters::MaskSet& masks, const nlohmann::json& spec, const nlohmann::json& measured);

// `name` must be a C identifier. `comment` lines go into the leading comment as they are ("*/"
// made harmless).
std::string header_contents(const filters::MaskSet& masks, const std::string& name, const std::string& comment);

// Read back. JSON: an object with "coefficients" (a list of numbers, or a list of equal-length
// lists) and optionally "rate_hz" and "provenance"; also a bare list. Header: the brace list
// after the first `=` of a `float` array (nested braces: one mask per inner list), each number
// a C floating literal (an f/F suffix allowed), and the rate from `NAME_rate_hz = R;`. Throws
// audio::Error naming the file (and the line for a header): not JSON, no coefficients, a value
// that is not a finite number or does not fit a float, ragged lists, more than 2^24 taps.
filters::MaskSet parse_json_mask(const std::string& path, const std::string& text);
filters::MaskSet parse_header_mask(const std::string& path, const std::string& text);

// Whether `text` holds the array parse_header_mask reads, outside comments and the lines that
// open with `#` (a header's directives, a text mask's comments: "# h = {0.25, 0.5}" in a text
// mask had made standard input a header, a QA pass). How standard input, which has no name to
// say its format, is told for a C header.
bool holds_header_array(const std::string& text);

// A C identifier made from a file name's stem: other characters become '_', a leading digit or
// a C/C++ keyword gets a prefix; "mask" when nothing is left.
std::string c_identifier(const std::string& stem);

}  // namespace halo::audio
