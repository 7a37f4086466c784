// The overlap-save kernels (overlap_save_kernels.hpp says what each moves).
#include "cuda/device/gpu_device.hpp"
#include "cuda/fft/overlap_save_kernels.hpp"

#include <algorithm>

namespace halo::cuda {
namespace {

constexpr int threads_per_block = 256;
// Grid-stride loops: no grid needs more blocks than this to keep every SM busy.
constexpr long long max_blocks_x = 1 << 16;

unsigned blocks_for(long long items) {
  return static_cast<unsigned>(std::clamp<long long>((items + threads_per_block - 1) / threads_per_block, 1, max_blocks_x));
}

__device__ long long grid_stride() { return static_cast<long long>(gridDim.x) * blockDim.x; }

// Each thread: sample i of the chunk, interleaved; coalesced reads, planar ring writes.
__global__ void to_ring_kernel(const PieceHeader* __restrict__ header, Geometry g, const float* __restrict__ in,
                               float* __restrict__ ring) {
  const PieceHeader h = *header;
  const long long count = static_cast<long long>(h.frames) * g.channels;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count; i += grid_stride())
    to_ring_sample(g, h, i, in, ring);
}

__global__ void from_ring_kernel(const PieceHeader* __restrict__ header, Geometry g, const float* __restrict__ out_ring,
                                 float* __restrict__ out) {
  const PieceHeader h = *header;
  const long long count = static_cast<long long>(h.frames) * g.channels;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count; i += grid_stride())
    from_ring_sample(g, h, i, out_ring, out);
}

// blockIdx.y: segment s < rows_per_channel of channel c (slot b = c * batch_segments + s);
// the x dimension strides over the segment's points.
__global__ void gather_kernel(const PieceHeader* __restrict__ header, Geometry g, long long rows_per_channel,
                              const float* __restrict__ ring, float* __restrict__ segments) {
  const PieceHeader h = *header;
  const long long c = blockIdx.y / rows_per_channel, s = blockIdx.y - c * rows_per_channel;
  if (s >= h.segments) return;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < g.fft_frames; i += grid_stride())
    gather_point(g, h, c, s, i, ring, segments);
}

__global__ void multiply_kernel(const PieceHeader* __restrict__ header, Geometry g, long long rows_per_channel,
                                cufftComplex* __restrict__ spectra,
                                const cufftComplex* __restrict__ masks, const int* __restrict__ mask_of_channel) {
  const PieceHeader h = *header;
  const long long c = blockIdx.y / rows_per_channel, s = blockIdx.y - c * rows_per_channel;
  if (s >= h.segments) return;
  const long long b = c * g.batch_segments() + s;
  const long long bins = g.bins();
  cufftComplex* spectrum = spectra + b * bins;
  const cufftComplex* mask = masks + static_cast<long long>(mask_of_channel[c]) * bins;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < bins; k += grid_stride()) {
    const cufftComplex x = spectrum[k], w = mask[k];
    spectrum[k] = make_cuFloatComplex(x.x * w.x - x.y * w.y, x.x * w.y + x.y * w.x);
  }
}

__global__ void crop_kernel(const PieceHeader* __restrict__ header, Geometry g, long long rows_per_channel,
                            const float* __restrict__ segments, float* __restrict__ out_ring) {
  const PieceHeader h = *header;
  const long long c = blockIdx.y / rows_per_channel, s = blockIdx.y - c * rows_per_channel;
  if (s >= h.segments) return;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < g.hop_frames; i += grid_stride())
    crop_point(g, h, c, s, i, segments, out_ring);
}

// cuda-fft-fused: one block per (step, channel): the step's two segments of L inputs are read
// once from the input ring (global memory, through L2: neighbouring steps overlap by Mmax - 1
// frames) into one complex transform of L points in shared memory (8 L bytes); both FFTs,
// the product with the mask's spectrum (global, read through L1/L2: every block of a channel
// reads the same L values) and the crop happen there; each of the 2 H outputs is written once
// to the output ring. So the signal costs 2 L / (2 H) reads and one write per sample in
// device memory, besides the ring's own copy in and out (to_ring, from_ring); the arithmetic
// is 2 x log2(L) radix-2 stages of L/2 butterflies per step, a barrier after each.
__global__ void fused_kernel(const PieceHeader* __restrict__ header, Geometry g, const float* __restrict__ ring,
                             float* __restrict__ out_ring, const Complex* __restrict__ masks,
                             const int* __restrict__ mask_of_channel, const Complex* __restrict__ twiddles) {
  extern __shared__ Complex z[];
  const PieceHeader h = *header;
  const long long s = blockIdx.x;
  const int c = blockIdx.y;
  if (2 * s >= h.segments) return;  // the whole block: before any barrier
  const long long step = h.first_segment / 2 + s;
  const int t = threadIdx.x, threads = blockDim.x;
  const long long l = g.fft_frames;
  fused_load(g, step, ring + c * g.ring_frames, z, t, threads);
  __syncthreads();
  for (long long len = l; len >= 2; len /= 2) {
    forward_stage(z, l, len, twiddles, t, threads);
    __syncthreads();
  }
  fused_multiply(z, l, masks + static_cast<long long>(mask_of_channel[c]) * l, t, threads);
  __syncthreads();
  for (long long len = 2; len <= l; len *= 2) {
    inverse_stage(z, l, len, twiddles, t, threads);
    __syncthreads();
  }
  fused_store(g, step, z, out_ring + c * g.out_ring_frames, t, threads);
}

