#pragma once
// Inputs for the benchmarks: seeded random values, never zeros (a zero-filled buffer would
// time a different machine: denormals, compressed caches and branch patterns all change).
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace halo::bench {

inline std::vector<float> random_values(std::size_t count, std::uint64_t seed, float scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(count);
  for (float& v : values) {
    v = uniform(rng);
    if (v == 0.0f) v = scale / 2;
  }
  return values;
}

}  // namespace halo::bench
