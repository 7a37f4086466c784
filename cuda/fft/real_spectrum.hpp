#pragma once
// cuda-fft's spectral pass: the product of a real signal's spectrum with a real mask's, through
// half-size complex transforms (no R2C post-processing or C2R pre-processing pass of their own).
//
// The L reals of a segment, taken as N = L/2 complex pairs z[n] = x[2n] + i x[2n+1], have a
// complex spectrum Z (N-point forward DFT); the real spectrum X is then, for k <= N, with
// W = exp(-2 pi i / L) and Z[N] = Z[0]:
//   X[k] = E + W^k O,  X[N-k] = conj(E - W^k O),
//   E = (Z[k] + conj(Z[N-k])) / 2,  O = (Z[k] - conj(Z[N-k])) / 2i.
// With Y = X H (H the mask's real spectrum), the complex spectrum V whose unnormalised N-point
// inverse is L (y[2n] + i y[2n+1]) (y's L reals, as a C2R of size L would give them) is
//   V[k]   = (Y[k] + conj(Y[N-k])) + i conj(W^k) (Y[k] - conj(Y[N-k])),
//   V[N-k] = (Y[N-k] + conj(Y[k])) - i W^k (Y[N-k] - conj(Y[k])).
// Host and device (the tests check it against a plain DFT without a GPU).
#include "cuda/fft/block_fft.hpp"

namespace halo::cuda {

struct SpectralPair {
  Complex at_k, at_n_minus_k;  // V[k], V[N-k]
};

// V[k] and V[N-k] from z_k = Z[k], z_j = Z[N-k mod N], w = W^k, and the mask's bins h_k = H[k],
// h_j = H[N-k] (0 <= k <= N/2; at k = 0 and k = N/2 only V[k] is a bin of its own).
HALO_HD SpectralPair spectral_product(Complex z_k, Complex z_j, Complex w, Complex h_k, Complex h_j) {
  const Complex e{0.5f * (z_k.re + z_j.re), 0.5f * (z_k.im - z_j.im)};
  const Complex o{0.5f * (z_k.im + z_j.im), 0.5f * (z_j.re - z_k.re)};
  const Complex wo = w * o;
  const Complex y_k = (e + wo) * h_k;
  const Complex y_j = conjugate(e - wo) * h_j;
  const Complex sum_k = y_k + conjugate(y_j), turn_k = conjugate(w) * (y_k - conjugate(y_j));
  const Complex sum_j = y_j + conjugate(y_k), turn_j = w * (y_j - conjugate(y_k));
  return {{sum_k.re - turn_k.im, sum_k.im + turn_k.re},   // + i turn_k
          {sum_j.re + turn_j.im, sum_j.im - turn_j.re}};  // - i turn_j
}

}  // namespace halo::cuda
