#pragma once
// RAII for FFTW (single precision), shared by every CPU FFT engine, and the one lock around
// FFTW's planner, which is not thread-safe: engines are prepared, and destroyed, on several
// threads at once (a job's engine thread, the real-time worker).
#include <fftw3.h>

#include <cstddef>
#include <memory>
#include <mutex>

namespace halo::fftw {

// Held while making or destroying a plan (recursive: replacing a plan under the lock destroys
// the old one, which takes it again). fftwf_execute* need no lock.
std::recursive_mutex& planner_mutex();

struct Free {
  void operator()(void* memory) const noexcept { fftwf_free(memory); }
};
// `count` elements from fftwf_malloc (SIMD-aligned); null when the memory is not there.
template <typename T>
using Array = std::unique_ptr<T[], Free>;
template <typename T>
Array<T> allocate(std::size_t count) {
  return Array<T>(static_cast<T*>(fftwf_malloc(sizeof(T) * count)));
}

// Destroys the plan under planner_mutex().
struct PlanDestroy {
  void operator()(fftwf_plan_s* plan) const noexcept;
};
using Plan = std::unique_ptr<fftwf_plan_s, PlanDestroy>;

// The engines' real transforms of n points (out of place, arrays from allocate(); null when
// FFTW cannot plan them), made under planner_mutex(). A measured plan where FFTW's wisdom
// holds one for n (fftw_wisdom.hpp: loaded once per process, never measured here), else an
// estimated one: planning stays instant, and every engine of a process plans n alike, so two
// engines given the same input agree bit for bit.
Plan plan_r2c(int n, float* in, fftwf_complex* out);
Plan plan_c2r(int n, fftwf_complex* in, float* out);
// The same for a complex transform of n points, FFTW_FORWARD or FFTW_BACKWARD (`sign`), out of
// place (cpu-fft's packed real transforms: packed_real_fft.hpp).
Plan plan_c2c(int n, fftwf_complex* in, fftwf_complex* out, int sign);
// Whether the wisdom holds both directions of plan_c2c(n) for these arrays (nothing counted).
bool wisdom_holds_c2c(int n, fftwf_complex* in, fftwf_complex* out);
// `howmany` complex transforms of n points each, element j of transform t at in[t idist +
// j istride] (out likewise; in == out for in place), as plan_c2c makes them.
Plan plan_many_c2c(int n, int howmany, fftwf_complex* in, int istride, int idist, fftwf_complex* out, int ostride,
                   int odist, int sign);

// How the process's plans were made so far (for --timings): each FFTW plan counts, so one of
// cpu-fft's four-step transforms (packed_real_fft.hpp) counts as four.
struct PlanCounts {
  int from_wisdom = 0;
  int estimated = 0;
};
PlanCounts plan_counts();

}  // namespace halo::fftw
