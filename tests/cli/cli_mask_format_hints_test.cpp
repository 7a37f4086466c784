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

}  // namespace
}  // namespace halo::test
