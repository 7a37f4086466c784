#pragma once
#include <cstddef>
#include <string>
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
//
// From 16384 packed points on (a multiple of 128), where no wisdom holds a measured plan, the
// N/2-point transform runs as four steps of estimated plans: 128-point transforms down the
// columns of the packed points laid out as 128 rows of rows_ = N/256 (stride rows_), the
// twiddles W_{N/2}^(k1 n2), and rows_-point transforms along the rows. FFTW's own estimated plan of the
// whole length lost 1.2-1.9x to that on the development VM's AMD EPYC (81920 points: 255
// against 177 us, its measured plan 205; bench/FFT.md, twenty-fifth session). The spectrum
// then lies transposed, bin k1 + 128 k2 at k1 M2 + k2, and is never put back in order: the
// product is bin by bin, so multiply and untangle read that layout (bin_index) and the
// inverse undoes the four steps in reverse. Where wisdom holds the whole length's measured plan,
// that plan runs, as `halo wisdom` promises: single-threaded it lost to the four steps here
// (205 against 177 us at 81920 points), end to end with two threads they tied (0.230-0.243
// against 0.234-0.249 s at 65535 taps).
#include <cstddef>

#include "src/engine/fftw.hpp"

namespace halo {

class PackedRealFft {
 public:
  // Plans for `points` (even, >= 2) real points, on `time` (points floats) and `packed`
  // (points / 2 complex), both from fftw::allocate; the transforms then run on any arrays
  // from fftw::allocate of those sizes. Throws Error where FFTW cannot plan them.
  // `four_steps_from`: the packed length from which the four steps run (a multiple of 128
  // beyond it; tests lower it to reach the layout at lengths whose DFT they can write out).
  // `defer_to_wisdom`: false ignores the wisdom (the system's too), for tests that must run the
  // four steps wherever they run.
  PackedRealFft(std::size_t points, float* time, fftwf_complex* packed, std::size_t four_steps_from = 16384,
                bool defer_to_wisdom = true);

  std::size_t points() const { return points_; }
  std::size_t packed_points() const { return points_ / 2; }  // complex values of `packed`
  std::size_t bins() const { return points_ / 2 + 1; }       // of a real spectrum

  // packed = the packed spectrum of time[0, points).
  void forward(const float* time, fftwf_complex* packed) const noexcept;
  // bins[bin_index(k)] = bin k of the real spectrum whose packed spectrum `packed` holds, k in
  // [0, bins()): the layout multiply reads.
  void untangle(const fftwf_complex* packed, fftwf_complex* bins) const noexcept;
  std::size_t bin_index(std::size_t k) const noexcept;
  // In place: the packed spectrum of x becomes what `inverse` turns into x * mask (circular),
  // times points(): mask_bins is the mask's real spectrum as untangle lays it out.
  void multiply(fftwf_complex* packed, const fftwf_complex* mask_bins) const noexcept;
  // time[0, points) from what multiply left (the packed input is kept).
  void inverse(const fftwf_complex* packed, float* time) const noexcept;

  // Whether the four steps run (the layout transposed), for the benchmark and the tests.
  bool four_steps() const noexcept { return columns_ > 0; }

 private:
  std::size_t points_;
  fftw::Array<fftwf_complex> twiddles_;  // plain: W^k for k <= points / 4, in double, rounded once
  fftw::Plan forward_, inverse_;          // plain: the N/2-point transforms
  // Four steps: 0 columns when plain. columns_ x rows_ = N/2; the twiddles between the steps,
  // W_{N/2}^(k1 n2) at k1 rows_ + n2; W_N^k1 (k1 < columns_) and W_N^(columns_ k2) (k2 < rows_),
  // whose product is multiply's W_N^k for bin k = k1 + columns_ k2.
  // The step twiddles are N/2 complex values (4 N bytes, 2.6 MB at 655360 points), one table an
  // engine, read twice a block; the plain table was N/4.
  std::size_t columns_ = 0, rows_ = 0;
  fftw::Array<fftwf_complex> step_twiddles_, bin_twiddles_low_, bin_twiddles_high_;
  fftw::Plan columns_forward_, rows_forward_, rows_inverse_, columns_inverse_;
};

// cpu-fft's words for a transform it could not allocate, naming the engine that needs far less
// for a long mask: a 2^24-tap mask takes an FFT of 125829120 points, about 4 GB for one
// channel, where cpu-partitioned filters it in about 470 MB (a QA pass).
std::string cpu_fft_out_of_memory(std::size_t points);

}  // namespace halo
