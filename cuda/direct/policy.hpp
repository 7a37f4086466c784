#pragma once
// Tuning of the direct kernels, apart from the algorithms (as CUB keeps tile sizes in policy
// types): block shapes, outputs per thread, tap tiles, and the sizes every buffer is aligned
// to. Plain C++ (no CUDA): the engine's accepts() and the registry read it without a device.
#include <cstddef>

#include "cuda/device/constant_bank.hpp"

namespace halo::cuda {

// The direct-convolution kernels, each a named engine ("cuda-basic", ...). kernels.cuh
// documents them side by side.
enum class Kernel { basic, constant, tiled, cached, fast };

// The textbook kernels (basic/constant/tiled/cached).
struct KernelPolicy {
  static constexpr int taps_per_partial = 128;  // taps per partial sum (accuracy, see kernels.cuh)
};

// cuda-fast above ShortPolicy::max_taps padded taps: fast_pipelined_kernel.
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
// Extra frames past the rounded-up end that a kernel may read (textbook blocks up to 1024).
constexpr std::size_t read_slack_frames = 1024;

constexpr std::size_t round_up(std::size_t value, std::size_t granule) {
  return (value + granule - 1) / granule * granule;
}

// Taps the kernel reads per mask: M, or M rounded up to the fast kernels' tap tile (the extra
// taps are zeros). Also the bank's stride between distinct masks.
constexpr std::size_t padded_taps(Kernel kernel, std::size_t taps) {
  return kernel == Kernel::fast ? round_up(taps, FastPolicy::tap_tile) : taps;
}
// Frames of halo the kernel may read in front of x[0]: at least padded_taps, a multiple of 32.
constexpr std::size_t halo_frames(Kernel kernel, std::size_t taps) { return round_up(padded_taps(kernel, taps), 32); }

}  // namespace halo::cuda
