// Frequency response H(w) = sum_k h[k] e^{-jwk}. On the evenly spaced grid of response() it is
// one real FFT (FFTW, double) of the taps folded onto the grid's period: O(taps + points log
// points), where evaluating every point directly took points * taps trig calls (66 s for a
// summary of 1048575 taps). magnitude_at() evaluates one frequency directly.
#include "filters/response.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <memory>
#include <mutex>
#include <numeric>
#include <new>
#include <string>
#include <type_traits>

#include "filters/error.hpp"
#include "filters/real_transform.hpp"

namespace halo::filters {
namespace {

constexpr double pi = 3.14159265358979323846;

// Below this |H| the phase has no meaning and the group delay is set to 0, as
// scipy.signal.group_delay does.
constexpr double singular_magnitude = 10 * DBL_EPSILON;

// numpy.unwrap: remove jumps larger than pi by adding multiples of 2 pi.
void unwrap(std::vector<double>& phase) {
  double correction = 0;
  double previous = phase.empty() ? 0 : phase.front();
  for (std::size_t i = 1; i < phase.size(); ++i) {
    const double raw = phase[i];
    const double step = raw - previous;
    previous = raw;
    if (std::fabs(step) >= pi) {
      double wrapped = std::fmod(step + pi, 2 * pi);
      if (wrapped < 0) wrapped += 2 * pi;
      wrapped -= pi;
      if (wrapped == -pi && step > 0) wrapped = pi;
      correction += wrapped - step;
    }
    phase[i] = raw + correction;
  }
}

struct FftwFree {
  void operator()(void* memory) const noexcept { fftw_free(memory); }
};
struct PlanDestroy {
  void operator()(fftw_plan plan) const noexcept { fftw_destroy_plan(plan); }
};

// The plan of the last size asked for, kept while a ResponsePlanKeeper lives
// (fftw_planner_mutex() held to touch either).
struct KeptPlan {
  std::size_t n = 0;
  std::unique_ptr<std::remove_pointer_t<fftw_plan>, PlanDestroy> plan;
};
KeptPlan kept_plan;
int keepers = 0;  // ResponsePlanKeepers alive

// sum_k values[k] e^{-2 pi j i k / n} for i in [0, n/2], for each of `rows`: the values folded
// modulo n (taps k and k + n meet every grid frequency with the same phase, so folding is
// exact), then one real FFT each.
std::vector<std::vector<std::complex<double>>> folded_transforms(const std::vector<const std::vector<double>*>& rows,
                                                                 std::size_t n) {
  std::unique_ptr<double, FftwFree> in(fftw_alloc_real(n));
  std::unique_ptr<fftw_complex, FftwFree> out(fftw_alloc_complex(n / 2 + 1));
  if (!in || !out) throw std::bad_alloc();
  // Held through the transforms too, so that no call of another size replaces the plan while
  // it runs (halo measures on one thread at a time; nothing is lost by the wait).
  const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  if (kept_plan.n != n || !kept_plan.plan) {
    kept_plan.plan.reset(fftw_plan_dft_r2c_1d(static_cast<int>(n), in.get(), out.get(), FFTW_ESTIMATE));
    kept_plan.n = kept_plan.plan ? n : 0;
  }
  const fftw_plan plan = kept_plan.plan.get();
  if (!plan) throw Error("response: FFTW could not plan a transform of " + std::to_string(n) + " points");
  std::vector<std::vector<std::complex<double>>> transforms;
  for (const std::vector<double>* values : rows) {
    std::fill(in.get(), in.get() + n, 0.0);
    for (std::size_t k = 0; k < values->size(); ++k) in.get()[k % n] += (*values)[k];
    fftw_execute_dft_r2c(plan, in.get(), out.get());  // arrays of fftw_alloc's alignment, as the plan's
    std::vector<std::complex<double>> bins(n / 2 + 1);
    for (std::size_t i = 0; i < bins.size(); ++i) bins[i] = {out.get()[i][0], out.get()[i][1]};
    transforms.push_back(std::move(bins));
  }
  if (keepers == 0) kept_plan = KeptPlan{};
  return transforms;
}

}  // namespace

ResponsePlanKeeper::ResponsePlanKeeper() {
  const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  ++keepers;
}

ResponsePlanKeeper::~ResponsePlanKeeper() {
  const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  if (--keepers == 0) kept_plan = KeptPlan{};
}

Response response(const Mask& mask, int points, Figures figures) {
  const bool with_phase = figures == Figures::all;
  const bool with_delay = figures != Figures::magnitude;
  if (points < 1) {
    throw Error("response: " + std::to_string(points) + " points requested, at least 1 is needed");
  }
  if (mask.taps.empty()) throw Error("response: the mask has no taps");

  const double rate = mask.rate_hz > 0 ? mask.rate_hz : 1.0;
  Response r;
  r.freq_hz.resize(points);
  r.magnitude.resize(points);
  if (with_phase) r.phase_rad.resize(points);
  if (with_delay) r.group_delay.resize(points);

  // H and its derivative's companion sum_k k h[k] e^{-jwk} (tau = Re(that / H)) at
  // w_i = pi i / (points - 1): bin i of a DFT of length 2 (points - 1).
  std::vector<double> h(mask.taps.begin(), mask.taps.end()), k_h;
  if (with_delay) {
    k_h.resize(h.size());
    for (std::size_t k = 0; k < h.size(); ++k) k_h[k] = static_cast<double>(k) * h[k];
  }
  std::vector<std::complex<double>> h_sums, k_h_sums;
  if (points == 1) {  // DC only
    h_sums = {std::complex<double>(std::accumulate(h.begin(), h.end(), 0.0))};
    k_h_sums = {std::complex<double>(std::accumulate(k_h.begin(), k_h.end(), 0.0))};
  } else {
    const std::size_t n = 2 * static_cast<std::size_t>(points - 1);
    auto sums = with_delay ? folded_transforms({&h, &k_h}, n) : folded_transforms({&h}, n);
    h_sums = std::move(sums[0]);
    if (with_delay) k_h_sums = std::move(sums[1]);
  }

  for (int i = 0; i < points; ++i) {
    const double fraction = points == 1 ? 0.0 : static_cast<double>(i) / (points - 1);
    const std::complex<double> h_sum = h_sums[i];
    r.freq_hz[i] = fraction * rate / 2;
    // |H| as the root of its norm (std::abs's hypot, which guards against overflow no sum of
    // float taps reaches, had been a tenth of design's search), hypot where the norm would
    // underflow.
    const double norm = std::norm(h_sum);
    r.magnitude[i] = norm > 1e-290 ? std::sqrt(norm) : std::abs(h_sum);
    if (with_phase) r.phase_rad[i] = std::arg(h_sum);
    if (with_delay) r.group_delay[i] = r.magnitude[i] < singular_magnitude ? 0.0 : std::real(k_h_sums[i] / h_sum);
  }
  if (with_phase) unwrap(r.phase_rad);
  return r;
}

double magnitude_at(const Mask& mask, double hz, double rate_hz) {
  double re = 0, im = 0;
  const double omega = 2.0 * pi * hz / rate_hz;
  for (std::size_t k = 0; k < mask.taps.size(); ++k) {
    re += mask.taps[k] * std::cos(omega * static_cast<double>(k));
    im -= mask.taps[k] * std::sin(omega * static_cast<double>(k));
  }
  return std::hypot(re, im);
}

std::vector<double> magnitudes_at(const Mask& mask, const std::vector<double>& hz, double rate_hz) {
  const std::size_t count = hz.size();
  std::vector<std::complex<double>> sum(count), turn(count), step(count);
  for (std::size_t i = 0; i < count; ++i) step[i] = std::polar(1.0, -2.0 * pi * hz[i] / rate_hz);
  for (std::size_t k = 0; k < mask.taps.size(); ++k) {
    if (k % 1024 == 0)
      for (std::size_t i = 0; i < count; ++i) turn[i] = std::polar(1.0, -2.0 * pi * hz[i] / rate_hz * static_cast<double>(k));
    const double tap = mask.taps[k];
    for (std::size_t i = 0; i < count; ++i) {
      sum[i] += tap * turn[i];
      turn[i] *= step[i];
    }
  }
  std::vector<double> magnitudes(count);
  for (std::size_t i = 0; i < count; ++i) magnitudes[i] = std::abs(sum[i]);
  return magnitudes;
}

StopBand stop_band(const Mask& mask, const Spec& spec) {
  if (mask.taps.empty()) throw Error("stop band: the mask has no taps");
  constexpr int grid_points = 4096;
  const Response r = response(mask, grid_points);
  StopBand band;
  band.guard_hz = spec.transition_hz > 0 ? spec.transition_hz
                                         : 4.0 * spec.rate_hz / static_cast<double>(mask.taps.size());
  const double guard = band.guard_hz;
  for (std::size_t i = 0; i < r.freq_hz.size(); ++i) {
    const double f = r.freq_hz[i];
    bool stop = false;
    switch (spec.band) {
      case Band::lowpass: stop = f > spec.low_hz + guard; break;
      case Band::highpass: stop = f < spec.low_hz - guard; break;
      case Band::bandpass: stop = f < spec.low_hz - guard || f > spec.high_hz + guard; break;
      case Band::bandstop: stop = f > spec.low_hz + guard && f < spec.high_hz - guard; break;
      case Band::multiband: break;  // design_report.hpp measures every band of those
    }
    if (stop) {
      band.worst_magnitude = std::max(band.worst_magnitude, r.magnitude[i]);
      ++band.points;
    }
  }
  if (spec.band == Band::bandstop) {
    band.centre_hz = (spec.low_hz + spec.high_hz) / 2;
    band.centre_magnitude = magnitude_at(mask, band.centre_hz, spec.rate_hz);
  }
  return band;
}

}  // namespace halo::filters
