#include "src/engine/registry.hpp"

#include "src/engine/cpu_direct_engine.hpp"
#include "src/engine/cpu_fft_engine.hpp"

#ifdef HALO_HAVE_CUDA
#include "cuda/direct/direct_engine.hpp"
#endif

namespace halo {
namespace {

#ifdef HALO_HAVE_CUDA
const cuda::Kernel all_kernels[] = {cuda::Kernel::basic, cuda::Kernel::constant, cuda::Kernel::tiled,
                                    cuda::Kernel::cached, cuda::Kernel::fast};
#endif

// Below this many multiply-adds the CPU engine finishes before a CUDA context (about 0.3 s)
// has started.
constexpr double cpu_pays_below_macs = 5e8;

// From this mask length on, overlap-save FFT beats direct convolution on the CPU
// (60 s of stereo noise on the 2-core development machine: direct wins at 15 taps, FFT at 31).
constexpr std::size_t cpu_fft_from_taps = 24;

EngineChoice cpu_choice(const JobSize& job, const std::string& why) {
  if (job.mask_frames >= cpu_fft_from_taps) return {"cpu-fft", why + "; FFT for " + std::to_string(job.mask_frames) + " taps"};
  return {"cpu", why};
}

}  // namespace

std::vector<std::string> engine_names() {
  std::vector<std::string> names = {"auto", "cpu", "cpu-fft"};
#ifdef HALO_HAVE_CUDA
  for (auto kernel : all_kernels) names.push_back(cuda::engine_name(kernel));
#endif
  return names;
}

void check_engine_name(const std::string& name) {
  std::string list;
  for (const auto& known : engine_names()) {
    if (known == name) return;
    list += (list.empty() ? "" : ", ") + known;
  }
  throw Error("--engine " + name + ": no such engine in this build (" + list + ")");
}

EngineChoice choose_engine(const std::string& requested, const JobSize& job) {
  check_engine_name(requested);
  if (requested == "cpu" || requested == "cpu-fft") return {requested, "asked for"};
#ifdef HALO_HAVE_CUDA
  std::string why_not;
  const bool usable = cuda::device_usable(&why_not);
  if (requested != "auto") {
    if (!usable) throw Error("--engine " + requested + ": " + why_not + " (use --engine cpu)");
    if (job.constant_taps > cuda::max_constant_taps)
      throw Error("--engine " + requested + ": the mask needs " + std::to_string(job.constant_taps) +
                  " taps of constant memory, which holds " + std::to_string(cuda::max_constant_taps) +
                  " (use --engine cpu)");
    return {requested, "asked for"};
  }
  if (!usable) return cpu_choice(job, why_not);
  if (job.constant_taps > cuda::max_constant_taps)
    return cpu_choice(job, "the mask is longer than the " + std::to_string(cuda::max_constant_taps) +
                               " taps constant memory holds");
  const double macs = static_cast<double>(job.samples) * static_cast<double>(job.mask_frames);
  if (job.samples > 0 && macs < cpu_pays_below_macs)
    return cpu_choice(job, "the job is too small to pay for starting CUDA");
  return {cuda::engine_name(cuda::Kernel::fast), "the fastest direct kernel on this GPU"};
#else
  return cpu_choice(job, "this build has no CUDA engines");
#endif
}

std::unique_ptr<Engine> make_engine(const std::string& name, int block_threads) {
  if (name == "cpu") return std::make_unique<CpuEngine>();
  if (name == "cpu-fft") return std::make_unique<CpuFftEngine>();
#ifdef HALO_HAVE_CUDA
  for (auto kernel : all_kernels)
    if (name == cuda::engine_name(kernel)) return cuda::make_engine(kernel, block_threads);
#else
  (void)block_threads;
#endif
  check_engine_name(name);
  throw Error("--engine " + name + ": not available");
}

}  // namespace halo
