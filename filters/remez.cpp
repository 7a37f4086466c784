// Parks-McClellan (Remez exchange) equiripple design, written here in double precision with
// barycentric Lagrange interpolation, the scheme of McClellan, Parks and Rabiner's program
// that scipy.signal.remez also runs. Why not liquid-dsp's firdespm (Debian libliquid-dev
// 1.5.0): it returns NaN taps, with a success code, from about 2000 taps on (a 2000-tap
// low-pass with a 0.002 transition, and 4096 taps at 0.001), and garbage at 4097 with a stop
// weight of 10; halo needs 4096 taps and more. The barycentric weights here are computed as
// sums of logarithms, so that no product of 2000 differences under- or overflows.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "filters/error.hpp"
#include "filters/methods.hpp"

namespace halo::filters {
namespace {

constexpr double pi = 3.14159265358979323846;
constexpr int grid_density = 16;   // grid points per extremal, as scipy's default
constexpr int max_iterations = 100;

// The approximation problem on the dense grid: find the cosine polynomial A(x), x = cos(2 pi f),
// of r terms that minimises max |weight (desired - A)|. Type II masks (even taps) are
// cos(pi f) times such a polynomial: desired and weight are divided and multiplied by it.
struct Grid {
  std::vector<double> x;        // cos(2 pi f), f in cycles per sample
  std::vector<double> desired;
  std::vector<double> weight;
  std::vector<int> band;        // which band each point lies in: neighbours across bands are not neighbours
};

Grid make_grid(const std::vector<BandGoal>& bands, double rate_hz, int terms, bool even_taps) {
  const double step = 0.5 / (grid_density * terms);
  Grid g;
  for (std::size_t b = 0; b < bands.size(); ++b) {
    const double low = bands[b].low_hz / rate_hz;
    double high = bands[b].high_hz / rate_hz;
    if (even_taps) high = std::min(high, 0.5 - step);  // a type II mask is 0 at Nyquist: leave that point out
    if (!(high > low)) continue;
    std::vector<double> fs;
    for (long k = 0;; ++k) {
      const double f = low + static_cast<double>(k) * step;
      if (f >= high) break;
      fs.push_back(f);
    }
    fs.push_back(high);
    for (double f : fs) {
      double desired = bands[b].gain, weight = bands[b].weight;
      if (even_taps) {
        const double c = std::cos(pi * f);
        desired /= c;
        weight *= c;
      }
      g.x.push_back(std::cos(2 * pi * f));
      g.desired.push_back(desired);
      g.weight.push_back(weight);
      g.band.push_back(static_cast<int>(b));
    }
  }
  return g;
}

// Barycentric weights 1 / prod_{j != k} (x_k - x_j), up to one common factor (which cancels in
// every formula that uses them), from sums of log |2 (x_k - x_j)|.
std::vector<double> barycentric_weights(const std::vector<double>& nodes) {
  const std::size_t n = nodes.size();
  std::vector<double> log_sum(n, 0.0), sign(n, 1.0);
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t j = 0; j < n; ++j) {
      if (j == k) continue;
      const double d = 2 * (nodes[k] - nodes[j]);
      log_sum[k] += std::log(std::fabs(d));
      if (d < 0) sign[k] = -sign[k];
    }
  }
  const double smallest = *std::min_element(log_sum.begin(), log_sum.end());
  std::vector<double> w(n);
  for (std::size_t k = 0; k < n; ++k) w[k] = sign[k] * std::exp(smallest - log_sum[k]);
  return w;
}

// The polynomial through (nodes[k], values[k]) at x.
double interpolate(const std::vector<double>& nodes, const std::vector<double>& values,
                   const std::vector<double>& weights, double x) {
  double numerator = 0, denominator = 0;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const double d = x - nodes[k];
    if (d == 0) return values[k];
    const double t = weights[k] / d;
    numerator += t * values[k];
    denominator += t;
  }
  return numerator / denominator;
}

// Each extremal moves to the largest error of its own sign between its neighbours (the new
// left one, the old right one), so that the set stays ordered and alternating and every new
// |E| is at least the old one: delta grows at each exchange (de la Vallee Poussin), even while
// it is still rounding noise, as in the first exchanges of a long mask.
std::vector<std::size_t> local_exchange(const std::vector<double>& error, const std::vector<std::size_t>& extremal) {
  std::vector<std::size_t> next = extremal;
  const std::size_t last = extremal.size() - 1;
  for (std::size_t k = 0; k <= last; ++k) {
    const std::size_t from = k == 0 ? 0 : next[k - 1] + 1;
    const std::size_t to = k == last ? error.size() - 1 : extremal[k + 1] - 1;
    const double sign = error[extremal[k]] >= 0 ? 1.0 : -1.0;
    std::size_t best = extremal[k];
    for (std::size_t i = from; i <= to; ++i)
      if (sign * error[i] > sign * error[best]) best = i;
    next[k] = best;
  }
  return next;
}

