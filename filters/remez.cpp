// Parks-McClellan (Remez exchange) equiripple design, written here in double precision (long
// double where it matters, see `wide`) with barycentric Lagrange interpolation, the scheme of
// McClellan, Parks and Rabiner's program that scipy.signal.remez also runs. Why not
// liquid-dsp's firdespm (Debian libliquid-dev 1.5.0): it returns NaN taps, with a success
// code, from about 2000 taps on (a 2000-tap low-pass with a 0.002 transition, and 4096 taps at
// 0.001), and garbage at 4097 with a stop weight of 10; halo needs 4096 taps and more.
//
// Long masks start from the reference of a mask about half as long, scaled up band by band
// (Filip, "A robust and scalable implementation of the Parks-McClellan algorithm", ACM TOMS
// 2016): from evenly spread extremals the first levelled errors of a few thousand taps are
// 1e-13 or less, rounding noise, and the exchange that follows noise wanders (scipy fails the
// same way at 4096 taps with a 100 Hz transition at 48 kHz); half the length is near enough to
// start within a few exchanges of the optimum.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "filters/error.hpp"
#include "filters/methods.hpp"

namespace halo::filters {
namespace {

constexpr double pi = 3.14159265358979323846;
constexpr int grid_density = 16;  // grid points per extremal, as scipy's default
constexpr int max_iterations = 100;
// Lengths tried between a shorter design above the float level and a longer one lost in
// rounding (see ladder): enough to come within a sixty-fourth of the gap.
constexpr int max_bisection_steps = 6;
// Up to this many terms the exchange starts from evenly spread extremals; longer problems
// from the reference of a shorter one (half the length, recursively).
constexpr int direct_terms = 128;
// Below this many terms a failed direct start is not retried from a shorter design.
constexpr int min_ladder_terms = 8;
// What float taps can hold. Rounding the taps of a mask to float32 (24 bits) moves its
// response by 2e-8 to 3e-8 of the gain (measured on low-passes of 255 to 4095 taps), so:
// - an exchange whose every weighted error is within exchange_level (relative to the largest
//   gain) of the levelled error stops there: levelling it further would not give another
//   float mask;
// - a design whose measured deviation is within float_level of the gain is as good as a float
//   mask gets, and a longer one is that design centred in zeros. Its optimum is a better
//   double mask, not a better float one, and is not there to be found in double either: a
//   wide transition over thousands of taps has its optimum at 1e-60 and less, far below the
//   rounding of the exchange (about 1e-13 of the gain), which then levels noise.
constexpr double exchange_level = 1e-9;
constexpr double float_level = 1e-8;

// The approximation problem on the dense grid: find the cosine polynomial A(x), x = cos(2 pi f),
// of r terms that minimises max |weight (desired - A)|. Type II masks (even taps) are
// cos(pi f) times such a polynomial: desired and weight are divided and multiplied by it.
struct Grid {
  std::vector<double> f;  // frequency in cycles per sample, ascending
  std::vector<double> x;  // cos(2 pi f)
  std::vector<double> desired;
  std::vector<double> weight;
  std::vector<int> band;  // which band each point lies in: neighbours across bands are not neighbours
};

Grid make_grid(const std::vector<BandGoal>& bands, double rate_hz, int terms, bool even_taps) {
  const double step = 0.5 / (grid_density * terms);
  Grid g;
  for (std::size_t b = 0; b < bands.size(); ++b) {
    const double low = bands[b].low_hz / rate_hz;
    double high = bands[b].high_hz / rate_hz;
    // A type II mask is 0 at Nyquist, where cos(pi f) is: its weight there would be 0 and its
    // desired value 0/0 (a stop band) or infinite. The last point is one step short of it,
    // as in the 1973 program.
    if (even_taps) high = std::min(high, 0.5 - step);
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
      g.f.push_back(f);
      g.x.push_back(std::cos(2 * pi * f));
      g.desired.push_back(desired);
      g.weight.push_back(weight);
      g.band.push_back(static_cast<int>(b));
    }
  }
  return g;
}

// The barycentric weights and the values at the reference are kept in long double (64 bits
// of mantissa on x86-64, against double's 53): sampled between the bands, where A(x) is
// pinned by no reference point, the interpolant magnifies their rounding by the Lebesgue
// function of the reference, 1e9 and more over a transition of a few bins at a thousand taps,
// and the taps sampled there carry it back into every band.
using wide = long double;

// Barycentric weights 1 / prod_{j != k} 2 (x_k - x_j), up to one common factor (which cancels
// in every formula that uses them): each product with its binary exponent kept apart, so that
// no product of 4000 differences under- or overflows, and rounded a few ulp of wide only.
std::vector<wide> barycentric_weights(const std::vector<double>& nodes) {
  const std::size_t n = nodes.size();
  std::vector<wide> mantissa(n);
  std::vector<long> exponent(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    wide product = 1;
    long e = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == k) continue;
      product *= 2 * (static_cast<wide>(nodes[k]) - static_cast<wide>(nodes[j]));
      if (j % 8 == 7) {
        int step = 0;
        product = std::frexp(product, &step);
        e += step;
      }
    }
    int step = 0;
    mantissa[k] = std::frexp(product, &step);
    exponent[k] = e + step;
  }
  const long smallest = *std::min_element(exponent.begin(), exponent.end());
  std::vector<wide> w(n);
  for (std::size_t k = 0; k < n; ++k) w[k] = std::ldexp(1 / mantissa[k], static_cast<int>(smallest - exponent[k]));
  return w;
}

