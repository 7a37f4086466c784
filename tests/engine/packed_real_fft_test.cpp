// PackedRealFft (cpu-fft's real transforms as complex ones of half the length) against plain
// float64 sums: the untangled spectrum against the DFT written out, and forward, multiply and
// inverse against the circular convolution, at lengths whose half is even and odd (the
// untangling's middle bin pairs with itself only for an even half), down to 2 points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "src/engine/fftw.hpp"
#include "src/engine/packed_real_fft.hpp"

namespace halo {
namespace {

std::vector<float> random_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = value(random);
  return values;
}

struct Transform {
  explicit Transform(std::size_t n)
      : time(fftw::allocate<float>(n)), packed(fftw::allocate<fftwf_complex>(n / 2 + 1)),
        bins(fftw::allocate<fftwf_complex>(n / 2 + 1)), fft(n, time.get(), packed.get()) {}
  fftw::Array<float> time;
  fftw::Array<fftwf_complex> packed, bins;
  PackedRealFft fft;
};

class PackedRealFftLengths : public testing::TestWithParam<std::size_t> {};

TEST_P(PackedRealFftLengths, UntangledBinsAreTheRealDft) {
  const std::size_t n = GetParam();
  Transform t(n);
  const std::vector<float> x = random_values(n, 11 + n);
  std::copy(x.begin(), x.end(), t.time.get());
  t.fft.forward(t.time.get(), t.packed.get());
  t.fft.untangle(t.packed.get(), t.bins.get());
  const double pi = std::acos(-1.0);
  double error = 0, norm = 0;
  for (std::size_t k = 0; k <= n / 2; ++k) {
    std::complex<double> expected = 0;
    for (std::size_t j = 0; j < n; ++j)
      expected += static_cast<double>(x[j]) * std::polar(1.0, -2 * pi * static_cast<double>(j * k % n) / n);
    error += std::norm(std::complex<double>(t.bins[k][0], t.bins[k][1]) - expected);
    norm += std::norm(expected);
  }
  EXPECT_LE(std::sqrt(error / norm), 1e-6) << n << " points";
}

TEST_P(PackedRealFftLengths, MultiplyAndInverseGiveTheCircularConvolution) {
  const std::size_t n = GetParam();
  Transform t(n);
  // The mask's spectrum, scaled by 1/n as cpu-fft scales it (the inverse is unnormalised).
  const std::vector<float> h = random_values(n, 3 * n + 1);
  for (std::size_t j = 0; j < n; ++j) t.time[j] = h[j] / static_cast<float>(n);
  t.fft.forward(t.time.get(), t.packed.get());
  t.fft.untangle(t.packed.get(), t.bins.get());
  const std::vector<float> x = random_values(n, 5 * n + 2);
  std::copy(x.begin(), x.end(), t.time.get());
  t.fft.forward(t.time.get(), t.packed.get());
  t.fft.multiply(t.packed.get(), t.bins.get());
  auto out = fftw::allocate<float>(n);
  std::fill_n(out.get(), n, NAN);  // an unwritten output fails
  t.fft.inverse(t.packed.get(), out.get());
  double error = 0, norm = 0;
  for (std::size_t j = 0; j < n; ++j) {
    double expected = 0;
    for (std::size_t i = 0; i < n; ++i) expected += static_cast<double>(h[i]) * x[(j + n - i) % n];
    error += (out[j] - expected) * (out[j] - expected);
    norm += expected * expected;
  }
  EXPECT_LE(std::sqrt(error / norm), 1e-5) << n << " points";
}

// Halves even (64 ... 4096, 1920 = 2^7 x 15 as cpu-fft picks lengths) and odd (2, 6, 30, 1030).
INSTANTIATE_TEST_SUITE_P(Lengths, PackedRealFftLengths,
                         testing::Values(2, 4, 6, 8, 30, 64, 96, 1030, 1920, 4096));

TEST(PackedRealFft, RefusesAnOddLength) {
  auto time = fftw::allocate<float>(8);
  auto packed = fftw::allocate<fftwf_complex>(8);
  EXPECT_ANY_THROW(PackedRealFft(7, time.get(), packed.get()));
}

}  // namespace
}  // namespace halo
