#pragma once
// cuda-fast's period kernel: the small-block path (an audio period of 32..8192 frames) with
// long masks, and its launch. Device code, one copy per translation unit (tap_bank.cuh says
// why): the library includes it in dispatch.cu only.
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/direct/kernels.cuh"
#include "cuda/direct/policy.hpp"
#include "cuda/direct/tap_bank.cuh"

namespace halo::cuda {
namespace {

// ---------------------------------------------------------------------------------------
// period: split-K over the taps. A period of 64 frames x 2 channels x 16383 taps is 2M FMAs:
// the fast kernels' 4096-output tiles would put it on 2 blocks of one SM each, walking 64
// stages in turn, while the other 130 SMs idle. Here the taps are the parallel dimension:
// block (p, b, c) computes, for channel c and the TILE outputs [b*TILE, (b+1)*TILE) of the
// block, the partial sum over taps [p*P, p*P + P) (P = taps per partial: the fast kernels'
// stage, or the textbook kernels' partial), one output per thread; the last of the partial
// blocks of (b, c) to finish adds the partials in tap order and writes the outputs. Each
// output is thus the very chain of float operations the chunk path's kernel computes (same
// fmaf order inside a partial, partials added in order from 0, or the single partial stored
// as it is, PeriodSum), so the two paths agree bit for bit.
//
// The input: channel c's history lives in a ring of ring_frames (a power of two >= taps +
// the largest block) on the device: stream frame q at ring[c][q & (ring_frames - 1)]. The
// block's own frames come from `in` (interleaved, as the host gave them); partial 0's blocks
// copy them into the ring for the next periods. Reads of the ring go to stream frames
// [position - taps, position), writes to [position, position + frames): distinct cells, so
// the blocks of one launch never race. Nothing is carried by copying.
//
// Traffic, per block: TILE + P samples into a shared window (one float per thread per step,
// consecutive frames, coalesced; the ring is a few hundred KiB and stays in L2; the block's
// own frames come from `in`, strided by the channel count), P
// taps from constant memory (warp-uniform: each tap feeds TILE FMAs); one partial per thread
// written to L2 and read once by the finishing block (2 * 4 bytes per output and partial:
// 64 KiB for a 2-channel, 64-frame, 16384-tap period, all in L2); TILE outputs written once.
// Inner loop: one shared load + one FMA per tap (conflict-free: consecutive threads read
// consecutive samples), 32 taps unrolled; a thread's P FMAs are one dependent chain (the
// summation order is the contract), so a block takes ~P * 4 cycles, and the grid
// (partials x tiles x channels: 128 blocks for 64 frames x 2 channels x 16384 taps) covers
// the GPU in one wave. Blocks past the period's frames (tiles beyond a short block) return
// at once.
template <int TILE, int P>
__global__ void __launch_bounds__(TILE) period_kernel(PeriodLaunch a) {
  __shared__ float window[TILE + P];
  __shared__ bool finishing;
  const int p = blockIdx.x, b = blockIdx.y, c = blockIdx.z, t = threadIdx.x;
  const PeriodHeader header = *a.header;
  const int frames = header.frames;
  const int b0 = b * TILE;
  if (b0 >= frames) return;  // the whole (b, c) group sees the same frames: all or none return
  const int k0 = p * P;
  const int span = min(P, a.taps - k0);
  const std::size_t wrap = a.ring_frames - 1;
  float* const ring = a.ring + c * a.ring_frames;

  // window[i] = x[b0 - k0 - span + i], i in [0, TILE + span): stream frame position + that.
  const int first = b0 - k0 - span;
  for (int i = t; i < TILE + span; i += TILE) {
    const int n = first + i;  // frame within the block; < 0: history
    float v = 0.0f;           // past the block's frames: read by no output that is written
    if (n < 0)
      v = ring[static_cast<std::size_t>(header.position + n) & wrap];
    else if (n < frames)
      v = a.in[static_cast<std::size_t>(n) * a.channels + c];
    window[i] = v;
  }
  __syncthreads();
  const int n = b0 + t;  // this thread's output
  if (p == 0 && n < frames) ring[static_cast<std::size_t>(header.position + n) & wrap] = window[t + span];

  // partial = sum_{j < span} h[k0 + j] * x[n - k0 - j], in tap order (x[n - k0 - j] is
  // window[t + span - j]).
  const float* h = c_taps + a.tap_offsets[c] + k0;
  const float* w = window + t + span;
  float partial = 0.0f;
  int j = 0;
#pragma unroll 1
  for (; j + 32 <= span; j += 32) {
#pragma unroll
    for (int i = 0; i < 32; ++i) partial = fmaf(h[j + i], w[-(j + i)], partial);
  }
#pragma unroll 1
  for (; j < span; ++j) partial = fmaf(h[j], w[-j], partial);  // the textbook form's unpadded rest

  const int partials = gridDim.x;
  if (partials == 1) {  // nothing to wait for
    if (n < frames) a.out[static_cast<std::size_t>(n) * a.channels + c] = a.sum == PeriodSum::fast_short ? partial : 0.0f + partial;
    return;
  }
  float* const mine = a.partials + (static_cast<std::size_t>(c) * a.tiles + b) * partials * TILE + t;
  mine[p * TILE] = partial;
  __threadfence();  // the partial is visible GPU-wide before this block is counted
  __syncthreads();
  unsigned* const counter = a.counters + c * a.tiles + b;
  if (t == 0) finishing = atomicAdd(counter, 1u) == static_cast<unsigned>(partials - 1);
  __syncthreads();
  if (!finishing) return;
  __threadfence();  // every other block's partial is visible to this one
  float total = 0.0f;
  for (int q = 0; q < partials; ++q) total += __ldcg(mine + q * TILE);  // L2: never a stale L1 line
  if (n < frames) a.out[static_cast<std::size_t>(n) * a.channels + c] = total;
  if (t == 0) *counter = 0;  // ready for the next launch (stream order)
}

}  // namespace
}  // namespace halo::cuda
