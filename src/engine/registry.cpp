#include "src/engine/registry.hpp"

#include <cstdio>

#include "src/engine/cpu_engines.hpp"
#include "src/engine/crossover.hpp"
#include "src/engine/gpu_probe.hpp"
#include "src/engine/handover_engine.hpp"

#ifdef HALO_HAVE_CUDA
#include "cuda/direct/direct_engine.hpp"
#include "cuda/fft/fft_engine.hpp"
#endif

namespace halo {
namespace {

// `auto`'s cost model. Measured; bench/NOTES.md has the runs. Which GPU engine, and from
// which job size the GPU pays: the crossover table (crossover.cpp).
// From this mask length on, overlap-save FFT beats direct convolution on the CPU
// (`cpu_fft_bench crossover`, stereo, the vectorised direct engine on one core against cpu-fft
// on both cores of the development machine). 2026-11-23 (AMD VM): direct wins at 48 taps, FFT
// at 64 and 96. 2026-11-25 (Intel VM, after cpu-fft's passes around its transforms were cut),
// Mframes/s direct / cpu-fft: 24 taps 288.8 / 288.4, 32 taps 249.7 / 287.9, 48 taps 196.5 /
// 275.0: from 32 taps the direct engine would be 13-40 % slower than the FFT, below it within
// a few %. 2026-11-25, thirteenth session (cpu-fft's packed transforms and per-size model):
// 8 taps 418.7 / 370.6, 12 taps 366.4 / 406.3, 16 taps 338.7 / 355.5, 24 taps 287.6 / 346.6
// (two runs alike): from 12 taps the FFT, below it the direct engine, each 11-13 % ahead.
// More cores only move the crossover down (the direct engine runs on one).
constexpr std::size_t cpu_fft_from_taps = 12;

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

// For an engine asked for by name: starts the CUDA driver, which that engine needs anyway.
bool gpu_usable(std::string* why) {
#ifdef HALO_HAVE_CUDA
  return cuda::device_usable(0, why);
#else
  *why = "this build has no CUDA engines";
  return false;
#endif
}

// For `auto`: whether a GPU may be there, from what the driver lists, without CUDA (no
// libcuda loaded, no /dev/nvidia* opened), so that a job auto runs on the CPU never starts it.
bool gpu_listed(std::string* why, std::string* model) {
#ifdef HALO_HAVE_CUDA
  const GpuProbe probe = probe_gpus();
  *why = probe.why_not;
  *model = probe.model;
  return probe.possible;
#else
  *why = "this build has no CUDA engines";
  model->clear();
  return false;
#endif
}

const EngineEntry* registered(const char* name) {
  for (const auto& entry : registered_engines())
    if (entry.name == name) return &entry;
  return nullptr;
}

// The first engine of the row that this build has and that takes the taps; null when none
// does (`why` then says why the last one refused, or that the build has none of them).
const EngineEntry* gpu_engine_for(const CrossoverRow& row, const TapSet& taps, const ProcessSpec& spec,
                                  std::string* why) {
  *why = "this build has no GPU engine for " + std::to_string(taps.mask_frames()) + " taps";
  for (const char* name : row.gpu) {
    if (!name) break;
    const EngineEntry* entry = registered(name);
    if (!entry) continue;
    std::string refusal;
    if (entry->accepts(taps, spec, &refusal)) return entry;
    *why = entry->name + ": " + refusal;
  }
  return nullptr;
}

std::string samples_in_words(double samples) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", samples);
  return text;
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
  std::string model;
  if (!gpu_listed(&why_not, &model)) return cpu_choice(taps, why_not);
  const CrossoverAnswer crossover = crossover_for(model, taps.mask_frames());
  const EngineEntry* gpu = gpu_engine_for(crossover.row, taps, spec, &why_not);
  if (!gpu) return cpu_choice(taps, why_not);
  if (samples > 0 && static_cast<double>(samples) < crossover.row.handover_from_samples)
    return cpu_choice(taps, "the job (" + samples_in_words(static_cast<double>(samples)) +
                                " samples) is too small to pay for starting CUDA (from " +
                                samples_in_words(crossover.row.handover_from_samples) + " on " + crossover.table + ")");
  if (samples > 0 && crossover.row.gpu_alone)
    return {gpu->name, "the job (" + samples_in_words(static_cast<double>(samples)) + " samples) pays for " + gpu->name +
                           " alone (from " + samples_in_words(crossover.row.handover_from_samples) + " on " +
                           crossover.table + "; at this mask length the CPU engine starts as slowly as CUDA)"};
  EngineChoice choice = cpu_choice(
      taps, samples > 0 ? "the job (" + samples_in_words(static_cast<double>(samples)) +
                              " samples) pays for starting CUDA (from " +
                              samples_in_words(crossover.row.handover_from_samples) + " on " + crossover.table + ")"
                        : "a job of unknown length");
  choice.reason += "; " + gpu->name + " takes over once CUDA has started";
  choice.takes_over = gpu->name;
  choice.handover_latency_frames = gpu->latency_frames ? gpu->latency_frames(spec) : 0;
  return choice;
}

std::unique_ptr<Engine> make_engine(const std::string& name, const EngineOptions& options) {
  return engine_entry(name).make(options);
}

std::unique_ptr<Engine> make_engine(const EngineChoice& choice, const EngineOptions& options) {
  std::unique_ptr<Engine> first = make_engine(choice.name, options);
  if (choice.takes_over.empty()) return first;
  const EngineEntry& second = engine_entry(choice.takes_over);
  return std::make_unique<HandoverEngine>(std::move(first), second.name,
                                          [make = second.make, options] { return make(options); },
                                          choice.handover_latency_frames);
}

}  // namespace halo
