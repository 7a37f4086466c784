#pragma once
// A test-only registry entry for the contract suite (engine_contract_test.cpp): the hand-over
// composite over two CPU engines, "handover(cpu-fft,cpu)", which starts on cpu-fft and hands
// over to the direct engine at stream frame 777 (inside a block for most block sizes), its
// second made ready before set_taps returns so that the hand-over frame never depends on a
// thread's timing. Defined in handover_engine_test.cpp.
#include <string>

#include "src/engine/engine_entry.hpp"

namespace halo::test {

const EngineEntry& handover_contract_entry();

// The registered entry named `name`, or the test-only entry above.
const EngineEntry& contract_entry(const std::string& name);

}  // namespace halo::test
