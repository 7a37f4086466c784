#pragma once
// Helpers for the engine tests (tests/engine/): masks, preparing an engine, running it with
// its latency removed, the float64 reference of every channel, and seeded block sizes.
// Builds on test_signals.hpp (random signals, reference_convolution, run_in_chunks).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/mask.hpp"
#include "src/engine/engine.hpp"
#include "src/engine/engine_entry.hpp"
#include "test_signals.hpp"

namespace halo::test {

filters::Mask mask_of(std::vector<float> taps);

// Taps like a real mask's scale (sum of |h| near 1), so outputs stay near the inputs' level.
std::vector<float> random_taps(std::size_t count, std::uint64_t seed);

// The longest mask of the set.
std::size_t longest(const filters::MaskSet& masks);

// prepare(ProcessSpec{channels, max_block, max_mask (0: the longest mask), 48 kHz}) and
// set_taps(TapSet::from_masks(masks, channels)).
void prepare_with(Engine& engine, const filters::MaskSet& masks, int channels, std::size_t max_block,
                  std::size_t max_mask = 0);

// Feeds `in`, then zeros for the engine's latency and the tail, in blocks of the given sizes
// (cycled), into a NaN-poisoned output; returns frames [0, N + M - 1) of the causal
// convolution, i.e. the output with latency_frames() dropped from its start.
std::vector<float> run_aligned(Engine& engine, const std::vector<float>& in, int channels,
                               const std::vector<std::size_t>& chunk_sizes);

// The causal convolution of every channel with its mask (one mask: all channels),
// interleaved, frames [0, out_frames), in float64.
std::vector<double> reference_output(const std::vector<float>& in, int channels, const filters::MaskSet& masks,
                                     std::size_t out_frames);

// Worst per-channel ||out - ref|| / ||ref|| over the first `frames` interleaved frames; inf
// where an output sample is NaN.
double worst_channel_error(const std::vector<float>& out, const std::vector<double>& ref, int channels,
                           std::size_t frames);

// Seeded random block sizes: 1 and max_chunk first, then single frames, blocks shorter than
// the mask, around it, and up to max_chunk.
std::vector<std::size_t> random_chunks(std::size_t mask_frames, std::size_t max_chunk, std::uint64_t seed);

// The first few sizes and the seed, for failure messages.
std::string describe_chunks(const std::vector<std::size_t>& sizes, std::uint64_t seed);

// The names of every engine the registry has in this build, for INSTANTIATE_TEST_SUITE_P; and
// a name made fit for a test's name ("cpu-fft" -> "cpu_fft").
std::vector<std::string> registered_names();
std::string identifier(std::string text);

// Empty when the engine can run here; otherwise why not, for GTEST_SKIP (a CUDA engine where no
// GPU is usable: its make() or prepare() throws). Asked once per engine.
const std::string& why_unusable(const EngineEntry& entry);

// Equal bit for bit (NaN never equals).
bool same_bits(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace halo::test