// Every local extremum of the error at least about |delta| deep, alternating in sign (of two
// in a row with one sign, the larger stays), trimmed at the ends to the count wanted; fewer
// when the alternation is lost. In exact arithmetic |E| = |delta| at every old extremal;
// rounding moves that by a few ulp of the desired values, so the level is the smallest |E|
// there.
std::vector<std::size_t> global_exchange(const std::vector<double>& error, const Grid& g,
                                         const std::vector<std::size_t>& extremal) {
  double level = INFINITY;
  for (std::size_t i : extremal) level = std::min(level, std::fabs(error[i]));
  level *= 1 - 1e-9;
  std::vector<std::size_t> found;
  const std::size_t points = error.size();
  for (std::size_t i = 0; i < points; ++i) {
    const double e = error[i];
    if (!(std::fabs(e) >= level)) continue;
    const bool has_before = i > 0 && g.band[i - 1] == g.band[i];
    const bool has_after = i + 1 < points && g.band[i + 1] == g.band[i];
    const bool peak = e > 0 ? (!has_before || e >= error[i - 1]) && (!has_after || e >= error[i + 1])
                            : (!has_before || e <= error[i - 1]) && (!has_after || e <= error[i + 1]);
    if (!peak) continue;
    if (!found.empty() && (error[found.back()] > 0) == (e > 0)) {
      if (std::fabs(e) > std::fabs(error[found.back()])) found.back() = i;
    } else {
      found.push_back(i);
    }
  }
  while (found.size() > extremal.size()) {
    if (std::fabs(error[found.front()]) < std::fabs(error[found.back()])) {
      found.erase(found.begin());
    } else {
      found.pop_back();
    }
  }
  return found;
}

[[noreturn]] void not_converging(int taps, const std::string& why) {
  throw Error(Field::taps, std::to_string(taps) + ": remez did not converge (" + why +
                               "): try another length, wider transitions or other weights");
}

}  // namespace

std::vector<double> remez(int taps, const std::vector<BandGoal>& bands, double rate_hz) {
  const bool even_taps = taps % 2 == 0;
  const int terms = even_taps ? taps / 2 : (taps + 1) / 2;
  const Grid g = make_grid(bands, rate_hz, terms, even_taps);
  const std::size_t points = g.x.size();
  if (points < static_cast<std::size_t>(terms) + 1) not_converging(taps, "the bands leave too few grid points");

  // Extremal frequencies (grid indices), r + 1 of them, first spread evenly.
  std::vector<std::size_t> extremal(terms + 1);
  for (int i = 0; i <= terms; ++i) extremal[i] = static_cast<std::size_t>(i) * (points - 1) / terms;

  std::vector<double> nodes, values, weights, error(points);
  double previous_delta = 0;  // |delta| of the exchange before, to see it grow
  for (int iteration = 0;; ++iteration) {
    if (iteration == max_iterations) not_converging(taps, std::to_string(max_iterations) + " exchanges");

    // The levelled error delta on the extremals, and the polynomial's values there.
    std::vector<double> all_nodes(terms + 1);
    for (int k = 0; k <= terms; ++k) all_nodes[k] = g.x[extremal[k]];
    const std::vector<double> all_weights = barycentric_weights(all_nodes);
    double numerator = 0, denominator = 0;
    for (int k = 0; k <= terms; ++k) {
      const std::size_t i = extremal[k];
      const double alternating = k % 2 == 0 ? 1.0 : -1.0;
      numerator += all_weights[k] * g.desired[i];
      denominator += all_weights[k] * alternating / g.weight[i];
    }
    const double delta = numerator / denominator;
    if (!std::isfinite(delta)) not_converging(taps, "the levelled error is not finite");

    // A(x) through all r + 1 points: their values are levelled so that a polynomial of degree
    // r - 1 meets them all, so the degree-r interpolant is that polynomial, and every point is
    // interpolated, never extrapolated (dropping an end point, as the 1973 program does,
    // extrapolates there and loses digits by the thousand taps).
    nodes = all_nodes;
    values.resize(terms + 1);
    for (int k = 0; k <= terms; ++k) {
      const std::size_t i = extremal[k];
      values[k] = g.desired[i] - (k % 2 == 0 ? 1.0 : -1.0) * delta / g.weight[i];
    }
    weights = all_weights;
    for (std::size_t i = 0; i < points; ++i) {
      error[i] = g.weight[i] * (g.desired[i] - interpolate(nodes, values, weights, g.x[i]));
    }

    // Equiripple: no point of the grid is further off than the extremals (to 1e-4 of delta,
    // a thousandth of a decibel).
    double largest = 0;
    for (double e : error) largest = std::max(largest, std::fabs(e));
    if (largest <= std::fabs(delta) * (1 + 1e-4)) break;
    // The global exchange converges in few steps; while delta is rounding noise, or where it
    // loses the alternation, the local one climbs out.
    const bool growing = std::fabs(delta) > previous_delta;
    previous_delta = std::fabs(delta);
    std::vector<std::size_t> next;
    if (growing) next = global_exchange(error, g, extremal);
    if (next.size() != extremal.size() || next == extremal) next = local_exchange(error, extremal);
    if (next == extremal) not_converging(taps, "the exchange stalled");
    extremal = std::move(next);
  }

  // The taps from the amplitude sampled at f = m / taps (exact for a mask of `taps` taps):
  // h[n] = (A(0) + 2 sum_m A(m / taps) cos(2 pi m (n - c) / taps)) / taps, c = (taps - 1) / 2.
  const int samples = (taps - 1) / 2;
  std::vector<double> amplitude(samples + 1);
  for (int m = 0; m <= samples; ++m) {
    const double f = static_cast<double>(m) / taps;
    double a = interpolate(nodes, values, weights, std::cos(2 * pi * f));
    if (even_taps) a *= std::cos(pi * f);
    amplitude[m] = a;
  }
  const double centre = 0.5 * (taps - 1);
  std::vector<double> h(taps);
  for (int n = 0; n < taps; ++n) {
    double sum = amplitude[0];
    for (int m = 1; m <= samples; ++m) sum += 2 * amplitude[m] * std::cos(2 * pi * m * (n - centre) / taps);
    h[n] = sum / taps;
  }
  for (int n = 0; n < taps / 2; ++n) h[n] = h[taps - 1 - n] = 0.5 * (h[n] + h[taps - 1 - n]);
  for (double tap : h) {
    if (!std::isfinite(tap)) not_converging(taps, "the taps are not finite");
  }
  return h;
}

}  // namespace halo::filters
