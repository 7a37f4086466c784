#pragma once
#include <cxxopts.hpp>
#include <initializer_list>
#include <string>

namespace halo::cli {

// The one way the command line reads a number. The whole text must be a decimal number:
// an optional sign, digits with an optional fraction, an optional exponent ("2e3"), and for
// the callers that allow it a `k` (×1000). Anything else — "6abc", "6 7", "0x10", "nan",
// "inf", "" — is refused with a UsageError naming the option: "--gain 6abc: not a number".

// A real value, no suffix: "--gain -6", "--attenuation 80".
double parse_real(const std::string& option, const std::string& text);

// A frequency in Hz: "1000", "1.5k", "2e3", and the suffixes "Hz", "k", "kHz" (any case).
double parse_hz(const std::string& option, const std::string& text);

// A sample rate in Hz, as parse_hz reads it, above 0 and up to 10 MHz (past any converter; the
// designs and libsamplerate take it): "--rate 2e7: give a sample rate above 0 Hz, up to 10 MHz".
double parse_rate_hz(const std::string& option, const std::string& text);

// A sample rate that is a whole number of Hz (a raw stream's, a device's), as parse_hz reads
// it ("48000", "48k", "48kHz", "44.1k"), in [min, max]: there the Hz and kHz every other
// frequency takes had been "not a whole number" (a QA pass).
long long parse_whole_rate_hz(const std::string& option, const std::string& text, long long min, long long max);

// A level in dB, with an optional `dB` suffix ("60", "60dB", "-3 dB" as one word: "-3dB"), as
// the frequencies take `Hz` and `k`: "--attenuation 60dB" had been "not a number".
double parse_db(const std::string& option, const std::string& text);

// A whole number in [min, max], with an optional `k`: "--taps 255", "--chunk 64k". Outside the
// range: "give MIN to MAX", or `out_of_range` where the caller words it.
long long parse_count(const std::string& option, const std::string& text, long long min, long long max,
                      const std::string& out_of_range = "");

// Refuses an option given more than once (`--lowpass 1k --lowpass 2k`: which one was meant?),
// except the flags named in `repeatable` (switches, positional lists).
void refuse_repeats(const cxxopts::ParseResult& parsed, std::initializer_list<const char*> repeatable);

// Refuses a switch given a value (`--tail=false`, `--tail=yes`, `-q=true`; `--tail=true` is the
// switch itself), read from the words before cxxopts reads them: cxxopts takes `--tail=false`
// and halo, which asks only whether a switch was given, had added the tail anyway (a QA pass);
// `--tail=yes` came back as cxxopts's "Argument 'yes' failed to parse" naming no option, and
// `-q=true` as "Option '=' does not exist" (a QA pass). Words after `--` are file names.
void refuse_switch_values(const cxxopts::Options& options, int argc, const char* const* argv);

// How every command reads its words: refuse_switch_values, then cxxopts. One call, so that a
// command cannot parse without the check (a review).
cxxopts::ParseResult parse_strictly(cxxopts::Options& options, int argc, const char* const* argv);

// Whether a whole word is a decimal number as these parsers read one (a sign, digits, a
// fraction, an exponent), with an optional `dB`, or a sign and inf/nan: a word that can only be
// a level, which `--norm` (whose level is optional) takes from the next word.
bool looks_like_level(const std::string& word);

// Refuses an option whose value is the next option (`--mask --lowpass 1k`, `--mask -q`):
// cxxopts takes that as the value, and the message had been about a third file name, or
// "-q: No such file" with exit 1.
void refuse_misplaced_values(const cxxopts::ParseResult& parsed);

// cxxopts's own refusal (an unknown option, a missing value) as one of halo's lines:
// "COMMAND: WHAT (see halo COMMAND --help)", with plain quotes.
std::string option_error(const std::string& command, const std::string& what);

}  // namespace halo::cli
