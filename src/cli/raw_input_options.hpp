#pragma once
#include <cxxopts.hpp>

#include "audio/format.hpp"

namespace halo::cli {

// A headerless input: `-t raw --rate HZ --channels N --encoding S`, for filter's IN and play's
// FILE alike (a pipe from a program that writes bare samples).
void add_raw_input_options(cxxopts::Options& options, const char* input_name);

// -t raw and the layout it needs; nothing (subtype 0) without -t. Every mistake is a
// UsageError: --rate/--channels/--encoding without -t raw, one of them missing, an encoding
// libsndfile does not read raw.
audio::RawInput parse_raw_input(const cxxopts::ParseResult& parsed);

}  // namespace halo::cli
