#include "src/cli/failure_report.hpp"

#include <csignal>
#include <new>

#include "audio/error.hpp"
#include "audio/streamed_output.hpp"
#include "src/cli/command.hpp"
#include "src/cli/interrupt.hpp"

namespace halo::cli {

FailureReport report_of(std::exception_ptr error, const std::string& command) {
  try {
    std::rethrow_exception(error);
  } catch (const audio::ReaderGone&) {
    return {128 + SIGPIPE, ""};  // quietly, as the ignored signal would have ended it
  } catch (const std::bad_alloc&) {
    // What needs less, in the options of the command that ran out.
    const bool streams_audio = command == "filter" || command == "play" || command == "live";
    return {1, std::string("out of memory: ") + audio::failed_output_note() +
                   (streams_audio ? " (a shorter mask, fewer channels or a smaller --chunk needs less, and "
                                    "--engine cpu-partitioned far less for a long mask)"
                                  : " (a shorter mask needs less)")};
  } catch (const std::exception& failure) {
    // No side effect here (stall_guard calls this on a stage's thread): main calls the signal's
    // grace off when it claims the report.
    if (interrupted()) return {signal_exit_code(), std::string("interrupted; ") + audio::failed_output_note()};
    return {1, failure.what()};
  } catch (...) {
    return {1, "failed for a reason it cannot name"};
  }
}

std::function<void(std::exception_ptr)> stall_guard(const std::string& command) {
  return [command](std::exception_ptr error) {
    if (interrupted()) return;  // the signal's own grace runs already
    const FailureReport report = report_of(error, command);
    end_after_grace_unless_unwound(report.exit_code, report.line.empty() ? "" : "halo: " + one_line(report.line) + "\n");
  };
}

}  // namespace halo::cli
