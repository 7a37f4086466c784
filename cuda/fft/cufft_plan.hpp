#pragma once
// Checked cuFFT calls and the RAII owner of a cuFFT plan (its work area included).
// Like HALO_CUDA_CHECK / HALO_CUDA_TRY (cuda/device/error.hpp), in every build type:
// HALO_CUFFT_CHECK throws halo::cuda::Error naming the call, the place and cuFFT's result;
// HALO_CUFFT_TRY, inside an Engine's noexcept members, returns fail(...) instead.
#include <cufft.h>

#include <string>
#include <utility>

#include "cuda/device/error.hpp"

namespace halo::cuda {

// cuFFT's result in words ("CUFFT_ALLOC_FAILED"); cuFFT has no cufftGetErrorString.
inline const char* cufft_result_name(cufftResult result) noexcept {
  switch (result) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED (out of GPU memory)";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "a cuFFT error";
  }
}

[[noreturn]] inline void throw_cufft_error(cufftResult result, const char* call, const char* file, int line) {
  throw Error(std::string("cuFFT error in ") + call + " (" + file + ":" + std::to_string(line) +
              "): " + cufft_result_name(result));
}

}  // namespace halo::cuda

#define HALO_CUFFT_CHECK(call)                                                                   \
  do {                                                                                           \
    const cufftResult halo_result_ = (call);                                                     \
    if (halo_result_ != CUFFT_SUCCESS) ::halo::cuda::throw_cufft_error(halo_result_, #call, __FILE__, __LINE__); \
  } while (0)

#define HALO_CUFFT_TRY(call)                                                                     \
  do {                                                                                           \
    const cufftResult halo_result_ = (call);                                                     \
    if (halo_result_ != CUFFT_SUCCESS)                                                           \
      return fail("cuFFT error in %s (%s:%d): %s", #call, __FILE__, __LINE__,                    \
                  ::halo::cuda::cufft_result_name(halo_result_));                                \
  } while (0)

namespace halo::cuda {

// A cuFFT plan: a batch of 1-D transforms of one size and type, with the contiguous layout
// (transform b's input at b * idist, output at b * odist). Its work area is allocated by cuFFT
// when the plan is made and freed with it. Movable, not copyable.
class FftPlan {
 public:
  FftPlan() = default;
  // `size` points per transform, `batch` transforms; type CUFFT_R2C, CUFFT_C2R or CUFFT_C2C
  // (one plan for both directions).
  FftPlan(long long size, long long batch, cufftType type) {
    HALO_CUFFT_CHECK(cufftCreate(&plan_));
    held_ = true;
    long long n = size;
    std::size_t work_bytes = 0;
    const long long bins = size / 2 + 1;
    const long long idist = type == CUFFT_C2R ? bins : size, odist = type == CUFFT_R2C ? bins : size;
    const cufftResult made =
        cufftMakePlanMany64(plan_, 1, &n, nullptr, 1, idist, nullptr, 1, odist, type, batch, &work_bytes);
    if (made != CUFFT_SUCCESS) {
      release();
      throw_cufft_error(made, "cufftMakePlanMany64", __FILE__, __LINE__);
    }
    work_bytes_ = work_bytes;
  }
  ~FftPlan() { release(); }
  FftPlan(FftPlan&& other) noexcept
      : plan_(other.plan_), held_(std::exchange(other.held_, false)), work_bytes_(std::exchange(other.work_bytes_, 0)) {}
  FftPlan& operator=(FftPlan&& other) noexcept {
    if (this != &other) {
      release();
      plan_ = other.plan_;
      held_ = std::exchange(other.held_, false);
      work_bytes_ = std::exchange(other.work_bytes_, 0);
    }
    return *this;
  }
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  cufftHandle get() const { return plan_; }
  explicit operator bool() const { return held_; }
  std::size_t work_bytes() const { return work_bytes_; }  // cuFFT's work area on the GPU

 private:
  void release() noexcept {
    if (held_) cufftDestroy(plan_);
    held_ = false;
  }
  cufftHandle plan_ = 0;
  bool held_ = false;  // a handle of 0 may be valid: ownership is this flag
  std::size_t work_bytes_ = 0;
};

}  // namespace halo::cuda
