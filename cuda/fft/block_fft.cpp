#include "cuda/fft/block_fft.hpp"

#include <cmath>
#include <type_traits>
#include <vector>

#include "src/engine/error.hpp"

namespace halo::cuda {
namespace {

int log2_of(std::size_t fft_frames) {
  int log2 = 0;
  while ((std::size_t{1} << log2) < fft_frames) ++log2;
  if ((std::size_t{1} << log2) != fft_frames || log2 < min_fused_log2 || log2 > max_fused_log2)
    throw Error("fused FFT of " + std::to_string(fft_frames) + " points: needs a power of two from " +
                std::to_string(1 << min_fused_log2) + " to " + std::to_string(1 << max_fused_log2));
  return log2;
}

// Calls f(std::integral_constant<int, Shape>) for L's shape in `form`: the host twins run the
// kernels' instantiation for that transform.
template <class F>
void with_shape(std::size_t fft_frames, FusedForm form, F&& f) {
  with_fused_log2<min_fused_log2, max_fused_log2>(
      static_cast<long long>(fft_frames),
      [&](auto log2) {
        constexpr int row = decltype(log2)::value, step = fused_step_shape(row);
        if (form == FusedForm::step)
          f(std::integral_constant<int, step>{});
        else
          f(std::integral_constant<int, row>{});
      },
      [fft_frames] { log2_of(fft_frames); });  // throws: no such size
}

// The run-time shape of L in `form`.
int shape_of(std::size_t fft_frames, FusedForm form) {
  const int log2 = log2_of(fft_frames);
  return form == FusedForm::step ? fused_step_shape(log2) : log2;
}

template <int Log2>
void forward_in_shared(Complex* z, const Complex* twiddles) {
  using S = FusedShape<Log2>;
  for (int p = 0; p < S::passes - 1; ++p)
    for (int t = 0; t < S::threads_of(p); ++t) fused_forward_phase<Log2>(z, p, twiddles, t);
  for (int t = 0; t < S::threads_of(S::passes - 1); ++t) {
    Complex v[S::last_points];
    load_pass<Log2>(z, S::passes - 1, t, v);
    last_pass<Log2, false>(v);
    store_pass<Log2>(z, S::passes - 1, t, v);
  }
}

template <int Log2>
void inverse_in_shared(Complex* z, const Complex* twiddles) {
  using S = FusedShape<Log2>;
  for (int t = 0; t < S::threads_of(S::passes - 1); ++t) {
    Complex v[S::last_points];
    load_pass<Log2>(z, S::passes - 1, t, v);
    last_pass<Log2, true>(v);
    store_pass<Log2>(z, S::passes - 1, t, v);
  }
  for (int p = S::passes - 2; p >= 0; --p)
    for (int t = 0; t < S::threads_of(p); ++t) fused_inverse_phase<Log2>(z, p, twiddles, t);
}

// z (natural, L points) through `transform` in the padded shared-memory layout of L = 2^Log2,
// and back.
template <int Log2, class F>
void in_padded(Complex* z, F&& transform) {
  constexpr int l = FusedShape<Log2>::points;
  std::vector<Complex> shared(FusedShape<Log2>::shared_points);
  for (int i = 0; i < l; ++i) shared[padded_for<Log2>(i)] = z[i];
  transform(shared.data());
  for (int i = 0; i < l; ++i) z[i] = shared[padded_for<Log2>(i)];
}

}  // namespace

std::size_t bin_at_position(std::size_t position, std::size_t fft_frames, FusedForm form) {
  const int shape = shape_of(fft_frames, form);
  const int passes = fused_passes(shape);
  std::size_t bin = 0, scale = 1;
  for (int p = 0; p < passes - 1; ++p) {  // pass p's digit: bin digit p (radix fused_radix(p))
    const std::size_t s = static_cast<std::size_t>(fused_pass_stride(shape, p));
    bin += (position / s) * scale;
    position %= s;
    scale *= static_cast<std::size_t>(fused_radix(shape, p));
  }
  return bin + position * scale;  // the last pass's digit
}

std::size_t fused_shared_points(std::size_t fft_frames) { return fft_frames + fft_frames / 16; }

std::vector<Complex> make_twiddles(std::size_t fft_frames, FusedForm form) {
  const int shape = shape_of(fft_frames, form);
  const int passes = fused_passes(shape);
  std::vector<Complex> w(static_cast<std::size_t>(fused_twiddle_offset(shape, passes - 1)));
  const double pi = 3.14159265358979323846;
  for (int p = 0; p < passes - 1; ++p) {
    const int s = fused_pass_stride(shape, p), offset = fused_twiddle_offset(shape, p), radix = fused_radix(shape, p);
    for (int b = 0; b < fused_radix_bits(radix); ++b)
      for (int n2 = 0; n2 < s; ++n2) {
        const double angle = -2.0 * pi * static_cast<double>(n2 << b) / static_cast<double>(radix * s);
        w[offset + b * s + n2] = {static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle))};
      }
  }
  return w;
}

void forward_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles, FusedForm form) {
  with_shape(fft_frames, form, [&](auto shape) {
    constexpr int s = decltype(shape)::value;
    in_padded<s>(z, [&](Complex* shared) { forward_in_shared<s>(shared, twiddles); });
  });
}

void inverse_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles, FusedForm form) {
  with_shape(fft_frames, form, [&](auto shape) {
    constexpr int s = decltype(shape)::value;
    in_padded<s>(z, [&](Complex* shared) { inverse_in_shared<s>(shared, twiddles); });
  });
}

}  // namespace halo::cuda
