#include "cuda/fft/overlap_save.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "src/engine/error.hpp"

namespace halo::cuda {
namespace {

std::size_t power_of_two_at_least(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p *= 2;
  return p;
}

long long power_of_two_at_least(long long n) {
  long long p = 1;
  while (p < n) p *= 2;
  return p;
}

const char* method_name(FftMethod method) { return method == FftMethod::cufft ? "cuda-fft" : "cuda-fft-fused"; }

// Why `method` cannot run a geometry for max_mask_frames taps on `channels`; empty when it can.
std::string refusal(FftMethod method, std::size_t mask_frames, int channels) {
  if (method == FftMethod::cufft) {
    if (mask_frames > max_cufft_mask_frames)
      return "a mask of " + std::to_string(mask_frames) + " taps is longer than cuda-fft's " +
             std::to_string(max_cufft_mask_frames) + "; the CPU engines take any length";
    const std::size_t samples = static_cast<std::size_t>(channels) * cufft_fft_frames(mask_frames);
    if (samples > max_cufft_channel_samples)
      return std::to_string(channels) + " channels of " + std::to_string(cufft_fft_frames(mask_frames)) +
             "-point segments need more than " + std::to_string(max_cufft_channel_samples * 12 >> 20) +
             " MiB of GPU memory; the CPU engines take them";
    return {};
  }
  if (mask_frames > max_fused_mask_frames)
    return "a mask of " + std::to_string(mask_frames) + " taps is longer than cuda-fft-fused's " +
           std::to_string(max_fused_mask_frames) + " (its transforms' rows live in shared memory); cuda-fft takes up to " +
           std::to_string(max_cufft_mask_frames);
  return {};
}

// The cheaper of the powers of two at 4x and 8x Mmax, within [lo, hi], by L (stages(L) + c)
// / H: the work of one segment per output.
template <typename Stages>
std::size_t cheapest_fft_frames(std::size_t max_mask_frames, std::size_t lo, std::size_t hi, double c, Stages stages) {
  const std::size_t at_four = power_of_two_at_least(4 * max_mask_frames);
  std::size_t best = 0;
  double best_cost = 0;
  for (std::size_t candidate : {at_four, 2 * at_four}) {
    const std::size_t l = std::clamp(candidate, lo, hi);
    if (l < max_mask_frames) continue;
    const double hop = static_cast<double>(l - max_mask_frames + 1);
    const double cost = static_cast<double>(l) * (stages(static_cast<double>(l)) + c) / hop;
    if (best == 0 || cost < best_cost) best = l, best_cost = cost;
  }
  return best == 0 ? hi : best;
}

}  // namespace

std::size_t cufft_fft_frames(std::size_t max_mask_frames) {
  return cheapest_fft_frames(max_mask_frames, min_cufft_fft_frames, max_cufft_fft_frames, 6.0,
                             [](double l) { return std::log2(l); });
}

std::size_t fused_fft_frames(std::size_t max_mask_frames) {
  // A radix-16 pass costs the same whatever its radix: log2 L rounded up to whole passes; a
  // split transform adds its scratch's three crossings of memory (c + 12).
  return cheapest_fft_frames(max_mask_frames, min_fused_fft_frames, max_fused_fft_frames, 4.0, [](double l) {
    return 4.0 * std::ceil(std::log2(l) / 4.0) + (fused_split(static_cast<long long>(l)) ? 12.0 : 0.0);
  });
}

bool fft_accepts(FftMethod method, const TapSet& taps, const ProcessSpec& spec, std::string* why_not) {
  std::string why;
  if (taps.channels() != spec.channels)
    why = "taps for " + std::to_string(taps.channels()) + " channels, but the stream has " + std::to_string(spec.channels);
  if (why.empty()) why = refusal(method, std::max(taps.mask_frames(), spec.max_mask_frames), spec.channels);
  if (why.empty()) return true;
  if (why_not) *why_not = why;
  return false;
}

Geometry plan_geometry(FftMethod method, const ProcessSpec& spec, const FftTuning& tuning) {
  validate(spec);
  if (const std::string why = refusal(method, spec.max_mask_frames, spec.channels); !why.empty())
    throw Error(std::string(method_name(method)) + ": " + why);
  Geometry g;
  g.method = method;
  g.channels = spec.channels;
  g.mask_frames = static_cast<long long>(spec.max_mask_frames);
  g.halo_frames = g.mask_frames - 1;
  const bool cufft = method == FftMethod::cufft;
  g.fft_frames = static_cast<long long>(cufft ? cufft_fft_frames(spec.max_mask_frames) : fused_fft_frames(spec.max_mask_frames));
  if (const auto forced = static_cast<long long>(tuning.fft_frames); forced != 0) {
    const auto lo = static_cast<long long>(cufft ? min_cufft_fft_frames : min_fused_fft_frames);
    const auto hi = static_cast<long long>(cufft ? max_cufft_fft_frames : max_fused_fft_frames);
    if ((forced & (forced - 1)) != 0 || forced < lo || forced > hi || forced < 2 * g.mask_frames)
      throw Error(std::string(method_name(method)) + ": no " + std::to_string(forced) + "-point FFT for " +
                  std::to_string(g.mask_frames) + " taps");
    g.fft_frames = forced;
  }
  // The hop in whole warps of frames (the halo takes what it gives up: at most 31 frames, 2
  // at the usual 2^k - 1 taps, the mask zero-padded over them): see aligned_hop_frames.
  const long long multiple = tuning.hop_multiple > 0 ? tuning.hop_multiple : aligned_hop_frames;
  g.hop_frames = (g.fft_frames - g.halo_frames) / multiple * multiple;
  g.halo_frames = g.fft_frames - g.hop_frames;
  g.segments_per_step = method == FftMethod::fused ? 2 : 1;
  g.step_frames = g.segments_per_step * g.hop_frames;
  // Depends on L and the channels only, never on the block size: every engine with the same
  // mask length and channels runs the same cuFFT plan (the same batch), so the same bits.
  const long long per_step = g.fft_frames * g.segments_per_step * g.channels;
  const std::size_t batch = tuning.batch_samples != 0 ? tuning.batch_samples : cufft ? cufft_batch_samples : fused_batch_samples;
  g.batch_steps = std::max<long long>(1, static_cast<long long>(batch) / per_step);
  const long long block = static_cast<long long>(spec.max_block_frames);
  g.piece_frames = std::min(block, g.batch_steps * g.step_frames);
  // Input ring: a piece at position P (P - step + 1 <= its first segment's end) reads back to
  // its first completed segment's input, at least P - (step - 1) - halo, while the newest
  // frame written is P + piece - 1: R >= step + halo + 1 + piece keeps every slot it reads.
  g.ring_frames = power_of_two_at_least(g.step_frames + g.halo_frames + 1 + g.piece_frames);
  // Output ring: a piece writes y up to its completed steps' end E <= P + piece and reads y
  // from P - step on: Ry >= piece + step keeps every slot it reads.
  g.out_ring_frames = power_of_two_at_least(g.piece_frames + g.step_frames + 1);
  g.max_pieces = static_cast<int>((block + g.piece_frames - 1) / g.piece_frames);
  g.graph = g.max_pieces == 1 && spec.max_block_frames <= graph_max_block_frames;
  return g;
}

std::size_t whole_wave_batch_samples(const Geometry& g, int concurrent, WaveRounding rounding) {
  const long long unit = concurrent / std::gcd<long long>(concurrent, g.channels);  // steps
  const long long rounded = rounding == WaveRounding::down ? g.batch_steps : g.batch_steps + unit / 2;
  const long long steps = std::max(unit, rounded / unit * unit);
  return static_cast<std::size_t>(steps * g.segments_per_step * g.fft_frames * g.channels);
}

}  // namespace halo::cuda
