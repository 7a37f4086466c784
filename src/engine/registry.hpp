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
  std::string name;                            // the engine that starts the stream
  std::string reason;
  std::string takes_over = {};                 // auto only: the GPU engine that takes over from
                                               // `name` once started (HandoverEngine); empty: none
  std::size_t handover_latency_frames = 0;     // takes_over's latency, as its entry says (0 unknown)
};

// Resolves `requested` for these taps and this stream; `samples` (frames x channels, 0 when
// unknown) is what `auto` weighs against the cost of starting CUDA.
// auto never starts CUDA: it decides from the mask, the job size and what the NVIDIA driver
// lists (gpu_probe.hpp), through the crossover table (crossover.hpp). A CPU engine (direct, or
// FFT for long masks) where no GPU is listed, where no GPU engine of this build accepts the
// taps, or where the job is too small for the GPU to pay; otherwise the same CPU engine, with
// the table's GPU engine in `takes_over`: make_engine(EngineChoice) then builds the hand-over.
// Where the table's row says gpu_alone (very long masks) a job of known size that pays runs
// on the GPU engine alone. A caller that passes samples = 0 and makes `name` alone (play)
// runs on the CPU. An explicit engine that does not accept
// the taps, or whose device is not usable, throws halo::Error saying why; asking for a CUDA
// engine by name starts the CUDA driver: call it off the reading thread.
EngineChoice choose_engine(const std::string& requested, const TapSet& taps, const ProcessSpec& spec,
                           std::uint64_t samples);

std::unique_ptr<Engine> make_engine(const std::string& name, const EngineOptions& options = {});

// The engine `choice` names; with takes_over, a HandoverEngine that starts on `name` and makes
// takes_over on its background thread.
std::unique_ptr<Engine> make_engine(const EngineChoice& choice, const EngineOptions& options = {});

}  // namespace halo
