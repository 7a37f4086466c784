#pragma once
// Checked CUDA calls. Every CUDA runtime call and every kernel launch in cuda/ and bench/ goes
// through HALO_CUDA_CHECK / HALO_CUDA_CHECK_LAUNCH, in every build type (no NDEBUG escape):
// a failure throws halo::cuda::Error naming the call, the place and CUDA's reason.
// Inside an engine's noexcept do_process, HALO_CUDA_TRY records the same words with
// Engine::fail (no allocation, no throw) and returns Status::failed.
#include <cuda_runtime_api.h>

#include <string>

#include "src/engine/error.hpp"

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
// For an Engine's noexcept member functions (process): on failure, returns
// fail("CUDA error in <call> (<file>:<line>): <reason> (<name>)"), i.e. Status::failed.
#define HALO_CUDA_TRY(call)                                                                          \
  do {                                                                                               \
    const cudaError_t halo_status_ = (call);                                                         \
    if (halo_status_ != cudaSuccess)                                                                 \
      return fail("CUDA error in %s (%s:%d): %s (%s)", #call, __FILE__, __LINE__,                    \
                  cudaGetErrorString(halo_status_), cudaGetErrorName(halo_status_));                 \
  } while (0)
