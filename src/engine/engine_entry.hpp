#pragma once
#include <functional>
#include <memory>
#include <string>

#include "src/engine/engine.hpp"

namespace halo {

// How an engine is built, beyond its name.
struct EngineOptions {
  int block_threads = 256;  // threads per block of the textbook CUDA kernels (32..1024, multiple of 32)
  int gpu = 0;              // CUDA device index, for engines that run on a GPU
  int cpu_threads = 0;      // threads of the CPU engines that use a pool (cpu-fft): 1..256; 0: one per core
};

enum class EngineDevice { cpu, cuda };

// One engine as the registry knows it: its name, where it runs, what it accepts and how to
// make it. `accepts` answers without starting a device (no CUDA context), so `auto`, the
// command line and jobs can ask it first; the engine's own set_taps trusts the same answer.
struct EngineEntry {
  std::string name;
  EngineDevice device = EngineDevice::cpu;
  std::string summary;  // one line: what it is, when it wins
  std::function<bool(const TapSet& taps, const ProcessSpec& spec, std::string* why_not)> accepts;
  std::function<std::unique_ptr<Engine>(const EngineOptions& options)> make;
  // The latency_frames() an engine prepared for `spec` will report, answered without a device,
  // so that `auto` can fix a hand-over's latency before the engine exists (HandoverEngine);
  // null: 0 is assumed (the direct engines), and an engine with more cannot take over.
  std::function<std::size_t(const ProcessSpec& spec)> latency_frames = nullptr;
  // Frames one process() call should bring for an engine made with `options` and prepared for
  // `spec` to give all its threads work, answered before the engine exists, so that a pipeline
  // can size its blocks for it (the offline stream's parallel_frames); null: no wish.
  std::function<std::size_t(const ProcessSpec& spec, const EngineOptions& options)> parallel_block_frames = nullptr;
};

}  // namespace halo
