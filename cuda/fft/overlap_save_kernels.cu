// The overlap-save kernels (overlap_save_kernels.hpp says what each moves).
#include "cuda/device/error.hpp"
#include "cuda/device/gpu_device.hpp"
#include "cuda/fft/overlap_save_kernels.hpp"
#include "cuda/fft/real_spectrum.hpp"
#include "cuda/fft/split_fft.hpp"

#include <cooperative_groups.h>

#include <algorithm>
#include <string>

namespace halo::cuda {
namespace {

constexpr int threads_per_block = 256;
// Grid-stride loops: no grid needs more blocks than this to keep every SM busy.
constexpr long long max_blocks_x = 1 << 16;

unsigned blocks_for(long long items) {
  return static_cast<unsigned>(std::clamp<long long>((items + threads_per_block - 1) / threads_per_block, 1, max_blocks_x));
}

__device__ long long grid_stride() { return static_cast<long long>(gridDim.x) * blockDim.x; }

__device__ __forceinline__ PieceHeader read_piece(const PieceSource& piece) {
  return piece.on_device ? *piece.on_device : piece.value;
}

__device__ long long grid_thread() { return blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; }

// Sample i of the piece's tail (the frames a later piece reads back), interleaved, for every
// i = thread + k stride: coalesced reads, planar ring writes.
__device__ void copy_tail_to_ring(const Geometry& g, const PieceHeader& h, const float* in, float* ring,
                                  long long thread, long long stride) {
  const long long first = static_cast<long long>(first_frame_to_ring(g, h)) * g.channels;
  const long long count = static_cast<long long>(h.frames) * g.channels - first;
  for (long long i = thread; i < count; i += stride) to_ring_sample(g, h, first + i, in, ring);
}

// Sample i of the piece's first frames, those an earlier piece computed, for every
// i = thread + k stride.
__device__ void copy_head_from_ring(const Geometry& g, const PieceHeader& h, const float* out_ring, float* out,
                                    long long thread, long long stride) {
  const long long count = static_cast<long long>(frames_from_ring(g, h)) * g.channels;
  for (long long i = thread; i < count; i += stride) from_ring_sample(g, h, i, out_ring, out);
}

__global__ void to_ring_kernel(PieceSource piece, Geometry g, const float* __restrict__ in,
                               float* __restrict__ ring) {
  copy_tail_to_ring(g, read_piece(piece), in, ring, grid_thread(), grid_stride());
}

__global__ void from_ring_kernel(PieceSource piece, Geometry g, const float* __restrict__ out_ring,
                                 float* __restrict__ out) {
  copy_head_from_ring(g, read_piece(piece), out_ring, out, grid_thread(), grid_stride());
}

// blockIdx.y: segment s < rows_per_channel of channel c (slot b = c * batch_segments + s);
// the x dimension strides over the segment's points.
__global__ void gather_kernel(PieceSource piece, Geometry g, long long rows_per_channel,
                              const float* __restrict__ in, const float* __restrict__ ring,
                              float* __restrict__ segments) {
  const PieceHeader h = read_piece(piece);
  const long long c = blockIdx.y / rows_per_channel, s = blockIdx.y - c * rows_per_channel;
  if (s >= h.segments) return;
  const ChannelIo io = channel_io(g, c, in, nullptr, ring, nullptr);
  for (long long i = grid_thread(); i < g.fft_frames; i += grid_stride())
    gather_point(g, h, c, s, i, io, segments);
}

// cuda-fft: the real spectrum's product with the mask between the C2C transforms of the
// segments' pairs (real_spectrum.hpp has the algebra). One pass where R2C's post-processing,
// the product and C2R's pre-processing take three (each a read and a write of the spectra):
// thread k of a row takes bins k and N - k (k <= N/2), reads Z[k] and Z[N-k] (a warp reads
// two coalesced runs, one descending) and the mask's H[k], H[N-k] (L2-resident: every segment
// of a channel reads the same mask), writes V[k] and V[N-k]. W^k from sincospi in double,
// rounded once.
__global__ void spectral_product_kernel(PieceSource piece, Geometry g, long long rows_per_channel,
                                        cufftComplex* __restrict__ spectra, const cufftComplex* __restrict__ masks,
                                        const int* __restrict__ mask_of_channel) {
  const PieceHeader h = read_piece(piece);
  const long long c = blockIdx.y / rows_per_channel, s = blockIdx.y - c * rows_per_channel;
  if (s >= h.segments) return;
  const long long n = g.fft_frames / 2;
  Complex* z = reinterpret_cast<Complex*>(spectra) + (c * g.batch_segments() + s) * n;
  const Complex* mask = reinterpret_cast<const Complex*>(masks) + static_cast<long long>(mask_of_channel[c]) * g.bins();
  const double two_over_l = 2.0 / static_cast<double>(g.fft_frames);
  for (long long k = grid_thread(); k <= n / 2; k += grid_stride()) {
    const long long j = (n - k) & (n - 1);  // N - k, and 0 for k = 0 (Z[N] = Z[0])
    double sine, cosine;
    sincospi(static_cast<double>(k) * two_over_l, &sine, &cosine);
    const Complex w{static_cast<float>(cosine), static_cast<float>(-sine)};  // W^k
    const SpectralPair v = spectral_product(z[k], z[j], w, read_only(mask + k), read_only(mask + n - k));
    z[k] = v.at_k;
    if (j != k && k != 0) z[j] = v.at_n_minus_k;
  }
}

__global__ void crop_kernel(PieceSource piece, Geometry g, long long rows_per_channel,
                            const float* __restrict__ segments, float* __restrict__ out, float* __restrict__ out_ring) {
  const PieceHeader h = read_piece(piece);
  const long long c = blockIdx.y / rows_per_channel, s = blockIdx.y - c * rows_per_channel;
  if (s >= h.segments) return;
  const ChannelIo io = channel_io(g, c, nullptr, out, nullptr, out_ring);
  for (long long i = grid_thread(); i < g.hop_frames; i += grid_stride())
    crop_point(g, h, c, s, i, segments, io);
}

// cuda-fft-fused: one block per (step, channel), L/16 threads (at most 512); block_fft.hpp has the
// transform. Memory: the step's two overlapping segments (L inputs each, 2 L reads per 2 H
// outputs; neighbouring steps share D frames through L2) are read once, straight into
// registers, from the piece's interleaved frames (the input ring only for the frames before
// the piece): thread t takes points j L/16 + t, so a warp reads 32 consecutive frames per
// load (coalesced for one channel; with C channels each line is shared by the C channels'
// blocks through L2). Each of the 2 H outputs is written once, by the same mapping, into the
// piece's output (the output ring for the last step's, which a later piece emits). The
// rings' own traffic is the piece's last step + D + 1 frames in and first step frames out. In between, nothing touches
// device memory but the read-only tables, through L1/L2: the mask's spectrum (L values, shared
// by every block of a channel; stored in the threads' order, so coalesced) and the twiddles
// (4 per butterfly and pass, about L/4 values, coalesced). Arithmetic: 16-point DFTs in registers; shared memory (8 L
// bytes + padding) only for the transposes between passes: passes - 1 round trips each way
// (2 for L <= 4096 and for the wide 16384-point form, 3 for L = 8192), one barrier each,
// against log2 L stages before.
// Registers: left alone the compiler takes 128 a thread to keep more loads in flight, and
// fewer blocks run (fused_min_blocks caps them). At L = 16384 each of 512 threads runs two of
// pass 0's transform threads in turn, phase by phase (block_fft.hpp's phases are independent
// per thread), and one of the wide passes' (127 registers): 1024 threads at 64 registers were
// no faster in the four-pass form and 2-4 % slower in the 16-block cluster kernel (sixteenth
// session).
template <int Log2>
constexpr int fused_block_threads = FusedShape<Log2>::threads < 512 ? FusedShape<Log2>::threads : 512;
// Blocks an SM should hold: 1024 threads (64 registers each) where shared memory allows, so
// a piece's blocks (2048 steps at L = 1024, 512 at 4096) fit the GPU in one wave; at 80
// registers (12 blocks of 64 threads an SM, 1.3 waves) the H100 ran L = 1024 with 30 % of
// its warps active, 19.0 us a 3.15 M-frame piece, at 64 with 38 %, 17.7 us. One block at
// L = 16384 (139 KiB of shared memory a block).
template <int Log2>
constexpr int fused_min_blocks = fused_log2(Log2) >= 14 ? 1 : 1024 / fused_block_threads<Log2>;

// The piece's header, read where a phase needs it rather than held in registers across the
// transform's phases: kept live from the first phase to the last, it and the pointers made from
// it cost the 64-register kernel 170-220 bytes of spills a thread (ptxas -v). From device
// memory a volatile read (an L1 hit), so the compiler cannot carry the first phase's copy over
// the barriers; the launch parameters are read where used anyway.
__device__ __forceinline__ PieceHeader reload_piece(const PieceSource& piece) {
  if (!piece.on_device) return piece.value;
  const volatile PieceHeader* h = piece.on_device;
  PieceHeader copy;
  copy.position = h->position;
  copy.first_segment = h->first_segment;
  copy.frames = h->frames;
  copy.segments = h->segments;
  return copy;
}

// The barrier between two phases whose layouts are those of passes q and q + 1 (either way
// round). Pass q's butterflies span blocks of 16 s points (s = its stride), and pass q + 1's
// lie inside them; each such block is written and read by the s transform threads
// t = b s .. b s + s - 1 alone, in both layouts. So only those s threads need to wait for one
// another: a warp's own barrier where they are lanes of one warp (s <= 32: every pass past the
// first at L <= 8192, the last two of a 16384-point row, pass 1 of the wide 16384-point step,
// whose span of 32 x 32 points its 32 threads hold in both layouts), a named barrier for 64
// threads (pass 1 of a 16384-point row), the block's only between passes 0 and 1. With one or
// two blocks an SM (the one-block kernel at L >= 8192, the cluster kernel's rows of 16384) a
// block-wide barrier leaves the SM idle while its slowest warp finishes the phase; there it
// was 6 of them a step at L = 16384, now 2.
template <int Log2, int Block>
__device__ __forceinline__ void sync_pass_span(int q) {
  static_assert(Block % 32 == 0, "whole warps");
  const int s = fused_pass_stride(Log2, q);  // a constant once unrolled
  if (s <= 32) {
    __syncwarp();
  } else if (s < Block) {  // named barriers 1 .. 8 (0 is __syncthreads'), a group of s threads or more each
    const int group = s > Block / 8 ? s : Block / 8;
    asm volatile("bar.sync %0, %1;" ::"r"(1 + static_cast<int>(threadIdx.x) / group), "r"(group) : "memory");
  } else {
    __syncthreads();
  }
}

// The block transform's phases between its first pass and its last (block_fft.hpp), each
// followed by the barrier the next phase needs (sync_pass_span; block-wide after the last, whose
// successor reads pass 0's layout): passes 1 .. passes - 2 forward, the product with the mask's
// spectrum (mask(), called there: a pointer made earlier would be held in registers across the
// forward phases) and the same passes back. Block threads, the transform's threads in turns.
template <int Log2, int Block, class Mask>
__device__ __forceinline__ void block_middle_phases(Complex* z, const Complex* twiddles, Mask&& mask) {
  using S = FusedShape<Log2>;
#pragma unroll
  for (int p = 1; p < S::passes - 1; ++p) {
#pragma unroll
    for (int t = threadIdx.x; t < S::threads_of(p); t += Block) fused_forward_phase<Log2>(z, p, twiddles, t);
    sync_pass_span<Log2, Block>(p);  // pass p's layout -> pass p + 1's
  }
  const Complex* m = mask();
#pragma unroll
  for (int t = threadIdx.x; t < S::threads_of(S::passes - 1); t += Block) fused_middle_phase<Log2>(z, m, t);
  sync_pass_span<Log2, Block>(S::passes - 2);  // the last pass's layout -> the one before
#pragma unroll
  for (int p = S::passes - 2; p >= 1; --p) {
#pragma unroll
    for (int t = threadIdx.x; t < S::threads_of(p); t += Block) fused_inverse_phase<Log2>(z, p, twiddles, t);
    sync_pass_span<Log2, Block>(p - 1);  // pass p's layout -> pass p - 1's (block-wide for p = 1)
  }
}

// The rows of blocks past the steps: the piece's ring traffic (what to_ring_kernel and
// from_ring_kernel do), beside the transforms rather than as two more launches after them
// (each about 3.4 us on the H100, a tenth of a 255-tap piece). The slots and frames it
// touches are none the transforms touch: the tail goes into input-ring slots no step of the
// piece reads, the first outputs come from output-ring slots no step writes (plan_geometry
// sizes both rings for that) into output frames before the first step's.
// Its blocks are the grid's rows from `first_row` on (every channel's column).
__device__ void ring_traffic_rows(const PieceSource& piece, const Geometry& g, const float* in, float* out, float* ring,
                                  const float* out_ring, unsigned first_row) {
  const PieceHeader h = read_piece(piece);
  const long long block = static_cast<long long>(blockIdx.y - first_row) * gridDim.x + blockIdx.x;
  const long long thread = block * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.y - first_row) * gridDim.x * blockDim.x;
  copy_tail_to_ring(g, h, in, ring, thread, stride);
  copy_head_from_ring(g, h, out_ring, out, thread, stride);
}

// Asks L2 for the input frames of step `step` (piece-relative; all channels' interleaved
// samples, where they lie in the piece) that thread `thread` of `threads` covers, a 128-byte
// line each. At L >= 8192 one or two blocks fill an SM, and a block's first phase waits for its
// loads with nothing else to run there; a block of the wave before it has already brought
// them in, while it was busy with its transforms (Geometry::prefetch_steps). A hint: it
// changes no result.
__device__ __forceinline__ void prefetch_step_input(const Geometry& g, const PieceHeader& h, long long step,
                                                    const float* in, int thread, int threads) {
  if (2 * step >= h.segments) return;
  const long long first = segment_input(g, h.first_segment + 2 * step) - h.position;  // piece-relative frame
  const long long begin = first > 0 ? first : 0;
  const long long end = min(first + g.hop_frames + g.fft_frames, static_cast<long long>(h.frames));
  constexpr long long line = 128;
  const auto from = (reinterpret_cast<unsigned long long>(in + begin * g.channels) + line - 1) & ~(line - 1);
  const auto to = reinterpret_cast<unsigned long long>(in + end * g.channels);
  for (unsigned long long a = from + thread * line; a < to; a += threads * line)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
}

// `ring` without __restrict__: the transforms read it where the ring rows write it (other slots).
// blockIdx.x: the channel; blockIdx.y: the piece's step, up to `ring_row`, and the ring
// traffic's rows from there. The GPU starts blocks x first, so a step's channels run side by
// side and share the input's lines through L2 (steps first, a stereo piece's 64 MiB of input
// had left L2 before the second channel's blocks read it again).
template <int Log2>
__global__ void __launch_bounds__(fused_block_threads<Log2>, fused_min_blocks<Log2>)
    fused_kernel(PieceSource piece, Geometry g, unsigned ring_row, const float* __restrict__ in,
                 float* __restrict__ out, float* ring, float* __restrict__ out_ring,
                 const Complex* __restrict__ masks,
                 const int* __restrict__ mask_of_channel, const Complex* __restrict__ twiddles) {
  using S = FusedShape<Log2>;
  constexpr int block = fused_block_threads<Log2>;
  extern __shared__ Complex z[];
  const int c = blockIdx.x;
  const unsigned step = blockIdx.y;
  if (step >= ring_row) {  // the whole block: before any barrier
    ring_traffic_rows(piece, g, in, out, ring, out_ring, ring_row);
    return;
  }
  if (2 * static_cast<long long>(step) >= read_piece(piece).segments) return;  // the whole block: before any barrier
#pragma unroll
  for (int t = threadIdx.x; t < S::threads; t += block) {
    const PieceHeader h = read_piece(piece);
    fused_first_pass<Log2>(g, h, h.first_segment / 2 + step, channel_io(g, c, in, out, ring, out_ring), z, twiddles, t);
  }
  if (c == 0 && g.prefetch_steps > 0)  // after the block's own loads; the lines hold every channel's samples
    prefetch_step_input(g, read_piece(piece), step + g.prefetch_steps, in, threadIdx.x, block);
  __syncthreads();
  block_middle_phases<Log2, block>(z, twiddles, [&] { return masks + static_cast<long long>(mask_of_channel[c]) * S::points; });
#pragma unroll
  for (int t = threadIdx.x; t < S::threads; t += block) {
    const PieceHeader h = reload_piece(piece);
    fused_last_pass<Log2>(g, h, h.first_segment / 2 + step, z, channel_io(g, c, in, out, ring, out_ring), twiddles, t);
  }
}

// The instantiation for L (min_fused_fft_frames .. max_fused_fft_frames), or null.
using FusedKernel = void (*)(PieceSource, Geometry, unsigned, const float*, float*, float*, float*,
                             const Complex*, const int*, const Complex*);
struct FusedLaunch {
  FusedKernel kernel = nullptr;
  unsigned threads = 0;
};
template <int Log2>
FusedLaunch fused_launch() {
  return {fused_kernel<Log2>, static_cast<unsigned>(fused_block_threads<Log2>)};
}
FusedLaunch fused_launch_for(long long fft_frames) {
  return with_fused_log2<9, 14>(
      fft_frames, [](auto log2) { return fused_launch<fused_step_shape(decltype(log2)::value)>(); },
      [] { return FusedLaunch{}; });
}

std::size_t fused_shared_bytes(const Geometry& g) {
  return fused_shared_points(static_cast<std::size_t>(g.fft_frames)) * sizeof(Complex);
}

// cuda-fft-fused past one block (split_fft.hpp): three kernels a piece.
// Memory, per step of one channel (2 H outputs, L complex values of scratch):
//   columns forward: the step's 2 L inputs (as the one-block kernel reads them: straight from
//       the piece, a warp reading 32 consecutive frames per load) and L complex writes of
//       scratch, row j position t, coalesced;
//   rows: L complex reads and writes of scratch, a row a block (coalesced), the transform in
//       shared memory as in the one-block kernel; the mask's spectrum and the twiddles as there;
//   columns inverse: L complex reads of scratch and the 2 H outputs.
// A piece's scratch is fused_batch_samples / 2 complex values (64 MiB), written and read back
// within the piece: more than the L2 cache (50 MiB on the H100) holds, but smaller pieces,
// whose scratch stayed there, left too few blocks to fill the GPU (overlap_save.hpp).
// blockIdx.y = step in the piece x channels + channel.
constexpr int split_column_threads = 256;

// The three kernels' blockIdx.y: item y is step first_step + y / channels (piece-relative) of
// channel y % channels, and its transform is row y of their scratch.
struct SplitItem {
  long long step;
  int channel;
};
__device__ __forceinline__ SplitItem split_item(const Geometry& g, long long first_step) {
  return {first_step + blockIdx.y / g.channels, static_cast<int>(blockIdx.y % g.channels)};
}

template <int LogL>
__global__ void __launch_bounds__(split_column_threads)
    split_columns_forward_kernel(PieceSource piece, Geometry g, long long first_step, const float* __restrict__ in,
                                 const float* ring, Complex* __restrict__ rows, const Complex* __restrict__ column_twiddles) {
  const PieceHeader h = read_piece(piece);
  const SplitItem item = split_item(g, first_step);
  if (2 * item.step >= h.segments) return;
  const int t = static_cast<int>(blockIdx.x) * split_column_threads + static_cast<int>(threadIdx.x);
  split_columns_forward<LogL>(g, h, h.first_segment / 2 + item.step, channel_io(g, item.channel, in, nullptr, ring, nullptr),
                              rows + static_cast<long long>(blockIdx.y) * (1LL << LogL), column_twiddles, t);
}

template <int LogL>
__global__ void __launch_bounds__(split_column_threads)
    split_columns_inverse_kernel(PieceSource piece, Geometry g, long long first_step, const Complex* __restrict__ rows,
                                 float* __restrict__ out, float* __restrict__ out_ring,
                                 const Complex* __restrict__ column_twiddles) {
  const PieceHeader h = read_piece(piece);
  const SplitItem item = split_item(g, first_step);
  if (2 * item.step >= h.segments) return;
  const int t = static_cast<int>(blockIdx.x) * split_column_threads + static_cast<int>(threadIdx.x);
  split_columns_inverse<LogL>(g, h, h.first_segment / 2 + item.step, rows + static_cast<long long>(blockIdx.y) * (1LL << LogL),
                              channel_io(g, item.channel, nullptr, out, nullptr, out_ring), column_twiddles, t);
}

// blockIdx.x: the row (16 a step).
template <int LogR>
__global__ void __launch_bounds__(fused_block_threads<LogR>, fused_min_blocks<LogR>)
    split_rows_kernel(PieceSource piece, Geometry g, long long first_step, Complex* __restrict__ rows,
                      const Complex* __restrict__ masks, const int* __restrict__ mask_of_channel,
                      const Complex* __restrict__ twiddles) {
  using S = FusedShape<LogR>;
  constexpr int block = fused_block_threads<LogR>;
  extern __shared__ Complex z[];
  const SplitItem item = split_item(g, first_step);
  if (2 * item.step >= read_piece(piece).segments) return;  // the whole block: before any barrier
  Complex* row = rows + static_cast<long long>(blockIdx.y) * (16LL << LogR) + (static_cast<long long>(blockIdx.x) << LogR);
#pragma unroll
  for (int t = threadIdx.x; t < S::threads; t += block) split_row_first_pass<LogR>(row, z, twiddles, t);
  __syncthreads();
  block_middle_phases<LogR, block>(z, twiddles, [&] {
    return masks + static_cast<long long>(mask_of_channel[item.channel]) * (16LL << LogR) +
           (static_cast<long long>(blockIdx.x) << LogR);
  });
#pragma unroll
  for (int t = threadIdx.x; t < S::threads; t += block) split_row_last_pass<LogR>(z, row, twiddles, t);
}

// cuda-fft-fused past one block as one kernel: the three kernels' work in a cluster of 16
// blocks (Hopper's distributed shared memory), block j holding row j, so the scratch never
// reaches device memory. Memory, per step of one channel: the step's 2 L inputs and its 2 H
// outputs, as the one-block kernel moves them, and nothing else but the tables (the mask's
// spectrum, the twiddles: L1/L2). The columns go to the rows through the cluster: thread t of
// block b takes column c = b R/16 + t (R = L/16), reads its 16 points from the piece, runs
// the L transform's pass 0 and stores value j into block j's shared memory at position c (one
// 8-byte remote store each, consecutive across a warp); the cluster's barrier; each block
// then transforms its row in place (the read of the linear handover, a barrier, the row's
// pass 0 into the padded layout), multiplies and transforms back into the linear layout; the
// barrier; thread t of block b reads value j of column c from block j, runs the inverse of
// pass 0 and writes the outputs; a last barrier keeps every block's shared memory alive until
// the other blocks have read it. Against the three kernels: the scratch's four crossings of
// device memory (4 x 8 L bytes a step, 64 MiB each way a piece) become 2 x 8 L bytes of
// cluster traffic, and two launches go. A thread runs `turns` of the row transform's threads
// (2 at R = 8192 and 16384), holding both turns' points across the barriers of the in-place
// phases.
// The grid holds as many clusters as the GPU runs at once, each looping over the piece's
// steps, so that a step's last barrier is the next one's first.
constexpr int split_cluster_blocks = 16;
// Half the one-block kernel's blocks an SM where it runs more than two (R = 2048, 4096): at
// 64 registers this kernel, which holds more across its barriers, spilled 168-172 bytes a
// thread there (ptxas -v); none at 111 and 127.
// At R = 8192, three blocks of 256 threads an SM (80 registers, 108 bytes of spills a
// thread) rather than two of 512 (64, none): 21 clusters resident instead of 14, on the
// same 112 of the H100's 132 SMs (Nsight Compute: clusters of 16 never reach the other 20,
// nor at R = 16384, 7 clusters of one block an SM), and the waits at the barriers of one
// block overlap the work of two others: 16383 taps 0.677-0.687 -> 0.631-0.638 ms, cycles
// between a warp's instructions 14.9 -> 10.4, of them at barriers 2.11 -> 1.33 and at the
// cluster barrier's fence (membar) 2.00 -> 0.88 (seventeenth session, runs 4 to 8 in
// bench/results/h100_fft_bench.md). Reading the thread index afresh where used and rolling
// the turns, which cut the spills to 4-12 bytes, made it 0.91-0.94 ms.
template <int LogR>
constexpr int split_cluster_min_blocks =
    LogR == 13 ? 3 : fused_min_blocks<LogR> > 2 ? fused_min_blocks<LogR> / 2 : fused_min_blocks<LogR>;
template <int LogR>
constexpr int split_cluster_threads = LogR == 13 ? 256 : fused_block_threads<LogR>;

template <int LogL>
__global__ void __launch_bounds__(split_cluster_threads<LogL - 4>, split_cluster_min_blocks<LogL - 4>)
    split_cluster_kernel(PieceSource piece, Geometry g, const float* __restrict__ in, float* __restrict__ out,
                         const float* __restrict__ ring, float* __restrict__ out_ring, const Complex* __restrict__ masks,
                         const int* __restrict__ mask_of_channel, const Complex* __restrict__ twiddles,
                         const Complex* __restrict__ column_twiddles, unsigned items) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters before sm_90: allow_fused_kernel never picks this kernel there
#else
  constexpr int log_r = LogL - 4;
  using S = FusedShape<log_r>;
  constexpr int block = split_cluster_threads<log_r>, turns = S::threads / block;
  extern __shared__ Complex z[];
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const int row = static_cast<int>(cluster.block_rank());
  // The row transform's thread this thread runs in turn k, and the column it takes in the
  // column passes.
  const auto thread_of_turn = [](int k) { return k * block + static_cast<int>(threadIdx.x); };
  const auto column_of_turn = [&](int k) { return row * S::threads + thread_of_turn(k); };
  // No block may write into another's shared memory before that block has started; nothing
  // is written yet, so the arrival orders no memory (relaxed: no fence). (Arriving here and
  // waiting before the first remote store, so that the loads overlap the wait, cost the
  // L = 2^17 kernel 88 bytes of spills at its 64 registers.)
  __cluster_barrier_arrive_relaxed();
  __cluster_barrier_wait();
  // As many clusters as the GPU holds, each taking every gridDim.y-th of the piece's steps and
  // channels (item = step x channels + channel): the last barrier of one item is the first of
  // the next, and the blocks stay resident between items.
  for (unsigned item = blockIdx.y; item < items; item += gridDim.y) {
    const int step = static_cast<int>(item) / g.channels;
    const int c = static_cast<int>(item) - step * g.channels;
    // The whole cluster (one item), and every later item too: after the last barrier's wait.
    // (The header reloaded, not held across the loop: see reload_piece.)
    if (2 * step >= reload_piece(piece).segments) break;
    // This block's shared memory by an address the compiler cannot see through, so that the
    // 16 blocks' addresses made from it (map_shared_rank) are made where used rather than
    // hoisted out of the loop and held (16 registers: the L = 2^17 kernel spilled 124 bytes).
    Complex* own = z;
    asm volatile("" : "+l"(own));
#pragma unroll
    for (int k = 0; k < turns; ++k) {
      const int column = column_of_turn(k);
      const PieceHeader h = reload_piece(piece);
      Complex v[16];
      split_column_values<LogL>(g, h, h.first_segment / 2 + step, channel_io(g, c, in, nullptr, ring, nullptr),
                                column_twiddles, column, v);
#pragma unroll
      for (int j = 0; j < 16; ++j) cluster.map_shared_rank(own, j)[column] = v[j];
    }
    if (g.prefetch_steps > 0)  // the cluster's 16 blocks share the lines
      prefetch_step_input(g, reload_piece(piece), step + g.prefetch_steps, in, row * block + threadIdx.x,
                          split_cluster_blocks * block);
    cluster.sync();
    Complex held[turns][16];
#pragma unroll
    for (int k = 0; k < turns; ++k) split_row_load<log_r>(z, thread_of_turn(k), held[k]);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < turns; ++k) split_row_first_pass_held<log_r>(held[k], z, twiddles, thread_of_turn(k));
    __syncthreads();
    block_middle_phases<log_r, block>(z, twiddles, [&] {
      return masks + static_cast<long long>(mask_of_channel[c]) * (16LL << log_r) + (static_cast<long long>(row) << log_r);
    });
#pragma unroll
    for (int k = 0; k < turns; ++k) split_row_last_pass_held<log_r>(z, twiddles, thread_of_turn(k), held[k]);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < turns; ++k) split_row_store<log_r>(z, thread_of_turn(k), held[k]);
    cluster.sync();
    // Only the last turn reads ahead of its arrival at the last barrier, which keeps the
    // blocks' shared memory alive until the others have read it (and, for the next item, from
    // being written): the last pass and stores run while the slower blocks catch up, and the
    // arrival's fence waits for the remote reads, not for the stores to device memory.
    // (Reading both turns first at R = 16384 cost 65535 taps 5 %.)
    asm volatile("" : "+l"(own));  // the addresses made anew here too, not held from the stores
