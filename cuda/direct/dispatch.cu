// Plans and launches of the direct kernels (kernels.cuh), and the library's constant tap bank:
// this is the one translation unit of halo_cuda that includes the kernels (tap_bank.cuh).
#include <string>

#include "cuda/device/error.hpp"
#include "cuda/device/gpu_device.hpp"
#include "cuda/direct/fast_kernels.cuh"
#include "cuda/direct/kernels.cuh"
#include "cuda/direct/period_kernels.cuh"
#include "cuda/direct/textbook_kernels.cuh"

namespace halo::cuda {
namespace {

dim3 textbook_grid(const ConvolutionPlan& plan, const PlanarLaunch& p) {
  return dim3(static_cast<unsigned>((p.frames + plan.block_threads - 1) / plan.block_threads),
              static_cast<unsigned>(p.channels));
}

cudaError_t launch_basic(const ConvolutionPlan& plan, const PlanarLaunch& p, cudaStream_t stream) noexcept {
  basic_kernel<<<textbook_grid(plan, p), plan.block_threads, 0, stream>>>(
      p.x, p.x_stride, p.y, p.y_stride, static_cast<int>(p.frames), plan.taps, p.global_taps, p.tap_base, p.tap_stride);
  return cudaGetLastError();
}

// constant, tiled and cached take the same arguments; `kernel` is one of them.
template <void (*kernel)(const float*, std::size_t, float*, std::size_t, int, int, int, int)>
cudaError_t launch_textbook(const ConvolutionPlan& plan, const PlanarLaunch& p, cudaStream_t stream) noexcept {
  kernel<<<textbook_grid(plan, p), plan.block_threads, plan.dynamic_smem, stream>>>(
      p.x, p.x_stride, p.y, p.y_stride, static_cast<int>(p.frames), plan.taps, p.tap_base,
      static_cast<int>(p.tap_stride));
  return cudaGetLastError();
}

}  // namespace

ConvolutionPlan plan_convolution(Kernel kernel, std::size_t taps, bool taps_at_offset, int block_threads,
                                 GpuDevice& device) {
  if (taps == 0 || taps > max_constant_taps)
    throw Error("internal: a plan for " + std::to_string(taps) + " taps");
  if (kernel != Kernel::fast && (block_threads < 1 || block_threads > 1024))
    throw Error("a block of " + std::to_string(block_threads) + " threads: give 1 to 1024");
  ConvolutionPlan plan;
  plan.kernel = kernel;
  plan.taps = static_cast<int>(taps);
  plan.block_threads = block_threads;
  switch (kernel) {
    case Kernel::basic:
      plan.launch = launch_basic;
      break;
    case Kernel::constant:
      plan.launch = launch_textbook<constant_kernel>;
      break;
    case Kernel::tiled:
      plan.dynamic_smem = (block_threads + taps - 1) * sizeof(float);
      device.allow_dynamic_smem(reinterpret_cast<const void*>(tiled_kernel), plan.dynamic_smem);
      plan.launch = launch_textbook<tiled_kernel>;
      break;
    case Kernel::cached:
      plan.dynamic_smem = block_threads * sizeof(float);
      plan.launch = launch_textbook<cached_kernel>;
      break;
    case Kernel::fast:
      plan_fast(plan, taps_at_offset, device);
      break;
  }
  return plan;
}

cudaError_t launch_convolution(const ConvolutionPlan& plan, const PlanarLaunch& launch, cudaStream_t stream) noexcept {
  if (launch.frames == 0) return cudaSuccess;
  if (!plan.launch) return cudaErrorInvalidValue;
  return plan.launch(plan, launch, stream);
}

cudaError_t launch_period(const PeriodLaunch& launch, cudaStream_t stream) noexcept {
  if (launch.taps <= 0 || launch.tiles <= 0 || launch.channels <= 0) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(period_partials(launch.sum, static_cast<std::size_t>(launch.taps))),
                  static_cast<unsigned>(launch.tiles), static_cast<unsigned>(launch.channels));
  if (launch.sum == PeriodSum::constant)
    period_kernel<period_tile_frames, KernelPolicy::taps_per_partial><<<grid, period_tile_frames, 0, stream>>>(launch);
  else
    period_kernel<period_tile_frames, FastPolicy::taps_per_stage><<<grid, period_tile_frames, 0, stream>>>(launch);
  return cudaGetLastError();
}

void upload_taps(std::size_t offset, const float* host_taps, std::size_t count, cudaStream_t stream) {
  if (offset + count > max_constant_taps)
    throw Error("internal: taps [" + std::to_string(offset) + ", " + std::to_string(offset + count) +
                ") outside the constant bank");
  HALO_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_taps, host_taps, count * sizeof(float), offset * sizeof(float),
                                          cudaMemcpyHostToDevice, stream));
  HALO_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace halo::cuda
