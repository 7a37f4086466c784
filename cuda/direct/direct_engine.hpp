#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "src/engine/engine.hpp"

namespace halo::cuda {

// The direct-convolution kernels, each a named engine (`--engine cuda-basic`, ...).
// cuda/kernels.cuh documents them side by side.
enum class Kernel { basic, constant, tiled, cached, fast };

// "cuda-basic", "cuda-constant", "cuda-tiled", "cuda-cached", "cuda-fast".
std::string engine_name(Kernel kernel);

// Constant memory holds 64 KiB: 16384 float taps across all channels' masks.
constexpr std::size_t max_constant_taps = 16384;

// Whether a CUDA device can be used; when not, `why` gets a few words ("no CUDA device").
bool device_usable(std::string* why);

// A CUDA engine running `kernel`; block_threads: threads per block for the seeds' kernels
// (32..1024), ignored by cuda-fast, which has its own tuning policy.
// Throws halo::cuda::Error (a halo::Error) when no device is usable.
std::unique_ptr<Engine> make_engine(Kernel kernel, int block_threads = 256);

}  // namespace halo::cuda
