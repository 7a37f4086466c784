// Issue 13, item 10: memory stays flat whatever the channel count and --chunk: the chunk in
// frames shrinks as channels grow so that buffers stay within the stated budget (2^20 samples
// a buffer). Each run is made under a 2 GiB address-space limit, so a build that sizes its
// buffers by chunk x channels (7.4 GB for 100 frames of 1024 channels) fails here rather than
// taking the machine's memory. Running out of memory is a sentence, not "std::bad_alloc".
#include <gtest/gtest.h>

#include <sndfile.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

constexpr long limit_mib = 2048;
constexpr long flat_rss_kb = 256 * 1024;

TEST(Memory, ManyChannelsStayWithinTheBudget) {
  TempDir dir;
  constexpr int channels = 1024;
  constexpr std::size_t frames = 100;
  const std::vector<float> x = random_signal(frames * channels, 41, 0.4f);
  write_sound(dir / "in.wav", x, channels, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const std::vector<float> taps = random_signal(63, 42, 0.1f);
  write_f32(dir / "mask.f32", taps);
  const std::vector<std::string> args = {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.f32", "-q"};
  const Result result = halo_limited(limit_mib, args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_LT(result.max_rss_kb, flat_rss_kb);
  const Sound out = read_sound(dir / "out.wav");
  EXPECT_LE(relative_error(out.samples, expected_output(x, channels, {taps}, Align::same, false)), 1e-6);
}

// Integer output converts a chunk in pieces of 2^20 samples at most: its doubles and ints had
// held a whole chunk, 96 MB more than float output for 1024 channels (a QA pass). The bytes are
// those of one conversion (the dither follows each sample's frame, whatever the pieces).
TEST(Memory, IntegerOutputOfManyChannelsNeedsLittleMoreThanFloat) {
  TempDir dir;
  constexpr int channels = 1024;
  constexpr std::size_t frames = 16384;
  write_sound(dir / "in.wav", random_signal(frames * channels, 48, 0.4f), channels, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const std::vector<float> taps = random_signal(255, 49, 0.01f);
  write_f32(dir / "mask.f32", taps);
  const auto run_to = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"filter", dir / "in.wav", dir / out, "--mask", dir / "mask.f32", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return halo_limited(limit_mib, args);
  };
  const Result as_float = run_to("float.wav", {});
  const Result as_pcm16 = run_to("pcm16.wav", {"--subtype", "pcm16"});
  const Result in_small_chunks = run_to("small.wav", {"--subtype", "pcm16", "--chunk", "7"});
  ASSERT_EQ(as_float.exit_code, 0) << as_float.err;
  ASSERT_EQ(as_pcm16.exit_code, 0) << as_pcm16.err;
  ASSERT_EQ(in_small_chunks.exit_code, 0) << in_small_chunks.err;
  EXPECT_LT(as_pcm16.max_rss_kb, as_float.max_rss_kb + 32 * 1024) << "float " << as_float.max_rss_kb << " kB";
  EXPECT_TRUE(read_bytes(dir / "pcm16.wav") == read_bytes(dir / "small.wav")) << "the pieces changed a sample";
}

TEST(Memory, AHugeChunkStaysWithinTheBudget) {
  TempDir dir;
  const std::vector<float> x = random_signal(3 * 48000 * 2, 43, 0.4f);
  write_sound(dir / "in.wav", x, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const std::vector<std::string> args = {"filter", dir / "in.wav", dir / "out.wav", "--lowpass", "2k", "--chunk",
                                         "16777216", "-q"};
  const Result result = halo_limited(limit_mib, args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_LT(result.max_rss_kb, flat_rss_kb);
  EXPECT_EQ(read_sound(dir / "out.wav").frames, 3 * 48000);
}

// cpu-fft's automatic block grows to feed its threads: at 16383 taps a hop is 45058 frames, and
// 16 threads on stereo want 8 hops a call (360464 frames, past the default 262144). The output
// equals --chunk 777's bit for bit, matches a plain float64 sum at samples in every block, and
// the run stays within the parallel budget (32 MiB a buffer).
TEST(Memory, CpuFftsLongerBlocksForItsThreadsChangeNoBitAndStayFlat) {
  TempDir dir;
  constexpr int channels = 2;
  constexpr std::size_t frames = 800001;
  const std::vector<float> x = random_signal(frames * channels, 46, 0.4f);
  write_sound(dir / "in.wav", x, channels, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const std::vector<float> taps = random_signal(16383, 47, 0.01f);
  write_f32(dir / "mask.f32", taps);
  for (const std::string chunk : {"", "777"}) {
    std::vector<std::string> args = {"filter", dir / "in.wav", dir / ("out" + chunk + ".wav"), "--mask",
                                     dir / "mask.f32", "--engine", "cpu-fft", "--threads", "16", "-q"};
    if (!chunk.empty()) args.insert(args.end(), {"--chunk", chunk});
    const Result result = halo_limited(limit_mib, args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_LT(result.max_rss_kb, 2 * flat_rss_kb) << "--chunk '" << chunk << "'";
  }
  EXPECT_EQ(read_bytes(dir / "out.wav"), read_bytes(dir / "out777.wav"));
  const Sound out = read_sound(dir / "out.wav");
  ASSERT_EQ(out.frames, frames);
  // Output frame n is y[n + (M-1)/2] (centred), at 101 frames spread over the file.
  double error = 0, norm = 0;
  for (std::size_t i = 0; i <= 100; ++i)
    for (int c = 0; c < channels; ++c) {
      const std::size_t n = i * (frames - 1) / 100;
      const double y = reference_frames(x, channels, c, taps, n + (taps.size() - 1) / 2, 1)[0];
      const double d = out.samples[n * channels + c] - y;
      error += d * d;
      norm += y * y;
    }
  EXPECT_LE(std::sqrt(error / norm), 1e-5);
}

// A 2^23-tap mask (a 32 MiB file) needs its bytes, its taps and the engine's copies: under a
// 100 MiB address-space limit (above what halo needs to start) reading it fails
// (std::bad_alloc inside), and that is a sentence.
TEST(Memory, OutOfMemoryIsASentence) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4800, 44, 0.4f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_f32(dir / "long.f32", random_signal(std::size_t{1} << 23, 45, 1e-4f));
  const DirectorySnapshot before(dir.path());
  const std::vector<std::string> args = {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "long.f32"};
  // The limit counts address space, and a CUDA build maps libcufft (hundreds of MiB) before
  // main: 100 MiB above what `halo --version` needs to start on this build.
  long start_mib = 0;
  for (long mib = 50; mib <= 8192 && start_mib == 0; mib += mib / 4)
    if (halo_limited(mib, {"--version"}).exit_code == 0) start_mib = mib;
  ASSERT_GT(start_mib, 0) << "halo --version did not start under 8 GiB of address space";
  const Result result = halo_limited(start_mib + 100, args);
  expect_one_line_failure(result, 1, "out of memory", before, result.err);
  EXPECT_EQ(result.err.find("bad_alloc"), std::string::npos) << result.err;
  // And it names what needs less: for a long mask, cpu-partitioned, which cpu-fft's transform
  // of 7.5 times the mask's length dwarfs (at 2^24 taps about 4 GB a channel against 0.5 GB; the
  // advice had named only --chunk, which changes nothing there, a QA pass). With the room
  // cpu-fft's transform of 2^23 taps does not get, cpu-partitioned filters this mask.
  EXPECT_NE(result.err.find("cpu-partitioned"), std::string::npos) << result.err;
  const Result fits = halo_limited(start_mib + 700, {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "long.f32",
                                                     "--engine", "cpu-partitioned", "-q"});
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  const Result fft = halo_limited(start_mib + 700, {"filter", dir / "in.wav", dir / "fft.wav", "--mask", dir / "long.f32",
                                                    "--engine", "cpu-fft", "-q"});
  EXPECT_EQ(fft.exit_code, 1) << fft.err;
  EXPECT_NE(fft.err.find("cpu-partitioned"), std::string::npos) << fft.err;
}

}  // namespace
}  // namespace halo::test
