// The shortest mask that meets a spec: estimate the length (kaiserord for Kaiser, Herrmann's
// formula for remez and firls), design, measure on the dense response of design_report.cpp,
// step down while it still meets and up (by an eighth) until it does, then bisect between the
// longest length that fails and the shortest that meets. Measured, not trusted: an estimate
// is only where the search starts.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "filters/band_spec.hpp"
#include "filters/design_report.hpp"
#include "filters/error.hpp"
#include "filters/methods.hpp"
#include "filters/response.hpp"

namespace halo::filters {
namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// Peak deviations wanted in the pass and stop bands, each from its goal; a goal not given
// takes the other's (the equal-ripple case of Kaiser's design).
struct Deltas {
  double pass;
  double stop;
};

Deltas deltas_of(const Spec& spec) {
  double pass = 0, stop = 0;
  if (spec.ripple_db > 0) {
    const double g = std::pow(10.0, spec.ripple_db / 20);
    pass = (g - 1) / (g + 1);
  }
  if (spec.attenuation_db > 0) stop = std::pow(10.0, -spec.attenuation_db / 20);
  if (pass == 0) pass = stop;
  if (stop == 0) stop = pass;
  return {pass, stop};
}

// The narrowest transition of the band layout, in Hz.
double narrowest_transition(const Spec& spec) {
  const std::vector<BandGoal> bands = band_layout(spec, 1);
  double narrowest = spec.rate_hz / 2;
  for (std::size_t i = 1; i < bands.size(); ++i) narrowest = std::min(narrowest, bands[i].low_hz - bands[i - 1].high_hz);
  return narrowest;
}

// Herrmann, Rabiner and Chan (1973): the length of an equiripple low-pass for deviations
// dp, ds and a transition df (cycles per sample).
double herrmann_taps(Deltas d, double df) {
  const double lp = std::log10(std::min(d.pass, 0.5)), ls = std::log10(std::min(d.stop, 0.5));
  const double d_inf = (5.309e-3 * lp * lp + 7.114e-2 * lp - 0.4761) * ls + (-2.66e-3 * lp * lp - 0.5941 * lp - 0.4278);
  const double f = 11.01217 + 0.51244 * (lp - ls);
  return d_inf / df - f * df + 1;
}

// The attenuation a Kaiser window is designed for: the stricter of the two goals (its ripple
// is the same in pass and stop bands).
double kaiser_attenuation(const Spec& spec) {
  return std::max(8.0, -20 * std::log10(std::min(deltas_of(spec).pass, deltas_of(spec).stop)));
}

int estimate(const Spec& spec, Method method) {
  const double transition = narrowest_transition(spec);
  double taps = 0;
  if (method == Method::kaiser) {
    taps = kaiser_order(std::min(kaiser_attenuation(spec), 300.0), transition, spec.rate_hz).taps;
  } else {
    taps = herrmann_taps(deltas_of(spec), transition / spec.rate_hz);
    if (method == Method::firls) taps *= 1.1;  // least squares spends some peak error on the mean
  }
  return static_cast<int>(std::clamp(std::ceil(taps), 1.0, 1e9));
}

// Below the bisection's answer, this many lengths that fail in a row end the search down.
constexpr int scan_lengths = 8;
// ... where the answer is at most this long (a remez design of 2048 taps takes about 0.3 s).
constexpr int scan_limit_taps = 2048;
// The search below the dips (below_the_dips) for remez and firls, whose designs cost more and
// whose lengths meet more nearly in order; Kaiser's, cheap, searches at every length.
constexpr int dip_scan_limit_taps = 512;

// Searches one method's lengths in [1, max_taps].
class Search {
 public:
  Search(const Spec& spec, Method method, int max_taps, const SearchObserver& observer)
      : spec_(spec), method_(method), max_taps_(max_taps), observer_(observer) {
    // firls designs odd lengths; a mask that passes Nyquist needs one.
    const bool nyquist = spec.band == Band::multiband
                             ? spec.bands.back().high_hz >= spec.rate_hz / 2 && spec.bands.back().gain > 0
                             : spec.band == Band::highpass || spec.band == Band::bandstop;
    odd_only_ = method == Method::firls || nyquist;
  }

