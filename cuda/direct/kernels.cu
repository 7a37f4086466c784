// The direct FIR kernels (see kernels.cuh for the overview and the launch contract).
#include <algorithm>
#include <iterator>
#include <string>

#include "cuda/device/error.hpp"
#include "cuda/direct/kernels.cuh"

namespace halo::cuda {
namespace {

// The tap bank: every channel's mask, back to back (or one mask shared by all channels).
__constant__ float c_taps[max_constant_taps];

constexpr int taps_per_partial = KernelPolicy::taps_per_partial;

// ---------------------------------------------------------------------------------------
// basic: one output per thread, taps in global memory.
// Traffic: each thread loads its M samples x[n-k] and the M taps from global memory. Across
// a warp the sample loads coalesce (consecutive n) and the tap loads are one address
// (broadcast); L1/L2 serve the M-fold reuse of each sample by neighbouring outputs. Nothing is
// staged: 2 load instructions per FMA.
__global__ void basic_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                             std::size_t y_stride, int frames, int taps, const float* __restrict__ h,
                             std::size_t tap_stride) {
  const int c = blockIdx.y;
  x += c * x_stride;
  y += c * y_stride;
  h += c * tap_stride;
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= frames) return;
  float total = 0.0f;
  for (int k0 = 0; k0 < taps; k0 += taps_per_partial) {
    const int k1 = min(taps, k0 + taps_per_partial);
    float partial = 0.0f;
    for (int k = k0; k < k1; ++k) partial = fmaf(h[k], x[n - k], partial);
    total += partial;
  }
  y[n] = total;
}

// ---------------------------------------------------------------------------------------
// constant: basic with the taps in __constant__ memory.
// Traffic: taps come through the constant cache; every thread of a warp reads the same tap
// at the same time, so each is one broadcast, a warp-uniform operand. Samples as in basic:
// M global loads per output, reused through L1/L2. 1 load instruction per FMA.
__global__ void constant_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                                std::size_t y_stride, int frames, int taps, int tap_stride) {
  const int c = blockIdx.y;
  x += c * x_stride;
  y += c * y_stride;
  const float* h = c_taps + c * tap_stride;
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= frames) return;
  float total = 0.0f;
  for (int k0 = 0; k0 < taps; k0 += taps_per_partial) {
    const int k1 = min(taps, k0 + taps_per_partial);
    float partial = 0.0f;
    for (int k = k0; k < k1; ++k) partial = fmaf(h[k], x[n - k], partial);
    total += partial;
  }
  y[n] = total;
}

// ---------------------------------------------------------------------------------------
// tiled: a shared-memory tile of the block's B samples plus the M-1 halo cells before them.
// Traffic: each block loads B + M - 1 samples from global memory once (coalesced), then every
// FMA reads its sample from shared memory; taps from constant memory as in `constant`.
// Global reads per output: (B + M - 1) / B. Shared memory: (B + M - 1) floats (dynamic).
__global__ void tiled_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                             std::size_t y_stride, int frames, int taps, int tap_stride) {
  extern __shared__ float tile[];
  const int c = blockIdx.y;
  x += c * x_stride;
  y += c * y_stride;
  const float* h = c_taps + c * tap_stride;
  const int halo = taps - 1;
  const int b0 = blockIdx.x * blockDim.x;
  for (int i = threadIdx.x; i < static_cast<int>(blockDim.x) + halo; i += blockDim.x) tile[i] = x[b0 - halo + i];
  __syncthreads();
  const int n = b0 + threadIdx.x;
  if (n >= frames) return;
  const float* window = tile + threadIdx.x + halo;  // window[-k] = x[n - k]
  float total = 0.0f;
  for (int k0 = 0; k0 < taps; k0 += taps_per_partial) {
    const int k1 = min(taps, k0 + taps_per_partial);
    float partial = 0.0f;
    for (int k = k0; k < k1; ++k) partial = fmaf(h[k], window[-k], partial);
    total += partial;
  }
  y[n] = total;
}

