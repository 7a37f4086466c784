#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace halo {

// `auto`'s crossover table, for one GPU model: by mask length, which GPU engines may take the
// job (in order of preference) and from which job size handing it over to the GPU pays. The
// CPU engine starts every job (HandoverEngine): the GPU only has to be ready before the CPU
// would have finished, so a job pays when the CPU alone would take longer than the CUDA
// context and the engine take to start. The numbers are in crossover.cpp, with where each
// came from.
struct CrossoverRow {
  std::size_t up_to_taps;           // masks longer than the previous row's, up to this many taps
  double handover_from_samples;     // jobs of at least this many samples (frames x channels)
  std::array<const char*, 3> gpu;   // GPU engines, best first; null ends the list. The first
                                    // that this build registers and that accepts the taps runs
  // A job of known size past handover_from_samples runs on the GPU engine alone, without the
  // hand-over: for masks whose CPU engine takes as long to start (FFT plans of millions of
  // points) as the CUDA context, and whose CPU side of a hand-over only slowed it.
  bool gpu_alone = false;
};

struct GpuCrossover {
  const char* model;                // as the NVIDIA driver names the GPU; an exact match
  std::vector<CrossoverRow> rows;   // up_to_taps increasing; the last row covers every length
};

// The row for `model` (empty: unknown) and a mask of `taps` taps. A model without a table of
// its own takes the fallback rule: the first table's engines, with job sizes doubled (its
// context start and its copies were not measured, so the hand-over must promise more).
// `table` says which table and rule answered, for the engine notice.
struct CrossoverAnswer {
  CrossoverRow row;
  std::string table;  // "NVIDIA H100 80GB HBM3", or for an unlisted model
                      // "NVIDIA L4: NVIDIA H100 80GB HBM3's table, sizes x 2"
};
CrossoverAnswer crossover_for(const std::string& model, std::size_t taps);

// Every table, for tests and for the README.
const std::vector<GpuCrossover>& crossover_tables();

}  // namespace halo
