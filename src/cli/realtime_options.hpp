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

// Single keys on a terminal (b, n, p, +, -, q) and the one status line.
class Keyboard {
 public:
  Keyboard();   // raw mode when standard input is a terminal
  ~Keyboard();  // restores it
  // The next key pressed within timeout_ms, or 0.
  char poll(int timeout_ms);
  bool active() const { return active_; }

 private:
  bool active_ = false;
  char saved_[64] = {};  // struct termios, kept opaque here
};

}  // namespace halo::cli

namespace halo::cli {

// Runs a started-to-be session until the end (play), q, Ctrl-C or a failure: keys, the status
// line, the control thread's polling; `tick` runs every pass (live: reloads). Prints the
// summary. Returns the exit code (0, or 128 + the signal).
int run_session(realtime::Session& session, const RealtimeArguments& arguments, const std::string& what,
                const std::function<void(realtime::Session&)>& tick);

}  // namespace halo::cli
