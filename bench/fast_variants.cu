// The benchmark's other shapes of the fast kernels (fast_variants.hpp). The first two rows are
// the library's policy, compiled here against this file's bank; the others are tuning
// candidates, among them the non-persistent fast_kernel (one output tile per block).
#include "fast_variants.hpp"

#include <iterator>

#include "cuda/device/error.hpp"
#include "cuda/direct/fast_kernels.cuh"

namespace halo::bench {
namespace {

using namespace halo::cuda;

// fast_kernel: fast_pipelined_kernel's arithmetic without the persistent grid or the
// pipeline: one block per (output tile of BO = THREADS*R outputs, channel), which walks the
// stages of S taps, loading each stage's BO + S samples into a shared tile (16-byte __ldg
// loads) between two barriers, then computes from it.
// Traffic: as fast_pipelined_kernel (each sample read (BO + S)/BO times per stage; taps from
// constant memory), but the loads of a stage do not overlap its FMAs within a block (other
// resident blocks hide part of it). Shared memory: one tile of skew(BO + S) floats.
template <int THREADS, int R, int T, int S>
__global__ void __launch_bounds__(THREADS) fast_kernel(const float* __restrict__ x, std::size_t x_stride,
                                                       float* __restrict__ y, std::size_t y_stride, int frames,
                                                       int taps, int tap_base, int tap_stride) {
  static_assert(R == 32 && T % 32 == 0 && S % T == 0, "the skewed layout assumes 32-float rows");
  constexpr int BO = THREADS * R;
  __shared__ __align__(16) float tile[skew(BO + S)];
  const int c = blockIdx.y;
  x += c * x_stride;
  y += c * y_stride;
  const float* h = c_taps + tap_base + c * tap_stride;
  const int b0 = blockIdx.x * BO;
  const int t = threadIdx.x;

  float total[R];
#pragma unroll
  for (int r = 0; r < R; ++r) total[r] = 0.0f;

  for (int kc = 0; kc < taps; kc += S) {
    const int stage = min(S, taps - kc);
    // Samples x[b0 - kc - stage + i], i in [0, BO + stage): every n - k of this stage.
    const float4* src = reinterpret_cast<const float4*>(x + (b0 - kc - stage));
    const int vectors = (BO + stage) / 4;
    __syncthreads();  // the previous stage's windows are read
    for (int v = t; v < vectors; v += THREADS) *reinterpret_cast<float4*>(tile + skew(4 * v)) = __ldg(src + v);
    __syncthreads();

    float partial[R];
#pragma unroll
    for (int r = 0; r < R; ++r) partial[r] = 0.0f;
    convolve_stage<R, T>(tile, t, stage, h + kc, partial);
#pragma unroll
    for (int r = 0; r < R; ++r) total[r] += partial[r];
  }
  store_block_outputs<THREADS, R>(tile, t, total, y + b0, frames - b0);
}

template <int THREADS, int S>
cudaError_t launch_fast_shape(const ConvolutionPlan& plan, const PlanarLaunch& p, cudaStream_t stream) noexcept {
  constexpr int BO = THREADS * FastPolicy::outputs_per_thread;
  const dim3 grid(static_cast<unsigned>((p.frames + BO - 1) / BO), static_cast<unsigned>(p.channels));
  fast_kernel<THREADS, FastPolicy::outputs_per_thread, FastPolicy::tap_tile, S><<<grid, THREADS, 0, stream>>>(
      p.x, p.x_stride, p.y, p.y_stride, static_cast<int>(p.frames), plan.taps, p.tap_base,
      static_cast<int>(p.tap_stride));
  return cudaGetLastError();
}

template <int THREADS, int S>
void plan_fast_shape(ConvolutionPlan& plan, GpuDevice&) {
  plan.launch = launch_fast_shape<THREADS, S>;
}

void plan_policy(ConvolutionPlan& plan, GpuDevice& device) { plan_fast(plan, false, device); }

// Short-mask kernel shapes at up to ShortPolicy::max_taps padded taps (longer: the policy).
template <bool OFFSET, int SLIDE_MAX, bool BALANCED>
void plan_short_shape(ConvolutionPlan& plan, GpuDevice& device) {
  if (plan.taps > ShortPolicy::max_taps) return plan_policy(plan, device);
  plan_short<OFFSET>(plan, SLIDE_MAX, device);
  plan.balanced = BALANCED;
}

struct FastVariant {
  const char* name;
  void (*plan)(ConvolutionPlan&, GpuDevice&);
};
// The first is the policy (the engine's).
const FastVariant fast_variants[] = {
    {"fast (policy: short-mask kernel up to ShortPolicy::max_taps, else pipelined)", plan_policy},
    {"fast pipelined 128 thr, stage 256 (policy above 128 taps)",
     plan_pipelined<FastPolicy::threads, FastPolicy::taps_per_stage, FastPolicy::min_blocks_per_sm>},
    {"fast short, rolled tap tiles at all taps", plan_short_shape<false, 0, false>},
    {"fast short, sliding window up to 64 taps", plan_short_shape<false, 64, false>},
    {"fast short, balanced grid", plan_short_shape<false, 32, true>},
    {"fast short, per-channel tap loads", plan_short_shape<true, 32, false>},
    {"fast pipelined 64 thr, stage 256", plan_pipelined<64, 256, 8>},
    {"fast pipelined 128 thr, stage 512", plan_pipelined<128, 512, 4>},
    {"fast 128 thr, 32 out, stage 256 (one tile per block)", plan_fast_shape<128, 256>},
    {"fast 64 thr, 32 out, stage 256", plan_fast_shape<64, 256>},
    {"fast 256 thr, 32 out, stage 256", plan_fast_shape<256, 256>},
    {"fast 128 thr, 32 out, stage 128", plan_fast_shape<128, 128>},
    {"fast 128 thr, 32 out, stage 512", plan_fast_shape<128, 512>},
};

}  // namespace

int fast_variant_count() { return static_cast<int>(std::size(fast_variants)); }
const char* fast_variant_name(int variant) { return fast_variants[variant].name; }

cuda::ConvolutionPlan plan_fast_variant(int variant, std::size_t padded_taps, cuda::GpuDevice& device) {
  ConvolutionPlan plan;
  plan.kernel = Kernel::fast;
  plan.taps = static_cast<int>(padded_taps);
  fast_variants[variant].plan(plan, device);
  return plan;
}

void upload_variant_taps(const float* taps, std::size_t count) {
  if (count > max_constant_taps) throw cuda::Error("the variants' bank holds " + std::to_string(max_constant_taps) + " taps");
  HALO_CUDA_CHECK(cudaMemcpyToSymbol(c_taps, taps, count * sizeof(float)));
}

}  // namespace halo::bench