// y: rows_per_channel(grid_segments) rows per channel (in all at most cufft_batch_samples / L
// + channels <= 16384 + 1024, within the 65535 a grid's y allows).
long long rows_per_channel(const Geometry& g, long long grid_segments) {
  return std::clamp<long long>(grid_segments, 1, g.batch_segments());
}

dim3 segment_grid(const Geometry& g, long long points, long long grid_segments) {
  const long long rows = g.channels * rows_per_channel(g, grid_segments);
  const unsigned x = static_cast<unsigned>(std::clamp<long long>((points + threads_per_block - 1) / threads_per_block, 1, 64));
  return dim3(x, static_cast<unsigned>(rows));
}

}  // namespace

cudaError_t launch_to_ring(const PieceHeader* header, const Geometry& g, const float* in, float* ring,
                           long long grid_frames, cudaStream_t stream) noexcept {
  to_ring_kernel<<<blocks_for(grid_frames * g.channels), threads_per_block, 0, stream>>>(header, g, in, ring);
  return cudaGetLastError();
}

cudaError_t launch_from_ring(const PieceHeader* header, const Geometry& g, const float* out_ring, float* out,
                             long long grid_frames, cudaStream_t stream) noexcept {
  from_ring_kernel<<<blocks_for(grid_frames * g.channels), threads_per_block, 0, stream>>>(header, g, out_ring, out);
  return cudaGetLastError();
}

cudaError_t launch_gather(const PieceHeader* header, const Geometry& g, const float* ring, float* segments,
                          long long grid_segments, cudaStream_t stream) noexcept {
  gather_kernel<<<segment_grid(g, g.fft_frames, grid_segments), threads_per_block, 0, stream>>>(
      header, g, rows_per_channel(g, grid_segments), ring, segments);
  return cudaGetLastError();
}

cudaError_t launch_multiply(const PieceHeader* header, const Geometry& g, cufftComplex* spectra,
                            const cufftComplex* masks, const int* mask_of_channel, long long grid_segments,
                            cudaStream_t stream) noexcept {
  multiply_kernel<<<segment_grid(g, g.bins(), grid_segments), threads_per_block, 0, stream>>>(
      header, g, rows_per_channel(g, grid_segments), spectra, masks, mask_of_channel);
  return cudaGetLastError();
}

cudaError_t launch_crop(const PieceHeader* header, const Geometry& g, const float* segments, float* out_ring,
                        long long grid_segments, cudaStream_t stream) noexcept {
  crop_kernel<<<segment_grid(g, g.hop_frames, grid_segments), threads_per_block, 0, stream>>>(
      header, g, rows_per_channel(g, grid_segments), segments, out_ring);
  return cudaGetLastError();
}

cudaError_t launch_fused(const PieceHeader* header, const Geometry& g, const float* ring, float* out_ring,
                         const Complex* masks, const int* mask_of_channel, const Complex* twiddles,
                         long long grid_steps, cudaStream_t stream) noexcept {
  const dim3 grid(static_cast<unsigned>(std::max<long long>(1, grid_steps)), static_cast<unsigned>(g.channels));
  const std::size_t shared = static_cast<std::size_t>(g.fft_frames) * sizeof(Complex);
  fused_kernel<<<grid, g.fused_threads, shared, stream>>>(header, g, ring, out_ring, masks, mask_of_channel, twiddles);
  return cudaGetLastError();
}

void allow_fused_kernel(GpuDevice& device, const Geometry& g) {
  device.allow_dynamic_smem(reinterpret_cast<const void*>(&fused_kernel),
                            static_cast<std::size_t>(g.fft_frames) * sizeof(Complex));
}

}  // namespace halo::cuda
