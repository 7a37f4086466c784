// issue 16: a --mask file that carries the rate it was designed at (the JSON and C header
// exports of `halo design`) is never used silently with audio at another rate: refused by
// default with both rates named, resampled with --mask-rate resample, used as it is with
// --mask-rate keep (and filter's warning), as --ir-rate does for impulse responses.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

constexpr double pi = 3.14159265358979323846;

Result halo_ok(const std::vector<std::string>& args) {
  std::vector<std::string> all = {HALO_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  Result result = run(all);
  EXPECT_EQ(result.exit_code, 0) << describe(all, result);
  return result;
}

// |H(f)| in dB of taps at rate: the float64 DFT written plainly.
double magnitude_db(const std::vector<double>& taps, double hz, double rate) {
  std::complex<double> sum = 0;
  for (std::size_t k = 0; k < taps.size(); ++k)
    sum += taps[k] * std::polar(1.0, -2 * pi * hz / rate * static_cast<double>(k));
  return 20 * std::log10(std::abs(sum));
}

class MaskRate : public ::testing::Test {
 protected:
  TempDir dir;
  std::string path(const std::string& name) const { return dir.path() + "/" + name; }
  void SetUp() override {
    // A 4 kHz low-pass designed at 96 kHz, as JSON and as a C header; the audio at 48 kHz: an
    // impulse of 0.5 in the middle, so that the output is half the mask as filter applies it.
    halo_ok({"design", "--lowpass", "4000", "--taps", "201", "--rate", "96000", "-o", path("lp96.json"), "-q"});
    halo_ok({"design", "--lowpass", "4000", "--taps", "201", "--rate", "96000", "-o", path("lp96.h"), "-q"});
    std::vector<float> impulse(4000, 0.0f);
    impulse[2000] = 0.5f;
    write_sound(path("x.wav"), impulse, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  }
  // The 96 kHz taps, as the JSON holds them.
  std::vector<double> taps96() const {
    const nlohmann::json j = nlohmann::json::parse(read_bytes(path("lp96.json")));
    EXPECT_EQ(j["rate_hz"].get<double>(), 96000);
    return j["coefficients"].get<std::vector<double>>();
  }
  // The response filter applied to the impulse, scaled back to the mask's.
  std::vector<double> applied(const std::string& out) const {
    const Sound y = read_sound(path(out));
    EXPECT_EQ(y.rate_hz, 48000);
    std::vector<double> h;
    for (float v : y.samples) h.push_back(2.0 * v);
    return h;
  }
};

TEST_F(MaskRate, AnotherRateIsRefusedByDefaultNamingBothRates) {
  const DirectorySnapshot before(dir.path());
  for (const std::string name : {"lp96.json", "lp96.h"}) {
    expect_one_line_failure(halo({"filter", path("x.wav"), path("y.wav"), "--mask", path(name)}), 1,
                            name + ": the mask is at 96000 Hz but the audio is at 48000 Hz", before, name);
    expect_one_line_failure(
        halo({"filter", path("x.wav"), path("y.wav"), "--mask", path(name), "--mask-rate", "refuse"}), 1,
        "--mask-rate resample", before, name + " with --mask-rate refuse");
  }
}

TEST_F(MaskRate, ResampleGivesTheSameResponseAtTheAudioRate) {
  const std::vector<double> h96 = taps96();
  for (const std::string name : {"lp96.json", "lp96.h"}) {
    halo_ok({"filter", path("x.wav"), path("y.wav"), "--mask", path(name), "--mask-rate", "resample", "-q"});
    const std::vector<double> h48 = applied("y.wav");
    // The pass band within 0.01 dB of the 96 kHz mask's; the stop band stays stopped
    // (libsamplerate's own stop band is about -97 dB).
    for (double hz : {100.0, 1000.0, 2000.0, 3000.0})
      EXPECT_NEAR(magnitude_db(h48, hz, 48000), magnitude_db(h96, hz, 96000), 0.01) << name << " at " << hz << " Hz";
    for (double hz : {8000.0, 12000.0, 16000.0, 23000.0})
      EXPECT_LT(magnitude_db(h48, hz, 48000), -45) << name << " at " << hz << " Hz";
    // Half the taps at half the rate: the same duration.
    double energy = 0, outside = 0;
    for (std::size_t n = 0; n < h48.size(); ++n) {
      energy += h48[n] * h48[n];
      if (n < 1900 || n > 2100) outside += h48[n] * h48[n];
    }
    EXPECT_LT(outside, 1e-9 * energy) << name;
  }
}

// `design --mask F --rate R` converts every mask file that says its rate, a text mask's
// "# rate" line and a sound file's too (it wrote them at their own rate, silently, a QA pass
// found): refused by default naming --rate, resampled with --mask-rate resample.
TEST_F(MaskRate, DesignConvertsEveryMaskFileThatSaysItsRate) {
  const std::vector<double> h96 = taps96();
  halo_ok({"design", "--mask", path("lp96.json"), "-o", path("lp96.txt"), "-q"});  // "# rate 96000 Hz"
  halo_ok({"design", "--mask", path("lp96.json"), "-o", path("lp96.wav"), "-q"});  // a 96 kHz WAV
  for (const std::string name : {"lp96.txt", "lp96.wav"}) {
    const DirectorySnapshot before(dir.path());
    expect_one_line_failure(halo({"design", "--mask", path(name), "--rate", "48000", "-o", path("at48.wav")}), 1,
                            name + ": the mask is at 96000 Hz but --rate asks for 48000 Hz", before, name);
    halo_ok({"design", "--mask", path(name), "--rate", "48000", "--mask-rate", "resample", "-o", path("at48.wav"), "-q"});
    const Sound at48 = read_sound(path("at48.wav"));
    EXPECT_EQ(at48.rate_hz, 48000) << name;
    const std::vector<double> h48(at48.samples.begin(), at48.samples.end());
    for (double hz : {100.0, 1000.0, 2000.0, 3000.0})
      EXPECT_NEAR(magnitude_db(h48, hz, 48000), magnitude_db(h96, hz, 96000), 0.01) << name << " at " << hz << " Hz";
    // keep: the taps as they are, at --rate's rate (they had kept 96000, as if --rate were not given).
    halo_ok({"design", "--mask", path(name), "--rate", "48000", "--mask-rate", "keep", "-o", path("kept.wav"), "-q"});
    const Sound kept = read_sound(path("kept.wav"));
    EXPECT_EQ(kept.rate_hz, 48000) << name;
    ASSERT_EQ(kept.samples.size(), h96.size()) << name;
    for (std::size_t k = 0; k < h96.size(); ++k) ASSERT_NEAR(kept.samples[k], h96[k], 1e-7) << name << " tap " << k;
  }
}

// A text or sound mask at another rate gets filter's warning by default (its "# rate" line or
// header may be a default), but a --mask-rate given on the command line applies to it: resample
// resamples (it had been ignored, the cutoff halved, a QA pass found), refuse refuses.
TEST_F(MaskRate, AGivenMaskRateAppliesToTextAndSoundMasks) {
  const std::vector<double> h96 = taps96();
  halo_ok({"design", "--mask", path("lp96.json"), "-o", path("lp96.txt"), "-q"});  // "# rate 96000 Hz"
  halo_ok({"design", "--mask", path("lp96.json"), "-o", path("lp96.wav"), "-q"});  // a 96 kHz WAV
  for (const std::string name : {"lp96.txt", "lp96.wav"}) {
    halo_ok({"filter", path("x.wav"), path("y.wav"), "--mask", path(name), "--mask-rate", "resample", "-q"});
    const std::vector<double> h48 = applied("y.wav");
    for (double hz : {100.0, 1000.0, 2000.0, 3000.0})
      EXPECT_NEAR(magnitude_db(h48, hz, 48000), magnitude_db(h96, hz, 96000), 0.01) << name << " at " << hz << " Hz";
    for (double hz : {8000.0, 12000.0, 16000.0})
      EXPECT_LT(magnitude_db(h48, hz, 48000), -45) << name << " at " << hz << " Hz";
    const DirectorySnapshot before(dir.path());
    expect_one_line_failure(
        halo({"filter", path("x.wav"), path("y2.wav"), "--mask", path(name), "--mask-rate", "refuse"}), 1,
        name + ": the mask is at 96000 Hz but the audio is at 48000 Hz", before, name + " with --mask-rate refuse");
    const Result warned = halo_ok({"filter", path("x.wav"), path("y.wav"), "--mask", path(name)});
    EXPECT_NE(warned.err.find("warning: the mask was made for 96000 Hz"), std::string::npos) << warned.err;
  }
}

TEST_F(MaskRate, KeepUsesTheTapsAsTheyAreWithAWarning) {
  const std::vector<double> h96 = taps96();
  const Result kept =
      halo_ok({"filter", path("x.wav"), path("y.wav"), "--mask", path("lp96.json"), "--mask-rate", "keep"});
  EXPECT_NE(kept.err.find("96000"), std::string::npos) << kept.err;
  // The 201 taps, centred on the impulse (delay (M - 1) / 2 removed).
  const std::vector<double> h = applied("y.wav");
  for (std::size_t k = 0; k < h96.size(); ++k) ASSERT_NEAR(h[2000 - 100 + k], h96[k], 1e-7) << k;
  EXPECT_NEAR(h[2000 - 101], 0.0, 1e-7);  // an FFT engine rounds the zeros
  EXPECT_NEAR(h[2000 + 101], 0.0, 1e-7);
}

TEST_F(MaskRate, TheSameRateNeedsNoChoice) {
  halo_ok({"design", "--lowpass", "4000", "--taps", "101", "-o", path("lp48.json"), "-q"});
  halo_ok({"filter", path("x.wav"), path("y.wav"), "--mask", path("lp48.json"), "-q"});
  const nlohmann::json j = nlohmann::json::parse(read_bytes(path("lp48.json")));
  const std::vector<double> taps = j["coefficients"].get<std::vector<double>>();
  const std::vector<double> h = applied("y.wav");
  for (std::size_t k = 0; k < taps.size(); ++k) ASSERT_NEAR(h[2000 - 50 + k], taps[k], 1e-7) << k;
}

// A mask that says no rate (raw .f32, a text mask without "# rate") has nothing to resample
// from: its taps are used as they are, and --mask-rate resample says so (it had said nothing).
TEST_F(MaskRate, ResampleOfAMaskWithoutARateSaysSo) {
  write_bytes(path("d.txt"), "0.25\n0.5\n0.25\n");
  const Result result = halo({"filter", path("x.wav"), path("y.wav"), "--mask", path("d.txt"), "--mask-rate", "resample", "-q"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "halo: warning: " + path("d.txt") +
                            " does not say its rate: --mask-rate resample takes it as the audio's 48000 Hz\n");
  const std::vector<double> h = applied("y.wav");
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(h[2000 - 1 + k], k == 1 ? 0.5 : 0.25, 1e-7) << k;
}

TEST_F(MaskRate, TheOptionIsForMaskFilesAndTakesThreeWords) {
  const DirectorySnapshot before(dir.path());
  expect_one_line_failure(
      halo({"filter", path("x.wav"), path("y.wav"), "--mask", path("lp96.json"), "--mask-rate", "fast"}), 2,
      "--mask-rate fast: give refuse, resample or keep", before, "unknown policy");
  expect_one_line_failure(halo({"filter", path("x.wav"), path("y.wav"), "--lowpass", "1000", "--mask-rate", "keep"}), 2,
                          "--mask-rate applies to --mask", before, "designed mask");
  expect_one_line_failure(halo({"filter", path("x.wav"), path("y.wav"), "--ir", path("x.wav"), "--mask-rate", "keep"}),
                          2, "--mask-rate applies to --mask", before, "impulse response");
  // Its twin for --ir, which a designed mask had taken and ignored (a QA pass).
  expect_one_line_failure(halo({"filter", path("x.wav"), path("y.wav"), "--lowpass", "1000", "--ir-rate", "resample"}),
                          2, "--ir-rate applies to --ir", before, "designed mask, --ir-rate");
}

}  // namespace
}  // namespace halo::test
