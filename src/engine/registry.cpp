#include "src/engine/registry.hpp"

#include "src/engine/cpu_engines.hpp"

#ifdef HALO_HAVE_CUDA
#include "cuda/direct/direct_engine.hpp"
#include "cuda/fft/fft_engine.hpp"
#endif

namespace halo {
namespace {

// `auto`'s cost model. Measured; bench/NOTES.md has the runs.
// Below this many multiply-adds the CPU engine finishes before a CUDA context (about 0.3 s)
// has started.
constexpr double cpu_pays_below_macs = 5e8;
// From this mask length on, overlap-save FFT beats direct convolution on the CPU
// (60 s of stereo noise on the 2-core development machine: direct wins at 15 taps, FFT at 31).
constexpr std::size_t cpu_fft_from_taps = 24;
// The engine `auto` takes on a usable GPU.
constexpr const char* gpu_engine = "cuda-fast";

EngineChoice cpu_choice(const TapSet& taps, const std::string& why) {
  if (taps.mask_frames() >= cpu_fft_from_taps)
    return {"cpu-fft", why + "; FFT for " + std::to_string(taps.mask_frames()) + " taps"};
  return {"cpu", why};
}

std::string names_in_this_build() {
  std::string list;
  for (const auto& name : engine_names()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

bool gpu_usable(std::string* why) {
#ifdef HALO_HAVE_CUDA
  return cuda::device_usable(0, why);
#else
  *why = "this build has no CUDA engines";
  return false;
#endif
}

}  // namespace

const std::vector<EngineEntry>& registered_engines() {
  static const std::vector<EngineEntry> entries = [] {
    std::vector<EngineEntry> all = cpu_engine_entries();
#ifdef HALO_HAVE_CUDA
    for (auto& entry : cuda::direct_engine_entries()) all.push_back(std::move(entry));
    for (auto& entry : cuda::fft_engine_entries()) all.push_back(std::move(entry));
#endif
    return all;
  }();
  return entries;
}

std::vector<std::string> engine_names() {
  std::vector<std::string> names = {"auto"};
  for (const auto& entry : registered_engines()) names.push_back(entry.name);
  return names;
}

const EngineEntry& engine_entry(const std::string& name) {
  for (const auto& entry : registered_engines())
    if (entry.name == name) return entry;
  throw Error("'" + name + "' is not an engine of this build (" + names_in_this_build() + ")");
}

void check_engine_name(const std::string& name) {
  if (name != "auto") engine_entry(name);
}

EngineChoice choose_engine(const std::string& requested, const TapSet& taps, const ProcessSpec& spec,
                           std::uint64_t samples) {
  std::string why_not;
  if (requested != "auto") {
    const EngineEntry& entry = engine_entry(requested);
    if (entry.device == EngineDevice::cuda && !gpu_usable(&why_not))
      throw Error("engine " + requested + ": " + why_not + " (the CPU engines need no GPU)");
    if (!entry.accepts(taps, spec, &why_not)) throw Error("engine " + requested + ": " + why_not);
    return {requested, "asked for"};
  }
  if (!gpu_usable(&why_not)) return cpu_choice(taps, why_not);
  if (!engine_entry(gpu_engine).accepts(taps, spec, &why_not)) return cpu_choice(taps, why_not);
  const double macs = static_cast<double>(samples) * static_cast<double>(taps.mask_frames());
  if (samples > 0 && macs < cpu_pays_below_macs) return cpu_choice(taps, "the job is too small to pay for starting CUDA");
  return {gpu_engine, "the fastest direct kernel on this GPU"};
}

std::unique_ptr<Engine> make_engine(const std::string& name, const EngineOptions& options) {
  return engine_entry(name).make(options);
}

}  // namespace halo