// ---------------------------------------------------------------------------------------
// cached: the shared tile holds only the block's own B samples; the halo cells (samples
// before the block) are read from global memory, where L1/L2 hold them because the previous
// block loaded them as its own cells.
// Traffic: B global loads per block into shared memory; per output, min(M, t+1) shared reads
// and M - min(M, t+1) global (cached) reads, with a branch per tap. Shared memory: B floats.
__global__ void cached_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                              std::size_t y_stride, int frames, int taps, int tap_stride) {
  extern __shared__ float tile[];
  const int c = blockIdx.y;
  x += c * x_stride;
  y += c * y_stride;
  const float* h = c_taps + c * tap_stride;
  const int t = threadIdx.x;
  const int n = blockIdx.x * blockDim.x + t;
  tile[t] = x[n];  // in the readable range even past `frames` (launch contract)
  __syncthreads();
  if (n >= frames) return;
  float total = 0.0f;
  for (int k0 = 0; k0 < taps; k0 += taps_per_partial) {
    const int k1 = min(taps, k0 + taps_per_partial);
    float partial = 0.0f;
    for (int k = k0; k < k1; ++k) {
      const int i = t - k;
      const float v = i >= 0 ? tile[i] : __ldg(x + (n - k));
      partial = fmaf(h[k], v, partial);
    }
    total += partial;
  }
  y[n] = total;
}

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
// Shared layout: sample i lives at skew(i) = i + 4*(i/32), which keeps both the per-thread
// window loads (thread stride R = 32 floats) and the coalesced fills free of bank conflicts.
// Taps are padded with zeros to a multiple of T (the halo in front of x is at least that long
// and zero beyond M-1 frames), so no branch is needed in the inner loops.
// Accuracy: one fresh partial per stage (S taps), added into the total.
__host__ __device__ constexpr int skew(int i) { return i + ((i >> 5) << 2); }

// One stage of the fast kernels: partial[r] += sum over the stage's taps j of
// h[j] * x[n_r - kc - j], the samples from `tile` (skewed, origin x[b0 - kc - stage]).
template <int R, int T>
__device__ __forceinline__ void convolve_stage(const float* tile, int t, int stage, const float* h_stage,
                                               float (&partial)[R]) {
#pragma unroll 1
  for (int j0 = 0; j0 < stage; j0 += T) {
    // Window w[i] = x[b0 + t*R - kc - j0 - T + i], i in [0, R + T): a multiple of 32 floats in.
    const float* window = tile + skew(t * R + stage - j0 - T);
    float w[R + T];
#pragma unroll
    for (int q = 0; q < (R + T) / 4; ++q) {
      const float4 v = *reinterpret_cast<const float4*>(window + skew(4 * q));
      w[4 * q] = v.x;
      w[4 * q + 1] = v.y;
      w[4 * q + 2] = v.z;
      w[4 * q + 3] = v.w;
    }
    const float* h = h_stage + j0;
#pragma unroll
    for (int j = 0; j < T; ++j) {
      const float hj = h[j];
#pragma unroll
      for (int r = 0; r < R; ++r) partial[r] = fmaf(hj, w[r - j + T], partial[r]);  // x[n_r - k]
    }
  }
}