#pragma unroll
    for (int k = 0; k < turns; ++k) {
#pragma unroll
      for (int j = 0; j < 16; ++j) held[k][j] = cluster.map_shared_rank(own, j)[column_of_turn(k)];
      if (k == turns - 1) __cluster_barrier_arrive();
      const PieceHeader h = reload_piece(piece);
      split_column_outputs<LogL>(g, h, h.first_segment / 2 + step, held[k],
                                 channel_io(g, c, nullptr, out, nullptr, out_ring), column_twiddles, column_of_turn(k));
    }
    __cluster_barrier_wait();
  }
#endif
}

std::size_t split_row_shared_bytes(const Geometry& g) {
  return fused_shared_points(static_cast<std::size_t>(g.fft_frames / 16)) * sizeof(Complex);
}

// The kernels of a split L (null kernels for any other L).
using SplitColumnsForward = void (*)(PieceSource, Geometry, long long, const float*, const float*, Complex*, const Complex*);
using SplitColumnsInverse = void (*)(PieceSource, Geometry, long long, const Complex*, float*, float*, const Complex*);
using SplitRows = void (*)(PieceSource, Geometry, long long, Complex*, const Complex*, const int*, const Complex*);
using SplitCluster = void (*)(PieceSource, Geometry, const float*, float*, const float*, float*, const Complex*,
                              const int*, const Complex*, const Complex*, unsigned);
