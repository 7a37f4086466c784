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
  // four_steps: from 128 packed points on (a multiple of 128), as they run from 16384 in cpu-fft.
  explicit Transform(std::size_t n, bool four_steps = false)
      : time(fftw::allocate<float>(n)), packed(fftw::allocate<fftwf_complex>(n / 2 + 1)),
        bins(fftw::allocate<fftwf_complex>(n / 2 + 1)),
        fft(n, time.get(), packed.get(), four_steps ? 128 : std::size_t{1} << 40, !four_steps) {}
  fftw::Array<float> time;
  fftw::Array<fftwf_complex> packed, bins;
  PackedRealFft fft;
};

// A length, and whether it runs as four steps (the spectrum transposed, bin_index mapping it).
struct Length {
  std::size_t points;
  bool four_steps;
};

class PackedRealFftLengths : public testing::TestWithParam<Length> {};

TEST_P(PackedRealFftLengths, UntangledBinsAreTheRealDft) {
  const std::size_t n = GetParam().points;
  Transform t(n, GetParam().four_steps);
  ASSERT_EQ(t.fft.four_steps(), GetParam().four_steps);
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
    const std::size_t at = t.fft.bin_index(k);
    error += std::norm(std::complex<double>(t.bins[at][0], t.bins[at][1]) - expected);
    norm += std::norm(expected);
  }
  EXPECT_LE(std::sqrt(error / norm), 1e-6) << n << " points";
}

TEST_P(PackedRealFftLengths, MultiplyAndInverseGiveTheCircularConvolution) {
  const std::size_t n = GetParam().points;
  Transform t(n, GetParam().four_steps);
  ASSERT_EQ(t.fft.four_steps(), GetParam().four_steps);
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

// Halves even (64 ... 4096, 1920 = 2^7 x 15 as cpu-fft picks lengths) and odd (2, 6, 30, 1030);
// four steps of 128 columns and 1, 2, 3, 5, 8, 15 and 16 rows (one row; rows even and odd, so
// that the middle bin falls in row 0 or in row 64; 8 and 16 run row 0's pair loop, as cpu-fft's
// hundreds of rows do).
INSTANTIATE_TEST_SUITE_P(Lengths, PackedRealFftLengths,
                         testing::Values(Length{2, false}, Length{4, false}, Length{6, false}, Length{8, false},
                                         Length{30, false}, Length{64, false}, Length{96, false}, Length{1030, false},
                                         Length{1920, false}, Length{4096, false}, Length{256, true},
                                         Length{512, true}, Length{768, true}, Length{1280, true},
                                         Length{2048, true}, Length{3840, true}, Length{4096, true}),
                         [](const testing::TestParamInfo<Length>& info) {
                           return std::to_string(info.param.points) + (info.param.four_steps ? "_four_steps" : "");
                         });

TEST(PackedRealFft, RefusesAnOddLength) {
  auto time = fftw::allocate<float>(8);
  auto packed = fftw::allocate<fftwf_complex>(8);
  EXPECT_ANY_THROW(PackedRealFft(7, time.get(), packed.get()));
}

}  // namespace
}  // namespace halo
