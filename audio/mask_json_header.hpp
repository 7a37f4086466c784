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
// lists) and optionally "rate_hz", "align", "taps" and "channels" (checked against the lists);
// also a bare list. Throws audio::Error naming the file: not JSON, no coefficients, a value
// that is not a finite number or does not fit a float, ragged lists, more than 2^24 taps.
// (C headers are read back by audio/c_header_reader.hpp.)
filters::MaskSet parse_json_mask(const std::string& path, const std::string& text);

// A C identifier made from a file name's stem: other characters become '_', a leading digit or
// a C/C++ keyword gets a prefix; "mask" when nothing is left.
std::string c_identifier(const std::string& stem);

}  // namespace halo::audio
