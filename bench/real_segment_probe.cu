// A probe, not an engine: would the fused overlap-save kernel at 4095 taps run faster with one
// segment a block as a real transform than with its two segments a block as one complex one?
// The engine's 16384-point step fills 139 KiB of an SM's shared memory, so one block runs on
// each SM with 4 warps a scheduler (latency-bound: bench/FFT.md, fifteenth session). Here a
// block takes one segment of L = 16384 reals as N = 8192 complex pairs z[n] = x[2n] + i x[2n+1]
// (70 KiB of shared memory: three blocks an SM), runs the engine's own 8192-point passes
// (block_fft.hpp), pairs bins k and N - k for the product with the mask's real spectrum
// (real_spectrum.hpp, as cuda-fft's spectral pass does), and runs the passes back. Mono, one
// piece of N samples resident on the device, no rings: the engine's step without its plumbing.
// It checks its outputs against a direct convolution in double on the host, then times itself
// (median of 5 CUDA-event timings) for the comparison with `halo_bench fft`'s 4095-tap row.
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/real_segment_probe.cu cuda/fft/block_fft.cpp cuda/device/error.cu -o probe && ./probe
// H100, fifteenth session: 0.570 ms for 2^26 outputs against the engine's 0.434, so the engine
// keeps its two-segment steps (bench/FFT.md).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

#include "cuda/device/error.hpp"
#include "cuda/device/resources.hpp"
#include "cuda/fft/block_fft.hpp"
#include "cuda/fft/real_spectrum.hpp"

namespace {

using halo::cuda::Complex;
using halo::cuda::DeviceBuffer;
using halo::cuda::FusedShape;

constexpr int log2_n = 13;                  // N = 8192 complex points = L / 2
constexpr int n_points = 1 << log2_n;
constexpr int l_reals = 2 * n_points;       // L = 16384
constexpr int taps = 4095;
constexpr int hop = l_reals - taps + 1;     // outputs a segment
constexpr int block = 256;                  // two turns of the transform's 512 threads
using S = FusedShape<log2_n>;
constexpr int turns = S::threads / block;

// Where the forward passes leave bin k (the inverse of bin_at_position for N = 8192: passes of
// 16, 16, 16 and 2 points, strides 512, 32 and 2).
__host__ __device__ __forceinline__ int position_of_bin(int k) {
  return (k & 15) * 512 + ((k >> 4) & 15) * 32 + ((k >> 8) & 15) * 2 + (k >> 12);
}

// The transform's last pass (2-point DFTs), in place, every turn.
template <bool Inverse>
__device__ __forceinline__ void last_pass_in_turns(Complex* z) {
#pragma unroll
  for (int k = 0; k < turns; ++k) {
    const int t = k * block + threadIdx.x;
    Complex v[16];
    halo::cuda::load_pass<log2_n>(z, S::passes - 1, t, v);
    halo::cuda::last_pass<log2_n, Inverse>(v);
    halo::cuda::store_pass<log2_n>(z, S::passes - 1, t, v);
  }
}

// One segment a block: segment s reads x[s hop, s hop + L) and writes y[s hop + taps - 1, ...)
// as out[s hop, s hop + hop). w: W^k = exp(-2 pi i k / L), k <= N/2; mask: H[k] / L, k <= N.
__global__ void __launch_bounds__(block, 3)
    real_segment_kernel(const float* __restrict__ in, float* __restrict__ out, int segments,
                        const Complex* __restrict__ mask, const Complex* __restrict__ w,
                        const Complex* __restrict__ twiddles) {
  extern __shared__ Complex z[];
  const int s = blockIdx.x;
  if (s >= segments) return;
  const float2* x = reinterpret_cast<const float2*>(in + static_cast<long long>(s) * hop);  // hop is even
#pragma unroll
  for (int k = 0; k < turns; ++k) {
    const int t = k * block + threadIdx.x;
    Complex v[16];
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const float2 pair = x[j * S::threads + t];
      v[j] = {pair.x, pair.y};
    }
    halo::cuda::forward_pass<log2_n>(v, 0, t, twiddles);
    halo::cuda::store_pass<log2_n>(z, 0, t, v);
  }
  __syncthreads();
#pragma unroll
  for (int p = 1; p < S::passes - 1; ++p) {
#pragma unroll
    for (int k = 0; k < turns; ++k) halo::cuda::fused_forward_phase<log2_n>(z, p, twiddles, k * block + threadIdx.x);
    __syncthreads();
  }
  last_pass_in_turns<false>(z);
  __syncthreads();
  // The pairs (k, N - k), a warp's lanes on consecutive values of bin digit 1 (position
  // stride 32): consecutive k (digit 0, stride 512) would put 16 lanes on one bank.
  for (int i = threadIdx.x; i <= n_points / 2; i += block) {
    const int k = i < n_points / 2 ? ((i & 15) << 4 | (i >> 4 & 15) | (i & ~255)) : i;
    const int j = (n_points - k) & (n_points - 1);
    const int at_k = halo::cuda::padded_for<log2_n>(position_of_bin(k)),
              at_j = halo::cuda::padded_for<log2_n>(position_of_bin(j));
    const halo::cuda::SpectralPair v = halo::cuda::spectral_product(
        z[at_k], z[at_j], halo::cuda::read_only(w + k), halo::cuda::read_only(mask + k),
        halo::cuda::read_only(mask + n_points - k));
    z[at_k] = v.at_k;
    if (j != k && k != 0) z[at_j] = v.at_n_minus_k;
  }
  __syncthreads();
  last_pass_in_turns<true>(z);
  __syncthreads();
#pragma unroll
  for (int p = S::passes - 2; p >= 1; --p) {
#pragma unroll
    for (int k = 0; k < turns; ++k) halo::cuda::fused_inverse_phase<log2_n>(z, p, twiddles, k * block + threadIdx.x);
    __syncthreads();
  }
  float2* y = reinterpret_cast<float2*>(out + static_cast<long long>(s) * hop - (taps - 1));  // taps - 1 is even
#pragma unroll
  for (int k = 0; k < turns; ++k) {
    const int t = k * block + threadIdx.x;
    Complex v[16];
    halo::cuda::load_pass<log2_n>(z, 0, t, v);
    halo::cuda::inverse_pass<log2_n>(v, 0, t, twiddles);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const int n = j * S::threads + t;
      if (2 * n >= taps - 1) y[n] = make_float2(v[j].re, v[j].im);
    }
  }
}

