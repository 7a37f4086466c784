#include "src/engine/cpu_engines.hpp"

#include "src/engine/cpu_direct_engine.hpp"
#include "src/engine/cpu_fft_engine.hpp"
#include "src/engine/partitioned_engine.hpp"

namespace halo {
namespace {

bool accepts_anything(const TapSet&, const ProcessSpec&, std::string*) { return true; }

}  // namespace

std::vector<EngineEntry> cpu_engine_entries() {
  return {
      {"cpu", EngineDevice::cpu, "direct convolution on one core (AVX2 where there is one); the reference, and the fastest below ~12 taps",
       accepts_anything, [](const EngineOptions&) { return std::make_unique<CpuDirectEngine>(); }},
      {"cpu-fft", EngineDevice::cpu, "FFTW overlap-save on every core (--threads); latency of one FFT hop",
       accepts_anything,
       [](const EngineOptions& options) { return std::make_unique<CpuFftEngine>(options.cpu_threads); },
       [](const ProcessSpec& spec) { return CpuFftEngine::latency_frames_for(spec); },
       [](const ProcessSpec& spec, const EngineOptions& options) {
         return CpuFftEngine::parallel_block_frames(spec, options.cpu_threads);
       }},
      {"cpu-partitioned", EngineDevice::cpu,
       "FFTW non-uniformly partitioned convolution, long partitions on a second thread; no latency past "
       "the period: long masks in real time",
       accepts_anything, [](const EngineOptions&) { return std::make_unique<CpuPartitionedEngine>(); }},
  };
}

}  // namespace halo
