#pragma once
// cuda-fft-fused's transform at every size it takes, as the engine and the tests see it: one
// block's (L <= max_fused_block_fft_frames, block_fft.hpp) or split over 16 rows (larger L,
// split_fft.hpp: a cluster kernel, or three kernels). Its tables, the masks' spectra in the
// order the kernels multiply by them, and the host twin of one step (the tests' emulation of
// the kernels).
#include <cstddef>
#include <vector>

#include "cuda/fft/block_fft.hpp"
#include "cuda/fft/overlap_save.hpp"

namespace halo::cuda {

// What the kernels read besides the signal and the masks.
struct FusedTables {
  std::size_t fft_frames = 0;
  std::vector<Complex> twiddles;         // every pass's table of the block transform: of L, or of the rows (L/16) when split
  std::vector<Complex> column_twiddles;  // split: the L transform's pass 0 over the columns (make_column_twiddles); else empty
};
FusedTables make_fused_tables(std::size_t fft_frames);

// The mask's spectrum as the kernels multiply by it: the forward transform of h / L
// (zero-padded to L), computed on the host in float by the same passes, in the threads' order
// of the last pass (one block: point j of thread t at j L/16 + t; split: the same within each
// row of L/16, row after row).
std::vector<Complex> fused_mask_spectrum(const std::vector<float>& taps, const FusedTables& tables);

// Complex values of scratch fused_step_on_host needs for L.
std::size_t fused_host_scratch_points(std::size_t fft_frames);

// The kernels' work for one step of one channel of piece h, on the host, phase by phase
// through the same functions: the step's two segments from the piece and the input ring
// (x(p) for p < 0 is 0), forward, product with `mask` (fused_mask_spectrum), inverse, the
// outputs into the piece and the output ring.
void fused_step_on_host(const Geometry& g, const PieceHeader& h, long long step, const ChannelIo& io,
                        const Complex* mask, const FusedTables& tables, Complex* scratch);

}  // namespace halo::cuda
