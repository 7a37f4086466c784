#include "cuda/fft/fused_transform.hpp"

#include <cmath>
#include <string>
#include <type_traits>

#include "cuda/fft/split_fft.hpp"
#include "src/engine/error.hpp"

namespace halo::cuda {
namespace {

// Calls f(std::integral_constant<int, Log2>) for L = 2^Log2 (the fused engine's sizes): the
// host twin runs the kernels' instantiation for that size.
template <class F>
void with_log2(std::size_t fft_frames, F&& f) {
  with_fused_log2<9, 18>(static_cast<long long>(fft_frames), f, [fft_frames] {
    throw Error("cuda-fft-fused: no " + std::to_string(fft_frames) + "-point transform (powers of two from " +
                std::to_string(min_fused_fft_frames) + " to " + std::to_string(max_fused_fft_frames) + ")");
  });
}

// One block's phases over `z` (padded shared layout), the step's inputs to its outputs.
template <int Log2>
void block_step(const Geometry& g, const PieceHeader& h, long long step, const ChannelIo& io, const Complex* mask,
                const Complex* twiddles, Complex* z) {
  using S = FusedShape<Log2>;
  for (int t = 0; t < S::threads; ++t) fused_first_pass<Log2>(g, h, step, io, z, twiddles, t);
  for (int p = 1; p < S::passes - 1; ++p)
    for (int t = 0; t < S::threads_of(p); ++t) fused_forward_phase<Log2>(z, p, twiddles, t);
  for (int t = 0; t < S::threads_of(S::passes - 1); ++t) fused_middle_phase<Log2>(z, mask, t);
  for (int p = S::passes - 2; p >= 1; --p)
    for (int t = 0; t < S::threads_of(p); ++t) fused_inverse_phase<Log2>(z, p, twiddles, t);
  for (int t = 0; t < S::threads; ++t) fused_last_pass<Log2>(g, h, step, z, io, twiddles, t);
}

// The three kernels' work: columns forward into `rows` (L values), each row through its block
// transform, product and inverse (shared layout in `z`), columns inverse. The cluster kernel
// does the same arithmetic, row j of `rows` being block j's shared memory (linear layout)
// where the columns hand over.
template <int LogL>
void split_step(const Geometry& g, const PieceHeader& h, long long step, const ChannelIo& io, const Complex* mask,
                const FusedTables& tables, Complex* rows, Complex* z) {
  constexpr int log_r = LogL - 4, r = 1 << log_r;
  using S = FusedShape<log_r>;
  const Complex* twiddles = tables.twiddles.data();
  for (int t = 0; t < r; ++t) split_columns_forward<LogL>(g, h, step, io, rows, tables.column_twiddles.data(), t);
  for (int j = 0; j < 16; ++j) {
    Complex* row = rows + j * r;
    for (int t = 0; t < S::threads; ++t) split_row_first_pass<log_r>(row, z, twiddles, t);
    for (int p = 1; p < S::passes - 1; ++p)
      for (int t = 0; t < S::threads_of(p); ++t) fused_forward_phase<log_r>(z, p, twiddles, t);
    for (int t = 0; t < S::threads_of(S::passes - 1); ++t) fused_middle_phase<log_r>(z, mask + j * r, t);
    for (int p = S::passes - 2; p >= 1; --p)
      for (int t = 0; t < S::threads_of(p); ++t) fused_inverse_phase<log_r>(z, p, twiddles, t);
    for (int t = 0; t < S::threads; ++t) split_row_last_pass<log_r>(z, row, twiddles, t);
  }
  for (int t = 0; t < r; ++t) split_columns_inverse<LogL>(g, h, step, rows, io, tables.column_twiddles.data(), t);
}

// The last pass leaves bin order position P t + j of a block transform of n = 2^Log2 points
// (P points a thread: FusedShape::last_points): into the threads' order, point j of thread t
// at j n/P + t.
template <int Log2>
void to_thread_order(const Complex* z, Complex* held) {
  constexpr int p = FusedShape<Log2>::last_points, threads = FusedShape<Log2>::points / p;
  for (int t = 0; t < threads; ++t)
    for (int j = 0; j < p; ++j) held[j * threads + t] = z[p * t + j];
}

}  // namespace

std::vector<Complex> make_column_twiddles(std::size_t fft_frames) {
  const std::size_t r = fft_frames / 16;
  std::vector<Complex> w(4 * r);
  const double pi = 3.14159265358979323846;
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t n2 = 0; n2 < r; ++n2) {
      const double angle = -2.0 * pi * static_cast<double>(n2 << b) / static_cast<double>(fft_frames);
      w[b * r + n2] = {static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle))};
    }
  return w;
}

