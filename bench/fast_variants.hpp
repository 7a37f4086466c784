#pragma once
// Other shapes of cuda-fast's kernels, for tuning (halo_bench variants / short). Not part of
// the library: bench/fast_variants.cu compiles its own copy of the kernels, with a constant
// tap bank of its own (cuda/direct/tap_bank.cuh says why), so its taps go in with
// upload_variant_taps, not through a GpuDevice lease.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda/device/gpu_device.hpp"
#include "cuda/direct/kernels.cuh"

namespace halo::bench {

int fast_variant_count();
const char* fast_variant_name(int variant);
// The plan of variant `variant` for masks of `padded_taps` taps (a multiple of 32); launch
// it with cuda::launch_convolution (tap_base 0, the variants' bank). The largest shape's frame
// granule (256 x 32 outputs) exceeds frame_granule: make x readable that far.
cuda::ConvolutionPlan plan_fast_variant(int variant, std::size_t padded_taps, cuda::GpuDevice& device);
// Copies `count` taps into the variants' constant bank at offset 0 and waits.
void upload_variant_taps(const float* taps, std::size_t count);

}  // namespace halo::bench
