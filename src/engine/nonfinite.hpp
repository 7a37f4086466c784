#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace halo {

// The one rule for NaN and Inf, wherever samples meet an engine (the offline stream, the
// real-time worker): they become 0, and the caller is told how many there were. Without it
// the direct engine would carry one NaN through M outputs and an FFT engine through its whole
// block. Never allocates: safe on the real-time worker.
inline std::uint64_t zero_nonfinite(float* samples, std::size_t count) noexcept {
  std::uint64_t found = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(samples[i])) {
      samples[i] = 0.0f;
      ++found;
    }
  }
  return found;
}

}  // namespace halo
