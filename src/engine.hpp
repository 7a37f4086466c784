#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "filters/mask.hpp"

namespace halo {

// Errors of the pipeline and engines (sizes, masks, devices). CUDA errors derive from it.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// The seam every backend plugs into. An engine computes the causal convolution
//     y[n] = sum_k h_c[k] x[n-k]     (x[n < 0] = 0)
// of each channel c of an interleaved stream fed in chunks. It carries the halo (the last
// M-1 input frames) from one chunk to the next itself, so any chunking gives the same samples.
//
// Contract:
//   prepare  sizes every buffer (device, pinned, workspace) once for `max_chunk_frames`;
//            masks: one for all channels or one per channel (shorter masks are zero-padded at
//            the end to the longest, which changes nothing in the convolution).
//   process  `frames` (<= max_chunk_frames) interleaved frames in, the same number out;
//            never allocates; `in` and `out` must not overlap.
//   reset    forgets the carry, as if the stream started again.
//   latency  frames by which output lags the causal convolution above (0 for direct engines).
// The public functions check sizes once and call the implementation's virtuals.
class Engine {
 public:
  virtual ~Engine() = default;

  void prepare(const filters::MaskSet& masks, int channels, std::size_t max_chunk_frames);
  void process(const float* in, float* out, std::size_t frames);
  void reset();

  std::size_t latency_frames() const { return do_latency_frames(); }
  virtual std::string name() const = 0;

  // Seconds spent so far in each part of process() ("copies to device", "kernels", ...), for
  // --timings; empty for engines that do not break their time down.
  virtual std::vector<std::pair<std::string, double>> time_breakdown() const { return {}; }

  int channels() const { return channels_; }
  std::size_t mask_frames() const { return mask_frames_; }          // M, the longest mask
  std::size_t max_chunk_frames() const { return max_chunk_frames_; }

 protected:
  // taps_per_channel: exactly channels() masks, all mask_frames() long.
  virtual void do_prepare(const std::vector<std::vector<float>>& taps_per_channel,
                          std::size_t max_chunk_frames) = 0;
  virtual void do_process(const float* in, float* out, std::size_t frames) = 0;
  virtual void do_reset() = 0;
  virtual std::size_t do_latency_frames() const { return 0; }

 private:
  int channels_ = 0;
  std::size_t mask_frames_ = 0;
  std::size_t max_chunk_frames_ = 0;
  bool prepared_ = false;
};

}  // namespace halo
