#pragma once
#include <string>

#include "src/cli/mask_options.hpp"
#include "src/offline/filter_job.hpp"

namespace halo::cli {

// Everything `halo filter` was asked to do, read from its command line.
struct FilterArguments {
  bool help = false;       // --help: print help_text, do nothing else
  std::string help_text;
  std::string input;       // IN; "-" for stdin
  std::string output;      // OUT; "-" for stdout
  MaskSource source;       // the mask: designed (at the input's rate, later), --mask or --ir
  FilterOptions filter;    // engine, chunk, alignment, gain, subtype, container, dither, norm
  bool align_given = false;  // --align: else the alignment follows the masks (centred_by_default)
  bool block_given = false;  // --block: said where the engine run does not use it
  audio::RawInput raw;     // -t raw: IN's layout (rate, channels, encoding)
  bool quiet = false;
  bool timings = false;
};

// Parses `halo filter`'s arguments (argv[0] is the command name). Pure: opens no file, starts
// no engine, prints nothing; every mistake is a UsageError (exit 2) with one line of message.
// A fuzzer calls it directly.
FilterArguments parse_filter_arguments(int argc, char** argv);

}  // namespace halo::cli
