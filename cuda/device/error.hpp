#pragma once
// Checked CUDA calls. Every CUDA runtime call and every kernel launch in cuda/ and bench/ goes
// through HALO_CUDA_CHECK / HALO_CUDA_CHECK_LAUNCH, in every build type (no NDEBUG escape):
// a failure throws halo::cuda::Error naming the call, the place and CUDA's reason.
#include <cuda_runtime_api.h>

#include <string>

#include "src/engine/engine.hpp"

namespace halo::cuda {

// Everything the CUDA engines reject or fail at: no device, a mask too long for constant
// memory, a failed CUDA call. The CLI prints it as "halo: <message>".
class Error : public halo::Error {
 public:
  using halo::Error::Error;
};

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

inline void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

}  // namespace halo::cuda

// Checks one CUDA runtime call: HALO_CUDA_CHECK(cudaMalloc(&p, bytes));
#define HALO_CUDA_CHECK(call) ::halo::cuda::check((call), #call, __FILE__, __LINE__)
// Checks the launch just made (configuration errors, missing kernel image): pass its name.
#define HALO_CUDA_CHECK_LAUNCH(kernel_name) \
  ::halo::cuda::check(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)
