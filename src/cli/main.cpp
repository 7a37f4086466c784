// halo: filter audio with FIR masks on the GPU. Commands are thin fronts over the library.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <cxxopts.hpp>
#include <exception>
#include <new>
#include <string>
#include <vector>
#include <unistd.h>

#include "audio/error.hpp"
#include "audio/standard_streams.hpp"
#include "audio/streamed_output.hpp"
#include "src/cli/command.hpp"
#include "src/cli/failure_report.hpp"
#include "src/cli/number_parser.hpp"
#include "src/engine/registry.hpp"
#include "src/cli/interrupt.hpp"

namespace halo::cli {

// As a mask file's tokens are quoted: a file named "a\nb" had split an error over two lines,
// and escapes reached the terminal (a QA pass). UTF-8 passes; C1 bytes are UTF-8's too.
std::string one_line(const std::string& text) {
  std::string shown;
  shown.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7F) {
      shown += c;
      continue;
    }
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
    shown += escaped;
  }
  return shown;
}

void notice(const std::string& line) { std::fprintf(stderr, "halo: %s\n", one_line(line).c_str()); }

void refuse_closed_report_output(const std::string& why) {
  if (halo::audio::closed_at_start(STDOUT_FILENO))
    throw std::runtime_error("standard output: closed when halo started (>&-), and " + why);
}

}  // namespace halo::cli

namespace {

constexpr const char* usage =
    "halo: filter audio with FIR masks on the GPU\n"
    "\n"
    "  halo filter IN OUT (--lowpass F | --highpass F | --bandpass LO:HI | --bandstop LO:HI | --bands SPEC |\n"
    "                     --mask FILE | --ir FILE)\n"
    "                     [--taps N | --transition HZ --attenuation DB] [--window W] [--engine E] [--chunk FRAMES]\n"
    "                     [--tail] [--subtype S] [--gain DB | --norm[=DB]] [--no-dither] [--quiet]\n"
    "                     [-t raw --rate HZ --channels N --encoding S]  (for a headerless IN)\n"
    "  halo design (mask options) [--rate HZ] [-o MASKFILE]\n"
    "  halo design ... [--format txt|f32|wav|json|h|camilladsp|eqapo|sox] [--plot FILE.svg [--plot-scale linear|log]]\n"
    "  halo info FILE [--json]\n"
    "  halo ir inspect FILE [--plot FILE.svg] [--json]\n"
    "  halo ir fix IN OUT [--trim-silence] [--remove-delay] [--normalize peak|energy|DB] [--rate HZ]\n"
    "                     [--minimum-phase] [--fade-out MS] [--format F]\n"
    "  halo devices                                      (every audio device PortAudio finds)\n"
    "  halo play FILE (mask options) [--mask A --mask B ...] [--device NAME|INDEX] [--frames N] [--engine E] [--loop]\n"
    "                [-t raw --rate HZ --channels N --encoding S]  (for a headerless FILE)\n"
    "  halo live (mask options) [--device D] [--input-device D] [--channels C] [--rate HZ] [--frames N] [--engine E]\n"
    "            (play and live: keys b bypass, n/p next/previous mask, +/- gain, q quit)\n"
    "  halo wisdom [--taps N[,N...]] [--patient] [--file PATH]  (measure the CPU engines' FFTs once; later runs use them)\n"
    "  halo --version | --help | COMMAND --help\n";

std::string version_line() {
  std::string engines;
  for (const auto& name : halo::engine_names()) engines += (engines.empty() ? "" : ", ") + name;
  return std::string("halo ") + HALO_VERSION + " (engines: " + engines + ")";
}

// cxxopts names the value that failed to parse ("Argument 'abc' failed to parse") but not the
// option it was given to: find that option on the command line so the message names it.
std::string option_with_value(int argc, char** argv, const std::string& message) {
  auto quoted = [&](const std::string& value) {
    return message.find("\u2018" + value + "\u2019") != std::string::npos ||
           message.find("'" + value + "'") != std::string::npos;
  };
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') continue;
    const auto equals = arg.find('=');
    if (equals != std::string::npos && quoted(arg.substr(equals + 1)))
      return arg.substr(0, equals) + " " + arg.substr(equals + 1);
    if (equals == std::string::npos && i + 1 < argc && quoted(argv[i + 1])) return arg + " " + argv[i + 1];
  }
  return "";
}

}  // namespace

