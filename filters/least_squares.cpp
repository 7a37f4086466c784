// Least-squares linear-phase design, as scipy.signal.firls: minimise the weighted integral of
// (A(f) - D(f))^2 over the bands. Written here because no library Debian packages has it
// (liquid-dsp has Parks-McClellan and windows only; FFTW, GSL and LAPACK have the algebra,
// not the design); the normal equations are small and symmetric positive definite, so a
// Cholesky factorisation in double is all the algebra it needs.
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
  std::vector<double> l(size * size, 0.0);  // Cholesky factor, lower triangle, row-major
  for (std::size_t i = 0; i < size; ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      double sum = q[i - j] + q[i + j];
      for (std::size_t k = 0; k < j; ++k) sum -= l[i * size + k] * l[j * size + k];
      if (i == j) {
        if (!(sum > 0)) singular(taps);
        l[i * size + i] = std::sqrt(sum);
      } else {
        l[i * size + j] = sum / l[j * size + j];
      }
    }
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
