// halo play FILE (mask options) [--device D] [--frames N] [--engine E] [--loop] [--mask A --mask B ...]
#include <cstdio>
#include <cxxopts.hpp>

#include "src/cli/command.hpp"
#include "src/cli/interrupt.hpp"
#include "src/cli/realtime_options.hpp"

namespace halo::cli {

int play_command(int argc, char** argv) {
  cxxopts::Options options("halo play", "Play a sound file through an FIR mask, as filter would write it.\n"
                                        "  halo play FILE (--lowpass F | ... | --mask FILE [--mask FILE2 ...] | --ir FILE) "
                                        "[options]\nKeys on a terminal: b bypass (delay-matched), n/p next/previous "
                                        "mask, +/- gain in 1 dB steps, q quit.");
  options.positional_help("FILE");
  RealtimeArguments arguments;
  if (!parse_realtime_command(options, argc, argv, false, arguments)) return 0;
  // From here a run stopped at once (a second signal, or one the start-up cannot answer within
  // its grace) has no file to speak of: it says it stopped without its summary.
  say_when_stopped_at_once("stopped at once, without the summary");
  keep_a_thread_for_signals();
  realtime::Session session(arguments.session, mask_source_for(arguments.masks));
  return run_session(session, arguments, "play " + arguments.session.file, [](realtime::Session&) { return std::string(); });
}

}  // namespace halo::cli
