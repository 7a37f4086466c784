#pragma once
// The constant tap bank as the kernels see it. Device code: include only from .cu files.
//
// One bank per translation unit. Without relocatable device code (-rdc), a __constant__
// variable belongs to the module of the .cu file that defines it, and only that file's
// kernels read it. So the bank, every kernel that reads it and the upload into it live in
// one translation unit: in the library that is cuda/direct/dispatch.cu (it includes
// textbook_kernels.cuh and fast_kernels.cuh; the engine uploads with upload_taps()). The
// benchmark's bench/fast_variants.cu includes the same headers and so gets a bank and kernels
// of its own, with an upload of its own. The anonymous namespace says so in the code: the
// bank and the kernel templates of these headers are distinct per file, and two files' kernel
// instances can never be merged by the linker (which would launch one file's kernel against
// the other's bank).
//
// GpuDevice leases regions of the library's bank to engines; kernels take the region's
// offset (tap_base), never assume 0, except the short-mask kernel's constant-address form,
// which the dispatch picks only for a lease at offset 0.
#include "cuda/device/constant_bank.hpp"

namespace halo::cuda {
namespace {

__constant__ float c_taps[max_constant_taps];

}  // namespace
}  // namespace halo::cuda
