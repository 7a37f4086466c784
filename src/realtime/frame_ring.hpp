#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace halo::realtime {

// A lock-free single-producer / single-consumer ring of interleaved float frames: the only
// thing the audio callback and the worker share for samples.
//
// Contract: exactly one thread writes (write, write_silence) and exactly one thread reads
// (read, discard); the two may run at the same time. Nothing here allocates, locks or waits
// after construction; every call is O(frames) and noexcept, fit for the audio callback.
//
// Carried state:
//   samples_  capacity_frames_ x channels_ floats; frame f (counted from the start) lives at
//             (f & mask_) * channels_
//   written_  frames written so far (producer's; released after the samples are stored, so a
//             consumer that acquires it sees them)
//   taken_    frames read or discarded so far (consumer's; released after the samples were
//             copied out, so the producer that acquires it may overwrite them)
// written_ - taken_ is always in [0, capacity]. Both counters are 64-bit and never wrap in
// practice (2^64 frames is millions of years at 1 MHz).
class FrameRing {
 public:
  // Capacity: the smallest power of two >= min_capacity_frames (at least 2). Allocates.
  FrameRing(int channels, std::size_t min_capacity_frames);
  FrameRing(const FrameRing&) = delete;
  FrameRing& operator=(const FrameRing&) = delete;

  int channels() const noexcept { return channels_; }
  std::size_t capacity_frames() const noexcept { return capacity_frames_; }

  // Producer side.
  std::size_t writable_frames() const noexcept;
  // Copies up to `frames` frames in; returns how many fit (never more than writable_frames()).
  std::size_t write(const float* interleaved, std::size_t frames) noexcept;
  std::size_t write_silence(std::size_t frames) noexcept;

  // Consumer side.
  std::size_t readable_frames() const noexcept;
  // Copies up to `frames` frames out; returns how many there were.
  std::size_t read(float* interleaved, std::size_t frames) noexcept;
  // Drops up to `frames` frames; returns how many there were.
  std::size_t discard(std::size_t frames) noexcept;

 private:
  template <typename Copy>
  std::size_t produce(std::size_t frames, Copy copy) noexcept;

  int channels_;
  std::size_t capacity_frames_;
  std::size_t mask_;
  std::vector<float> samples_;
  alignas(64) std::atomic<std::uint64_t> written_{0};
  alignas(64) std::atomic<std::uint64_t> taken_{0};
};

}  // namespace halo::realtime
