// Issue 13, item 9: filters::response computes its grid by FFT (taps folded onto the grid's
// period) instead of points x taps trig calls. It must equal the direct evaluation
// H(w) = sum_k h[k] e^{-jwk}, written here (sums in long double), within 1e-9 of the largest
// |H|, for masks shorter and longer than the grid's period. (scipy.signal.freqz golden data, including
// a mask longer than the period, is checked by filters_design_test.cpp's FreqzGolden.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "filters/response.hpp"
#include "test_signals.hpp"

namespace halo::filters {
namespace {

struct Direct {
  std::vector<double> magnitude, group_delay;
};

Direct direct(const Mask& mask, int points) {
  const long double pi = 3.141592653589793238462643383279502884L;
  Direct d;
  for (int i = 0; i < points; ++i) {
    const long double omega = points == 1 ? 0.0L : pi * i / (points - 1);
    std::complex<long double> h = 0, k_h = 0;  // summed in long double; trig in double, as before
    for (std::size_t k = 0; k < mask.taps.size(); ++k) {
      const double angle = static_cast<double>(-omega * static_cast<long double>(k));
      const std::complex<long double> term =
          static_cast<long double>(mask.taps[k]) * std::complex<long double>(std::cos(angle), std::sin(angle));
      h += term;
      k_h += static_cast<long double>(k) * term;
    }
    d.magnitude.push_back(static_cast<double>(std::abs(h)));
    d.group_delay.push_back(static_cast<double>(std::real(k_h / h)));
  }
  return d;
}

struct Case {
  std::size_t taps;
  int points;
};

class ResponseByFft : public testing::TestWithParam<Case> {};

TEST_P(ResponseByFft, EqualsDirectEvaluation) {
  const Case c = GetParam();
  Mask mask;
  mask.taps = test::random_signal(c.taps, 31 + c.taps, 0.5f);
  mask.rate_hz = 48000;
  const Response r = response(mask, c.points);
  const Direct want = direct(mask, c.points);
  ASSERT_EQ(r.magnitude.size(), want.magnitude.size());
  const double largest = *std::max_element(want.magnitude.begin(), want.magnitude.end());
  for (int i = 0; i < c.points; ++i) {
    EXPECT_NEAR(r.magnitude[i], want.magnitude[i], 1e-9 * largest) << "point " << i;
    EXPECT_NEAR(r.freq_hz[i], c.points == 1 ? 0.0 : 24000.0 * i / (c.points - 1), 1e-9) << "point " << i;
    if (want.magnitude[i] > 1e-3 * largest) {
      EXPECT_NEAR(r.group_delay[i], want.group_delay[i], 1e-9 * static_cast<double>(c.taps)) << "point " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ShortAndFolded, ResponseByFft,
                         testing::Values(Case{1, 1}, Case{5, 1}, Case{1, 2}, Case{7, 257}, Case{511, 257},
                                         Case{513, 257}, Case{3001, 257}, Case{1000, 4096}, Case{9001, 1025}, Case{20001, 4096}),
                         [](const testing::TestParamInfo<Case>& info) {
                           return std::to_string(info.param.taps) + "_taps_" + std::to_string(info.param.points) +
                                  "_points";
                         });

}  // namespace
}  // namespace halo::filters