template <int THREADS, int R, int T, int S>
__global__ void __launch_bounds__(THREADS) fast_kernel(const float* __restrict__ x, std::size_t x_stride,
                                                       float* __restrict__ y, std::size_t y_stride, int frames,
                                                       int taps, int tap_stride) {
  static_assert(R == 32 && T % 32 == 0 && S % T == 0, "the skewed layout assumes 32-float rows");
  constexpr int BO = THREADS * R;
  __shared__ __align__(16) float tile[skew(BO + S)];
  const int c = blockIdx.y;
  x += c * x_stride;
  y += c * y_stride;
  const int tap_base = c * tap_stride;
  const int b0 = blockIdx.x * BO;
  const int t = threadIdx.x;

  float total[R];
#pragma unroll
  for (int r = 0; r < R; ++r) total[r] = 0.0f;

  for (int kc = 0; kc < taps; kc += S) {
    const int stage = min(S, taps - kc);
    // Samples x[b0 - kc - stage + i], i in [0, BO + stage): every n - k of this stage.
    const float4* src = reinterpret_cast<const float4*>(x + (b0 - kc - stage));
    const int vectors = (BO + stage) / 4;
    __syncthreads();  // the previous stage's windows are read
    for (int v = t; v < vectors; v += THREADS)
      *reinterpret_cast<float4*>(tile + skew(4 * v)) = __ldg(src + v);
    __syncthreads();

    float partial[R];
#pragma unroll
    for (int r = 0; r < R; ++r) partial[r] = 0.0f;
    convolve_stage<R, T>(tile, t, stage, c_taps + tap_base + kc, partial);
#pragma unroll
    for (int r = 0; r < R; ++r) total[r] += partial[r];
  }

  // Stage the outputs through shared memory, then write them coalesced.
  __syncthreads();
#pragma unroll
  for (int q = 0; q < R / 4; ++q)
    *reinterpret_cast<float4*>(tile + skew(t * R + 4 * q)) =
        make_float4(total[4 * q], total[4 * q + 1], total[4 * q + 2], total[4 * q + 3]);
  __syncthreads();
  const int valid = frames - b0;
  for (int v = t; v < BO / 4; v += THREADS) {
    const float4 out = *reinterpret_cast<const float4*>(tile + skew(4 * v));
    const int i = 4 * v;
    if (i + 4 <= valid) {
      *reinterpret_cast<float4*>(y + b0 + i) = out;
    } else if (i < valid) {
      y[b0 + i] = out.x;
      if (i + 1 < valid) y[b0 + i + 1] = out.y;
      if (i + 2 < valid) y[b0 + i + 2] = out.z;
    }
  }
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

// fast (the engine's): fast_kernel's arithmetic in a persistent, software-pipelined block.
// The grid is as many blocks as fit on the GPU at once; block i takes work items (channel,
// output tile) i, i + grid, ... and walks their stages in order. Two shared tiles alternate:
// while the block computes step s from one, cp.async fills the other with step s+1's
// samples, so the DRAM reads of the next tile overlap this tile's FMAs (what bounds the
// short masks, where both take about as long).
// Traffic: as fast_kernel (each sample read (BO + S)/BO times per stage, mostly from DRAM
// once; taps from constant memory; outputs staged through the tile just computed and written
// with 16-byte coalesced stores). Shared memory: 2 tiles of skew(BO + S) floats.
template <int THREADS, int R, int T, int S, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    fast_pipelined_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                          std::size_t y_stride, int frames, int taps, int tap_stride, int channels) {
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
    convolve_stage<R, T>(tile, t, stage, c_taps + c * tap_stride + kc, partial);
#pragma unroll
    for (int r = 0; r < R; ++r) total[r] += partial[r];

    if (kc + stage == taps) {  // the item's last stage: write its outputs
      __syncthreads();         // every window of this tile is read
#pragma unroll
      for (int q = 0; q < R / 4; ++q) {
        *reinterpret_cast<float4*>(tile + skew(t * R + 4 * q)) =
            make_float4(total[4 * q], total[4 * q + 1], total[4 * q + 2], total[4 * q + 3]);
        total[4 * q] = total[4 * q + 1] = total[4 * q + 2] = total[4 * q + 3] = 0.0f;
      }
      __syncthreads();
      float* out = y + c * y_stride + b0;
      const int valid = frames - b0;
      for (int v = t; v < BO / 4; v += THREADS) {
        const float4 o = *reinterpret_cast<const float4*>(tile + skew(4 * v));
        const int i = 4 * v;
        if (i + 4 <= valid) {
          *reinterpret_cast<float4*>(out + i) = o;
        } else if (i < valid) {
          out[i] = o.x;
          if (i + 1 < valid) out[i + 1] = o.y;
          if (i + 2 < valid) out[i + 2] = o.z;
        }
      }
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
//   - taps: one mask for all channels: compile-time constant-bank addresses (uniform or
//     constant loads, no address arithmetic); per-channel masks: offset by channel;
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

template <int THREADS, int R, int TAPS, int DEPTH, int MIN_BLOCKS, bool PER_CHANNEL, bool SLIDE>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    fast_short_kernel(const float* __restrict__ x, std::size_t x_stride, float* __restrict__ y,
                      std::size_t y_stride, int frames, int tap_stride, int channels) {
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
    const float* h = PER_CHANNEL ? c_taps + now.c * tap_stride : c_taps;

    float acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = 0.0f;
    if constexpr (SLIDE) {
      // Tap tile k (taps kT..kT+T-1) reads w[i] = tile sample t*R + TAPS - (k+1)T + i,
      // i in [0, R + T); output r, tap kT + j takes w[r + T - j] (= x[n_r - kT - j]).
      float w[R + T];
      const float* window = tile + skew(t * R + TAPS - T);
#pragma unroll
      for (int q = 0; q < (R + T) / 4; ++q) {
        const float4 v = *reinterpret_cast<const float4*>(window + skew(4 * q));
        w[4 * q] = v.x;
        w[4 * q + 1] = v.y;
        w[4 * q + 2] = v.z;
        w[4 * q + 3] = v.w;
      }
#pragma unroll
      for (int k = 0; k < TAPS / T; ++k) {
        if (k > 0) {  // slide down by T: the old w[0, R) become w[T, R + T); load the new w[0, T)
#pragma unroll
          for (int i = R + T - 1; i >= T; --i) w[i] = w[i - T];
          const float* lower = tile + skew(t * R + TAPS - (k + 1) * T);
#pragma unroll
          for (int q = 0; q < T / 4; ++q) {
            const float4 v = *reinterpret_cast<const float4*>(lower + skew(4 * q));
            w[4 * q] = v.x;
            w[4 * q + 1] = v.y;
            w[4 * q + 2] = v.z;
            w[4 * q + 3] = v.w;
          }
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
        for (int v = 0; v < R / 8; ++v) {
          const int i = lane_out + 256 * v + 16 * half;
          if (i + 4 <= valid) {
            *reinterpret_cast<float4*>(out + i) = o[v];
          } else if (i < valid) {
            out[i] = o[v].x;
            if (i + 1 < valid) out[i + 1] = o[v].y;
            if (i + 2 < valid) out[i + 2] = o[v].z;
          }
        }
      }
    }
    // The next write to `staging` comes after the next item's __syncthreads.
  }
  copy_async_wait<0>();
}

using Fast = FastPolicy;
constexpr auto fast_instance = fast_pipelined_kernel<Fast::threads, Fast::outputs_per_thread, Fast::tap_tile,
                                                     Fast::taps_per_stage, Fast::min_blocks_per_sm>;

// Blocks of `kernel` that fit on the current device at once (asks for the whole shared-memory
// carveout, so that shared memory does not limit the blocks per SM below the registers' limit).
template <typename KernelFn>
int resident_blocks(KernelFn kernel, int threads, std::size_t dynamic_smem = 0) {
  HALO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cudaSharedmemCarveoutMaxShared));
  if (dynamic_smem > 48 * 1024)  // above the default limit a kernel must opt in
    HALO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(dynamic_smem)));
  int device = 0, per_sm = 0, sms = 0;
  HALO_CUDA_CHECK(cudaGetDevice(&device));
  HALO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem));
  HALO_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::max(1, per_sm) * sms;
}

