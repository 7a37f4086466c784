// Least-squares linear-phase design, as scipy.signal.firls: minimise the weighted integral of
// (A(f) - D(f))^2 over the bands. Written here because no library Debian packages has it
// (liquid-dsp has Parks-McClellan and windows only; FFTW, GSL and LAPACK have the algebra,
// not the design); the normal equations are small and symmetric positive (semi-)definite, so
// a Cholesky factorisation in double, with a ridge where they are singular, is all the algebra
// it needs.
#include <cmath>
#include <string>
#include <vector>

#include "filters/error.hpp"
#include "filters/methods.hpp"

namespace halo::filters {
namespace {

constexpr double pi = 3.14159265358979323846;

// sin(pi x) / (pi x), 1 at 0: numpy.sinc.
double sinc(double x) {
  if (x == 0) return 1.0;
  return std::sin(pi * x) / (pi * x);
}

[[noreturn]] void singular(int taps) {
  throw Error(Field::taps, std::to_string(taps) + ": firls's normal equations are singular at this length "
                               "(bands too narrow for it): fewer taps or wider bands");
}

// The Cholesky factor of Q + ridge I (Q(i, j) = q(i - j) + q(i + j)) into l; false where a pivot
// is not positive (Q singular to rounding).
bool cholesky(const std::vector<double>& q, double ridge, std::size_t size, std::vector<double>& l) {
  for (std::size_t i = 0; i < size; ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      double sum = q[i - j] + q[i + j] + (i == j ? ridge : 0.0);
      for (std::size_t k = 0; k < j; ++k) sum -= l[i * size + k] * l[j * size + k];
      if (i == j) {
        if (!(sum > 0)) return false;
        l[i * size + i] = std::sqrt(sum);
      } else {
        l[i * size + j] = sum / l[j * size + j];
      }
    }
  }
  return true;
}

}  // namespace

std::vector<double> least_squares(int taps, const std::vector<BandGoal>& bands, double rate_hz) {
  if (taps % 2 == 0) {
    throw Error(Field::taps, std::to_string(taps) + ": firls designs odd lengths only (try " +
                                 std::to_string(taps + 1) + ")");
  }
  const int m = (taps - 1) / 2;
  const double nyquist = rate_hz / 2;

  // With A(f) = sum_k a_k cos(pi k f) (f as a fraction of Nyquist), the normal equations are
  // Q a = b with Q(i, j) = q(i - j) + q(i + j), q(n) = sum over bands of
  // w (f sinc(n f)) from f1 to f2, and b(n) = sum of w d (f sinc(n f)) from f1 to f2 (the
  // desired gain d constant in each band). scipy drops the same factors 1/2 and 1/pi.
  std::vector<double> q(2 * m + 1, 0.0), b(m + 1, 0.0);
  for (const BandGoal& band : bands) {
    const double f1 = band.low_hz / nyquist, f2 = band.high_hz / nyquist;
    for (int n = 0; n <= 2 * m; ++n) {
      const double integral = f2 * sinc(f2 * n) - f1 * sinc(f1 * n);
      q[n] += band.weight * integral;
      if (n <= m) b[n] += band.weight * band.gain * integral;
    }
  }
  const std::size_t size = static_cast<std::size_t>(m) + 1;
  std::vector<double> l(size * size);  // Cholesky factor, lower triangle, row-major
  // Past the length the bands need, Q is singular to rounding: a longer mask meets the bands
  // no better, and many masks share the least error (they differ only in the transitions).
  // scipy then falls back to LAPACK's least squares (gelsy); halo adds the smallest ridge
  // (Q + lambda I, lambda from 1e-14 of Q's mean diagonal, tenfold each try) that lets
  // Cholesky through, which picks a least-error mask of small norm: the bands as scipy's
  // meets them to about 1e-7, and no overshoot in the transitions, where gelsy's answer can
  // peak several dB above the pass band.
  double mean_diagonal = 0;
  for (std::size_t i = 0; i < size; ++i) mean_diagonal += q[0] + q[2 * i];
  mean_diagonal /= static_cast<double>(size);
  double ridge = 0;
  while (!cholesky(q, ridge, size, l)) {
    ridge = ridge == 0 ? 1e-14 * mean_diagonal : 10 * ridge;
    if (ridge > 1e-8 * mean_diagonal) singular(taps);
  }
  std::vector<double> a(size);
  for (std::size_t i = 0; i < size; ++i) {  // L y = b
    double sum = b[i];
    for (std::size_t k = 0; k < i; ++k) sum -= l[i * size + k] * a[k];
    a[i] = sum / l[i * size + i];
  }
  for (std::size_t i = size; i-- > 0;) {  // L^T a = y
    double sum = a[i];
    for (std::size_t k = i + 1; k < size; ++k) sum -= l[k * size + i] * a[k];
    a[i] = sum / l[i * size + i];
  }
  // h = [a_m .. a_1, 2 a_0, a_1 .. a_m], as scipy assembles it.
  std::vector<double> h(taps);
  h[m] = 2 * a[0];
  for (int k = 1; k <= m; ++k) h[m - k] = h[m + k] = a[k];
  for (double tap : h) {
    if (!std::isfinite(tap)) singular(taps);
  }
  return h;
}

}  // namespace halo::filters
