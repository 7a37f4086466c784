#pragma once
// The fused engine's transforms: radix-2 FFTs of L points (a power of two) in place, on
// complex floats in one block's shared memory, written as functions of (thread, threads) so
// the same code runs in the kernel (each thread its share, a barrier between stages) and on
// the host, where the tests run it thread by thread with no GPU (cuda_fft_fused's indexing
// is checked here against a plain DFT).
//
// No permutation pass: the forward transform is decimation in frequency (natural order in,
// bit-reversed order out), the mask's spectrum is made by the same forward transform and so
// is stored bit-reversed too, the product is taken element by element in that order, and the
// inverse is decimation in time (bit-reversed in, natural order out).
// Twiddles come from a table of L/2 entries, w[k] = exp(-2 pi i k / L), computed in double on
// the host (make_twiddles); stage `len` uses every (L/len)-th entry.
#include <cstddef>
#include <vector>

#include "cuda/fft/overlap_save.hpp"

namespace halo::cuda {

struct Complex {
  float re, im;
};

HALO_HD Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
HALO_HD Complex operator-(Complex a, Complex b) { return {a.re - b.re, a.im - b.im}; }
HALO_HD Complex operator*(Complex a, Complex b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
HALO_HD Complex conjugate(Complex a) { return {a.re, -a.im}; }

// One stage of the forward (decimation-in-frequency) transform: butterflies of span `len`
// (L, L/2, ..., 2). Thread `t` of `threads` takes butterflies t, t + threads, ...
HALO_HD void forward_stage(Complex* z, long long fft_frames, long long len, const Complex* twiddles, int t,
                           int threads) {
  const long long half = len / 2, stride = fft_frames / len;
  for (long long b = t; b < fft_frames / 2; b += threads) {
    const long long group = b / half, k = b - group * half;
    const long long i0 = group * len + k, i1 = i0 + half;
    const Complex u = z[i0], v = z[i1];
    z[i0] = u + v;
    z[i1] = (u - v) * twiddles[k * stride];
  }
}

// One stage of the inverse (decimation-in-time, unnormalised) transform: span `len` (2, 4,
// ..., L), conjugate twiddles.
HALO_HD void inverse_stage(Complex* z, long long fft_frames, long long len, const Complex* twiddles, int t,
                           int threads) {
  const long long half = len / 2, stride = fft_frames / len;
  for (long long b = t; b < fft_frames / 2; b += threads) {
    const long long group = b / half, k = b - group * half;
    const long long i0 = group * len + k, i1 = i0 + half;
    const Complex u = z[i0], v = z[i1] * conjugate(twiddles[k * stride]);
    z[i0] = u + v;
    z[i1] = u - v;
  }
}

// The fused kernel's three element-wise parts for one step (segments 2 step and 2 step + 1)
// of one channel, thread t of `threads`; barriers between them are the caller's.
// Load: point i holds x of the first segment (real part) and of the second (imaginary part);
// stream positions before 0 read as 0 (the stream starts in silence).
HALO_HD void fused_load(const Geometry& g, long long step, const float* ring, Complex* z, int t, int threads) {
  const long long first = segment_input(g, 2 * step), second = first + g.hop_frames;
  for (long long i = t; i < g.fft_frames; i += threads) {
    const long long a = first + i, b = second + i;
    z[i] = {a < 0 ? 0.0f : ring[ring_slot(a, g.ring_frames)], b < 0 ? 0.0f : ring[ring_slot(b, g.ring_frames)]};
  }
}

// Product with the mask's spectrum (both bit-reversed).
HALO_HD void fused_multiply(Complex* z, long long fft_frames, const Complex* mask, int t, int threads) {
  for (long long i = t; i < fft_frames; i += threads) z[i] = z[i] * mask[i];
}

// Store: circular wrap spoils the first Mmax - 1 points; the next H are the segments' outputs.
HALO_HD void fused_store(const Geometry& g, long long step, const Complex* z, float* out_ring, int t, int threads) {
  const long long first = 2 * step * g.hop_frames, second = first + g.hop_frames;
  for (long long i = t; i < g.hop_frames; i += threads) {
    const Complex v = z[g.halo_frames + i];
    out_ring[ring_slot(first + i, g.out_ring_frames)] = v.re;
    out_ring[ring_slot(second + i, g.out_ring_frames)] = v.im;
  }
}

// Bit-reversal of i over log2(L) bits: where the forward transform leaves bin i.
inline std::size_t bit_reversed(std::size_t i, std::size_t fft_frames) {
  std::size_t r = 0;
  for (std::size_t bit = 1; bit < fft_frames; bit <<= 1, i >>= 1) r = (r << 1) | (i & 1);
  return r;
}

// exp(-2 pi i k / L) for k < L/2, computed in double, rounded once.
std::vector<Complex> make_twiddles(std::size_t fft_frames);

// Host twins of the kernel's whole-transform loops (every thread of a stage, then the next
// stage): what the tests run.
void forward_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles, int threads);
void inverse_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles, int threads);

// The fused kernel's work for one step of one channel, on the host: loads the step's two
// segments from the input ring (x(p) for p < 0 is 0), forward, product with the mask's
// bit-reversed spectrum `mask` (scaled by 1/L), inverse, and the outputs into the output
// ring. `z` is scratch of L points. The kernel does the same through the same functions.
// (Tests use it to check the indexing without a GPU.)
void fused_step_on_host(const Geometry& g, long long step, const float* ring, float* out_ring, const Complex* mask,
                        const Complex* twiddles, Complex* z, int threads);

// The mask's spectrum as the fused kernel multiplies by it: forward transform of h / L
// (zero-padded to L), bit-reversed order, computed on the host in float by the same stages.
std::vector<Complex> fused_mask_spectrum(const std::vector<float>& taps, std::size_t fft_frames,
                                         const std::vector<Complex>& twiddles);

}  // namespace halo::cuda
