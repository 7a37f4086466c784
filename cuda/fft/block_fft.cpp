#include "cuda/fft/block_fft.hpp"

#include <cmath>

namespace halo::cuda {

std::vector<Complex> make_twiddles(std::size_t fft_frames) {
  std::vector<Complex> w(fft_frames / 2);
  const double pi = 3.14159265358979323846;
  for (std::size_t k = 0; k < w.size(); ++k) {
    const double angle = -2.0 * pi * static_cast<double>(k) / static_cast<double>(fft_frames);
    w[k] = {static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle))};
  }
  return w;
}

void forward_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles, int threads) {
  const long long n = static_cast<long long>(fft_frames);
  for (long long len = n; len >= 2; len /= 2)
    for (int t = 0; t < threads; ++t) forward_stage(z, n, len, twiddles, t, threads);
}

void inverse_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles, int threads) {
  const long long n = static_cast<long long>(fft_frames);
  for (long long len = 2; len <= n; len *= 2)
    for (int t = 0; t < threads; ++t) inverse_stage(z, n, len, twiddles, t, threads);
}

void fused_step_on_host(const Geometry& g, long long step, const float* ring, float* out_ring, const Complex* mask,
                        const Complex* twiddles, Complex* z, int threads) {
  for (int t = 0; t < threads; ++t) fused_load(g, step, ring, z, t, threads);
  forward_transform_on_host(z, static_cast<std::size_t>(g.fft_frames), twiddles, threads);
  for (int t = 0; t < threads; ++t) fused_multiply(z, g.fft_frames, mask, t, threads);
  inverse_transform_on_host(z, static_cast<std::size_t>(g.fft_frames), twiddles, threads);
  for (int t = 0; t < threads; ++t) fused_store(g, step, z, out_ring, t, threads);
}

std::vector<Complex> fused_mask_spectrum(const std::vector<float>& taps, std::size_t fft_frames,
                                         const std::vector<Complex>& twiddles) {
  std::vector<Complex> z(fft_frames, Complex{0.0f, 0.0f});
  const float scale = 1.0f / static_cast<float>(fft_frames);  // the inverse is unnormalised; exact (power of two)
  for (std::size_t k = 0; k < taps.size() && k < fft_frames; ++k) z[k].re = taps[k] * scale;
  forward_transform_on_host(z.data(), fft_frames, twiddles.data(), 1);
  return z;
}

}  // namespace halo::cuda
