#pragma once
#include <sndfile.h>

#include <vector>

namespace halo::audio {

// sf_readf_float, around a fault of libsndfile's: a PAF of 24 bits with 3, 5 or 6 channels
// comes out of its float (and double and short) path wrong, up to 0.94 of full scale, where its
// int path and sox read the file exactly (a QA pass: halo had filtered, and read masks from,
// the wrong samples). Such a file is read as ints, each exact in a float (24 bits, divided by
// 2^31). `format` is SF_INFO::format; `ints` a buffer the caller keeps between calls, grown
// here only when a call reads more frames than any before.
sf_count_t read_float_frames(SNDFILE* file, int format, int channels, float* interleaved, sf_count_t frames,
                             std::vector<int>& ints);

}  // namespace halo::audio
