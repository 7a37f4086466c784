#pragma once
// The overlap-save kernels of cuda-fft and cuda-fft-fused, and the host functions that launch
// them (overlap_save_kernels.cu). Plain C++ declarations: the engine includes it.
//
// Every kernel takes its piece as a PieceSource: by value in a direct launch, from device
// memory in a CUDA graph captured once to run any piece; `grid_frames` / `grid_segments` size
// the grid (the piece's own counts for a direct launch, the largest for a graph) and threads
// past the piece's counts return.
// Channels are planar in the rings: channel c's input ring at ring + c R, its output ring at
// out_ring + c Ry. Segment slot b = c * batch_segments + s (s < batch_segments) holds segment
// first_segment + s of channel c, in the cuFFT path's buffers.
//
// Memory traffic per input sample (one channel), in floats:
//   gather:    L/H reads of the piece's input (the ring before it) + L/H writes of segments
//              (cuda-fft)
//   C2C:       cuFFT's passes over the L/2 complex pairs of L/H reals, each way (cuda-fft)
//   spectral product: (L/2)/H complex reads and writes + the mask spectrum's (L2-resident)
//              reads (cuda-fft)
//   crop:      1 read of segments + 1 write of the piece's output  (cuda-fft)
//   fused:     L/H reads of the piece's input + 1 write of its output; the FFTs stay in
//              registers and shared memory (cuda-fft-fused)
//   split:     the same, and L/H complex values of scratch written, read and written, read
//              (cuda-fft-fused past one block)
//   to_ring:   the piece's last step + D + 1 frames, 1 read + 1 write each
//   from_ring: the piece's first frames, at most step_frames, 1 read + 1 write each
#include <cuda_runtime_api.h>
#include <cufft.h>

#include "cuda/fft/block_fft.hpp"
#include "cuda/fft/overlap_save.hpp"

