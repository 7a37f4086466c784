#pragma once
// What the fuzz targets share: the checks beyond the sanitizers (a broken promise aborts, which
// libFuzzer reports as a crash and keeps the input), and how bytes become a command line
// (tests/audio/fuzz_regression_test.cpp replays kept inputs with the same split).
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace halo::fuzz {

inline void check(bool promise) {
  if (!promise) std::abort();
}

// halo reports an error as one `halo: <message>` line: a message that spans lines or carries
// control characters (a file's raw bytes echoed to the terminal) breaks that.
inline void check_one_clean_line(const std::exception& error) {
  const std::string message = error.what();
  check(!message.empty());
  for (unsigned char c : message) check(c >= 0x20 && c != 0x7f);
}

// `command`, then the arguments: `bytes` split at NUL and newline bytes.
inline std::vector<std::string> split_arguments(const std::string& command, const char* bytes, std::size_t size) {
  std::vector<std::string> arguments{command};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (bytes[i] == '\0' || bytes[i] == '\n') {
      arguments.push_back(current);
      current.clear();
    } else {
      current += bytes[i];
    }
  }
  if (!current.empty()) arguments.push_back(current);
  return arguments;
}

}  // namespace halo::fuzz