struct SplitLaunch {
  SplitColumnsForward forward = nullptr;
  SplitRows rows = nullptr;
  SplitColumnsInverse inverse = nullptr;
  SplitCluster cluster = nullptr;
  unsigned row_threads = 0;      // the rows kernel's blocks
  unsigned cluster_threads = 0;  // the cluster kernel's
};
template <int LogL>
SplitLaunch split_launch() {
  return {split_columns_forward_kernel<LogL>, split_rows_kernel<LogL - 4>, split_columns_inverse_kernel<LogL>,
          split_cluster_kernel<LogL>, static_cast<unsigned>(fused_block_threads<LogL - 4>),
          static_cast<unsigned>(split_cluster_threads<LogL - 4>)};
}

// The cluster kernel's launch: 16 blocks (a step's rows) a cluster, `clusters` clusters, each
// looping over every clusters-th step and channel.
cudaLaunchConfig_t split_cluster_config(const Geometry& g, unsigned block_threads, unsigned clusters, cudaStream_t stream,
                                        cudaLaunchAttribute& cluster_dimension) {
  cluster_dimension.id = cudaLaunchAttributeClusterDimension;
  cluster_dimension.val.clusterDim.x = split_cluster_blocks;
  cluster_dimension.val.clusterDim.y = 1;
  cluster_dimension.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(split_cluster_blocks, clusters);
  config.blockDim = dim3(block_threads);
  config.dynamicSmemBytes = split_row_shared_bytes(g);
  config.stream = stream;
  config.attrs = &cluster_dimension;
  config.numAttrs = 1;
  return config;
}
SplitLaunch split_launch_for(long long fft_frames) {
  return with_fused_log2<15, 18>(
      fft_frames, [](auto log2) { return split_launch<decltype(log2)::value>(); }, [] { return SplitLaunch{}; });
}

