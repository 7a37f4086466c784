#include "cuda/device/error.hpp"

namespace halo::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  throw Error(std::string("CUDA error in ") + call + " (" + file + ":" + std::to_string(line) +
              "): " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ")");
}

}  // namespace halo::cuda
