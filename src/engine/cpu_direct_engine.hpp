#pragma once
#include <cstddef>
#include <vector>

#include "src/engine/engine.hpp"

namespace halo {

// The reference and fallback engine: direct convolution on the CPU, for the short masks where
// it beats the FFT (registry.cpp, cpu_fft_from_taps).
//
// Carried state, per channel: `history_` holds [the last Mmax-1 input frames | this block],
// deinterleaved, so every output reads one contiguous window (Mmax = the spec's
// max_mask_frames: the carry is as long as the longest mask the engine may be given, so new
// taps find their history already there). After a block the newest Mmax-1 frames move to
// the front, which is the whole halo bookkeeping.
//
// Vectorised: outputs are computed `outputs_per_block` at a time, each lane of a SIMD register
// one output, every tap broadcast across the lanes, so the inner loop is a row of
// independent multiply-adds over contiguous loads that the compiler's auto-vectoriser turns
// into SIMD code. It is compiled twice: for AVX2 with FMA, taken where the CPU has them (a
// runtime check), and for the x86-64 baseline (SSE2) everywhere else (and off x86). Each output's
// arithmetic is the same sequence of operations whatever lane or block it falls in, so the
// blocking never changes a bit; the two builds round differently (FMA fuses the multiply-add).
//
// Accuracy: each output is summed in blocks of `taps_per_partial` float products whose
// partial sums are added in double, so the error stays near float rounding even for 16k-tap
// masks (one float accumulator over M terms drifts by about 2^-24 * sqrt(M/6)).
// prepare() allocates everything; set_taps() copies into storage sized there, so neither
// set_taps() nor process() allocates.
class CpuDirectEngine final : public Engine {
 public:
  enum class Kernel {
    best,      // AVX2 + FMA where the CPU has them, else portable
    portable,  // the x86-64 baseline (SSE2) build: what any x86-64 runs (tests run it too)
  };
  explicit CpuDirectEngine(Kernel kernel = Kernel::best);
  std::string name() const override { return "cpu"; }
  bool uses_avx2() const { return use_avx2_; }

 protected:
  void do_prepare(const ProcessSpec& spec) override;
  void do_set_taps(const TapSet& taps) override;
  Status do_process(const float* in, float* out, std::size_t frames) noexcept override;
  void do_reset() override;

 private:
  static constexpr std::size_t taps_per_partial = 64;
  static constexpr std::size_t outputs_per_block = 32;

  std::vector<std::vector<float>> reversed_taps_;  // per channel, h[M-1-k] (capacity Mmax): windows read forwards
  std::vector<std::vector<float>> history_;        // per channel: Mmax-1 halo frames + the largest block
  std::size_t halo_frames_ = 0;                    // Mmax - 1
  bool use_avx2_ = false;                          // fixed by the constructor
};

}  // namespace halo
