#pragma once
#include <cxxopts.hpp>
#include <functional>
#include <string>
#include <vector>

#include "src/cli/mask_options.hpp"
#include "src/realtime/session.hpp"

namespace halo::cli {

// The options `play` and `live` share beyond the mask options: the device, the period, the
// engine; and the list of masks (`--mask` may be given several times: n/p switch).
void add_realtime_options(cxxopts::Options& options, bool live);

struct RealtimeArguments {
  std::vector<MaskSource> masks;   // one source, or one per --mask
  realtime::SessionOptions session;
  bool quiet = false;
};

// Throws UsageError (exit 2) for every mistake in the command line.
RealtimeArguments parse_realtime_arguments(const cxxopts::ParseResult& parsed, bool live);
// Parses play's or live's command line; false after printing --help (the command returns 0).
bool parse_realtime_command(cxxopts::Options& options, int argc, char** argv, bool live, RealtimeArguments& arguments);

// Makes mask `index` at a rate: designed, or read and validated from its file.
realtime::MaskEntry make_mask_entry(const MaskSource& source);
realtime::MaskSource mask_source_for(const std::vector<MaskSource>& masks);

// The summary both commands print: one `halo:` line per item.
void print_session_report(const realtime::SessionReport& report, const std::string& what);

// Single keys (b, n, p, +, -, q) from the terminal: standard input where it is one, else, where
// standard input is the audio (`cat f.wav | halo play -`), the controlling terminal (/dev/tty;
// not for a standard input merely redirected, as a script's or a test's is). Only while this
// process is the terminal's foreground job: in the background (`&`, or Ctrl-Z then bg) it
// leaves the terminal alone (setting its mode or reading it would stop the job), and brought
// back (fg) it puts the terminal in raw mode again, which the shell had restored.
class Keyboard {
 public:
  explicit Keyboard(bool stdin_is_the_audio);
  ~Keyboard();  // the terminal's mode as it was, and /dev/tty closed
  Keyboard(const Keyboard&) = delete;
  Keyboard& operator=(const Keyboard&) = delete;
  // The next key pressed within timeout_ms, or 0.
  char poll(int timeout_ms);
  // A terminal to take keys from (whether or not in the foreground now).
  bool available() const { return fd_ >= 0; }
  // Whether this process is the terminal's foreground job (false without a terminal).
  bool in_foreground() const;

 private:
  bool raw_mode();  // raw mode on fd_ where the terminal is not in it (first use, after fg)

  int fd_ = -1;             // the terminal; -1: none
  bool owned_ = false;      // fd_ is /dev/tty, opened here
  bool saved_ = false;      // termios_ holds the mode to restore
  char termios_[64] = {};   // struct termios as found, kept opaque here
};

}  // namespace halo::cli

namespace halo::cli {

// Runs a started-to-be session until the end (play), q, Ctrl-C or a failure: keys, the status
// line, the control thread's polling; `tick` runs every pass (live: reloads) and returns a
// line to say, or nothing: said on a line of its own, the status line cleared first (a reload's
// notice had been glued onto it, a QA pass). Prints the summary. Returns the exit code (0, or
// 128 + the signal).
int run_session(realtime::Session& session, const RealtimeArguments& arguments, const std::string& what,
                const std::function<std::string(realtime::Session&)>& tick);

}  // namespace halo::cli
