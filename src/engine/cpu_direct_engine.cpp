#include "src/engine/cpu_direct_engine.hpp"

#include <algorithm>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HALO_AVX2_CLONE 1
#include <immintrin.h>
#endif

namespace halo {
namespace {

constexpr std::size_t taps_per_partial = 64;

// y[n0 + i] for i < Outputs, as sum_j reversed[j] * window[n0 + i + j]: float partial sums
// over taps_per_partial taps, added in double. Lane i does the same operations in the same
// order for any n0, so outputs do not depend on where a block starts.
template <std::size_t Outputs>
inline __attribute__((always_inline)) void convolve_block(const float* window, const float* reversed,
                                                          std::size_t taps, double* total) noexcept {
  for (std::size_t i = 0; i < Outputs; ++i) total[i] = 0.0;
  for (std::size_t j0 = 0; j0 < taps; j0 += taps_per_partial) {
    float partial[Outputs] = {};
    const std::size_t j_end = std::min(j0 + taps_per_partial, taps);
    for (std::size_t j = j0; j < j_end; ++j) {
      const float tap = reversed[j];
      const float* x = window + j;
      for (std::size_t i = 0; i < Outputs; ++i) partial[i] += tap * x[i];
    }
    for (std::size_t i = 0; i < Outputs; ++i) total[i] += partial[i];
  }
}

// `frames` outputs of one channel from its window (window[n + M-1] is x[n]) into out, strided,
// with Block(window + n0, total) computing outputs n0 .. n0 + Outputs - 1 into total: blocks
// of 32 outputs (four AVX2 or eight SSE registers of accumulators), then blocks of 8 for the
// rest, so a short call does not pay for 32. The last block may read up to 31 frames past the
// input, which the history's padding holds (finite zeros).
template <typename Wide, typename Narrow>
inline __attribute__((always_inline)) void convolve_span(std::size_t frames, float* out, std::size_t out_stride,
                                                         Wide wide_block, Narrow narrow_block) noexcept {
  constexpr std::size_t wide = 32, narrow = 8;
  alignas(32) double total[wide];
  std::size_t n0 = 0;
  for (; n0 + wide <= frames; n0 += wide) {
    wide_block(n0, total);
    for (std::size_t i = 0; i < wide; ++i) out[(n0 + i) * out_stride] = static_cast<float>(total[i]);
  }
  for (; n0 < frames; n0 += narrow) {
    narrow_block(n0, total);
    const std::size_t count = std::min(narrow, frames - n0);
    for (std::size_t i = 0; i < count; ++i) out[(n0 + i) * out_stride] = static_cast<float>(total[i]);
  }
}

// The baseline build, left to the auto-vectoriser (SSE2 on x86-64). Multiply and add stay
// two roundings (no contraction into FMA, which only some blocks might get), so every lane
// rounds alike in both block widths.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
void convolve_portable(const float* window, const float* reversed, std::size_t taps, std::size_t frames, float* out,
                       std::size_t out_stride) noexcept {
  convolve_span(
      frames, out, out_stride, [&](std::size_t n0, double* total) { convolve_block<32>(window + n0, reversed, taps, total); },
      [&](std::size_t n0, double* total) { convolve_block<8>(window + n0, reversed, taps, total); });
}

#if defined(HALO_AVX2_CLONE)
// convolve_block in AVX2 intrinsics, `Registers` x 8 outputs: one FMA per tap and lane,
// written out so that both block widths compile to the same per-lane operations (the
// auto-vectoriser fused some blocks' multiply-adds and not others').
template <std::size_t Registers>
__attribute__((target("avx2,fma"), always_inline)) inline void convolve_block_avx2(const float* window,
                                                                                  const float* reversed,
                                                                                  std::size_t taps,
                                                                                  double* total) noexcept {
  __m256d sums[2 * Registers];
  for (auto& sum : sums) sum = _mm256_setzero_pd();
  for (std::size_t j0 = 0; j0 < taps; j0 += taps_per_partial) {
    __m256 partial[Registers];
    for (auto& p : partial) p = _mm256_setzero_ps();
    const std::size_t j_end = std::min(j0 + taps_per_partial, taps);
    for (std::size_t j = j0; j < j_end; ++j) {
      const __m256 tap = _mm256_set1_ps(reversed[j]);
      for (std::size_t r = 0; r < Registers; ++r)
        partial[r] = _mm256_fmadd_ps(tap, _mm256_loadu_ps(window + j + 8 * r), partial[r]);
    }
    for (std::size_t r = 0; r < Registers; ++r) {
      sums[2 * r] = _mm256_add_pd(sums[2 * r], _mm256_cvtps_pd(_mm256_castps256_ps128(partial[r])));
      sums[2 * r + 1] = _mm256_add_pd(sums[2 * r + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(partial[r], 1)));
    }
  }
  for (std::size_t r = 0; r < 2 * Registers; ++r) _mm256_store_pd(total + 4 * r, sums[r]);
}

__attribute__((target("avx2,fma"))) void convolve_avx2(const float* window, const float* reversed, std::size_t taps,
                                                       std::size_t frames, float* out, std::size_t out_stride) noexcept {
  convolve_span(
      frames, out, out_stride,
      [&](std::size_t n0, double* total) __attribute__((target("avx2,fma"))) {
        convolve_block_avx2<4>(window + n0, reversed, taps, total);
      },
      [&](std::size_t n0, double* total) __attribute__((target("avx2,fma"))) {
        convolve_block_avx2<1>(window + n0, reversed, taps, total);
      });
}
#endif

bool cpu_has_avx2_fma() {
#if defined(HALO_AVX2_CLONE)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

}  // namespace

CpuDirectEngine::CpuDirectEngine(Kernel kernel) : use_avx2_(kernel == Kernel::best && cpu_has_avx2_fma()) {
  static_assert(CpuDirectEngine::taps_per_partial == taps_per_partial, "one partial length");
  static_assert(CpuDirectEngine::outputs_per_block == 32, "the padding covers convolve_span's widest block");
}

void CpuDirectEngine::do_prepare(const ProcessSpec& spec) {
  halo_frames_ = spec.max_mask_frames - 1;
  reversed_taps_.assign(spec.channels, {});
  history_.assign(spec.channels, {});
  for (int c = 0; c < spec.channels; ++c) {
    reversed_taps_[c].reserve(spec.max_mask_frames);
    // Room past the block for the last output block, which may run past the block's end.
    history_[c].assign(halo_frames_ + spec.max_block_frames + outputs_per_block, 0.0f);
  }
}

void CpuDirectEngine::do_set_taps(const TapSet& taps) {
  for (int c = 0; c < taps.channels(); ++c) {
    const auto& h = taps.taps_of(c);
    reversed_taps_[c].assign(h.rbegin(), h.rend());  // within the capacity reserved in prepare
  }
}

void CpuDirectEngine::do_reset() {
  for (auto& history : history_) std::fill(history.begin(), history.end(), 0.0f);
}

Status CpuDirectEngine::do_process(const float* in, float* out, std::size_t frames) noexcept {
  const int channel_count = channels();
  for (int c = 0; c < channel_count; ++c) {
    float* history = history_[c].data();
    for (std::size_t n = 0; n < frames; ++n) history[halo_frames_ + n] = in[n * channel_count + c];
    // The last output block reads past the chunk; those outputs are dropped, but keep them finite.
    std::fill_n(history + halo_frames_ + frames, outputs_per_block, 0.0f);
    // The window starts Mmax - M frames into the history, so window[n + M-1] is x[n].
    const std::size_t taps = reversed_taps_[c].size();
    const float* window = history + (halo_frames_ + 1 - taps);
    const float* reversed = reversed_taps_[c].data();
#if defined(HALO_AVX2_CLONE)
    if (use_avx2_)
      convolve_avx2(window, reversed, taps, frames, out + c, channel_count);
    else
#endif
      convolve_portable(window, reversed, taps, frames, out + c, channel_count);
    // Keep the newest Mmax-1 frames (old halo included when the block is shorter than the halo).
    std::copy(history + frames, history + frames + halo_frames_, history);
  }
  return Status::ok;
}

}  // namespace halo
