#pragma once
#include <string>
#include <vector>

namespace halo::filters {

// multiband: the bands are Spec::bands (remez and firls only).
enum class Band { lowpass, highpass, bandpass, bandstop, multiband };

// How the taps are found. window: firwin (the length given, or kaiserord's estimate as is);
// kaiser: a Kaiser window whose beta comes from attenuation_db (kaiser_beta); remez:
// Parks-McClellan equiripple with band weights; firls: least squares; automatic: whichever of
// kaiser, remez and firls meets the spec with the fewest taps.
enum class Method { window, kaiser, remez, firls, automatic };

// One band of a multi-band spec, in Hz at the spec's rate. Between two bands lies a
// transition, where the response is free.
struct BandGoal {
  double low_hz = 0;    // [0, rate/2)
  double high_hz = 0;   // (low_hz, rate/2]
  double gain = 0;      // the |H| wanted, [0, 1000]; 0 makes a stop band
  double weight = 1;    // how much its error counts (remez, firls), (0, 1e6]
};

enum class WindowKind { hann, hamming, blackman, kaiser, rect };

struct Window {
  WindowKind kind = WindowKind::hamming;  // scipy.signal.firwin's default
  double kaiser_beta = 8.6;               // [0, 50]; used by kaiser only
};

// What a user asks of a design. Ranges are enforced by validate().
struct Spec {
  Band band = Band::lowpass;
  double low_hz = 0;           // lowpass/highpass: the cutoff; bandpass/bandstop: lower edge. (0, rate/2)
  double high_hz = 0;          // bandpass/bandstop: upper edge, (low_hz, rate/2); unused otherwise
  double rate_hz = 48000;      // sample rate, > 0
  int taps = 0;                // [1, 1 << 20]; odd for highpass/bandstop; 0 = from transition/attenuation
  double transition_hz = 0;    // with taps == 0 only: transition width, (0, rate/2)
  double attenuation_db = 0;   // with taps == 0 only: stop-band attenuation, [8, 300] dB (kaiserord)
  Window window;               // method window only; ignored when taps come from kaiserord
  Method method = Method::window;
  // multiband only: 2 to 64 bands, lowest first, none overlapping (edges may not touch: a
  // transition lies between).
  std::vector<BandGoal> bands;
  // Pass-band ripple wanted, peak to peak, (0, 20] dB; 0 = none. A goal of the length search
  // and of the report, as attenuation_db is.
  double ripple_db = 0;
  // The minimum-phase mask of the same length and magnitude (least delay), instead of the
  // linear-phase one.
  bool minimum_phase = false;
};

// The longest mask the length search (taps == 0 with a method other than window) tries before
// it says the spec cannot be met: remez and firls cost O(taps^2) per design, Kaiser O(taps).
constexpr int max_search_taps_kaiser = 1 << 18;
constexpr int max_search_taps_remez = 8191;
constexpr int max_search_taps_firls = 8191;

// Default length when neither --taps nor --transition/--attenuation is given: odd, so that
// every band type can use it, and long enough for a usable low-pass at audio rates.
constexpr int default_taps = 255;
constexpr int max_taps = 1 << 20;  // the longest mask a design makes (a method may allow fewer)

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

// "window", "kaiser", "remez", "firls", "auto".
std::string to_string(Method method);
// Parses those names (and "equiripple" for remez, "ls" for firls); throws filters::Error
// (Field::method).
Method parse_method(const std::string& text);

}  // namespace halo::filters