// The command's exit code (main checks standard output after it).
static int run_command(int argc, char** argv) {
  if (argc < 2) {  // one line, as every command-line mistake (the whole help had gone to stderr, a QA pass)
    halo::cli::notice("give a command: filter, design, info, ir, devices, play, live or wisdom (halo --help describes them)");
    return 2;
  }
  std::string command = argv[1];
  // `halo help filter` (or --help filter) is `halo filter --help`, as git takes it; anything after
  // --version is refused: both had been taken without a word (a QA pass).
  std::vector<char*> with_help;
  if ((command == "--help" || command == "-h" || command == "help") && argc > 2) {
    static char help_flag[] = "--help";
    with_help = {argv[0], argv[2], help_flag};
    argc = 3;
    argv = with_help.data();
    command = argv[1];
  } else if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(usage, stdout);
    return 0;
  }
  if (command == "--version" || command == "-V") {
    if (argc > 2) {
      halo::cli::notice(command + " takes nothing after it: '" + argv[2] + "'");
      return 2;
    }
    std::printf("%s\n", version_line().c_str());
    return 0;
  }
  halo::cli::install_interrupt_handlers();
  try {
    if (command == "filter") return halo::cli::filter_command(argc - 1, argv + 1);
    if (command == "design") return halo::cli::design_command(argc - 1, argv + 1);
    if (command == "info") return halo::cli::info_command(argc - 1, argv + 1);
    if (command == "devices") return halo::cli::devices_command(argc - 1, argv + 1);
    if (command == "play") return halo::cli::play_command(argc - 1, argv + 1);
    if (command == "live") return halo::cli::live_command(argc - 1, argv + 1);
    if (command == "ir") return halo::cli::ir_command(argc - 1, argv + 1);
    if (command == "wisdom") return halo::cli::wisdom_command(argc - 1, argv + 1);
    halo::cli::notice("'" + command + "' is not a command (filter, design, info, ir, devices, play, live, wisdom; see halo --help)");
    return 2;
  } catch (const halo::cli::UsageError& error) {
    halo::cli::notice(error.what());
    return 2;
  } catch (const cxxopts::exceptions::incorrect_argument_type& error) {
    const std::string option = option_with_value(argc, argv, error.what());
    halo::cli::notice(option.empty() ? command + ": " + error.what() : option + ": not a valid value");
    return 2;
  } catch (const cxxopts::exceptions::exception& error) {
    const bool sub = command == "ir" && argc > 2 && (std::string(argv[2]) == "inspect" || std::string(argv[2]) == "fix");
    halo::cli::notice(halo::cli::option_error(sub ? command + " " + argv[2] : command, error.what()));
    return 2;
  } catch (...) {  // at run time: one place says it (failure_report.hpp)
    const halo::cli::FailureReport report = halo::cli::report_of(std::current_exception(), command);
    if (!halo::cli::claim_failure_report()) halo::cli::wait_for_exit();  // the grace path is saying it
    if (!report.line.empty()) halo::cli::notice(report.line);
    return report.exit_code;
  }
}

// Everything printed to standard output (help, design's coefficients, info's report) is checked
// here, once: a full disk or a closed pipe at the other end is an error, not a silent exit 0.
int main(int argc, char** argv) {
  halo::audio::guard_standard_streams();  // before anything is opened
  const int code = run_command(argc, argv);
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0 && !std::ferror(stdout);
  int reason = errno;  // 0 where the write failed earlier, inside a printf
  const long long lost = halo::audio::bytes_printed_to_closed_output();  // flushed, not yet closed
  errno = 0;
  if (std::fclose(stdout) == 0 && flushed) {
    if (lost > 0 && code == 0) {  // what the command printed (info's report, design's taps)
      halo::cli::notice("standard output: closed when halo started (>&-); the " + std::to_string(lost) +
                        " bytes printed there went nowhere");
      return 1;
    }
    return code;
  }
  if (reason == 0) reason = errno;
  // The first write that failed says why best (it fails inside stdio, and errno moves on).
  if (const int first = halo::audio::standard_output_error(); first != 0) reason = first;
  if (code != 0) return code;  // the command has said its one line already
  if (reason == EPIPE) return 128 + SIGPIPE;  // the reader went away (`| head`): quietly, as SIGPIPE would
  halo::cli::notice(std::string("standard output: write failed") + (reason != 0 ? ": " : "") +
                    (reason != 0 ? std::strerror(reason) : ""));
  return 1;
}
