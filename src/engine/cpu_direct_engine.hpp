#pragma once
#include <cstddef>
#include <vector>

#include "src/engine/engine.hpp"

namespace halo {

// The reference and fallback engine: direct convolution on the CPU.
//
// Carried state, per channel: `history_` holds [the last M-1 input frames | this chunk],
// deinterleaved, so every output reads one contiguous window. After a chunk the newest M-1
// frames move to the front, which is the whole halo bookkeeping.
//
// Accuracy: each output is summed in blocks of `taps_per_partial` float products whose
// partial sums are added in double, so the error stays near float rounding even for 16k-tap
// masks (one float accumulator over M terms drifts by about 2^-24 * sqrt(M/6)).
// process() never allocates.
class CpuEngine final : public Engine {
 public:
  std::string name() const override { return "cpu"; }

 protected:
  void do_prepare(const std::vector<std::vector<float>>& taps_per_channel, std::size_t max_chunk_frames) override;
  void do_process(const float* in, float* out, std::size_t frames) override;
  void do_reset() override;

 private:
  static constexpr std::size_t taps_per_partial = 64;
  static constexpr std::size_t outputs_per_block = 8;

  void convolve_channel(int channel, std::size_t frames, float* out, std::size_t out_stride) const;

  std::vector<std::vector<float>> reversed_taps_;  // per channel, h[M-1-k]: windows read forwards
  std::vector<std::vector<float>> history_;        // per channel: M-1 halo frames + max chunk
  std::size_t halo_frames_ = 0;                    // M - 1
};

}  // namespace halo