FusedTables make_fused_tables(std::size_t fft_frames) {
  with_log2(fft_frames, [](auto) {});  // a size the engine takes, or throw
  FusedTables tables;
  tables.fft_frames = fft_frames;
  if (fused_split(static_cast<long long>(fft_frames))) {
    tables.twiddles = make_twiddles(fft_frames / 16, FusedForm::row);
    tables.column_twiddles = make_column_twiddles(fft_frames);
  } else {
    tables.twiddles = make_twiddles(fft_frames);
  }
  return tables;
}

std::vector<Complex> fused_mask_spectrum(const std::vector<float>& taps, const FusedTables& tables) {
  const std::size_t l = tables.fft_frames;
  std::vector<Complex> z(l, Complex{0.0f, 0.0f});
  const float scale = 1.0f / static_cast<float>(l);  // the inverse is unnormalised; exact (power of two)
  for (std::size_t k = 0; k < taps.size() && k < l; ++k) z[k].re = taps[k] * scale;
  std::vector<Complex> held(l);
  if (!fused_split(static_cast<long long>(l))) {
    forward_transform_on_host(z.data(), l, tables.twiddles.data(), FusedForm::step);
    with_log2(l, [&](auto shape) {
      constexpr int log2 = decltype(shape)::value;
      if constexpr (log2 <= max_fused_log2) to_thread_order<fused_step_shape(log2)>(z.data(), held.data());
    });
    return held;
  }
  with_log2(l, [&](auto shape) {  // pass 0 over the columns, then each row's transform
    constexpr int log_l = decltype(shape)::value;
    if constexpr (log_l >= min_split_log2) {
      const int r = static_cast<int>(l / 16);
      for (int t = 0; t < r; ++t) {
        Complex v[16];
        for (int j = 0; j < 16; ++j) v[j] = z[j * r + t];
        forward_pass<log_l>(v, 0, t, tables.column_twiddles.data());
        for (int j = 0; j < 16; ++j) z[j * r + t] = v[j];
      }
      for (int j = 0; j < 16; ++j) {
        forward_transform_on_host(z.data() + j * r, static_cast<std::size_t>(r), tables.twiddles.data(), FusedForm::row);
        to_thread_order<log_l - 4>(z.data() + j * r, held.data() + j * r);
      }
    }
  });
  return held;
}

std::size_t fused_host_scratch_points(std::size_t fft_frames) {
  return fused_split(static_cast<long long>(fft_frames)) ? fft_frames + fused_shared_points(fft_frames / 16)
                                                          : fused_shared_points(fft_frames);
}

void fused_step_on_host(const Geometry& g, const PieceHeader& h, long long step, const ChannelIo& io,
                        const Complex* mask, const FusedTables& tables, Complex* scratch) {
  with_log2(static_cast<std::size_t>(g.fft_frames), [&](auto shape) {
    constexpr int log2 = decltype(shape)::value;
    if constexpr (log2 <= max_fused_log2)
      block_step<fused_step_shape(log2)>(g, h, step, io, mask, tables.twiddles.data(), scratch);
    else
      split_step<log2>(g, h, step, io, mask, tables, scratch, scratch + g.fft_frames);
  });
}

}  // namespace halo::cuda
