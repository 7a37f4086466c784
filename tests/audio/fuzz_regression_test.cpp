// Inputs that broke a promise the fuzzers (fuzz/) check, kept so that each stays fixed:
// tests/data/fuzz_regressions/<target>/<input>, where <target> names the fuzz target whose
// entry point the input goes through again here (fuzz/run.sh also replays them under ASan and
// UBSan). A bad input must end in a clean halo error, never a crash or another exception:
//   mask_file: audio::parse_mask as text, .f32 and sound, and read_mask on a real file of each
//              extension; an audio::Error whose message is one line without control characters;
//   reader:    audio::Reader over a real file, read to the end in chunks; the same;
//   cli:       `halo filter ARGS` (the input split into ARGS at NUL and newline bytes), run as a
//              process: a normal exit, and on failure exactly one `halo:` line on stderr (it may
//              quote the arguments as given).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "audio/error.hpp"
#include "audio/mask_file.hpp"
#include "audio/reader.hpp"
#include "support/temp_dir.hpp"
#include "../../fuzz/fuzz_support.hpp"  // the split the cli fuzzer makes, so a kept input means the same

extern char** environ;

namespace halo::audio {
namespace {

namespace fs = std::filesystem;

const fs::path regressions = fs::path(HALO_TEST_DATA) / "fuzz_regressions";

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The inputs kept for one target, by path.
std::vector<fs::path> inputs_of(const std::string& target) {
  std::vector<fs::path> inputs;
  std::error_code missing;
  for (const auto& entry : fs::directory_iterator(regressions / target, missing))
    if (entry.is_regular_file()) inputs.push_back(entry.path());
  return inputs;
}

// A message halo prints as `halo: <message>` must keep that one line: no newline, no control
// character (an input's raw bytes echoed to the terminal).
::testing::AssertionResult one_clean_line(const std::string& message) {
  if (message.empty()) return ::testing::AssertionFailure() << "empty message";
  for (unsigned char c : message)
    if (c < 0x20 || c == 0x7f)
      return ::testing::AssertionFailure() << "control byte 0x" << std::hex << int{c} << " in: " << message;
  return ::testing::AssertionSuccess();
}

void expect_masks_or_clean_error(const std::function<filters::MaskSet()>& parse, const std::string& where) {
  try {
    const filters::MaskSet masks = parse();
    ASSERT_FALSE(masks.empty()) << where;
    for (const auto& mask : masks) {
      EXPECT_EQ(mask.taps.size(), masks.front().taps.size()) << where;
      EXPECT_FALSE(mask.taps.empty()) << where;
      for (float tap : mask.taps) EXPECT_TRUE(std::isfinite(tap)) << where;
    }
  } catch (const Error& error) {
    EXPECT_TRUE(one_clean_line(error.what())) << where;
  } catch (const std::exception& error) {
    ADD_FAILURE() << where << ": not an audio::Error: " << error.what();
  }
}

class FuzzRegression : public ::testing::Test {
 protected:
  test::TempDir dir_;
};

TEST_F(FuzzRegression, InputsAreKept) {
  // The folder is the record of what the fuzzers found; losing it silently would pass every test.
  EXPECT_FALSE(inputs_of("mask_file").empty()) << regressions;
}

TEST_F(FuzzRegression, MaskFileInputsGiveMasksOrOneCleanLine) {
  for (const fs::path& input : inputs_of("mask_file")) {
    const std::string bytes = bytes_of(input);
    for (const std::string extension : {".txt", ".f32", ".wav", ".json", ".h"}) {
      const std::string name = input.filename().string() + extension;
      expect_masks_or_clean_error([&] { return parse_mask(name, bytes); }, "parse_mask " + name);
      const fs::path file = dir_ / name;
      write_file(file, bytes);
      expect_masks_or_clean_error([&] { return read_mask(file.string()); }, "read_mask " + file.string());
    }
  }
}

TEST_F(FuzzRegression, ReaderInputsReadToTheEndOrOneCleanLine) {
  for (const fs::path& input : inputs_of("reader")) {
    const fs::path file = dir_ / input.filename().string();
    write_file(file, bytes_of(input));
    try {
      Reader reader(file.string());
      ASSERT_GE(reader.format().channels, 1) << input;
      std::vector<float> chunk(4096 * static_cast<std::size_t>(reader.format().channels));
      while (reader.read(chunk.data(), 4096) > 0) {
      }
    } catch (const Error& error) {
      EXPECT_TRUE(one_clean_line(error.what())) << input;
    } catch (const std::exception& error) {
      ADD_FAILURE() << input << ": not an audio::Error: " << error.what();
    }
  }
}

TEST_F(FuzzRegression, CommandLineInputsExitWithOneLine) {
  for (const fs::path& input : inputs_of("cli")) {
    const std::string bytes = bytes_of(input);
    std::vector<std::string> arguments = fuzz::split_arguments("filter", bytes.data(), bytes.size());
    arguments.insert(arguments.begin(), HALO_BINARY);
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);

    // Run in the temporary folder (whatever OUT it names lands there), stdin empty, stderr kept.
    const fs::path err = dir_ / "stderr";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addchdir_np(&actions, dir_.path().c_str());
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, HALO_BINARY, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(spawned, 0) << "cannot run " << HALO_BINARY;
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << input << ": killed by signal " << WTERMSIG(status);
    if (WEXITSTATUS(status) == 0) continue;
    const std::string said = bytes_of(err);
    EXPECT_TRUE(said.size() > 7 && said.rfind("halo: ", 0) == 0 && said.find('\n') == said.size() - 1)
        << input << ": " << said;
  }
}

}  // namespace
}  // namespace halo::audio
