#include "engine.hpp"

#include <algorithm>
#include <cmath>

namespace halo {

void Engine::prepare(const filters::MaskSet& masks, int channels, std::size_t max_chunk_frames) {
  if (channels < 1) throw Error("the stream has no channels");
  if (max_chunk_frames < 1) throw Error("the chunk must hold at least one frame");
  if (masks.empty()) throw Error("no mask to filter with");
  if (masks.size() != 1 && masks.size() != static_cast<std::size_t>(channels))
    throw Error("the mask has " + std::to_string(masks.size()) + " channels but the audio has " +
                std::to_string(channels) + ": give one mask, or one per channel");
  std::size_t longest = 0;
  for (const auto& mask : masks) {
    if (mask.taps.empty()) throw Error("a mask has no taps");
    for (float tap : mask.taps)
      if (!std::isfinite(tap)) throw Error("a mask holds NaN or Inf");
    longest = std::max(longest, mask.taps.size());
  }
  std::vector<std::vector<float>> taps_per_channel(channels);
  for (int c = 0; c < channels; ++c) {
    const auto& taps = masks[masks.size() == 1 ? 0 : c].taps;
    taps_per_channel[c] = taps;
    taps_per_channel[c].resize(longest, 0.0f);
  }
  do_prepare(taps_per_channel, max_chunk_frames);
  channels_ = channels;
  mask_frames_ = longest;
  max_chunk_frames_ = max_chunk_frames;
  prepared_ = true;
}

void Engine::process(const float* in, float* out, std::size_t frames) {
  if (!prepared_) throw Error(name() + ": process before prepare");
  if (frames > max_chunk_frames_)
    throw Error(name() + ": chunk of " + std::to_string(frames) + " frames exceeds the prepared " +
                std::to_string(max_chunk_frames_));
  if (frames == 0) return;
  do_process(in, out, frames);
}

void Engine::reset() {
  if (prepared_) do_reset();
}

}  // namespace halo
