#pragma once
#include <fftw3.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "src/engine/engine.hpp"
#include "src/engine/fftw.hpp"

namespace halo {

// Overlap-save FFT convolution on the CPU (FFTW, single precision): the fallback for long
// masks where no GPU is usable.
//
// The FFT size follows the spec's max_mask_frames (Mmax), not the installed taps, so set_taps
// never reallocates and the latency never changes; shorter masks are zero-padded to Mmax.
//
// The FFT blocks sit at fixed places in the stream, `hop_frames_` apart, whatever the chunks
// are: an FFT's rounding depends on every value in its block, so a block cut short by a chunk
// boundary would round differently and --chunk would change the output. The price is latency:
// a block is transformed once its hop of input is complete, so the output lags the causal
// convolution by hop_frames_ (latency_frames()), and the pipeline trims that.
//
// Carried state, per channel:
//   window_  [the Mmax-1 frames before this block | the block's hop, filled up to pending_frames_]
//   ready_   the previous block's hop of outputs; frame pending_frames_ is the next to emit
// Input in and output out advance together, so one cursor (pending_frames_) serves both.
// Taps, per channel: mask_spectra_ holds the FFT of h (scaled by 1 / fft_frames_), written by
// set_taps into storage made in prepare (the TapSet arrives as taps; transforming them is this
// engine's part of "built off the audio thread").
// Neither set_taps() nor process() allocates: the plans and every buffer are made in prepare().
class CpuFftEngine final : public Engine {
 public:
  CpuFftEngine();
  ~CpuFftEngine() override;
  std::string name() const override { return "cpu-fft"; }

 protected:
  void do_prepare(const ProcessSpec& spec) override;
  void do_set_taps(const TapSet& taps) override;
  Status do_process(const float* in, float* out, std::size_t frames) noexcept override;
  void do_reset() override;
  std::size_t do_latency_frames() const override { return hop_frames_; }
  std::size_t do_preferred_block_frames() const override { return hop_frames_; }

 private:
  using RealBuffer = fftw::Array<float>;
  using ComplexBuffer = fftw::Array<fftwf_complex>;
  using Plan = fftw::Plan;

  void transform_block(int channel) noexcept;

  std::size_t halo_frames_ = 0;     // Mmax - 1
  std::size_t fft_frames_ = 0;      // FFT length, a power of two >= 4 Mmax
  std::size_t hop_frames_ = 0;      // fft_frames_ - (Mmax-1): new frames, and outputs, per block
  std::size_t pending_frames_ = 0;  // frames of the current block received (and outputs emitted)
  std::vector<ComplexBuffer> mask_spectra_;  // per channel: FFT of h, scaled by 1 / fft_frames_
  std::vector<std::vector<float>> window_;   // per channel, fft_frames_ long (see above)
  std::vector<std::vector<float>> ready_;    // per channel, hop_frames_ long (see above)
  RealBuffer block_;                         // one FFT block, in and out
  ComplexBuffer spectrum_;
  Plan forward_, inverse_;
};

}  // namespace halo
