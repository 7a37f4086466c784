#pragma once
#include <cstdint>
#include <string>

namespace halo::audio {

// What libsndfile makes of a layout it accepts on paper (sf_format_check): a thousand frames of
// a quiet tone, written to memory and read back. Empty where the file reads back as
// written (its rate, its channels and, for plain samples, its frame count); else what goes
// wrong, in words for an error line. Found by QA: VOC keeps an 8-bit file's rate as a byte
// (44100 Hz reads back as 45454), its u-law and A-law files gain a frame (the end marker read
// as a sample), WVE is 8000 Hz whatever it is given, HTK keeps the sample period in units of
// 100 ns (48000 Hz reads back as 48076), and Vorbis encodes no rate past about 200 kHz; each
// had been written with a summary naming the rate asked for. And at an odd length: AIFF pads
// an odd count of bytes to a 16-bit word, and libsndfile's header counts an 8-bit, u-law or
// A-law mono file's pad byte as a frame. `frames`, the frames the file will hold where known
// (-1 where not: a stream), spares a layout that goes wrong only at an odd length when it is
// even.
std::string layout_problem(int container, int subtype, int rate_hz, int channels, std::int64_t frames = -1);

}  // namespace halo::audio
