// Minimum phase of the same length and the same magnitude. A linear-phase mask's zeros come in
// pairs z, 1/z* (plus zeros on the unit circle); moving every zero outside the circle to its
// mirror image inside keeps |H| (up to one constant, restored below) and the length, and gives
// the minimum-phase mask: the one whose energy comes first. scipy.signal.minimum_phase
// (homomorphic) instead treats the mask as the square of a minimum-phase one: half the length
// and the square root of the magnitude. Here the same reflection is done without finding
// roots (unstable for thousands of taps), by the real cepstrum of the FULL magnitude: with
// c = IFFT(log |H|), folding c onto n >= 0 (c[0], 2 c[n], c[L/2]) gives log H_min; exp and one
// more transform give h_min, of which the first M taps are kept. The transform length L is at
// least 64 M (and 2^16), at most 2^23, in double (FFTW): the cepstrum of a zero on the unit
// circle decays only as 1/n, so the padding is what keeps its aliasing small; |H| is floored
// at 1e-12 of its peak (-240 dB) so that log stays finite at those zeros.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "filters/error.hpp"
#include "filters/methods.hpp"

namespace halo::filters {
namespace {

constexpr double floor_fraction = 1e-12;

// FFTW's planner is not thread-safe; plans are made and destroyed one at a time.
std::mutex planner;

struct FftwFree {
  void operator()(void* memory) const noexcept { fftw_free(memory); }
};

// One complex transform of length n, in place, planned and destroyed here (RAII for the plan).
class Transform {
 public:
  Transform(std::size_t n, int sign) : n_(n), data_(fftw_alloc_complex(n)) {
    if (!data_) throw std::bad_alloc();
    const std::lock_guard<std::mutex> lock(planner);
    plan_ = fftw_plan_dft_1d(static_cast<int>(n), data_.get(), data_.get(), sign, FFTW_ESTIMATE);
    if (!plan_) throw Error("minimum phase: FFTW could not plan a transform of " + std::to_string(n) + " points");
  }
  ~Transform() {
    const std::lock_guard<std::mutex> lock(planner);
    fftw_destroy_plan(plan_);
  }
  Transform(const Transform&) = delete;
  Transform& operator=(const Transform&) = delete;

  std::complex<double>* data() { return reinterpret_cast<std::complex<double>*>(data_.get()); }
  void run() { fftw_execute(plan_); }
  std::size_t size() const { return n_; }

 private:
  std::size_t n_;
  std::unique_ptr<fftw_complex, FftwFree> data_;
  fftw_plan plan_ = nullptr;
};

}  // namespace

std::vector<double> minimum_phase(const std::vector<double>& taps) {
  const std::size_t m = taps.size();
  if (m <= 1) return taps;
  std::size_t n = 1 << 16;
  while (n < 64 * m && n < (std::size_t(1) << 23)) n *= 2;
  if (n < 2 * m) throw Error(Field::taps, std::to_string(m) + ": too long for a minimum-phase design");

  Transform forward(n, FFTW_FORWARD), backward(n, FFTW_BACKWARD);
  std::complex<double>* x = forward.data();
  std::fill(x, x + n, std::complex<double>(0));
  for (std::size_t k = 0; k < m; ++k) x[k] = taps[k];
  forward.run();
  double peak = 0;
  for (std::size_t i = 0; i < n; ++i) peak = std::max(peak, std::abs(x[i]));
  if (!(peak > 0)) throw Error(Field::taps, "a mask of zeros has no minimum phase");
  const double floor = peak * floor_fraction;

  // log |H|, then its cepstrum.
  std::complex<double>* y = backward.data();
  for (std::size_t i = 0; i < n; ++i) y[i] = std::log(std::max(std::abs(x[i]), floor));
  backward.run();
  // Fold onto n >= 0 (and divide by n for the inverse transform).
  const double scale = 1.0 / static_cast<double>(n);
  x[0] = y[0] * scale;
  for (std::size_t i = 1; i < n / 2; ++i) x[i] = 2.0 * y[i].real() * scale;
  x[n / 2] = y[n / 2].real() * scale;
  for (std::size_t i = n / 2 + 1; i < n; ++i) x[i] = 0;
  forward.run();  // log H_min
  for (std::size_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
  backward.run();  // h_min * n
  std::vector<double> h(m);
  for (std::size_t k = 0; k < m; ++k) h[k] = y[k].real() * scale;

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

}  // namespace halo::filters
