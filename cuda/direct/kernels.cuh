#pragma once
// The direct FIR kernels of halo, side by side, and the host functions that launch them.
// Plain C++ (no device code here): the engines and the benchmark include it.
//
// All kernels compute, for each channel c of a planar buffer, the causal convolution
//     y[n] = sum_{k < M} h_c[k] x[n - k],   0 <= n < frames,
// reading x[n - k] for n - k < 0 from the halo cells that the caller keeps in front of x
// (halo_frames() of them; zeros at the start of a stream, the previous chunk's last M-1
// frames afterwards). Only past samples are needed (causal): the "left" halo of the
// textbook's centred convolution is all there is; there is no right halo.
//
// Accuracy: every kernel sums each output in blocks of taps (policy below) into a fresh
// partial sum and adds the partial into the running total, so the float rounding error grows
// like sqrt(block) + sqrt(M / block) instead of sqrt(M): ||y - y_exact|| / ||y_exact|| stays
// under 1e-6 for random 16383-tap masks (one float accumulator over M terms gives ~3e-6).
//
// Overview (each kernel's own comment in kernels.cu details its traffic):
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
#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda/direct/direct_engine.hpp"

namespace halo::cuda {

// Tuning of the seeds' kernels and of cuda-fast, apart from the algorithms.
struct KernelPolicy {
  // basic/constant/tiled/cached: taps per partial sum.
  static constexpr int taps_per_partial = 128;
};

struct FastPolicy {
  static constexpr int threads = 128;             // per block
  static constexpr int outputs_per_thread = 32;   // R: consecutive outputs in registers
  static constexpr int tap_tile = 32;             // T: taps per unrolled inner loop; M is padded to it
  static constexpr int taps_per_stage = 256;      // taps whose samples one shared tile holds (partial sum)
  static constexpr int min_blocks_per_sm = 4;     // caps registers at 128 so 4 blocks (16 warps) fit
  static constexpr int block_outputs = threads * outputs_per_thread;  // 4096
};

// cuda-fast for short masks: padded taps <= max_taps run fast_short_kernel, one
// instantiation per padded tap count (32, 64, 96, 128), same block shape as FastPolicy.
struct ShortPolicy {
  static constexpr int threads = FastPolicy::threads;
  static constexpr int outputs_per_thread = FastPolicy::outputs_per_thread;
  static constexpr int max_taps = 128;           // padded taps; <= taps_per_stage: one partial sum
  static constexpr int slide_max_taps = 32;      // fully unrolled sliding window up to here; above,
                                                 // a loop over tap tiles (code size: 16 KB per tile)
  static constexpr int pipeline_depth = 2;       // shared tiles in the ring (items in flight + 1)
  static constexpr int min_blocks_per_sm = 4;
  static constexpr bool balanced_grid = false;   // true: every block the same number of items
  static constexpr int block_outputs = threads * outputs_per_thread;
  static_assert(block_outputs == FastPolicy::block_outputs, "the frame granule assumes one block shape");
  static_assert(max_taps <= FastPolicy::taps_per_stage, "the accuracy policy: one partial per stage");
};

// The granule all buffers and slices are aligned to, in frames: a multiple of every block's
// outputs, so a kernel may read (never write) up to the next multiple past `frames`.
constexpr std::size_t frame_granule = FastPolicy::block_outputs;
// Extra frames past the rounded-up end that a kernel may read (seeds' blocks up to 1024).
constexpr std::size_t read_slack_frames = 1024;

// Number of taps the kernel reads per channel: M, or M rounded up to the fast kernel's tap
// tile (the extra taps are zeros).
std::size_t padded_taps(Kernel kernel, std::size_t taps);
// Frames of halo the kernel may read in front of x[0]: at least padded_taps, a multiple of 32.
std::size_t halo_frames(Kernel kernel, std::size_t taps);

// Copies `count` floats into the constant-memory tap bank at offset 0, on `stream`.
void upload_constant_taps(const float* host_taps, std::size_t count, cudaStream_t stream);

// One launch over a planar buffer.
struct PlanarLaunch {
  const float* x = nullptr;       // channel 0's sample 0; halo_frames() readable frames before it
  std::size_t x_stride = 0;       // floats between channels' x
  float* y = nullptr;             // channel 0's output 0 (16-byte aligned)
  std::size_t y_stride = 0;       // floats between channels' y
  std::size_t frames = 0;         // outputs per channel (< 2^31)
  int channels = 1;
  int taps = 0;                   // padded_taps(kernel, M)
  std::size_t tap_stride = 0;     // floats between channels' taps in the bank; 0: one shared mask
  const float* global_taps = nullptr;  // basic only: the same layout in device memory
  int block_threads = 256;        // seeds' kernels only (1..1024)
};
// x, y, and the strides must be multiples of 4 floats for cuda-fast; x must be readable from
// x - halo_frames to x + round_up(frames, frame_granule) + read_slack_frames.
void launch_convolution(Kernel kernel, const PlanarLaunch& launch, cudaStream_t stream);

// Interleaved <-> planar, on the device. planar channel c frame f is planar[c*stride + f].
void launch_deinterleave(const float* interleaved, std::size_t frames, int channels, float* planar,
                         std::size_t stride, cudaStream_t stream);
void launch_interleave(const float* planar, std::size_t stride, std::size_t frames, int channels,
                       float* interleaved, cudaStream_t stream);
// For every channel c: copies the `count` frames ending (exclusive) at src_end + c*stride to
// the `count` frames ending at dst_end + c*stride (the halo carry; the ranges must not overlap).
void launch_carry(const float* src_end, float* dst_end, std::size_t stride, std::size_t count,
                  int channels, cudaStream_t stream);

// Tuning hook for the benchmark: other shapes of the fast kernel (same contract as
// launch_convolution with Kernel::fast; the frame granule of the largest shape, 256 x 32
// outputs, exceeds frame_granule, so callers must make x readable that far).
int fast_variant_count();
const char* fast_variant_name(int variant);
void launch_fast_variant(int variant, const PlanarLaunch& launch, cudaStream_t stream);

// Whether the kernels' machine code loads on the current device (false: built for another
// architecture); `why` gets CUDA's reason.
bool kernels_loadable(std::string* why);

}  // namespace halo::cuda