// y: rows_per_channel(grid_segments) rows per channel (in all at most cufft_batch_samples / L
// + channels <= 16384 + 1024, within the 65535 a grid's y allows).
long long rows_per_channel(const Geometry& g, long long grid_segments) {
  return std::clamp<long long>(grid_segments, 1, g.batch_segments());
}

// x: at most 64 blocks a row, but at least segment_grid_blocks in all, however few rows there
// are. With one segment of 2^23 points (2^20 taps) 64 blocks left most of the GPU idle in
// gather and crop: 7.27 ms for N = 2^26 on the H100, 3.37 ms with 8192 blocks; but 256 and
// 1024 blocks a row made 16383 and 65535 taps (32 and 8 rows) 6-12 % slower than 64. So 64
// a row from 8 rows up, as measured there, and more only below.
constexpr long long segment_grid_blocks = 512;
dim3 segment_grid(const Geometry& g, long long points, long long grid_segments) {
  const long long rows = g.channels * rows_per_channel(g, grid_segments);
  const long long per_row = std::max<long long>(64, segment_grid_blocks / rows);
  const unsigned x = static_cast<unsigned>(std::clamp<long long>((points + threads_per_block - 1) / threads_per_block, 1, per_row));
  return dim3(x, static_cast<unsigned>(rows));
}

}  // namespace

