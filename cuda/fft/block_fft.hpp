#pragma once
// The fused engine's transforms: complex FFTs of L = 2^Log2 points (32 <= L <= 16384) by
// one block of L/16 threads, each holding 16 points in registers (32 past pass 0 in the wide
// 16 x 32 x 32 form of a 16384-point step, below). Written as functions of
// (thread t) between barriers ("phases"), so the same code runs in the kernel (every thread
// at once, a barrier between phases) and on the host, where the tests run it thread by thread
// with no GPU (cuda_fft_fused's indexing is checked here against a plain DFT).
//
// The transform: mixed-radix decimation in frequency, L = 16 x 16 x ... x r (r = 2, 4, 8 or
// 16 for the last pass). Pass p splits blocks of N = 16 s points (s = L / 16^(p+1)) into 16
// sub-blocks: point n2 + j s (n2 < s) of a block gets a 16-point DFT over j in registers,
// then output k is multiplied by exp(-2 pi i n2 k / N) and written back in place, so each
// sub-block of s points is transformed by the next pass. The last pass does L / r DFTs of r
// consecutive points (no twiddles). Bin k then sits at a digit-reversed position
// (bin_at_position); no permutation pass is needed: the mask's spectrum is made by the same
// forward transform, so it sits in the same order, the product is taken element by element,
// and the inverse (the passes in reverse, conjugated, unnormalised) takes that order back to
// natural order. (The wide form's passes 1 and 2 are the same with radix 32: 32-point DFTs
// as 2 x 16, five twiddles a butterfly from the table and the other 26 powers as products,
// rows of 32 points padded by one.)
//
// Thread t in pass p < last holds the 16 points of butterfly (prefix, n2) = (t / s, t % s):
// positions prefix 16 s + j s + n2; in the last pass, the 16 consecutive points 16 t + j.
// Between passes the points go through shared memory, one row of 16 points padded by one
// (padded_for(i) = i + i / 16): the strided reads of the later passes then hit 16 different
// bank pairs per half-warp, as the contiguous ones of the early passes do.
// Twiddles: one table per pass (make_twiddles), entry b s + n2 = exp(-2 pi i n2 2^b / N) for
// b < 4, computed in double and rounded once (a warp reads consecutive n2: coalesced); the
// other 11 powers are products of these (pass_twiddle).
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "cuda/fft/overlap_save.hpp"

#if defined(__CUDA_ARCH__)  // the device pass: the host compiler would warn
#define HALO_UNROLL _Pragma("unroll")
#else
#define HALO_UNROLL
#endif

