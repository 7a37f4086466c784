#include "src/engine/packed_real_fft.hpp"

#include <cmath>
#include <string>

#include "src/engine/error.hpp"

namespace halo {
namespace {

// One pair's untangling, product and tangling back: the bins k and m = M - k (M = N/2) of the
// pair Z[k], Z[m] (Z[M] is Z[0]), multiplied by the mask's, then tangled back into V[k] and,
// where write_partner, V[m] (not for k = 0, whose partner is bin M, nor for k = M/2, paired
// with itself). `k` and `zm` index the packed spectrum (and `k` the mask's bins), `mask_m` the
// mask's bin m, each in the layout the transforms leave (natural, or transposed by the four
// steps); w = W^k, and W^m = -conj(w). One body for every pair, so that the edges round as the
// rest do. Written so that GCC 12 vectorises its loops: as -(a b - c d) where a sign flips
// (written c d - a b, which rounds the same, the loop ran scalar: 0.58 against 0.15 ms a
// 327680-point block), and with int indices (N/2 < 2^31 here).
__attribute__((always_inline)) inline void pair_product(float* __restrict__ z, const float* __restrict__ mask, int k,
                                                        int mask_m, int zm, float wr, float wi,
                                                        bool write_partner) noexcept {
  const float ar = z[2 * k], ai = z[2 * k + 1], br = z[2 * zm], bi = z[2 * zm + 1];
  // S = (Z[k] + conj Z[m]) / 2 = E[k]; D = (Z[k] - conj Z[m]) / 2; T = -i w D = w O[k].
  const float sr = 0.5f * (ar + br), si = 0.5f * (ai - bi);
  const float dr = 0.5f * (ar - br), di = 0.5f * (ai + bi);
  const float tr = wr * di + wi * dr, ti = -(wr * dr - wi * di);
  // X[k] = S + T; X[m] = conj(S) - conj(T) (E and O of bin m are the conjugates of bin
  // k's, and W^m = -conj(w)).
  const float xkr = sr + tr, xki = si + ti, xmr = sr - tr, xmi = -si + ti;
  const float hkr = mask[2 * k], hki = mask[2 * k + 1], hmr = mask[2 * mask_m], hmi = mask[2 * mask_m + 1];
  const float ykr = xkr * hkr - xki * hki, yki = xkr * hki + xki * hkr;
  const float ymr = xmr * hmr - xmi * hmi, ymi = xmr * hmi + xmi * hmr;
  // V[k] = P + U with P = Y[k] + conj Y[m], Q = Y[k] - conj Y[m], U = i conj(w) Q; and
  // V[m] = conj(P) - conj(U) by the same symmetry.
  const float pr = ykr + ymr, pi = yki - ymi, qr = ykr - ymr, qi = yki + ymi;
  const float ur = -(wr * qi - wi * qr), ui = wr * qr + wi * qi;
  z[2 * k] = pr + ur;
  z[2 * k + 1] = pi + ui;
  if (write_partner) {
    z[2 * zm] = pr - ur;
    z[2 * zm + 1] = -pi + ui;
  }
}

// Cloned for AVX2 with no FMA, as cpu-fft's products were, so that every CPU rounds alike.
// The natural layout: w[k] = W^k for k <= M/2.
__attribute__((target_clones("avx2", "default"))) void multiply_packed(float* __restrict__ z,
                                                                      const float* __restrict__ mask,
                                                                      const float* __restrict__ w,
                                                                      int half) noexcept {
  pair_product(z, mask, 0, half, 0, w[0], w[1], false);
  const int pairs_end = (half + 1) / 2;  // k < M - k
  for (int k = 1; k < pairs_end; ++k) pair_product(z, mask, k, half - k, half - k, w[2 * k], w[2 * k + 1], true);
  if (half % 2 == 0) pair_product(z, mask, half / 2, half / 2, half / 2, w[half], w[half + 1], false);
}

// The four steps' layout: bin k = k1 + C k2 (C columns, R rows) at k1 R + k2. Its partner
// M - k lies in row C - k1 read backwards (k1 > 0: (C - k1) R + R - 1 - k2), or for k1 = 0 in
// row 0 at R - k2; so rows k1 and C - k1 are taken together, row 0 and row C/2 each with
// itself. w = W^k1 W^(C k2), from the two small tables `low` and `high`.
__attribute__((target_clones("avx2", "default"))) void multiply_transposed(float* __restrict__ z,
                                                                          const float* __restrict__ mask,
                                                                          const float* __restrict__ low,
                                                                          const float* __restrict__ high,
                                                                          int columns, int rows) noexcept {
  const int half = columns * rows;
  pair_product(z, mask, 0, half, 0, 1.0f, 0.0f, false);  // bin 0 with bin M (the mask's last)
  for (int k2 = 1; k2 < rows - k2; ++k2)
    pair_product(z, mask, k2, rows - k2, rows - k2, high[2 * k2], high[2 * k2 + 1], true);
  if (rows % 2 == 0) pair_product(z, mask, rows / 2, rows / 2, rows / 2, high[rows], high[rows + 1], false);
  // Rows k1 and C - k1, k2 in [0, end); with itself (k1 = C/2) only up to the middle, whose
  // element (R odd) is its own partner.
  const auto row_pair = [&](int k1, int end) __attribute__((always_inline)) {
    const int a = k1 * rows, b = (columns - k1) * rows + rows - 1;
    const float lr = low[2 * k1], li = low[2 * k1 + 1];
    for (int k2 = 0; k2 < end; ++k2) {
      const float hr = high[2 * k2], hi = high[2 * k2 + 1];
      const float wr = lr * hr - li * hi, wi = lr * hi + li * hr;
      pair_product(z, mask, a + k2, b - k2, b - k2, wr, wi, true);
    }
  };
  for (int k1 = 1; k1 < columns - k1; ++k1) row_pair(k1, rows);
  if (columns % 2 == 0) {
    const int k1 = columns / 2;
    row_pair(k1, rows / 2);
    if (rows % 2 == 1) {
      const int k2 = rows / 2, at = k1 * rows + k2;
      const float lr = low[2 * k1], li = low[2 * k1 + 1], hr = high[2 * k2], hi = high[2 * k2 + 1];
      pair_product(z, mask, at, at, at, lr * hr - li * hi, lr * hi + li * hr, false);
    }
  }
}

// In place: z[i] times t[i] (conjugated where `conjugate`), complex, i < count.
__attribute__((target_clones("avx2", "default"))) void twiddle(float* __restrict__ z, const float* __restrict__ t,
                                                              int count, bool conjugate) noexcept {
  const float sign = conjugate ? -1.0f : 1.0f;
  for (int i = 0; i < count; ++i) {
    const float ar = z[2 * i], ai = z[2 * i + 1], tr = t[2 * i], ti = sign * t[2 * i + 1];
    z[2 * i] = ar * tr - ai * ti;
    z[2 * i + 1] = ar * ti + ai * tr;
  }
}

// W^j for j in [0, count), W = exp(-2 pi i step / period): in double, rounded once.
fftw::Array<fftwf_complex> powers(std::size_t count, std::size_t step, std::size_t period) {
  auto table = fftw::allocate<fftwf_complex>(count);
  if (!table) return table;
  const double pi = std::acos(-1.0);
  for (std::size_t j = 0; j < count; ++j) {
    const double angle = -2.0 * pi * static_cast<double>(j * step % period) / static_cast<double>(period);
    table[j][0] = static_cast<float>(std::cos(angle));
    table[j][1] = static_cast<float>(std::sin(angle));
  }
  return table;
}

// The four steps' column transforms (their length, 128 points): 64 ran 0-25 % slower, 256
// 2-15x slower (strided). They run from 16384 packed points on (the constructor's default):
// below, one estimated plan of the whole length was as fast or faster.
constexpr std::size_t four_step_columns = 128;

}  // namespace

PackedRealFft::PackedRealFft(std::size_t points, float* time, fftwf_complex* packed, std::size_t four_steps_from,
                             bool defer_to_wisdom)
    : points_(points) {
  if (points < 2 || points % 2 != 0)
    throw Error("cpu-fft: a packed real FFT needs an even length, not " + std::to_string(points));
  const std::size_t half = points / 2;
  const int n = static_cast<int>(half);
  auto* time_packed = reinterpret_cast<fftwf_complex*>(time);
  const auto out_of_memory = [&] { return Error(cpu_fft_out_of_memory(points)); };
  if (half >= four_steps_from && half % four_step_columns == 0 &&
      !(defer_to_wisdom && fftw::wisdom_holds_c2c(n, time_packed, packed))) {
    columns_ = four_step_columns;
    rows_ = half / columns_;
    step_twiddles_ = fftw::allocate<fftwf_complex>(half);
    if (!step_twiddles_) throw out_of_memory();
    const double pi = std::acos(-1.0);
    for (std::size_t k1 = 0; k1 < columns_; ++k1)
      for (std::size_t n2 = 0; n2 < rows_; ++n2) {
        const double angle = -2.0 * pi * static_cast<double>(k1 * n2 % half) / static_cast<double>(half);
        step_twiddles_[k1 * rows_ + n2][0] = static_cast<float>(std::cos(angle));
        step_twiddles_[k1 * rows_ + n2][1] = static_cast<float>(std::sin(angle));
      }
    bin_twiddles_low_ = powers(columns_, 1, points);
    bin_twiddles_high_ = powers(rows_, columns_, points);
    if (!bin_twiddles_low_ || !bin_twiddles_high_) throw out_of_memory();
    const int c = static_cast<int>(columns_), r = static_cast<int>(rows_);
    columns_forward_ = fftw::plan_many_c2c(c, r, time_packed, r, 1, packed, r, 1, FFTW_FORWARD);
    rows_forward_ = fftw::plan_many_c2c(r, c, packed, 1, r, packed, 1, r, FFTW_FORWARD);
    rows_inverse_ = fftw::plan_many_c2c(r, c, packed, 1, r, time_packed, 1, r, FFTW_BACKWARD);
    columns_inverse_ = fftw::plan_many_c2c(c, r, time_packed, r, 1, time_packed, r, 1, FFTW_BACKWARD);
    if (!columns_forward_ || !rows_forward_ || !rows_inverse_ || !columns_inverse_)
      throw Error("cpu-fft: FFTW could not plan an FFT of " + std::to_string(points));
    return;
  }
  twiddles_ = powers(points / 4 + 1, 1, points);
  if (!twiddles_) throw out_of_memory();
  forward_ = fftw::plan_c2c(n, time_packed, packed, FFTW_FORWARD);
  inverse_ = fftw::plan_c2c(n, packed, time_packed, FFTW_BACKWARD);
  if (!forward_ || !inverse_) throw Error("cpu-fft: FFTW could not plan an FFT of " + std::to_string(points));
}

void PackedRealFft::forward(const float* time, fftwf_complex* packed) const noexcept {
  // FFTW's new-array execute takes non-const input; a c2c out of place leaves it alone.
  auto* in = reinterpret_cast<fftwf_complex*>(const_cast<float*>(time));
  if (!four_steps()) {
    fftwf_execute_dft(forward_.get(), in, packed);
    return;
  }
  fftwf_execute_dft(columns_forward_.get(), in, packed);
  twiddle(&packed[0][0], &step_twiddles_[0][0], static_cast<int>(points_ / 2), false);
  fftwf_execute_dft(rows_forward_.get(), packed, packed);
}

std::size_t PackedRealFft::bin_index(std::size_t k) const noexcept {
  const std::size_t half = points_ / 2;
  if (!four_steps() || k >= half) return k;  // bin M stays last
  return k % columns_ * rows_ + k / columns_;
}

void PackedRealFft::untangle(const fftwf_complex* packed, fftwf_complex* bins) const noexcept {
  const std::size_t half = points_ / 2;
  const double pi = std::acos(-1.0);
  for (std::size_t k = 0; k <= half; ++k) {  // not a hot path (a mask's spectrum): plainly, in double
    const std::size_t j = bin_index(k % half), m = bin_index((half - k) % half);
    const double ar = packed[j][0], ai = packed[j][1], br = packed[m][0], bi = packed[m][1];
    const double er = 0.5 * (ar + br), ei = 0.5 * (ai - bi);  // E[k]
    const double orr = 0.5 * (ai + bi), oi = -0.5 * (ar - br);  // O[k] = -i (Z[k] - conj Z[m]) / 2
    const double angle = -2.0 * pi * static_cast<double>(k) / static_cast<double>(points_);
    const double wr = std::cos(angle), wi = std::sin(angle);
    bins[bin_index(k)][0] = static_cast<float>(er + wr * orr - wi * oi);
    bins[bin_index(k)][1] = static_cast<float>(ei + wr * oi + wi * orr);
  }
}

void PackedRealFft::multiply(fftwf_complex* packed, const fftwf_complex* mask_bins) const noexcept {
  if (four_steps())
    multiply_transposed(&packed[0][0], &mask_bins[0][0], &bin_twiddles_low_[0][0], &bin_twiddles_high_[0][0],
                        static_cast<int>(columns_), static_cast<int>(rows_));
  else
    multiply_packed(&packed[0][0], &mask_bins[0][0], &twiddles_[0][0], static_cast<int>(points_ / 2));
}

void PackedRealFft::inverse(const fftwf_complex* packed, float* time) const noexcept {
  auto* out = reinterpret_cast<fftwf_complex*>(time);
  if (!four_steps()) {
    fftwf_execute_dft(inverse_.get(), const_cast<fftwf_complex*>(packed), out);
    return;
  }
  // The four steps backwards: rows (out of place, so that `packed` is kept), the conjugate
  // twiddles, columns.
  fftwf_execute_dft(rows_inverse_.get(), const_cast<fftwf_complex*>(packed), out);
  twiddle(&out[0][0], &step_twiddles_[0][0], static_cast<int>(points_ / 2), true);
  fftwf_execute_dft(columns_inverse_.get(), out, out);
}

std::string cpu_fft_out_of_memory(std::size_t points) {
  return "cpu-fft: out of memory for an FFT of " + std::to_string(points) +
         " points (cpu-partitioned needs far less for a long mask)";
}

}  // namespace halo
