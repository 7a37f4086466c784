// Minimum phase of the same length and the same magnitude. A linear-phase mask's zeros come in
// pairs z, 1/z* (plus zeros on the unit circle); moving every zero outside the circle to its
// mirror image inside keeps |H| (up to one constant, restored below) and the length, and gives
// the minimum-phase mask: the one whose energy comes first. scipy.signal.minimum_phase
// (homomorphic) instead treats the mask as the square of a minimum-phase one: half the length
// and the square root of the magnitude. Here the same reflection is done without finding
// roots (unstable for thousands of taps), by the real cepstrum of the FULL magnitude: with
// c = IFFT(log |H|), folding c onto n >= 0 (c[0], 2 c[n], c[L/2]) gives log H_min; exp and one
// more transform give h_min, of which the first M taps are kept. The transform length L is at
// least 64 M (and 2^16), at most 2^26, in double (FFTW): the cepstrum of a zero on the unit
// circle decays only as 1/n, so the padding is what keeps its aliasing small (at 8x, where
// the length had stopped at 2^23, a 2^20-tap low-pass came out 0.2 dB off in its pass band: a
// QA pass). Every sequence here is real (the taps, the even cepstrum, the folded one, h_min),
// so the transforms are FFTW's real ones: a real array of L and a half spectrum, 16 L bytes
// (1 GiB at 2^26), where complex ones had taken twice that. |H| is floored at 1e-12 of its
// peak (-240 dB) so that log stays finite at those zeros.
#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "filters/error.hpp"
#include "filters/methods.hpp"
#include "filters/real_transform.hpp"

namespace halo::filters {
namespace {

constexpr double floor_fraction = 1e-12;

}  // namespace

std::vector<double> minimum_phase(const std::vector<double>& taps) {
  const std::size_t m = taps.size();
  if (m <= 1) return taps;
  std::size_t n = 1 << 16;
  while (n < 64 * m && n < (std::size_t(1) << 26)) n *= 2;
  if (n < 2 * m) throw Error(Field::taps, std::to_string(m) + ": too long for a minimum-phase design");

  RealTransform transform(n);
  double* x = transform.real();
  std::complex<double>* bins = transform.spectrum();
  std::fill(x, x + n, 0.0);
  for (std::size_t k = 0; k < m; ++k) x[k] = taps[k];
  transform.forward();
  const std::size_t half = n / 2 + 1;
  double peak = 0;
  for (std::size_t i = 0; i < half; ++i) peak = std::max(peak, std::abs(bins[i]));
  if (!(peak > 0)) throw Error(Field::taps, "a mask of zeros has no minimum phase");
  const double floor = peak * floor_fraction;

  // log |H| (real and even), then its cepstrum, times n.
  for (std::size_t i = 0; i < half; ++i) bins[i] = std::log(std::max(std::abs(bins[i]), floor));
  transform.backward();
  // Fold onto n >= 0 (and divide by n for the inverse transform).
  const double scale = 1.0 / static_cast<double>(n);
  x[0] *= scale;
  for (std::size_t i = 1; i < n / 2; ++i) x[i] *= 2.0 * scale;
  x[n / 2] *= scale;
  for (std::size_t i = n / 2 + 1; i < n; ++i) x[i] = 0;
  transform.forward();  // log H_min
  for (std::size_t i = 0; i < half; ++i) bins[i] = std::exp(bins[i]);
  transform.backward();  // h_min * n
  std::vector<double> h(m);
  for (std::size_t k = 0; k < m; ++k) h[k] = x[k] * scale;

  // The floor and the cut to m taps change the energy slightly: give back the linear-phase
  // mask's (Parseval: equal magnitudes, equal energies).
  double energy = 0, energy_min = 0;
  for (std::size_t k = 0; k < m; ++k) {
    energy += taps[k] * taps[k];
    energy_min += h[k] * h[k];
  }
  if (energy_min > 0) {
    const double gain = std::sqrt(energy / energy_min);
    for (double& tap : h) tap *= gain;
  }
  return h;
}

void keep_polarity(const std::vector<double>& original, std::vector<double>& changed) {
  std::size_t n = 2;
  while (n < original.size() + changed.size()) n *= 2;
  // The cross-correlation by the product of one spectrum with the other's conjugate.
  RealTransform a(n), b(n);
  std::fill(a.real(), a.real() + n, 0.0);
  std::fill(b.real(), b.real() + n, 0.0);
  std::copy(original.begin(), original.end(), a.real());
  std::copy(changed.begin(), changed.end(), b.real());
  a.forward();
  b.forward();
  for (std::size_t k = 0; k <= n / 2; ++k) a.spectrum()[k] *= std::conj(b.spectrum()[k]);
  a.backward();
  const double* correlation = a.real();
  const double* strongest = std::max_element(correlation, correlation + n, [](double x, double y) { return std::fabs(x) < std::fabs(y); });
  if (*strongest < 0)
    for (double& tap : changed) tap = -tap;
}

}  // namespace halo::filters
