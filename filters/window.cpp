// Symmetric windows, computed the way scipy.signal.windows does (sym=True), so that a design
// matches scipy.signal.firwin to rounding.
#include <cmath>
#include <string>
#include <vector>

#include "filters/design.hpp"
#include "filters/error.hpp"

namespace halo::filters {
namespace {

constexpr double pi = 3.14159265358979323846;

// sum_k a[k] cos(k x) over x evenly from -pi to pi inclusive: scipy's general_cosine.
// The abscissae follow numpy.linspace (start + i * step, the last point exactly pi).
std::vector<double> general_cosine(int taps, const std::vector<double>& coefficients) {
  std::vector<double> w(taps, 0.0);
  const double step = (pi - -pi) / (taps - 1);
  for (int i = 0; i < taps; ++i) {
    const double x = (i == taps - 1) ? pi : i * step + -pi;
    for (std::size_t k = 0; k < coefficients.size(); ++k) {
      w[i] += coefficients[k] * std::cos(static_cast<double>(k) * x);
    }
  }
  return w;
}

// Modified Bessel function of the first kind, order 0, by its power series
// sum_k ((x/2)^k / k!)^2. Every term is positive, so there is no cancellation and the series
// is accurate to a few ulp for any beta a Kaiser window uses (|x| <= 50 needs < 100 terms).
double bessel_i0(double x) {
  const double quarter_x_squared = x * x / 4;
  double term = 1;
  double sum = 1;
  for (int k = 1; k < 500; ++k) {
    term *= quarter_x_squared / (static_cast<double>(k) * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

// I0(beta sqrt(1 - (2n/(M-1) - 1)^2)) / I0(beta): scipy's kaiser.
std::vector<double> kaiser(int taps, double beta) {
  std::vector<double> w(taps);
  const double alpha = (taps - 1) / 2.0;
  const double scale = bessel_i0(beta);
  for (int n = 0; n < taps; ++n) {
    const double r = (n - alpha) / alpha;
    w[n] = bessel_i0(beta * std::sqrt(1 - r * r)) / scale;
  }
  return w;
}

}  // namespace

std::vector<double> window_coefficients(const Window& window, int taps) {
  if (taps < 0) {
    throw Error(Field::taps, std::to_string(taps) + ": a window length cannot be negative");
  }
  // scipy returns ones for M <= 1 (the formulas divide by M - 1).
  if (taps <= 1) return std::vector<double>(taps, 1.0);

  switch (window.kind) {
    case WindowKind::hann: return general_cosine(taps, {0.5, 0.5});
    case WindowKind::hamming: return general_cosine(taps, {0.54, 1 - 0.54});
    case WindowKind::blackman: return general_cosine(taps, {0.42, 0.50, 0.08});
    case WindowKind::kaiser: return kaiser(taps, window.kaiser_beta);
    case WindowKind::rect: return std::vector<double>(taps, 1.0);
  }
  throw Error("unknown window");
}

}  // namespace halo::filters
