// cuda-fft and cuda-fft-fused (cuda/fft/) against the float64 reference (tests/test_signals.hpp).
//
// Two halves:
//   - FftHost.*: no GPU needed (they run here and in CI). The fused kernel's shared-memory
//     FFT stages against a plain DFT, and the whole overlap-save pipeline emulated on the host
//     through the very element functions the kernels run (overlap_save.hpp, block_fft.hpp):
//     pieces, both rings, gather/crop, the fused step; FFTW stands in for cuFFT. So the
//     indexing is checked where no kernel can run.
//   - CudaFft*: the engines on a GPU (skip with the reason where none is usable): masks 1 to
//     2^20 taps, inputs shorter and longer than the mask, odd lengths, 1/2/6 channels with
//     shared and per-channel masks, chunks smaller than the mask; chunked equals whole bit
//     for bit; the graph path and the device entry point equal the chunk path.
// Tolerance: ||out - ref|| / ||ref|| <= 1e-5 per channel (the issue's). Inputs are seeded
// random signals (no zeros); outputs are poisoned with NaN first (run_in_chunks), so a sample
// never written fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/device/resources.hpp"
#include "cuda/direct/direct_engine.hpp"
#include "cuda/fft/block_fft.hpp"
#include "cuda/fft/fft_engine.hpp"
#include "cuda/fft/fused_transform.hpp"
#include "cuda/fft/overlap_save.hpp"
#include "cuda/fft/real_spectrum.hpp"
#include "engine_harness.hpp"
#include "src/engine/fftw.hpp"
#include "test_signals.hpp"

namespace halo::cuda {
namespace {

constexpr double tolerance = 1e-5;

#define SKIP_WITHOUT_DEVICE()                                                      \
  do {                                                                             \
    std::string why;                                                               \
    if (!device_usable(0, &why)) GTEST_SKIP() << "no usable CUDA device: " << why; \
  } while (0)

const char* name_of(FftMethod method) { return method == FftMethod::cufft ? "cuda-fft" : "cuda-fft-fused"; }

// One mask for every channel, or one per channel of lengths up to `taps` (the last the longest).
filters::MaskSet masks_for(std::size_t taps, int channels, bool per_channel, std::uint64_t seed) {
  if (!per_channel) return {test::mask_of(test::random_taps(taps, seed))};
  filters::MaskSet masks;
  for (int c = 0; c < channels; ++c)
    masks.push_back(test::mask_of(test::random_taps(std::max<std::size_t>(1, taps * (c + 1) / channels), seed + c)));
  return masks;
}

std::string describe(FftMethod method, std::size_t taps, int channels, bool per_channel, std::size_t frames) {
  return std::string(name_of(method)) + ", " + std::to_string(taps) + " taps, " + std::to_string(channels) +
         (per_channel ? " channels (a mask each), " : " channels (one mask), ") + std::to_string(frames) + " frames";
}

// ------------------------------------------------------------------ the transforms, on the host

// X[k] = sum_n x[n] exp(sign 2 pi i k n / L), in double (the roots from a table of L, each
// computed in double: L^2 terms for L up to 16384).
std::vector<std::complex<double>> plain_dft(const std::vector<Complex>& x, int sign) {
  const std::size_t n = x.size();
  const double pi = 3.14159265358979323846;
  std::vector<std::complex<double>> roots(n);
  for (std::size_t j = 0; j < n; ++j) {
    const double angle = sign * 2.0 * pi * static_cast<double>(j) / static_cast<double>(n);
    roots[j] = {std::cos(angle), std::sin(angle)};
  }
  std::vector<std::complex<double>> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::complex<double> sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += std::complex<double>(x[j].re, x[j].im) * roots[(k * j) % n];
    out[k] = sum;
  }
  return out;
}

std::vector<Complex> random_points(std::size_t n, std::uint64_t seed) {
  const auto re = test::random_signal(n, seed), im = test::random_signal(n, seed + 1);
  std::vector<Complex> z(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = {re[i], im[i]};
  return z;
}

template <class Order>  // order(i, n): the bin at position i
double relative_error(const std::vector<Complex>& got, const std::vector<std::complex<double>>& want, Order order) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::complex<double> w = want[order(i, got.size())];
    diff += std::norm(std::complex<double>(got[i].re, got[i].im) - w);
    norm += std::norm(w);
  }
  return std::sqrt(diff / norm);
}

std::size_t natural(std::size_t i, std::size_t) { return i; }

// The forward passes leave bin bin_at_position(i) at position i; the inverse passes take that
// order back to natural order; both equal the plain DFT, for every pass structure (last
// radix 2, 4, 8, 16; two to four passes; the wide 16 x 32 x 32 of a 16384-point step).
TEST(FftHost, BlockTransformsMatchAPlainDft) {
  for (const FusedForm form : {FusedForm::step, FusedForm::row})
    for (std::size_t l = 32; l <= max_fused_block_fft_frames; l *= 2) {
      const auto twiddles = make_twiddles(l, form);
      const auto x = random_points(l, 10 * l);
      auto z = x;
      forward_transform_on_host(z.data(), l, twiddles.data(), form);
      const auto bin = [form](std::size_t i, std::size_t n) { return bin_at_position(i, n, form); };
      EXPECT_LE(relative_error(z, plain_dft(x, -1), bin), 1e-6) << "forward, L " << l;

      // Inverse: from a spectrum in the forward's order to L x the signal, in natural order.
      std::vector<Complex> spectrum(l);
      for (std::size_t i = 0; i < l; ++i) spectrum[i] = x[bin(i, l)];
      inverse_transform_on_host(spectrum.data(), l, twiddles.data(), form);
      EXPECT_LE(relative_error(spectrum, plain_dft(x, +1), natural), 1e-6) << "inverse, L " << l;
    }
}

