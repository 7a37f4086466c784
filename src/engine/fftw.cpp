#include "src/engine/fftw.hpp"

namespace halo::fftw {

std::recursive_mutex& planner_mutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

void PlanDestroy::operator()(fftwf_plan_s* plan) const noexcept {
  std::lock_guard<std::recursive_mutex> lock(planner_mutex());
  fftwf_destroy_plan(plan);
}

}  // namespace halo::fftw
