#include "src/realtime/frame_ring.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace halo::realtime {

FrameRing::FrameRing(int channels, std::size_t min_capacity_frames) : channels_(channels) {
  if (channels < 1) throw std::invalid_argument("FrameRing: channels must be at least 1");
  capacity_frames_ = 2;
  while (capacity_frames_ < min_capacity_frames) capacity_frames_ *= 2;
  mask_ = capacity_frames_ - 1;
  samples_.assign(capacity_frames_ * static_cast<std::size_t>(channels), 0.0f);
}

std::size_t FrameRing::writable_frames() const noexcept {
  const std::uint64_t taken = taken_.load(std::memory_order_acquire);
  const std::uint64_t written = written_.load(std::memory_order_relaxed);  // ours
  return capacity_frames_ - static_cast<std::size_t>(written - taken);
}

std::size_t FrameRing::readable_frames() const noexcept {
  const std::uint64_t written = written_.load(std::memory_order_acquire);
  const std::uint64_t taken = taken_.load(std::memory_order_relaxed);  // ours
  return static_cast<std::size_t>(written - taken);
}

// Copies in two pieces at most (the end of the storage, then its start), then publishes.
template <typename Copy>
std::size_t FrameRing::produce(std::size_t frames, Copy copy) noexcept {
  frames = std::min(frames, writable_frames());
  const std::uint64_t written = written_.load(std::memory_order_relaxed);
  const std::size_t start = static_cast<std::size_t>(written) & mask_;
  const std::size_t first = std::min(frames, capacity_frames_ - start);
  copy(samples_.data() + start * channels_, 0, first);
  copy(samples_.data(), first, frames - first);
  written_.store(written + frames, std::memory_order_release);
  return frames;
}

std::size_t FrameRing::write(const float* interleaved, std::size_t frames) noexcept {
  const std::size_t channels = static_cast<std::size_t>(channels_);
  return produce(frames, [&](float* to, std::size_t from_frame, std::size_t count) {
    if (count > 0) std::memcpy(to, interleaved + from_frame * channels, count * channels * sizeof(float));
  });
}

std::size_t FrameRing::write_silence(std::size_t frames) noexcept {
  const std::size_t channels = static_cast<std::size_t>(channels_);
  return produce(frames, [&](float* to, std::size_t, std::size_t count) {
    std::fill(to, to + count * channels, 0.0f);
  });
}

std::size_t FrameRing::read(float* interleaved, std::size_t frames) noexcept {
  frames = std::min(frames, readable_frames());
  const std::size_t channels = static_cast<std::size_t>(channels_);
  const std::uint64_t taken = taken_.load(std::memory_order_relaxed);
  const std::size_t start = static_cast<std::size_t>(taken) & mask_;
  const std::size_t first = std::min(frames, capacity_frames_ - start);
  std::memcpy(interleaved, samples_.data() + start * channels, first * channels * sizeof(float));
  if (frames > first)
    std::memcpy(interleaved + first * channels, samples_.data(), (frames - first) * channels * sizeof(float));
  taken_.store(taken + frames, std::memory_order_release);
  return frames;
}

std::size_t FrameRing::discard(std::size_t frames) noexcept {
  frames = std::min(frames, readable_frames());
  taken_.store(taken_.load(std::memory_order_relaxed) + frames, std::memory_order_release);
  return frames;
}

}  // namespace halo::realtime