// Between the shared-memory layouts of passes q and q + 1 the fused kernels wait only for the
// s threads of one butterfly span (s = pass q's stride; sync_pass_span in
// overlap_save_kernels.cu): a warp's barrier for s <= 32, a named barrier for more. That holds
// only if every point is written in one layout and read in the other by threads of the same
// span t / s, and every point is someone's in both layouts.
template <int Log2>
void expect_each_span_exchanges_within_itself() {
  using S = FusedShape<Log2>;
  for (int q = 0; q + 1 < S::passes; ++q) {
    const int s = fused_pass_stride(Log2, q);
    std::vector<int> holder(S::shared_points, -1);  // thread holding each padded position in layout q
    for (int t = 0; t < S::threads_of(q); ++t)
      for (int j = 0; j < fused_pass_points(Log2, q); ++j) holder[pass_index<Log2>(q, t, j)] = t;
    int held = 0, outside = 0;
    for (int t = 0; t < S::threads_of(q + 1); ++t)
      for (int j = 0; j < fused_pass_points(Log2, q + 1); ++j) {
        const int other = holder[pass_index<Log2>(q + 1, t, j)];
        held += other >= 0;
        outside += other < 0 || other / s != t / s;
      }
    EXPECT_EQ(held, S::points) << "L " << S::points << ", passes " << q << " and " << q + 1;
    EXPECT_EQ(outside, 0) << "L " << S::points << ", passes " << q << " and " << q + 1 << ", span of " << s;
  }
}

TEST(FftHost, AdjacentPassesExchangePointsWithinOneSpan) {
  for (long long l = 1LL << min_fused_log2; l <= static_cast<long long>(max_fused_block_fft_frames); l *= 2)
    with_fused_log2<min_fused_log2, max_fused_log2>(
        l,
        [](auto log2) {
          expect_each_span_exchanges_within_itself<decltype(log2)::value>();
          expect_each_span_exchanges_within_itself<fused_step_shape(decltype(log2)::value)>();
        },
        [l] { ADD_FAILURE() << "no transform of " << l << " points"; });
}

// cuda-fft's spectral pass (real_spectrum.hpp) between two plain N-point DFTs of the pairs
// gives the circular convolution of L reals with a real mask, computed plainly in double.
TEST(FftHost, SpectralProductOfPairsIsTheRealConvolution) {
  const double pi = 3.14159265358979323846;
  std::uint64_t seed = 800;
  for (const std::size_t l : {std::size_t{4}, std::size_t{8}, std::size_t{64}, std::size_t{2048}}) {
    const std::size_t n = l / 2, taps = l / 2 + 1;
    const auto x = test::random_signal(l, ++seed), h = test::random_signal(taps, ++seed);
    // The mask's real spectrum H[k], k <= N, scaled by 1/L, rounded to float as the engine holds it.
    std::vector<Complex> mask(n + 1);
    for (std::size_t k = 0; k <= n; ++k) {
      std::complex<double> sum = 0;
      for (std::size_t t = 0; t < taps; ++t) sum += double{h[t]} * std::polar(1.0, -2.0 * pi * double(k * t % l) / double(l));
      mask[k] = {static_cast<float>(sum.real() / double(l)), static_cast<float>(sum.imag() / double(l))};
    }
    std::vector<Complex> pairs(n);
    for (std::size_t i = 0; i < n; ++i) pairs[i] = {x[2 * i], x[2 * i + 1]};
    const auto z_double = plain_dft(pairs, -1);
    std::vector<Complex> z(n), v(n);
    for (std::size_t i = 0; i < n; ++i) z[i] = {static_cast<float>(z_double[i].real()), static_cast<float>(z_double[i].imag())};
    for (std::size_t k = 0; k <= n / 2; ++k) {
      const std::size_t j = (n - k) % n;
      const Complex w{static_cast<float>(std::cos(2.0 * pi * double(k) / double(l))),
                      static_cast<float>(-std::sin(2.0 * pi * double(k) / double(l)))};
      const SpectralPair pair = spectral_product(z[k], z[j], w, mask[k], mask[n - k]);
      v[k] = pair.at_k;
      if (j != k && k != 0) v[j] = pair.at_n_minus_k;
    }
    const auto y = plain_dft(v, +1);  // L (y[2n] + i y[2n+1])
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < l; ++i) {
      double want = 0;  // (x circularly convolved with h)[i]
      for (std::size_t t = 0; t < taps; ++t) want += double{h[t]} * double{x[(i + l - t) % l]};
      const double got = i % 2 == 0 ? y[i / 2].real() : y[i / 2].imag();
      diff += (got - want) * (got - want);
      norm += want * want;
    }
    EXPECT_LE(std::sqrt(diff / norm), 1e-6) << "L " << l;
  }
}

// Digit reversal by hand: L = 32 is one 16-point pass (digit of weight 2) and a last pass of
// 2 (weight 1): position 2 d1 + d0 holds bin d1 + 16 d0. L = 512 = 16 x 16 x 2: position
// 32 d2 + 2 d1 + d0 holds bin d2 + 16 d1 + 256 d0. And a permutation at every size.
TEST(FftHost, DigitReversal) {
  EXPECT_EQ(bin_at_position(1, 32), 16u);
  EXPECT_EQ(bin_at_position(2, 32), 1u);
  EXPECT_EQ(bin_at_position(2 * 5 + 1, 32), 5u + 16u);
  EXPECT_EQ(bin_at_position(32 * 3 + 2 * 7 + 1, 512), 3u + 16u * 7 + 256u);
  EXPECT_EQ(bin_at_position(256 * 9 + 16 * 4 + 11, 4096), 9u + 16u * 4 + 256u * 11);
  // The wide step: position 1024 d0 + 32 d1 + d2 (radices 16, 32, 32) holds bin d0 + 16 d1 + 512 d2.
  EXPECT_EQ(bin_at_position(1024 * 7 + 32 * 21 + 30, 16384), 7u + 16u * 21 + 512u * 30);
  EXPECT_EQ(bin_at_position(1024 * 7 + 64 * 5 + 4 * 2 + 3, 16384, FusedForm::row), 7u + 16u * 5 + 256u * 2 + 4096u * 3);
  for (const FusedForm form : {FusedForm::step, FusedForm::row})
    for (std::size_t l = 32; l <= max_fused_block_fft_frames; l *= 2) {
      std::vector<bool> seen(l, false);
      for (std::size_t i = 0; i < l; ++i) seen[bin_at_position(i, l, form)] = true;
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; })) << "L " << l;
    }
}

