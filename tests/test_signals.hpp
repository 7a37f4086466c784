#pragma once
// Shared test helpers: seeded random signals (never zeros), the plain float64 reference
// convolution every engine is checked against, and running an engine in blocks.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace halo {
class Engine;
}

namespace halo::test {

// Uniform in [-1, 1), seeded; no zeros by construction (a zero draw is nudged).
std::vector<float> random_signal(std::size_t count, std::uint64_t seed, float scale = 1.0f);

// Full causal convolution of one channel of an interleaved signal, in float64:
// out[n] = sum_k h[k] x[n-k] for n in [0, frames + taps - 1). Written plainly on purpose.
std::vector<double> reference_convolution(const std::vector<float>& interleaved, int channels,
                                          int channel, const std::vector<float>& taps);

// The same sum at a few frames only: out[i] = sum_k h[k] x[first + i - k] for i < count, so
// that long masks and long signals stay affordable. Written plainly on purpose.
std::vector<double> reference_frames(const std::vector<float>& interleaved, int channels, int channel,
                                     const std::vector<float>& taps, std::size_t first, std::size_t count);

// Runs frames [first, end) of an interleaved input through a ready engine in blocks of the
// given sizes (cycled), into the same frames of `out`. A process() that does not return
// Status::ok is a test failure naming the engine, the block and its failure().
void process_frames(Engine& engine, const std::vector<float>& interleaved, std::vector<float>& out, int channels,
                    std::size_t first, std::size_t end, const std::vector<std::size_t>& chunk_sizes);

// Runs a ready engine over an interleaved input in chunks of the given sizes (cycled) into
// an output poisoned with NaN first, so a sample the engine never wrote fails any comparison.
std::vector<float> run_in_chunks(Engine& engine, const std::vector<float>& interleaved, int channels,
                                 const std::vector<std::size_t>& chunk_sizes);

// ||out - ref|| / ||ref|| over matching elements; out read with `stride`/`offset` from an
// interleaved buffer. Returns +inf when any out element is NaN (poisoned and never written).
double relative_error(const float* out, std::size_t count, std::size_t stride,
                      const double* ref);

}  // namespace halo::test
