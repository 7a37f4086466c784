#pragma once
// The overlap-save CUDA engines as the registry sees them: "cuda-fft" (cuFFT, any mask up to
// max_cufft_mask_frames) and "cuda-fft-fused" (one kernel, FFTs in shared memory, masks up to
// max_fused_mask_frames). accepts() answers from the TapSet and the spec alone, without a
// CUDA context. Plain C++: src/engine/registry.cpp includes it.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "cuda/fft/overlap_save.hpp"
#include "src/engine/engine_entry.hpp"

namespace halo::cuda {

// A cuda-fft / cuda-fft-fused engine on GPU options.gpu; starts the GPU's context on the
// calling thread. Throws halo::cuda::Error when the GPU is not usable.
std::unique_ptr<Engine> make_fft_engine(FftMethod method, const EngineOptions& options = {},
                                        const FftTuning& tuning = {});

// The engine's device pass without the host: `in` and `out` are device pointers (interleaved,
// `frames` frames, frames <= max_block_frames), enqueued after the work already on `stream`;
// `stream` waits for it, nothing waits on the host. For the benchmark. Status::failed (with
// the engine's failure()) when `engine` is no ready FFT engine or a call failed.
Status process_on_device(Engine& engine, const float* in, float* out, std::size_t frames, cudaStream_t stream) noexcept;

// The engine's geometry (prepared FFT engines only; throws otherwise).
const Geometry& geometry_of(const Engine& engine);
// Whether each process() of `engine` runs as one CUDA graph launch (the small-block path).
bool runs_graphs(const Engine& engine);

// One registry entry per method: cuda-fft, then cuda-fft-fused.
std::vector<EngineEntry> fft_engine_entries();

}  // namespace halo::cuda
