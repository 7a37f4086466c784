#include "filters/spec.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "filters/design.hpp"
#include "filters/error.hpp"

namespace halo::filters {
namespace {

constexpr int max_taps = 1 << 20;

// Kaiser's length formula needs at least 8 dB (scipy.signal.kaiserord raises below it);
// above 300 dB the double-precision sinc itself is the floor, so no length reaches it.
constexpr double min_attenuation_db = 8;
constexpr double max_attenuation_db = 300;

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
    throw Error(Field::taps, "0: no filter length: give a number of taps, or transition_hz with attenuation_db");
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

void validate(const Spec& spec) {
  validate_rate(spec.rate_hz);
  if (spec.band == Band::lowpass || spec.band == Band::highpass) {
    validate_one_edge(spec);
  } else {
    validate_two_edges(spec);
  }
  if (spec.taps != 0) {
    validate_given_taps(spec);
  } else {
    validate_kaiser_length(spec);
  }
}

std::string to_string(Band band) {
  switch (band) {
    case Band::lowpass: return "lowpass";
    case Band::highpass: return "highpass";
    case Band::bandpass: return "bandpass";
    case Band::bandstop: return "bandstop";
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
      throw Error(Field::window, text + ": \"" + beta_text + "\" is not a Kaiser beta (a number, e.g. kaiser:8.6)");
    }
    validate_kaiser_beta(beta, text);
    window.kaiser_beta = beta;
  } else {
    throw Error(Field::window, text + ": unknown window (hann, hamming, blackman, kaiser[:BETA], rect)");
  }
  return window;
}

}  // namespace halo::filters
