#pragma once
// cuda-fast's production kernels, fast_pipelined_kernel and fast_short_kernel, and the host
// templates that plan and launch them (dispatch.cu for the engines, bench/fast_variants.cu for
// other shapes). Device code, one copy per translation unit (tap_bank.cuh says why).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "cuda/device/error.hpp"
#include "cuda/device/gpu_device.hpp"
#include "cuda/direct/block_primitives.cuh"
#include "cuda/direct/kernels.cuh"
#include "cuda/direct/policy.hpp"
#include "cuda/direct/tap_bank.cuh"

namespace halo::cuda {
namespace {

// ---------------------------------------------------------------------------------------
// fast: register tiling. A block of THREADS threads owns BO = THREADS*R consecutive outputs;
// thread t owns outputs [b0 + t*R, b0 + t*R + R) in R registers.
// Traffic, per stage of S taps (taps_per_stage; the last stage may be shorter):
//   - the block loads the BO + S samples those taps touch into shared memory once, as 16-byte
//     coalesced global loads (read amplification (BO + S)/BO per stage; L2 absorbs the
//     overlap between stages and neighbouring blocks);
//   - per tap tile of T taps, each thread loads a window of R + T samples from shared memory
//     with (R + T)/4 16-byte loads into registers, then does R*T FMAs whose taps are
//     warp-uniform constant-memory operands (one uniform load per tap, reused R times) and
//     whose samples are registers (each reused T times);
//   - outputs are staged through shared memory and written as 16-byte coalesced stores.
// Shared layout: skewed (block_primitives.cuh), conflict-free for windows and fills.
// Taps are padded with zeros to a multiple of T (the halo in front of x is at least that long
// and its cells are finite), so no branch is needed in the inner loops.
// Accuracy: one fresh partial per stage (S taps), added into the total.

// One stage: partial[r] += sum over the stage's taps j of h[j] * x[n_r - kc - j], the samples
// from `tile` (skewed, origin x[b0 - kc - stage]).
template <int R, int T>
__device__ __forceinline__ void convolve_stage(const float* tile, int t, int stage, const float* h_stage,
                                               float (&partial)[R]) {
#pragma unroll 1
  for (int j0 = 0; j0 < stage; j0 += T) {
    // Window w[i] = x[b0 + t*R - kc - j0 - T + i], i in [0, R + T): a multiple of 32 floats in.
    float w[R + T];
    load_window<R + T>(tile + skew(t * R + stage - j0 - T), w);
    const float* h = h_stage + j0;
#pragma unroll
    for (int j = 0; j < T; ++j) {
      const float hj = h[j];
#pragma unroll
      for (int r = 0; r < R; ++r) partial[r] = fmaf(hj, w[r - j + T], partial[r]);  // x[n_r - k]
    }
  }
}

// fast (the engine's above ShortPolicy::max_taps): the arithmetic above in a persistent,
// software-pipelined block. The grid is as many blocks as fit on the GPU at once; block i
// takes work items (channel, output tile) i, i + grid, ... and walks their stages in order.
// Two shared tiles alternate: while the block computes step s from one, cp.async fills the
// other with step s+1's samples, so the DRAM reads of the next tile overlap this tile's FMAs
// (what bounds the short masks, where both take about as long).
// Traffic: each sample read (BO + S)/BO times per stage, mostly from DRAM once; taps from
// constant memory at c_taps[tap_base + c*tap_stride + k]; outputs staged through the tile
// just computed and written with 16-byte coalesced stores. Shared memory: 2 tiles of
// skew(BO + S) floats.
template <int THREADS, int R, int T, int S, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    fast_pipelined_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                          std::size_t y_stride, int frames, int taps, int tap_base, int tap_stride, int channels) {
  static_assert(R == 32 && T % 32 == 0 && S % T == 0, "the skewed layout assumes 32-float rows");
  constexpr int BO = THREADS * R;
  constexpr int TILE = skew(BO + S);
  __shared__ __align__(16) float tiles[2][TILE];
  const int t = threadIdx.x;
  const int tiles_per_channel = (frames + BO - 1) / BO;
  const int stages = (taps + S - 1) / S;
  const int items = tiles_per_channel * channels;
  const int mine = items > static_cast<int>(blockIdx.x) ? (items - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const int steps = mine * stages;

  // A cursor over this block's steps: item blockIdx.x + i * gridDim.x = (channel c, tile b),
  // stage kc. Advanced by additions (no integer division in the loop).
  struct Cursor {
    int c, b, kc;
  };
  const auto advance = [&](Cursor& at) {
    at.kc += S;
    if (at.kc < taps) return;
    at.kc = 0;
    at.b += gridDim.x;
    while (at.b >= tiles_per_channel) {
      at.b -= tiles_per_channel;
      ++at.c;
    }
  };
  const auto fetch = [&](const Cursor& at, float* dst) {
    const int b0 = at.b * BO;
    const int stage = min(S, taps - at.kc);
    const float* src = x + at.c * x_stride + (b0 - at.kc - stage);
    const int vectors = (BO + stage) / 4;
    for (int v = t; v < vectors; v += THREADS) copy_async_16(dst + skew(4 * v), src + 4 * v);
  };
  Cursor now{static_cast<int>(blockIdx.x) / tiles_per_channel, static_cast<int>(blockIdx.x) % tiles_per_channel, 0};
  Cursor next = now;

  float total[R];
#pragma unroll
  for (int r = 0; r < R; ++r) total[r] = 0.0f;

  if (steps > 0) fetch(next, tiles[0]);
  copy_async_commit();
  for (int s = 0; s < steps; ++s) {
    if (s + 1 < steps) {
      advance(next);
      fetch(next, tiles[(s + 1) & 1]);
    }
    copy_async_commit();
    copy_async_wait<1>();  // this thread's copies for step s have landed
    __syncthreads();       // and everyone else's
    float* tile = tiles[s & 1];
    const int c = now.c, kc = now.kc;
    const int b0 = now.b * BO;
    const int stage = min(S, taps - kc);
    advance(now);

    float partial[R];
#pragma unroll
    for (int r = 0; r < R; ++r) partial[r] = 0.0f;
    convolve_stage<R, T>(tile, t, stage, c_taps + tap_base + c * tap_stride + kc, partial);
#pragma unroll
    for (int r = 0; r < R; ++r) total[r] += partial[r];

    if (kc + stage == taps) {  // the item's last stage: write its outputs through this tile
      store_block_outputs<THREADS, R>(tile, t, total, y + c * y_stride + b0, frames - b0);
#pragma unroll
      for (int r = 0; r < R; ++r) total[r] = 0.0f;
    }
    __syncthreads();  // tile s & 1 is free for step s + 2's copies
  }
  copy_async_wait<0>();
}

// fast, short masks (padded taps <= ShortPolicy::max_taps): the tap count is a template
// argument (one instantiation per multiple of T up to 128), so there is no stage bookkeeping.
// A persistent grid as in fast_pipelined_kernel, with these differences:
//   - one stage per item (TAPS <= taps_per_stage, so the same single partial sum per output);
//   - SLIDE (up to ShortPolicy::slide_max_taps): the tap tiles are unrolled completely and the
//     window slides in registers (tap tile k+1 reuses R of tap tile k's R + T samples);
//     otherwise a loop over tap tiles (convolve_stage), whose 16 KB body stays in the
//     instruction cache: the unrolled form at 64+ taps (32-64 KB of code) ran slower;
//   - taps: !OFFSET (one mask for all channels at bank offset 0): compile-time constant-bank
//     addresses (constant operands, no address arithmetic); OFFSET: the mask at
//     c_taps[tap_base + c*tap_stride] (a lease elsewhere in the bank, or per-channel masks);
//   - a ring of DEPTH shared tiles and ONE block barrier per item: after it, every thread's
//     copies for this item have landed and every warp is done with the previous item's
//     tile, which the next copies (item + DEPTH - 1) then refill;
//   - cp.async and stores use one pointer per thread plus immediate offsets;
//   - outputs are staged per warp (half a warp's outputs at a time, __syncwarp only) and
//     written as 16-byte stores in runs of 64 bytes (whole 32-byte sectors), with one
//     warp-uniform bounds test (element tests only in a partial warp span);
//   - optionally a balanced grid (ceil(items / rounds) blocks, every block the same number of
//     items); the policy keeps all resident blocks, which measured as fast or faster.
// Traffic: per item (channel, BO outputs): BO + TAPS samples read once from DRAM (read
// amplification (BO + TAPS)/BO <= 1.03), BO outputs written once; taps from constant
// memory. Shared memory: DEPTH tiles of skew(BO + TAPS) floats + per warp skew(16*32) floats
// of output staging.
template <int THREADS, int R, int TAPS, int DEPTH>
struct ShortShape {
  static constexpr int T = 32;
  static constexpr int BO = THREADS * R;
  static constexpr int TILE = skew(BO + TAPS);
  static constexpr int STAGING = skew(32 * R / 2);  // per warp: 16 outputs of each lane
  static constexpr std::size_t smem_bytes = sizeof(float) * (DEPTH * TILE + THREADS / 32 * STAGING);
};

template <int THREADS, int R, int TAPS, int DEPTH, int MIN_BLOCKS, bool OFFSET, bool SLIDE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    fast_short_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                      std::size_t y_stride, int frames, int tap_base, int tap_stride, int channels) {
  using Shape = ShortShape<THREADS, R, TAPS, DEPTH>;
  constexpr int T = Shape::T, BO = Shape::BO, TILE = Shape::TILE;
  static_assert(R == 32 && TAPS % T == 0 && TAPS > 0 && DEPTH >= 2, "the skewed layout assumes 32-float rows");
  extern __shared__ __align__(16) float smem[];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  float* staging = smem + DEPTH * TILE + warp * Shape::STAGING;
  const int tiles_per_channel = (frames + BO - 1) / BO;
  const int items = tiles_per_channel * channels;
  const int mine = items > static_cast<int>(blockIdx.x) ? (items - 1 - blockIdx.x) / gridDim.x + 1 : 0;

  struct Cursor {
    int c, b;
  };
  const auto advance = [&](Cursor& at) {
    at.b += gridDim.x;
    while (at.b >= tiles_per_channel) {
      at.b -= tiles_per_channel;
      ++at.c;
    }
  };
  // Samples x[b0 - TAPS + i], i in [0, BO + TAPS): every n - k of the item. Thread t copies
  // vectors t + i*THREADS: one pointer per side, the rest immediate offsets.
  const float* const x_t = x + 4 * t - TAPS;
  const int dst_t = skew(4 * t);  // skew(4 * (t + i*THREADS)) = dst_t + i * skew(4 * THREADS)
  const auto fetch = [&](const Cursor& at, float* dst) {
    const float* src = x_t + at.c * x_stride + static_cast<std::size_t>(at.b) * BO;
    constexpr int vectors = (BO + TAPS) / 4;
    static_assert((4 * THREADS) % 32 == 0, "whole skewed rows per step");
#pragma unroll
    for (int i = 0; i < (vectors + THREADS - 1) / THREADS; ++i)
      if ((i + 1) * THREADS <= vectors || t + i * THREADS < vectors)
        copy_async_16(dst + dst_t + i * skew(4 * THREADS), src + 4 * THREADS * i);
  };
  const Cursor first{static_cast<int>(blockIdx.x) / tiles_per_channel,
                     static_cast<int>(blockIdx.x) % tiles_per_channel};
  Cursor now = first, ahead = first;
  int fetch_slot = 0, slot = 0;
#pragma unroll
  for (int p = 0; p < DEPTH - 1; ++p) {
    if (p < mine) {
      fetch(ahead, smem + fetch_slot * TILE);
      advance(ahead);
    }
    copy_async_commit();
    fetch_slot = fetch_slot + 1 == DEPTH ? 0 : fetch_slot + 1;
  }

  for (int s = 0; s < mine; ++s) {
    copy_async_wait<DEPTH - 2>();  // this thread's copies for item s have landed
    __syncthreads();               // everyone's; and item s-1's tile (fetch_slot) is free
    if (s + DEPTH - 1 < mine) {
      fetch(ahead, smem + fetch_slot * TILE);
      advance(ahead);
    }
    copy_async_commit();
    fetch_slot = fetch_slot + 1 == DEPTH ? 0 : fetch_slot + 1;

    const float* tile = smem + slot * TILE;
    slot = slot + 1 == DEPTH ? 0 : slot + 1;
    const float* h = OFFSET ? c_taps + tap_base + now.c * tap_stride : c_taps;

    float acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = 0.0f;
    if constexpr (SLIDE) {
      // Tap tile k (taps kT..kT+T-1) reads w[i] = tile sample t*R + TAPS - (k+1)T + i,
      // i in [0, R + T); output r, tap kT + j takes w[r + T - j] (= x[n_r - kT - j]).
      float w[R + T];
      load_window<R + T>(tile + skew(t * R + TAPS - T), w);
#pragma unroll
      for (int k = 0; k < TAPS / T; ++k) {
        if (k > 0) {  // slide down by T: the old w[0, R) become w[T, R + T); load the new w[0, T)
#pragma unroll
          for (int i = R + T - 1; i >= T; --i) w[i] = w[i - T];
          load_window<T>(tile + skew(t * R + TAPS - (k + 1) * T), w);
        }
#pragma unroll
        for (int j = 0; j < T; ++j) {
          const float hj = h[k * T + j];
#pragma unroll
          for (int r = 0; r < R; ++r) acc[r] = fmaf(hj, w[r + T - j], acc[r]);
        }
      }
    } else {
      // A loop over the tap tiles (one tile of R*T FMAs as its body, 16 KB of code; the
      // window reloaded per tap tile), as fast_pipelined_kernel's stage with TAPS taps.
      convolve_stage<R, T>(tile, t, TAPS, h, acc);
    }

    // Write: per warp, half of each lane's outputs at a time through its staging rows. Staging
    // element e = 4*lane + 128*v holds output i(e) = (e/16)*R + 16*half + e%16 of the warp
    // (lane e/16's output 16*half + e%16): for lane, i = lane_out + 256*v + 16*half.
    const int w0 = now.b * BO + warp * 32 * R;  // the warp's first output
    float* const out = y + now.c * y_stride + w0;
    const int valid = frames - w0;
    const int lane_out = (lane >> 2) * R + 4 * (lane & 3);
    advance(now);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      if (half > 0) __syncwarp();  // every lane has read the first half
#pragma unroll
      for (int q = 0; q < R / 8; ++q)
        *reinterpret_cast<float4*>(staging + skew(16 * lane) + 4 * q) =
            make_float4(acc[16 * half + 4 * q], acc[16 * half + 4 * q + 1], acc[16 * half + 4 * q + 2],
                        acc[16 * half + 4 * q + 3]);
      __syncwarp();
      float4 o[R / 8];
#pragma unroll
      for (int v = 0; v < R / 8; ++v)
        o[v] = *reinterpret_cast<const float4*>(staging + skew(4 * lane) + v * skew(128));
      if (valid >= 32 * R) {  // the whole warp's outputs (warp-uniform)
#pragma unroll
        for (int v = 0; v < R / 8; ++v)
          *reinterpret_cast<float4*>(out + lane_out + 256 * v + 16 * half) = o[v];
      } else {
#pragma unroll
        for (int v = 0; v < R / 8; ++v) store_four(out, lane_out + 256 * v + 16 * half, o[v], valid);
      }
    }
    // The next write to `staging` comes after the next item's __syncthreads.
  }
  copy_async_wait<0>();
}