  // The shortest length found that meets, or nothing when none up to max_taps does.
  std::optional<Designed> run() {
    const ResponsePlanKeeper keep_plan;  // every length is measured on the same grid
    const int step = odd_only_ ? 2 : 1;
    // Lengths known to meet / to fail; 0 = none yet, and the floor below every length (-1 for
    // odd-only searches, so that the bisection's lengths stay odd).
    int meets = 0, fails = odd_only_ ? -1 : 0;
    const int estimated = estimate(spec_, method_);
    // Far past the limit, no design is worth its time: the estimates are within a few percent.
    if (estimated > 2 * max_taps_) {
      failure_ = "the estimate alone is " + std::to_string(estimated) + " taps";
      return std::nullopt;
    }
    int start = fit(std::min(estimated, max_taps_));
    if (start > max_taps_) start -= 2;  // odd lengths under an even cap (auto's: one below remez's)
    if (start < 1) return std::nullopt;
    if (const int first = met_at_or_below(start, fails); first > 0) {
      meets = first;
      while (true) {
        const int shorter = fit(meets - std::max(step, meets / 8));
        if (shorter < 1 || shorter >= meets) break;
        const int met = met_at_or_below(shorter, fails);
        if (met == 0) {
          fails = shorter;
          break;
        }
        meets = met;
      }
    } else {
      fails = start;
      while (true) {
        int longer = fit(fails + std::max(step, fails / 8));
        if (longer > max_taps_) longer = fit(max_taps_) > max_taps_ ? max_taps_ - 1 : fit(max_taps_);
        if (longer <= fails) {  // none up to the cap: a shorter one may still meet (below)
          if (const int shorter = shortest_below(start); shorter > 0) return found_.at(shorter);
          return std::nullopt;
        }
        if (const int met = met_at_or_below(longer, fails); met > 0) {
          meets = met;
          break;
        }
        fails = longer;
      }
    }
    meets = bisect(fails, meets);
    meets = below_the_dips(meets);
    if (const int shorter = shortest_below(meets); shorter > 0) meets = shorter;
    return found_.at(meets);
  }

  const std::string& failure() const { return failure_; }

 private:
  // `length` if it meets; where it does not design (remez that stalls), which says nothing of
  // the lengths below it, the first of those 1/64, 2/64, 4/64, ... of it below (above `floor`)
  // that designs, if that one meets; else 0, and `length` counts as failing. A high-pass of 80
  // Hz over 40 Hz at 80 dB stalls at 5851-5951 taps, and the search, taking 5879 for a miss,
  // had called 5953 the shortest where 5641 meets (a QA pass); every place that steps or
  // bisects asks here (a review). At most `backoffs_left_` such designs a search: where no
  // length designs (a multi-band spec with unequal transitions), each is seconds, and a search
  // that had failed in 43 s had run past 300 s (a QA pass).
  int met_at_or_below(int length, int floor) {
    if (try_length(length)) return length;
    const int step = odd_only_ ? 2 : 1;
    for (int back = std::max(step, length / 64 / step * step);
         backoffs_left_ > 0 && shortfall_db_.at(length) >= unconverged_db && length - back > floor; back *= 2) {
      --backoffs_left_;
      if (try_length(length - back)) return length - back;
      if (shortfall_db_.at(length - back) < unconverged_db) break;  // designed, and missed
    }
    return 0;
  }

  // The search takes every length past one that meets to meet too, and that is not so: least
  // squares trades peak error for mean (firls: 35 taps met a band-stop's 0.01 dB, 39 and 41 did
  // not, 43 did), and a remez length can fail to converge. So the lengths below `length` are
  // tried too, until `scan_lengths` in a row fail, where a design is cheap enough for it (up to
  // scan_limit_taps): the shortest that meets, or 0.
  int shortest_below(int length) {
    if (length > scan_limit_taps) return 0;
    const int step = odd_only_ ? 2 : 1;
    int shortest = 0;
    for (int candidate = length - step, missed = 0; candidate >= 1 && missed < scan_lengths; candidate -= step) {
      if (try_length(candidate)) {
        shortest = candidate;
        missed = 0;
      } else {
        ++missed;
      }
    }
    return shortest;
  }

