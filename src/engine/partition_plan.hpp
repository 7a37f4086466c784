#pragma once
#include <cstddef>
#include <vector>

namespace halo {

// How the partitioned engine (partitioned_engine.hpp) cuts a mask of up to max_mask_frames
// taps: into levels of equal partitions whose size doubles from one level to the next, as
// zita-convolver and jconvolver do, so that the first taps answer within one short base block
// and the long tail costs few, large FFTs.
//
// With B the base partition (64 frames):
//   level 0: up to 4 partitions of B at taps [0, 4B): computed at every base block, at once
//   level k >= 1: up to 2 partitions of P = 2^k B at taps [2P, 4P), up to P = max_partition_frames,
//            which then takes every partition left: [2P, Mmax)
// A level k >= 1 thus starts two of its own partitions into the mask (offset_frames = 2P): its
// FFT block of input is complete P + B frames before the first output it feeds is due, which
// is the slack a second thread has to compute it (see partitioned_engine.hpp).
//
// B is fixed, not taken from the stream's largest block: an FFT's rounding depends on its size,
// so engines prepared for different block sizes would differ in the last bits, and halo's
// rule is that blocking never changes a bit (engines prepared for one large block and for
// small ones agree). 64 frames is the period halo's real-time path runs at; larger blocks are
// cut into base blocks inside the engine, at little cost per frame.
struct PartitionLevel {
  std::size_t partition_frames = 0;  // P: a power of two, B .. max_partition_frames
  std::size_t offset_frames = 0;     // first tap of the level: 0 for level 0, else 2P
  std::size_t count = 0;             // partitions in the level, >= 1
  bool on_worker = false;            // computed ahead of time on the engine's worker thread

  // Blocks of P between an input block and the output block it first feeds: offset / P.
  std::size_t delay_blocks() const { return offset_frames / partition_frames; }
  std::size_t end_frames() const { return offset_frames + count * partition_frames; }
};

struct PartitionPlan {
  std::size_t base_frames = 0;             // B: the direct head's taps, and the step the levels run at
  std::vector<PartitionLevel> levels;      // level 0 first; taps covered without gap or overlap
};

constexpr std::size_t base_frames = 64;
constexpr std::size_t max_partition_frames = 16384;
// Levels with partitions this long or longer run on the worker thread: their slack (P + B
// frames, 22 ms at 48 kHz for P = 1024) covers the worker's longest task.
constexpr std::size_t worker_from_frames = 1024;

// The levels that cover taps [0, max_mask_frames), max_mask_frames >= 1.
PartitionPlan plan_partitions(std::size_t max_mask_frames);

}  // namespace halo
