#include "engine_harness.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <sstream>

#include "src/engine/registry.hpp"

namespace halo::test {

filters::Mask mask_of(std::vector<float> taps) {
  filters::Mask mask;
  mask.taps = std::move(taps);
  return mask;
}

std::vector<float> random_taps(std::size_t count, std::uint64_t seed) {
  return random_signal(count, seed, static_cast<float>(2.0 / std::sqrt(static_cast<double>(count))));
}

std::size_t longest(const filters::MaskSet& masks) {
  std::size_t m = 0;
  for (const auto& mask : masks) m = std::max(m, mask.taps.size());
  return m;
}

void prepare_with(Engine& engine, const filters::MaskSet& masks, int channels, std::size_t max_block,
                  std::size_t max_mask) {
  engine.prepare(ProcessSpec{channels, max_block, max_mask ? max_mask : longest(masks), 48000});
  engine.set_taps(TapSet::from_masks(masks, channels));
}

std::vector<float> run_aligned(Engine& engine, const std::vector<float>& in, int channels,
                               const std::vector<std::size_t>& chunk_sizes) {
  const std::size_t frames = in.size() / channels;
  const std::size_t latency = engine.latency_frames();
  const std::size_t wanted = frames + engine.mask_frames() - 1;
  std::vector<float> padded = in;
  padded.resize((latency + wanted) * channels, 0.0f);
  const std::vector<float> out = run_in_chunks(engine, padded, channels, chunk_sizes);
  return std::vector<float>(out.begin() + static_cast<std::ptrdiff_t>(latency * channels), out.end());
}

std::vector<double> reference_output(const std::vector<float>& in, int channels, const filters::MaskSet& masks,
                                     std::size_t out_frames) {
  std::vector<double> out(out_frames * channels, 0.0);
  for (int c = 0; c < channels; ++c) {
    const auto full = reference_convolution(in, channels, c, masks[masks.size() == 1 ? 0 : c].taps);
    for (std::size_t n = 0; n < out_frames && n < full.size(); ++n) out[n * channels + c] = full[n];
  }
  return out;
}

double worst_channel_error(const std::vector<float>& out, const std::vector<double>& ref, int channels,
                           std::size_t frames) {
  if (out.size() < frames * channels || ref.size() < frames * channels) return INFINITY;
  double worst = 0;
  std::vector<double> channel_ref(frames);
  for (int c = 0; c < channels; ++c) {
    for (std::size_t n = 0; n < frames; ++n) channel_ref[n] = ref[n * channels + c];
    worst = std::max(worst, relative_error(out.data() + c, frames, channels, channel_ref.data()));
  }
  return worst;
}

std::vector<std::size_t> random_chunks(std::size_t mask_frames, std::size_t max_chunk, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> sizes = {1, max_chunk, 1};
  for (int i = 0; i < 64; ++i) {
    const int kind = static_cast<int>(rng() % 4);
    std::size_t size = 1;
    if (kind == 1) size = 1 + rng() % std::max<std::size_t>(1, mask_frames / 2);  // shorter than the mask
    if (kind == 2) size = 1 + rng() % std::max<std::size_t>(1, mask_frames + 7);  // around the mask
    if (kind == 3) size = 1 + rng() % max_chunk;                                   // up to the largest
    sizes.push_back(std::min(size, max_chunk));
  }
  return sizes;
}

std::string describe_chunks(const std::vector<std::size_t>& sizes, std::uint64_t seed) {
  std::ostringstream text;
  text << "block sizes";
  for (std::size_t i = 0; i < sizes.size() && i < 12; ++i) text << " " << sizes[i];
  text << " ... (seed " << seed << ")";
  return text.str();
}

std::vector<std::string> registered_names() {
  std::vector<std::string> names;
  for (const auto& entry : registered_engines()) names.push_back(entry.name);
  return names;
}

std::string identifier(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return text;
}

const std::string& why_unusable(const EngineEntry& entry) {
  static std::map<std::string, std::string> answers;
  const auto known = answers.find(entry.name);
  if (known != answers.end()) return known->second;
  std::string why;
  if (entry.device != EngineDevice::cpu) {
    try {
      auto engine = entry.make(EngineOptions{});
      engine->prepare(ProcessSpec{1, 64, 8, 48000});
    } catch (const std::exception& error) {
      why = entry.name + " cannot run here: " + error.what();
    }
  }
  return answers[entry.name] = why;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::isnan(a[i]) || std::isnan(b[i])) return false;
  return std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace halo::test
