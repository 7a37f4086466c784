#include "src/engine/cpu_direct_engine.hpp"

#include <algorithm>

namespace halo {

void CpuEngine::do_prepare(const std::vector<std::vector<float>>& taps_per_channel, std::size_t max_chunk_frames) {
  const std::size_t taps = taps_per_channel.front().size();
  halo_frames_ = taps - 1;
  reversed_taps_.clear();
  history_.clear();
  for (const auto& channel_taps : taps_per_channel) {
    reversed_taps_.emplace_back(channel_taps.rbegin(), channel_taps.rend());
    // Room past the chunk for the last output block, which may run past the chunk's end.
    history_.emplace_back(halo_frames_ + max_chunk_frames + outputs_per_block, 0.0f);
  }
}

void CpuEngine::do_reset() {
  for (auto& history : history_) std::fill(history.begin(), history.end(), 0.0f);
}

void CpuEngine::do_process(const float* in, float* out, std::size_t frames) {
  const int channel_count = channels();
  for (int c = 0; c < channel_count; ++c) {
    float* window = history_[c].data();
    for (std::size_t n = 0; n < frames; ++n) window[halo_frames_ + n] = in[n * channel_count + c];
    // The last output block reads past the chunk; those outputs are dropped, but keep them finite.
    std::fill_n(window + halo_frames_ + frames, outputs_per_block, 0.0f);
    convolve_channel(c, frames, out + c, channel_count);
    // Keep the newest M-1 frames (old halo included when the chunk is shorter than the halo).
    std::copy(window + frames, window + frames + halo_frames_, window);
  }
}

// y[n] = sum_j reversed[j] * window[n + j]: window[n + M-1] is x[n], so j = M-1-k.
void CpuEngine::convolve_channel(int channel, std::size_t frames, float* out, std::size_t out_stride) const {
  const float* window = history_[channel].data();
  const float* reversed = reversed_taps_[channel].data();
  const std::size_t taps = reversed_taps_[channel].size();
  for (std::size_t n0 = 0; n0 < frames; n0 += outputs_per_block) {
    double total[outputs_per_block] = {};
    for (std::size_t j0 = 0; j0 < taps; j0 += taps_per_partial) {
      float partial[outputs_per_block] = {};
      const std::size_t j_end = std::min(j0 + taps_per_partial, taps);
      for (std::size_t j = j0; j < j_end; ++j) {
        const float tap = reversed[j];
        const float* x = window + n0 + j;
        for (std::size_t i = 0; i < outputs_per_block; ++i) partial[i] += tap * x[i];
      }
      for (std::size_t i = 0; i < outputs_per_block; ++i) total[i] += partial[i];
    }
    const std::size_t count = std::min(outputs_per_block, frames - n0);
    for (std::size_t i = 0; i < count; ++i) out[(n0 + i) * out_stride] = static_cast<float>(total[i]);
  }
}

}  // namespace halo
