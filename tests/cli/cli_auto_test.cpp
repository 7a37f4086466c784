// `halo filter --engine auto` on a job it runs on the CPU never starts CUDA: under strace, the
// process opens no libcuda and no /dev/nvidia* (on the GPU machine too, where this binary has
// the CUDA engines and a GPU is listed: the job is far below the crossover). The output is
// the float64 reference's.
#include <gtest/gtest.h>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

TEST(CliAuto, AJobOnTheCpuNeverStartsCuda) {
  if (!file_exists("/usr/bin/strace")) GTEST_SKIP() << "strace is not installed";
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 48000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 9);
  const std::vector<float> mask = random_signal(255, 10, 2.0f / std::sqrt(255.0f));
  write_mask_text(dir / "mask.txt", {mask});
  const std::vector<std::string> command = {"/usr/bin/strace", "-f", "-qq", "-e", "trace=open,openat,openat2",
                                            "-o", dir / "trace", HALO_BINARY, "filter", dir / "in.wav",
                                            dir / "out.wav", "--mask", dir / "mask.txt", "--engine", "auto"};
  const Result result = run(command);
  if (result.exit_code != 0 && result.err.find("ptrace") != std::string::npos)
    GTEST_SKIP() << "strace cannot trace here: " << result.err;
  ASSERT_EQ(result.exit_code, 0) << describe(command, result);

  const std::string trace = read_bytes(dir / "trace");
  // The check can fail: strace saw the files halo opened.
  EXPECT_NE(trace.find(dir / "in.wav"), std::string::npos) << trace.substr(0, 2000);
  EXPECT_EQ(trace.find("libcuda"), std::string::npos) << "auto loaded the CUDA driver for a CPU job";
  EXPECT_EQ(trace.find("/dev/nvidia"), std::string::npos) << "auto opened a GPU device for a CPU job";
  EXPECT_NE(result.err.find("halo: engine cpu"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("takes over"), std::string::npos) << result.err;

  const Sound out = read_sound(dir / "out.wav");
  EXPECT_LE(relative_error(out.samples, expected_output(in.samples, 2, {mask}, Align::same, false)), 1e-6);
}

}  // namespace
}  // namespace halo::test