template <typename KernelFn>
void launch_pipelined(KernelFn kernel, int threads, int block_outputs, const PlanarLaunch& p, cudaStream_t stream) {
  const std::size_t items = (p.frames + block_outputs - 1) / block_outputs * p.channels;
  const int grid = static_cast<int>(std::min<std::size_t>(items, resident_blocks(kernel, threads)));
  kernel<<<grid, threads, 0, stream>>>(p.x, p.x_stride, p.y, p.y_stride, static_cast<int>(p.frames), p.taps,
                                       static_cast<int>(p.tap_stride), p.channels);
  HALO_CUDA_CHECK_LAUNCH("fast_pipelined_kernel");
}

// The short-mask kernel for p.taps (a multiple of 32, at most ShortPolicy::max_taps).
// slide_max: the sliding-window form up to this many taps, the rolled one above.
// balanced: a grid that gives every block the same number of items (else: all that fit).
template <int DEPTH, int MIN_BLOCKS, bool PER_CHANNEL, int TAPS>
void launch_short_taps(const PlanarLaunch& p, int slide_max, bool balanced, cudaStream_t stream) {
  using Short = ShortPolicy;
  constexpr int R = Short::outputs_per_thread;
  auto kernel = fast_short_kernel<Short::threads, R, TAPS, DEPTH, MIN_BLOCKS, PER_CHANNEL, false>;
  // The sliding form only up to 64 taps: longer, its code outgrows the instruction cache
  // (measured: 96 and 128 taps ran at 55 % of the FMA peak), and at 96 taps ptxas spills.
  if constexpr (TAPS <= 64)
    if (TAPS <= slide_max) kernel = fast_short_kernel<Short::threads, R, TAPS, DEPTH, MIN_BLOCKS, PER_CHANNEL, true>;
  const std::size_t smem = ShortShape<Short::threads, R, TAPS, DEPTH>::smem_bytes;
  const std::size_t items = (p.frames + Short::block_outputs - 1) / Short::block_outputs * p.channels;
  const std::size_t resident = resident_blocks(kernel, Short::threads, smem);
  std::size_t grid = std::min(items, resident);
  if (balanced) {
    const std::size_t rounds = (items + resident - 1) / resident;
    grid = (items + rounds - 1) / rounds;
  }
  kernel<<<static_cast<unsigned>(grid), Short::threads, smem, stream>>>(
      p.x, p.x_stride, p.y, p.y_stride, static_cast<int>(p.frames), static_cast<int>(p.tap_stride), p.channels);
  HALO_CUDA_CHECK_LAUNCH("fast_short_kernel");
}

