#pragma once
#include <cstddef>

namespace halo {

// The shape of a stream, fixed by Engine::prepare: everything an engine allocates depends on
// these and nothing else, so new taps (set_taps) never reallocate the stream state.
struct ProcessSpec {
  int channels = 0;                   // [1, max_channels]
  std::size_t max_block_frames = 0;   // [1, max_block_frames_limit]: the most frames one process() gets
  std::size_t max_mask_frames = 0;    // [1, max_mask_frames_limit]: the longest mask set_taps will install;
                                      // sizes the carry (the last max_mask_frames - 1 input frames)
  double rate_hz = 0;                 // > 0, or 0 when unknown; engines do not depend on it

  static constexpr int max_channels = 1024;
  static constexpr std::size_t max_block_frames_limit = std::size_t{1} << 24;
  static constexpr std::size_t max_mask_frames_limit = std::size_t{1} << 24;
};

// Throws halo::Error naming the field that is out of range.
void validate(const ProcessSpec& spec);

}  // namespace halo
