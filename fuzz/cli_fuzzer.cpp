// libFuzzer target: `halo filter`'s command-line parser (src/cli/filter_arguments.hpp). The input
// is split into arguments at NUL and newline bytes and handed to parse_filter_arguments after
// the command name. A mistake must be a UsageError (exit 2, one line); any other exception, a
// sanitizer report, or parsed values outside the ranges the parser enforces is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "src/cli/command.hpp"
#include "src/cli/filter_arguments.hpp"

using halo::fuzz::check;

// main.cpp's warning line on stderr, which mask_options.cpp links against (a mask file read for
// filtering may warn); the parser fuzzed here reads no mask file, so it never runs.
void halo::cli::notice(const std::string&) {}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> arguments =
      halo::fuzz::split_arguments("filter", reinterpret_cast<const char*>(data), size);
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);

  try {
    const halo::cli::FilterArguments parsed =
        halo::cli::parse_filter_arguments(static_cast<int>(arguments.size()), argv.data());
    if (parsed.help) return 0;
    const auto& stream = parsed.filter.stream;
    // --chunk: unset (the automatic block) or within the range the parser enforces.
    check(!stream.chunk_frames || (*stream.chunk_frames >= 1 && *stream.chunk_frames <= (std::size_t{1} << 24)));
    check(std::isfinite(stream.gain) && stream.gain > 0);
    const int block = parsed.filter.engine_options.block_threads;
    check(block >= 32 && block <= 1024 && block % 32 == 0);
  } catch (const halo::cli::UsageError&) {
    // the documented answer to a mistaken command line
  }
  return 0;
}
