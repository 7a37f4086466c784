// filters::resample: an --ir or --mask at another rate, resampled with libsamplerate. Its
// last frame at the new rate had been left 0 (libsamplerate gives floor(taps x ratio) frames of
// the ceil(taps x ratio) the mask takes), and a mask shorter than one frame there came out
// silent: a QA pass. Checked against what the mask is, not against the code's own output: a
// symmetric low-pass stays symmetric, a gain stays that gain, and zeros after a mask's end
// change none of its frames.
#include <gtest/gtest.h>

#include <cmath>
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
  // 255 taps at 96 kHz are 128 at 48 kHz, centred where the 255 were (63.5 frames in).
  const Mask resampled = resample(mask_of(windowed_sinc(255, 8000.0 / 96000), 96000), 48000);
  ASSERT_EQ(resampled.taps.size(), 128u);
  double peak = 0;
  for (float v : resampled.taps) peak = std::max(peak, std::fabs(static_cast<double>(v)));
  ASSERT_GT(std::fabs(resampled.taps.front()), 1e-5 * peak) << "the end taps must not be zero to begin with";
  for (std::size_t i = 0; i < 64; ++i)
    EXPECT_NEAR(resampled.taps[i], resampled.taps[127 - i], 1e-5 * peak) << "tap " << i;
}

TEST(Resample, ZerosAfterTheEndChangeNoFrame) {
  for (const auto& [from, to] : std::vector<std::pair<double, double>>{
           {48000, 24000}, {48000, 8000}, {96000, 48000}, {44100, 48000}, {48000, 44100}, {22050, 96000}}) {
    for (int length : {1, 2, 5, 7, 64, 101}) {
      std::vector<float> taps(static_cast<std::size_t>(length));
      for (int n = 0; n < length; ++n) taps[static_cast<std::size_t>(n)] = static_cast<float>(std::cos(0.7 * n) / (1 + n));
      std::vector<float> longer = taps;
      longer.resize(longer.size() + 40, 0.0f);
      const Mask a = resample(mask_of(taps, from), to), b = resample(mask_of(longer, from), to);
      ASSERT_EQ(a.taps.size(), static_cast<std::size_t>(std::ceil(length * to / from)));
      for (std::size_t i = 0; i < a.taps.size(); ++i)
        EXPECT_NEAR(a.taps[i], b.taps[i], 1e-6) << length << " taps, " << from << " -> " << to << " Hz, frame " << i;
    }
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
