#pragma once
// The direct-convolution CUDA engines ("cuda-basic" ... "cuda-fast") as the registry sees
// them: names, what they accept (answered from the TapSet alone, without a CUDA context), and
// how to make one on a given GPU. Plain C++: src/engine/registry.cpp includes it.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cuda/device/constant_bank.hpp"
#include "cuda/direct/policy.hpp"
#include "src/engine/engine_entry.hpp"

namespace halo::cuda {

// "cuda-basic", "cuda-constant", "cuda-tiled", "cuda-cached", "cuda-fast".
std::string engine_name(Kernel kernel);

// The one answer to "does it fit constant memory?", shared by accepts() and the engine.
// The kernel that runs for `kernel` and these taps: cuda-fast pads each distinct mask to its
// tap tile; where the padded masks would overflow the bank but the unpadded ones fit, it runs
// the constant kernel instead (same results, slower).
Kernel kernel_that_runs(Kernel kernel, const TapSet& taps);
// Taps of the bank the engine leases: distinct masks x padded_taps(kernel_that_runs, M).
// (cuda-basic keeps its taps in device memory but takes the same limit, so the textbook
// kernels compare on the same inputs.)
std::size_t bank_taps_needed(Kernel kernel, const TapSet& taps);
// Whether a cuda-<kernel> engine takes these taps and this stream; when not, `why_not` says
// why ("needs 18048 taps of constant memory, which holds 16384; ..."). Starts no CUDA context.
bool accepts(Kernel kernel, const TapSet& taps, const ProcessSpec& spec, std::string* why_not);

// Whether GPU `gpu` can run the kernels; when not, `why` gets a few words ("no CUDA device").
bool device_usable(int gpu, std::string* why);

// A CUDA engine running `kernel` on GPU options.gpu; options.block_threads: threads per block
// of the textbook kernels (1..1024), ignored by cuda-fast, which has its own tuning policy.
// Starts the GPU's context on the calling thread. Throws halo::cuda::Error (a halo::Error)
// when the GPU is not usable.
std::unique_ptr<Engine> make_engine(Kernel kernel, const EngineOptions& options = {});

// cuda-fast's small-block path (the period path, for `play` and `live`): when prepare() gets
// spec.max_block_frames <= max_frames, every process() is one CUDA graph launch (copies in,
// the split-K period kernel, copies out) and one wait, and the input history stays in a ring
// on the device. Results are the same bits as the chunk path's. The registry's engines use
// the defaults; benchmarks and tests pick.
enum class PeriodIo {
  copies,  // pinned staging <-> device buffers by copies in the graph (its first and last nodes)
  mapped,  // the kernel reads the block from and writes the outputs to mapped pinned memory
};
struct PeriodTuning {
  std::size_t max_frames = 8192;  // largest max_block_frames that takes the period path; 0: never
  PeriodIo io = PeriodIo::copies;
};

// make_engine with the period path tuned (cuda-fast only; other kernels ignore it).
std::unique_ptr<Engine> make_engine(Kernel kernel, const EngineOptions& options, const PeriodTuning& tuning);

// Whether `engine` (a CUDA direct engine, prepared) runs the period path; false for any other.
bool runs_period_path(const Engine& engine);

// One registry entry per kernel, in the order basic, constant, tiled, cached, fast.
std::vector<EngineEntry> direct_engine_entries();

}  // namespace halo::cuda
