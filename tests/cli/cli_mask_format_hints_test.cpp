// What halo says of a mask file in another format than the one it is read as (a QA pass of
// users coming from CamillaDSP and BruteFIR, whose raw coefficients may be float64 or int32):
// float64 bytes named .f32 had given taps up to 1.8e37, written out without a word, and binary
// bytes on standard input had been told to be "named .f32", which a pipe cannot be.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

class MaskFormatHints : public ::testing::Test {
 protected:
  TempDir dir;
  std::string path(const std::string& name) const { return dir.path() + "/" + name; }
  void SetUp() override { make_noise_file(path("x.wav"), 2000, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 3); }
  // The bytes of `taps` as little-endian values of T.
  template <typename T>
  static std::string bytes_of(const std::vector<double>& taps) {
    std::string bytes;
    for (double tap : taps) {
      const T value = static_cast<T>(tap);
      char raw[sizeof(T)];
      std::memcpy(raw, &value, sizeof value);
      bytes.append(raw, sizeof raw);
    }
    return bytes;
  }
};

TEST_F(MaskFormatHints, Float64BytesNamedF32GetAWarningOfTheirGain) {
  const std::vector<double> taps = {-0.01, 0.05, 0.3, 0.5, 0.3, 0.05, -0.01};
  write_bytes(path("h.f32"), bytes_of<double>(taps));
  const Result wrong = halo({"filter", path("x.wav"), path("y.wav"), "--mask", path("h.f32"), "-q"});
  ASSERT_EQ(wrong.exit_code, 0) << wrong.err;
  EXPECT_NE(wrong.err.find("halo: warning: " + path("h.f32") + ": the mask can raise a full-scale input by "),
            std::string::npos)
      << wrong.err;
  EXPECT_NE(wrong.err.find("is the file in the format its name says?"), std::string::npos) << wrong.err;
  // The same taps as float32: no word.
  write_bytes(path("g.f32"), bytes_of<float>(taps));
  const Result right = halo({"filter", path("x.wav"), path("z.wav"), "--mask", path("g.f32"), "-q"});
  ASSERT_EQ(right.exit_code, 0) << right.err;
  EXPECT_EQ(right.err, "");
}

TEST_F(MaskFormatHints, BinaryBytesOnStandardInputAreNotToldToBeRenamed) {
  write_bytes(path("h.bin"), bytes_of<double>({0.25, 0.5, 0.25}));
  const DirectorySnapshot before(dir.path());
  const Result piped =
      halo({"filter", path("x.wav"), path("y.wav"), "--mask", "-"}, in_directory(dir.path(), path("h.bin")));
  expect_one_line_failure(piped, 1,
                          "standard input: a binary file, not a text mask nor a sound file libsndfile reads (a raw "
                          "mask, little-endian float32, is read from a file named .f32)",
                          before, "--mask -");
  const Result named = halo({"filter", path("x.wav"), path("y.wav"), "--mask", path("h.bin")});
  expect_one_line_failure(named, 1, "(a raw mask must be little-endian float32, named .f32)", before, "h.bin");
}

// Taps below float32's normal range count as 0 in every engine (the README says so): a mask of
// nothing else is silence, and a mask with some loses them; both are said (taps of 1e-40 had
// given a silent file without a word, a QA pass).
TEST_F(MaskFormatHints, TapsThatCountAsZeroAreSaid) {
  write_bytes(path("silent.txt"), "1e-40\n2e-40\n1e-40\n");
  const Result silent = halo({"filter", path("x.wav"), path("y.wav"), "--mask", path("silent.txt"), "-q"});
  ASSERT_EQ(silent.exit_code, 0) << silent.err;
  EXPECT_EQ(silent.err, "halo: warning: " + path("silent.txt") +
                            ": every tap is 0 or below float32's normal range (1.2e-38), which counts as 0: the "
                            "output is silence\n");
  write_bytes(path("some.txt"), "1e-40\n0.5\n1e-40\n0\n");
  const Result some = halo({"filter", path("x.wav"), path("z.wav"), "--mask", path("some.txt"), "-q"});
  ASSERT_EQ(some.exit_code, 0) << some.err;
  EXPECT_EQ(some.err, "halo: warning: " + path("some.txt") +
                          ": 2 of 4 taps lie below float32's normal range (1.2e-38) and count as 0\n");
  write_bytes(path("plain.txt"), "0.25\n0.5\n0\n");
  const Result plain = halo({"filter", path("x.wav"), path("w.wav"), "--mask", path("plain.txt"), "-q"});
  EXPECT_EQ(plain.err, "");
}

}  // namespace
}  // namespace halo::test