template <int DEPTH, int MIN_BLOCKS, bool PER_CHANNEL>
void launch_short_dispatch(const PlanarLaunch& p, int slide_max, bool balanced, cudaStream_t stream) {
  static_assert(ShortPolicy::max_taps <= 128, "one instantiation per multiple of the tap tile, up to 128");
  switch (p.taps) {
    case 32: launch_short_taps<DEPTH, MIN_BLOCKS, PER_CHANNEL, 32>(p, slide_max, balanced, stream); break;
    case 64: launch_short_taps<DEPTH, MIN_BLOCKS, PER_CHANNEL, 64>(p, slide_max, balanced, stream); break;
    case 96: launch_short_taps<DEPTH, MIN_BLOCKS, PER_CHANNEL, 96>(p, slide_max, balanced, stream); break;
    case 128: launch_short_taps<DEPTH, MIN_BLOCKS, PER_CHANNEL, 128>(p, slide_max, balanced, stream); break;
    default: throw Error("internal: the short-mask kernel got " + std::to_string(p.taps) + " taps");
  }
}

// cuda-fast as the engine runs it: the short-mask kernel up to ShortPolicy::max_taps padded
// taps (one mask for all channels: taps as constant operands), the pipelined kernel above.
void launch_fast(const PlanarLaunch& p, cudaStream_t stream) {
  using Short = ShortPolicy;
  if (p.taps <= Short::max_taps) {
    if (p.tap_stride == 0 || p.channels == 1)
      launch_short_dispatch<Short::pipeline_depth, Short::min_blocks_per_sm, false>(p, Short::slide_max_taps,
                                                                                    Short::balanced_grid, stream);
    else
      launch_short_dispatch<Short::pipeline_depth, Short::min_blocks_per_sm, true>(p, Short::slide_max_taps,
                                                                                   Short::balanced_grid, stream);
    return;
  }
  launch_pipelined(fast_instance, FastPolicy::threads, FastPolicy::block_outputs, p, stream);
}

// ---------------------------------------------------------------------------------------
// Layout helpers. Each thread moves one sample; coalesced on the interleaved side.
__global__ void deinterleave_kernel(const float* __restrict__ in, int frames, int channels, float* __restrict__ planar,
                                    std::size_t stride) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long long>(frames) * channels) return;
  const int f = static_cast<int>(i / channels);
  const int c = static_cast<int>(i - static_cast<long long>(f) * channels);
  planar[c * stride + f] = in[i];
}

__global__ void interleave_kernel(const float* __restrict__ planar, std::size_t stride, int frames, int channels,
                                  float* __restrict__ out) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long long>(frames) * channels) return;
  const int f = static_cast<int>(i / channels);
  const int c = static_cast<int>(i - static_cast<long long>(f) * channels);
  out[i] = planar[c * stride + f];
}

__global__ void carry_kernel(const float* __restrict__ src_end, float* __restrict__ dst_end, std::size_t stride,
                             int count) {
  const int c = blockIdx.y;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  dst_end[c * stride - count + i] = src_end[c * stride - count + i];
}