// ---- host side: plans and launches ------------------------------------------------------

// Blocks of a persistent grid: every item gets a block while blocks fit at once; `balanced`:
// ceil(items / rounds) blocks, so that every block takes the same number of items.
inline unsigned persistent_grid(std::size_t items, int resident, bool balanced) {
  const std::size_t fit = static_cast<std::size_t>(std::max(1, resident));
  std::size_t grid = std::min(items, fit);
  if (balanced) {
    const std::size_t rounds = (items + fit - 1) / fit;
    grid = (items + rounds - 1) / rounds;
  }
  return static_cast<unsigned>(std::max<std::size_t>(grid, 1));
}

template <int THREADS, int S, int MIN_BLOCKS>
constexpr auto pipelined_instance =
    fast_pipelined_kernel<THREADS, FastPolicy::outputs_per_thread, FastPolicy::tap_tile, S, MIN_BLOCKS>;

template <int THREADS, int S, int MIN_BLOCKS>
cudaError_t launch_pipelined(const ConvolutionPlan& plan, const PlanarLaunch& p, cudaStream_t stream) noexcept {
  constexpr int BO = THREADS * FastPolicy::outputs_per_thread;
  const std::size_t items = (p.frames + BO - 1) / BO * p.channels;
  pipelined_instance<THREADS, S, MIN_BLOCKS><<<persistent_grid(items, plan.resident_blocks, plan.balanced), THREADS, 0,
                                               stream>>>(p.x, p.x_stride, p.y, p.y_stride, static_cast<int>(p.frames),
                                                         plan.taps, p.tap_base, static_cast<int>(p.tap_stride),
                                                         p.channels);
  return cudaGetLastError();
}

