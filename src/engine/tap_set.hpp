#pragma once
#include <cstddef>
#include <vector>

#include "filters/mask.hpp"

namespace halo {

// The masks an engine filters with, in the one form every engine takes: validated (finite, at
// least one tap, one mask for all channels or one per channel), deduplicated (channels that
// share a mask share one copy) and padded with zeros to the longest mask M (zeros at the end
// change nothing in a causal convolution). Immutable once built: build it off the audio
// thread, then hand it to Engine::set_taps.
//
// Every question "how many taps does this need?" (constant memory, FFT sizes, `auto`) is
// answered from a TapSet, so the registry, the jobs and the engines cannot disagree.
class TapSet {
 public:
  // Throws halo::Error: no mask, a mask without taps, NaN/Inf, a mask whose worst-case gain
  // (sum of |h|) reaches FLT_MAX, or a mask count that is neither 1 nor `channels`.
  static TapSet from_masks(const filters::MaskSet& masks, int channels);
  // The taps' own part of that: each mask has taps, all finite, and a worst-case gain below
  // FLT_MAX (mask files are checked with it as they are read, to name the file).
  static void check_taps(const filters::MaskSet& masks);

  int channels() const { return static_cast<int>(mask_of_channel_.size()); }
  std::size_t mask_frames() const { return mask_frames_; }          // M
  std::size_t distinct_masks() const { return distinct_.size(); }   // 1 .. channels()
  bool one_mask() const { return distinct_.size() == 1; }
  // Distinct mask i (i < distinct_masks()), M taps, h[0..M-1].
  const std::vector<float>& taps(std::size_t mask) const { return distinct_[mask]; }
  std::size_t mask_of(int channel) const { return mask_of_channel_[channel]; }
  const std::vector<float>& taps_of(int channel) const { return distinct_[mask_of_channel_[channel]]; }

  // The largest |tap| of every mask, subnormal taps counted as 0 (every engine reads them so).
  float peak() const;
  // The same set with every tap multiplied by 2^exponent, exactly; subnormal taps 0, as every
  // engine reads them, so that scaling never brings one into play.
  TapSet scaled_by_power_of_two(int exponent) const;

 private:
  std::vector<std::vector<float>> distinct_;
  std::vector<std::size_t> mask_of_channel_;
  std::size_t mask_frames_ = 0;
};

}  // namespace halo
