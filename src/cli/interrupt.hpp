#pragma once
#include "src/offline/cancellation.hpp"

namespace halo::cli {

// Ctrl-C, SIGTERM and SIGHUP request the cancellation that the commands pass to the pipeline,
// which polls it between chunks, so an interrupted run unwinds normally: the writer's
// temporary file is removed and any existing output stays.
void install_interrupt_handlers();
const Cancellation& interruption();
bool interrupted();

}  // namespace halo::cli