// ------------------------------------------------------------------ geometry

TEST(FftHost, GeometryHoldsItsInvariants) {
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    for (const std::size_t m : {1, 2, 64, 255, 1000, 4095, 8192, 16383, 65535, 1 << 20, 1 << 22}) {
      if (method == FftMethod::fused && m > max_fused_mask_frames) continue;
      for (const std::size_t block : {1, 64, 4096, 16384, 16385, 1 << 18, 1 << 24}) {
        for (const int channels : {1, 6}) {
          const ProcessSpec spec{channels, block, m, 48000};
          const Geometry g = plan_geometry(method, spec);
          const std::string what = describe(method, m, channels, false, block);
          EXPECT_EQ(g.fft_frames & (g.fft_frames - 1), 0) << what;
          EXPECT_GE(g.fft_frames, static_cast<long long>(2 * m) - 1) << what;
          EXPECT_EQ(g.hop_frames + g.halo_frames, g.fft_frames) << what;
          EXPECT_GE(g.hop_frames, 1) << what;
          // Whole warps of frames a hop, and the halo no shorter than the mask needs nor
          // longer than that rounding takes.
          EXPECT_EQ(g.hop_frames % aligned_hop_frames, 0) << what;
          EXPECT_GE(g.halo_frames, g.mask_frames - 1) << what;
          EXPECT_LT(g.halo_frames, g.mask_frames - 1 + aligned_hop_frames) << what;
          EXPECT_EQ(g.step_frames, g.segments_per_step * g.hop_frames) << what;
          EXPECT_LE(g.piece_frames, g.batch_steps * g.step_frames) << what;
          EXPECT_LE(g.piece_frames, static_cast<long long>(block)) << what;
          EXPECT_GE(g.ring_frames, g.step_frames + g.halo_frames + 1 + g.piece_frames) << what;
          EXPECT_GE(g.out_ring_frames, g.piece_frames + g.step_frames) << what;
          EXPECT_GE(static_cast<long long>(g.max_pieces) * g.piece_frames, static_cast<long long>(block)) << what;
          const long long l = g.fft_frames, mm = static_cast<long long>(m);
          if (method == FftMethod::cufft)
            EXPECT_TRUE(l == std::max<long long>(256, mm) || (l >= 4 * mm && l <= 16 * mm) || l == (1 << 23)) << what << ": L " << l;
          else
            EXPECT_TRUE(l == 512 || (l >= 4 * mm && l <= 16 * mm) || l == 16384) << what << ": L " << l;
          // A piece never completes more steps than the batch holds, wherever it starts.
          for (const long long position : {0LL, 1LL, g.step_frames - 1, g.step_frames, 12345678LL}) {
            const PieceHeader piece = plan_piece(g, position, static_cast<int>(g.piece_frames));
            EXPECT_LE(piece.segments, g.batch_segments()) << what << ", position " << position;
            EXPECT_EQ(piece.segments % g.segments_per_step, 0) << what;
          }
        }
      }
    }
  }
  // The fused sizes the H100 measured fastest (bench/results/h100_fft_bench.md), which the
  // model must keep picking: 2048 at 255 taps, 4096 at 1023, 16384 at 4095.
  EXPECT_EQ(fused_fft_frames(255), 2048u);
  EXPECT_EQ(fused_fft_frames(1023), 4096u);
  EXPECT_EQ(fused_fft_frames(4095), 16384u);
  // Past one block: split transforms (the model's cost adds their scratch's traffic).
  EXPECT_EQ(fused_fft_frames(8192), 65536u);
  // A forced FFT size (the benchmark's): taken where it fits, refused where it does not.
  EXPECT_EQ(plan_geometry(FftMethod::fused, {2, 4096, 255, 48000}, FftTuning{0, 4096}).fft_frames, 4096);
  EXPECT_EQ(plan_geometry(FftMethod::cufft, {2, 4096, 255, 48000}, FftTuning{0, 1 << 16}).fft_frames, 1 << 16);
  EXPECT_THROW(plan_geometry(FftMethod::fused, {2, 4096, 4095, 48000}, FftTuning{0, 4096}), halo::Error);
  EXPECT_THROW(plan_geometry(FftMethod::fused, {2, 4096, 255, 48000}, FftTuning{0, 3000}), halo::Error);
  EXPECT_EQ(plan_geometry(FftMethod::fused, {2, 4096, 255, 48000}, FftTuning{0, 1 << 15}).fft_frames, 1 << 15);
  EXPECT_THROW(plan_geometry(FftMethod::fused, {2, 4096, 255, 48000}, FftTuning{0, 1 << 19}), halo::Error);
  // Pieces of whole waves of clusters: 32 steps of 2^18 (mono) on 7 clusters become 28, and in
  // stereo 16 become 14 (28 clusters); 6 channels on 7 clusters take 7 steps (42 clusters),
  // more than the 5 of the batch; on 16 clusters, 6 channels take multiples of 8 steps.
  for (const auto& [channels, concurrent, steps] :
       {std::tuple{1, 7, 28LL}, std::tuple{2, 7, 14LL}, std::tuple{6, 7, 7LL}, std::tuple{6, 16, 8LL}}) {
    const ProcessSpec spec{channels, std::size_t{1} << 24, 65535, 48000};
    const Geometry g = plan_geometry(FftMethod::fused, spec);
    ASSERT_EQ(g.fft_frames, 1 << 18);
    const Geometry waves = plan_geometry(FftMethod::fused, spec, FftTuning{whole_wave_batch_samples(g, concurrent)});
    EXPECT_EQ(waves.batch_steps, steps) << channels << " channels, " << concurrent << " clusters";
    EXPECT_EQ(waves.batch_steps * channels % concurrent, 0);
  }
  // The one-block kernel's pieces, to the nearest whole wave of its blocks: 512 steps of 16384
  // points (mono, 2^24 samples) on the H100's 132 blocks become 528 (4 waves), 256 in stereo
  // 264 (264 blocks); 2048 steps of 4096 points on 528 blocks stay 2112 (4 waves); a batch of
  // less than half a wave still takes one.
  for (const auto& [taps, channels, concurrent, steps] :
       {std::tuple{4095, 1, 132, 528LL}, std::tuple{4095, 2, 132, 264LL}, std::tuple{1023, 1, 528, 2112LL},
        std::tuple{1023, 1, 5000, 5000LL}}) {
    const ProcessSpec spec{channels, std::size_t{1} << 24, static_cast<std::size_t>(taps), 48000};
    const Geometry g = plan_geometry(FftMethod::fused, spec);
    const Geometry waves =
        plan_geometry(FftMethod::fused, spec, FftTuning{whole_wave_batch_samples(g, concurrent, WaveRounding::nearest)});
    EXPECT_EQ(waves.batch_steps, steps) << taps << " taps, " << channels << " channels, " << concurrent << " blocks";
  }

  // The registry's answers (no device needed).
  const TapSet long_mask = TapSet::from_masks({test::mask_of(test::random_taps(1 << 20, 3))}, 2);
  std::string why;
  EXPECT_TRUE(fft_accepts(FftMethod::cufft, long_mask, {2, 4096, 1 << 20, 48000}, &why)) << why;
  EXPECT_FALSE(fft_accepts(FftMethod::fused, long_mask, {2, 4096, 1 << 20, 48000}, &why));
  EXPECT_NE(why.find("131072"), std::string::npos) << why;
  const TapSet short_mask = TapSet::from_masks({test::mask_of(test::random_taps(100, 4))}, 2);
  EXPECT_FALSE(fft_accepts(FftMethod::cufft, short_mask, {2, 4096, (1 << 22) + 1, 48000}, &why));
  EXPECT_FALSE(fft_accepts(FftMethod::cufft, short_mask, {3, 4096, 100, 48000}, &why));
  EXPECT_TRUE(fft_accepts(FftMethod::fused, short_mask, {2, 4096, 100, 48000}, &why)) << why;
}

