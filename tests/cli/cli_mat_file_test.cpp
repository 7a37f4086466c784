// MAT-files (MATLAB, Octave, scipy.io) as masks and as audio, from tests/data/mat (made by
// make_mat_files.py with scipy). libsndfile reads a MAT5 file as a 1x1 rate variable, then the
// samples; what users save is often otherwise (a QA pass):
// - `save b.mat b` holds no rate, and libsndfile gives it 44100 Hz, which halo had reported,
//   warned about against 48 kHz audio, resampled from and written into exports;
// - a variable saved after the samples had been read as more of them, its header and all.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

std::string mat(const std::string& name) { return std::string(HALO_TEST_DATA) + "/mat/" + name; }

// The taps both files hold, as scipy wrote them out.
std::vector<double> saved_taps() {
  std::ifstream file(mat("taps.txt"));
  std::vector<double> taps;
  for (double v; file >> v;) taps.push_back(v);
  return taps;
}

class MatFile : public ::testing::Test {
 protected:
  TempDir dir;
  std::string path(const std::string& name) const { return dir.path() + "/" + name; }
  void SetUp() override {
    // An impulse of 0.5 in the middle of 48 kHz audio: the output is half the mask, centred.
    std::vector<float> impulse(400, 0.0f);
    impulse[200] = 0.5f;
    write_sound(path("x.wav"), impulse, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  }
  // The mask as filter applied it to the impulse (M odd, centred on frame 200).
  void expect_applied(const std::string& out, const std::vector<double>& taps) const {
    const Sound y = read_sound(path(out));
    ASSERT_EQ(y.samples.size(), 400u);
    const std::size_t first = 200 - (taps.size() - 1) / 2;
    for (std::size_t i = 0; i < y.samples.size(); ++i) {
      const double expected = i >= first && i < first + taps.size() ? taps[i - first] : 0.0;
      ASSERT_NEAR(2.0 * y.samples[i], expected, 2e-7) << out << " frame " << i;
    }
  }
};

TEST_F(MatFile, AVectorWithoutARateIsAMaskOfUnknownRate) {
  const std::vector<double> taps = saved_taps();
  ASSERT_EQ(taps.size(), 31u);
  const Result used = run({HALO_BINARY, "filter", path("x.wav"), path("y.wav"), "--mask", mat("vector_no_rate.mat")});
  ASSERT_EQ(used.exit_code, 0) << used.err;
  EXPECT_EQ(used.err.find("44100"), std::string::npos) << used.err;
  expect_applied("y.wav", taps);
  // Nothing to resample from: used as it is, and said so; as --ir too (it had said nothing).
  const Result resampled = run({HALO_BINARY, "filter", path("x.wav"), path("r.wav"), "--ir",
                                mat("vector_no_rate.mat"), "--ir-rate", "resample", "-q"});
  ASSERT_EQ(resampled.exit_code, 0) << resampled.err;
  EXPECT_EQ(resampled.err, "halo: warning: " + mat("vector_no_rate.mat") +
                               " does not say its rate: --ir-rate resample takes it as the audio's 48000 Hz\n");
  // A design read from it writes no rate it never had.
  ASSERT_EQ(run({HALO_BINARY, "design", "--mask", mat("vector_no_rate.mat"), "-o", path("m.txt"), "-q"}).exit_code, 0);
  EXPECT_EQ(read_bytes(path("m.txt")).find("44100"), std::string::npos) << read_bytes(path("m.txt"));
}

TEST_F(MatFile, AVariableAfterTheSamplesIsNotReadAsSamples) {
  const std::vector<double> taps = saved_taps();
  const Result info = run({HALO_BINARY, "info", mat("rate_samples_more.mat")});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("frames:    31\n"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("rate:      48000 Hz"), std::string::npos) << info.out;
  const Result used =
      run({HALO_BINARY, "filter", path("x.wav"), path("y.wav"), "--mask", mat("rate_samples_more.mat"), "-q"});
  ASSERT_EQ(used.exit_code, 0) << used.err;
  expect_applied("y.wav", taps);
}

TEST_F(MatFile, AudioWithoutARateIsRefused) {
  const DirectorySnapshot before(dir.path());
  expect_one_line_failure(run({HALO_BINARY, "filter", mat("vector_no_rate.mat"), path("y.wav"), "--lowpass", "1k"}), 1,
                          "vector_no_rate.mat: a MAT-file that does not say its rate", before, "IN");
}

}  // namespace
}  // namespace halo::test
