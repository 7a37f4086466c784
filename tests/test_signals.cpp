#include "test_signals.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "src/engine/engine.hpp"

namespace halo::test {

std::vector<float> random_signal(std::size_t count, std::uint64_t seed, float scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> out(count);
  for (auto& v : out) {
    float x = uniform(rng);
    if (x == 0.0f) x = 0.5f;
    v = x * scale;
  }
  return out;
}

std::vector<double> reference_convolution(const std::vector<float>& interleaved, int channels,
                                          int channel, const std::vector<float>& taps) {
  const std::size_t frames = interleaved.size() / channels;
  const std::size_t m = taps.size();
  std::vector<double> out(frames + m - 1, 0.0);
  for (std::size_t n = 0; n < frames; ++n) {
    const double x = interleaved[n * channels + channel];
    for (std::size_t k = 0; k < m; ++k) out[n + k] += static_cast<double>(taps[k]) * x;
  }
  return out;
}

std::vector<double> reference_frames(const std::vector<float>& interleaved, int channels, int channel,
                                     const std::vector<float>& taps, std::size_t first, std::size_t count) {
  const std::size_t frames = interleaved.size() / channels;
  std::vector<double> out(count, 0.0);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t n = first + i;
    const std::size_t k_begin = n >= frames ? n - frames + 1 : 0;
    const std::size_t k_end = std::min(taps.size(), n + 1);
    double sum = 0;
    for (std::size_t k = k_begin; k < k_end; ++k)
      sum += static_cast<double>(taps[k]) * interleaved[(n - k) * channels + channel];
    out[i] = sum;
  }
  return out;
}

void process_frames(Engine& engine, const std::vector<float>& interleaved, std::vector<float>& out, int channels,
                    std::size_t first, std::size_t end, const std::vector<std::size_t>& chunk_sizes) {
  for (std::size_t i = 0, done = first; done < end; ++i) {
    const std::size_t n = std::min(chunk_sizes[i % chunk_sizes.size()], end - done);
    const Status status = engine.process(interleaved.data() + done * channels, out.data() + done * channels, n);
    if (status != Status::ok) {
      ADD_FAILURE() << engine.name() << ": process(" << n << " frames) at frame " << done
                    << " failed: " << engine.failure();
      return;
    }
    done += n;
  }
}

std::vector<float> run_in_chunks(Engine& engine, const std::vector<float>& interleaved, int channels,
                                 const std::vector<std::size_t>& chunk_sizes) {
  std::vector<float> out(interleaved.size(), std::numeric_limits<float>::quiet_NaN());
  process_frames(engine, interleaved, out, channels, 0, interleaved.size() / channels, chunk_sizes);
  return out;
}

double relative_error(const float* out, std::size_t count, std::size_t stride, const double* ref) {
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double o = out[i * stride];
    if (std::isnan(o)) return std::numeric_limits<double>::infinity();
    diff2 += (o - ref[i]) * (o - ref[i]);
    ref2 += ref[i] * ref[i];
  }
  if (ref2 == 0) return diff2 == 0 ? 0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff2 / ref2);
}

}  // namespace halo::test
