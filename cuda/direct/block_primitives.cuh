#pragma once
// Device building blocks that more than one kernel uses (fast_kernels.cuh, and the benchmark's
// variants): the skewed shared-memory layout, register windows, asynchronous copies and the
// stores of a block's outputs. Device code: include only from .cu files.
#include <cuda_runtime.h>

namespace halo::cuda {

// Shared layout of the fast kernels: sample i lives at skew(i) = i + 4*(i/32), which keeps both
// the per-thread window loads (thread stride R = 32 floats) and the coalesced fills free of
// bank conflicts.
__host__ __device__ constexpr int skew(int i) { return i + ((i >> 5) << 2); }

// w[0, N) = the N samples from `window` on in the skewed layout (window at a multiple of 32
// samples), as N/4 16-byte shared loads into registers.
template <int N, int W>
__device__ __forceinline__ void load_window(const float* window, float (&w)[W]) {
  static_assert(N % 4 == 0 && N <= W, "whole float4s into the window");
#pragma unroll
  for (int q = 0; q < N / 4; ++q) {
    const float4 v = *reinterpret_cast<const float4*>(window + skew(4 * q));
    w[4 * q] = v.x;
    w[4 * q + 1] = v.y;
    w[4 * q + 2] = v.z;
    w[4 * q + 3] = v.w;
  }
}

// Outputs i..i+3 of a span whose first `valid` outputs exist: one 16-byte store when all four
// do (out + i 16-byte aligned), else element stores up to `valid`.
__device__ __forceinline__ void store_four(float* out, int i, float4 o, int valid) {
  if (i + 4 <= valid) {
    *reinterpret_cast<float4*>(out + i) = o;
  } else if (i < valid) {
    out[i] = o.x;
    if (i + 1 < valid) out[i + 1] = o.y;
    if (i + 2 < valid) out[i + 2] = o.z;
  }
}

// A block of THREADS threads, each holding R consecutive outputs (thread t: outputs
// [t*R, t*R + R) of the block), writes them to out[0, min(valid, THREADS*R)): staged through
// the skewed shared `tile` (at least skew(THREADS*R) floats, free for reuse: the leading
// barrier waits for every reader), then 16-byte coalesced stores. Ends with the tile still
// being read: a caller reusing it must __syncthreads first.
template <int THREADS, int R>
__device__ __forceinline__ void store_block_outputs(float* tile, int t, const float (&total)[R], float* out,
                                                    int valid) {
  __syncthreads();
#pragma unroll
  for (int q = 0; q < R / 4; ++q)
    *reinterpret_cast<float4*>(tile + skew(t * R + 4 * q)) =
        make_float4(total[4 * q], total[4 * q + 1], total[4 * q + 2], total[4 * q + 3]);
  __syncthreads();
  for (int v = t; v < THREADS * R / 4; v += THREADS)
    store_four(out, 4 * v, *reinterpret_cast<const float4*>(tile + skew(4 * v)), valid);
}

// 16-byte global -> shared copies that bypass registers and L1 (cp.async.cg), in groups.
__device__ __forceinline__ void copy_async_16(float* shared_dst, const float* global_src) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src) : "memory");
}
__device__ __forceinline__ void copy_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most `Pending` of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void copy_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

}  // namespace halo::cuda
