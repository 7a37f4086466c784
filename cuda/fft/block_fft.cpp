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

// Calls f(std::integral_constant<int, Log2>) for L's Log2: the host twins run the kernel's
// instantiation for that size.
template <class F>
void with_shape(std::size_t fft_frames, F&& f) {
  with_fused_log2<min_fused_log2, max_fused_log2>(static_cast<long long>(fft_frames), f,
                                                  [fft_frames] { log2_of(fft_frames); });  // throws: no such size
}

template <int Log2>
void forward_in_shared(Complex* z, const Complex* twiddles) {
  using S = FusedShape<Log2>;
  for (int p = 0; p < S::passes - 1; ++p)
    for (int t = 0; t < S::threads; ++t) fused_forward_phase<Log2>(z, p, twiddles, t);
  for (int t = 0; t < S::threads; ++t) {
    Complex v[16];
    load_pass<Log2>(z, S::passes - 1, t, v);
    last_pass<Log2, false>(v);
    store_pass<Log2>(z, S::passes - 1, t, v);
  }
}

template <int Log2>
void inverse_in_shared(Complex* z, const Complex* twiddles) {
  using S = FusedShape<Log2>;
  for (int t = 0; t < S::threads; ++t) {
    Complex v[16];
    load_pass<Log2>(z, S::passes - 1, t, v);
    last_pass<Log2, true>(v);
    store_pass<Log2>(z, S::passes - 1, t, v);
  }
  for (int p = S::passes - 2; p >= 0; --p)
    for (int t = 0; t < S::threads; ++t) fused_inverse_phase<Log2>(z, p, twiddles, t);
}

// z (natural, L points) through `transform` in padded shared-memory layout, and back.
template <class F>
void in_padded(Complex* z, std::size_t fft_frames, F&& transform) {
  std::vector<Complex> shared(fused_shared_points(fft_frames));
  for (std::size_t i = 0; i < fft_frames; ++i) shared[padded(static_cast<int>(i))] = z[i];
  transform(shared.data());
  for (std::size_t i = 0; i < fft_frames; ++i) z[i] = shared[padded(static_cast<int>(i))];
}

}  // namespace

std::size_t bin_at_position(std::size_t position, std::size_t fft_frames) {
  const int log2 = log2_of(fft_frames);
  const int passes = (log2 + 3) / 4;
  std::size_t bin = 0, scale = 1;
  for (int p = 0; p < passes - 1; ++p) {  // pass p's digit: bin digit p (radix 16)
    const std::size_t s = static_cast<std::size_t>(fused_pass_stride(log2, p));
    bin += (position / s) * scale;
    position %= s;
    scale *= 16;
  }
  return bin + position * scale;  // the last pass's digit
}

std::size_t fused_shared_points(std::size_t fft_frames) { return fft_frames + fft_frames / 16; }

std::vector<Complex> make_twiddles(std::size_t fft_frames) {
  const int log2 = log2_of(fft_frames);
  const int passes = (log2 + 3) / 4;
  std::vector<Complex> w(static_cast<std::size_t>(fused_twiddle_offset(log2, passes - 1)));
  const double pi = 3.14159265358979323846;
  for (int p = 0; p < passes - 1; ++p) {
    const int s = fused_pass_stride(log2, p), offset = fused_twiddle_offset(log2, p);
    for (int b = 0; b < 4; ++b)
      for (int n2 = 0; n2 < s; ++n2) {
        const double angle = -2.0 * pi * static_cast<double>(n2 << b) / static_cast<double>(16 * s);
        w[offset + b * s + n2] = {static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle))};
      }
  }
  return w;
}

void forward_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles) {
  with_shape(fft_frames, [&](auto shape) {
    in_padded(z, fft_frames, [&](Complex* shared) { forward_in_shared<decltype(shape)::value>(shared, twiddles); });
  });
}

void inverse_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles) {
  with_shape(fft_frames, [&](auto shape) {
    in_padded(z, fft_frames, [&](Complex* shared) { inverse_in_shared<decltype(shape)::value>(shared, twiddles); });
  });
}

}  // namespace halo::cuda
