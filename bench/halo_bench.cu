// halo_bench: times every CUDA kernel (and the CPU engine) with CUDA events and prints one
// markdown table, each row as a fraction of the two ceilings this program measures on the
// same device in the same run:
//   copy ceiling: a large device-to-device cudaMemcpy, bytes read + bytes written per second;
//                 a convolution moves at least N*4 bytes in and N*4 out, so
//                 % copy = (8 N / t) / copy ceiling.
//   FMA ceiling:  a kernel of independent FP32 FMA chains; a direct convolution does N*M FMAs,
//                 so % FMA = (2 N M / t) / FMA ceiling (real M, not the padded one).
// Inputs are random (never zeros); when one input/output set fits in L2, the timed launches
// rotate over enough sets to span twice the L2. Each figure is the median of several timed
// replays of a batch of calls captured as a CUDA graph, after a warm-up.
//
// Usage: halo_bench [small|blocks|large|stream|variants|all]...   (default: all but variants)
//   small:  N = 51200, 256 threads, masks 1 3 7 33 65 129 155 255, every kernel + CPU engine
//   blocks: N = 51200, block sizes 32..1024 at masks 63 and 255, the seeds' kernels
//   large:  N = 2^26 resident on the device, M in 15 63 255 1023 4095 16383, every kernel
//   stream: the cuda-fast engine host to host (pinned staging, streams), stereo, 255 taps
//   fft:    cuda-fft and cuda-fft-fused on N = 2^26 resident on the device, M in 255 1023
//           4095 16383 65535 2^20 (fused: up to 8192)
//   variants: other shapes of the fast kernel at N = 2^26 (tuning)
//   short:  every fast shape at N = 2^26, masks 15 31 63 95 127 (the short-mask kernel)
//   profile: one untimed cuda-fast launch at 63 and 255 taps (for ncu)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/device/error.hpp"
#include "cuda/device/gpu_device.hpp"
#include "cuda/device/resources.hpp"
#include "cuda/direct/direct_engine.hpp"
#include "cuda/direct/kernels.cuh"
#include "cuda/fft/fft_engine.hpp"
#include "fast_variants.hpp"
#include "src/engine/cpu_direct_engine.hpp"

using namespace halo::cuda;
using halo::bench::fast_variant_count;
using halo::bench::fast_variant_name;

namespace {

// ---- ceilings ---------------------------------------------------------------------------

// Independent FMA chains per thread: enough to cover the FMA latency at any occupancy.
constexpr int peak_chains = 8;
__global__ void fma_peak_kernel(float* out, float a, float b, int iterations) {
  float v[peak_chains];
#pragma unroll
  for (int j = 0; j < peak_chains; ++j) v[j] = threadIdx.x * 1e-3f + j;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < 16; ++u) {
#pragma unroll
      for (int j = 0; j < peak_chains; ++j) v[j] = fmaf(v[j], a, b);
    }
  }
  float sum = 0;
#pragma unroll
  for (int j = 0; j < peak_chains; ++j) sum += v[j];
  if (sum == 1234.5f) out[0] = sum;  // never true; keeps the chains alive
}

// Random values in [-1, 1), never zero, from a hash of the index.
__global__ void fill_random_kernel(float* x, std::size_t count, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed * 2246822519u ^ static_cast<unsigned>(i >> 32);
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    h *= 3266489917u;
    h ^= h >> 16;
    const float u = (h >> 8) * (1.0f / 16777216.0f);  // [0, 1)
    x[i] = u == 0.5f ? 0.25f : 2.0f * u - 1.0f;
  }
}