// ------------------------------------------------------------------ the pipeline, on the host

// The engine's device pass, done on the host with the kernels' own element functions
// (FFTW for cuFFT's transforms): the same pieces, rings, segments and steps.
class HostOverlapSave {
 public:
  HostOverlapSave(FftMethod method, const ProcessSpec& spec, const filters::MaskSet& masks, const FftTuning& tuning)
      : method_(method), g_(plan_geometry(method, spec, tuning)), taps_(TapSet::from_masks(masks, spec.channels)) {
    const long long c = g_.channels, l = g_.fft_frames;
    ring_.assign(c * g_.ring_frames, 0.0f);
    out_ring_.assign(c * g_.out_ring_frames, 0.0f);
    const float scale = 1.0f / static_cast<float>(l);
    if (method == FftMethod::cufft) {
      segments_.assign(c * g_.batch_segments() * l, 0.0f);
      block_ = fftw::allocate<float>(l);
      spectrum_ = fftw::allocate<fftwf_complex>(g_.bins());
      {
        std::lock_guard<std::recursive_mutex> lock(fftw::planner_mutex());
        forward_.reset(fftwf_plan_dft_r2c_1d(static_cast<int>(l), block_.get(), spectrum_.get(), FFTW_ESTIMATE));
        inverse_.reset(fftwf_plan_dft_c2r_1d(static_cast<int>(l), spectrum_.get(), block_.get(), FFTW_ESTIMATE));
      }
      for (std::size_t m = 0; m < taps_.distinct_masks(); ++m) {
        std::fill_n(block_.get(), l, 0.0f);
        const auto& h = taps_.taps(m);
        for (std::size_t k = 0; k < h.size(); ++k) block_[k] = h[k] * scale;
        fftwf_execute(forward_.get());
        spectra_.emplace_back(reinterpret_cast<std::complex<float>*>(spectrum_.get()),
                              reinterpret_cast<std::complex<float>*>(spectrum_.get()) + g_.bins());
      }
    } else {
      tables_ = make_fused_tables(static_cast<std::size_t>(l));
      for (std::size_t m = 0; m < taps_.distinct_masks(); ++m)
        fused_masks_.push_back(fused_mask_spectrum(taps_.taps(m), tables_));
      z_.resize(fused_host_scratch_points(static_cast<std::size_t>(l)));
    }
  }

  std::size_t latency_frames() const { return static_cast<std::size_t>(g_.step_frames); }
  const Geometry& geometry() const { return g_; }

  void process(const float* in, float* out, std::size_t frames) {
    const long long c = g_.channels;
    for (long long done = 0; done < static_cast<long long>(frames);) {
      const int n = static_cast<int>(std::min<long long>(g_.piece_frames, static_cast<long long>(frames) - done));
      const PieceHeader h = plan_piece(g_, position_, n);
      const float* piece_in = in + done * c;
      float* piece_out = out + done * c;
      if (h.segments > 0) transform(h, piece_in, piece_out);
      for (long long i = first_frame_to_ring(g_, h) * c; i < n * c; ++i) to_ring_sample(g_, h, i, piece_in, ring_.data());
      for (long long i = 0; i < frames_from_ring(g_, h) * c; ++i) from_ring_sample(g_, h, i, out_ring_.data(), piece_out);
      position_ += n;
      done += n;
    }
  }

