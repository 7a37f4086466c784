#pragma once
#include <stdexcept>
#include <string>

namespace halo::cli {

// Each command parses its own arguments (argv[0] is the command name) and returns the exit
// code. Errors are thrown and reported by main() as one `halo: ...` line.
int filter_command(int argc, char** argv);
int design_command(int argc, char** argv);
int info_command(int argc, char** argv);
int devices_command(int argc, char** argv);  // src/cli/devices.cpp
int play_command(int argc, char** argv);     // src/cli/play.cpp
int live_command(int argc, char** argv);     // src/cli/live.cpp
int ir_command(int argc, char** argv);       // src/cli/ir.cpp: inspect, fix
int wisdom_command(int argc, char** argv);   // src/cli/wisdom.cpp: FFTW's measured plans

// `text` with its control characters written as \xNN (a newline or an escape sequence in a
// file name), so that it stays on its line and never drives the terminal. notice() applies it.
std::string one_line(const std::string& text);

// A mistake in how the command was called: main() exits with 2 instead of 1.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

// Prints one line to stderr as "halo: <line>".
void notice(const std::string& line);

// For a command that prints a report beside the files it writes (design -o, ir fix, ir inspect
// --plot): a standard output closed at the start (`>&-`) is refused before anything is written,
// so that the exit 1 main gives a report printed nowhere never follows a file already replaced
// (a QA pass). `why` ends the line: what the command prints there, and how to do without it.
void refuse_closed_report_output(const std::string& why);

}  // namespace halo::cli