void fill_random(float* x, std::size_t count, unsigned seed) {
  fill_random_kernel<<<1024, 256>>>(x, count, seed);
  HALO_CUDA_CHECK_LAUNCH("fill_random_kernel");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

cudaStream_t bench_stream = nullptr;  // every timed call runs here (graph capture needs a real stream)

// Median ms per call of `body(i)` (i counts calls, to rotate buffers), enqueued on
// bench_stream: a warm-up, one timed call to size the batches, then one batch captured as a
// CUDA graph (launch gaps of back-to-back small kernels otherwise dominate) and replayed
// several times between events.
template <typename Body>
double time_ms(Body body, double target_batch_ms = 2.0, int max_reps = 25, double budget_ms = 1500.0) {
  cudaStream_t stream = bench_stream;
  Event start(true), stop(true);
  long call = 0;
  body(call++);
  body(call++);
  HALO_CUDA_CHECK(cudaStreamSynchronize(stream));
  start.record(stream);
  body(call++);
  stop.record(stream);
  stop.synchronize();
  float one = 0;
  HALO_CUDA_CHECK(cudaEventElapsedTime(&one, start.get(), stop.get()));
  const int batch = std::clamp(static_cast<int>(std::ceil(target_batch_ms / std::max(one, 1e-4f))), 1, 2000);
  const int reps = std::clamp(static_cast<int>(budget_ms / (batch * std::max(one, 1e-4f))), 3, max_reps);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  HALO_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  for (int b = 0; b < batch; ++b) body(call++);
  HALO_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  HALO_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  HALO_CUDA_CHECK(cudaGraphLaunch(exec, stream));  // warm
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    start.record(stream);
    HALO_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    stop.record(stream);
    stop.synchronize();
    float ms = 0;
    HALO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    times.push_back(ms / batch);
  }
  HALO_CUDA_CHECK(cudaGraphExecDestroy(exec));
  HALO_CUDA_CHECK(cudaGraphDestroy(graph));
  return median(times);
}

struct Ceilings {
  double copy_bytes_per_s = 0;  // read + write
  double fma_flop_per_s = 0;
};

Ceilings measure_ceilings(const cudaDeviceProp& prop) {
  Ceilings c;
  const std::size_t count = std::size_t{1} << 26;
  DeviceBuffer<float> a(count), b(count);
  fill_random(a.get(), count, 1);
  HALO_CUDA_CHECK(cudaDeviceSynchronize());
  const double copy_ms = time_ms([&](long) {
    HALO_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), count * sizeof(float), cudaMemcpyDeviceToDevice, bench_stream));
  });
  c.copy_bytes_per_s = 2.0 * count * sizeof(float) / (copy_ms * 1e-3);

  DeviceBuffer<float> sink(1);
  const int threads = 256, blocks = prop.multiProcessorCount * 8, iterations = 4096;
  const double fma_ms = time_ms([&](long) {
    fma_peak_kernel<<<blocks, threads, 0, bench_stream>>>(sink.get(), 0.9999f, 1e-4f, iterations);
    HALO_CUDA_CHECK_LAUNCH("fma_peak_kernel");
  });
  const double flop = 2.0 * blocks * threads * double(iterations) * 16 * peak_chains;
  c.fma_flop_per_s = flop / (fma_ms * 1e-3);
  std::printf("copy ceiling: %.3f ms for 2 x %zu MiB -> %.0f GB/s (read + write)\n", copy_ms,
              count * sizeof(float) >> 20, c.copy_bytes_per_s / 1e9);
  std::printf("FMA ceiling:  %.3f ms for %.1f GFLOP -> %.1f TFLOP/s (FP32 FMA)\n", fma_ms, flop / 1e9,
              c.fma_flop_per_s / 1e12);
  return c;
}

// ---- rows -------------------------------------------------------------------------------

struct Row {
  std::string experiment, engine;
  std::size_t taps, n;
  int block;
  double ms;
  bool gpu;
};
std::vector<Row> rows;
Ceilings ceilings;