 private:
  void transform(const PieceHeader& h, const float* in, float* out) {
    const long long l = g_.fft_frames;
    for (long long c = 0; c < g_.channels; ++c) {
      const std::size_t mask = taps_.mask_of(static_cast<int>(c));
      const ChannelIo io = channel_io(g_, c, in, out, ring_.data(), out_ring_.data());
      if (method_ == FftMethod::fused) {
        for (long long step = 0; step < h.segments / 2; ++step)
          fused_step_on_host(g_, h, h.first_segment / 2 + step, io, fused_masks_[mask].data(), tables_, z_.data());
        continue;
      }
      for (long long s = 0; s < h.segments; ++s) {
        for (long long i = 0; i < l; ++i) gather_point(g_, h, c, s, i, io, segments_.data());
        float* slot = segments_.data() + (c * g_.batch_segments() + s) * l;
        std::copy_n(slot, l, block_.get());
        fftwf_execute(forward_.get());
        auto* x = reinterpret_cast<std::complex<float>*>(spectrum_.get());
        for (long long k = 0; k < g_.bins(); ++k) x[k] *= spectra_[mask][k];
        fftwf_execute(inverse_.get());
        std::copy_n(block_.get(), l, slot);
        for (long long i = 0; i < g_.hop_frames; ++i) crop_point(g_, h, c, s, i, segments_.data(), io);
      }
    }
  }

  FftMethod method_;
  Geometry g_;
  TapSet taps_;
  long long position_ = 0;
  std::vector<float> ring_, out_ring_, segments_;
  fftw::Array<float> block_;
  fftw::Array<fftwf_complex> spectrum_;
  fftw::Plan forward_, inverse_;
  std::vector<std::vector<std::complex<float>>> spectra_;
  FusedTables tables_;  // fused
  std::vector<Complex> z_;
  std::vector<std::vector<Complex>> fused_masks_;
};

// Feeds `in`, then zeros for the latency and the tail, in blocks of the given sizes (cycled);
// returns the output with the latency dropped: frames [0, N + M - 1) of the convolution.
std::vector<float> run_emulated(HostOverlapSave& engine, const std::vector<float>& in, int channels, std::size_t taps,
                                const std::vector<std::size_t>& sizes) {
  const std::size_t frames = in.size() / channels, latency = engine.latency_frames();
  std::vector<float> padded = in;
  padded.resize((latency + frames + taps - 1) * channels, 0.0f);
  std::vector<float> out(padded.size(), std::nanf(""));
  const std::size_t total = padded.size() / channels;
  for (std::size_t done = 0, i = 0; done < total; ++i) {
    const std::size_t n = std::min(sizes[i % sizes.size()], total - done);
    engine.process(padded.data() + done * channels, out.data() + done * channels, n);
    done += n;
  }
  return std::vector<float>(out.begin() + static_cast<std::ptrdiff_t>(latency * channels), out.end());
}

struct EmulatedCase {
  std::size_t taps;
  int channels;
  bool per_channel;
  std::size_t frames;
};

// Both methods, the registry's batch, a batch of a few steps (pieces longer than step + Mmax:
// only their tails go through the input ring, only their first frames come out of the
// output ring) and a batch of one step (pieces of one step: the rings wrap many times),
// whole and in random blocks (some shorter than the mask): the float64 reference, and
// chunked equal to whole bit for bit; and the unaligned hop against the reference.
TEST(FftHost, EmulatedPipelineEqualsTheReference) {
  const EmulatedCase cases[] = {
      {1, 1, false, 3001},    {2, 2, true, 1999},     {7, 2, true, 5003},   {64, 6, true, 4001},
      {255, 2, false, 9001},  {256, 1, false, 300},   {1000, 3, true, 7777}, {4095, 2, false, 20011},
      {8192, 1, false, 9000}, {20000, 1, false, 5001},
  };
  std::uint64_t seed = 500;
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    for (const EmulatedCase& k : cases) {
      if (method == FftMethod::fused && k.taps > max_fused_mask_frames) continue;
      const filters::MaskSet masks = masks_for(k.taps, k.channels, k.per_channel, ++seed);
      const auto in = test::random_signal(k.frames * k.channels, ++seed);
      const std::size_t total = k.frames + k.taps - 1;
      const auto ref = test::reference_output(in, k.channels, masks, total);
      for (const std::size_t batch : {std::size_t{0}, std::size_t{1} << 15, std::size_t{1}}) {
        const std::string what = describe(method, k.taps, k.channels, k.per_channel, k.frames) +
                                 (batch == 1   ? ", one step per piece"
                                  : batch == 0 ? ", the registry's batch"
                                               : ", batches of 2^15 samples");
        const std::size_t whole_block = 1 << 22;
        HostOverlapSave whole(method, {k.channels, whole_block, k.taps, 48000}, masks, FftTuning{batch});
        const auto whole_out = run_emulated(whole, in, k.channels, k.taps, {whole_block});
        EXPECT_LE(test::worst_channel_error(whole_out, ref, k.channels, total), tolerance) << what << ", whole";

        const std::size_t max_block = 2 * k.taps + 100;
        const auto sizes = test::random_chunks(k.taps, max_block, seed);
        HostOverlapSave chunked(method, {k.channels, max_block, k.taps, 48000}, masks, FftTuning{batch});
        const auto chunked_out = run_emulated(chunked, in, k.channels, k.taps, sizes);
        EXPECT_LE(test::worst_channel_error(chunked_out, ref, k.channels, total), tolerance)
            << what << ", " << test::describe_chunks(sizes, seed);
        EXPECT_TRUE(test::same_bits(chunked_out, whole_out)) << what << ", " << test::describe_chunks(sizes, seed);

        // Blocks longer than step + Mmax, the first ending one frame before a step's end: the
        // next piece reads the most frames back from the input ring (step + D - 1), and
        // the ends walk through every position in a step.
        const long long step = whole.geometry().step_frames;
        const std::vector<std::size_t> long_sizes = {static_cast<std::size_t>(3 * step - 1),
                                                     static_cast<std::size_t>(2 * step + 1)};
        HostOverlapSave long_blocks(method, {k.channels, long_sizes[0], k.taps, 48000}, masks, FftTuning{batch});
        const auto long_out = run_emulated(long_blocks, in, k.channels, k.taps, long_sizes);
        EXPECT_TRUE(test::same_bits(long_out, whole_out)) << what << ", blocks of 3 steps - 1 and 2 steps + 1";
      }
      // The unaligned hop, L - (Mmax - 1), which the benchmark times beside the aligned one.
      FftTuning unaligned;
      unaligned.hop_multiple = 1;
      const std::size_t max_block = 2 * k.taps + 100;
      HostOverlapSave plain(method, {k.channels, max_block, k.taps, 48000}, masks, unaligned);
      EXPECT_EQ(plain.geometry().hop_frames, plain.geometry().fft_frames - static_cast<long long>(k.taps) + 1);
      const auto sizes = test::random_chunks(k.taps, max_block, seed);
      const auto plain_out = run_emulated(plain, in, k.channels, k.taps, sizes);
      EXPECT_LE(test::worst_channel_error(plain_out, ref, k.channels, total), tolerance)
          << describe(method, k.taps, k.channels, k.per_channel, k.frames) << ", the unaligned hop, "
          << test::describe_chunks(sizes, seed);
    }
  }
}

