#include "filters/spec.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "filters/band_spec.hpp"
#include "filters/design.hpp"
#include "filters/error.hpp"

namespace halo::filters {
namespace {

// Kaiser's length formula needs at least 8 dB (scipy.signal.kaiserord raises below it);
// above 300 dB the double-precision sinc itself is the floor, so no length reaches it.
constexpr double min_attenuation_db = 8;
constexpr double max_attenuation_db = 300;

// A pass band that swings more than 20 dB is no pass band.
constexpr double max_ripple_db = 20;

constexpr double min_kaiser_beta = 0;
constexpr double max_kaiser_beta = 50;

// Numbers as a user would type them: 48000, 0.5, 22050.5 (no trailing zeros).
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

std::string nyquist_note(double rate_hz) {
  return "(" + number(rate_hz / 2) + " Hz at a sample rate of " + number(rate_hz) + " Hz)";
}

void validate_rate(double rate_hz) {
  // Written as !(x > 0) so that NaN is rejected too.
  if (!(rate_hz > 0) || !std::isfinite(rate_hz)) {
    throw Error(Field::rate_hz, number(rate_hz) + ": the sample rate must be a number above 0 Hz");
  }
}

void validate_one_edge(const Spec& spec) {
  const std::string cutoff = number(spec.low_hz) + " Hz";
  if (!(spec.low_hz > 0)) throw Error(Field::low_hz, cutoff + ": the cutoff must be above 0 Hz");
  if (spec.low_hz >= spec.rate_hz / 2) {
    throw Error(Field::low_hz, cutoff + " is at or above Nyquist " + nyquist_note(spec.rate_hz));
  }
}

void validate_two_edges(const Spec& spec) {
  const std::string edges = number(spec.low_hz) + ":" + number(spec.high_hz);
  if (!(spec.low_hz > 0)) throw Error(Field::edges, edges + ": the lower edge must be above 0 Hz");
  if (!(spec.high_hz > spec.low_hz)) throw Error(Field::edges, edges + ": the upper edge must be above the lower");
  if (spec.high_hz >= spec.rate_hz / 2) {
    throw Error(Field::edges, edges + ": the upper edge " + number(spec.high_hz) + " Hz is at or above Nyquist " +
                                  nyquist_note(spec.rate_hz));
  }
}

// `written`: the window as the user wrote it, for the message.
void validate_kaiser_beta(double beta, const std::string& written) {
  if (!(beta >= min_kaiser_beta && beta <= max_kaiser_beta)) {
    throw Error(Field::window, written + ": the Kaiser beta must be in [" + number(min_kaiser_beta) + ", " +
                                   number(max_kaiser_beta) + "]");
  }
}

// An even-length linear-phase filter has a zero at Nyquist, so a band that passes Nyquist
// needs an odd length (scipy.signal.firwin raises the same).
bool passes_nyquist(Band band) { return band == Band::highpass || band == Band::bandstop; }

void validate_given_taps(const Spec& spec) {
  const std::string taps = std::to_string(spec.taps);
  if (spec.taps < 1 || spec.taps > max_taps) {
    throw Error(Field::taps, taps + ": the length must be in [1, " + std::to_string(max_taps) + "]");
  }
  if (passes_nyquist(spec.band) && spec.taps % 2 == 0) {
    throw Error(Field::taps, taps + ": a " + to_string(spec.band) + " needs an odd number of taps (try " +
                                 std::to_string(spec.taps + 1) + ")");
  }
  if (spec.transition_hz != 0 || spec.attenuation_db != 0) {
    throw Error(Field::taps, taps + " and transition_hz/attenuation_db both set the length: give one");
  }
  if (spec.window.kind == WindowKind::kaiser) validate_kaiser_beta(spec.window.kaiser_beta, to_string(spec.window));
}

void validate_kaiser_length(const Spec& spec) {
  if (spec.transition_hz == 0 && spec.attenuation_db == 0) {
    throw Error(Field::taps, "not given: give a number of taps, or transition_hz with attenuation_db");
  }
  if (spec.attenuation_db == 0) throw Error(Field::transition_hz, "needs attenuation_db as well");
  if (spec.transition_hz == 0) throw Error(Field::attenuation_db, "needs transition_hz as well");
  const KaiserOrder order = kaiser_order(spec.attenuation_db, spec.transition_hz, spec.rate_hz);  // checks them
  if (order.taps > max_taps - 1) {  // leaves room for the bump to odd
    throw Error(Field::transition_hz, number(spec.transition_hz) + " Hz with attenuation_db " +
                                          number(spec.attenuation_db) + " dB needs " + std::to_string(order.taps) +
                                          " taps, more than the " + std::to_string(max_taps) + " allowed");
  }
}

}  // namespace

void validate_kaiser(double attenuation_db, double transition_hz, double rate_hz) {
  validate_rate(rate_hz);
  if (!(transition_hz > 0) || transition_hz >= rate_hz / 2) {
    throw Error(Field::transition_hz, number(transition_hz) + " Hz must be above 0 and below Nyquist " +
                                          nyquist_note(rate_hz));
  }
  if (!(attenuation_db >= min_attenuation_db)) {
    throw Error(Field::attenuation_db, number(attenuation_db) + " dB is below " + number(min_attenuation_db) +
                                           " dB, where Kaiser's length formula does not hold");
  }
  if (!(attenuation_db <= max_attenuation_db)) {
    throw Error(Field::attenuation_db, number(attenuation_db) + " dB is above " + number(max_attenuation_db) +
                                           " dB, beyond what double precision can reach");
  }
}

namespace {

// Band edges, transitions and lengths for the methods that take them (remez, firls, kaiser).
void validate_goals(const Spec& spec) {
  if (spec.ripple_db != 0 && !(spec.ripple_db > 0 && spec.ripple_db <= max_ripple_db)) {
    throw Error(Field::ripple_db, number(spec.ripple_db) + " dB: the pass-band ripple must be in (0, " +
                                      number(max_ripple_db) + "] dB");
  }
  if (spec.attenuation_db != 0 && !(spec.attenuation_db > 0 && spec.attenuation_db <= max_attenuation_db)) {
    throw Error(Field::attenuation_db, number(spec.attenuation_db) + " dB: the stop-band attenuation must be in (0, " +
                                           number(max_attenuation_db) + "] dB");
  }
}

// A band edge's transition (cutoff +- transition/2) must stay inside (0, rate/2).
void validate_transition_fits(const Spec& spec) {
  if (spec.transition_hz == 0)  // not given (0 is "none" here; the command line refuses a 0 given)
    throw Error(Field::transition_hz, "is needed by " + to_string(spec.method) +
                                          ": its pass and stop bands lie a transition apart around the cutoff");
  const double half = spec.transition_hz / 2;
  const double nyquist = spec.rate_hz / 2;
  if (!(spec.transition_hz > 0) || !(spec.transition_hz < nyquist)) {
    throw Error(Field::transition_hz, number(spec.transition_hz) + " Hz must be above 0 and below Nyquist " +
                                          nyquist_note(spec.rate_hz));
  }
  const bool two_edges = spec.band == Band::bandpass || spec.band == Band::bandstop;
  if (spec.low_hz - half <= 0) {
    throw Error(Field::transition_hz, number(spec.transition_hz) + " Hz centred on " + number(spec.low_hz) +
                                          " Hz reaches 0 Hz: narrow it");
  }
  const double top = two_edges ? spec.high_hz : spec.low_hz;
  if (top + half >= nyquist) {
    throw Error(Field::transition_hz, number(spec.transition_hz) + " Hz centred on " + number(top) +
                                          " Hz reaches Nyquist " + nyquist_note(spec.rate_hz) + ": narrow it");
  }
  if (two_edges && spec.high_hz - spec.low_hz <= spec.transition_hz) {
    throw Error(Field::transition_hz, number(spec.transition_hz) + " Hz is wider than the band " +
                                          number(spec.low_hz) + ":" + number(spec.high_hz) + " leaves between its edges");
  }
}

// A linear-phase mask of even length is zero at Nyquist.
bool gain_at_nyquist(const Spec& spec) {
  if (spec.band == Band::multiband) {
    const BandGoal& last = spec.bands.back();
    return last.high_hz >= spec.rate_hz / 2 && last.gain > 0;
  }
  return passes_nyquist(spec.band);
}

void validate_method_length(const Spec& spec, int max_taps_of_method) {
  if (spec.taps == 0) {
    if (spec.attenuation_db == 0 && spec.ripple_db == 0) {
      throw Error(Field::taps, "not given, and remez, firls and a band spec have no default length: give a number of "
                               "taps, or attenuation_db and/or ripple_db for the shortest mask that meets them");
    }
    return;
  }
  const std::string taps = std::to_string(spec.taps);
  if (spec.taps < 1 || spec.taps > max_taps_of_method) {
    throw Error(Field::taps, taps + ": the length must be in [1, " + std::to_string(max_taps_of_method) + "] for " +
                                 to_string(spec.method));
  }
  if (gain_at_nyquist(spec) && spec.taps % 2 == 0) {
    throw Error(Field::taps, taps + ": a mask that passes Nyquist needs an odd number of taps (try " +
                                 std::to_string(spec.taps + 1) + ")");
  }
}

}  // namespace

void validate(const Spec& spec) {
  validate_rate(spec.rate_hz);
  if (spec.band == Band::multiband) {
    validate_bands(spec.bands, spec.rate_hz);
    // An attenuation is held in a stop band (gain 0): with none it judges nothing, and the
    // search had stopped at the first length ("met: attenuation >= 120 dB (0.0)"), its pass
    // bands 2.8 and 5.8 dB off flat (a QA pass).
    const bool stop_band =
        std::any_of(spec.bands.begin(), spec.bands.end(), [](const BandGoal& b) { return b.gain == 0; });
    if (spec.attenuation_db != 0 && !stop_band)
      throw Error(Field::attenuation_db,
                  "has no band of gain 0 to be held in: give one, or ripple_db alone for the pass bands");
    if (spec.method == Method::window || spec.method == Method::kaiser) {
      throw Error(Field::method, to_string(spec.method) + ": a multi-band spec needs remez, firls or auto");
    }
  } else {
    if (!spec.bands.empty()) throw Error(Field::bands, "are for a multi-band spec only");
    if (spec.band == Band::lowpass || spec.band == Band::highpass) {
      validate_one_edge(spec);
    } else {
      validate_two_edges(spec);
    }
  }
  if (spec.method == Method::window) {
    if (spec.ripple_db != 0) validate_goals(spec);
    if (spec.taps != 0) {
      validate_given_taps(spec);
    } else {
      validate_kaiser_length(spec);
      validate_transition_fits(spec);  // kaiserord's transition lies around the cutoff, as remez's bands do
    }
    return;
  }
  validate_goals(spec);
  if (spec.band != Band::multiband) {
    // kaiser with taps may leave the transition out; every other case lays its bands with it.
    if (spec.transition_hz != 0 || spec.method != Method::kaiser || spec.taps == 0) validate_transition_fits(spec);
  }
  switch (spec.method) {
    case Method::window: break;
    case Method::kaiser:
      if (spec.attenuation_db == 0) throw Error(Field::attenuation_db, "is needed by kaiser: its beta comes from it");
      validate_kaiser(spec.attenuation_db, spec.transition_hz > 0 ? spec.transition_hz : spec.rate_hz / 4,
                      spec.rate_hz);
      validate_method_length(spec, max_search_taps_kaiser);
      break;
    case Method::remez: validate_method_length(spec, max_search_taps_remez); break;
    case Method::firls: validate_method_length(spec, max_search_taps_firls); break;
    case Method::automatic:
      if (spec.taps != 0) {
        throw Error(Field::taps, std::to_string(spec.taps) + ": auto finds the length: give no taps, or a method");
      }
      validate_method_length(spec, max_search_taps_kaiser);
      break;
  }
}

std::string to_string(Band band) {
  switch (band) {
    case Band::lowpass: return "lowpass";
    case Band::highpass: return "highpass";
    case Band::bandpass: return "bandpass";
    case Band::bandstop: return "bandstop";
    case Band::multiband: return "bands";
  }
  return "unknown band";
}

std::string to_string(const Window& window) {
  switch (window.kind) {
    case WindowKind::hann: return "hann";
    case WindowKind::hamming: return "hamming";
    case WindowKind::blackman: return "blackman";
    case WindowKind::kaiser: {
      char text[48];
      std::snprintf(text, sizeof text, "kaiser:%g", window.kaiser_beta);
      return text;
    }
    case WindowKind::rect: return "rect";
  }
  return "unknown window";
}

Window parse_window(const std::string& text) {
  std::string name;
  for (char c : text) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  Window window;
  const std::string kaiser_prefix = "kaiser:";
  if (name == "hann") {
    window.kind = WindowKind::hann;
  } else if (name == "hamming") {
    window.kind = WindowKind::hamming;
  } else if (name == "blackman") {
    window.kind = WindowKind::blackman;
  } else if (name == "rect" || name == "boxcar") {  // boxcar: scipy's name for it
    window.kind = WindowKind::rect;
  } else if (name == "kaiser") {
    window.kind = WindowKind::kaiser;  // the default beta
  } else if (name.compare(0, kaiser_prefix.size(), kaiser_prefix) == 0) {
    window.kind = WindowKind::kaiser;
    const std::string beta_text = name.substr(kaiser_prefix.size());
    double beta = 0;
    const char* end = beta_text.data() + beta_text.size();
    const auto parsed = std::from_chars(beta_text.data(), end, beta);
    if (beta_text.empty() || parsed.ec != std::errc() || parsed.ptr != end) {
      // Quoted as typed, not lower-cased ("9db" for 9dB, a QA pass).
      throw Error(Field::window, text + ": \"" + text.substr(kaiser_prefix.size()) +
                                     "\" is not a Kaiser beta (a number, e.g. kaiser:8.6)");
    }
    validate_kaiser_beta(beta, text);
    window.kaiser_beta = beta;
  } else {
    throw Error(Field::window, text + ": unknown window (hann, hamming, blackman, kaiser[:BETA], rect)");
  }
  return window;
}

std::string to_string(Method method) {
  switch (method) {
    case Method::window: return "window";
    case Method::kaiser: return "kaiser";
    case Method::remez: return "remez";
    case Method::firls: return "firls";
    case Method::automatic: return "auto";
  }
  return "unknown method";
}

Method parse_method(const std::string& text) {
  std::string name;
  for (char c : text) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "window" || name == "firwin") return Method::window;
  if (name == "kaiser") return Method::kaiser;
  if (name == "remez" || name == "equiripple") return Method::remez;
  if (name == "firls" || name == "ls") return Method::firls;
  if (name == "auto") return Method::automatic;
  throw Error(Field::method, text + ": unknown method (window, kaiser, remez, firls, auto)");
}

}  // namespace halo::filters