// fast_pipelined_kernel with THREADS threads and S taps per stage, into `plan`.
template <int THREADS, int S, int MIN_BLOCKS>
void plan_pipelined(ConvolutionPlan& plan, GpuDevice& device) {
  plan.dynamic_smem = 0;
  plan.resident_blocks = device.resident_blocks(reinterpret_cast<const void*>(pipelined_instance<THREADS, S, MIN_BLOCKS>),
                                                THREADS, 0);
  plan.launch = launch_pipelined<THREADS, S, MIN_BLOCKS>;
}

using Short = ShortPolicy;
template <int TAPS, bool OFFSET, bool SLIDE>
constexpr auto short_instance = fast_short_kernel<Short::threads, Short::outputs_per_thread, TAPS,
                                                  Short::pipeline_depth, Short::min_blocks_per_sm, OFFSET, SLIDE>;

template <int TAPS, bool OFFSET, bool SLIDE>
cudaError_t launch_short(const ConvolutionPlan& plan, const PlanarLaunch& p, cudaStream_t stream) noexcept {
  const std::size_t items = (p.frames + Short::block_outputs - 1) / Short::block_outputs * p.channels;
  short_instance<TAPS, OFFSET, SLIDE><<<persistent_grid(items, plan.resident_blocks, plan.balanced), Short::threads,
                                        plan.dynamic_smem, stream>>>(p.x, p.x_stride, p.y, p.y_stride,
                                                                     static_cast<int>(p.frames), p.tap_base,
                                                                     static_cast<int>(p.tap_stride), p.channels);
  return cudaGetLastError();
}

