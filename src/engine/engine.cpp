#include "src/engine/engine.hpp"

#include <cstdarg>
#include <cstdio>

namespace halo {

void validate(const ProcessSpec& spec) {
  if (spec.channels < 1 || spec.channels > ProcessSpec::max_channels)
    throw Error("the stream has " + std::to_string(spec.channels) + " channels: give 1 to " +
                std::to_string(ProcessSpec::max_channels));
  if (spec.max_block_frames < 1 || spec.max_block_frames > ProcessSpec::max_block_frames_limit)
    throw Error("a block of " + std::to_string(spec.max_block_frames) + " frames: give 1 to " +
                std::to_string(ProcessSpec::max_block_frames_limit));
  if (spec.max_mask_frames < 1 || spec.max_mask_frames > ProcessSpec::max_mask_frames_limit)
    throw Error("a mask of " + std::to_string(spec.max_mask_frames) + " taps: give 1 to " +
                std::to_string(ProcessSpec::max_mask_frames_limit));
  if (!(spec.rate_hz >= 0)) throw Error("the sample rate must be positive (or 0 when unknown)");
}

void Engine::prepare(const ProcessSpec& spec) {
  validate(spec);
  prepared_ = false;
  mask_frames_ = 0;
  do_prepare(spec);
  spec_ = spec;
  prepared_ = true;
}

void Engine::set_taps(const TapSet& taps) {
  if (!prepared_) throw Error(name() + ": taps given before prepare");
  if (taps.channels() != spec_.channels)
    throw Error(name() + ": taps for " + std::to_string(taps.channels()) + " channels, but the stream has " +
                std::to_string(spec_.channels));
  if (taps.mask_frames() > spec_.max_mask_frames)
    throw Error(name() + ": a mask of " + std::to_string(taps.mask_frames()) + " taps, but the engine was prepared for " +
                std::to_string(spec_.max_mask_frames));
  do_set_taps(taps);
  mask_frames_ = taps.mask_frames();
}

Status Engine::process(const float* in, float* out, std::size_t frames) noexcept {
  failure_[0] = '\0';
  if (!ready()) return fail("process before prepare and set_taps");
  if (frames > spec_.max_block_frames)
    return fail("a block of %zu frames exceeds the prepared %zu", frames, spec_.max_block_frames);
  if (frames == 0) return Status::ok;
  return do_process(in, out, frames);
}

void Engine::reset() {
  if (prepared_) do_reset();
}

Status Engine::fail(const char* format, ...) noexcept {
  std::va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(failure_, sizeof failure_, format, arguments);
  va_end(arguments);
  return Status::failed;
}

}  // namespace halo