  // A window's sidelobes move against the band edge as the length grows, so a Kaiser mask's
  // attenuation climbs steeply with the length up to the shortest that meets, then swings a dB
  // or two either way about the goal (a 90 dB high-pass: 5491 taps met, 5801 missed by 1.3 dB,
  // 6191 met, and the bisection had stopped at 6191, a QA pass). From `meets` down, lengths a
  // stride apart (1/128 of it) are tried while they miss by less than `dip_db`: a dip, not the
  // steep fall below the shortest. Then the bisection again, between the first length that
  // misses by more and the shortest that met. Returns the shortest length found to meet.
  // Kaiser's lengths that meet inside a dip can be fewer than a stride: a band-pass of 60 dB
  // over 400 Hz meets at 449-451 taps and 497 and misses by 0.01-0.7 dB between, and a stride of
  // 4 had stepped over 449-451 (a QA pass). So the gaps near the goal are tried length by length
  // too (fine_scan).
  int below_the_dips(int meets) {
    constexpr double dip_db = 3, near_db = 0.5;
    if (method_ != Method::kaiser && meets > dip_scan_limit_taps) return meets;
    const int step = odd_only_ ? 2 : 1;
    const int stride = std::max(step, meets / 128 / step * step);
    const auto near = [&](int length) { return found_.count(length) > 0 || shortfall_db_.at(length) < near_db; };
    // Below every length: -1 for odd-only searches, so that the bisection's lengths stay odd.
    int fails = odd_only_ ? -1 : 0;
    std::vector<int> walked = {meets};  // the lengths a stride apart, from the top down
    for (int candidate = meets - stride; candidate >= 1; candidate -= stride) {
      walked.push_back(candidate);
      if (try_length(candidate)) {
        meets = candidate;
      } else if (shortfall_db_.at(candidate) > dip_db && shortfall_db_.at(candidate) < unconverged_db) {
        fails = candidate;  // (one that did not design tells nothing: the walk goes on)
        break;
      }
    }
    if (method_ == Method::kaiser && stride > step) meets = fine_scan(walked, meets, near);
    return bisect(fails, meets);
  }

  // Kaiser's lengths between two `walked` lengths (a stride apart) where either meets or nearly
  // does, each tried. From the lowest such gap up first, to its first length that meets: the
  // steep climb ends in the lowest gap, so the shortest is there (a 50 dB band-pass meets first
  // at 1412 taps, misses by under 0.05 dB at 1413-1431 and meets at 1432; spent from the top
  // down, the budget had run out above 1412, a QA pass). Then from the top down, where a long
  // dip's lowest gaps hold none. At most `fine_lengths` each way: at its goal's edge the
  // attenuation moves a few tenths of a dB a tap, and a long dip is not all tried (at 3316 taps
  // a 60 dB low-pass missed by 0.02-0.08 dB at every length for hundreds below the answer, and
  // trying each took 4 s, a review).
  template <typename Near>
  int fine_scan(const std::vector<int>& walked, int meets, const Near& near) {
    constexpr int fine_lengths = 64;
    const int step = odd_only_ ? 2 : 1;
    const auto worth = [&](std::size_t gap) { return near(walked[gap]) || near(walked[gap + 1]); };  // (walked[gap + 1], walked[gap])
    int tried = 0;
    for (std::size_t gap = walked.size() - 1; gap-- > 0 && tried < fine_lengths;) {
      if (!worth(gap)) continue;
      for (int between = walked[gap + 1] + step; between < walked[gap] && between < meets && tried < fine_lengths;
           between += step, ++tried)
        if (try_length(between)) return between;  // the lowest gap's first: none below it met
    }
    tried = 0;
    for (std::size_t gap = 0; gap + 1 < walked.size() && tried < fine_lengths; ++gap) {
      if (!worth(gap) || walked[gap + 1] + step >= meets) continue;  // none there could be shorter
      for (int between = std::min(walked[gap], meets) - step; between > walked[gap + 1] && tried < fine_lengths;
           between -= step, ++tried)
        if (try_length(between)) meets = std::min(meets, between);
    }
    return meets;
  }

  // The shortest length between `fails` (fails, or the floor below every length) and `meets`
  // (meets) where the lengths in between meet from some length on: halving the gap.
  int bisect(int fails, int meets) {
    const int step = odd_only_ ? 2 : 1;
    while (meets - fails > step) {
      const int middle = fails + ((meets - fails) / step / 2) * step;
      if (const int met = met_at_or_below(middle, fails); met > 0) {
        meets = met;
      } else {
        fails = middle;
      }
    }
    return meets;
  }

  int fit(int taps) const {
    taps = std::max(taps, 1);
    return odd_only_ && taps % 2 == 0 ? taps + 1 : taps;
  }

  Spec at_length(int taps) const {
    Spec s = spec_;
    s.method = method_;
    s.taps = taps;
    if (method_ == Method::kaiser) s.window = Window{WindowKind::kaiser, kaiser_beta(kaiser_attenuation(spec_))};
    return s;
  }

