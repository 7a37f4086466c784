// halo live (mask options) [--device D] [--input-device D] [--channels C] [--rate HZ] [--frames N] [--engine E]
#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cxxopts.hpp>

#include "audio/reader.hpp"
#include "src/cli/command.hpp"
#include "src/cli/interrupt.hpp"
#include "src/cli/realtime_options.hpp"

namespace halo::cli {
namespace {

std::atomic<bool> hangup{false};
extern "C" void on_hangup(int) { hangup.store(true); }

// What identifies a version of a file: its modification time and size.
struct FileStamp {
  long long seconds = -1, nanoseconds = 0, size = -1;
  bool operator!=(const FileStamp& other) const {
    return seconds != other.seconds || nanoseconds != other.nanoseconds || size != other.size;
  }
};
FileStamp stamp(const std::string& path) {
  struct stat status {};
  if (stat(path.c_str(), &status) != 0) return {};
  return {static_cast<long long>(status.st_mtim.tv_sec), static_cast<long long>(status.st_mtim.tv_nsec),
          static_cast<long long>(status.st_size)};
}

}  // namespace

int live_command(int argc, char** argv) {
  cxxopts::Options options("halo live", "Filter the input device into the output device, period by period.\n"
                                        "  halo live (--lowpass F | ... | --mask FILE [--mask FILE2 ...] | --ir FILE) "
                                        "[options]\nThe mask file is read again when it changes or on SIGHUP (a bad "
                                        "file keeps the old mask). Keys on a terminal: b bypass, n/p next/previous "
                                        "mask, +/- gain, q quit.");
  // SIGHUP reloads the mask here; it does not stop live. Set before anything else: one that
  // came while the options were read had stopped live (exit 129, the review of a QA fix).
  struct sigaction action {};
  action.sa_handler = on_hangup;
  sigemptyset(&action.sa_mask);
  sigaction(SIGHUP, &action, nullptr);
  RealtimeArguments arguments;
  if (!parse_realtime_command(options, argc, argv, true, arguments)) return 0;

  // From here a run stopped at once (a second signal, or one the start-up cannot answer within
  // its grace) has no file to speak of: it says it stopped without its summary.
  say_when_stopped_at_once("stopped at once, without the summary");
  keep_a_thread_for_signals();
  realtime::Session session(arguments.session, mask_source_for(arguments.masks));
  const auto source = mask_source_for(arguments.masks);
  auto path_of = [&](int index) { return arguments.masks.at(static_cast<std::size_t>(index)).path; };
  int watched = session.mask_index();
  FileStamp last = stamp(path_of(watched));
  // A changed file is read once it has stayed the same for a whole look (10 ticks, about
  // 0.2 s): a file written in pieces had been read half-written, and its first half played
  // until the rest came (a QA pass). SIGHUP reads it at once.
  FileStamp settling = last;
  int passes = 0;
  auto tick = [&](realtime::Session& running) -> std::string {
    const bool signalled = hangup.exchange(false);
    if (running.mask_index() != watched) {
      watched = running.mask_index();
      last = settling = stamp(path_of(watched));
    }
    if (!signalled && (path_of(watched).empty() || ++passes % 10 != 0)) return {};
    const FileStamp now = stamp(path_of(watched));
    if (!signalled && !(now != last)) return {};
    const bool settled = !(now != settling);
    settling = now;
    if (!signalled && !settled) return {};  // changed since the last look: look again
    last = now;
    const std::string what = path_of(watched).empty() ? "the designed mask" : audio::input_name(path_of(watched));
    try {
      running.replace_mask(watched, source(watched, running.rate_hz()));
      return "reloaded " + what + (signalled ? " (SIGHUP)" : " (changed)");
    } catch (const std::exception& error) {
      const std::string why = error.what();  // a mask file's errors name the file (and line) already
      return (why.rfind(what, 0) == 0 ? why : what + ": " + why) + "; keeping the old mask";
    }
  };
  return run_session(session, arguments, "live", tick);
}

}  // namespace halo::cli
