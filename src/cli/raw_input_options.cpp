#include "src/cli/raw_input_options.hpp"

#include <sndfile.h>

#include <cctype>
#include <string>

#include "audio/error.hpp"
#include "audio/format.hpp"
#include "src/cli/command.hpp"
#include "src/cli/number_parser.hpp"

namespace halo::cli {

void add_raw_input_options(cxxopts::Options& options, const char* input_name) {
  const std::string in = input_name;
  options.add_options("Raw input")
      ("t,input-type", "raw: " + in + " has no header; give its --rate, --channels and --encoding",
       cxxopts::value<std::string>(), "raw")
      ("rate", "raw " + in + "'s sample rate in Hz", cxxopts::value<std::string>(), "HZ")
      ("channels", "raw " + in + "'s channels, interleaved", cxxopts::value<std::string>(), "N")
      ("encoding", "raw " + in + "'s samples, little-endian: pcm8|pcmu8|pcm16|pcm24|pcm32|float|double|ulaw|alaw",
       cxxopts::value<std::string>(), "S");
}

audio::RawInput parse_raw_input(const cxxopts::ParseResult& parsed) {
  audio::RawInput raw;
  if (!parsed.count("input-type")) {
    for (const char* name : {"rate", "channels", "encoding"})
      if (parsed.count(name)) throw UsageError("--" + std::string(name) + " describes a raw input: give -t raw with it");
    return raw;
  }
  const std::string type = parsed["input-type"].as<std::string>();
  // Any case, as --encoding takes PCM16 (-t RAW had been refused, a QA pass).
  if (audio::lower(type) != "raw") throw UsageError("-t " + type + ": only raw (a headerless input); other inputs say what they are");
  for (const char* name : {"rate", "channels", "encoding"})
    if (!parsed.count(name)) throw UsageError("-t raw needs --rate, --channels and --encoding (--" + std::string(name) + " is missing)");
  raw.rate_hz = static_cast<int>(parse_whole_rate_hz("--rate", parsed["rate"].as<std::string>(), 1, static_cast<long long>(audio::max_rate_hz)));
  raw.channels = static_cast<int>(parse_count("--channels", parsed["channels"].as<std::string>(), 1, 1024));
  const std::string encoding = parsed["encoding"].as<std::string>();
  try {
    raw.subtype = audio::parse_subtype(encoding);
  } catch (const audio::Error&) {
    raw.subtype = 0;
  }
  if (raw.subtype == 0 || !(audio::sample_scale(raw.subtype).integer || raw.subtype == SF_FORMAT_FLOAT ||
                            raw.subtype == SF_FORMAT_DOUBLE || raw.subtype == SF_FORMAT_ULAW ||
                            raw.subtype == SF_FORMAT_ALAW))
    throw UsageError("--encoding " + encoding + ": give pcm8, pcmu8, pcm16, pcm24, pcm32, float, double, ulaw or alaw");
  return raw;
}

}  // namespace halo::cli
