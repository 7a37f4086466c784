#include "src/engine/tap_set.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

#include "src/engine/error.hpp"

namespace halo {

void TapSet::check_taps(const filters::MaskSet& masks) {
  for (const auto& mask : masks) {
    if (mask.taps.empty()) throw Error("a mask has no taps");
    double worst_gain = 0;  // sum |h|: the largest |y| a full-scale input can give
    for (float tap : mask.taps) {
      if (!std::isfinite(tap)) throw Error("a mask holds NaN or Inf");
      worst_gain += std::fabs(static_cast<double>(tap));
    }
    if (worst_gain >= FLT_MAX) {
      char line[160];
      std::snprintf(line, sizeof line,
                    "the mask's worst-case gain (the sum of |h|, %.3g) overflows float32 (%.3g): scale it down",
                    worst_gain, static_cast<double>(FLT_MAX));
      throw Error(line);
    }
  }
}

TapSet TapSet::from_masks(const filters::MaskSet& masks, int channels) {
  if (channels < 1) throw Error("the stream has no channels");
  if (masks.empty()) throw Error("no mask to filter with");
  if (masks.size() != 1 && masks.size() != static_cast<std::size_t>(channels)) {
    // Named by where it came from ("file ir.wav"): the caller names the audio.
    const std::string source = filters::mask_set_source(masks);
    // One tap a channel: a single line of numbers, read as columns (a CSV row of 1024 taps had
    // been "1024 channels" with no word of why, a QA pass). Mono audio with a stereo IR (a
    // reverb): a file made stereo first, or live given --channels (it had been told of an IN it
    // does not have, a QA pass).
    const bool one_row = masks.front().taps.size() == 1 && masks.size() > 2;
    // (A MAT-file's column of taps reads the same way: libsndfile takes a row a channel.)
    const std::string advice = one_row ? ": a single line of numbers is one tap per channel; write one tap per line "
                                         "(in a MAT-file, a row is a channel: save the taps as one row)"
                               : channels == 1 ? ": give one mask, or audio of " + std::to_string(masks.size()) +
                                                     " channels (a file made so first: sox IN -c " +
                                                     std::to_string(masks.size()) + " OUT, or remix; live: --channels " +
                                                     std::to_string(masks.size()) + ")"
                                               : ": give one mask, or one per channel";
    throw Error("the mask" + (source.empty() ? "" : " (" + source + ")") + " has " + std::to_string(masks.size()) +
                " channels but the audio has " + std::to_string(channels) + advice);
  }
  check_taps(masks);
  TapSet set;
  for (const auto& mask : masks) set.mask_frames_ = std::max(set.mask_frames_, mask.taps.size());
  for (int c = 0; c < channels; ++c) {
    std::vector<float> taps = masks[masks.size() == 1 ? 0 : c].taps;
    taps.resize(set.mask_frames_, 0.0f);
    const auto same = std::find(set.distinct_.begin(), set.distinct_.end(), taps);
    set.mask_of_channel_.push_back(static_cast<std::size_t>(same - set.distinct_.begin()));
    if (same == set.distinct_.end()) set.distinct_.push_back(std::move(taps));
  }
  return set;
}

float TapSet::peak() const {
  float peak = 0;
  for (const auto& taps : distinct_)
    for (float tap : taps)
      if (std::fabs(tap) >= FLT_MIN) peak = std::max(peak, std::fabs(tap));
  return peak;
}

TapSet TapSet::scaled_by_power_of_two(int exponent) const {
  TapSet set = *this;
  for (auto& taps : set.distinct_)
    for (float& tap : taps) tap = std::fabs(tap) >= FLT_MIN ? std::ldexp(tap, exponent) : 0.0f;
  return set;
}

}  // namespace halo
