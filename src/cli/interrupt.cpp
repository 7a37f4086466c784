#include "src/cli/interrupt.hpp"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>

#include "audio/atomic_file.hpp"
#include "audio/portaudio_device.hpp"
#include "audio/streamed_output.hpp"

namespace halo::cli {
namespace {

Cancellation signalled;
std::atomic<int> signal_number{0};  // the first signal received; 0 before
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");
std::atomic<long long> first_signal_ns{0};  // CLOCK_MONOTONIC of the first signal
std::atomic<const char*> stop_note{nullptr};  // what a run stopped at once says; null: what became of its output
std::atomic<int> closing_code{-1};  // play's or live's exit code once its summary is out; -1 before
// A failed run's grace (end_after_grace_unless_unwound): its line, written before `failure_armed`
// is set and read by the alarm's handler after; its exit code; whether main or the handler has
// taken it (the first to set `failure_taken` says it, the other does not).
char failure_text[2048];
std::size_t failure_text_length = 0;
std::atomic<int> failure_exit_code{1};
std::atomic<bool> failure_armed{false};
std::atomic<bool> failure_taken{false};
std::atomic<bool> failure_arming{false};  // one caller fills failure_text, ever
static_assert(std::atomic<bool>::is_always_lock_free, "read from a signal handler");

// A second signal this soon after the first is the same one delivered twice (`timeout` sends
// its signal to halo and then to halo's process group; a QA pass lost live's summary to it),
// not a second Ctrl-C, which no hand types within this time.
constexpr long long same_signal_ns = 200'000'000;

long long monotonic_ns() noexcept {  // clock_gettime is async-signal-safe
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// How long the program may take to stop on its own (the pipeline polls between chunks and
// unwinds) before the signal path stops it: a read or write stalled on a pipe never returns.
constexpr unsigned grace_seconds = 2;

// Async-signal-safe: to the user's stderr, also while PortAudio's chatter is silenced.
void say(const char* text) noexcept {
  const ssize_t ignored = write(audio::audible_stderr(), text, std::strlen(text));
  (void)ignored;
}

// Async-signal-safe: removes every temporary output file and says so, after `what` ("halo:
// interrupted; ", "halo: aborted; ").
void remove_temporaries_saying(const char* what) noexcept {
  audio::remove_live_temporaries();
  const char* own = stop_note.load();
  const char* note = own != nullptr ? own : audio::failed_output_note();
  say(what);
  say(note);
  say("\n");
}

// The above, then the exit with the code of the signal (128 + its number: 130 for INT, 143 for
// TERM, 129 for HUP).
[[noreturn]] void abandon() noexcept {
  remove_temporaries_saying("halo: interrupted; ");
  _exit(128 + signal_number.load());
}

extern "C" void on_signal(int number) {
  int none = 0;
  if (!signal_number.compare_exchange_strong(none, number)) {
    // The first, again: within the window, or handled this instant on another thread (the
    // handler blocks the signal on its own thread only), its time not stored yet.
    const long long first = first_signal_ns.load();
    if (first == 0 || monotonic_ns() - first < same_signal_ns) return;
    abandon();  // a second signal: stop now
  }
  first_signal_ns.store(monotonic_ns());
  signalled.request();
  alarm(grace_seconds);
}

// halo's own alarm ends a signal's grace; one from outside (kill -ALRM), with no signal before
// it, is a signal to stop like the others, 128 + 14 (it had ended the run as "128 + 0", 128: a
// QA pass).
extern "C" void on_grace_expired(int number) {
  if (signal_number.load() == 0 && failure_armed.load(std::memory_order_acquire)) {  // a failed run's grace
    if (failure_taken.exchange(true)) return;  // main is saying it
    audio::remove_live_temporaries();
    const ssize_t ignored = write(audio::audible_stderr(), failure_text, failure_text_length);
    (void)ignored;
    _exit(failure_exit_code.load());
  }
  if (signal_number.load() == 0) {
    on_signal(number);
    return;
  }
  abandon();
}

// An abort from inside a library halo cannot catch (FFTW asserts when its allocator fails:
// "fftw: alloc.c:29: assertion failed: p", under ulimit -v; a QA pass): the temporary output
// files go first, then the abort goes on as it would have (exit status 134, a core where
// enabled).
//
// PortAudio's JACK host asserts when its clean-up finds the server gone (the server stopped
// between the stream's stop and its close: a QA pass saw "aborted; stopped at once, without
// the summary" right under the summary, exit 134, after a complete playback). Once play or
// live has printed its summary there is nothing left to lose: that is said, and the run's own
// exit code stands.
extern "C" void on_abort(int number) {
  if (const int code = closing_code.load(); code >= 0 && audio::portaudio_closing()) {
    say("halo: the audio server went away as its stream was closed; the summary above stands\n");
    _exit(code);
  }
  remove_temporaries_saying("halo: aborted; ");
  signal(number, SIG_DFL);
  raise(number);
}

void handle(int number, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(number, &action, nullptr);
}

// As handle, but an ignored signal stays ignored: a shell script's background job starts with
// SIGINT ignored, and nohup's with SIGHUP, so that a Ctrl-C meant for the script (or a hangup)
// does not reach it; halo had taken them over ~15 ms after starting (a QA pass).
void handle_unless_ignored(int number, void (*handler)(int)) {
  struct sigaction now {};
  if (sigaction(number, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) return;
  handle(number, handler);
}

}  // namespace

void install_interrupt_handlers() {
  // Past a file-size limit (ulimit -f) the kernel's SIGXFSZ would kill the process where it
  // stands, its temporary left behind and no message; ignored, the write fails with EFBIG,
  // which the writer reports ("File too large") and the run unwinds like any failed write.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, nullptr);
  // Likewise SIGPIPE: a reader that went away (`2>&1 | head -1`, a closed stdout) had killed the
  // run where it stood, its temporary OUT left behind (a QA pass). Ignored, a write to standard
  // output fails with EPIPE, which the writer reports as any failed write, and a note to a
  // closed stderr is lost while the run completes and commits OUT.
  sigaction(SIGPIPE, &ignore, nullptr);
  handle_unless_ignored(SIGINT, on_signal);
  handle(SIGTERM, on_signal);
  handle_unless_ignored(SIGHUP, on_signal);
  handle(SIGALRM, on_grace_expired);
  handle(SIGABRT, on_abort);
}

void say_when_stopped_at_once(const char* note) { stop_note.store(note); }

void closing_device_after_summary(int exit_code) { closing_code.store(exit_code); }

void allow_seconds_to_stop(unsigned seconds) { alarm(seconds); }

void keep_a_thread_for_signals() {
  static std::once_flag started;
  std::call_once(started, [] {
    try {
      std::thread([] {
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, nullptr);
        for (;;) pause();
      }).detach();
    } catch (...) {  // no thread to be had: the held signals wait for the calls, as without it
    }
  });
}

void end_after_grace_unless_unwound(int exit_code, const std::string& text) {
  bool first = false;
  if (signal_number.load() != 0 || !failure_arming.compare_exchange_strong(first, true)) return;
  failure_text_length = std::min(text.size(), sizeof failure_text);
  std::memcpy(failure_text, text.data(), failure_text_length);
  if (failure_text_length == sizeof failure_text) failure_text[failure_text_length - 1] = '\n';  // cut, still a line
  failure_exit_code.store(exit_code);
  failure_armed.store(true, std::memory_order_release);
  alarm(grace_seconds);
}

bool claim_failure_report() {
  if (!failure_armed.load()) {
    if (signal_number.load() != 0) alarm(0);  // unwound in time: the signal path need not step in
    return true;
  }
  alarm(0);
  return !failure_taken.exchange(true);
}

void wait_for_exit() {
  for (;;) pause();
}

const Cancellation& interruption() { return signalled; }
bool interrupted() { return signalled.requested(); }

int signal_exit_code() { return 128 + signal_number.load(); }

int interrupted_exit_code() {
  alarm(0);  // unwound in time: the signal path need not step in
  return 128 + signal_number.load();
}

}  // namespace halo::cli