void print_row(const Row& r) {
  const double gs = r.n / (r.ms * 1e-3) / 1e9;
  char copy[32] = "—", fma[32] = "—";
  if (r.gpu) {
    std::snprintf(copy, sizeof copy, "%.1f", 100.0 * (8.0 * r.n / (r.ms * 1e-3)) / ceilings.copy_bytes_per_s);
    std::snprintf(fma, sizeof fma, "%.1f", 100.0 * (2.0 * r.n * r.taps / (r.ms * 1e-3)) / ceilings.fma_flop_per_s);
  }
  char block[16] = "—";
  if (r.block > 0) std::snprintf(block, sizeof block, "%d", r.block);
  std::printf("| %s | %s | %zu | %zu | %s | %.4f | %.2f | %s | %s |\n", r.experiment.c_str(), r.engine.c_str(),
              r.taps, r.n, block, r.ms, gs, copy, fma);
}

void add(Row r) {
  print_row(r);  // as it comes, so a killed run still shows what it measured
  std::fflush(stdout);
  rows.push_back(std::move(r));
}

// Resident planar buffers for one N, rotated when a set fits in L2.
struct Resident {
  std::size_t n, halo, x_span;
  int sets;
  DeviceBuffer<float> x, y;
  Resident(std::size_t frames, std::size_t l2_bytes) : n(frames) {
    halo = halo_frames(Kernel::fast, max_constant_taps);
    // Room for the largest fast variant's granule (8192 outputs) past n.
    x_span = (halo + (n + 8192 - 1) / 8192 * 8192 + read_slack_frames + 31) / 32 * 32;
    const double set_bytes = 8.0 * n;
    sets = std::clamp(static_cast<int>(std::ceil(2.0 * l2_bytes / set_bytes)), 1, 512);
    x = DeviceBuffer<float>(x_span * sets);
    y = DeviceBuffer<float>((n + frame_granule) * sets);
    fill_random(x.get(), x.size(), 7);
    fill_random(y.get(), y.size(), 8);  // not zeros: a kernel that writes nothing shows
    HALO_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

std::vector<float> random_taps(std::size_t m, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> taps(m);
  for (auto& t : taps) t = u(rng) / std::sqrt(float(m));
  return taps;
}

// A random M-tap mask, padded for `kernel`, in a lease of GPU 0's constant bank (at offset 0:
// nothing else holds one while the benchmark times kernels) and in `global_taps` (basic).
BankLease upload_random_taps(Kernel kernel, std::size_t m, DeviceBuffer<float>* global_taps = nullptr) {
  auto taps = random_taps(m, static_cast<unsigned>(m));
  taps.resize(padded_taps(kernel, m), 0.0f);
  BankLease lease = GpuDevice::get(0).lease_bank(taps.size());
  upload_taps(lease.offset(), taps.data(), taps.size(), bench_stream);
  if (global_taps)
    HALO_CUDA_CHECK(cudaMemcpy(global_taps->get(), taps.data(), taps.size() * sizeof(float), cudaMemcpyHostToDevice));
  HALO_CUDA_CHECK(cudaDeviceSynchronize());
  return lease;
}

// Times `kernel` over `res` with an M-tap random mask.
double time_kernel(Kernel kernel, Resident& res, std::size_t m, int block, DeviceBuffer<float>& global_taps) {
  const BankLease lease = upload_random_taps(kernel, m, &global_taps);
  const ConvolutionPlan plan =
      plan_convolution(kernel, padded_taps(kernel, m), lease.offset() != 0, block, GpuDevice::get(0));
  PlanarLaunch p;
  p.frames = res.n;
  p.tap_base = static_cast<int>(lease.offset());
  p.global_taps = global_taps.get();
  const bool slow = kernel != Kernel::fast && m >= 4095 && res.n > (1u << 20);
  return time_ms(
      [&](long call) {
        const int set = static_cast<int>(call % res.sets);
        p.x = res.x.get() + set * res.x_span + res.halo;
        p.y = res.y.get() + set * (res.n + frame_granule);
        HALO_CUDA_CHECK(launch_convolution(plan, p, bench_stream));
      },
      2.0, slow ? 3 : 25, slow ? 500.0 : 1500.0);
}

// The fast kernel's other shapes (tuning), at N = 2^26.
void experiment_variants(const cudaDeviceProp& prop, std::vector<std::size_t> masks, const char* name) {
  const std::size_t n = std::size_t{1} << 26;
  Resident res(n, prop.l2CacheSize);
  for (std::size_t m : masks) {
    auto taps = random_taps(m, static_cast<unsigned>(m));
    const std::size_t padded = padded_taps(Kernel::fast, m);
    taps.resize(padded, 0.0f);
    halo::bench::upload_variant_taps(taps.data(), padded);
    for (int v = 0; v < fast_variant_count(); ++v) {
      const ConvolutionPlan plan = halo::bench::plan_fast_variant(v, padded, GpuDevice::get(0));
      PlanarLaunch p;
      p.frames = n;
      p.x = res.x.get() + res.halo;
      p.y = res.y.get();
      const double ms = time_ms([&](long) { HALO_CUDA_CHECK(launch_convolution(plan, p, bench_stream)); });
      add({name, fast_variant_name(v), m, n, 0, ms, true});
    }
  }
}

// One untimed launch of cuda-fast at each of a few mask lengths, for `ncu` to profile.
void experiment_profile(const cudaDeviceProp& prop) {
  const std::size_t n = std::size_t{1} << 26;
  Resident res(n, prop.l2CacheSize);
  for (std::size_t m : {63, 255}) {
    const BankLease lease = upload_random_taps(Kernel::fast, m);
    const ConvolutionPlan plan =
        plan_convolution(Kernel::fast, padded_taps(Kernel::fast, m), lease.offset() != 0, 256, GpuDevice::get(0));
    PlanarLaunch p;
    p.frames = n;
    p.tap_base = static_cast<int>(lease.offset());
    p.x = res.x.get() + res.halo;
    p.y = res.y.get();
    HALO_CUDA_CHECK(launch_convolution(plan, p, bench_stream));
    HALO_CUDA_CHECK(cudaStreamSynchronize(bench_stream));
  }
}

constexpr Kernel all_kernels[] = {Kernel::basic, Kernel::constant, Kernel::tiled, Kernel::cached, Kernel::fast};

// Throws with the engine's reason when process() failed.
void check(const halo::Engine& engine, halo::Status status) {
  if (status != halo::Status::ok) throw std::runtime_error(engine.name() + ": " + engine.failure());
}

double time_cpu(std::size_t n, std::size_t m) {
  halo::CpuDirectEngine cpu;
  halo::filters::Mask mask;
  mask.taps = random_taps(m, static_cast<unsigned>(m));
  cpu.prepare({1, n, m, 48000});
  cpu.set_taps(halo::TapSet::from_masks({mask}, 1));
  std::vector<float> in(n), out(n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : in) v = u(rng);
  std::vector<double> times;
  check(cpu, cpu.process(in.data(), out.data(), n));
  for (int r = 0; r < 11; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    check(cpu, cpu.process(in.data(), out.data(), n));
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(times);
}

void experiment_small(const cudaDeviceProp& prop, DeviceBuffer<float>& gtaps) {
  const std::size_t n = 51200;
  Resident res(n, prop.l2CacheSize);
  for (std::size_t m : {1, 3, 7, 33, 65, 129, 155, 255}) {
    for (Kernel k : all_kernels) add({"small", engine_name(k), m, n, k == Kernel::fast ? 0 : 256, time_kernel(k, res, m, 256, gtaps), true});
    add({"small", "cpu", m, n, 0, time_cpu(n, m), false});
  }
}

void experiment_blocks(const cudaDeviceProp& prop, DeviceBuffer<float>& gtaps) {
  const std::size_t n = 51200;
  Resident res(n, prop.l2CacheSize);
  for (std::size_t m : {63, 255})
    for (int block : {32, 64, 128, 256, 512, 1024})
      for (Kernel k : {Kernel::basic, Kernel::constant, Kernel::tiled, Kernel::cached})
        add({"blocks", engine_name(k), m, n, block, time_kernel(k, res, m, block, gtaps), true});
}

void experiment_large(const cudaDeviceProp& prop, DeviceBuffer<float>& gtaps) {
  const std::size_t n = std::size_t{1} << 26;
  Resident res(n, prop.l2CacheSize);
  for (std::size_t m : {15, 63, 255, 1023, 4095, 16383})
    for (Kernel k : all_kernels)
      add({"large", engine_name(k), m, n, k == Kernel::fast ? 0 : 256, time_kernel(k, res, m, 256, gtaps), true});
}

// A comma list of numbers from environment variable `name`, or `all` when it is unset: narrows
// a benchmark's rows (for ncu). HALO_BENCH_TAPS (fft, fft-batch), HALO_BENCH_BATCH_LOG2 (fft-batch);
// HALO_BENCH_FUSED_ONLY (set: fft leaves cuda-fft's rows out); HALO_BENCH_HELPER (fft: the
// counts of steps beside the cluster kernel timed as `helper N` rows; default 0, the cluster
// kernel alone).
std::vector<std::size_t> env_list(const char* name, std::vector<std::size_t> all) {
  const char* text = std::getenv(name);
  if (!text) return all;
  std::vector<std::size_t> picked;
  for (const char* p = text; *p;) {
    char* end = nullptr;
    picked.push_back(std::strtoull(p, &end, 10));
    p = *end ? end + 1 : end;
  }
  return picked;
}

// cuda-fft and cuda-fft-fused on the same N = 2^26 samples resident on the device (one
// channel): the engines' whole device pass (into the input ring, transforms, out of the output
// ring; process_on_device, on the benchmark's stream), in calls of the engine's piece (its
// preferred block, at most 2^24 frames), timed with events around the calls, median of 5
// after 2 warm-ups; the host's time to queue the calls is printed beside. The input is
// random; the output buffer is random too until the first call writes it.
// One FFT engine (`fft_frames` 0: its model's size) over the N samples `in` -> `out`, as
// described above (as N / channels interleaved frames: the rows marked stereo, which time how
// the channels' blocks share the input's lines); prints the geometry line and returns the
// engine's name and median ms.
struct FftTiming {
  std::string engine;
  double ms;
};
FftTiming time_fft_engine(FftMethod method, std::size_t fft_frames, std::size_t m, const float* in, float* out,
                       std::size_t n, std::size_t batch_samples = 0, long long hop_multiple = 0,
                       bool split_in_three = false, int prefetch_waves = -1, int channels = 1,
                       long long helper_steps = -1) {
  halo::filters::Mask mask;
  mask.taps = random_taps(m, static_cast<unsigned>(m));
  auto engine = make_fft_engine(method, {},
                                FftTuning{batch_samples, fft_frames, hop_multiple, split_in_three, prefetch_waves, helper_steps});
  const std::size_t largest_block = std::size_t{1} << 24;
  const std::size_t frames = n / static_cast<std::size_t>(channels);
  const auto preparing = std::chrono::steady_clock::now();
  engine->prepare({channels, largest_block, m, 48000});
  const double prepare_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - preparing).count();
  engine->set_taps(halo::TapSet::from_masks({mask}, static_cast<std::size_t>(channels)));
  // Calls of the engine's piece: a call of 2^24 frames was a piece of 14.7 M frames and
  // one of 2.1 M for the fused engine at 255 taps, a partial wave of blocks every call.
  const std::size_t call = std::min(largest_block, engine->preferred_block_frames());
  Event start(true), stop(true);
  std::vector<double> times, queueing;
  for (int r = 0; r < 7; ++r) {
    start.record(bench_stream);
    const auto queued = std::chrono::steady_clock::now();
    for (std::size_t at = 0; at < frames; at += call)
      check(*engine, process_on_device(*engine, in + at * channels, out + at * channels, std::min(call, frames - at),
                                       bench_stream));
    stop.record(bench_stream);
    if (r >= 2) queueing.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - queued).count());
    stop.synchronize();
    float ms = 0;
    HALO_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    if (r >= 2) times.push_back(ms);
  }
  const Geometry& g = geometry_of(*engine);
  const std::string name = engine->name();
  std::printf("fft: %s, %d channel(s), %zu taps: L %lld%s, hop %lld, %lld steps a batch, latency %lld frames; prepare %.1f ms; the "
              "host queued the calls of %zu frames in %.3f ms; prefetch %lld steps ahead; median %.3f ms\n",
              name.c_str(), channels, m, g.fft_frames, fft_frames ? " (forced)" : " (the model's)", g.hop_frames, g.batch_steps,
              g.step_frames, prepare_ms, call, median(queueing), g.prefetch_steps, median(times));
  return {name, median(times)};
}

