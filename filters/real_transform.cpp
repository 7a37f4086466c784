#include "filters/real_transform.hpp"

#include <new>
#include <string>

#include "filters/error.hpp"

namespace halo::filters {

std::mutex& fftw_planner_mutex() {
  static std::mutex planner;
  return planner;
}

RealTransform::RealTransform(std::size_t n)
    : n_(n), real_(fftw_alloc_real(n)), spectrum_(fftw_alloc_complex(n / 2 + 1)) {
  if (!real_ || !spectrum_) throw std::bad_alloc();
  const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  forward_ = fftw_plan_dft_r2c_1d(static_cast<int>(n), real_.get(), spectrum_.get(), FFTW_ESTIMATE);
  backward_ = fftw_plan_dft_c2r_1d(static_cast<int>(n), spectrum_.get(), real_.get(), FFTW_ESTIMATE);
  if (!forward_ || !backward_) {
    if (forward_) fftw_destroy_plan(forward_);
    if (backward_) fftw_destroy_plan(backward_);
    throw Error("FFTW could not plan a real transform of " + std::to_string(n) + " points");
  }
}

RealTransform::~RealTransform() {
  const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  fftw_destroy_plan(forward_);
  fftw_destroy_plan(backward_);
}

}  // namespace halo::filters
