#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/engine.hpp"

namespace halo {

// Every name --engine takes: "auto", "cpu", and the CUDA engines this build has.
std::vector<std::string> engine_names();

// Throws halo::Error naming --engine and the engines this build has when `name` is not one.
void check_engine_name(const std::string& name);

// What `auto` (or an explicit name) resolves to, and why, in words for the one-line notice.
struct EngineChoice {
  std::string name;
  std::string reason;
};

// The size of a job, which is what `auto` weighs.
struct JobSize {
  std::size_t mask_frames = 0;        // M
  std::size_t constant_taps = 0;      // taps the CUDA engines would hold in constant memory
  std::uint64_t samples = 0;          // frames * channels; 0 when unknown (a pipe)
};

// Resolves `requested`. auto: a CPU engine (direct, or FFT for long masks) where no GPU is usable, where the mask does not
// fit constant memory, or where the job is too small to pay for starting CUDA; otherwise
// cuda-fast. An explicit CUDA engine with no usable device throws halo::Error.
// May start the CUDA driver: call it off the reading thread.
EngineChoice choose_engine(const std::string& requested, const JobSize& job);

std::unique_ptr<Engine> make_engine(const std::string& name, int block_threads = 256);

}  // namespace halo
