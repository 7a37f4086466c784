#include "src/cli/interrupt.hpp"

#include <csignal>

namespace halo::cli {
namespace {

Cancellation signalled;

extern "C" void on_interrupt(int) { signalled.request(); }

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
}

const Cancellation& interruption() { return signalled; }
bool interrupted() { return signalled.requested(); }

}  // namespace halo::cli