cudaError_t launch_to_ring(const PieceSource& piece, const Geometry& g, const float* in, float* ring,
                           long long grid_frames, cudaStream_t stream) noexcept {
  const long long frames = std::min(grid_frames, ring_tail_frames(g));
  to_ring_kernel<<<blocks_for(frames * g.channels), threads_per_block, 0, stream>>>(piece, g, in, ring);
  return cudaGetLastError();
}

cudaError_t launch_from_ring(const PieceSource& piece, const Geometry& g, const float* out_ring, float* out,
                             long long grid_frames, cudaStream_t stream) noexcept {
  const long long frames = std::min(grid_frames, g.step_frames);  // frames_from_ring
  from_ring_kernel<<<blocks_for(frames * g.channels), threads_per_block, 0, stream>>>(piece, g, out_ring, out);
  return cudaGetLastError();
}

cudaError_t launch_gather(const PieceSource& piece, const Geometry& g, const float* in, const float* ring,
                          float* segments, long long grid_segments, cudaStream_t stream) noexcept {
  gather_kernel<<<segment_grid(g, g.fft_frames, grid_segments), threads_per_block, 0, stream>>>(
      piece, g, rows_per_channel(g, grid_segments), in, ring, segments);
  return cudaGetLastError();
}

cudaError_t launch_spectral_product(const PieceSource& piece, const Geometry& g, cufftComplex* spectra,
                                    const cufftComplex* masks, const int* mask_of_channel, long long grid_segments,
                                    cudaStream_t stream) noexcept {
  spectral_product_kernel<<<segment_grid(g, g.fft_frames / 4 + 1, grid_segments), threads_per_block, 0, stream>>>(
      piece, g, rows_per_channel(g, grid_segments), spectra, masks, mask_of_channel);
  return cudaGetLastError();
}

