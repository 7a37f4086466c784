#pragma once
#include <string>

#include "src/offline/cancellation.hpp"

namespace halo::cli {

// Ctrl-C, SIGTERM and SIGHUP request the cancellation that the commands pass to the pipeline,
// which polls it between chunks, so an interrupted run unwinds normally: the writer's
// temporary file is removed and any existing output stays. Where the run cannot stop on its
// own within 2 s (a read stalled on a pipe or FIFO, a write blocked on a full pipe, a long
// computation), or on a second signal, the signal path removes every temporary output file
// (audio::remove_live_temporaries) and exits at once. Either way the exit code is 128 + the
// signal's number: 130 for INT, 143 for TERM, 129 for HUP. A second signal within 0.2 s of the
// first is taken for the same one delivered twice and ignored.
void install_interrupt_handlers();
// What the line of a run stopped at once says after "halo: interrupted; " (a static string);
// by default what became of the output ("nothing was written", ...). play and live, which
// write no file, say they stopped without their summary.
void say_when_stopped_at_once(const char* note);
// play and live, once their summary is out and their exit code known, before the stream is
// closed: an abort inside PortAudio's clean-up from then on (it asserts when the server has
// gone) says so in one line and exits with exit_code, not 134.
void closing_device_after_summary(int exit_code);
// Re-arms the signal's grace: the run may take this long to stop before the signal path ends
// it (play and live: the stream's own bounded stop, then a reader that may be stalled).
void allow_seconds_to_stop(unsigned seconds);
// play, live and devices, before PortAudio starts: a thread that only waits for signals. While
// the calling thread holds SIGINT, SIGTERM and SIGHUP back from PortAudio's talk with JACK
// (and libjack's threads, started then, hold them for good), a signal still finds a thread to
// run its handler, so Ctrl-C during a stalled server's start-up still ends halo within its
// grace. Once per process.
void keep_a_thread_for_signals();
// A run whose stage failed while another may be blocked for good (stall_guard, failure_report.hpp):
// unless main claims the failure within the grace a signal gets, `text` (the whole line, or
// nothing) is written to stderr, every temporary output file removed, and halo exits with
// `exit_code`. Once per process; nothing while a signal's grace runs.
void end_after_grace_unless_unwound(int exit_code, const std::string& text);
// main, before it says a failure: calls that grace off, or a signal's (the run unwound in time).
// False where a failure's grace has ended and its path is saying the failure already: main then
// says nothing and waits for the exit.
bool claim_failure_report();
[[noreturn]] void wait_for_exit();
const Cancellation& interruption();
bool interrupted();
// For main, once an interrupted run has unwound: 128 + the signal's number.
int interrupted_exit_code();
// 128 + the signal's number, calling no grace off (any thread).
int signal_exit_code();

}  // namespace halo::cli