  bool try_length(int taps) {
    if (found_.count(taps)) return true;
    if (shortfall_db_.count(taps)) return false;  // tried, and not among those that met
    const Spec s = at_length(taps);
    bool met = false;
    try {
      const Designed designed{mask_of(coefficients_of(s), s, ""), s};
      const DesignReport report = measure(designed.mask, s);
      met = report.met;
      if (met) found_.emplace(taps, designed);
      // How far it fell short: dB of attenuation, or the ripple's ratio to its goal in dB.
      double shortfall = 0;
      if (report.target_attenuation_db > 0)
        shortfall = std::max(shortfall, report.target_attenuation_db - report.attenuation_db);
      if (report.target_ripple_db > 0 && report.ripple_db > report.target_ripple_db)
        shortfall = std::max(shortfall, 20 * std::log10(report.ripple_db / report.target_ripple_db));
      if (report.overshoot) shortfall = std::max(shortfall, report.peak_over_bands_db);
      shortfall_db_[taps] = met ? 0 : shortfall;
    } catch (const Error& e) {  // remez that does not converge, firls singular: this length fails
      failure_ = e.what();
      shortfall_db_[taps] = unconverged_db;  // nothing measured: no dip
    }
    if (observer_) observer_({method_, taps, met});
    return met;
  }

  Spec spec_;
  Method method_;
  int max_taps_;
  const SearchObserver& observer_;
  bool odd_only_ = false;
  std::map<int, Designed> found_;  // the designs that met, by length
  std::map<int, double> shortfall_db_;  // by length tried: how far it missed (0 when it met)
  static constexpr double unconverged_db = 1e9;  // the shortfall of a length that did not design
  int backoffs_left_ = 4;          // met_at_or_below's designs below a length that did not design
  std::string failure_;            // the last method error met on the way, for the message
};

int max_taps_of(Method method) {
  switch (method) {
    case Method::kaiser: return max_search_taps_kaiser;
    case Method::remez: return max_search_taps_remez;
    case Method::firls: return max_search_taps_firls;
    default: return max_search_taps_kaiser;
  }
}

std::string goals_text(const Spec& spec) {
  std::string text;
  if (spec.attenuation_db > 0) text += number(spec.attenuation_db) + " dB attenuation";
  if (spec.ripple_db > 0) text += std::string(text.empty() ? "" : ", ") + number(spec.ripple_db) + " dB ripple";
  if (spec.band != Band::multiband) text += " over a " + number(spec.transition_hz) + " Hz transition";
  return text;
}

}  // namespace

Designed shortest_design(const Spec& spec, const SearchObserver& observer) {
  std::vector<Method> methods;
  if (spec.method == Method::automatic) {
    // remez first: usually the shortest, so that it caps the others' searches.
    methods = {Method::remez, Method::firls};
    if (spec.band != Band::multiband && spec.attenuation_db > 0) methods.push_back(Method::kaiser);
  } else {
    methods = {spec.method};
  }
  std::optional<Designed> best;
  std::string failure;
  int limit = 0;
  for (Method method : methods) {
    limit = std::max(limit, max_taps_of(method));
    const int cap = best ? std::min(max_taps_of(method), best->spec.taps - 1) : max_taps_of(method);
    if (cap < 1) continue;
    Search search(spec, method, cap, observer);
    std::optional<Designed> found = search.run();
    if (!search.failure().empty()) failure = search.failure();
    if (found) best = std::move(found);
  }
  if (!best) {
    const Field field = spec.attenuation_db > 0 ? Field::attenuation_db : Field::ripple_db;
    std::string detail = goals_text(spec) + ": no " +
                         (spec.method == Method::automatic ? std::string("kaiser, remez or firls")
                                                           : to_string(spec.method)) +
                         " mask up to " + std::to_string(limit) + " taps meets it";
    if (!failure.empty()) detail += " (" + failure + ")";
    throw Error(field, detail);
  }
  // The provenance says how the length was reached. remez and firls given the attenuation alone
  // weigh the bands equally, so the pass band is held to the stop band's deviation (0.017 dB at
  // 60 dB), and a --ripple that allows more gives a shorter mask (192 taps at 0.1 dB where 227
  // met 60 dB: "the shortest" had not said on what terms; a QA pass).
  // Not where the user's own weights set the ratio (a multi-band spec's /w=: a review).
  const bool equal_weights = std::all_of(spec.bands.begin(), spec.bands.end(), [](const BandGoal& band) { return band.weight == 1; });
  const bool as_flat = spec.ripple_db <= 0 && best->spec.method != Method::kaiser && equal_weights;
  const std::string how = " (the shortest " + to_string(best->spec.method) + " mask meeting " + goals_text(spec) +
                          (as_flat ? ", the pass band as flat: --ripple allows a shorter one" : "") + ")";
  best->mask.provenance = mask_of({}, best->spec, how).provenance;
  return *best;
}

}  // namespace halo::filters