void experiment_fft() {
  const std::size_t n = std::size_t{1} << 26;
  DeviceBuffer<float> in(n), out(n);
  fill_random(in.get(), n, 11);
  fill_random(out.get(), n, 12);
  HALO_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t m : env_list("HALO_BENCH_TAPS", {255, 1023, 4095, 16383, 65535, 131071, std::size_t{1} << 20})) {
    // Each engine at its cost model's FFT size (the registry's), then cuda-fft at half and
    // twice that size and the fused kernel at the other sizes it could take (2x to 32x the
    // mask), to check the models' choices.
    struct Run {
      FftMethod method;
      std::size_t fft_frames;     // 0: the model's
      long long hop_multiple = 0;  // 1: the unaligned hop (overlap_save.hpp's aligned_hop_frames)
      bool split_in_three = false;  // a split L as three kernels rather than one cluster kernel
      int prefetch_waves = -1;      // FftTuning's; -1: the engine's choice
      int channels = 1;             // 2: the same N samples as N/2 stereo frames (interleaved)
      long long helper_steps = -1;  // FftTuning's: the three kernels' steps beside the cluster kernel; -1: the engine's
      std::size_t batch_samples = 0;  // FftTuning's; 0: the engine's (whole waves)
    };
    std::vector<Run> runs;
    if (!std::getenv("HALO_BENCH_FUSED_ONLY")) {
      runs = {{FftMethod::cufft, 0}, {FftMethod::cufft, 0, 1}};
      const std::size_t model_cufft = cufft_fft_frames(m);  // and half and twice its size
      if (model_cufft / 2 >= 2 * m && model_cufft / 2 >= min_cufft_fft_frames) runs.push_back({FftMethod::cufft, model_cufft / 2});
      if (model_cufft * 2 <= max_cufft_fft_frames) runs.push_back({FftMethod::cufft, model_cufft * 2});
    }
    if (m <= max_fused_mask_frames) {
      runs.push_back({FftMethod::fused, 0});
      runs.push_back({FftMethod::fused, 0, 1});
      if (fused_split(static_cast<long long>(fused_fft_frames(m)))) {
        runs.push_back({FftMethod::fused, 0, 0, true});
        // What the three kernels beside the cluster kernel gain (0: the cluster kernel alone),
        // and other counts of their steps (HALO_BENCH_HELPER) against the engine's choice.
        for (std::size_t helper : env_list("HALO_BENCH_HELPER", {0}))
          for (int channels : {1, 2}) runs.push_back({FftMethod::fused, 0, 0, false, -1, channels, static_cast<long long>(helper)});
      }
      for (int waves : {0, 1, 2}) runs.push_back({FftMethod::fused, 0, 0, false, waves});  // the L2 prefetch's reach
      // Pieces of 2^24 samples, as before the one-block kernel's pieces were whole waves.
      if (!fused_split(static_cast<long long>(fused_fft_frames(m))))
        runs.push_back({FftMethod::fused, 0, 0, false, -1, 1, -1, fused_batch_samples});
      runs.push_back({FftMethod::fused, 0, 0, false, -1, 2});
      for (std::size_t l = min_fused_fft_frames; l <= max_fused_fft_frames; l *= 2)
        if (l >= 2 * m && l <= 32 * m && l != fused_fft_frames(m)) runs.push_back({FftMethod::fused, l});
    }
    for (const Run& run : runs) {
      const FftTiming t =
          time_fft_engine(run.method, run.fft_frames, m, in.get(), out.get(), n, run.batch_samples, run.hop_multiple,
                          run.split_in_three, run.prefetch_waves, run.channels, run.helper_steps);
      add({"fft", t.engine + (run.fft_frames ? " L=" + std::to_string(run.fft_frames) : "") +
                      (run.hop_multiple == 1 ? " hop unaligned" : "") + (run.split_in_three ? " three kernels" : "") +
                      (run.prefetch_waves >= 0 ? " prefetch " + std::to_string(run.prefetch_waves) + " waves" : "") +
                      (run.channels == 2 ? " stereo" : "") +
                      (run.helper_steps >= 0 ? " helper " + std::to_string(run.helper_steps) : "") +
                      (run.batch_samples ? " batch 2^24" : ""),
           m, n, 0, t.ms, true});
    }
  }
}

