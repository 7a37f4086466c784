#pragma once
#include <exception>
#include <functional>
#include <string>

namespace halo::cli {

// What halo says of a command that failed while it ran, and the exit code: one place for
// main() and for a failure said before the run has unwound (stall_guard).
struct FailureReport {
  int exit_code = 1;
  std::string line;  // after "halo: "; empty: nothing is said (the reader of standard output went away)
};
// Interrupted (a signal's cancellation): "interrupted; " and what became of the output, 128 +
// the signal's number. Out of memory: what needs less, for `command`. Else the error's words, 1.
FailureReport report_of(std::exception_ptr error, const std::string& command);

// StreamOptions::on_failure for `command`: where a stage of the run fails while another may be
// blocked for good (a read from a pipe whose writer stalled, a write to one whose reader did),
// the failure is said and halo exits after the grace a signal gets, unless the run unwinds
// first and main says it (interrupt.hpp). A failure during a signal's grace is left to it.
std::function<void(std::exception_ptr)> stall_guard(const std::string& command);

}  // namespace halo::cli