int run_probe() {
  const long long samples = 1LL << 26;
  const int segments = static_cast<int>((samples - l_reals) / hop + 1);
  const long long outputs = static_cast<long long>(segments) * hop;
  std::mt19937 random(15);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(samples), h(taps);
  for (float& v : x) v = uniform(random);
  for (float& v : h) v = uniform(random) / 64.0f;

  // H[k] / L for k <= N, in double, rounded once; W^k for k <= N/2.
  const double pi = 3.14159265358979323846;
  std::vector<Complex> mask(n_points + 1), w(n_points / 2 + 1);
  for (int k = 0; k <= n_points; ++k) {
    double re = 0, im = 0;
    for (int m = 0; m < taps; ++m) {
      const double angle = -2.0 * pi * static_cast<double>((static_cast<long long>(k) * m) % l_reals) / l_reals;
      re += h[m] * std::cos(angle);
      im += h[m] * std::sin(angle);
    }
    mask[k] = {static_cast<float>(re / l_reals), static_cast<float>(im / l_reals)};
  }
  for (int k = 0; k <= n_points / 2; ++k)
    w[k] = {static_cast<float>(std::cos(-2.0 * pi * k / l_reals)), static_cast<float>(std::sin(-2.0 * pi * k / l_reals))};
  const std::vector<Complex> twiddles = halo::cuda::make_twiddles(n_points);
  for (int p = 0; p < n_points; ++p)
    if (position_of_bin(static_cast<int>(halo::cuda::bin_at_position(p, n_points))) != p) {
      std::fprintf(stderr, "probe: position_of_bin is not bin_at_position's inverse at %d\n", p);
      return 1;
    }

  const DeviceBuffer<float> d_in(samples), d_out(samples);
  const DeviceBuffer<Complex> d_mask(mask.size()), d_w(w.size()), d_twiddles(twiddles.size());
  HALO_CUDA_CHECK(cudaMemcpy(d_in.get(), x.data(), d_in.bytes(), cudaMemcpyHostToDevice));
  HALO_CUDA_CHECK(cudaMemcpy(d_mask.get(), mask.data(), d_mask.bytes(), cudaMemcpyHostToDevice));
  HALO_CUDA_CHECK(cudaMemcpy(d_w.get(), w.data(), d_w.bytes(), cudaMemcpyHostToDevice));
  HALO_CUDA_CHECK(cudaMemcpy(d_twiddles.get(), twiddles.data(), d_twiddles.bytes(), cudaMemcpyHostToDevice));
  HALO_CUDA_CHECK(cudaMemset(d_out.get(), 0, d_out.bytes()));
  const std::size_t shared = halo::cuda::fused_shared_points(n_points) * sizeof(Complex);
  HALO_CUDA_CHECK(
      cudaFuncSetAttribute(real_segment_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  int resident = 0;
  HALO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, real_segment_kernel, block, shared));
  const auto run = [&] {
    real_segment_kernel<<<segments, block, shared>>>(d_in.get(), d_out.get() + (taps - 1), segments, d_mask.get(),
                                                     d_w.get(), d_twiddles.get());
    HALO_CUDA_CHECK_LAUNCH("real_segment_kernel");
  };

  // out[i] = y[i + taps - 1] = sum_m h[m] x[i + taps - 1 - m]: checked at 4096 spread outputs.
  run();
  HALO_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> y(outputs);
  HALO_CUDA_CHECK(cudaMemcpy(y.data(), d_out.get() + (taps - 1), outputs * sizeof(float), cudaMemcpyDeviceToHost));
  double error = 0, norm = 0;
  for (long long i = 0; i < outputs; i += outputs / 4096) {
    double reference = 0;
    for (int m = 0; m < taps; ++m) reference += static_cast<double>(h[m]) * x[i + taps - 1 - m];
    error += (y[i] - reference) * (y[i] - reference);
    norm += reference * reference;
  }

  const halo::cuda::Event start(true), stop(true);
  std::vector<float> times;
  for (int r = 0; r < 5; ++r) {
    start.record(nullptr);
    run();
    stop.record(nullptr);
    stop.synchronize();
    float ms = 0;
    HALO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  cudaDeviceProp prop;
  HALO_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s; %d taps, L %d as %d complex points, %d segments of %d outputs, %d blocks an SM\n", prop.name,
              taps, l_reals, n_points, segments, hop, resident);
  std::printf("relative error against the direct convolution (4096 outputs): %.2e\n", std::sqrt(error / norm));
  std::printf("median %.4f ms (min %.4f, max %.4f) for %lld outputs; for N = 2^26 outputs %.4f ms\n", times[2], times[0],
              times[4], outputs, times[2] * static_cast<double>(samples) / static_cast<double>(outputs));
  return 0;
}

}  // namespace

int main() {
  try {
    return run_probe();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "probe: %s\n", e.what());
    return 1;
  }
}
