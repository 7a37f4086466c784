#include "src/engine/silence_gate.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "src/engine/nonfinite.hpp"

namespace halo {
namespace {

// Where the run of zeros the input starts in began: x is 0 before frame 0, as far back as an
// engine's latency reaches (a quarter of the range: no sum with it overflows).
constexpr std::int64_t before_the_input = std::numeric_limits<std::int64_t>::min() / 4;

// A sample's exponent bits: all 0 for 0, -0 and the subnormals, which every engine flushes and
// so takes for 0 (a gap of 1e-42 had come out of cpu-fft as rounding dust, dithered: a QA
// pass); all 1 for NaN and Inf. Tested on the bits: integer tests the compiler vectorises.
constexpr std::uint32_t exponent_bits = 0x7f800000u;
inline std::uint32_t exponent_of(float sample) {
  std::uint32_t bits;
  std::memcpy(&bits, &sample, sizeof bits);
  return bits & exponent_bits;
}
inline bool silent(float sample) { return exponent_of(sample) == 0; }

}  // namespace

std::uint64_t ChunkZeros::scan(float* x, std::size_t frame_count, int channel_count, std::size_t min_run) {
  return scan_samples(x, frame_count, channel_count, min_run);
}

void ChunkZeros::scan(const float* x, std::size_t frame_count, int channel_count, std::size_t min_run) {
  scan_samples(x, frame_count, channel_count, min_run);
}

void ChunkZeros::reserve_for_blocks(int channel_count, std::size_t max_frames, std::size_t min_run) {
  const std::size_t width = static_cast<std::size_t>(channel_count);
  channels.resize(width);
  // Inner runs are at least min_run frames long and a non-zero frame apart.
  for (auto& channel : channels) channel.inner.reserve(max_frames / (std::max<std::size_t>(min_run, 1) + 1) + 1);
  last_nonzero_.resize(width);
  met_.resize(width);
}

template <typename Sample>
std::uint64_t ChunkZeros::scan_samples(Sample* x, std::size_t frame_count, int channel_count, std::size_t min_run) {
  const std::size_t width = static_cast<std::size_t>(channel_count);
  frames = frame_count;
  channels.resize(width);
  last_nonzero_.assign(width, 0);
  met_.assign(width, 0);
  std::vector<std::size_t>& last_nonzero = last_nonzero_;
  std::vector<char>& met = met_;
  for (auto& channel : channels) {
    channel.inner.clear();
    channel.leading = channel.trailing = 0;
  }
  // Sound on channel c at frame f: a run of zeros between it and the last sound, if one is M
  // long, is kept.
  auto sound = [&](std::size_t c, std::size_t f) {
    if (!met[c]) channels[c].leading = f;
    else if (f - last_nonzero[c] - 1 >= min_run) channels[c].inner.push_back({last_nonzero[c] + 1, f});
    met[c] = 1;
  };
  std::uint64_t nonfinite = 0;
  constexpr std::size_t stretch = 1024;  // frames
  for (std::size_t start = 0; start < frame_count; start += stretch) {
    const std::size_t end = std::min(frame_count, start + stretch);
    std::uint32_t any_silent = 0, any_nonfinite = 0;  // one loop the compiler vectorises
    for (std::size_t i = start * width; i < end * width; ++i) {
      const std::uint32_t exponent = exponent_of(x[i]);
      any_silent |= static_cast<std::uint32_t>(exponent == 0);
      any_nonfinite |= static_cast<std::uint32_t>(exponent == exponent_bits);
    }
    if constexpr (!std::is_const_v<Sample>) {
      if (any_nonfinite != 0) {  // rare: made 0 by the one rule, and so silent now
        nonfinite += zero_nonfinite(x + start * width, (end - start) * width);
        any_silent = 1;
      }
    }
    for (std::size_t c = 0; c < width; ++c) {
      // Per channel only where the stretch holds a silent sample: a channel that is silent
      // throughout (a 5.1 file's empty LFE) or not at all is settled without a branch a frame.
      std::size_t channel_zeros = 0;
      if (any_silent != 0)
        for (std::size_t f = start; f < end; ++f) channel_zeros += silent(x[f * width + c]);
      if (channel_zeros == end - start) continue;  // a run begins or goes on
      if (channel_zeros == 0) {  // sound throughout: no run begins or ends inside
        sound(c, start);
        last_nonzero[c] = end - 1;
        continue;
      }
      for (std::size_t f = start; f < end; ++f) {
        if (silent(x[f * width + c])) continue;
        sound(c, f);
        last_nonzero[c] = f;
      }
    }
  }
  for (std::size_t c = 0; c < width; ++c) {
    channels[c].leading = met[c] ? channels[c].leading : frame_count;
    channels[c].trailing = met[c] ? frame_count - 1 - last_nonzero[c] : frame_count;
  }
  return nonfinite;
}

SilenceGate::SilenceGate(int channels, std::size_t mask_frames)
    : channels_(static_cast<std::size_t>(channels), Channel{{}, true, before_the_input}),
      mask_frames_(static_cast<std::int64_t>(mask_frames)) {}

void SilenceGate::feed(const ChunkZeros& chunk) {
  const std::int64_t frames = static_cast<std::int64_t>(chunk.frames);
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    Channel& gate = channels_[c];
    const ChunkZeros::Channel& zeros = chunk.channels[c];
    if (static_cast<std::int64_t>(zeros.leading) == frames) {  // silent throughout: a run begins or goes on
      if (!gate.open && frames > 0) gate.open_begin = fed_;
      gate.open = gate.open || frames > 0;
      continue;
    }
    const std::int64_t run_begin = gate.open ? gate.open_begin : fed_;
    const std::int64_t run_end = fed_ + static_cast<std::int64_t>(zeros.leading);
    if (run_end - run_begin >= mask_frames_) close_run(gate, run_begin, run_end);
    for (const ChunkZeros::Run& run : zeros.inner)
      close_run(gate, fed_ + static_cast<std::int64_t>(run.begin), fed_ + static_cast<std::int64_t>(run.end));
    gate.open = zeros.trailing > 0;
    gate.open_begin = fed_ + frames - static_cast<std::int64_t>(zeros.trailing);
  }
  fed_ += frames;
}

