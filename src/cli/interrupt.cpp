#include "src/cli/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

#include "audio/atomic_file.hpp"
#include "audio/streamed_output.hpp"

namespace halo::cli {
namespace {

Cancellation signalled;
std::atomic<int> signal_number{0};  // the first signal received; 0 before
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");

// How long the program may take to stop on its own (the pipeline polls between chunks and
// unwinds) before the signal path stops it: a read or write stalled on a pipe never returns.
constexpr unsigned grace_seconds = 2;

// Async-signal-safe: removes every temporary output file and says so, after `what` ("halo:
// interrupted; ", "halo: aborted; ").
void remove_temporaries_saying(const char* what) noexcept {
  audio::remove_live_temporaries();
  const char* note = audio::failed_output_note();
  ssize_t ignored = write(STDERR_FILENO, what, std::strlen(what));
  ignored = write(STDERR_FILENO, note, std::strlen(note));
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
}

// The above, then the exit with the code of the signal (128 + its number: 130 for INT, 143 for
// TERM, 129 for HUP).
[[noreturn]] void abandon() noexcept {
  remove_temporaries_saying("halo: interrupted; ");
  _exit(128 + signal_number.load());
}

extern "C" void on_signal(int number) {
  int none = 0;
  if (!signal_number.compare_exchange_strong(none, number)) abandon();  // a second signal: stop now
  signalled.request();
  alarm(grace_seconds);
}

extern "C" void on_grace_expired(int) { abandon(); }

// An abort from inside a library halo cannot catch (FFTW asserts when its allocator fails:
// "fftw: alloc.c:29: assertion failed: p", under ulimit -v; a QA pass): the temporary output
// files go first, then the abort goes on as it would have (exit status 134, a core where
// enabled).
extern "C" void on_abort(int number) {
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

}  // namespace

void install_interrupt_handlers() {
  // Past a file-size limit (ulimit -f) the kernel's SIGXFSZ would kill the process where it
  // stands, its temporary left behind and no message; ignored, the write fails with EFBIG,
  // which the writer reports ("File too large") and the run unwinds like any failed write.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, nullptr);
  handle(SIGINT, on_signal);
  handle(SIGTERM, on_signal);
  handle(SIGHUP, on_signal);
  handle(SIGALRM, on_grace_expired);
  handle(SIGABRT, on_abort);
}

const Cancellation& interruption() { return signalled; }
bool interrupted() { return signalled.requested(); }

int interrupted_exit_code() {
  alarm(0);  // unwound in time: the signal path need not step in
  return 128 + signal_number.load();
}

}  // namespace halo::cli