// ------------------------------------------------------------------ on the GPU

std::unique_ptr<Engine> prepared(FftMethod method, const filters::MaskSet& masks, int channels, std::size_t max_block,
                                 const FftTuning& tuning = {}) {
  auto engine = make_fft_engine(method, EngineOptions{}, tuning);
  test::prepare_with(*engine, masks, channels, max_block);
  return engine;
}

void expect_matches_reference(Engine& engine, const std::vector<float>& in, int channels, const filters::MaskSet& masks,
                              const std::vector<std::size_t>& sizes, const std::string& what,
                              std::vector<float>* output = nullptr) {
  const std::size_t taps = test::longest(masks), total = in.size() / channels + taps - 1;
  const auto out = test::run_aligned(engine, in, channels, sizes);
  const auto ref = test::reference_output(in, channels, masks, total);
  EXPECT_LE(test::worst_channel_error(out, ref, channels, total), tolerance) << what;
  if (output) *output = out;
}

// Masks of 1 to 2^20 taps, inputs shorter and longer than the mask (odd lengths). The
// longest masks take short inputs: the float64 reference costs N x M.
TEST(CudaFft, MasksFromOneTapTo2To20) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t lengths[] = {1, 2, 7, 64, 255, 1000, 4095, 8192, 16383, 65535, 262143, 1 << 20};
  std::uint64_t seed = 1000;
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    for (const std::size_t taps : lengths) {
      if (method == FftMethod::fused && taps > max_fused_mask_frames) continue;
      std::vector<std::size_t> inputs = {std::max<std::size_t>(1, taps / 3) | 1};  // shorter than the mask
      if (taps <= 16383) inputs.push_back(taps + 1001);                            // longer
      if (taps > 16383) inputs = {taps <= 65535 ? std::size_t{20011} : std::size_t{301}};
      for (const std::size_t frames : inputs) {
        const filters::MaskSet masks = masks_for(taps, 1, false, ++seed);
        const auto in = test::random_signal(frames, ++seed);
        auto engine = prepared(method, masks, 1, 1 << 18);
        expect_matches_reference(*engine, in, 1, masks, {1 << 18}, describe(method, taps, 1, false, frames));
      }
    }
  }
}

// 1, 2 and 6 channels, one mask and a mask each, random blocks (many shorter than the mask,
// single frames among them) against one whole block: the reference, and the same bits.
TEST(CudaFft, ChannelsAndChunksChangeNoBit) {
  SKIP_WITHOUT_DEVICE();
  struct Case {
    std::size_t taps;
    int channels;
    bool per_channel;
  };
  const Case cases[] = {{255, 1, false}, {255, 2, true}, {1000, 6, true}, {4095, 6, false},
                        {4095, 2, true}, {30000, 2, true}, {30000, 1, false}, {16383, 6, true}};
  std::uint64_t seed = 2000;
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    for (const Case& k : cases) {
      if (method == FftMethod::fused && k.taps > max_fused_mask_frames) continue;
      const std::size_t frames = 3 * k.taps + 12345;
      const filters::MaskSet masks = masks_for(k.taps, k.channels, k.per_channel, ++seed);
      const auto in = test::random_signal(frames * k.channels, ++seed);
      const std::string what = describe(method, k.taps, k.channels, k.per_channel, frames);

      std::vector<float> whole_out, chunked_out;
      const std::size_t whole_block = 1 << 20;
      auto whole = prepared(method, masks, k.channels, whole_block);
      expect_matches_reference(*whole, in, k.channels, masks, {whole_block}, what + ", whole", &whole_out);

      const std::size_t max_block = 2 * k.taps + 100;
      const auto sizes = test::random_chunks(k.taps, max_block, seed);
      auto chunked = prepared(method, masks, k.channels, max_block);
      expect_matches_reference(*chunked, in, k.channels, masks, sizes, what + ", " + test::describe_chunks(sizes, seed),
                               &chunked_out);
      EXPECT_TRUE(test::same_bits(chunked_out, whole_out)) << what << ", " << test::describe_chunks(sizes, seed);
    }
  }
}

// Pieces of one step each (a batch of one): many pieces per call and rings that wrap many
// times over a long signal; equal to the reference, and chunked equal to whole.
TEST(CudaFft, SmallBatchWrapsTheRings) {
  SKIP_WITHOUT_DEVICE();
  const FftTuning one_step{1};
  std::uint64_t seed = 3000;
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    for (const std::size_t taps : {std::size_t{64}, std::size_t{1023}}) {
      const int channels = 2;
      const std::size_t frames = 200001;
      const filters::MaskSet masks = masks_for(taps, channels, true, ++seed);
      const auto in = test::random_signal(frames * channels, ++seed);
      const std::string what = describe(method, taps, channels, true, frames) + ", one step per piece";
      std::vector<float> whole_out, chunked_out;
      auto whole = prepared(method, masks, channels, 1 << 17, one_step);
      expect_matches_reference(*whole, in, channels, masks, {1 << 17}, what + ", blocks of 2^17", &whole_out);
      const auto sizes = test::random_chunks(taps, 3 * taps, seed);
      auto chunked = prepared(method, masks, channels, 3 * taps, one_step);
      expect_matches_reference(*chunked, in, channels, masks, sizes, what + ", " + test::describe_chunks(sizes, seed),
                               &chunked_out);
      EXPECT_TRUE(test::same_bits(chunked_out, whole_out)) << what;
    }
  }
}

