#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace halo {

// The one rule for NaN and Inf, wherever samples meet an engine (the offline stream, the
// real-time worker): they become 0, and the caller is told how many there were. Without it
// the direct engine would carry one NaN through M outputs and an FFT engine through its whole
// block. Never allocates: safe on the real-time worker.
//
// Nearly every buffer holds none, so each stretch is first tested with a loop the compiler
// vectorises (a sample is NaN or Inf exactly when its exponent bits are all ones), and only a
// stretch that holds one is walked sample by sample: the reader's scan of ten minutes of
// stereo (57.6 M samples) went from 28 to 10 ms on the development VM.
inline std::uint64_t zero_nonfinite(float* samples, std::size_t count) noexcept {
  constexpr std::uint32_t exponent_bits = 0x7f800000u;
  constexpr std::size_t stretch = 4096;
  std::uint64_t found = 0;
  for (std::size_t start = 0; start < count; start += stretch) {
    const std::size_t end = std::min(count, start + stretch);
    std::uint32_t any = 0;
    for (std::size_t i = start; i < end; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, samples + i, sizeof bits);
      any |= static_cast<std::uint32_t>((bits & exponent_bits) == exponent_bits);
    }
    if (any == 0) continue;
    for (std::size_t i = start; i < end; ++i) {
      if (!std::isfinite(samples[i])) {
        samples[i] = 0.0f;
        ++found;
      }
    }
  }
  return found;
}

}  // namespace halo
