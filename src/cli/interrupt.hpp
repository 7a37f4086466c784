#pragma once

namespace halo {

// Ctrl-C and SIGTERM set a flag that the pipeline polls between chunks, so an interrupted run
// unwinds normally: the writer's temporary file is removed and any existing output stays.
void install_interrupt_handlers();
bool interrupted();

}  // namespace halo
