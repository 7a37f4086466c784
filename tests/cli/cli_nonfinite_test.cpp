// Issue 13, item 8: NaN and Inf follow one rule on every engine. Non-finite input samples are
// read as 0 and counted; non-finite results are never written (0 in float output, clipped and
// counted in integer output); all of it is reported in one `halo:` line like clipping.
// `halo info` reports NaN/Inf and does not skip NaN in the peak. A mask whose worst-case gain
// (sum of |h|) overflows float32 is refused. The reference is the float64 convolution of the
// input with its non-finite samples replaced by 0, written in the tests.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sndfile.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

const std::vector<std::string> engines = {"cpu", "cpu-fft"};

// A float WAV as given, values beyond ±1 included (write_sound lets libsndfile clip).
void write_float_wav(const std::string& path, const std::vector<float>& samples) {
  SF_INFO info{};
  info.samplerate = 48000;
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  SNDFILE* file = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(file, nullptr) << sf_strerror(nullptr);
  ASSERT_EQ(sf_write_float(file, samples.data(), static_cast<sf_count_t>(samples.size())),
            static_cast<sf_count_t>(samples.size()));
  ASSERT_EQ(sf_close(file), 0);
}

bool all_finite(const std::vector<float>& samples) {
  for (float v : samples)
    if (!std::isfinite(v)) return false;
  return true;
}

TEST(NonFinite, InputNanAndInfAreReadAsZeroOnEveryEngine) {
  TempDir dir;
  constexpr int channels = 2;
  std::vector<float> x = random_signal(20000 * channels, 11, 0.4f);
  x[100 * channels] = NAN;
  x[2000 * channels + 1] = INFINITY;
  x[15000 * channels] = -INFINITY;
  write_sound(dir / "in.wav", x, channels, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  std::vector<float> zeroed = x;
  for (float& v : zeroed)
    if (!std::isfinite(v)) v = 0;
  const std::vector<float> taps = random_signal(301, 12, 0.05f);
  write_f32(dir / "mask.f32", taps);
  const std::vector<double> want = expected_output(zeroed, channels, {taps}, Align::same, false);

  for (const std::string& engine : engines) {
    for (const std::string subtype : {"float", "pcm24"}) {
      const std::string out = dir / ("out-" + engine + "-" + subtype + ".wav");
      const auto args = halo_args({"filter", dir / "in.wav", out, "--mask", dir / "mask.f32", "--engine", engine,
                                   "--subtype", subtype, "-q"});
      const Result result = run(args);
      ASSERT_EQ(result.exit_code, 0) << describe(args, result);
      const auto lines = lines_of(result.err);
      ASSERT_EQ(lines.size(), 1u) << result.err;
      EXPECT_NE(lines[0].find("3 input samples were NaN or Inf"), std::string::npos) << result.err;
      const Sound sound = read_sound(out);
      EXPECT_TRUE(all_finite(sound.samples)) << engine;
      if (subtype == "float") {
        EXPECT_LE(relative_error(sound.samples, want), 1e-6) << engine;
      } else {
        EXPECT_LE(max_lsb_error(sound, want), lsb_tolerance(SF_FORMAT_PCM_24)) << engine;
      }
    }
  }
}

// Results that overflow (finite input near FLT_MAX through a gain of 2) are not written as Inf
// or NaN: float output gets 0 and a count; integer output counts them as clipped.
TEST(NonFinite, OverflowingResultsAreCountedNotWritten) {
  TempDir dir;
  std::vector<float> x = random_signal(8000, 13, 0.4f);
  x[4000] = 3e38f;  // two in a row: through the mask below, 6e38 or more
  x[4001] = 3e38f;
  write_float_wav(dir / "in.wav", x);
  ASSERT_EQ(read_sound(dir / "in.wav").samples[4000], 3e38f);
  write_f32(dir / "mask.f32", {1.0f, 1.0f, 1.0f});
  for (const std::string& engine : engines) {
    const auto float_args = halo_args({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.f32",
                                       "--engine", engine, "-q"});
    const Result as_float = run(float_args);
    ASSERT_EQ(as_float.exit_code, 0) << describe(float_args, as_float);
    EXPECT_NE(as_float.err.find("NaN or Inf and were written as 0"), std::string::npos) << as_float.err;
    EXPECT_EQ(lines_of(as_float.err).size(), 1u) << as_float.err;
    EXPECT_TRUE(all_finite(read_sound(dir / "out.wav").samples)) << engine;

    const auto pcm_args = halo_args({"filter", dir / "in.wav", dir / "out16.wav", "--mask", dir / "mask.f32",
                                     "--engine", engine, "--subtype", "pcm16", "-q"});
    const Result as_pcm = run(pcm_args);
    ASSERT_EQ(as_pcm.exit_code, 0) << describe(pcm_args, as_pcm);
    EXPECT_NE(as_pcm.err.find("clipped"), std::string::npos) << as_pcm.err;
    EXPECT_NE(as_pcm.err.find("of them NaN or Inf"), std::string::npos) << as_pcm.err;
  }
}

// Input too large for an FFT's sums, though the true result is finite: 1e35 through a 16383-tap
// moving average (sum |h| = 1, so every output is under 1e35). cpu-fft's transform sums
// thousands of samples near 1e35 and overflows; the line names what avoids it, and `--engine cpu`
// gives the float64 convolution. It had advised "lower --gain" where no gain was given (a QA
// pass), and only that.
TEST(NonFinite, AnFftOverflowNamesTheDirectEngine) {
  TempDir dir;
  std::vector<float> x = random_signal(48000, 14, 0.4f);
  for (float& v : x) v = 1e35f * (0.5f + v);  // 0.1e35 to 0.9e35, never 0
  write_float_wav(dir / "in.wav", x);
  const std::size_t taps = 16383;
  write_f32(dir / "avg.f32", std::vector<float>(taps, 1.0f / taps));
  const Result fft = run(halo_args({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "avg.f32", "--engine", "cpu-fft", "-q"}));
  ASSERT_EQ(fft.exit_code, 0) << fft.err;
  EXPECT_NE(fft.err.find("NaN or Inf and were written as 0"), std::string::npos) << fft.err;
  EXPECT_NE(fft.err.find("try --engine cpu"), std::string::npos) << fft.err;
  const Result direct = run(halo_args({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "avg.f32", "--engine", "cpu", "-q"}));
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_EQ(direct.err, "");
  // The float64 convolution, centred ((M-1)/2 frames): a moving average, so each output is a
  // window's sum over M, from running sums in float64.
  const std::vector<float> out = read_sound(dir / "out.wav").samples;
  ASSERT_EQ(out.size(), x.size());
  std::vector<double> running(x.size() + 1, 0.0);  // running[i]: the sum of x[0..i)
  for (std::size_t i = 0; i < x.size(); ++i) running[i + 1] = running[i] + double{x[i]};
  double error = 0, norm = 0;
  const long long half = static_cast<long long>((taps - 1) / 2), length = static_cast<long long>(x.size());
  for (long long n = 0; n < length; ++n) {
    const long long first = std::max(0LL, n - half), last = std::min(length, n + half + 1);  // window [first, last)
    const double expected = (running[static_cast<std::size_t>(last)] - running[static_cast<std::size_t>(first)]) / taps;
    const double got = out[static_cast<std::size_t>(n)];
    error += (got - expected) * (got - expected);
    norm += expected * expected;
  }
  EXPECT_LE(std::sqrt(error / norm), 1e-5);

  // A true overflow on the direct engine is not sent to the direct engine (a review).
  write_float_wav(dir / "huge.wav", std::vector<float>(4800, 3e38f));
  write_f32(dir / "three.f32", {0.9f, 0.9f, 0.9f});
  const Result huge = run(halo_args({"filter", dir / "huge.wav", dir / "out.wav", "--mask", dir / "three.f32", "--engine", "cpu", "-q"}));
  ASSERT_EQ(huge.exit_code, 0) << huge.err;
  EXPECT_NE(huge.err.find("lower --gain or scale IN down"), std::string::npos) << huge.err;
  EXPECT_EQ(huge.err.find("--engine cpu"), std::string::npos) << huge.err;
}

TEST(NonFinite, MaskWhoseWorstCaseGainOverflowsIsRefused) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4800, 14, 0.4f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_f32(dir / "huge.f32", {3e38f, 3e38f});  // each finite; the sum of |h| is 6e38 > FLT_MAX
  const DirectorySnapshot before(dir.path());
  const auto args = halo_args({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "huge.f32"});
  const Result result = run(args);
  expect_one_line_failure(result, 1, "worst-case gain", before, describe(args, result));
  // Named with the mask's file, not the audio's (a QA pass).
  EXPECT_EQ(result.err.rfind("halo: " + dir / "huge.f32" + ": the mask's worst-case gain", 0), 0u) << result.err;
}

