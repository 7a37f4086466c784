#pragma once
#include <string>

#include "mask.hpp"

namespace halo::filters {

// Mask files, chosen by extension:
//   .txt (or anything not below): text, one coefficient a line, '#' starts a comment,
//         several numbers on a line = one mask per column (per-channel masks);
//   .f32: raw little-endian float32, one mask;
//   .wav .flac .aif .aiff .au .caf .w64 .ogg ...: an impulse response read with libsndfile
//         (any subtype it reads), one mask per channel, rate from the file.
// read_mask throws filters::Error naming the file (and line for text) and the reason:
// missing, empty, not a number, NaN/Inf.
MaskSet read_mask(const std::string& path);

// Writes every mask of the set (equal lengths for multi-column/multi-channel output) in the
// format chosen by extension; sound files are written as float at the mask's rate (48000
// when unknown). Writes to a temporary file beside path and renames on success.
void write_mask(const std::string& path, const MaskSet& masks);

}  // namespace halo::filters