namespace halo::cuda {

class GpuDevice;

// The piece's last frames (interleaved, `in`), those a later piece reads back, into the
// input ring (first_frame_to_ring).
cudaError_t launch_to_ring(const PieceSource& piece, const Geometry& g, const float* in, float* ring,
                           long long grid_frames, cudaStream_t stream) noexcept;
// The piece's first outputs, those an earlier piece computed (frames_from_ring): y[t -
// step_frames] for its stream frames t (0 before the stream's start), from the output ring
// into `out` (interleaved).
cudaError_t launch_from_ring(const PieceSource& piece, const Geometry& g, const float* out_ring, float* out,
                             long long grid_frames, cudaStream_t stream) noexcept;

// cuda-fft: the completed segments' L inputs each, from the piece's frames `in` and the input
// ring before them, into `segments`.
cudaError_t launch_gather(const PieceSource& piece, const Geometry& g, const float* in, const float* ring,
                          float* segments, long long grid_segments, cudaStream_t stream) noexcept;
// cuda-fft: each completed segment's spectrum from the forward C2C of its L reals taken as
// L/2 complex pairs, in place, into the spectrum whose inverse C2C gives L x its convolution
// with channel c's mask (masks + mask_of_channel[c] * bins(): the mask's R2C spectrum, scaled
// by 1/L) as L reals: the real-FFT post-processing, the product and the pre-processing of the
// inverse in one pass (real_spectrum.hpp).
cudaError_t launch_spectral_product(const PieceSource& piece, const Geometry& g, cufftComplex* spectra,
                                    const cufftComplex* masks, const int* mask_of_channel, long long grid_segments,
                                    cudaStream_t stream) noexcept;
// cuda-fft: points [D, L) of each completed segment's inverse into the piece's output
// `out`, or the output ring for those a later piece emits.
cudaError_t launch_crop(const PieceSource& piece, const Geometry& g, const float* segments, float* out,
                        float* out_ring, long long grid_segments, cudaStream_t stream) noexcept;

// cuda-fft-fused: every completed step of every channel, one block each: the piece's frames
// (and the input ring before them) -> register FFT -> product with the mask's spectrum
// (fused_mask_spectrum's order, masks + mask_of_channel[c] * L) -> inverse -> the piece's
// output (and the output ring); and, in the same launch, what launch_to_ring and
// launch_from_ring do (so a piece with a transform needs neither).
cudaError_t launch_fused(const PieceSource& piece, const Geometry& g, const float* in, float* out, float* ring,
                         float* out_ring, const Complex* masks, const int* mask_of_channel, const Complex* twiddles,
                         long long grid_frames, long long grid_steps, cudaStream_t stream) noexcept;
// cuda-fft-fused past one block (fused_split(L), split_fft.hpp): every completed step of every
// channel: columns forward, the rows' transforms, products and inverses, columns inverse into
// the piece's output (and the output ring), either as one kernel in clusters of 16 blocks
// (`clusters` of them, what allow_fused_kernel says the GPU holds at once, each looping over
// the steps) or, where `clusters` is 0, as three kernels through `rows` (grid_steps x channels
// x L complex); and, in the same call, what launch_to_ring and launch_from_ring do (their
// frames and slots are none the transforms touch).
// With clusters and the helper's streams set, the cluster kernel runs on helper.cluster_stream
// (of the highest priority, so that the GPU places every cluster before other blocks take SMs
// a cluster needs) and, beside it on helper.stream, the ring traffic and the steps past
// helper.cluster_steps as the three kernels (through `rows`: steps past cluster_steps x
// channels x L complex), on the SMs no cluster of 16 reaches (split_helper_steps); both
// streams forked from `stream` and joined back into it.
struct SplitHelper {
  long long cluster_steps = 0;            // steps a piece the cluster kernel takes; 0: all of them
  cudaStream_t cluster_stream = nullptr;  // where the cluster kernel runs then
  cudaStream_t stream = nullptr;          // where the ring traffic and the three kernels run beside it
  cudaEvent_t fork = nullptr;             // recorded on the caller's stream; both streams wait for it
  cudaEvent_t cluster_done = nullptr;     // recorded on each of the two streams at its end; the
  cudaEvent_t beside_done = nullptr;      // caller's stream waits for both
};
cudaError_t launch_split(const PieceSource& piece, const Geometry& g, const float* in, float* out, float* ring,
                         float* out_ring, Complex* rows, const Complex* masks, const int* mask_of_channel,
                         const Complex* row_twiddles, const Complex* column_twiddles, long long grid_frames,
                         long long grid_steps, int clusters, const SplitHelper& helper, cudaStream_t stream) noexcept;
// Steps a piece of g's batch (whole waves of `clusters`) the three kernels can take beside the
// cluster kernel in the time it runs its waves, on the SMs its clusters leave idle: clusters of
// 16 blocks never reached 20 of the H100's 132 SMs (Nsight Compute, bench/FFT.md). 0 where
// every SM holds a cluster's block or the GPU runs no clusters.
long long split_helper_steps(GpuDevice& device, const Geometry& g, int clusters);
// Lets the fused kernel (or a split L's kernels) take the shared memory of its transform on
// `device` (above 48 KiB a kernel must opt in). Returns, for a split L whose steps run as one
// kernel in clusters of 16 blocks (when `cluster_wanted` and the GPU can hold such a cluster;
// `rows` of launch_split may then be null), how many clusters the GPU holds at once; 0 where
// they run as three kernels through `rows` (and for one-block L). Throws halo::cuda::Error.
int allow_fused_kernel(GpuDevice& device, const Geometry& g, bool cluster_wanted);
// Steps of one channel cuda-fft-fused's kernel runs at once on `device` (its blocks an SM
// times the SMs; or the clusters it holds, `clusters` from allow_fused_kernel, over the
// channels): a wave, the unit of Geometry::prefetch_steps.
long long fused_steps_at_once(GpuDevice& device, const Geometry& g, int clusters);

}  // namespace halo::cuda
