#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/engine/engine_entry.hpp"

namespace halo {

// Every engine this build has, in one place: the CPU engines, then the CUDA engines when the
// build has them. The command line, jobs, `auto` and the tests ask it, so they cannot
// disagree about names or about what an engine accepts.
const std::vector<EngineEntry>& registered_engines();

// "auto" followed by every registered name.
std::vector<std::string> engine_names();

// The entry named `name`; throws halo::Error naming it and the engines this build has.
const EngineEntry& engine_entry(const std::string& name);

// Throws like engine_entry() unless `name` is "auto" or a registered engine.
void check_engine_name(const std::string& name);

// What `auto` (or an explicit name) resolves to, and why, in words for the one-line notice.
struct EngineChoice {
  std::string name;
  std::string reason;
};

// Resolves `requested` for these taps and this stream; `samples` (frames x channels, 0 when
// unknown) is what `auto` weighs against the cost of starting CUDA.
// auto: a CPU engine (direct, or FFT for long masks) where no GPU is usable, where no CUDA
// engine accepts the taps, or where the job is too small to pay for starting CUDA; otherwise
// cuda-fast. An explicit engine that does not accept the taps, or whose device is not usable,
// throws halo::Error saying why. May start the CUDA driver: call it off the reading thread.
EngineChoice choose_engine(const std::string& requested, const TapSet& taps, const ProcessSpec& spec,
                           std::uint64_t samples);

std::unique_ptr<Engine> make_engine(const std::string& name, const EngineOptions& options = {});

}  // namespace halo
