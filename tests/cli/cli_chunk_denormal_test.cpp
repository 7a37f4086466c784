// Issue 13, item 11: `--chunk 1` costs no system call per chunk (files are read and written in
// I/O chunks of 65536 frames or more; the engine runs in blocks of --chunk), and denormals are
// flushed to zero in every engine. No timing: the output of --chunk 1 equals that of --chunk
// 65536 bit for bit, strace counts the read/write calls, and denormal input gives exactly the
// output of its flushed version, zero.
#include <gtest/gtest.h>

#include <sndfile.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

const std::vector<std::string> engines = {"cpu", "cpu-fft"};

TEST(TinyChunks, ChunkOneEqualsALargeChunkBitForBit) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(48000 * 2, 51, 0.4f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  for (const std::string& engine : engines) {
    for (const std::string chunk : {"1", "65536"}) {
      const Result result = halo({"filter", dir / "in.wav", dir / ("out-" + engine + "-" + chunk + ".wav"), "--lowpass",
                                  "3k", "--taps", "63", "--engine", engine, "--chunk", chunk, "-q"});
      ASSERT_EQ(result.exit_code, 0) << result.err;
    }
    EXPECT_EQ(read_bytes(dir / ("out-" + engine + "-1.wav")), read_bytes(dir / ("out-" + engine + "-65536.wav")))
        << engine;
  }
}

// read(2) + write(2) calls of a whole run, counted by strace -c -f.
long io_calls(const TempDir& dir, const std::string& chunk) {
  const std::string summary = dir / ("strace-" + chunk + ".txt");
  const Result result = run({"/usr/bin/strace", "-f", "-c", "-e", "trace=read,write", "-o", summary, HALO_BINARY,
                             "filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.f32", "--engine", "cpu",
                             "--chunk", chunk, "-q"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::istringstream lines(read_bytes(summary));
  long calls = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::vector<std::string> words;
    for (std::string word; fields >> word;) words.push_back(word);
    if (words.size() >= 5 && (words.back() == "read" || words.back() == "write")) calls += std::stol(words[3]);
  }
  return calls;
}

TEST(TinyChunks, ChunkOneMakesNoMoreSystemCallsThanChunk4096) {
  if (access("/usr/bin/strace", X_OK) != 0) GTEST_SKIP() << "strace is not installed (apt-get install strace)";
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(10 * 48000 * 2, 52, 0.4f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  write_f32(dir / "mask.f32", {0.25f, 0.5f, 0.25f});
  const long one = io_calls(dir, "1");
  const long large = io_calls(dir, "4096");
  ASSERT_GT(large, 0);
  EXPECT_LE(one, 2 * large) << "--chunk 1: " << one << " read/write calls; --chunk 4096: " << large;
}

// Every input sample is denormal: read as zero (DAZ), the output is exactly zero on every
// engine; without the flush the direct engine writes denormals (and runs 2.5x slower).
TEST(Denormals, DenormalInputGivesTheFlushedOutputOnEveryEngine) {
  TempDir dir;
  std::vector<float> x = random_signal(48000, 53, 1.0f);
  for (float& v : x) v *= FLT_MIN / 4;  // |v| < FLT_MIN: denormal, never zero
  ASSERT_EQ(std::fpclassify(x[0]), FP_SUBNORMAL);
  write_sound(dir / "in.wav", x, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  ASSERT_EQ(std::fpclassify(read_sound(dir / "in.wav").samples[0]), FP_SUBNORMAL);
  write_f32(dir / "mask.f32", random_signal(31, 54, 0.5f));
  for (const std::string& engine : engines) {
    const std::string out = dir / ("out-" + engine + ".wav");
    const Result result =
        halo({"filter", dir / "in.wav", out, "--mask", dir / "mask.f32", "--engine", engine, "-q"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const Sound sound = read_sound(out);
    ASSERT_EQ(sound.samples.size(), x.size());
    std::size_t nonzero = 0;
    for (float v : sound.samples) nonzero += v != 0.0f;
    EXPECT_EQ(nonzero, 0u) << engine << ": the flushed input is all zeros, and so is its output";
  }
}

}  // namespace
}  // namespace halo::test
