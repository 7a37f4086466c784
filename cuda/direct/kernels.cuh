#pragma once
// The direct FIR kernels of halo, side by side, and the host functions that plan and launch
// them. Plain C++ (no device code here): the engines and the benchmark include it.
//
// All kernels compute, for each channel c of a planar buffer, the causal convolution
//     y[n] = sum_{k < M} h_c[k] x[n - k],   0 <= n < frames,
// reading x[n - k] for n - k < 0 from the halo cells that the caller keeps in front of x
// (halo_frames() of them; zeros at the start of a stream, the previous chunk's last frames
// afterwards). Only past samples are needed (causal): the "left" halo of the textbook's
// centred convolution is all there is; there is no right halo.
//
// Accuracy: every kernel sums each output in blocks of taps (policy.hpp) into a fresh
// partial sum and adds the partial into the running total, so the float rounding error grows
// like sqrt(block) + sqrt(M / block) instead of sqrt(M): ||y - y_exact|| / ||y_exact|| stays
// under 1e-6 for random 16383-tap masks (one float accumulator over M terms gives ~3e-6).
//
// Overview (each kernel's own comment details its traffic: textbook_kernels.cuh for basic,
// constant, tiled and cached; fast_kernels.cuh for fast):
//
// | kernel   | taps from          | input samples from                 | outputs per thread |
// |----------|--------------------|------------------------------------|--------------------|
// | basic    | global (L1/L2)     | global, M loads per output         | 1                  |
// | constant | __constant__       | global, M loads per output         | 1                  |
// | tiled    | __constant__       | shared tile of block + M-1 halo    | 1                  |
// | cached   | __constant__       | shared tile of the block's cells;  | 1                  |
// |          |                    | halo cells from global (L1/L2)     |                    |
// | fast     | __constant__ (warp-| shared tile (16-byte loads), then  | FastPolicy::       |
// |          | uniform operands)  | a register window per thread       | outputs_per_thread |
// | fast,    | __constant__ (tap  | as fast (<= 32 taps: the window    | ShortPolicy::      |
// | short    | count compile-time)| slides across unrolled tap tiles)  | outputs_per_thread |
// | fast,    | __constant__ (one  | a device ring of history + the     | 1 per partial sum; |
// | period   | partial per block) | block from `in`, shared window     | split-K over taps  |
//
// Performance considerations:
// - basic: every output reloads M samples and M taps through L1; the taps are the same
//   addresses for the whole warp, so they broadcast, but each costs a load instruction.
//   Load-issue bound, roughly 2 loads per FMA.
// - constant: the taps come through the constant cache as warp-uniform operands; one load
//   per FMA remains (the sample). The textbook's largest step.
// - tiled: the block's B + M - 1 samples are loaded once into shared memory, so global
//   traffic is (B + M - 1)/B reads per output; each FMA still needs one shared-memory load.
//   Shared memory grows with M (dynamic, up to (1024 + 16383) floats).
// - cached: shared tile of B samples only; the M - 1 halo reads per block go to L1/L2 with a
//   branch per tap. Saves shared memory, costs divergence near the block's left edge.
// - fast: each thread keeps FastPolicy::outputs_per_thread consecutive outputs in registers
//   and slides a window of samples over a tap tile, so one 16-byte shared load feeds
//   ~outputs_per_thread FMAs and each tap (one uniform constant load) feeds as many. Taps are
//   zero-padded to a multiple of the tap tile, so the inner loop has no branch. A persistent
//   grid; each block double-buffers its shared tiles with cp.async so the next tile's DRAM
//   reads overlap this tile's FMAs. Bounded by FMA issue for M >= ~64 (83-89 % of the FP32
//   peak on an H100 for M >= 255), by DRAM bandwidth and issue together below.
// - fast, short masks (padded taps <= ShortPolicy::max_taps = 128): the same arithmetic with
//   the tap count a template argument: no stage bookkeeping, one block barrier per
//   4096-output item instead of four (ring of shared tiles), copies and stores with
//   immediate offsets, outputs staged per warp (__syncwarp only); at 32 padded taps the tap
//   tiles are unrolled and the window slides in registers, above that a 16 KB tap-tile loop
//   (fully unrolled code outgrew the instruction cache). H100: 1.07x the copy floor at
//   M = 15, 1.10x at M = 63; 72-80 % of the FMA peak at M = 95..127.
//   bench/NOTES.md has the measurements.
// - fast, period (cuda-fast's small-block path, period_kernels.cuh): for blocks of up to a
//   few thousand frames the tiles above leave most SMs idle (64 frames x 2 channels is 2 of
//   4096-output tiles); this kernel makes every partial sum of taps its own block (split-K),
//   and the last one of each output tile adds them in order, so the result is the same bits.
//   One launch per period, captured in a graph with its copies (direct_engine.cu).
//
// Where the taps are: a GPU's constant bank is shared by every engine on it; an engine leases
// a region (GpuDevice::lease_bank) and the kernels read channel c's mask at
// c_taps[tap_base + c * tap_stride] (basic: the same in device memory), tap_base inside the
// lease. The dispatch keeps
// the short-mask kernel's compile-time bank addresses for a single mask at offset 0 (every
// engine alone on its GPU); elsewhere it costs one address register.
//
// Files: policy.hpp (tile sizes), block_primitives.cuh (device helpers shared by kernels),
// tap_bank.cuh (the constant bank, one per translation unit), textbook_kernels.cuh,
// fast_kernels.cuh, period_kernels.cuh (the small-block path), dispatch.cu (plans and
// launches; the library's only bank), layout.cu
// (deinterleave, interleave, carry); bench/fast_variants.cu holds the benchmark's other shapes.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda/direct/policy.hpp"