// Blocks and pieces longer than step + Mmax: only their tails go through the input ring and
// only their first frames come out of the output ring. Blocks of 3 steps - 1 and 2 steps + 1
// end at every position in a step (one frame before a step's end: the next piece reads the
// most back); with the registry's batch and with pieces of a few steps inside each block.
TEST(CudaFft, LongBlocksCarryOnlyWhatCrossesPieces) {
  SKIP_WITHOUT_DEVICE();
  std::uint64_t seed = 4500;
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    for (const std::size_t batch : {std::size_t{0}, std::size_t{1} << 15}) {
      const int channels = 2;
      const std::size_t taps = 700, frames = 60001;
      const filters::MaskSet masks = masks_for(taps, channels, true, ++seed);
      const auto in = test::random_signal(frames * channels, ++seed);
      const std::string what = describe(method, taps, channels, true, frames) + ", batch " + std::to_string(batch);
      std::vector<float> whole_out, long_out;
      auto whole = prepared(method, masks, channels, 1 << 17, FftTuning{batch});
      expect_matches_reference(*whole, in, channels, masks, {1 << 17}, what + ", blocks of 2^17", &whole_out);
      const long long step = geometry_of(*whole).step_frames;
      const std::vector<std::size_t> sizes = {static_cast<std::size_t>(3 * step - 1), static_cast<std::size_t>(2 * step + 1)};
      auto blocks = prepared(method, masks, channels, sizes[0], FftTuning{batch});
      expect_matches_reference(*blocks, in, channels, masks, sizes, what + ", blocks of 3 steps - 1 and 2 steps + 1",
                               &long_out);
      EXPECT_TRUE(test::same_bits(long_out, whole_out)) << what;
    }
  }
}

// A split transform (L > 16384) runs as one kernel in clusters of 16 blocks where the GPU holds
// them, else as three kernels through device scratch: both paths against the reference,
// whole and in small blocks (the graph path), with per-channel masks.
TEST(CudaFft, SplitTransformInOneClusterOrThreeKernels) {
  SKIP_WITHOUT_DEVICE();
  std::uint64_t seed = 5500;
  for (const bool in_three : {false, true}) {
    for (const std::size_t taps : {std::size_t{3000}, std::size_t{20000}, std::size_t{65535}}) {
      const int channels = taps == 65535 ? 1 : 2;
      // Several steps each but at 65535 taps (the float64 reference costs frames x taps).
      const std::size_t frames = taps == 3000 ? 100001 : taps == 20000 ? 130001 : 20011;
      const filters::MaskSet masks = masks_for(taps, channels, channels > 1, ++seed);
      const auto in = test::random_signal(frames * channels, ++seed);
      FftTuning tuning;
      tuning.split_in_three = in_three;
      // 3000 taps: forced to L = 2^15, the smallest split (the model would take one block).
      if (taps == 3000) tuning.fft_frames = 1 << 15;
      const std::string what =
          describe(FftMethod::fused, taps, channels, channels > 1, frames) + (in_three ? ", three kernels" : ", cluster");
      auto whole = prepared(FftMethod::fused, masks, channels, 1 << 18, tuning);
      ASSERT_TRUE(fused_split(geometry_of(*whole).fft_frames)) << what;
      expect_matches_reference(*whole, in, channels, masks, {1 << 18}, what + ", blocks of 2^18");
      const auto sizes = test::random_chunks(taps, 2 * taps, seed);
      auto chunked = prepared(FftMethod::fused, masks, channels, 2 * taps, tuning);
      expect_matches_reference(*chunked, in, channels, masks, sizes, what + ", " + test::describe_chunks(sizes, seed));
    }
  }
}

// Where clusters of 16 leave SMs idle, the three kernels take a piece's last steps beside the
// cluster kernel (split_helper_steps): the same bits as the cluster kernel taking them all, and
// the reference, whole and in chunks that cut pieces short of the helper's steps. (On a GPU
// without clusters both runs are the three kernels: the test still holds.)
TEST(CudaFft, ThreeKernelsBesideTheClusterKernel) {
  SKIP_WITHOUT_DEVICE();
  std::uint64_t seed = 5800;
  for (const std::size_t taps : {std::size_t{20000}, std::size_t{65535}}) {
    const int channels = taps == 65535 ? 1 : 2;
    const std::size_t frames = taps == 20000 ? 130001 : 40011;
    const filters::MaskSet masks = masks_for(taps, channels, channels > 1, ++seed);
    const auto in = test::random_signal(frames * channels, ++seed);
    const Geometry g = plan_geometry(FftMethod::fused, {channels, 1 << 18, taps, 48000});
    ASSERT_TRUE(fused_split(g.fft_frames));
    const auto steps = [&](long long n) { return static_cast<std::size_t>(n * g.fft_frames * g.segments_per_step * channels); };
    FftTuning alone, beside;
    alone.batch_samples = steps(3);  // the cluster kernel takes all three steps
    alone.helper_steps = 0;
    beside.batch_samples = steps(1);  // it takes one, the three kernels two
    beside.helper_steps = 2;
    const std::string what = describe(FftMethod::fused, taps, channels, channels > 1, frames);
    std::vector<float> alone_out, beside_out;
    auto one = prepared(FftMethod::fused, masks, channels, 1 << 18, alone);
    expect_matches_reference(*one, in, channels, masks, {1 << 18}, what + ", cluster kernel alone", &alone_out);
    auto two = prepared(FftMethod::fused, masks, channels, 1 << 18, beside);
    EXPECT_EQ(geometry_of(*two).batch_steps, 3) << what;
    expect_matches_reference(*two, in, channels, masks, {1 << 18}, what + ", three kernels beside it", &beside_out);
    EXPECT_TRUE(test::same_bits(alone_out, beside_out)) << what;
    const auto sizes = test::random_chunks(taps, 4 * taps, seed);
    auto chunked = prepared(FftMethod::fused, masks, channels, 4 * taps, beside);
    expect_matches_reference(*chunked, in, channels, masks, sizes,
                             what + ", three kernels beside it, " + test::describe_chunks(sizes, seed));
  }
}

