#pragma once
// The textbook kernels: basic, constant, tiled, cached (kernels.cuh compares them with
// cuda-fast). Each thread computes one output; they differ only in where the taps and the
// samples come from, so the arithmetic is one helper, sum_in_partials. Device code, one copy
// per translation unit (tap_bank.cuh says why): the library includes it in dispatch.cu only.
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/direct/policy.hpp"
#include "cuda/direct/tap_bank.cuh"

namespace halo::cuda {
namespace {

// sum_{k < taps} h[k] * sample(k), summed in partials of KernelPolicy::taps_per_partial taps
// (one fresh float partial per block of taps, added into the total: the accuracy policy).
template <typename Sample>
__device__ __forceinline__ float sum_in_partials(const float* h, int taps, Sample sample) {
  constexpr int taps_per_partial = KernelPolicy::taps_per_partial;
  float total = 0.0f;
  for (int k0 = 0; k0 < taps; k0 += taps_per_partial) {
    const int k1 = min(taps, k0 + taps_per_partial);
    float partial = 0.0f;
    for (int k = k0; k < k1; ++k) partial = fmaf(h[k], sample(k), partial);
    total += partial;
  }
  return total;
}

// Every textbook kernel: grid (blocks over frames, channels); channel c = blockIdx.y reads
// x + c*x_stride, writes y + c*y_stride, and takes its mask at tap_base + c*tap_stride in its
// tap store (tap_stride 0: one mask for all the launch's channels). This points x, y and h
// (the tap store) there.
// (Templates, so that the kernels' __restrict__ pointers bind.)
template <typename X, typename Y, typename H, typename TapStride>
__device__ __forceinline__ void to_channel(X& x, std::size_t x_stride, Y& y, std::size_t y_stride, H& h, int tap_base,
                                           TapStride tap_stride) {
  const int c = blockIdx.y;
  x += c * x_stride;
  y += c * y_stride;
  h += tap_base + c * tap_stride;
}

// ---------------------------------------------------------------------------------------
// basic: one output per thread, taps in global memory.
// Traffic: each thread loads its M samples x[n-k] and the M taps from global memory. Across
// a warp the sample loads coalesce (consecutive n) and the tap loads are one address
// (broadcast); L1/L2 serve the M-fold reuse of each sample by neighbouring outputs. Nothing is
// staged: 2 load instructions per FMA.
__global__ void basic_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                             std::size_t y_stride, int frames, int taps, const float* __restrict__ h, int tap_base,
                             std::size_t tap_stride) {
  to_channel(x, x_stride, y, y_stride, h, tap_base, tap_stride);
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= frames) return;
  y[n] = sum_in_partials(h, taps, [&](int k) { return x[n - k]; });
}

// ---------------------------------------------------------------------------------------
// constant: basic with the taps in __constant__ memory.
// Traffic: taps come through the constant cache; every thread of a warp reads the same tap
// at the same time, so each is one broadcast, a warp-uniform operand. Samples as in basic:
// M global loads per output, reused through L1/L2. 1 load instruction per FMA.
__global__ void constant_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                                std::size_t y_stride, int frames, int taps, int tap_base, int tap_stride) {
  const float* h = c_taps;
  to_channel(x, x_stride, y, y_stride, h, tap_base, tap_stride);
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= frames) return;
  y[n] = sum_in_partials(h, taps, [&](int k) { return x[n - k]; });
}

// ---------------------------------------------------------------------------------------
// tiled: a shared-memory tile of the block's B samples plus the M-1 halo cells before them.
// Traffic: each block loads B + M - 1 samples from global memory once (coalesced), then every
// FMA reads its sample from shared memory; taps from constant memory as in `constant`.
// Global reads per output: (B + M - 1) / B. Shared memory: (B + M - 1) floats (dynamic).
__global__ void tiled_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                             std::size_t y_stride, int frames, int taps, int tap_base, int tap_stride) {
  extern __shared__ float tile[];
  const float* h = c_taps;
  to_channel(x, x_stride, y, y_stride, h, tap_base, tap_stride);
  const int halo = taps - 1;
  const int b0 = blockIdx.x * blockDim.x;
  for (int i = threadIdx.x; i < static_cast<int>(blockDim.x) + halo; i += blockDim.x) tile[i] = x[b0 - halo + i];
  __syncthreads();
  const int n = b0 + threadIdx.x;
  if (n >= frames) return;
  const float* window = tile + threadIdx.x + halo;  // window[-k] = x[n - k]
  y[n] = sum_in_partials(h, taps, [&](int k) { return window[-k]; });
}

// ---------------------------------------------------------------------------------------
// cached: the shared tile holds only the block's own B samples; the halo cells (samples
// before the block) are read from global memory, where L1/L2 hold them because the previous
// block loaded them as its own cells.
// Traffic: B global loads per block into shared memory; per output, min(M, t+1) shared reads
// and M - min(M, t+1) global (cached) reads, with a branch per tap. Shared memory: B floats.
__global__ void cached_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                              std::size_t y_stride, int frames, int taps, int tap_base, int tap_stride) {
  extern __shared__ float tile[];
  const float* h = c_taps;
  to_channel(x, x_stride, y, y_stride, h, tap_base, tap_stride);
  const int t = threadIdx.x;
  const int n = blockIdx.x * blockDim.x + t;
  tile[t] = x[n];  // in the readable range even past `frames` (launch contract)
  __syncthreads();
  if (n >= frames) return;
  y[n] = sum_in_partials(h, taps, [&](int k) {
    const int i = t - k;
    return i >= 0 ? tile[i] : __ldg(x + (n - k));
  });
}

}  // namespace
}  // namespace halo::cuda
