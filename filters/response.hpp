#pragma once
#include <vector>

#include "filters/mask.hpp"

namespace halo::filters {

// Frequency response of a mask at `points` frequencies spread evenly over [0, rate/2]
// (rate = mask.rate_hz, or 1 for "cycles per sample" when unknown).
struct Response {
  std::vector<double> freq_hz;
  std::vector<double> magnitude;     // |H|, linear
  std::vector<double> phase_rad;     // unwrapped
  std::vector<double> group_delay;   // in samples
};
Response response(const Mask& mask, int points);

}  // namespace halo::filters