// cuda-fft's batch (the samples one piece transforms at once) against its time, as `fft` times
// it. Smaller batches (segments and spectra in the L2 cache) are bound by the host's cost per
// piece (about 55 us: the launches and cuFFT's own).
void experiment_fft_batch() {
  const std::size_t n = std::size_t{1} << 26;
  DeviceBuffer<float> in(n), out(n);
  fill_random(in.get(), n, 11);
  fill_random(out.get(), n, 12);
  HALO_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t m : env_list("HALO_BENCH_TAPS", {4095, 16383, 65535, std::size_t{1} << 20}))
    for (std::size_t batch_log2 : env_list("HALO_BENCH_BATCH_LOG2", {19, 20, 21, 22, 23})) {
      const std::size_t batch = std::size_t{1} << batch_log2;
      if (batch < cufft_fft_frames(m)) continue;
      for (const FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
        if (method == FftMethod::fused && (m > max_fused_mask_frames || !std::getenv("HALO_BENCH_FUSED"))) continue;
        const FftTiming t = time_fft_engine(method, 0, m, in.get(), out.get(), n, batch);
        add({"fft-batch", t.engine + " batch=2^" + std::to_string(batch_log2), m, n, 0, t.ms, true});
      }
    }
}

// Where cuda-fast hands over to cuda-fft-fused (auto's table, src/engine/crossover.cpp): both
// at the mask lengths around it, N = 2^26 on the device, as `large` and `fft` time them.
void experiment_crossover(const cudaDeviceProp& prop, DeviceBuffer<float>& gtaps) {
  const std::size_t n = std::size_t{1} << 26;
  Resident res(n, prop.l2CacheSize);
  DeviceBuffer<float> in(n), out(n);
  fill_random(in.get(), n, 13);
  HALO_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t m : {63, 79, 95, 111, 127, 159, 191, 255}) {
    add({"crossover", engine_name(Kernel::fast), m, n, 0, time_kernel(Kernel::fast, res, m, 256, gtaps), true});
    const FftTiming fused = time_fft_engine(FftMethod::fused, 0, m, in.get(), out.get(), n);
    add({"crossover", fused.engine, m, n, 0, fused.ms, true});
  }
}

