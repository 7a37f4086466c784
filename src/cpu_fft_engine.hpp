#pragma once
#include <fftw3.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "src/engine.hpp"

namespace halo {

// Overlap-save FFT convolution on the CPU (FFTW, single precision): the fallback for long
// masks where no GPU is usable. Each FFT block of `fft_frames_` covers `hop_frames_` =
// fft_frames_ - (M-1) outputs; a chunk whose end falls inside a block zero-pads that block
// and keeps only the outputs it can know, so any chunking gives the same samples.
//
// Carried state, per channel: the last M-1 input frames, at the front of `window_`.
// process() never allocates: the plans and every buffer are made in prepare().
class CpuFftEngine final : public Engine {
 public:
  CpuFftEngine();
  ~CpuFftEngine() override;
  std::string name() const override { return "cpu-fft"; }

 protected:
  void do_prepare(const std::vector<std::vector<float>>& taps_per_channel, std::size_t max_chunk_frames) override;
  void do_process(const float* in, float* out, std::size_t frames) override;
  void do_reset() override;

 private:
  struct FftwFree {
    void operator()(void* memory) const noexcept { fftwf_free(memory); }
  };
  struct PlanDestroy {
    void operator()(fftwf_plan_s* plan) const noexcept { fftwf_destroy_plan(plan); }
  };
  using RealBuffer = std::unique_ptr<float[], FftwFree>;
  using ComplexBuffer = std::unique_ptr<fftwf_complex[], FftwFree>;
  using Plan = std::unique_ptr<fftwf_plan_s, PlanDestroy>;

  std::size_t halo_frames_ = 0;   // M - 1
  std::size_t fft_frames_ = 0;    // FFT length, a power of two >= 4 M
  std::size_t hop_frames_ = 0;    // outputs per FFT block
  std::vector<ComplexBuffer> mask_spectra_;   // per channel: FFT of h, scaled by 1 / fft_frames_
  std::vector<std::vector<float>> window_;    // per channel: M-1 halo frames + max chunk + one FFT of zeros
  RealBuffer block_;                          // one FFT block, in and out (in-place round trip)
  ComplexBuffer spectrum_;
  Plan forward_, inverse_;
};

}  // namespace halo