std::size_t round_up(std::size_t value, std::size_t granule) { return (value + granule - 1) / granule * granule; }

unsigned blocks_for(std::size_t items, int threads) {
  return static_cast<unsigned>((items + threads - 1) / threads);
}

}  // namespace

std::size_t padded_taps(Kernel kernel, std::size_t taps) {
  return kernel == Kernel::fast ? round_up(taps, FastPolicy::tap_tile) : taps;
}

std::size_t halo_frames(Kernel kernel, std::size_t taps) { return round_up(padded_taps(kernel, taps), 32); }

void upload_constant_taps(const float* host_taps, std::size_t count, cudaStream_t stream) {
  if (count > max_constant_taps) throw Error("internal: " + std::to_string(count) + " taps exceed the constant bank");
  HALO_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_taps, host_taps, count * sizeof(float), 0, cudaMemcpyHostToDevice, stream));
}

void launch_convolution(Kernel kernel, const PlanarLaunch& p, cudaStream_t stream) {
  if (p.frames == 0) return;
  const int frames = static_cast<int>(p.frames);
  const int tap_stride = static_cast<int>(p.tap_stride);
  const int threads = p.block_threads;
  if (kernel != Kernel::fast && (threads < 1 || threads > 1024))
    throw Error("block of " + std::to_string(threads) + " threads: give 1 to 1024");
  const dim3 seeds_grid(blocks_for(p.frames, threads), p.channels);
  switch (kernel) {
    case Kernel::basic:
      basic_kernel<<<seeds_grid, threads, 0, stream>>>(p.x, p.x_stride, p.y, p.y_stride, frames, p.taps, p.global_taps,
                                                       p.tap_stride);
      HALO_CUDA_CHECK_LAUNCH("basic_kernel");
      break;
    case Kernel::constant:
      constant_kernel<<<seeds_grid, threads, 0, stream>>>(p.x, p.x_stride, p.y, p.y_stride, frames, p.taps, tap_stride);
      HALO_CUDA_CHECK_LAUNCH("constant_kernel");
      break;
    case Kernel::tiled: {
      const std::size_t bytes = (threads + p.taps - 1) * sizeof(float);
      if (bytes > 48 * 1024)  // above the default limit a kernel must opt in
        HALO_CUDA_CHECK(cudaFuncSetAttribute(tiled_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(bytes)));
      tiled_kernel<<<seeds_grid, threads, bytes, stream>>>(p.x, p.x_stride, p.y, p.y_stride, frames, p.taps,
                                                           tap_stride);
      HALO_CUDA_CHECK_LAUNCH("tiled_kernel");
      break;
    }
    case Kernel::cached:
      cached_kernel<<<seeds_grid, threads, threads * sizeof(float), stream>>>(p.x, p.x_stride, p.y, p.y_stride, frames,
                                                                              p.taps, tap_stride);
      HALO_CUDA_CHECK_LAUNCH("cached_kernel");
      break;
    case Kernel::fast:
      launch_fast(p, stream);
      break;
  }
}

void launch_deinterleave(const float* interleaved, std::size_t frames, int channels, float* planar, std::size_t stride,
                         cudaStream_t stream) {
  if (frames == 0) return;
  deinterleave_kernel<<<blocks_for(frames * channels, 256), 256, 0, stream>>>(interleaved, static_cast<int>(frames),
                                                                              channels, planar, stride);
  HALO_CUDA_CHECK_LAUNCH("deinterleave_kernel");
}

void launch_interleave(const float* planar, std::size_t stride, std::size_t frames, int channels, float* interleaved,
                       cudaStream_t stream) {
  if (frames == 0) return;
  interleave_kernel<<<blocks_for(frames * channels, 256), 256, 0, stream>>>(planar, stride, static_cast<int>(frames),
                                                                            channels, interleaved);
  HALO_CUDA_CHECK_LAUNCH("interleave_kernel");
}

void launch_carry(const float* src_end, float* dst_end, std::size_t stride, std::size_t count, int channels,
                  cudaStream_t stream) {
  if (count == 0) return;
  carry_kernel<<<dim3(blocks_for(count, 256), channels), 256, 0, stream>>>(src_end, dst_end, stride,
                                                                           static_cast<int>(count));
  HALO_CUDA_CHECK_LAUNCH("carry_kernel");
}

