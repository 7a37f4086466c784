#pragma once
#include <vector>

#include "src/engine/engine_entry.hpp"

namespace halo {

// The registry's entries for the CPU engines: "cpu" (direct) and "cpu-fft" (FFTW overlap-save).
// Both take any mask length and any channel count.
std::vector<EngineEntry> cpu_engine_entries();

}  // namespace halo