TEST(NonFinite, InfoReportsThemAndKeepsNanInThePeak) {
  TempDir dir;
  std::vector<float> x = random_signal(2000 * 2, 15, 0.25f);
  x[10 * 2] = NAN;        // channel 1
  x[20 * 2 + 1] = INFINITY;  // channel 2
  x[30 * 2 + 1] = -INFINITY;
  write_sound(dir / "in.wav", x, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Result result = halo({"info", dir / "in.wav"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("1 NaN and 2 Inf samples"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("peak:      nan"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("ch 1     nan"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("ch 2     inf"), std::string::npos) << result.out;
  // The JSON tells which channel too (it had the file's counts only, where the README says
  // they tell which: a QA pass).
  const Result json = halo({"info", dir / "in.wav", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["nan_samples"].get<int>(), 1);
  EXPECT_EQ(j["inf_samples"].get<int>(), 2);
  EXPECT_EQ(j["channel"][0]["nan_samples"].get<int>(), 1);
  EXPECT_EQ(j["channel"][0]["inf_samples"].get<int>(), 0);
  EXPECT_EQ(j["channel"][1]["nan_samples"].get<int>(), 0);
  EXPECT_EQ(j["channel"][1]["inf_samples"].get<int>(), 2);
  EXPECT_TRUE(j["channel"][0]["peak"].is_null());
  EXPECT_TRUE(j["channel"][1]["peak"].is_null());
}

}  // namespace
}  // namespace halo::test
