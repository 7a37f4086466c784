// filters::resample: an --ir or --mask at another rate, resampled with libsamplerate. Its
// last frame at the new rate had been left 0 (libsamplerate gives floor(taps x ratio) frames of
// the ceil(taps x ratio) the mask takes), and a mask shorter than one frame there came out
// silent: a QA pass. Checked against what the mask is, not against the code's own output: a
// symmetric low-pass stays symmetric, a gain stays that gain, a centred mask keeps its centre,
// and zeros after a causal mask's end change none of its frames.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "filters/error.hpp"
#include "filters/resample.hpp"

namespace halo::filters {
namespace {

Mask mask_of(std::vector<float> taps, double rate_hz) {
  Mask m;
  m.taps = std::move(taps);
  m.rate_hz = rate_hz;
  return m;
}

// A Hamming-windowed sinc low-pass of `taps` taps, cutoff `cutoff` of the rate, in float64.
std::vector<float> windowed_sinc(int taps, double cutoff) {
  const double pi = 3.14159265358979323846;
  std::vector<float> h(static_cast<std::size_t>(taps));
  for (int n = 0; n < taps; ++n) {
    const double t = n - 0.5 * (taps - 1);
    const double sinc = t == 0 ? 2 * cutoff : std::sin(2 * pi * cutoff * t) / (pi * t);
    h[static_cast<std::size_t>(n)] = static_cast<float>(sinc * (0.54 - 0.46 * std::cos(2 * pi * n / (taps - 1))));
  }
  return h;
}

TEST(Resample, AOneTapGainStaysThatGainAtALowerRate) {
  const Mask resampled = resample(mask_of({0.5f}, 48000), 8000);
  ASSERT_EQ(resampled.taps.size(), 1u);
  // The band-limited impulse's peak, scaled by 6: libsamplerate's pass band ends at about 97 %
  // of the lower Nyquist, so 0.483, not quite 0.5 (the old code gave 0).
  EXPECT_NEAR(resampled.taps[0], 0.5, 0.025);
}

TEST(Resample, ASymmetricLowPassStaysSymmetric) {
  // 255 taps at 96 kHz are 129 at 48 kHz (odd, as 255 is), centred where the 255 were (64
  // frames in).
  const Mask resampled = resample(mask_of(windowed_sinc(255, 8000.0 / 96000), 96000), 48000);
  ASSERT_EQ(resampled.taps.size(), 129u);
  double peak = 0;
  for (float v : resampled.taps) peak = std::max(peak, std::fabs(static_cast<double>(v)));
  ASSERT_GT(std::fabs(resampled.taps.front()), 1e-5 * peak) << "the end taps must not be zero to begin with";
  for (std::size_t i = 0; i < 64; ++i)
    EXPECT_NEAR(resampled.taps[i], resampled.taps[128 - i], 1e-5 * peak) << "tap " << i;
}

TEST(Resample, ZerosAfterACausalMasksEndChangeNoFrame) {
  for (const auto& [from, to] : std::vector<std::pair<double, double>>{
           {48000, 24000}, {48000, 8000}, {96000, 48000}, {44100, 48000}, {48000, 44100}, {22050, 96000}}) {
    for (int length : {1, 2, 5, 7, 64, 101}) {
      std::vector<float> taps(static_cast<std::size_t>(length));
      for (int n = 0; n < length; ++n) taps[static_cast<std::size_t>(n)] = static_cast<float>(std::cos(0.7 * n) / (1 + n));
      std::vector<float> longer = taps;
      longer.resize(longer.size() + 40, 0.0f);
      // Causal: a centred mask's zeros are part of it, and move its centre.
      Mask shorter_mask = mask_of(taps, from), longer_mask = mask_of(longer, from);
      shorter_mask.causal = longer_mask.causal = true;
      const Mask a = resample(shorter_mask, to), b = resample(longer_mask, to);
      ASSERT_EQ(a.taps.size(), static_cast<std::size_t>(std::ceil(length * to / from)));
      for (std::size_t i = 0; i < a.taps.size(); ++i)
        EXPECT_NEAR(a.taps[i], b.taps[i], 1e-6) << length << " taps, " << from << " -> " << to << " Hz, frame " << i;
    }
  }
}

// A Kaiser-windowed (beta 10, about 100 dB down) sinc low-pass of `taps` taps, cutoff `cutoff`
// of the rate: band-limited well enough that its values between taps are its sinc interpolation.
std::vector<double> kaiser_sinc(int taps, double cutoff) {
  const double pi = 3.14159265358979323846, beta = 10;
  std::vector<double> h(static_cast<std::size_t>(taps));
  for (int n = 0; n < taps; ++n) {
    const double t = n - 0.5 * (taps - 1);
    const double sinc = t == 0 ? 2 * cutoff : std::sin(2 * pi * cutoff * t) / (pi * t);
    const double r = taps == 1 ? 0 : 2.0 * n / (taps - 1) - 1;
    h[static_cast<std::size_t>(n)] = sinc * std::cyl_bessel_i(0.0, beta * std::sqrt(1 - r * r)) / std::cyl_bessel_i(0.0, beta);
  }
  return h;
}

// The float64 reference: the mask's sinc interpolation at old frame t, scaled by old / new rate.
double interpolated(const std::vector<double>& h, double t, double old_over_new) {
  const double pi = 3.14159265358979323846;
  double sum = 0;
  for (std::size_t k = 0; k < h.size(); ++k) {
    const double x = t - static_cast<double>(k);
    sum += h[k] * (x == 0 ? 1 : std::sin(pi * x) / (pi * x));
  }
  return sum * old_over_new;
}

// A centred mask keeps its centre: new tap (M' - 1) / 2 lies at old tap (M - 1) / 2, and every
// new tap is the mask's value on that grid. libsamplerate alone puts new tap 0 at old tap 0: a
// 255-tap low-pass from 44.1 to 48 kHz had come out 0.27 frames early and no longer symmetric,
// one tap at 8 kHz 2.5 frames early at 48 kHz (a QA pass). A causal mask keeps tap 0 at 0.
TEST(Resample, ACentredMaskKeepsItsCentreAndACausalOneItsStart) {
  struct Case {
    double from, to;
    int taps;
  };
  for (const Case& c : std::vector<Case>{{44100, 48000, 255}, {48000, 44100, 256}, {8000, 48000, 31},
                                         {48000, 22050, 101}, {22050, 96000, 64}, {96000, 44100, 400}}) {
    const double ratio = c.to / c.from;
    // Cut off at 40 % of the lower Nyquist, so that neither rate changes the filter.
    const std::vector<double> h = kaiser_sinc(c.taps, 0.2 * std::min(1.0, ratio));
    for (bool causal : {false, true}) {
      Mask mask = mask_of(std::vector<float>(h.begin(), h.end()), c.from);
      mask.causal = causal;
      const Mask resampled = resample(mask, c.to);
      const std::size_t frames = resampled.taps.size();
      const auto ceiling = static_cast<std::size_t>(std::ceil(c.taps * ratio));
      // A centred mask of odd length stays odd: its centre a whole tap.
      ASSERT_EQ(frames, ceiling + (!causal && c.taps % 2 == 1 && ceiling % 2 == 0 ? 1 : 0));
      const double start =
          causal ? 0 : 0.5 * (c.taps - 1) - 0.5 * static_cast<double>(frames - 1) / ratio;
      double peak = 0;
      for (double v : h) peak = std::max(peak, std::fabs(v / ratio));
      for (std::size_t m = 0; m < frames; ++m)
        ASSERT_NEAR(resampled.taps[m], interpolated(h, start + static_cast<double>(m) / ratio, 1 / ratio), 2e-4 * peak)
            << c.taps << " taps, " << c.from << " -> " << c.to << " Hz, " << (causal ? "causal" : "centred")
            << ", new tap " << m;
      if (!causal)
        for (std::size_t m = 0; m < frames / 2; ++m)
          ASSERT_NEAR(resampled.taps[m], resampled.taps[frames - 1 - m], 1e-4 * peak) << c.taps << " taps, tap " << m;
    }
  }
}

// One centred tap at 8 kHz is, at 48 kHz, seven taps of the band-limited impulse on a grid
// symmetric about it (old frames -1/2 to 1/2; odd, as the one tap is, so that its centre is a
// whole tap: six had put it between two, and filter half a frame late): its peak in the middle
// tap, not in tap 0.
TEST(Resample, OneCentredTapStaysCentredAtAHigherRate) {
  const Mask resampled = resample(mask_of({1.0f}, 8000), 48000);
  ASSERT_EQ(resampled.taps.size(), 7u);
  for (std::size_t m = 0; m < 3; ++m) EXPECT_NEAR(resampled.taps[m], resampled.taps[6 - m], 1e-5) << "tap " << m;
  EXPECT_GT(resampled.taps[3], resampled.taps[2]);
  EXPECT_GT(resampled.taps[2], resampled.taps[1]);
  EXPECT_GT(resampled.taps[1], resampled.taps[0]);
  EXPECT_GT(resampled.taps[0], 0.1f);
}

// A causal mask loud at its first taps rings before its start once band-limited, and the share
// of its energy that is cut there is said: one tap at frame 0 of 48 kHz loses about a quarter
// at 96 kHz (2.6 dB of its response, a QA pass), a tap 100 frames in nothing measurable.
TEST(Resample, TheRingCutBeforeACausalMasksStartIsMeasured) {
  for (const auto& [at, least, most] : std::vector<std::tuple<std::size_t, double, double>>{{0, 0.15, 0.4}, {100, 0, 1e-6}}) {
    std::vector<float> taps(480, 0.0f);
    taps[at] = 0.5f;
    Mask mask = mask_of(taps, 48000);
    mask.causal = true;
    double cut = -1;
    resample(mask, 96000, &cut);
    EXPECT_GE(cut, least) << "a tap at frame " << at;
    EXPECT_LE(cut, most) << "a tap at frame " << at;
  }
}

// A mask that would grow past 2^24 taps is refused before the work, saying both lengths.
TEST(Resample, AMaskThatWouldPass2To24TapsIsRefusedFirst) {
  try {
    resample(mask_of(std::vector<float>(70000, 0.25f), 187.5), 48000);
    ADD_FAILURE() << "resampled";
  } catch (const Error& e) {
    EXPECT_NE(e.detail().find("70000 taps at 187.5 Hz are 17920000 at 48000 Hz, more than the 16777216 a mask holds"),
              std::string::npos)
        << e.detail();
  }
}

}  // namespace
}  // namespace halo::filters
