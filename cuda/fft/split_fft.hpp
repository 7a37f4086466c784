#pragma once
// cuda-fft-fused past one block's shared memory: transforms of L = 16 R points (R = 2^11 ..
// 2^14, so L = 2^15 .. 2^18) over 16 rows, still reading each input and writing each output
// once. Three steps, run as one kernel in a cluster of 16 blocks where the GPU holds one (the
// rows in the blocks' shared memory, split_cluster_kernel in overlap_save_kernels.cu) and as
// three kernels through a scratch in device memory elsewhere, and for a piece's last steps
// beside the cluster kernel on the SMs its clusters leave idle (launch_split):
//   columns forward: thread t takes points j R + t (j < 16) of a step's two segments straight
//       from the piece (load_step_points, as the fused kernel does), runs the L-point
//       transform's pass 0 in registers (a 16-point DFT and its twiddles) and writes the 16
//       values to row j of the step's scratch, position t: coalesced both ways;
//   rows: one block per row of R points: the rest of the L-point transform, which for a
//       decimation in frequency is an independent R-point transform of each row (the L
//       transform's pass p >= 1 is the row transform's pass p - 1: block_fft.hpp's phases for
//       R), the product with the mask's spectrum (in the same order), and the inverse back to
//       pass 0's output; the row read and written once, through shared memory;
//   columns inverse: thread t reads its 16 values of the rows, runs the inverse of pass 0 and
//       writes the step's outputs (store_step_points).
// The three kernels' scratch (steps x channels x L complex) is their only extra traffic:
// written once, read and written once, read once. The functions below are the steps' parts
// that both forms share, and the tests' host twin runs.
#include <cstddef>
#include <vector>

#include "cuda/fft/block_fft.hpp"

namespace halo::cuda {

constexpr int min_split_log2 = max_fused_log2 + 1;  // 32768 (up to max_fused_fft_frames: rows of 16384)

// Columns forward for thread t < R of step `step`: its 16 values v[j] (for row j, position t).
template <int LogL>
HALO_HD void split_column_values(const Geometry& g, const PieceHeader& h, long long step, const ChannelIo& io,
                                 const Complex* column_twiddles, int t, Complex (&v)[16]) {
  load_step_points<(1 << (LogL - 4))>(g, h, step, io, t, v);
  forward_pass<LogL>(v, 0, t, column_twiddles);
}

// Columns forward for thread t < R of step `step`: into `rows` (the step's L values).
template <int LogL>
HALO_HD void split_columns_forward(const Geometry& g, const PieceHeader& h, long long step, const ChannelIo& io,
                                   Complex* rows, const Complex* column_twiddles, int t) {
  constexpr int r = 1 << (LogL - 4);
  Complex v[16];
  split_column_values<LogL>(g, h, step, io, column_twiddles, t, v);
  HALO_UNROLL
  for (int j = 0; j < 16; ++j) rows[j * r + t] = v[j];
}

// Columns inverse for thread t < R of step `step`, from its 16 values v[j] (row j, position
// t): into the piece's outputs.
template <int LogL>
HALO_HD void split_column_outputs(const Geometry& g, const PieceHeader& h, long long step, Complex (&v)[16],
                                  const ChannelIo& io, const Complex* column_twiddles, int t) {
  inverse_pass<LogL>(v, 0, t, column_twiddles);
  store_step_points<(1 << (LogL - 4))>(g, h, step, io, t, v);
}

// Columns inverse for thread t < R of step `step`: from `rows`, into the piece's outputs.
template <int LogL>
HALO_HD void split_columns_inverse(const Geometry& g, const PieceHeader& h, long long step, const Complex* rows,
                                   const ChannelIo& io, const Complex* column_twiddles, int t) {
  constexpr int r = 1 << (LogL - 4);
  Complex v[16];
  HALO_UNROLL
  for (int j = 0; j < 16; ++j) v[j] = rows[j * r + t];
  split_column_outputs<LogL>(g, h, step, v, io, column_twiddles, t);
}

// A row's first phase (the row transform's pass 0, from device memory into shared memory) and
// its last (the inverse's pass 0, back into device memory); the phases between are the fused
// kernel's for R = 2^LogR. Each in two halves, reading and writing, which the cluster kernel
// (overlap_save_kernels.cu) runs with a barrier between them: there the row is the block's
// own shared memory, read and written in place.
template <int LogR>
HALO_HD void split_row_load(const Complex* row, int t, Complex (&v)[16]) {
  constexpr int threads = FusedShape<LogR>::threads;
  HALO_UNROLL
  for (int j = 0; j < 16; ++j) v[j] = row[j * threads + t];
}

template <int LogR>
HALO_HD void split_row_first_pass_held(Complex (&v)[16], Complex* z, const Complex* twiddles, int t) {
  forward_pass<LogR>(v, 0, t, twiddles);
  store_pass<LogR>(z, 0, t, v);
}

template <int LogR>
HALO_HD void split_row_first_pass(const Complex* row, Complex* z, const Complex* twiddles, int t) {
  Complex v[16];
  split_row_load<LogR>(row, t, v);
  split_row_first_pass_held<LogR>(v, z, twiddles, t);
}

template <int LogR>
HALO_HD void split_row_last_pass_held(const Complex* z, const Complex* twiddles, int t, Complex (&v)[16]) {
  load_pass<LogR>(z, 0, t, v);
  inverse_pass<LogR>(v, 0, t, twiddles);
}

template <int LogR>
HALO_HD void split_row_store(Complex* row, int t, const Complex (&v)[16]) {
  constexpr int threads = FusedShape<LogR>::threads;
  HALO_UNROLL
  for (int j = 0; j < 16; ++j) row[j * threads + t] = v[j];
}

template <int LogR>
HALO_HD void split_row_last_pass(const Complex* z, Complex* row, const Complex* twiddles, int t) {
  Complex v[16];
  split_row_last_pass_held<LogR>(z, twiddles, t, v);
  split_row_store<LogR>(row, t, v);
}

// ---------------------------------------------------------------- host side

// The twiddles of the L-point transform's pass 0 over the columns, laid out as make_twiddles
// lays out a pass (entry b R + n2 = exp(-2 pi i n2 2^b / L), b < 4), in double, rounded once.
std::vector<Complex> make_column_twiddles(std::size_t fft_frames);

}  // namespace halo::cuda
