#include "src/engine/fftw.hpp"

#include "src/engine/fftw_wisdom.hpp"

namespace halo::fftw {

std::recursive_mutex& planner_mutex() {
  static std::recursive_mutex mutex;
  return mutex;
}

void PlanDestroy::operator()(fftwf_plan_s* plan) const noexcept {
  std::lock_guard<std::recursive_mutex> lock(planner_mutex());
  fftwf_destroy_plan(plan);
}

namespace {

PlanCounts counts;  // every plan the engines made in this process, under planner_mutex()

template <typename Make>
Plan plan_from_wisdom_or_estimate(Make make) {
  std::lock_guard<std::recursive_mutex> lock(planner_mutex());
  load_wisdom_once();
  if (fftwf_plan plan = make(FFTW_MEASURE | FFTW_WISDOM_ONLY)) {
    ++counts.from_wisdom;
    return Plan(plan);
  }
  ++counts.estimated;
  return Plan(make(FFTW_ESTIMATE));
}

}  // namespace

PlanCounts plan_counts() {
  std::lock_guard<std::recursive_mutex> lock(planner_mutex());
  return counts;
}

Plan plan_r2c(int n, float* in, fftwf_complex* out) {
  return plan_from_wisdom_or_estimate([&](unsigned flags) { return fftwf_plan_dft_r2c_1d(n, in, out, flags); });
}

Plan plan_c2r(int n, fftwf_complex* in, float* out) {
  return plan_from_wisdom_or_estimate([&](unsigned flags) { return fftwf_plan_dft_c2r_1d(n, in, out, flags); });
}

Plan plan_c2c(int n, fftwf_complex* in, fftwf_complex* out, int sign) {
  return plan_from_wisdom_or_estimate([&](unsigned flags) { return fftwf_plan_dft_1d(n, in, out, sign, flags); });
}

bool wisdom_holds_c2c(int n, fftwf_complex* in, fftwf_complex* out) {
  std::lock_guard<std::recursive_mutex> lock(planner_mutex());
  load_wisdom_once();
  const Plan forward(fftwf_plan_dft_1d(n, in, out, FFTW_FORWARD, FFTW_MEASURE | FFTW_WISDOM_ONLY));
  const Plan backward(fftwf_plan_dft_1d(n, out, in, FFTW_BACKWARD, FFTW_MEASURE | FFTW_WISDOM_ONLY));
  return forward && backward;
}

Plan plan_many_c2c(int n, int howmany, fftwf_complex* in, int istride, int idist, fftwf_complex* out, int ostride,
                   int odist, int sign) {
  return plan_from_wisdom_or_estimate([&](unsigned flags) {
    return fftwf_plan_many_dft(1, &n, howmany, in, nullptr, istride, idist, out, nullptr, ostride, odist, sign, flags);
  });
}

}  // namespace halo::fftw