cudaError_t launch_crop(const PieceSource& piece, const Geometry& g, const float* segments, float* out,
                        float* out_ring, long long grid_segments, cudaStream_t stream) noexcept {
  crop_kernel<<<segment_grid(g, g.hop_frames, grid_segments), threads_per_block, 0, stream>>>(
      piece, g, rows_per_channel(g, grid_segments), segments, out, out_ring);
  return cudaGetLastError();
}

cudaError_t launch_fused(const PieceSource& piece, const Geometry& g, const float* in, float* out, float* ring,
                         float* out_ring, const Complex* masks, const int* mask_of_channel, const Complex* twiddles,
                         long long grid_frames, long long grid_steps, cudaStream_t stream) noexcept {
  const FusedLaunch launch = fused_launch_for(g.fft_frames);
  if (!launch.kernel) return cudaErrorInvalidValue;
  // A row per step (a block per channel), then rows for the ring traffic (ring_traffic_rows),
  // as many as that traffic needs at about 4 samples a thread: a piece of a step or two can
  // carry tens of thousands of ring samples. Blocks past a piece's steps return at once.
  const long long ring_samples =
      (std::min(grid_frames, ring_tail_frames(g)) + std::min(grid_frames, g.step_frames)) * g.channels;
  const long long ring_blocks = (ring_samples + 4LL * launch.threads - 1) / (4LL * launch.threads);
  const long long step_rows = std::max(1LL, grid_steps);
  const long long ring_rows = std::max(1LL, (ring_blocks + g.channels - 1) / g.channels);
  const dim3 grid(static_cast<unsigned>(g.channels), static_cast<unsigned>(step_rows + ring_rows));
  launch.kernel<<<grid, launch.threads, fused_shared_bytes(g), stream>>>(
      piece, g, static_cast<unsigned>(step_rows), in, out, ring, out_ring, masks, mask_of_channel, twiddles);
  return cudaGetLastError();
}