// The short-mask kernel for TAPS padded taps, into `plan`: the sliding-window form up to
// slide_max taps (and never above 64: longer, its code outgrows the instruction cache --
// measured: 96 and 128 taps ran at 55 % of the FMA peak -- and at 96 taps ptxas spills).
template <int TAPS, bool OFFSET>
void plan_short_taps(ConvolutionPlan& plan, int slide_max, GpuDevice& device) {
  const void* kernel = reinterpret_cast<const void*>(short_instance<TAPS, OFFSET, false>);
  plan.launch = launch_short<TAPS, OFFSET, false>;
  if constexpr (TAPS <= 64) {
    if (TAPS <= slide_max) {
      kernel = reinterpret_cast<const void*>(short_instance<TAPS, OFFSET, true>);
      plan.launch = launch_short<TAPS, OFFSET, true>;
    }
  }
  plan.dynamic_smem = ShortShape<Short::threads, Short::outputs_per_thread, TAPS, Short::pipeline_depth>::smem_bytes;
  plan.resident_blocks = device.resident_blocks(kernel, Short::threads, plan.dynamic_smem);
}

template <bool OFFSET>
void plan_short(ConvolutionPlan& plan, int slide_max, GpuDevice& device) {
  static_assert(Short::max_taps <= 128, "one instantiation per multiple of the tap tile, up to 128");
  switch (plan.taps) {
    case 32: return plan_short_taps<32, OFFSET>(plan, slide_max, device);
    case 64: return plan_short_taps<64, OFFSET>(plan, slide_max, device);
    case 96: return plan_short_taps<96, OFFSET>(plan, slide_max, device);
    case 128: return plan_short_taps<128, OFFSET>(plan, slide_max, device);
    default: throw Error("internal: the short-mask kernel got " + std::to_string(plan.taps) + " taps");
  }
}

// cuda-fast as the engine runs it: the short-mask kernel up to ShortPolicy::max_taps padded
// taps (constant-bank addresses unless taps_at_offset), the pipelined kernel above.
inline void plan_fast(ConvolutionPlan& plan, bool taps_at_offset, GpuDevice& device) {
  plan.balanced = Short::balanced_grid;
  if (plan.taps > Short::max_taps)
    return plan_pipelined<FastPolicy::threads, FastPolicy::taps_per_stage, FastPolicy::min_blocks_per_sm>(plan, device);
  if (taps_at_offset)
    plan_short<true>(plan, Short::slide_max_taps, device);
  else
    plan_short<false>(plan, Short::slide_max_taps, device);
}

}  // namespace
}  // namespace halo::cuda