void SilenceGate::close_run(Channel& gate, std::int64_t begin, std::int64_t end) {
  if (bounded_ && gate.closed.size() == gate.closed.capacity()) return;  // past the bound: left as the engine gave it
  gate.closed.push_back({begin, end});
}

void SilenceGate::reserve_for_blocks(std::size_t max_lag_frames, std::size_t max_chunk_frames) {
  // The runs kept lie between the oldest output still to come (max_lag_frames + a chunk behind
  // the input, less M) and the input's end; each is M frames long or more, a frame of sound apart.
  const std::size_t m = static_cast<std::size_t>(mask_frames_);
  const std::size_t runs = (max_lag_frames + 2 * max_chunk_frames + m) / (m + 1) + 2;
  for (Channel& gate : channels_) gate.closed.reserve(runs);
  bounded_ = true;
}

void SilenceGate::feed_silence(std::size_t frames) {
  for (Channel& gate : channels_) {
    if (!gate.open && frames > 0) gate.open_begin = fed_;
    gate.open = gate.open || frames > 0;
  }
  fed_ += static_cast<std::int64_t>(frames);
}

void SilenceGate::zero_silent_outputs(float* interleaved, std::int64_t first, std::size_t frames) {
  const std::int64_t last = first + static_cast<std::int64_t>(frames);  // outputs [first, last)
  const std::size_t width = channels_.size();
  for (std::size_t c = 0; c < width; ++c) {
    Channel& gate = channels_[c];
    auto zero = [&](std::int64_t begin, std::int64_t end) {
      // y_full[n] is 0 for n in [begin + M - 1, end): its inputs n - M + 1 .. n lie in the run.
      const std::int64_t from = std::max(first, begin + mask_frames_ - 1), to = std::min(last, end);
      for (std::int64_t n = from; n < to; ++n) interleaved[static_cast<std::size_t>(n - first) * width + c] = 0.0f;
    };
    for (const Run& run : gate.closed) zero(run.begin, run.end);
    if (gate.open) zero(gate.open_begin, fed_);
    // Outputs never go back: runs that end before the last output asked for are done with.
    gate.closed.erase(std::remove_if(gate.closed.begin(), gate.closed.end(), [&](const Run& run) { return run.end <= last; }),
                      gate.closed.end());
  }
}

}  // namespace halo
