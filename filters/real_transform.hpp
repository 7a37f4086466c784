#pragma once
#include <fftw3.h>

#include <complex>
#include <cstddef>
#include <memory>
#include <mutex>

namespace halo::filters {

// FFTW's planner is not thread-safe: every double-precision plan in filters/ is made and
// destroyed under this one lock (the engines' single-precision FFTW is another library, with
// its own planner and lock).
std::mutex& fftw_planner_mutex();

// A real sequence of n points and its half spectrum (n/2 + 1 bins), in double, with FFTW's
// estimated plans between them both ways; RAII for the buffers and the plans. c2r overwrites
// the spectrum it reads. Throws std::bad_alloc, or filters::Error when FFTW cannot plan n.
class RealTransform {
 public:
  explicit RealTransform(std::size_t n);
  ~RealTransform();
  RealTransform(const RealTransform&) = delete;
  RealTransform& operator=(const RealTransform&) = delete;

  std::size_t size() const { return n_; }
  double* real() { return real_.get(); }
  std::complex<double>* spectrum() { return reinterpret_cast<std::complex<double>*>(spectrum_.get()); }
  void forward() { fftw_execute(forward_); }    // real -> spectrum
  void backward() { fftw_execute(backward_); }  // spectrum -> real, times n

 private:
  struct FftwFree {
    void operator()(void* memory) const noexcept { fftw_free(memory); }
  };
  std::size_t n_;
  std::unique_ptr<double, FftwFree> real_;
  std::unique_ptr<fftw_complex, FftwFree> spectrum_;
  fftw_plan forward_ = nullptr, backward_ = nullptr;
};

}  // namespace halo::filters
