#pragma once
// cpu-fft's real transforms of N (even) points as FFTW complex transforms of N/2: the block's
// even samples as the real parts and its odd samples as the imaginary parts, transformed as
// one complex sequence, then "untangled" into the N/2 + 1 bins of the real spectrum. Why not
// FFTW's own r2c and c2r: with estimated plans (what halo runs where no wisdom is saved) they
// took 1.55 ms a 327680-point block (forward, product, inverse, one thread) on the
// development VM, the N/2-point complex plans 1.36 ms, and 1.37 against 1.01 ms at 262144
// points; measured plans gain too (bench/FFT.md). The untangling, the product with the mask's
// spectrum and the tangling back for the inverse run as one pass over the bins (multiply),
// which the r2c path spent on the product alone.
//
// The packed spectrum Z (N/2 complex) of a real x: Z = DFT_{N/2}(x[2m] + i x[2m+1]). Its bins
// X[k] = E[k] + W^k O[k] (W = exp(-2 pi i / N), E and O the transforms of the even and odd
// samples) come from the pair Z[k], Z[N/2 - k]: E[k] = (Z[k] + conj Z[N/2-k]) / 2,
// O[k] = -i (Z[k] - conj Z[N/2-k]) / 2. Backwards, a real y's spectrum Y gives
// V[k] = (Y[k] + conj Y[N/2-k]) + i conj(W^k) (Y[k] - conj Y[N/2-k]), whose unnormalised
// inverse of N/2 points is y's even and odd samples times N, as FFTW's c2r of N gives them.
#include <cstddef>

#include "src/engine/fftw.hpp"

namespace halo {

class PackedRealFft {
 public:
  // Plans for `points` (even, >= 2) real points, on `time` (points floats) and `packed`
  // (points / 2 complex), both from fftw::allocate; the transforms then run on any arrays
  // from fftw::allocate of those sizes. Throws Error where FFTW cannot plan them.
  PackedRealFft(std::size_t points, float* time, fftwf_complex* packed);

  std::size_t points() const { return points_; }
  std::size_t packed_points() const { return points_ / 2; }  // complex values of `packed`
  std::size_t bins() const { return points_ / 2 + 1; }       // of a real spectrum

  // packed = the packed spectrum of time[0, points).
  void forward(const float* time, fftwf_complex* packed) const noexcept;
  // bins[0, bins()) = the real spectrum whose packed spectrum `packed` holds.
  void untangle(const fftwf_complex* packed, fftwf_complex* bins) const noexcept;
  // In place: the packed spectrum of x becomes what `inverse` turns into x * mask (circular),
  // times points(): mask_bins is the mask's real spectrum (bins()).
  void multiply(fftwf_complex* packed, const fftwf_complex* mask_bins) const noexcept;
  // time[0, points) from what multiply left (the packed input is kept).
  void inverse(const fftwf_complex* packed, float* time) const noexcept;

 private:
  std::size_t points_;
  fftw::Array<fftwf_complex> twiddles_;  // W^k for k <= points / 4, in double, rounded once
  fftw::Plan forward_, inverse_;
};

}  // namespace halo