// The polynomial through (nodes[k], values[k]) at x.
template <typename Real>
Real interpolate(const std::vector<double>& nodes, const std::vector<Real>& values, const std::vector<Real>& weights,
                 Real x) {
  Real numerator = 0, denominator = 0;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const Real d = x - static_cast<Real>(nodes[k]);
    if (d == 0) return values[k];
    const Real t = weights[k] / d;
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

// The grid index nearest to frequency f among the points of one band, [begin, end).
std::size_t nearest_in_band(const Grid& g, std::size_t begin, std::size_t end, double f) {
  const auto at = std::lower_bound(g.f.begin() + static_cast<long>(begin), g.f.begin() + static_cast<long>(end), f);
  std::size_t i = static_cast<std::size_t>(at - g.f.begin());
  if (i == end) return end - 1;
  if (i > begin && f - g.f[i - 1] < g.f[i] - f) --i;
  return i;
}

// A reference of `count` points on this grid from the extremal frequencies of a shorter
// problem (`shorter`, with their bands): each band keeps its share of the points, placed by
// linear interpolation between the shorter reference's points in that band, so that their
// density follows the optimum's. Empty when it cannot be done (a band too thin for its share).
std::vector<std::size_t> scaled_reference(const Grid& g, const std::vector<double>& shorter_f,
                                          const std::vector<int>& shorter_band, std::size_t count) {
  const int bands = g.band.empty() ? 0 : g.band.back() + 1;
  std::vector<std::vector<double>> in_band(static_cast<std::size_t>(bands));
  for (std::size_t k = 0; k < shorter_f.size(); ++k)
    if (shorter_band[k] >= 0 && shorter_band[k] < bands)
      in_band[static_cast<std::size_t>(shorter_band[k])].push_back(shorter_f[k]);
  // Each band's share, rounded by largest remainder so that the shares add up to count.
  const double scale = static_cast<double>(count) / static_cast<double>(shorter_f.size());
  std::vector<std::size_t> share(in_band.size());
  std::vector<std::pair<double, std::size_t>> remainder;
  std::size_t given = 0;
  for (std::size_t b = 0; b < in_band.size(); ++b) {
    const double exact = static_cast<double>(in_band[b].size()) * scale;
    share[b] = static_cast<std::size_t>(exact);
    given += share[b];
    if (!in_band[b].empty()) remainder.emplace_back(exact - static_cast<double>(share[b]), b);
  }
  std::sort(remainder.rbegin(), remainder.rend());
  for (std::size_t i = 0; given < count && !remainder.empty(); ++i, ++given)
    ++share[remainder[i % remainder.size()].second];
  if (given != count) return {};

  std::vector<std::size_t> reference;
  std::size_t begin = 0;
  for (std::size_t b = 0; b < in_band.size(); ++b) {
    std::size_t end = begin;
    while (end < g.band.size() && g.band[end] == static_cast<int>(b)) ++end;
    const std::vector<double>& old = in_band[b];
    const std::size_t n = share[b];
    if (n > end - begin) return {};
    for (std::size_t j = 0; j < n; ++j) {
      double f;
      if (old.size() == 1 || n == 1) {
        f = n == 1 ? old.front()
                   : g.f[begin] + (g.f[end - 1] - g.f[begin]) * static_cast<double>(j) / static_cast<double>(n - 1);
      } else {
        const double u = static_cast<double>(j) * static_cast<double>(old.size() - 1) / static_cast<double>(n - 1);
        const std::size_t i = std::min(static_cast<std::size_t>(u), old.size() - 2);
        f = old[i] + (u - static_cast<double>(i)) * (old[i + 1] - old[i]);
      }
      std::size_t index = nearest_in_band(g, begin, end, f);
      // Strictly ascending, leaving room for the points still to come in this band.
      if (j > 0) index = std::max(index, reference.back() + 1);
      index = std::min(index, end - (n - j));
      reference.push_back(index);
    }
    begin = end;
  }
  return reference;
}

std::vector<std::size_t> even_reference(std::size_t points, int terms) {
  std::vector<std::size_t> extremal(static_cast<std::size_t>(terms) + 1);
  for (int i = 0; i <= terms; ++i)
    extremal[static_cast<std::size_t>(i)] =
        static_cast<std::size_t>(i) * (points - 1) / static_cast<std::size_t>(terms);
  return extremal;
}

// What the exchange found at one length: A(x) in barycentric form, and its reference.
struct Exchange {
  bool converged = false;
  std::string why;            // when not converged
  double largest = INFINITY;  // the largest weighted error of A on the grid
  std::vector<double> nodes;
  std::vector<wide> values, weights;
  std::vector<std::size_t> extremal;
};

Exchange exchange(const Grid& g, int terms, std::vector<std::size_t> extremal, double float_tolerance) {
  const std::size_t points = g.x.size();
  Exchange result;
  std::vector<double> error(points);
  double previous_delta = 0;  // |delta| of the exchange before, to see it grow
  // The reference with the smallest largest error, for a longer problem's start when this one
  // does not converge.
  std::vector<std::size_t> best_extremal;
  constexpr int patience = 20;
  int since_best = 0;
  double largest_delta = 0;  // the largest |delta| yet: while it keeps growing, the exchange is getting somewhere
  for (int iteration = 0;; ++iteration) {
    if (iteration == max_iterations) {
      result.why = std::to_string(max_iterations) + " exchanges";
      break;
    }

    // The levelled error delta on the extremals, and the polynomial's values there.
    std::vector<double> nodes(terms + 1);
    for (int k = 0; k <= terms; ++k) nodes[k] = g.x[extremal[k]];
    std::vector<wide> weights = barycentric_weights(nodes);
    wide numerator = 0, denominator = 0;
    for (int k = 0; k <= terms; ++k) {
      const std::size_t i = extremal[k];
      const wide alternating = k % 2 == 0 ? 1 : -1;
      numerator += weights[k] * g.desired[i];
      denominator += weights[k] * alternating / g.weight[i];
    }
    const wide level = numerator / denominator;
    const double delta = static_cast<double>(level);
    if (!std::isfinite(delta)) {
      result.why = "the levelled error is not finite";
      break;
    }

    // A(x) through all r + 1 points: their values are levelled so that a polynomial of degree
    // r - 1 meets them all, so the degree-r interpolant is that polynomial, and every point is
    // interpolated, never extrapolated (dropping an end point, as the 1973 program does,
    // extrapolates there and loses digits by the thousand taps).
    std::vector<wide> values(terms + 1);
    for (int k = 0; k <= terms; ++k) {
      const std::size_t i = extremal[k];
      values[k] = g.desired[i] - (k % 2 == 0 ? 1 : -1) * level / g.weight[i];
    }
    // On the bands, where the reference lies, double is enough: the interpolant does not
    // magnify its rounding there.
    const std::vector<double> narrow_values(values.begin(), values.end()),
        narrow_weights(weights.begin(), weights.end());
    for (std::size_t i = 0; i < points; ++i) {
      error[i] = g.weight[i] * (g.desired[i] - interpolate(nodes, narrow_values, narrow_weights, g.x[i]));
      // Where the barycentric sums cancel in double (a stop band of 20 Hz at Nyquist weighted
      // 1e6: its denominator rounds to 0 at 400 taps), wide keeps them finite.
      if (!std::isfinite(error[i]))
        error[i] = static_cast<double>(g.weight[i] * (g.desired[i] - interpolate(nodes, values, weights,
                                                                                 static_cast<wide>(g.x[i]))));
    }
    double largest = 0;
    for (double e : error) largest = std::max(largest, std::fabs(e));
    if (!std::isfinite(largest)) {
      result.why = "the error is not finite";
      break;
    }
    // Equiripple: no point of the grid is further off than the extremals (to 1e-4 of delta,
    // a thousandth of a decibel); or all of them within the float level of delta, where no
    // further exchange would make another float mask.
    const bool converged = largest <= std::fabs(delta) * (1 + 1e-4) || largest - std::fabs(delta) <= float_tolerance;
    // From a good start the exchange converges in a dozen steps; one that has neither bettered
    // its largest error nor raised |delta| to a new high in `patience` steps is levelling
    // rounding noise (where |delta| swings back and forth). A real exchange can climb slowly:
    // a weighted 348-tap band-pass raised |delta| by 1e-4 of itself a step for thirty steps, its
    // largest error above 1e-3 throughout, then converged at the forty-third.
    const bool delta_grew = std::fabs(delta) > largest_delta * (1 + 1e-12);
    largest_delta = std::max(largest_delta, std::fabs(delta));
    since_best = largest < result.largest || delta_grew ? 0 : since_best + 1;
    if (converged || largest < result.largest) {
      result.largest = largest;
      result.nodes = std::move(nodes);
      result.values = std::move(values);
      result.weights = std::move(weights);
      best_extremal = extremal;
    }
    if (converged) {
      result.converged = true;
      break;
    }
    if (since_best == patience) {
      result.why = "the exchange stopped improving";
      break;
    }
    // The global exchange converges in few steps; while delta is rounding noise, or where it
    // loses the alternation, the local one climbs out.
    const bool growing = std::fabs(delta) > previous_delta;
    previous_delta = std::fabs(delta);
    std::vector<std::size_t> next;
    if (growing) next = global_exchange(error, g, extremal);
    if (next.size() != extremal.size() || next == extremal) next = local_exchange(error, extremal);
    if (next == extremal) {
      result.why = "the exchange stalled";
      break;
    }
    extremal = std::move(next);
  }
  result.extremal = best_extremal;
  return result;
}

// The taps of A, from the amplitude sampled at f = m / taps (exact for a mask of `taps` taps):
// h[n] = (A(0) + 2 sum_m A(m / taps) cos(2 pi m (n - c) / taps)) / taps, c = (taps - 1) / 2.
std::vector<double> taps_of(const Exchange& a, int taps, double& peak) {
  const bool even_taps = taps % 2 == 0;
  const int samples = (taps - 1) / 2;
  std::vector<double> amplitude(samples + 1);
  for (int m = 0; m <= samples; ++m) {
    const double f = static_cast<double>(m) / taps;
    double value =
        static_cast<double>(interpolate(a.nodes, a.values, a.weights, std::cos(2 * static_cast<wide>(pi) * f)));
    if (even_taps) value *= std::cos(pi * f);
    amplitude[m] = value;
    peak = std::max(peak, std::fabs(value));
  }
  const double centre = 0.5 * (taps - 1);
  std::vector<double> h(taps);
  for (int n = 0; n < taps; ++n) {
    double sum = amplitude[0];
    for (int m = 1; m <= samples; ++m) sum += 2 * amplitude[m] * std::cos(2 * pi * m * (n - centre) / taps);
    h[n] = sum / taps;
  }
  for (int n = 0; n < taps / 2; ++n) h[n] = h[taps - 1 - n] = 0.5 * (h[n] + h[taps - 1 - n]);
  return h;
}

// The zero-phase amplitude of symmetric taps at f (cycles per sample): sum over the upper
// half of 2 h[c + k] cos(2 pi f k) (k = 0 counted once for odd taps; k half-integer for even),
// the phasor by rotation, renewed every 256 taps so that its rounding does not grow.
double amplitude_at(const std::vector<double>& h, double f) {
  const std::size_t taps = h.size();
  const double half = 0.5 * static_cast<double>(taps - 1);
  const std::size_t first = taps / 2;  // the first tap at or after the centre
  const double w = 2 * pi * f;
  const std::complex<double> step(std::cos(w), std::sin(w));
  std::complex<double> phasor;
  double sum = 0;
  for (std::size_t n = first; n < taps; ++n) {
    const double k = static_cast<double>(n) - half;
    if ((n - first) % 256 == 0) phasor = std::polar(1.0, w * k);
    sum += (k == 0 ? 1.0 : 2.0) * h[n] * phasor.real();
    phasor *= step;
  }
  return sum;
}

// One length designed: its taps (empty when the exchange did not converge, or when the taps
// do not do what the polynomial does), and what its response measures.
struct Design {
  int taps = 0;
  std::vector<double> h;
  double largest_deviation = INFINITY;  // max |desired - H| over the grid, unweighted, from h
  double db_per_tap = 0;                // how fast the deviation fell from the shorter design (0 unknown)
  std::string why;                      // when h is empty
  std::vector<double> reference_f;      // the final extremal frequencies and their bands, to
  std::vector<int> reference_band;      // start a longer design from (also when h is empty)
  bool ok() const { return !h.empty(); }
};

struct Problem {
  const std::vector<BandGoal>& bands;
  double rate_hz;
  double largest_gain;
  double smallest_weight, largest_weight;
};

Design attempt(const Problem& p, int taps, const Design* shorter) {
  const bool even_taps = taps % 2 == 0;
  const int terms = even_taps ? taps / 2 : (taps + 1) / 2;
  const Grid g = make_grid(p.bands, p.rate_hz, terms, even_taps);
  const std::size_t points = g.x.size();
  Design d;
  d.taps = taps;
  if (points < static_cast<std::size_t>(terms) + 1) {
    d.why = "the bands leave too few grid points";
    return d;
  }
  std::vector<std::size_t> start;
  if (shorter != nullptr && !shorter->reference_f.empty())
    start = scaled_reference(g, shorter->reference_f, shorter->reference_band, static_cast<std::size_t>(terms) + 1);
  if (start.empty()) start = even_reference(points, terms);

  const Exchange a = exchange(g, terms, start, exchange_level * p.largest_gain * p.smallest_weight);
  for (std::size_t i : a.extremal) {
    d.reference_f.push_back(g.f[i]);
    d.reference_band.push_back(g.band[i]);
  }
  if (!a.converged) {
    d.why = a.why;
    return d;
  }
  double peak = 0;
  std::vector<double> h = taps_of(a, taps, peak);
  // The taps checked against the polynomial they came from. Where A(x) is huge between the
  // bands, the taps sampled from it lose the bands' figures to rounding: where the
  // equiripple level is far below double rounding (A through the reference is small on every
  // band and grows without bound in the transitions), or where the optimum itself peaks in
  // a transition wider than the others (a band-pass of 4096 taps with transitions of 200 and
  // 300 Hz: far above +100 dB). Up to float_level of difference is the rounding that float
  // taps add anyway.
  double measured = 0, deviation = 0;
  for (std::size_t i = 0; i < points; ++i) {
    const BandGoal& band = p.bands[static_cast<std::size_t>(g.band[i])];
    const double off = std::fabs(band.gain - amplitude_at(h, g.f[i]));
    if (!std::isfinite(off)) {
      d.why = "the taps are not finite";
      return d;
    }
    measured = std::max(measured, band.weight * off);
    deviation = std::max(deviation, off);
  }
  if (!(measured <= a.largest * (1 + 1e-3) + float_level * p.largest_gain * p.largest_weight)) {
    char why[128];
    std::snprintf(why, sizeof why, "between the bands the response peaks at %+.0f dB, more than double taps hold",
                  20 * std::log10(peak / p.largest_gain));
    d.why = why;
    return d;
  }
  d.h = std::move(h);
  d.largest_deviation = deviation;
  return d;
}

// `d`'s taps centred in `taps` (same parity, not fewer): the same response.
Design padded(Design d, int taps) {
  const std::size_t side = static_cast<std::size_t>(taps - d.taps) / 2;
  d.h.insert(d.h.begin(), side, 0.0);
  d.h.insert(d.h.end(), side, 0.0);
  d.taps = taps;
  return d;
}

int with_parity(int taps, int parity_of) { return taps % 2 == parity_of % 2 ? taps : taps + 1; }

// The design at `taps`, started from one about half as long (recursively), or, where the
// optimum at `taps` lies below what float taps hold, the shortest design that reaches that
// level, centred in `taps` zeros.
Design from_shorter(const Problem& p, int taps);

Design ladder(const Problem& p, int taps) {
  const int terms = taps % 2 == 0 ? taps / 2 : (taps + 1) / 2;
  if (terms > direct_terms) return from_shorter(p, taps);
  Design direct = attempt(p, taps, nullptr);
  if (direct.ok() || terms <= min_ladder_terms) return direct;
  // Evenly spread extremals can level the error to rounding noise at a hundred terms too (a
  // 255-tap band-stop of 0-1000, 2000-6000 and 7000-24000 Hz: 3e-17 at the first exchange,
  // which then wanders in noise), and an optimum below the float level fails here as it does
  // for long masks (a 249-tap low-pass with a 4 kHz transition at 48 kHz): the long masks' way
  // then, from half the length.
  Design laddered = from_shorter(p, taps);
  return laddered.ok() ? laddered : direct;
}

// The design at `taps` from the one about half as long (ladder's way past direct_terms).
Design from_shorter(const Problem& p, int taps) {
  const Design shorter = ladder(p, with_parity(taps / 2, taps));
  const double float_deviation = float_level * p.largest_gain;
  // What a float32 tap resolves of the gain: rounding in double keeps the longest designs that
  // converge a little above float_level (to about 1e-8 where the transition is a hundredth of
  // the band); within this, as good a float mask as the optimum would be.
  const double float32_deviation = std::ldexp(p.largest_gain, -24);
  // Already as good as float taps hold: a longer optimum is a better double mask, not a
  // better float one, and the exchange could not find it through the rounding anyway.
  if (shorter.ok() && shorter.largest_deviation <= float_deviation) return padded(shorter, taps);
  // The deviation in dB falls about linearly with the length (Kaiser's and Herrmann's
  // estimates): where it would fall far below the float level by `taps`, go straight to the
  // length that reaches it (a tenth more, for the estimate's error).
  if (shorter.ok() && shorter.db_per_tap > 0) {
    const double needed_db = 20 * std::log10(shorter.largest_deviation / float_deviation);
    if (shorter.db_per_tap * (taps - shorter.taps) > needed_db + 20) {
      const int target =
          with_parity(shorter.taps + static_cast<int>(std::ceil(1.1 * needed_db / shorter.db_per_tap)), taps);
      if (target < taps) {
        Design d = attempt(p, target, &shorter);
        if (d.ok() && d.largest_deviation <= float32_deviation) return padded(std::move(d), taps);
      }
    }
  }
  Design here = attempt(p, taps, &shorter);
  if (here.ok()) {
    if (shorter.ok() && here.largest_deviation > 0)
      here.db_per_tap = 20 * std::log10(shorter.largest_deviation / here.largest_deviation) / (taps - shorter.taps);
    return here;
  }
  if (!shorter.ok()) return here;
  // The float level lies between the two lengths: the shortest length that reaches it, by
  // bisection (shorter ones do not reach it, longer ones drown in rounding).
  Design low = shorter;
  int high = taps;
  for (int step = 0; step < max_bisection_steps; ++step) {
    const int middle = with_parity((low.taps + high) / 2, taps);
    if (middle >= high) break;
    Design d = attempt(p, middle, &low);
    if (d.ok() && d.largest_deviation <= float_deviation) return padded(std::move(d), taps);
    if (d.ok()) {
      low = std::move(d);
    } else {
      high = middle;
    }
  }
  if (low.largest_deviation <= float32_deviation) return padded(std::move(low), taps);
  return here;
}

}  // namespace

std::vector<double> remez(int taps, const std::vector<BandGoal>& bands, double rate_hz) {
  Problem p{bands, rate_hz, 0, INFINITY, 0};
  for (const BandGoal& b : bands) {
    p.largest_gain = std::max(p.largest_gain, b.gain);
    p.smallest_weight = std::min(p.smallest_weight, b.weight);
    p.largest_weight = std::max(p.largest_weight, b.weight);
  }
  Design d = ladder(p, taps);
  if (!d.ok()) {
    throw Error(Field::taps, std::to_string(taps) + ": remez did not converge (" + d.why +
                                 "): try another length, wider transitions or other weights");
  }
  return d.h;
}

}  // namespace halo::filters