cudaError_t launch_split(const PieceSource& piece, const Geometry& g, const float* in, float* out, float* ring,
                         float* out_ring, Complex* rows, const Complex* masks, const int* mask_of_channel,
                         const Complex* row_twiddles, const Complex* column_twiddles, long long grid_frames,
                         long long grid_steps, int clusters, const SplitHelper& helper, cudaStream_t stream) noexcept {
  const SplitLaunch launch = split_launch_for(g.fft_frames);
  if (!launch.forward) return cudaErrorInvalidValue;
  // The three kernels for `count` steps from `first` (piece-relative), `rows` holding theirs.
  const auto three_kernels = [&](long long first, long long count, cudaStream_t on) {
    const unsigned items = static_cast<unsigned>(count * g.channels);
    const dim3 columns(static_cast<unsigned>(g.fft_frames / 16 / split_column_threads), items);
    launch.forward<<<columns, split_column_threads, 0, on>>>(piece, g, first, in, ring, rows, column_twiddles);
    launch.rows<<<dim3(16, items), launch.row_threads, split_row_shared_bytes(g), on>>>(piece, g, first, rows, masks,
                                                                                      mask_of_channel, row_twiddles);
    launch.inverse<<<columns, split_column_threads, 0, on>>>(piece, g, first, rows, out, out_ring, column_twiddles);
    return cudaGetLastError();
  };
  const auto ring_traffic = [&](cudaStream_t on) {
    const cudaError_t e = launch_to_ring(piece, g, in, ring, grid_frames, on);
    return e != cudaSuccess ? e : launch_from_ring(piece, g, out_ring, out, grid_frames, on);
  };
  const long long steps = std::max(1LL, grid_steps);
  cudaError_t e = cudaSuccess;
  if (clusters == 0) return (e = three_kernels(0, steps, stream)) != cudaSuccess ? e : ring_traffic(stream);
  const bool forked = helper.stream != nullptr && helper.cluster_stream != nullptr;
  const long long cluster_steps = forked && helper.cluster_steps > 0 ? std::min(steps, helper.cluster_steps) : steps;
  const cudaStream_t cluster_stream = forked ? helper.cluster_stream : stream;
  if (forked && ((e = cudaEventRecord(helper.fork, stream)) != cudaSuccess ||
                 (e = cudaStreamWaitEvent(cluster_stream, helper.fork, 0)) != cudaSuccess ||
                 (e = cudaStreamWaitEvent(helper.stream, helper.fork, 0)) != cudaSuccess))
    return e;
  cudaLaunchAttribute cluster_dimension;
  const auto items = static_cast<unsigned>(cluster_steps * g.channels);
  const cudaLaunchConfig_t config = split_cluster_config(g, launch.cluster_threads,
                                                         std::min(items, static_cast<unsigned>(clusters)), cluster_stream,
                                                         cluster_dimension);
  e = cudaLaunchKernelEx(&config, launch.cluster, piece, g, in, out, static_cast<const float*>(ring), out_ring,
                         static_cast<const Complex*>(masks), mask_of_channel, row_twiddles, column_twiddles, items);
  if (e != cudaSuccess) return e;
  if (!forked) return ring_traffic(stream);
  if ((e = ring_traffic(helper.stream)) != cudaSuccess ||
      (steps > cluster_steps && (e = three_kernels(cluster_steps, steps - cluster_steps, helper.stream)) != cudaSuccess) ||
      (e = cudaEventRecord(helper.cluster_done, cluster_stream)) != cudaSuccess ||
      (e = cudaEventRecord(helper.beside_done, helper.stream)) != cudaSuccess ||
      (e = cudaStreamWaitEvent(stream, helper.cluster_done, 0)) != cudaSuccess)
    return e;
  return cudaStreamWaitEvent(stream, helper.beside_done, 0);
}

