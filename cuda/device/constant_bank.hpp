#pragma once
// The size of each GPU's constant tap bank. Plain C++: the registry's accepts() reads it
// without a device. GpuDevice leases regions of the bank; cuda/direct/tap_bank.cuh holds it.
#include <cstddef>

namespace halo::cuda {

// Constant memory holds 64 KiB: 16384 float taps per GPU, shared by every engine on it.
constexpr std::size_t max_constant_taps = 16384;

}  // namespace halo::cuda
