#include "src/engine/cpu_fft_engine.hpp"

#include <algorithm>
#include <mutex>

namespace halo {

CpuFftEngine::CpuFftEngine() = default;
CpuFftEngine::~CpuFftEngine() = default;

void CpuFftEngine::do_prepare(const ProcessSpec& spec) {
  halo_frames_ = spec.max_mask_frames - 1;
  fft_frames_ = 64;
  while (fft_frames_ < 4 * spec.max_mask_frames) fft_frames_ *= 2;
  hop_frames_ = fft_frames_ - halo_frames_;
  const std::size_t bins = fft_frames_ / 2 + 1;

  std::lock_guard<std::recursive_mutex> lock(fftw::planner_mutex());
  block_.reset(static_cast<float*>(fftwf_malloc(sizeof(float) * 2 * bins)));
  spectrum_.reset(static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * bins)));
  if (!block_ || !spectrum_) throw Error("cpu-fft: out of memory for an FFT of " + std::to_string(fft_frames_));
  const int n = static_cast<int>(fft_frames_);
  forward_.reset(fftwf_plan_dft_r2c_1d(n, block_.get(), spectrum_.get(), FFTW_ESTIMATE));
  inverse_.reset(fftwf_plan_dft_c2r_1d(n, spectrum_.get(), block_.get(), FFTW_ESTIMATE));
  if (!forward_ || !inverse_) throw Error("cpu-fft: FFTW could not plan an FFT of " + std::to_string(fft_frames_));

  mask_spectra_.clear();
  window_.assign(spec.channels, std::vector<float>(fft_frames_, 0.0f));
  ready_.assign(spec.channels, std::vector<float>(hop_frames_, 0.0f));
  for (int c = 0; c < spec.channels; ++c) {
    ComplexBuffer spectrum(static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * bins)));
    if (!spectrum) throw Error("cpu-fft: out of memory for the mask's spectrum");
    mask_spectra_.push_back(std::move(spectrum));
  }
  pending_frames_ = 0;
}

void CpuFftEngine::do_set_taps(const TapSet& taps) {
  const std::size_t bins = fft_frames_ / 2 + 1;
  const float scale = 1.0f / static_cast<float>(fft_frames_);  // FFTW's inverse is unnormalised
  for (int c = 0; c < taps.channels(); ++c) {
    const auto& h = taps.taps_of(c);
    std::fill_n(block_.get(), fft_frames_, 0.0f);
    for (std::size_t k = 0; k < h.size(); ++k) block_[k] = h[k] * scale;
    fftwf_execute(forward_.get());
    std::copy_n(&spectrum_[0][0], 2 * bins, &mask_spectra_[c][0][0]);
  }
}

void CpuFftEngine::do_reset() {
  for (auto& window : window_) std::fill(window.begin(), window.end(), 0.0f);
  for (auto& ready : ready_) std::fill(ready.begin(), ready.end(), 0.0f);
  pending_frames_ = 0;
}

Status CpuFftEngine::do_process(const float* in, float* out, std::size_t frames) noexcept {
  const int channel_count = channels();
  for (std::size_t done = 0; done < frames;) {
    const std::size_t span = std::min(frames - done, hop_frames_ - pending_frames_);
    for (int c = 0; c < channel_count; ++c) {
      float* block_input = window_[c].data() + halo_frames_ + pending_frames_;
      const float* block_output = ready_[c].data() + pending_frames_;
      for (std::size_t i = 0; i < span; ++i) {
        block_input[i] = in[(done + i) * channel_count + c];
        out[(done + i) * channel_count + c] = block_output[i];
      }
    }
    done += span;
    pending_frames_ += span;
    if (pending_frames_ == hop_frames_) {
      for (int c = 0; c < channel_count; ++c) transform_block(c);
      pending_frames_ = 0;
    }
  }
  return Status::ok;
}

// y for the block's hop of frames, into ready_; then the newest Mmax-1 frames become the halo.
void CpuFftEngine::transform_block(int channel) noexcept {
  const std::size_t bins = fft_frames_ / 2 + 1;
  float* window = window_[channel].data();
  std::copy_n(window, fft_frames_, block_.get());
  fftwf_execute(forward_.get());
  const fftwf_complex* mask = mask_spectra_[channel].get();
  for (std::size_t b = 0; b < bins; ++b) {
    const float re = spectrum_[b][0] * mask[b][0] - spectrum_[b][1] * mask[b][1];
    const float im = spectrum_[b][0] * mask[b][1] + spectrum_[b][1] * mask[b][0];
    spectrum_[b][0] = re;
    spectrum_[b][1] = im;
  }
  fftwf_execute(inverse_.get());
  // Circular wrap spoils the first M-1 results; the rest are the block's outputs.
  std::copy_n(block_.get() + halo_frames_, hop_frames_, ready_[channel].data());
  std::copy(window + hop_frames_, window + fft_frames_, window);
}

}  // namespace halo
