#pragma once
#include <string>

#include "filters/mask.hpp"

namespace halo::audio {

// A mask read back from a C/C++ header (`halo design --format h` writes them; mask_file.hpp
// dispatches .h and .hpp here): the taps a compiler reads from the one `float` array the file
// holds, or a refusal in one line naming the file (and the line) and why halo cannot be sure.
// Not a C compiler: comments, a `//` comment continued by a backslash, and `#if 0` blocks are
// left out as a compiler leaves them, `#define NAME N` gives sizes, and what halo cannot
// evaluate is refused rather than guessed: several floating arrays, a size that is an expression,
// three sizes, a list that does not fill its declared size (a compiler pads it with zeros and
// the mask would be centred elsewhere), numbers that are not plain C literals.
// The type is float, double or a filter tool's name for them (float32_t, real64_T, ...):
//   float NAME[M] = {...};        one mask of M taps ([] takes the list's count)
//   float NAME[C][M] = {{...}, ...} or {... C x M values}: one mask per channel
// Constants: NAME_rate_hz = R (the rate), NAME_causal = 1 (it starts at its first tap),
// NAME_taps and NAME_channels (checked against the lists). Throws audio::Error.
filters::MaskSet parse_header_mask(const std::string& path, const std::string& text);

// Whether `text` holds a floating array parse_header_mask reads (outside comments and `#` lines:
// "# h = {0.25, 0.5}" in a text mask had made standard input a header, a QA pass). How
// standard input, which has no name to say its format, is told for a C header.
bool holds_header_array(const std::string& text);

}  // namespace halo::audio
