#pragma once
#include <vector>

#include "src/engine/engine_entry.hpp"

namespace halo {

// The registry's entries for the CPU engines: "cpu" (direct), "cpu-fft" (FFTW overlap-save)
// and "cpu-partitioned" (non-uniformly partitioned with a direct head: no latency, for real time).
// All take any mask length and any channel count.
std::vector<EngineEntry> cpu_engine_entries();

}  // namespace halo
