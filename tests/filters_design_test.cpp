// filters/ design and analysis against scipy.signal golden values (tests/data, made by
// make_filters_golden.py), designs checked by their spec, and every validate() rejection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "filters/design.hpp"
#include "filters/error.hpp"
#include "filters/response.hpp"
#include "filters/spec.hpp"
#include "golden_file.hpp"

namespace halo::filters {
namespace {

constexpr double pi = 3.14159265358979323846;

// ---------------------------------------------------------------- golden files

using test::GoldenFile;

GoldenFile load_golden(const std::string& name) {
  return test::load_golden_file(HALO_TEST_DATA, name, "tests/data/make_filters_golden.py");
}

std::vector<std::string> golden_names(const std::string& prefix) { return test::golden_file_names(HALO_TEST_DATA, prefix); }

std::vector<double> numbers_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<double> values;
  std::string token;
  while (in >> token) values.push_back(std::stod(token));
  return values;
}

Band band_named(const std::string& name) {
  if (name == "lowpass") return Band::lowpass;
  if (name == "highpass") return Band::highpass;
  if (name == "bandpass") return Band::bandpass;
  if (name == "bandstop") return Band::bandstop;
  throw std::runtime_error("unknown band " + name);
}

Window window_of(const GoldenFile& golden) {
  Window window = parse_window(golden.header.at("window"));
  if (window.kind == WindowKind::kaiser) window.kaiser_beta = golden.number("kaiser_beta");
  return window;
}

Spec spec_of(const GoldenFile& golden) {
  Spec spec;
  spec.band = band_named(golden.header.at("band"));
  spec.low_hz = golden.number("low_hz");
  spec.high_hz = golden.number("high_hz");
  spec.rate_hz = golden.number("rate_hz");
  spec.taps = std::stoi(golden.header.at("taps"));
  spec.transition_hz = golden.number("transition_hz");
  spec.attenuation_db = golden.number("attenuation_db");
  spec.window = window_of(golden);
  return spec;
}

std::string test_name_of(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 4);  // no ".txt"
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// ---------------------------------------------------------------- firwin

class FirwinGolden : public testing::TestWithParam<std::string> {};

TEST(FirwinGoldenFiles, AreThere) {
  // Every band x window, four rates, odd/even lengths, one tap, kaiserord lengths.
  EXPECT_GE(golden_names("firwin_").size(), 60u);
}

TEST_P(FirwinGolden, DoubleCoefficientsMatchScipy) {
  const GoldenFile golden = load_golden(GetParam());
  const std::vector<double> h = design_coefficients(spec_of(golden));
  ASSERT_EQ(h.size(), golden.lines.size());
  for (std::size_t n = 0; n < h.size(); ++n) {
    const double expected = std::stod(golden.lines[n]);
    EXPECT_NEAR(h[n], expected, 1e-12) << "tap " << n;
  }
}

TEST_P(FirwinGolden, FloatMaskMatchesScipyAndSaysWhatItIs) {
  const GoldenFile golden = load_golden(GetParam());
  const Spec spec = spec_of(golden);
  const Mask mask = design(spec);
  ASSERT_EQ(mask.taps.size(), golden.lines.size());
  for (std::size_t n = 0; n < mask.taps.size(); ++n) {
    const double expected = std::stod(golden.lines[n]);
    // Relative to the tap, down to the double tolerance: taps that are zero in exact
    // arithmetic come out as rounding noise (1e-19 here, 1e-25 in scipy).
    EXPECT_LE(std::fabs(mask.taps[n] - expected), 1e-7 * std::fabs(expected) + 1e-12) << "tap " << n;
  }
  EXPECT_EQ(mask.rate_hz, spec.rate_hz);
  EXPECT_EQ(mask.provenance.find(golden.header.at("band")), 0u) << mask.provenance;
  EXPECT_NE(mask.provenance.find(std::to_string(mask.taps.size()) + (mask.taps.size() == 1 ? " tap" : " taps")),
            std::string::npos)
      << mask.provenance;
  EXPECT_NE(mask.provenance.find(golden.header.at("window")), std::string::npos) << mask.provenance;
  if (spec.taps == 0) {
    EXPECT_NE(mask.provenance.find("kaiserord"), std::string::npos) << mask.provenance;
  }
}

INSTANTIATE_TEST_SUITE_P(Scipy, FirwinGolden, testing::ValuesIn(golden_names("firwin_")), test_name_of);

// ---------------------------------------------------------------- windows

class WindowGolden : public testing::TestWithParam<std::string> {};

TEST_P(WindowGolden, MatchesScipyGetWindow) {
  const GoldenFile golden = load_golden(GetParam());
  const Window window = window_of(golden);
  ASSERT_FALSE(golden.lines.empty());
  for (const std::string& line : golden.lines) {
    const std::vector<double> values = numbers_of(line);
    const int taps = static_cast<int>(values[0]);
    const std::vector<double> w = window_coefficients(window, taps);
    ASSERT_EQ(w.size(), values.size() - 1) << "length " << taps;
    for (int n = 0; n < taps; ++n) EXPECT_NEAR(w[n], values[n + 1], 1e-12) << "length " << taps << " n " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Scipy, WindowGolden, testing::ValuesIn(golden_names("windows_")), test_name_of);

TEST(WindowGoldenFiles, CoverEveryKind) { EXPECT_GE(golden_names("windows_").size(), 5u); }

// ---------------------------------------------------------------- kaiserord

TEST(KaiserOrder, MatchesScipyKaiserord) {
  const GoldenFile golden = load_golden("kaiserord.txt");
  ASSERT_GE(golden.lines.size(), 100u);
  for (const std::string& line : golden.lines) {
    const std::vector<double> v = numbers_of(line);
    const KaiserOrder order = kaiser_order(v[0], v[1], v[2]);
    EXPECT_EQ(order.taps, static_cast<int>(v[3])) << line;
    EXPECT_NEAR(order.beta, v[4], 1e-12) << line;
  }
}

TEST(KaiserOrder, RejectsAttenuationBelowEightDb) {
  try {
    kaiser_order(7.9, 1000, 48000);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), Field::attenuation_db);
    EXPECT_NE(std::string(e.what()).find("attenuation_db 7.9"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- response vs scipy.freqz

class FreqzGolden : public testing::TestWithParam<std::string> {};

TEST_P(FreqzGolden, MatchesScipyFreqzAndGroupDelay) {
  const GoldenFile golden = load_golden(GetParam());
  Mask mask;
  mask.rate_hz = golden.number("rate_hz");
  std::vector<std::vector<double>> rows;  // freq, |H|, phase, group delay
  for (const std::string& line : golden.lines) {
    if (line.rfind("h ", 0) == 0) mask.taps.push_back(std::stof(line.substr(2)));
    if (line.rfind("r ", 0) == 0) rows.push_back(numbers_of(line.substr(2)));
  }
  ASSERT_FALSE(mask.taps.empty());
  const int points = std::stoi(golden.header.at("points"));
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(points));

  const Response r = response(mask, points);
  ASSERT_EQ(r.freq_hz.size(), rows.size());
  const double rate = mask.rate_hz > 0 ? mask.rate_hz : 1.0;
  for (int i = 0; i < points; ++i) {
    const double freq = rows[i][0], magnitude = rows[i][1], phase = rows[i][2], delay = rows[i][3];
    EXPECT_NEAR(r.freq_hz[i], freq, 1e-9 * rate) << "point " << i;
    EXPECT_NEAR(r.magnitude[i], magnitude, 1e-12) << "point " << i;
    EXPECT_NEAR(magnitude_at(mask, freq, rate), magnitude, 1e-12) << "magnitude_at, point " << i;
    // Phase is defined up to 2 pi; a rounding error e in H moves it by about e / |H|.
    if (magnitude > 1e-6) {
      EXPECT_NEAR(std::remainder(r.phase_rad[i] - phase, 2 * pi), 0.0, 1e-12 / magnitude) << "point " << i;
    }
    if (magnitude > 1e-3) {
      EXPECT_NEAR(r.group_delay[i], delay, 1e-6) << "point " << i;
    }
    // Unwrapped: no jump of pi or more between neighbours.
    if (i > 0) {
      EXPECT_LE(std::fabs(r.phase_rad[i] - r.phase_rad[i - 1]), pi) << "point " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Scipy, FreqzGolden, testing::ValuesIn(golden_names("freqz_")), test_name_of);

// ---------------------------------------------------------------- stop band

// Three taps [1/4, 1/2, 1/4] at 48 kHz: |H(f)| = cos^2(pi f / 48000), 1 at DC and 0 at
// Nyquist, so the stop band's worst level is known in closed form.
Mask binomial_mask() {
  Mask mask;
  mask.taps = {0.25f, 0.5f, 0.25f};
  mask.rate_hz = 48000;
  return mask;
}

Spec stop_band_spec(Band band, double low_hz, double high_hz, double transition_hz) {
  Spec spec;
  spec.band = band;
  spec.low_hz = low_hz;
  spec.high_hz = high_hz;
  spec.rate_hz = 48000;
  spec.transition_hz = transition_hz;
  return spec;
}

TEST(StopBand, WorstLevelOfAKnownMaskBeyondTheGuard) {
  const Mask mask = binomial_mask();
  Spec spec = stop_band_spec(Band::lowpass, 6000, 0, 2000);
  const StopBand stop = stop_band(mask, spec);
  EXPECT_EQ(stop.guard_hz, 2000);
  // Grid f_i = i * 24000 / 4095; the stop band starts above 8000 Hz.
  const std::size_t first = static_cast<std::size_t>(std::floor(8000.0 * 4095 / 24000)) + 1;
  EXPECT_EQ(stop.points, 4096 - first);
  const double f = first * 24000.0 / 4095;
  EXPECT_NEAR(stop.worst_magnitude, std::pow(std::cos(pi * f / 48000), 2), 1e-12);

  spec.transition_hz = 0;  // no transition given: 4 bins of the mask's resolution
  EXPECT_EQ(stop_band(mask, spec).guard_hz, 4.0 * 48000 / 3);
}

TEST(StopBand, NarrowNotchReportsItsCentre) {
  const StopBand stop = stop_band(binomial_mask(), stop_band_spec(Band::bandstop, 10000, 12000, 5000));
  EXPECT_EQ(stop.points, 0u);
  EXPECT_EQ(stop.centre_hz, 11000);
  EXPECT_NEAR(stop.centre_magnitude, std::pow(std::cos(pi * 11000 / 48000), 2), 1e-12);
}

TEST(FreqzGoldenFiles, AreThere) { EXPECT_GE(golden_names("freqz_").size(), 3u); }

TEST(Response, OnePointIsDcAndPointsMustBePositive) {
  Mask mask;
  mask.taps = {0.25f, 0.5f, -0.125f};
  mask.rate_hz = 48000;
  const Response r = response(mask, 1);
  ASSERT_EQ(r.magnitude.size(), 1u);
  EXPECT_EQ(r.freq_hz[0], 0.0);
  EXPECT_NEAR(r.magnitude[0], 0.625, 1e-15);
  EXPECT_THROW(response(mask, 0), Error);
  EXPECT_THROW(response(Mask{}, 16), Error);
}

// ---------------------------------------------------------------- designs by their spec

// Kaiser designs (kaiserord) checked as liquid-dsp checks its filters: the worst pass-band
// deviation and stop-band level by region, outside the transition bands, on the float mask.
struct KaiserCase {
  Band band;
  double low_hz, high_hz, rate_hz, attenuation_db, transition_hz;
};

class KaiserDesignSpec : public testing::TestWithParam<KaiserCase> {};

bool in_pass_band(const KaiserCase& c, double f) {
  switch (c.band) {
    case Band::lowpass: return f < c.low_hz;
    case Band::highpass: return f > c.low_hz;
    case Band::bandpass: return f > c.low_hz && f < c.high_hz;
    case Band::bandstop: return f < c.low_hz || f > c.high_hz;
    case Band::multiband: break;  // these cases are single-band specs
  }
  return false;
}

bool in_transition(const KaiserCase& c, double f) {
  const bool two_edges = c.band == Band::bandpass || c.band == Band::bandstop;
  return std::fabs(f - c.low_hz) < c.transition_hz / 2 ||
         (two_edges && std::fabs(f - c.high_hz) < c.transition_hz / 2);
}

TEST_P(KaiserDesignSpec, MeetsAttenuationAndRipple) {
  const KaiserCase c = GetParam();
  Spec spec;
  spec.band = c.band;
  spec.low_hz = c.low_hz;
  spec.high_hz = c.high_hz;
  spec.rate_hz = c.rate_hz;
  spec.attenuation_db = c.attenuation_db;
  spec.transition_hz = c.transition_hz;
  const Mask mask = design(spec);
  const Response r = response(mask, 8193);

  // Kaiser's formula aims at ripple delta = 10^(-A/20) in both bands; it lands within ~1 dB.
  const double delta = std::pow(10.0, -c.attenuation_db / 20);
  double worst_pass = 0, worst_stop = 0;
  int pass_points = 0, stop_points = 0;
  for (std::size_t i = 0; i < r.freq_hz.size(); ++i) {
    const double f = r.freq_hz[i];
    if (in_transition(c, f)) continue;
    if (in_pass_band(c, f)) {
      worst_pass = std::max(worst_pass, std::fabs(r.magnitude[i] - 1));
      ++pass_points;
    } else {
      worst_stop = std::max(worst_stop, r.magnitude[i]);
      ++stop_points;
    }
  }
  ASSERT_GT(pass_points, 100);
  ASSERT_GT(stop_points, 100);
  EXPECT_LE(20 * std::log10(worst_stop), -(c.attenuation_db - 1)) << mask.provenance;
  EXPECT_LE(worst_pass, 1.5 * delta) << mask.provenance;
}

INSTANTIATE_TEST_SUITE_P(
    Bands, KaiserDesignSpec,
    testing::Values(KaiserCase{Band::lowpass, 8000, 0, 48000, 60, 1000},
                    KaiserCase{Band::highpass, 3000, 0, 44100, 80, 800},
                    KaiserCase{Band::bandpass, 1000, 5000, 48000, 60, 500},
                    KaiserCase{Band::bandstop, 2000, 6000, 96000, 50, 1000},
                    KaiserCase{Band::lowpass, 1000, 0, 8000, 100, 200}));

TEST(DesignSpec, GainIsOneWhereFirwinScales) {
  // scale=True: unit gain at DC (lowpass, bandstop), Nyquist (highpass), band centre (bandpass).
  struct Case {
    Band band;
    double low, high, unit_gain_hz;
  };
  for (const Case c : {Case{Band::lowpass, 5000, 0, 0}, Case{Band::highpass, 5000, 0, 24000},
                       Case{Band::bandpass, 4000, 8000, 6000}, Case{Band::bandstop, 4000, 8000, 0}}) {
    Spec spec;
    spec.band = c.band;
    spec.low_hz = c.low;
    spec.high_hz = c.high;
    spec.taps = 101;
    const std::vector<double> h = design_coefficients(spec);
    double re = 0, im = 0;
    for (std::size_t n = 0; n < h.size(); ++n) {
      const double angle = 2 * pi * c.unit_gain_hz / spec.rate_hz * static_cast<double>(n);
      re += h[n] * std::cos(angle);
      im -= h[n] * std::sin(angle);
    }
    EXPECT_NEAR(std::hypot(re, im), 1.0, 1e-12) << to_string(c.band);
  }
}

TEST(DesignSpec, LinearPhaseCoefficientsAreSymmetric) {
  for (Band band : {Band::lowpass, Band::highpass, Band::bandpass, Band::bandstop}) {
    Spec spec;
    spec.band = band;
    spec.low_hz = 3000;
    spec.high_hz = 9000;
    spec.taps = 63;
    spec.window = Window{WindowKind::blackman, 0};
    const std::vector<double> h = design_coefficients(spec);
    for (std::size_t n = 0; n < h.size(); ++n) EXPECT_NEAR(h[n], h[h.size() - 1 - n], 1e-15);
  }
}

TEST(DesignSpec, KaiserordHighpassIsMadeOddAndSaysSo) {
  Spec spec;
  spec.band = Band::highpass;
  spec.low_hz = 8000;
  spec.attenuation_db = 60;
  spec.transition_hz = 1000;
  const int kaiserord_taps = kaiser_order(60, 1000, 48000).taps;
  ASSERT_EQ(kaiserord_taps % 2, 0) << "pick a case where kaiserord gives an even length";
  const Mask mask = design(spec);
  EXPECT_EQ(mask.taps.size(), static_cast<std::size_t>(kaiserord_taps + 1));
  EXPECT_NE(mask.provenance.find("made odd"), std::string::npos) << mask.provenance;
}

TEST(DesignSpec, TwoTapHannHasNoGainAndIsRefused) {
  Spec spec;
  spec.taps = 2;
  spec.window = Window{WindowKind::hann, 0};
  EXPECT_THROW(design(spec), Error);
}

TEST(DesignSpec, ProvenanceReadsLikeTheCommandLine) {
  Spec spec;
  spec.low_hz = 1000;
  spec.taps = 255;
  EXPECT_EQ(design(spec).provenance, "lowpass 1000 Hz, 255 taps, hamming window, 48000 Hz");
}

// ---------------------------------------------------------------- validate()

Spec valid_spec() {
  Spec spec;
  spec.band = Band::lowpass;
  spec.low_hz = 1000;
  spec.rate_hz = 48000;
  spec.taps = 255;
  return spec;
}

struct Rejection {
  std::string what;
  std::function<void(Spec&)> change;
  std::string expected;  // a part of the message
  Field field;           // the field it is about
};

TEST(Validate, AcceptsTheEdgesOfEveryRange) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::function<void(Spec&)>> accepted = {
      [](Spec&) {},
      [](Spec& s) { s.taps = 1; },
      [](Spec& s) { s.taps = 1 << 20; },
      [](Spec& s) { s.taps = 2; },  // even lowpass
      [](Spec& s) { s.band = Band::highpass; s.taps = 1; },
      [](Spec& s) { s.low_hz = 23999.999; },
      [](Spec& s) { s.band = Band::bandstop; s.high_hz = 23999; },
      [](Spec& s) { s.window = Window{WindowKind::kaiser, 0}; },
      [](Spec& s) { s.window = Window{WindowKind::kaiser, 50}; },
      [nan](Spec& s) { s.window.kaiser_beta = nan; },  // beta unused by hamming
      [](Spec& s) { s.taps = 0; s.transition_hz = 500; s.attenuation_db = 8; },
      [](Spec& s) { s.taps = 0; s.transition_hz = 500; s.attenuation_db = 300; },
  };
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    Spec spec = valid_spec();
    accepted[i](spec);
    EXPECT_NO_THROW(validate(spec)) << "case " << i;
  }
}

TEST(Validate, RejectsEveryRangeNamingTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const auto two_edges = [](Band band, double low, double high) {
    return [=](Spec& s) { s.band = band; s.low_hz = low; s.high_hz = high; };
  };
  const std::vector<Rejection> rejections = {
      {"rate 0", [](Spec& s) { s.rate_hz = 0; }, "rate_hz 0", Field::rate_hz},
      {"rate negative", [](Spec& s) { s.rate_hz = -48000; }, "rate_hz -48000", Field::rate_hz},
      {"rate NaN", [nan](Spec& s) { s.rate_hz = nan; }, "rate_hz", Field::rate_hz},
      {"rate inf", [inf](Spec& s) { s.rate_hz = inf; }, "rate_hz", Field::rate_hz},
      {"lowpass above Nyquist", [](Spec& s) { s.low_hz = 30000; },
       "low_hz 30000 Hz is at or above Nyquist (24000 Hz at a sample rate of 48000 Hz)", Field::low_hz},
      {"lowpass at Nyquist", [](Spec& s) { s.low_hz = 24000; }, "low_hz 24000 Hz is at or above Nyquist", Field::low_hz},
      {"lowpass zero", [](Spec& s) { s.low_hz = 0; }, "low_hz 0 Hz", Field::low_hz},
      {"lowpass negative", [](Spec& s) { s.low_hz = -5; }, "low_hz -5 Hz", Field::low_hz},
      {"lowpass NaN", [nan](Spec& s) { s.low_hz = nan; }, "low_hz", Field::low_hz},
      {"highpass above Nyquist", [](Spec& s) { s.band = Band::highpass; s.low_hz = 22050; s.rate_hz = 44100; },
       "low_hz 22050 Hz is at or above Nyquist (22050 Hz at a sample rate of 44100 Hz)", Field::low_hz},
      {"highpass negative", [](Spec& s) { s.band = Band::highpass; s.low_hz = -1; }, "low_hz -1 Hz", Field::low_hz},
      {"bandpass reversed", two_edges(Band::bandpass, 5000, 1000),
       "low_hz:high_hz 5000:1000: the upper edge must be above the lower", Field::edges},
      {"bandpass equal", two_edges(Band::bandpass, 1000, 1000), "low_hz:high_hz 1000:1000: the upper edge", Field::edges},
      {"bandpass negative", two_edges(Band::bandpass, -100, 1000), "low_hz:high_hz -100:1000: the lower edge", Field::edges},
      {"bandpass upper NaN", two_edges(Band::bandpass, 100, nan), "low_hz:high_hz 100:nan", Field::edges},
      {"bandpass above Nyquist", two_edges(Band::bandpass, 1000, 30000), "low_hz:high_hz 1000:30000: the upper edge 30000 Hz is at or above Nyquist", Field::edges},
      {"bandstop reversed", two_edges(Band::bandstop, 5000, 1000), "low_hz:high_hz 5000:1000", Field::edges},
      {"bandstop lower zero", two_edges(Band::bandstop, 0, 1000), "low_hz:high_hz 0:1000", Field::edges},
      {"bandstop above Nyquist", two_edges(Band::bandstop, 1000, 24000), "low_hz:high_hz 1000:24000", Field::edges},
      {"taps negative", [](Spec& s) { s.taps = -3; }, "taps -3", Field::taps},
      {"taps too many", [](Spec& s) { s.taps = (1 << 20) + 1; }, "taps 1048577", Field::taps},
      {"highpass even", [](Spec& s) { s.band = Band::highpass; s.taps = 100; },
       "taps 100: a highpass needs an odd number of taps (try 101)", Field::taps},
      {"bandstop even", [](Spec& s) { s.band = Band::bandstop; s.high_hz = 2000; s.taps = 254; },
       "taps 254: a bandstop needs an odd number of taps (try 255)", Field::taps},
      {"taps and transition", [](Spec& s) { s.transition_hz = 500; }, "transition_hz", Field::taps},
      {"taps and attenuation", [](Spec& s) { s.attenuation_db = 60; }, "attenuation_db", Field::taps},
      {"kaiser beta high", [](Spec& s) { s.window = Window{WindowKind::kaiser, 60}; }, "window kaiser:60", Field::window},
      {"kaiser beta negative", [](Spec& s) { s.window = Window{WindowKind::kaiser, -1}; }, "window kaiser:-1", Field::window},
      {"kaiser beta NaN", [nan](Spec& s) { s.window = Window{WindowKind::kaiser, nan}; }, "window", Field::window},
      {"no length", [](Spec& s) { s.taps = 0; }, "taps", Field::taps},
      {"transition alone", [](Spec& s) { s.taps = 0; s.transition_hz = 500; }, "attenuation_db", Field::transition_hz},
      {"attenuation alone", [](Spec& s) { s.taps = 0; s.attenuation_db = 60; }, "transition_hz", Field::attenuation_db},
      {"transition negative", [](Spec& s) { s.taps = 0; s.transition_hz = -500; s.attenuation_db = 60; },
       "transition_hz -500 Hz", Field::transition_hz},
      {"transition at Nyquist", [](Spec& s) { s.taps = 0; s.transition_hz = 24000; s.attenuation_db = 60; },
       "transition_hz 24000 Hz", Field::transition_hz},
      {"attenuation below 8", [](Spec& s) { s.taps = 0; s.transition_hz = 500; s.attenuation_db = 7.5; },
       "attenuation_db 7.5 dB", Field::attenuation_db},
      {"attenuation negative", [](Spec& s) { s.taps = 0; s.transition_hz = 500; s.attenuation_db = -60; },
       "attenuation_db -60 dB", Field::attenuation_db},
      {"attenuation huge", [](Spec& s) { s.taps = 0; s.transition_hz = 500; s.attenuation_db = 400; },
       "attenuation_db 400 dB", Field::attenuation_db},
      {"attenuation NaN", [nan](Spec& s) { s.taps = 0; s.transition_hz = 500; s.attenuation_db = nan; },
       "attenuation_db", Field::attenuation_db},
      {"kaiserord too long", [](Spec& s) { s.taps = 0; s.transition_hz = 0.01; s.attenuation_db = 100; },
       "transition_hz 0.01 Hz with attenuation_db 100 dB needs", Field::transition_hz},
  };
  for (const Rejection& rejection : rejections) {
    Spec spec = valid_spec();
    rejection.change(spec);
    try {
      validate(spec);
      ADD_FAILURE() << rejection.what << ": accepted";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(rejection.expected), std::string::npos)
          << rejection.what << ": \"" << message << "\" lacks \"" << rejection.expected << "\"";
      EXPECT_NE(message.rfind("halo:", 0), 0u) << message;
      EXPECT_EQ(message.find("--"), std::string::npos) << "a library message names no flag: " << message;
      EXPECT_EQ(e.field(), rejection.field) << rejection.what << ": \"" << message << "\"";
    }
    // design() validates first: the same rejection, never a filter.
    EXPECT_THROW(design(spec), Error) << rejection.what;
  }
}

// ---------------------------------------------------------------- window names

TEST(ParseWindow, ReadsEveryName) {
  EXPECT_EQ(parse_window("hann").kind, WindowKind::hann);
  EXPECT_EQ(parse_window("Hamming").kind, WindowKind::hamming);
  EXPECT_EQ(parse_window("blackman").kind, WindowKind::blackman);
  EXPECT_EQ(parse_window("rect").kind, WindowKind::rect);
  EXPECT_EQ(parse_window("boxcar").kind, WindowKind::rect);
  EXPECT_EQ(parse_window("kaiser").kind, WindowKind::kaiser);
  EXPECT_EQ(parse_window("kaiser").kaiser_beta, Window{}.kaiser_beta);
  const Window kaiser = parse_window("kaiser:5.5");
  EXPECT_EQ(kaiser.kind, WindowKind::kaiser);
  EXPECT_EQ(kaiser.kaiser_beta, 5.5);
  for (const char* name : {"hann", "hamming", "blackman", "rect", "kaiser:5.5", "kaiser:0", "kaiser:50"}) {
    EXPECT_EQ(to_string(parse_window(name)), name);
  }
}

TEST(ParseWindow, RejectsNamingTheField) {
  for (const char* text : {"", "hanning2", "kaiser:", "kaiser:abc", "kaiser:5x", "kaiser:60", "kaiser:-1",
                           "kaiser:nan", "triangle"}) {
    try {
      parse_window(text);
      ADD_FAILURE() << "\"" << text << "\" accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), Field::window) << e.what();
      EXPECT_EQ(std::string(e.what()), "window " + e.detail());
      EXPECT_EQ(e.detail().rfind(std::string(text) + ": ", 0), 0u) << e.detail();
    }
  }
}

TEST(BandNames, AreTheOptionNames) {
  EXPECT_EQ(to_string(Band::lowpass), "lowpass");
  EXPECT_EQ(to_string(Band::highpass), "highpass");
  EXPECT_EQ(to_string(Band::bandpass), "bandpass");
  EXPECT_EQ(to_string(Band::bandstop), "bandstop");
}

}  // namespace
}  // namespace halo::filters
