#include "src/engine/fft_size.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace halo {
namespace {

// Nanoseconds per N log2 N of one block as cpu-fft runs it (the packed forward transform,
// the product, the inverse: packed_real_fft.hpp; FFTW_ESTIMATE, one thread), the median of
// the sizes 2^a x {1, 3, 5, 9, 15} in each octave, measured by `cpu_fft_bench sizes`
// (bench/cpu_fft_bench.cpp) on the development VM (Intel Xeon, AVX-512, 2 cores, 2026-11-25;
// bench/results/cpu_fft_sizes.md). What moves the figure is the memory level the block's
// working set (8 to 12 bytes a point) falls in: L2 up to about 2^18, then L3, then DRAM. Only
// the speed and the latency follow from this table, never a result's correctness.
constexpr int first_octave = 6;  // N >= 64
constexpr double ns_per_point_log[] = {
    0.464, 0.186, 0.147, 0.129, 0.163, 0.153, 0.144, 0.142, 0.176, 0.195,  // 2^6 .. 2^15
    0.194, 0.198, 0.219, 0.310, 0.456, 0.522, 0.633, 0.782, 1.049,         // 2^16 .. 2^24
};
constexpr int octaves = sizeof ns_per_point_log / sizeof ns_per_point_log[0];
constexpr std::size_t odd_parts[] = {1, 3, 5, 9, 15};
// A longer FFT must save more than this share of the cost per frame to be taken: it adds
// latency, memory and, at the end of a file, a longer run of zeros to flush.
constexpr double worth_a_longer_fft = 0.05;

int log2_floor(std::size_t n) {
  int a = 0;
  while (n >>= 1) ++a;
  return a;
}

double cost_per_frame(std::size_t fft_frames, std::size_t mask_frames) {
  return modelled_block_ns(fft_frames) / static_cast<double>(fft_frames - mask_frames + 1);
}

}  // namespace

double modelled_block_ns(std::size_t fft_frames) {
  const int row = std::clamp(log2_floor(fft_frames) - first_octave, 0, octaves - 1);
  const double n = static_cast<double>(fft_frames);
  return ns_per_point_log[row] * n * std::log2(n);
}

std::size_t fft_frames_for(std::size_t max_mask_frames) {
  const std::size_t m = max_mask_frames;
  // Every candidate with a hop of at least M/8 + 2 frames, up to 64 M (far past the best).
  std::vector<std::size_t> candidates;
  for (std::size_t power = std::size_t{1} << first_octave; power <= 64 * m + 64; power *= 2)
    for (const std::size_t odd : odd_parts)
      if (power * odd >= m + m / 8 + 1) candidates.push_back(power * odd);
  std::sort(candidates.begin(), candidates.end());
  double cheapest = std::numeric_limits<double>::infinity();
  for (const std::size_t n : candidates) cheapest = std::min(cheapest, cost_per_frame(n, m));
  for (const std::size_t n : candidates)
    if (cost_per_frame(n, m) <= cheapest * (1 + worth_a_longer_fft)) return n;
  return candidates.back();
}

}  // namespace halo
