#include "src/engine/cpu_direct_engine.hpp"

#include <algorithm>

namespace halo {

void CpuDirectEngine::do_prepare(const ProcessSpec& spec) {
  halo_frames_ = spec.max_mask_frames - 1;
  reversed_taps_.assign(spec.channels, {});
  history_.assign(spec.channels, {});
  for (int c = 0; c < spec.channels; ++c) {
    reversed_taps_[c].reserve(spec.max_mask_frames);
    // Room past the block for the last output block, which may run past the block's end.
    history_[c].assign(halo_frames_ + spec.max_block_frames + outputs_per_block, 0.0f);
  }
}

void CpuDirectEngine::do_set_taps(const TapSet& taps) {
  for (int c = 0; c < taps.channels(); ++c) {
    const auto& h = taps.taps_of(c);
    reversed_taps_[c].assign(h.rbegin(), h.rend());  // within the capacity reserved in prepare
  }
}

void CpuDirectEngine::do_reset() {
  for (auto& history : history_) std::fill(history.begin(), history.end(), 0.0f);
}

Status CpuDirectEngine::do_process(const float* in, float* out, std::size_t frames) noexcept {
  const int channel_count = channels();
  for (int c = 0; c < channel_count; ++c) {
    float* window = history_[c].data();
    for (std::size_t n = 0; n < frames; ++n) window[halo_frames_ + n] = in[n * channel_count + c];
    // The last output block reads past the chunk; those outputs are dropped, but keep them finite.
    std::fill_n(window + halo_frames_ + frames, outputs_per_block, 0.0f);
    convolve_channel(c, frames, out + c, channel_count);
    // Keep the newest Mmax-1 frames (old halo included when the block is shorter than the halo).
    std::copy(window + frames, window + frames + halo_frames_, window);
  }
  return Status::ok;
}

// y[n] = sum_j reversed[j] * window[n + j], where window[n + M-1] is x[n] (so j = M-1-k): the
// window starts Mmax - M frames into the history.
void CpuDirectEngine::convolve_channel(int channel, std::size_t frames, float* out, std::size_t out_stride) const noexcept {
  const std::size_t taps = reversed_taps_[channel].size();
  const float* window = history_[channel].data() + (halo_frames_ + 1 - taps);
  const float* reversed = reversed_taps_[channel].data();
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