namespace halo::cuda {

class GpuDevice;

// One launch over a planar buffer.
struct PlanarLaunch {
  const float* x = nullptr;       // channel 0's sample 0; halo_frames() readable frames before it
  std::size_t x_stride = 0;       // floats between channels' x
  float* y = nullptr;             // channel 0's output 0 (16-byte aligned)
  std::size_t y_stride = 0;       // floats between channels' y
  std::size_t frames = 0;         // outputs per channel (< 2^31)
  int channels = 1;
  int tap_base = 0;               // channel 0's mask: bank offset (basic: offset in global_taps)
  std::size_t tap_stride = 0;     // floats between channels' masks; 0: one mask for all
  const float* global_taps = nullptr;  // basic only: its masks in device memory
};

// What is settled once per kernel and mask length (at set_taps), so that a launch only
// launches: the kernel instance, its shared memory and how many of its blocks fit at once.
struct ConvolutionPlan {
  Kernel kernel = Kernel::fast;  // the kernel that runs
  int taps = 0;                  // padded_taps(kernel, M)
  int block_threads = 256;       // textbook kernels (1..1024)
  std::size_t dynamic_smem = 0;  // bytes per block
  int resident_blocks = 0;       // persistent kernels: blocks that fit on the GPU at once
  bool balanced = false;         // persistent kernels: equal items per block (bench variant)
  cudaError_t (*launch)(const ConvolutionPlan&, const PlanarLaunch&, cudaStream_t) noexcept = nullptr;
};

// Plans `kernel` for masks of `taps` padded taps on `device` (the current device), querying
// occupancy through the device's cache and opting in to large shared memory there.
// taps_at_offset: some launch will have tap_base != 0, or tap_stride != 0 with 2+ channels
// (false lets the short-mask kernel use compile-time bank addresses). Throws
// halo::cuda::Error.
ConvolutionPlan plan_convolution(Kernel kernel, std::size_t taps, bool taps_at_offset, int block_threads,
                                 GpuDevice& device);

// x, y, and the strides must be multiples of 4 floats for cuda-fast; x must be readable from
// x - halo_frames to x + round_up(frames, frame_granule) + read_slack_frames. Returns the
// launch's status (never throws).
cudaError_t launch_convolution(const ConvolutionPlan& plan, const PlanarLaunch& launch, cudaStream_t stream) noexcept;

// Copies `count` floats into the library's constant tap bank at `offset` (a lease's region;
// the current device), on `stream`, and waits for it. Throws halo::cuda::Error.
void upload_taps(std::size_t offset, const float* host_taps, std::size_t count, cudaStream_t stream);

// ---- the period kernel (period_kernels.cuh): cuda-fast's small-block path -----------------
//
// For blocks of up to a few thousand frames (an audio period), the engine keeps each
// channel's input history in a ring on the device and computes a whole block in one launch
// that splits the taps across blocks (split-K), as period_kernels.cuh explains. It reads the
// block's frames and stream position from a PeriodHeader in memory (not from its arguments),
// so one launch, captured once in a CUDA graph, serves every block size and every period.

// Written by the host before each launch: the block's first frame in the stream, and its size.
struct PeriodHeader {
  long long position = 0;  // frames of the stream before this block (>= 0)
  int frames = 0;          // 1 .. the launch's tiles * period_tile_frames
  int unused = 0;          // (16 bytes: the samples after it stay 16-byte aligned)
};

// Outputs per block of the period kernel (one per thread).
constexpr int period_tile_frames = 64;

// How the period kernel adds its partial sums, to reproduce bit for bit the kernel that the
// chunk path runs for the same taps (kernels.cuh's accuracy note: partials of a fixed number of
// taps, summed in tap order):
//   fast_short:     fast_short_kernel, padded taps <= ShortPolicy::max_taps: one partial,
//                   stored as it is;
//   fast_pipelined: fast_pipelined_kernel: partials of FastPolicy::taps_per_stage taps, added
//                   in order into a total that starts at 0;
//   constant:       the textbook kernels (cuda-fast's fallback when padded masks overflow the
//                   bank): partials of KernelPolicy::taps_per_partial unpadded taps, likewise.
enum class PeriodSum { fast_short, fast_pipelined, constant };

// Taps per partial sum of each form (the fast kernels' stage, the textbook kernels' partial).
constexpr int period_taps_per_partial(PeriodSum sum) {
  return sum == PeriodSum::constant ? KernelPolicy::taps_per_partial : FastPolicy::taps_per_stage;
}

struct PeriodLaunch {
  const PeriodHeader* header = nullptr;  // device-readable (device memory or mapped pinned)
  const float* in = nullptr;             // the block's frames, interleaved (device-readable)
  float* out = nullptr;                  // the block's outputs, interleaved (device-writable)
  float* ring = nullptr;                 // channel c's history at ring + c * ring_frames
  std::size_t ring_frames = 0;           // a power of two >= taps + the largest block
  float* partials = nullptr;             // channels * tiles * partial sums * period_tile_frames
  unsigned* counters = nullptr;          // channels * tiles, zero between launches
  const int* tap_offsets = nullptr;      // channel c's mask at c_taps[tap_offsets[c]] (device)
  int taps = 0;                          // taps per mask as the kernel reads them (padded for fast)
  int channels = 1;
  int tiles = 1;                         // ceil(largest block / period_tile_frames)
  PeriodSum sum = PeriodSum::fast_pipelined;
};

// Partial sums per output for `taps` taps read in `sum`'s form (the size of `partials`).
constexpr int period_partials(PeriodSum sum, std::size_t taps) {
  return static_cast<int>((taps + period_taps_per_partial(sum) - 1) / period_taps_per_partial(sum));
}

// Launches the period kernel (capturable into a graph). Returns the launch's status.
cudaError_t launch_period(const PeriodLaunch& launch, cudaStream_t stream) noexcept;

// Interleaved <-> planar, on the device. planar channel c frame f is planar[c*stride + f].
cudaError_t launch_deinterleave(const float* interleaved, std::size_t frames, int channels, float* planar,
                                std::size_t stride, cudaStream_t stream) noexcept;
cudaError_t launch_interleave(const float* planar, std::size_t stride, std::size_t frames, int channels,
                              float* interleaved, cudaStream_t stream) noexcept;
// For every channel c: copies the `count` frames ending (exclusive) at src_end + c*stride to
// the `count` frames ending at dst_end + c*stride (the halo carry; the ranges must not overlap).
cudaError_t launch_carry(const float* src_end, float* dst_end, std::size_t stride, std::size_t count, int channels,
                         cudaStream_t stream) noexcept;

}  // namespace halo::cuda