int allow_fused_kernel(GpuDevice& device, const Geometry& g, bool cluster_wanted) {
  if (fused_split(g.fft_frames)) {
    const SplitLaunch launch = split_launch_for(g.fft_frames);
    if (!launch.rows) throw Error("cuda-fft-fused: no kernels for " + std::to_string(g.fft_frames) + "-point transforms");
    device.allow_dynamic_smem(reinterpret_cast<const void*>(launch.rows), split_row_shared_bytes(g));
    if (!cluster_wanted) return 0;
    // A cluster of 16 is past the portable 8: the kernel opts in, and the GPU must hold one
    // (16 blocks of this shared memory in one GPC); where it cannot, or launches no clusters
    // at all (before sm_90), the three kernels.
    device.make_current();
    int cluster_launch = 0;
    HALO_CUDA_CHECK(cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, device.index()));
    if (cluster_launch == 0) return 0;
    const void* cluster = reinterpret_cast<const void*>(launch.cluster);
    HALO_CUDA_CHECK(cudaFuncSetAttribute(cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    HALO_CUDA_CHECK(
        cudaFuncSetAttribute(cluster, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    device.allow_dynamic_smem(cluster, split_row_shared_bytes(g));
    cudaLaunchAttribute cluster_dimension;
    const cudaLaunchConfig_t config = split_cluster_config(g, launch.cluster_threads, 1, nullptr, cluster_dimension);
    int clusters = 0;
    HALO_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, launch.cluster, &config));
    return clusters;
  }
  const FusedKernel kernel = fused_launch_for(g.fft_frames).kernel;
  if (!kernel) throw Error("cuda-fft-fused: no kernel for " + std::to_string(g.fft_frames) + "-point transforms");
  device.allow_dynamic_smem(reinterpret_cast<const void*>(kernel), fused_shared_bytes(g));
  return 0;
}

// What a step costs the three kernels in SM time, against what it costs the cluster kernel:
// the same row transforms, but through device memory, and the column passes as two more
// kernels. From the H100's figures at 65535 taps (the three kernels alone 1.01 ms on 132 SMs,
// the cluster kernel 0.90 ms on 112): 1.01 x 132 / (0.90 x 112) = 1.3. With the ring traffic
// beside the cluster kernel too, the counts this gives ran within 0-5 % of the fastest of 0 to
// 8 steps at 16383, 65535 and 131071 taps, mono and stereo (seventeenth session, run 14 in
// bench/results/h100_fft_bench.md; before the ring traffic moved there, 0.75 had fitted).
constexpr double helper_step_cost = 1.3;

long long split_helper_steps(GpuDevice& device, const Geometry& g, int clusters) {
  if (clusters <= 0 || !fused_split(g.fft_frames)) return 0;
  const SplitLaunch launch = split_launch_for(g.fft_frames);
  device.make_current();
  int blocks_an_sm = 0;
  HALO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks_an_sm, launch.cluster, static_cast<int>(launch.cluster_threads), split_row_shared_bytes(g)));
  if (blocks_an_sm <= 0) return 0;
  const long long cluster_sms = (static_cast<long long>(clusters) * split_cluster_blocks + blocks_an_sm - 1) / blocks_an_sm;
  const long long idle_sms = device.sm_count() - cluster_sms;
  if (idle_sms <= 0) return 0;
  // A wave (each cluster one step of one channel) takes a time T and costs the cluster kernel
  // cluster_sms T of SM time, 16 T / blocks_an_sm a step; the piece's waves give the idle SMs
  // idle_sms x waves x T, which buys the three kernels this many steps of one channel:
  const double waves = static_cast<double>(g.batch_steps * g.channels) / clusters;
  const double items = idle_sms * waves * blocks_an_sm / (split_cluster_blocks * helper_step_cost);
  return static_cast<long long>(items) / g.channels;
}

long long fused_steps_at_once(GpuDevice& device, const Geometry& g, int clusters) {
  if (clusters > 0) return std::max(1, clusters / g.channels);
  if (fused_split(g.fft_frames)) return 0;  // three kernels: no prefetch there
  const FusedLaunch launch = fused_launch_for(g.fft_frames);
  device.make_current();
  int blocks = 0;
  HALO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, launch.kernel, static_cast<int>(launch.threads),
                                                                fused_shared_bytes(g)));
  return std::max(1LL, static_cast<long long>(blocks) * device.sm_count() / g.channels);  // a step's channels side by side
}

}  // namespace halo::cuda