// Small blocks run as one CUDA graph per call; the bits equal the direct launches'.
TEST(CudaFft, GraphPathGivesTheSameBits) {
  SKIP_WITHOUT_DEVICE();
  std::uint64_t seed = 4000;
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    const int channels = 2;
    const std::size_t taps = 511, frames = 40001;
    const filters::MaskSet masks = masks_for(taps, channels, true, ++seed);
    const auto in = test::random_signal(frames * channels, ++seed);
    const std::string what = describe(method, taps, channels, true, frames);
    std::vector<float> graph_out, direct_out;
    auto small = prepared(method, masks, channels, 256);
    EXPECT_TRUE(runs_graphs(*small)) << what << ": blocks of 256 should run as CUDA graphs (capture fell back)";
    expect_matches_reference(*small, in, channels, masks, {256, 17, 1, 200}, what + ", blocks up to 256", &graph_out);
    auto large = prepared(method, masks, channels, 1 << 18);
    EXPECT_FALSE(runs_graphs(*large)) << what;
    expect_matches_reference(*large, in, channels, masks, {1 << 18}, what + ", blocks of 2^18", &direct_out);
    EXPECT_TRUE(test::same_bits(graph_out, direct_out)) << what;
  }
}

// `host` in device memory, landed: a copy from pageable memory may return before its DMA
// does, and the engines' non-blocking streams do not wait for the legacy stream's work
// (without the wait, ProcessOnDeviceEqualsProcess failed 9 times in 40 repeats on the H100).
DeviceBuffer<float> uploaded(const std::vector<float>& host) {
  DeviceBuffer<float> device(host.size());
  HALO_CUDA_CHECK(cudaMemcpy(device.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  HALO_CUDA_CHECK(cudaDeviceSynchronize());
  return device;
}

// The benchmark's entry point (device buffers in and out) gives process()'s bits.
TEST(CudaFft, ProcessOnDeviceEqualsProcess) {
  SKIP_WITHOUT_DEVICE();
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    const int channels = 2;
    const std::size_t taps = 300, frames = 100003;
    const filters::MaskSet masks = masks_for(taps, channels, false, 5000);
    const auto in = test::random_signal(frames * channels, 5001);
    auto host = prepared(method, masks, channels, frames);
    const auto want = test::run_in_chunks(*host, in, channels, {frames});

    auto device = prepared(method, masks, channels, frames);
    const DeviceBuffer<float> in_dev = uploaded(in);
    DeviceBuffer<float> out_dev(in.size());
    Stream stream;
    ASSERT_EQ(process_on_device(*device, in_dev.get(), out_dev.get(), frames, stream.get()), Status::ok)
        << device->failure();
    stream.synchronize();
    std::vector<float> got(in.size());
    HALO_CUDA_CHECK(cudaMemcpy(got.data(), out_dev.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(test::same_bits(got, want)) << name_of(method);
  }
}

// A small run of every kernel, for compute-sanitizer's racecheck (bench/fft_device.sh).
// process_on_device queues its work on the caller's stream: passes on two streams with
// process() (the engine's own stream) between them, and no synchronisation but the engine's,
// give what one process() of the whole signal gives.
TEST(CudaFft, PassesOnSeveralStreamsKeepTheirOrder) {
  SKIP_WITHOUT_DEVICE();
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    const int channels = 2;
    const std::size_t taps = 300, block = 20000, blocks = 6, frames = block * blocks;
    const filters::MaskSet masks = masks_for(taps, channels, false, 5100);
    const auto in = test::random_signal(frames * channels, 5101);
    auto whole = prepared(method, masks, channels, frames);
    const auto want = test::run_in_chunks(*whole, in, channels, {frames});

    auto engine = prepared(method, masks, channels, block);
    const std::size_t samples = block * channels;
    const DeviceBuffer<float> in_dev = uploaded(in);
    DeviceBuffer<float> out_dev(in.size());
    std::vector<float> got(in.size(), std::nanf(""));
    Stream a, b;
    const auto through_process = [](std::size_t k) { return k == 3; };
    for (std::size_t k = 0; k < blocks; ++k) {  // a, a, b, process(), a, b
      const std::size_t at = k * samples;
      if (through_process(k)) {
        ASSERT_EQ(engine->process(in.data() + at, got.data() + at, block), Status::ok) << engine->failure();
        continue;
      }
      const cudaStream_t stream = (k == 2 || k == 5) ? b.get() : a.get();
      ASSERT_EQ(process_on_device(*engine, in_dev.get() + at, out_dev.get() + at, block, stream), Status::ok)
          << engine->failure();
    }
    a.synchronize();
    b.synchronize();
    std::vector<float> on_device(in.size());
    HALO_CUDA_CHECK(cudaMemcpy(on_device.data(), out_dev.get(), on_device.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t k = 0; k < blocks; ++k)
      if (!through_process(k))
        std::copy_n(on_device.begin() + k * samples, samples, got.begin() + k * samples);
    EXPECT_TRUE(test::same_bits(got, want)) << name_of(method);
  }
}

TEST(CudaFftSanitizer, EveryKernelOnce) {
  SKIP_WITHOUT_DEVICE();
  for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    for (const std::size_t taps : {std::size_t{255}, std::size_t{4095}, std::size_t{20000}}) {  // 20000: split
      const filters::MaskSet masks = masks_for(taps, 2, true, 6000 + taps);
      const auto in = test::random_signal((5 * taps + 1001) * 2, 6001 + taps);  // whole stereo frames
      for (const bool in_three : {false, true}) {  // a split L: the cluster kernel and the three kernels
        if (in_three && (method != FftMethod::fused || taps != 20000)) continue;
        FftTuning tuning;
        tuning.split_in_three = in_three;
        auto engine = prepared(method, masks, 2, 2 * taps, tuning);
        expect_matches_reference(*engine, in, 2, masks, {2 * taps, 7},
                                 describe(method, taps, 2, true, in.size() / 2) + (in_three ? ", three kernels" : ""));
      }
    }
  }
}

}  // namespace
}  // namespace halo::cuda
