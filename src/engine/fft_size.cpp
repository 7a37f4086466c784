#include "src/engine/fft_size.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace halo {
namespace {

// Nanoseconds per N log2 N of one block as cpu-fft runs it (the packed forward transform,
// the product, the inverse: packed_real_fft.hpp; FFTW_ESTIMATE, one thread), for every
// N = 2^a x {1, 3, 5, 9, 15}, by the octave N falls in (rows) and its odd part (columns),
// measured by `cpu_fft_bench sizes` (bench/cpu_fft_bench.cpp) on the development VM (Intel
// Xeon, AVX-512, 2 cores, 2026-11-25; bench/results/cpu_fft_sizes.md); the octave's power of
// two stands in where a size was not measured (it is never a candidate there, or past 2^24).
// Not one figure an octave: the odd parts cost differently (x 9 up to twice the power of two
// nearby, x 5 often least), and an octave's median had cpu-fft take 960 points for 255 taps,
// 10-14 % slower than 1152. What moves the figures most is the memory level the block's
// working set (8 to 12 bytes a point) falls in: L2 up to about 2^18, then L3, then DRAM. Only
// the speed and the latency follow from this table, never a result's correctness.
constexpr int first_octave = 6;  // N >= 64
constexpr std::size_t odd_parts[] = {1, 3, 5, 9, 15};
constexpr double ns_per_point_log[][5] = {
    {0.464, 0.464, 0.464, 0.464, 0.464},  // 2^6
    {0.204, 0.169, 0.204, 0.204, 0.204},  // 2^7
    {0.153, 0.138, 0.147, 0.153, 0.153},  // 2^8
    {0.129, 0.128, 0.129, 0.230, 0.236},  // 2^9
    {0.124, 0.165, 0.125, 0.212, 0.163},  // 2^10
    {0.118, 0.161, 0.118, 0.202, 0.153},  // 2^11
    {0.113, 0.150, 0.132, 0.203, 0.144},  // 2^12
    {0.130, 0.153, 0.142, 0.147, 0.142},  // 2^13
    {0.176, 0.178, 0.154, 0.196, 0.169},  // 2^14
    {0.197, 0.202, 0.160, 0.195, 0.192},  // 2^15
    {0.193, 0.202, 0.160, 0.194, 0.200},  // 2^16
    {0.187, 0.198, 0.162, 0.216, 0.200},  // 2^17
    {0.203, 0.234, 0.220, 0.210, 0.219},  // 2^18
    {0.310, 0.406, 0.246, 0.427, 0.303},  // 2^19
    {0.756, 0.456, 0.386, 0.514, 0.450},  // 2^20
    {0.851, 0.467, 0.480, 0.844, 0.522},  // 2^21
    {0.947, 0.586, 0.587, 0.956, 0.633},  // 2^22
    {0.997, 0.782, 0.671, 1.004, 0.588},  // 2^23
    {1.049, 1.049, 1.049, 1.049, 1.049},  // 2^24
};
constexpr int octaves = sizeof ns_per_point_log / sizeof ns_per_point_log[0];
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
  std::size_t odd = fft_frames;
  while (odd % 2 == 0 && odd > 1) odd /= 2;
  int column = 0;  // a length of another odd part (none that cpu-fft picks): as the power of two
  for (int c = 0; c < 5; ++c)
    if (odd_parts[c] == odd) column = c;
  const double n = static_cast<double>(fft_frames);
  return ns_per_point_log[row][column] * n * std::log2(n);
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
