#pragma once
// Helpers for the issue-13 hardening tests of truncated input, non-finite samples, signals,
// memory, chunking/denormals and messages (cli_truncated_input_test.cpp, ...): expectations
// on a failed run, a child process run under a memory limit, a numpy check.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {

// The failure contract: non-zero exit `code`, exactly one line on stderr, a `halo:` line that
// contains `words`, and nothing new in the directory.
inline void expect_one_line_failure(const Result& result, int code, const std::string& words,
                                    const DirectorySnapshot& directory, const std::string& context) {
  EXPECT_EQ(result.exit_code, code) << context << "\n" << result.err;
  const auto lines = lines_of(result.err);
  ASSERT_EQ(lines.size(), 1u) << context << "\n" << result.err;
  EXPECT_EQ(lines[0].rfind("halo: ", 0), 0u) << context << "\n" << result.err;
  EXPECT_NE(lines[0].find(words), std::string::npos) << context << ": expected \"" << words << "\" in\n" << result.err;
  EXPECT_TRUE(directory.added().empty()) << context << ": left " << joined(directory.added());
}

// `halo ARGS` with its address space limited to `limit_mib` (ulimit -v): a run that would need
// gigabytes fails there instead of taking the test machine's memory.
inline Result halo_limited(long limit_mib, const std::vector<std::string>& args, const RunOptions& options = {}) {
  std::string command = "ulimit -v " + std::to_string(limit_mib * 1024) + " && exec \"$0\" \"$@\"";
  std::vector<std::string> all = {"/bin/sh", "-c", command, HALO_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  return run(all, options);
}

inline bool has_python_numpy() {
  return run({"/usr/bin/python3", "-c", "import numpy, scipy"}).exit_code == 0;
}

// Runs a python3 script (numpy, scipy) in `cwd`; its stdout comes back.
inline Result python(const std::string& cwd, const std::string& script) {
  RunOptions options;
  options.cwd = cwd;
  return run({"/usr/bin/python3", "-c", script}, options);
}

}  // namespace halo::test
