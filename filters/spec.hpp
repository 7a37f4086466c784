#pragma once
#include <string>

namespace halo::filters {

enum class Band { lowpass, highpass, bandpass, bandstop };

enum class WindowKind { hann, hamming, blackman, kaiser, rect };

struct Window {
  WindowKind kind = WindowKind::hamming;  // scipy.signal.firwin's default
  double kaiser_beta = 8.6;               // [0, 50]; used by kaiser only
};

// What a user asks of a windowed-sinc design. Ranges are enforced by validate().
struct Spec {
  Band band = Band::lowpass;
  double low_hz = 0;           // lowpass/highpass: the cutoff; bandpass/bandstop: lower edge. (0, rate/2)
  double high_hz = 0;          // bandpass/bandstop: upper edge, (low_hz, rate/2); unused otherwise
  double rate_hz = 48000;      // sample rate, > 0
  int taps = 0;                // [1, 1 << 20]; odd for highpass/bandstop; 0 = from transition/attenuation
  double transition_hz = 0;    // with taps == 0 only: transition width, (0, rate/2)
  double attenuation_db = 0;   // with taps == 0 only: stop-band attenuation, [8, 300] dB (kaiserord)
  Window window;               // ignored when taps come from kaiserord (Kaiser with its beta)
};

// Default length when neither --taps nor --transition/--attenuation is given: odd, so that
// every band type can use it, and long enough for a usable low-pass at audio rates.
constexpr int default_taps = 255;

// Throws filters::Error naming the field (Field::low_hz, Field::taps, ...) that is out of
// range. taps and transition/attenuation exclude each other (0 = not given); the kaiserord
// length they give must fit in 1 << 20 as well.
void validate(const Spec& spec);

// The inputs of Kaiser's length formula, checked here only (validate() and kaiser_order()
// both come through): rate_hz > 0, transition_hz in (0, rate_hz / 2), attenuation_db in
// [8, 300]. Throws filters::Error naming the field.
void validate_kaiser(double attenuation_db, double transition_hz, double rate_hz);

// "lowpass", "hann", ... for summaries and provenance.
std::string to_string(Band band);
std::string to_string(const Window& window);

// Parses "hann|hamming|blackman|kaiser[:BETA]|rect"; throws filters::Error (Field::window).
Window parse_window(const std::string& text);

}  // namespace halo::filters