// The engine as the pipeline uses it: pageable host memory in and out, stereo, chunks.
void experiment_stream() {
  const int channels = 2;
  const std::size_t chunk = std::size_t{1} << 18, frames = std::size_t{1} << 24;
  std::vector<float> in(frames * channels), out(frames * channels);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : in) v = u(rng);
  halo::filters::Mask mask;
  mask.taps = random_taps(255, 255);
  auto engine = make_engine(Kernel::fast);
  engine->prepare({channels, chunk, mask.taps.size(), 48000});
  engine->set_taps(halo::TapSet::from_masks({mask}, channels));
  std::vector<double> times;
  for (int r = 0; r < 4; ++r) {
    engine->reset();
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t done = 0; done < frames; done += chunk)
      check(*engine, engine->process(in.data() + done * channels, out.data() + done * channels, chunk));
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  // N counts samples (frames x channels); "% copy" here is of the device copy ceiling.
  add({"stream", "cuda-fast engine, host to host, 2 ch, chunks 2^18", 255, frames * channels, 0, median(times), false});

  // The pinned transfer rates that bound it.
  PinnedBuffer<float> host(chunk * channels);
  DeviceBuffer<float> dev(chunk * channels);
  const double h2d = time_ms([&](long) {
    HALO_CUDA_CHECK(cudaMemcpyAsync(dev.get(), host.get(), chunk * channels * 4, cudaMemcpyHostToDevice, bench_stream));
  });
  const double d2h = time_ms([&](long) {
    HALO_CUDA_CHECK(cudaMemcpyAsync(host.get(), dev.get(), chunk * channels * 4, cudaMemcpyDeviceToHost, bench_stream));
  });
  std::printf("pinned H2D %.1f GB/s, D2H %.1f GB/s (%zu KiB copies)\n", chunk * channels * 4 / (h2d * 1e-3) / 1e9,
              chunk * channels * 4 / (d2h * 1e-3) / 1e9, chunk * channels * 4 / 1024);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> what;
    for (int i = 1; i < argc; ++i) what.push_back(argv[i]);
    if (what.empty() || std::find(what.begin(), what.end(), "all") != what.end())
      what = {"small", "blocks", "large", "stream", "fft"};
    std::string why;
    if (!device_usable(0, &why)) {
      std::fprintf(stderr, "halo_bench: %s\n", why.c_str());
      return 1;
    }
    HALO_CUDA_CHECK(cudaSetDevice(0));
    Stream stream;
    bench_stream = stream.get();
    cudaDeviceProp prop{};
    HALO_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, %d SMs, L2 %d MiB, CC %d.%d\n", prop.name, prop.multiProcessorCount,
                prop.l2CacheSize >> 20, prop.major, prop.minor);
    ceilings = measure_ceilings(prop);
    DeviceBuffer<float> gtaps(max_constant_taps);
    std::printf("\n| experiment | engine | taps | N | block | ms | Gsamples/s | %% copy ceiling | %% FMA ceiling |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const auto& w : what) {
      if (w == "small") experiment_small(prop, gtaps);
      else if (w == "blocks") experiment_blocks(prop, gtaps);
      else if (w == "large") experiment_large(prop, gtaps);
      else if (w == "stream") experiment_stream();
      else if (w == "fft") experiment_fft();
      else if (w == "fft-batch") experiment_fft_batch();
      else if (w == "crossover") experiment_crossover(prop, gtaps);
      else if (w == "variants") experiment_variants(prop, {15, 63, 255, 1023, 16383}, "variants");
      else if (w == "short") experiment_variants(prop, {15, 31, 63, 95, 127}, "short");
      else if (w == "profile") experiment_profile(prop);
      else {
        std::fprintf(stderr, "halo_bench: unknown experiment %s (small|blocks|large|stream|fft|crossover|variants|short|profile|all)\n", w.c_str());
        return 2;
      }
    }
    std::printf("\nceilings: copy %.0f GB/s, FMA %.1f TFLOP/s; device %s\n", ceilings.copy_bytes_per_s / 1e9,
                ceilings.fma_flop_per_s / 1e12, prop.name);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "halo_bench: %s\n", e.what());
    return 1;
  }
}
