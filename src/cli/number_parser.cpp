#include "src/cli/number_parser.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <typeinfo>

#include "audio/format.hpp"
#include "src/cli/command.hpp"

namespace halo::cli {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The length of the decimal number at the start of `text` (sign, digits, fraction, exponent),
// or 0 when it does not start with one.
std::size_t decimal_prefix(const std::string& text) {
  std::size_t at = 0;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
  std::size_t digits = 0;
  while (at < text.size() && is_digit(text[at])) ++at, ++digits;
  if (at < text.size() && text[at] == '.') {
    ++at;
    while (at < text.size() && is_digit(text[at])) ++at, ++digits;
  }
  if (digits == 0) return 0;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    std::size_t exponent = at + 1;
    if (exponent < text.size() && (text[exponent] == '+' || text[exponent] == '-')) ++exponent;
    std::size_t exponent_digits = 0;
    while (exponent < text.size() && is_digit(text[exponent])) ++exponent, ++exponent_digits;
    if (exponent_digits > 0) at = exponent;  // "2e" leaves an "e" to be refused as a suffix
  }
  return at;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The value of `text`, a decimal number followed by one of `suffixes` (lower case, with the
// multiplier each stands for); "" (no suffix) is always allowed.
double parse_with(const std::string& option, const std::string& text, const char* what,
                  std::initializer_list<std::pair<const char*, double>> suffixes) {
  const std::size_t length = decimal_prefix(text);
  if (length == 0) throw UsageError(option + " " + text + ": not " + what);
  double scale = 0;
  const std::string suffix = lower(text.substr(length));
  if (suffix.empty()) scale = 1;
  for (const auto& [name, multiplier] : suffixes)
    if (suffix == name) scale = multiplier;
  if (scale == 0) throw UsageError(option + " " + text + ": not " + what);
  const double value = std::strtod(text.substr(0, length).c_str(), nullptr) * scale;
  if (!std::isfinite(value)) throw UsageError(option + " " + text + ": out of range");
  return value;
}

}  // namespace

double parse_real(const std::string& option, const std::string& text) {
  return parse_with(option, text, "a number", {});
}

double parse_db(const std::string& option, const std::string& text) {
  return parse_with(option, text, "a level in dB", {{"db", 1.0}});
}

double parse_hz(const std::string& option, const std::string& text) {
  return parse_with(option, text, "a frequency", {{"hz", 1.0}, {"k", 1000.0}, {"khz", 1000.0}});
}

double parse_rate_hz(const std::string& option, const std::string& text) {
  const double hz = parse_hz(option, text);
  if (!(hz > 0) || hz > audio::max_rate_hz) throw UsageError(option + " " + text + ": give a sample rate above 0 Hz, up to 10 MHz");
  return hz;
}

long long parse_whole_rate_hz(const std::string& option, const std::string& text, long long min, long long max) {
  const double hz = parse_with(option, text, "a sample rate in Hz", {{"hz", 1.0}, {"k", 1000.0}, {"khz", 1000.0}});
  if (hz != std::floor(hz)) throw UsageError(option + " " + text + ": not a whole number of Hz");
  if (hz < static_cast<double>(min) || hz > static_cast<double>(max))
    throw UsageError(option + " " + text + ": give " + std::to_string(min) + " to " + std::to_string(max) + " Hz");
  return static_cast<long long>(hz);
}

long long parse_count(const std::string& option, const std::string& text, long long min, long long max,
                      const std::string& out_of_range) {
  const double value = parse_with(option, text, "a whole number", {{"k", 1000.0}});
  if (value != std::floor(value)) throw UsageError(option + " " + text + ": not a whole number");
  if (value < static_cast<double>(min) || value > static_cast<double>(max))
    throw UsageError(option + " " + text + ": " +
                     (out_of_range.empty() ? "give " + std::to_string(min) + " to " + std::to_string(max) : out_of_range));
  return static_cast<long long>(value);
}

void refuse_repeats(const cxxopts::ParseResult& parsed, std::initializer_list<const char*> repeatable) {
  const std::set<std::string> allowed(repeatable.begin(), repeatable.end());
  for (const auto& argument : parsed.arguments())
    if (!allowed.count(argument.key()) && parsed.count(argument.key()) > 1)
      throw UsageError("--" + argument.key() + " is given " + std::to_string(parsed.count(argument.key())) +
                       " times: give it once");
}

void refuse_switch_values(const cxxopts::Options& options, int argc, const char* const* argv) {
  // "--tail", "-q"; and the options whose value is the next word ("--ir", "-o"): that word is a
  // value, not a switch (`--ir -q=ir.wav`, a file, had been refused as -q given a value, a QA pass).
  std::set<std::string> switches, valued;
  for (const std::string& group : options.groups())
    for (const cxxopts::HelpOptionDetails& option : options.group_help(group).options) {
      std::set<std::string>& kind = option.is_boolean ? switches : valued;
      if (!option.is_boolean && option.has_implicit) continue;  // `--norm` alone: the next word may be an option
      for (const std::string& name : option.l) kind.insert("--" + name);
      if (!option.s.empty()) kind.insert("-" + option.s);
    }
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") return;
    if (valued.count(word)) {
      ++i;
      continue;
    }
    const std::size_t equals = word.find('=');
    // `-o=lp.txt`: a short option's value is the rest of the word, "=lp.txt", which had been
    // written as a file of that name (a QA pass). --output=lp.txt or -o lp.txt.
    if (equals == 2 && word[0] == '-' && valued.count(word.substr(0, 2)))
      throw UsageError(word + ": a short option takes its value after a space (" + word.substr(0, 2) + " " +
                       word.substr(3) + ")");
    if (equals == std::string::npos || !switches.count(word.substr(0, equals))) continue;
    const std::string name = word.substr(0, equals);
    if (name.size() > 2 && word.substr(equals + 1) == "true") continue;  // `--tail=true`: the switch itself
    throw UsageError(word + ": " + name + " is a switch and takes no value; leave it out to turn it off");
  }
}