namespace {
template <int THREADS, int S>
void launch_fast_shape(const PlanarLaunch& p, cudaStream_t stream) {
  constexpr int BO = THREADS * FastPolicy::outputs_per_thread;
  const dim3 grid(blocks_for(p.frames, BO), p.channels);
  fast_kernel<THREADS, FastPolicy::outputs_per_thread, FastPolicy::tap_tile, S><<<grid, THREADS, 0, stream>>>(
      p.x, p.x_stride, p.y, p.y_stride, static_cast<int>(p.frames), p.taps, static_cast<int>(p.tap_stride));
  HALO_CUDA_CHECK_LAUNCH("fast_kernel variant");
}

struct FastVariant {
  const char* name;
  void (*launch)(const PlanarLaunch&, cudaStream_t);
};
// Shapes for the benchmark to compare; the first is FastPolicy's (the engine's).
void launch_policy(const PlanarLaunch& p, cudaStream_t stream) { launch_fast(p, stream); }
void launch_long_policy(const PlanarLaunch& p, cudaStream_t stream) {
  launch_pipelined(fast_instance, FastPolicy::threads, FastPolicy::block_outputs, p, stream);
}
// Short-mask kernel shapes at up to 128 padded taps (longer masks: the policy).
template <int DEPTH, int MIN_BLOCKS, bool PER_CHANNEL, int SLIDE_MAX, bool BALANCED>
void launch_short_shape(const PlanarLaunch& p, cudaStream_t stream) {
  if (p.taps > 128) return launch_fast(p, stream);
  launch_short_dispatch<DEPTH, MIN_BLOCKS, PER_CHANNEL>(p, SLIDE_MAX, BALANCED, stream);
}
template <int THREADS, int S, int MIN_BLOCKS>
void launch_pipelined_shape(const PlanarLaunch& p, cudaStream_t stream) {
  launch_pipelined(fast_pipelined_kernel<THREADS, 32, 32, S, MIN_BLOCKS>, THREADS, THREADS * 32, p, stream);
}
const FastVariant fast_variants[] = {
    {"fast (policy: short-mask kernel up to ShortPolicy::max_taps, else pipelined)", launch_policy},
    {"fast pipelined 128 thr, stage 256 (policy above 128 taps)", launch_long_policy},
    {"fast short, rolled tap tiles at all taps", launch_short_shape<2, 4, false, 0, false>},
    {"fast short, sliding window up to 64 taps", launch_short_shape<2, 4, false, 64, false>},
    {"fast short, balanced grid", launch_short_shape<2, 4, false, 32, true>},
    {"fast short, per-channel tap loads", launch_short_shape<2, 4, true, 32, false>},
    {"fast pipelined 64 thr, stage 256", launch_pipelined_shape<64, 256, 8>},
    {"fast pipelined 128 thr, stage 512", launch_pipelined_shape<128, 512, 4>},
    {"fast 128 thr, 32 out, stage 256 (one tile per block)", launch_fast_shape<128, 256>},
    {"fast 64 thr, 32 out, stage 256", launch_fast_shape<64, 256>},
    {"fast 256 thr, 32 out, stage 256", launch_fast_shape<256, 256>},
    {"fast 128 thr, 32 out, stage 128", launch_fast_shape<128, 128>},
    {"fast 128 thr, 32 out, stage 512", launch_fast_shape<128, 512>},
};
}  // namespace

int fast_variant_count() { return static_cast<int>(std::size(fast_variants)); }
const char* fast_variant_name(int variant) { return fast_variants[variant].name; }
void launch_fast_variant(int variant, const PlanarLaunch& launch, cudaStream_t stream) {
  if (launch.frames == 0) return;
  fast_variants[variant].launch(launch, stream);
}

bool kernels_loadable(std::string* why) {
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, fast_instance);
  if (status == cudaSuccess) return true;
  cudaGetLastError();  // clear it
  if (why) *why = std::string("the CUDA kernels do not load on this GPU: ") + cudaGetErrorString(status);
  return false;
}

}  // namespace halo::cuda