namespace halo::cuda {

// 8-byte aligned: one 64-bit access per point in shared and global memory (two 32-bit ones
// and 2-way bank conflicts otherwise).
struct alignas(8) Complex {
  float re, im;
};

HALO_HD Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
HALO_HD Complex operator-(Complex a, Complex b) { return {a.re - b.re, a.im - b.im}; }
HALO_HD Complex operator*(Complex a, Complex b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
HALO_HD Complex conjugate(Complex a) { return {a.re, -a.im}; }

// A read-only table entry (twiddles, masks): through the non-coherent cache on the device.
HALO_HD Complex read_only(const Complex* p) {
#if defined(__CUDA_ARCH__)
  const float2 v = __ldg(reinterpret_cast<const float2*>(p));
  return {v.x, v.y};
#else
  return *p;
#endif
}

constexpr int min_fused_log2 = 5;   // two passes at least: 16 x 2
constexpr int max_fused_log2 = 14;  // 16384 (max_fused_block_fft_frames)

// The one place a run-time transform size becomes the compile-time Log2 the fused kernels and
// their host twins are instantiated for: f(std::integral_constant<int, Log2>{}) where
// fft_frames is 2^Log2 for some Log2 in [First, Last], else otherwise(); returns what it returns.
template <int First, int Last, typename F, typename Otherwise>
decltype(auto) with_fused_log2(long long fft_frames, F&& f, Otherwise&& otherwise) {
  if constexpr (First > Last) {
    return otherwise();
  } else {
    if (fft_frames == (1LL << First)) return f(std::integral_constant<int, First>{});
    return with_fused_log2<First + 1, Last>(fft_frames, f, otherwise);
  }
}

// The pass structure of an L = 2^Log2 point transform, as functions the host (run-time sizes)
// and the kernels (constants once unrolled) share. A transform comes in one of two forms: a
// whole step (the one-block kernel) or a row of a split transform (split_fft.hpp). They differ
// at 16384 points only: a whole step runs as 16 x 32 x 32 ("wide" passes: past pass 0 each
// transform thread holds 32 points), a row as 16 x 16 x 16 x 4, like every other size (16 x 16
// x ... x r). In four passes a 16384-point step spent 5-9 % of its time in each shared-memory
// store phase between passes 1 and 3 (H100, bench/results/h100_fft_bench.md, sixteenth
// session, run 2), and three passes have one such phase fewer each way: 4095 taps 0.434-0.436
// -> 0.391-0.399 ms (runs 4 and 5). The cluster kernel's rows stay in four: holding more
// across their phases, it spilled 416 bytes a thread with wide ones, and 65535 taps went 0.892
// -> 1.17 ms. The templates here and in split_fft.hpp take a shape as their Log2 parameter:
// log2 L, plus fused_wide_form for the wide one (FusedShape<46> is a 16384-point step).
constexpr int fused_wide_form = 32;
HALO_HD constexpr int fused_log2(int shape) { return shape % fused_wide_form; }
HALO_HD constexpr bool fused_wide_passes(int shape) { return shape >= fused_wide_form; }
// The shape of a whole step of 2^log2 points (the one-block kernel, its host twin, its mask's
// spectrum and twiddles).
HALO_HD constexpr int fused_step_shape(int log2) { return log2 == max_fused_log2 ? log2 + fused_wide_form : log2; }
HALO_HD constexpr int fused_passes(int shape) {
  return fused_wide_passes(shape) ? 3 : (fused_log2(shape) + 3) / 4;
}
// Pass p's radix: 16, the last pass's 2, 4, 8 or 16; 32 past pass 0 in the wide shape.
HALO_HD constexpr int fused_radix(int shape, int p) {
  if (fused_wide_passes(shape)) return p == 0 ? 16 : 32;
  return p < fused_passes(shape) - 1 ? 16 : 1 << (fused_log2(shape) - 4 * (fused_passes(shape) - 1));
}
// Points a transform thread holds in pass p (16, or 32 past pass 0 in the wide shape); a last
// pass of radix r < 16 runs 16 / r DFTs on its thread's 16 consecutive points.
HALO_HD constexpr int fused_pass_points(int shape, int p) { return fused_wide_passes(shape) && p > 0 ? 32 : 16; }
// log2 of a radix (2 .. 32): the twiddle table's entries per butterfly of a pass of that radix.
HALO_HD constexpr int fused_radix_bits(int radix) { return radix >= 32 ? 5 : radix >= 16 ? 4 : radix >= 8 ? 3 : radix >= 4 ? 2 : 1; }
// Stride s of pass p: its butterflies span radix(p) s points (1 for the last pass). Closed
// forms, no loops: the kernels call these with a pass index that unrolling makes constant, and
// a loop inside (over the earlier passes) was left a loop with run-time divisions, which made
// every shared-memory index a division: the kernels ran 2-4x slower.
HALO_HD constexpr int fused_pass_stride(int shape, int p) {
  if (p >= fused_passes(shape) - 1) return 1;
  const int log2 = fused_log2(shape);
  return fused_wide_passes(shape) ? 1 << (log2 - 4 - 5 * p) : 1 << (log2 - 4 * (p + 1));
}
// Where pass p's twiddles start in the table: radix_bits entries per butterfly of each
// earlier pass. (Written with a lambda for the terms, this cost the L = 2^17 cluster kernel
// 348 bytes of spills a thread.)
HALO_HD constexpr int fused_twiddle_offset(int shape, int p) {
  int offset = 0;
  for (int q = 0; q < p; ++q) offset += fused_radix_bits(fused_radix(shape, q)) * fused_pass_stride(shape, q);
  return offset;
}
// Shared memory pads one point after every row of 16 (every row of 32 in the wide shape,
// whose last pass reads 32 consecutive points a thread: rows of 16 would put lanes 8 apart on
// the same banks).
HALO_HD constexpr int fused_pad_shift(int shape) { return fused_wide_passes(shape) ? 5 : 4; }
template <int Shape>
HALO_HD constexpr int padded_for(int i) {
  return i + (i >> fused_pad_shift(Shape));
}

template <int Log2>  // a shape: log2 L, or the wide form's
struct FusedShape {
  static_assert(fused_log2(Log2) >= min_fused_log2 && fused_log2(Log2) <= max_fused_log2, "fused FFT size out of range");
  static_assert(!fused_wide_passes(Log2) || fused_log2(Log2) == max_fused_log2, "the wide form is 16384 points");
  static constexpr int points = 1 << fused_log2(Log2);
  // Transform threads of pass 0, the phases that read a step's inputs and write its outputs.
  static constexpr int threads = points / fused_pass_points(Log2, 0);
  static constexpr int passes = fused_passes(Log2);
  static constexpr int last_radix = fused_radix(Log2, passes - 1);
  static constexpr int last_points = fused_pass_points(Log2, passes - 1);  // a transform thread's, in the last pass
  static constexpr int shared_points = points + points / 16;               // room for either padding
  // Transform threads of pass p.
  HALO_HD static constexpr int threads_of(int p) { return points / fused_pass_points(Log2, p); }
};

// ---------------------------------------------------------------- in registers

// x exp(-+2 pi i j / 16) (sign by Inverse), j in {0, 2, 4, 6} (the roots of the 2-, 4- and
// 8-point DFTs); j is a constant once unrolled, so the trivial rotations cost no multiply.
template <bool Inverse>
HALO_HD Complex rotate16(Complex x, int j) {
  constexpr float r = 0.70710678118654752440f;
  switch (j) {
    case 0: return x;
    case 2: return Inverse ? Complex{r * (x.re - x.im), r * (x.re + x.im)} : Complex{r * (x.re + x.im), r * (x.im - x.re)};
    case 4: return Inverse ? Complex{-x.im, x.re} : Complex{x.im, -x.re};
    default: return Inverse ? Complex{-r * (x.re + x.im), r * (x.re - x.im)} : Complex{r * (x.im - x.re), -r * (x.re + x.im)};  // 6
  }
}

// i < 2^bits, bits <= 4, reversed: one expression, so a constant i folds (a loop would not).
HALO_HD constexpr int reverse_bits(int i, int bits) {
  return (((i & 1) << 3) | ((i & 2) << 1) | ((i & 4) >> 1) | ((i & 8) >> 3)) >> (4 - bits);
}

// a b + c rounded once, in the kernels and in their host twins alike.
HALO_HD float fused_multiply_add(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
HALO_HD Complex fused_multiply_add(float a, Complex b, Complex c) {
  return {fused_multiply_add(a, b.re, c.re), fused_multiply_add(a, b.im, c.im)};
}

// The second half of a 4-point DFT (outputs X[k], k = 0..3, forward: exp(-2 pi i n k / 4))
// whose odd inputs a1 = f13 p1 and a3 = f13 p3 share a scale factor f13, from t0 = a0 + a2 and
// t1 = a0 - a2: f13 rides on the outputs' adds as FMAs.
HALO_HD void dft4_with_scaled_odd(Complex t0, Complex t1, float f13, Complex p1, Complex p3, Complex& x0,
                                  Complex& x1, Complex& x2, Complex& x3) {
  const Complex sum = p1 + p3, difference = p1 - p3;  // a1 + a3 and a1 - a3, over f13
  x0 = fused_multiply_add(f13, sum, t0);
  x2 = fused_multiply_add(-f13, sum, t0);
  // t1 -+ i f13 difference
  x1 = {fused_multiply_add(f13, difference.im, t1.re), fused_multiply_add(-f13, difference.re, t1.im)};
  x3 = {fused_multiply_add(-f13, difference.im, t1.re), fused_multiply_add(f13, difference.re, t1.im)};
}

// A 4-point DFT in the shape the 16-point one below needs: inputs a0 and a2 = f2 p2,
// a1 = f13 p1, a3 = f13 p3, where the scale factors f are what is left of the twiddles once
// each has been written as a real factor times a vector that takes one instruction a component
// to make (an add, or an FMA with tan(pi/8)): the factors then ride on the DFT's own adds as
// FMAs, and no multiply remains.
HALO_HD void scaled_dft4(Complex a0, float f2, Complex p2, float f13, Complex p1, Complex p3, Complex& x0,
                         Complex& x1, Complex& x2, Complex& x3) {
  dft4_with_scaled_odd(fused_multiply_add(f2, p2, a0), fused_multiply_add(-f2, p2, a0), f13, p1, p3, x0, x1, x2, x3);
}

HALO_HD void dft4(Complex a0, Complex a1, Complex a2, Complex a3, Complex& x0, Complex& x1, Complex& x2, Complex& x3) {
  const Complex t0 = a0 + a2, t1 = a0 - a2, t2 = a1 + a3, t3 = a1 - a3;
  x0 = t0 + t2;
  x2 = t0 - t2;
  x1 = {t1.re + t3.im, t1.im - t3.re};  // t1 - i t3
  x3 = {t1.re - t3.im, t1.im + t3.re};  // t1 + i t3
}

// The forward 16-point DFT in natural order, as 4 x 4: 4-point DFTs over n1 of x[4 n1 + n2],
// the twiddles W^(n2 k1) (W = exp(-2 pi i / 16)), 4-point DFTs over n2, X[k1 + 4 k2].
// 144 instructions (64 adds, then 80 adds and FMAs), where the radix-2 form (small_dft) took
// 168 and multiplies: W^2 and W^6 are sqrt(1/2) times a sum and a difference, W^1, W^3 and
// W^9 cos(pi/8) times a vector made with one FMA with tan(pi/8) a component; W^4 is -i, a
// renaming.
HALO_HD void dft16_forward(Complex (&x)[16]) {
  constexpr float c = 0.92387953251128675613f;  // cos(pi/8)
  constexpr float t = 0.41421356237309504880f;  // tan(pi/8)
  constexpr float r = 0.70710678118654752440f;  // sqrt(1/2)
  Complex y[4][4];                              // y[n2][k1]
  HALO_UNROLL
  for (int n2 = 0; n2 < 4; ++n2) dft4(x[n2], x[4 + n2], x[8 + n2], x[12 + n2], y[n2][0], y[n2][1], y[n2][2], y[n2][3]);
  // y W^2 = r (re + im, im - re); y W^6 = r (im - re, -(re + im)).
  const auto w2 = [](Complex v) { return Complex{v.re + v.im, v.im - v.re}; };
  const auto w6 = [](Complex v) { return Complex{v.im - v.re, -(v.re + v.im)}; };
  // y W^1 = c (re + t im, im - t re); y W^3 = c (t re + im, t im - re); y W^9 = c (-re - t im, t re - im).
  const auto w1 = [&](Complex v) { return Complex{fused_multiply_add(t, v.im, v.re), fused_multiply_add(-t, v.re, v.im)}; };
  const auto w3 = [&](Complex v) { return Complex{fused_multiply_add(t, v.re, v.im), fused_multiply_add(t, v.im, -v.re)}; };
  const auto w9 = [&](Complex v) { return Complex{fused_multiply_add(-t, v.im, -v.re), fused_multiply_add(t, v.re, -v.im)}; };
  dft4(y[0][0], y[1][0], y[2][0], y[3][0], x[0], x[4], x[8], x[12]);
  scaled_dft4(y[0][1], r, w2(y[2][1]), c, w1(y[1][1]), w3(y[3][1]), x[1], x[5], x[9], x[13]);
  {  // k1 = 2: a2 = y W^4 = -i y (a renaming), a1 and a3 both times r
    const Complex a0 = y[0][2], a2{y[2][2].im, -y[2][2].re};
    dft4_with_scaled_odd(a0 + a2, a0 - a2, r, w2(y[1][2]), w6(y[3][2]), x[2], x[6], x[10], x[14]);
  }
  scaled_dft4(y[0][3], r, w6(y[2][3]), c, w3(y[1][3]), w9(y[3][3]), x[3], x[7], x[11], x[15]);
}

// Real and imaginary parts swapped (swap(z) = i conj(z)): a renaming of registers.
template <int N>
HALO_HD void swap_parts(Complex (&a)[N]) {
  HALO_UNROLL
  for (int i = 0; i < N; ++i) a[i] = {a[i].im, a[i].re};
}

// The 16-point DFT both ways: the inverse (conjugate roots, unnormalised) is the forward of
// the points with real and imaginary parts swapped, swapped back.
template <bool Inverse>
HALO_HD void dft16(Complex (&a)[16]) {
  if (Inverse) swap_parts(a);
  dft16_forward(a);
  if (Inverse) swap_parts(a);
}

// x exp(-2 pi i n / 32), n < 16 a constant once unrolled: n = 0 and 8 (-i) are renamings, 4
// and 12 the sqrt(1/2) forms of rotate16, the rest a complex product with constants.
HALO_HD Complex times_w32(Complex v, int n) {
  constexpr float c[16] = {1.0f, 0.98078528040323043f, 0.92387953251128674f, 0.83146961230254524f,
                           0.70710678118654752f, 0.55557023301960222f, 0.38268343236508977f, 0.19509032201612826f,
                           0.0f, -0.19509032201612826f, -0.38268343236508977f, -0.55557023301960222f,
                           -0.70710678118654752f, -0.83146961230254524f, -0.92387953251128674f, -0.98078528040323043f};
  switch (n) {
    case 0: return v;
    case 4: return rotate16<false>(v, 2);
    case 8: return rotate16<false>(v, 4);
    case 12: return rotate16<false>(v, 6);
    default: {  // (re + i im)(c - i s), sin(pi n / 16) = cos(pi (8 - n) / 16) = c[|8 - n|]
      const float s = c[n < 8 ? 8 - n : n - 8];
      return {fused_multiply_add(v.re, c[n], v.im * s), fused_multiply_add(v.im, c[n], -(v.re * s))};
    }
  }
}

// The forward 32-point DFT in natural order, as 2 x 16: X[2 m] is the 16-point DFT of
// x[n] + x[n + 16], X[2 m + 1] that of (x[n] - x[n + 16]) exp(-2 pi i n / 32).
HALO_HD void dft32_forward(Complex (&x)[32]) {
  Complex even[16], odd[16];
  HALO_UNROLL
  for (int n = 0; n < 16; ++n) {
    even[n] = x[n] + x[n + 16];
    odd[n] = times_w32(x[n] - x[n + 16], n);
  }
  dft16_forward(even);
  dft16_forward(odd);
  HALO_UNROLL
  for (int m = 0; m < 16; ++m) {
    x[2 * m] = even[m];
    x[2 * m + 1] = odd[m];
  }
}

// Both ways, as dft16: the inverse is the forward of the swapped points, swapped back.
template <bool Inverse>
HALO_HD void dft32(Complex (&a)[32]) {
  if (Inverse) swap_parts(a);
  dft32_forward(a);
  if (Inverse) swap_parts(a);
}

// DFT of the R <= 16 points a[o, o + R) in registers, natural order in and out: dft16 for
// R = 16, else radix-2 decimation in frequency with constant roots, the bit reversal being a
// renaming of registers (o and every index are constants once unrolled: no local memory).
// Forward: sum_n a[n] exp(-2 pi i n k / R); Inverse: the conjugate roots, unnormalised.
template <int R, bool Inverse>
HALO_HD void small_dft(Complex (&a)[16], int o) {
  if constexpr (R == 16) {  // o is 0
    dft16<Inverse>(a);
  } else {
    constexpr int bits = R == 2 ? 1 : R == 4 ? 2 : 3;
    HALO_UNROLL
    for (int stage = 0; stage < bits; ++stage) {
      const int half = R >> (stage + 1);
      HALO_UNROLL
      for (int i = 0; i < R; ++i) {
        if ((i & half) != 0) continue;
        const Complex u = a[o + i], w = a[o + i + half];
        a[o + i] = u + w;
        a[o + i + half] = rotate16<Inverse>(u - w, (i & (half - 1)) * (8 / half));  // exp(-+2 pi i k / (2 half))
      }
    }
    Complex b[R];
    HALO_UNROLL
    for (int i = 0; i < R; ++i) b[i] = a[o + reverse_bits(i, bits)];
    HALO_UNROLL
    for (int i = 0; i < R; ++i) a[o + i] = b[i];
  }
}

// ---------------------------------------------------------------- one thread's share of a pass

// Padded shared-memory index of point j of thread t in pass p.
// Written as the thread's padded base plus a constant per j (j is one once unrolled), so that
// every shared-memory access takes an immediate offset rather than index arithmetic of its own:
// the base (t / s) 16 s + t % s has base % 16 = t % s, and j s adds whole rows when s >= 16 or
// stays within the row when s < 16 (t % s + (j s) % 16 < 16), so the pad of the sum is the
// base's plus (j s) / 16. In the last pass, 16 t + j is row t.
// The same holds with rows of 32 in the wide shape (its strides are 1024 and 32, and its last
// pass's 32 consecutive points P t + j are row t).
template <int Log2>
HALO_HD int pass_index(int p, int t, int j) {
  constexpr int shift = fused_pad_shift(Log2);
  if (p == FusedShape<Log2>::passes - 1) return padded_for<Log2>(FusedShape<Log2>::last_points * t) + j;
  const int s = fused_pass_stride(Log2, p);
  return padded_for<Log2>((t / s) * fused_radix(Log2, p) * s + t % s) + j * s + ((j * s) >> shift);
}

template <int Log2, int N>
HALO_HD void load_pass(const Complex* z, int p, int t, Complex (&v)[N]) {
  HALO_UNROLL
  for (int j = 0; j < N; ++j) v[j] = z[pass_index<Log2>(p, t, j)];
}

template <int Log2, int N>
HALO_HD void store_pass(Complex* z, int p, int t, const Complex (&v)[N]) {
  HALO_UNROLL
  for (int j = 0; j < N; ++j) z[pass_index<Log2>(p, t, j)] = v[j];
}

// Twiddle k (1 <= k < 16) of thread t in pass p, exp(-2 pi i n2 k / N), from the four the
// table holds (k = 1, 2, 4, 8: w[b s] = exp(-2 pi i n2 2^b / N)): a product of at most four
// correctly rounded values, so within a few float roundings; 4 loads a pass instead of 15.
// k is a constant once unrolled.
// A radix-32 pass takes five (k = 1, 2, 4, 8, 16) and up to five factors.
template <int B>
HALO_HD Complex pass_twiddle(const Complex (&w)[B], int k) {
  Complex r{1.0f, 0.0f};
  HALO_UNROLL
  for (int b = 0; b < B; ++b)
    if (k & (1 << b)) r = (k & ((1 << b) - 1)) ? r * w[b] : w[b];
  return r;
}

template <int Log2, int B>
HALO_HD void load_twiddles(const Complex* twiddles, int p, int t, Complex (&w)[B]) {
  const int s = fused_pass_stride(Log2, p);
  const Complex* table = twiddles + fused_twiddle_offset(Log2, p) + t % s;
  HALO_UNROLL
  for (int b = 0; b < B; ++b) w[b] = read_only(table + b * s);
}

// The DFT of a pass's N points in registers: 16, or 32 in the wide shape's passes 1 and 2.
template <bool Inverse, int N>
HALO_HD void pass_dft(Complex (&v)[N]) {
  if constexpr (N == 32)
    dft32<Inverse>(v);
  else
    small_dft<16, Inverse>(v, 0);
}

// Pass p < passes - 1, forward: the N-point DFT, then the twiddles.
template <int Log2, int N>
HALO_HD void forward_pass(Complex (&v)[N], int p, int t, const Complex* twiddles) {
  Complex w[fused_radix_bits(N)];
  load_twiddles<Log2>(twiddles, p, t, w);
  pass_dft<false>(v);
  HALO_UNROLL
  for (int k = 1; k < N; ++k) v[k] = v[k] * pass_twiddle(w, k);
}

// Its inverse (unnormalised): conjugate twiddles, then the conjugate DFT.
template <int Log2, int N>
HALO_HD void inverse_pass(Complex (&v)[N], int p, int t, const Complex* twiddles) {
  Complex w[fused_radix_bits(N)];
  load_twiddles<Log2>(twiddles, p, t, w);
  HALO_UNROLL
  for (int k = 1; k < N; ++k) v[k] = v[k] * conjugate(pass_twiddle(w, k));
  pass_dft<true>(v);
}

// The last pass: 16 / r DFTs of r consecutive points, or the wide shape's one of 32.
template <int Log2, bool Inverse>
HALO_HD void last_pass(Complex (&v)[FusedShape<Log2>::last_points]) {
  constexpr int r = FusedShape<Log2>::last_radix;
  if constexpr (r == 32) {
    dft32<Inverse>(v);
  } else {
    HALO_UNROLL
    for (int group = 0; group < 16 / r; ++group) small_dft<r, Inverse>(v, group * r);
  }
}

// ---------------------------------------------------------------- the fused kernel's phases
// One step (segments 2 step and 2 step + 1) of one channel, thread t; a barrier between
// phases. z: FusedShape<Log2>::shared_points. The mask's spectrum is stored as the threads
// hold it in the last pass: point j of thread t at mask[j threads_of(last) + t] (coalesced).

// Calls f(stride) with the channel count as a compile-time constant for mono and stereo, else
// as the run-time value. A thread's 16 points of a segment lie Threads x channels samples
// apart: with a constant stride each load and store takes an immediate offset from one
// address, where a run-time stride cost one to five integer instructions an access (the PTX
// of the L = 2048 kernel: a 64-bit add a load, a multiply, a sign extension, a shift and an
// add a store), about a tenth of the kernel's instructions.
template <int N>
struct FixedStride {  // std::integral_constant's conversion is host code only
  HALO_HD constexpr operator int() const { return N; }
};
template <typename F>
HALO_HD void with_channel_stride(int channels, F&& f) {
  if (channels == 1)
    f(FixedStride<1>{});
  else if (channels == 2)
    f(FixedStride<2>{});
  else
    f(channels);
}

// The 16 points j Threads + t (j < 16) of step `step` (segments 2 step and 2 step + 1) of one
// channel, for the transform's pass 0 (stride Threads = L/16): point i holds x of the first
// segment (real part) and of the second (imaginary part), read straight into registers from
// the piece's own frames, or from the input ring for frames before the piece (piece_input;
// stream positions before 0 read as 0: the stream starts in silence).
// Index arithmetic in 32 bits (registers): a segment starts at most step + D frames (D the
// halo, overlap_save.hpp) before the piece and ends inside it, piece frames x channels stay
// below 2^23, and ring slots below 2^31. A step wholly inside the piece (all but a piece's
// first and last few) takes a branch without the per-point tests of piece_input and
// piece_output (a block-wide branch, so no divergence): the kernel is bound by instruction
// issue, and those tests cost a few instructions on each of a thread's 32 loads and 32 stores.
template <int Threads>
HALO_HD void load_step_points(const Geometry& g, const PieceHeader& h, long long step, const ChannelIo& io, int t,
                              Complex (&v)[16]) {
  const long long first = segment_input(g, 2 * step), second = first + g.hop_frames;
  const int mask = static_cast<int>(g.ring_frames - 1), channels = g.channels;
  const int slot_a = (first < 0 ? static_cast<int>(first) : static_cast<int>(first & mask)) + t;
  const int slot_b = (second < 0 ? static_cast<int>(second) : static_cast<int>(second & mask)) + t;
  const int frame_a = static_cast<int>(first - h.position) + t, frame_b = frame_a + static_cast<int>(g.hop_frames);
  const auto load = [&](auto input) {
    HALO_UNROLL
    for (int j = 0; j < 16; ++j) {  // pass 0: point j Threads + t
      const int i = j * Threads;
      v[j] = {input(frame_a + i, slot_a + i), input(frame_b + i, slot_b + i)};
    }
  };
  if (frame_a >= t)  // the step starts inside the piece (every step but the first few)
    with_channel_stride(channels, [&](auto stride) {
      const float* a = io.in + frame_a * stride;  // frame_a >= 0 here
      const float* b = io.in + frame_b * stride;
      HALO_UNROLL
      for (int j = 0; j < 16; ++j) v[j] = {a[j * Threads * stride], b[j * Threads * stride]};
    });
  else
    load([&](int frame, int slot) { return frame >= 0 ? io.in[frame * channels] : slot < 0 ? 0.0f : io.ring[slot & mask]; });
}

// Phase 1 of the fused kernel: the step's points (load_step_points), pass 0, into shared memory.
template <int Log2>
HALO_HD void fused_first_pass(const Geometry& g, const PieceHeader& h, long long step, const ChannelIo& io, Complex* z,
                              const Complex* twiddles, int t) {
  Complex v[16];
  load_step_points<FusedShape<Log2>::threads>(g, h, step, io, t, v);
  forward_pass<Log2>(v, 0, t, twiddles);
  store_pass<Log2>(z, 0, t, v);
}

// Phases of passes 0 < p < passes - 1, forward and inverse (the host twins run pass 0's too),
// thread t < FusedShape<Log2>::threads_of(p).
template <int Log2, bool Inverse, int N>
HALO_HD void fused_pass_phase(Complex* z, int p, const Complex* twiddles, int t) {
  Complex v[N];
  load_pass<Log2>(z, p, t, v);
  if constexpr (Inverse)
    inverse_pass<Log2>(v, p, t, twiddles);
  else
    forward_pass<Log2>(v, p, t, twiddles);
  store_pass<Log2>(z, p, t, v);
}

template <int Log2>
HALO_HD void fused_forward_phase(Complex* z, int p, const Complex* twiddles, int t) {
  if (fused_pass_points(Log2, p) == 32)  // a constant once unrolled
    fused_pass_phase<Log2, false, 32>(z, p, twiddles, t);
  else
    fused_pass_phase<Log2, false, 16>(z, p, twiddles, t);
}

template <int Log2>
HALO_HD void fused_inverse_phase(Complex* z, int p, const Complex* twiddles, int t) {
  if (fused_pass_points(Log2, p) == 32)
    fused_pass_phase<Log2, true, 32>(z, p, twiddles, t);
  else
    fused_pass_phase<Log2, true, 16>(z, p, twiddles, t);
}

// The middle phase: the forward's last pass, the product with the mask's spectrum and the
// inverse's first pass, all in registers.
template <int Log2>
HALO_HD void fused_middle_phase(Complex* z, const Complex* mask, int t) {
  using S = FusedShape<Log2>;
  constexpr int p = S::passes - 1, threads = S::threads_of(p), n = S::last_points;
  Complex v[n];
  load_pass<Log2>(z, p, t, v);
  last_pass<Log2, false>(v);
  HALO_UNROLL
  for (int j = 0; j < n; ++j) v[j] = v[j] * read_only(mask + j * threads + t);
  last_pass<Log2, true>(v);
  store_pass<Log2>(z, p, t, v);
}

// The inverse's pass 0 leaves point j Threads + t of the step's transform (L = 16 Threads) in
// register j: the first D points are discarded (the first Mmax - 1 spoilt by circular wrap),
// the next H are the two segments' outputs (real and imaginary parts), written straight into
// the piece's output frames, or into the output ring when a later piece emits them
// (piece_output).
template <int Threads>
HALO_HD void store_step_points(const Geometry& g, const PieceHeader& h, long long step, const ChannelIo& io, int t,
                               const Complex (&v)[16]) {
  const long long first = 2 * step * g.hop_frames, second = first + g.hop_frames;
  const int mask = static_cast<int>(g.out_ring_frames - 1), halo = static_cast<int>(g.halo_frames);
  const int channels = g.channels, frames = h.frames;
  const int slot_a = static_cast<int>(first & mask) + t - halo, slot_b = static_cast<int>(second & mask) + t - halo;
  const int frame_a = static_cast<int>(first + g.step_frames - h.position) + t - halo;
  const int frame_b = frame_a + static_cast<int>(g.hop_frames);
  const auto store = [&](auto output) {
    HALO_UNROLL
    for (int j = 0; j < 16; ++j) {
      const int i = j * Threads;
      if (i + t < halo) continue;
      output(frame_a + i, slot_a + i, v[j].re);
      output(frame_b + i, slot_b + i, v[j].im);
    }
  };
  if (frame_b - t + 16 * Threads - 1 < frames)  // every output in the piece (all but the last steps)
    with_channel_stride(channels, [&](auto stride) { store([&](int frame, int, float y) { io.out[frame * stride] = y; }); });
  else
    store([&](int frame, int slot, float y) {
      if (frame < frames)
        io.out[frame * channels] = y;
      else
        io.out_ring[slot & mask] = y;
    });
}

// The fused kernel's last phase: the inverse's pass 0, then the outputs (store_step_points).
template <int Log2>
HALO_HD void fused_last_pass(const Geometry& g, const PieceHeader& h, long long step, const Complex* z,
                             const ChannelIo& io, const Complex* twiddles, int t) {
  Complex v[16];
  load_pass<Log2>(z, 0, t, v);
  inverse_pass<Log2>(v, 0, t, twiddles);
  store_step_points<FusedShape<Log2>::threads>(g, h, step, io, t, v);
}

// ---------------------------------------------------------------- host side

// The two forms of a transform (see the top): a whole step, or a row of a split transform.
enum class FusedForm { step, row };

// Which bin of the DFT the forward transform leaves at position i (digit reversal: pass p's
// digit of the position, weight s_p, is the bin's digit of weight radix_0 ... radix_(p-1)).
std::size_t bin_at_position(std::size_t position, std::size_t fft_frames, FusedForm form = FusedForm::step);

// Shared-memory points (padded) the fused kernel and the host twins use for L.
std::size_t fused_shared_points(std::size_t fft_frames);

// Every pass's twiddle table for L in `form` (see the top), computed in double, rounded once.
std::vector<Complex> make_twiddles(std::size_t fft_frames, FusedForm form = FusedForm::step);

// Host twins of the whole transforms, through the same phase code (every thread of a pass,
// then the next pass): natural order in, digit-reversed order out (forward), and back
// (inverse, unnormalised). What the tests run.
void forward_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles,
                               FusedForm form = FusedForm::step);
void inverse_transform_on_host(Complex* z, std::size_t fft_frames, const Complex* twiddles,
                               FusedForm form = FusedForm::step);

}  // namespace halo::cuda