cxxopts::ParseResult parse_strictly(cxxopts::Options& options, int argc, const char* const* argv) {
  refuse_switch_values(options, argc, argv);
  return options.parse(argc, argv);
}

bool looks_like_level(const std::string& word) {
  std::string number = word;
  if (number.size() > 2 && lower(number.substr(number.size() - 2)) == "db") number.resize(number.size() - 2);
  const std::string unsigned_part = lower(!number.empty() && (number[0] == '-' || number[0] == '+') ? number.substr(1) : number);
  if (unsigned_part == "inf" || unsigned_part == "infinity" || unsigned_part == "nan") return true;
  return !number.empty() && decimal_prefix(number) == number.size();
}

void refuse_misplaced_values(const cxxopts::ParseResult& parsed) {
  for (const auto& argument : parsed.arguments()) {
    bool is_switch = true;
    try {
      (void)parsed[argument.key()].as<bool>();  // a switch's value is a bool; any other option's is not
    } catch (const std::bad_cast&) {
      is_switch = false;
    }
    // "--word..." or "-x" (a letter): an option, not a value; "-3", "-1.5k" and "-" are values.
    const std::string& value = argument.value();
    const bool long_option = value.size() > 2 && value.compare(0, 2, "--") == 0 && std::isalpha(static_cast<unsigned char>(value[2]));
    const bool short_option = value.size() == 2 && value[0] == '-' && std::isalpha(static_cast<unsigned char>(value[1]));
    const bool positional = argument.key() == "files";  // every command's file names: `--` then a name
    if (!is_switch && !positional && (long_option || short_option))
      throw UsageError("--" + argument.key() + " needs a value: '" + value + "' after it is an option");
  }
}

std::string option_error(const std::string& command, const std::string& what) {
  // Plain quotes (cxxopts's are typographic, unlike every other message) and the command named
  // with its help: "ir: Option ‘in-rate’ does not exist" had not said which of ir's commands.
  std::string text = what;
  for (const std::string quote : {"\u2018", "\u2019"})
    for (auto at = text.find(quote); at != std::string::npos; at = text.find(quote)) text.replace(at, quote.size(), "'");
  // And in halo's words, the option as it is typed: cxxopts's "Option 'lowpas' does not exist"
  // had stood beside halo's own "--lowpass needs a value" (a QA pass).
  const auto quoted = [&text](const std::string& before, const std::string& after) -> std::string {
    if (text.rfind(before, 0) != 0 || text.size() < before.size() + after.size() ||
        text.compare(text.size() - after.size(), after.size(), after) != 0)
      return {};
    return text.substr(before.size(), text.size() - before.size() - after.size());
  };
  const auto typed = [](const std::string& name) { return (name.size() == 1 ? "-" : "--") + name; };
  if (const std::string name = quoted("Option '", "' does not exist"); !name.empty())
    text = "unknown option " + typed(name);
  else if (const std::string name = quoted("Option '", "' is missing an argument"); !name.empty())
    text = typed(name) + " needs a value";
  else if (const std::string word = quoted("Argument '", "' starts with a - but has incorrect syntax"); !word.empty())
    text = "'" + word + "' is no option (options are -x or --name)";
  return command + ": " + text + " (see halo " + command + " --help)";
}

}  // namespace halo::cli
