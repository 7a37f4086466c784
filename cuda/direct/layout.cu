// Layout kernels: interleaved <-> planar, and the halo carry (kernels.cuh declares them).
// Each thread moves one sample; coalesced on the interleaved side. No taps: no bank here.
#include "cuda/direct/kernels.cuh"

namespace halo::cuda {
namespace {

__global__ void deinterleave_kernel(const float* __restrict__ in, int frames, int channels, float* __restrict__ planar,
                                    std::size_t stride) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long long>(frames) * channels) return;
  const int f = static_cast<int>(i / channels);
  const int c = static_cast<int>(i - static_cast<long long>(f) * channels);
  planar[c * stride + f] = in[i];
}

__global__ void interleave_kernel(const float* __restrict__ planar, std::size_t stride, int frames, int channels,
                                  float* __restrict__ out) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long long>(frames) * channels) return;
  const int f = static_cast<int>(i / channels);
  const int c = static_cast<int>(i - static_cast<long long>(f) * channels);
  out[i] = planar[c * stride + f];
}

__global__ void carry_kernel(const float* __restrict__ src_end, float* __restrict__ dst_end, std::size_t stride,
                             int count) {
  const int c = blockIdx.y;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  dst_end[c * stride - count + i] = src_end[c * stride - count + i];
}

constexpr int layout_threads = 256;

unsigned blocks_for(std::size_t items) { return static_cast<unsigned>((items + layout_threads - 1) / layout_threads); }

}  // namespace

cudaError_t launch_deinterleave(const float* interleaved, std::size_t frames, int channels, float* planar,
                                std::size_t stride, cudaStream_t stream) noexcept {
  if (frames == 0) return cudaSuccess;
  deinterleave_kernel<<<blocks_for(frames * channels), layout_threads, 0, stream>>>(
      interleaved, static_cast<int>(frames), channels, planar, stride);
  return cudaGetLastError();
}

cudaError_t launch_interleave(const float* planar, std::size_t stride, std::size_t frames, int channels,
                              float* interleaved, cudaStream_t stream) noexcept {
  if (frames == 0) return cudaSuccess;
  interleave_kernel<<<blocks_for(frames * channels), layout_threads, 0, stream>>>(
      planar, stride, static_cast<int>(frames), channels, interleaved);
  return cudaGetLastError();
}

cudaError_t launch_carry(const float* src_end, float* dst_end, std::size_t stride, std::size_t count, int channels,
                         cudaStream_t stream) noexcept {
  if (count == 0) return cudaSuccess;
  carry_kernel<<<dim3(blocks_for(count), channels), layout_threads, 0, stream>>>(src_end, dst_end, stride,
                                                                                 static_cast<int>(count));
  return cudaGetLastError();
}

}  // namespace halo::cuda
