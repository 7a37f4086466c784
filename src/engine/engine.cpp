#include "src/engine/engine.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

#if defined(__SSE__) || defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define HALO_MXCSR 1
#endif

namespace halo {
namespace {

// Denormal (subnormal) floats cost up to a hundred cycles an operation on x86; a filter's
// decaying tail or a quiet input produces them for nothing audible. While an engine runs,
// denormal inputs are read as zero (DAZ) and denormal results are flushed to zero (FTZ), in
// every engine alike, and the caller's mode is restored afterwards.
class FlushDenormals {
 public:
#if defined(HALO_MXCSR)
  FlushDenormals() noexcept : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | flush_to_zero | denormals_are_zero); }
  ~FlushDenormals() { _mm_setcsr(saved_); }

 private:
  static constexpr unsigned flush_to_zero = 0x8000;       // MXCSR.FTZ
  static constexpr unsigned denormals_are_zero = 0x0040;  // MXCSR.DAZ
  unsigned saved_;
#elif defined(__aarch64__)
  FlushDenormals() noexcept {
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved_));
    const unsigned long flush = saved_ | (1ul << 24);  // FPCR.FZ: inputs and results
    __asm__ __volatile__("msr fpcr, %0" : : "r"(flush));
  }
  ~FlushDenormals() { __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_)); }

 private:
  unsigned long saved_;
#else
  FlushDenormals() noexcept = default;  // elsewhere: the platform's default mode
#endif
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;
};

}  // namespace

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
  output_scale_ = 1;
  previous_scale_frames_ = 0;
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
  // Taps far below any audible level (a mask at -600 dB, the largest tap 5e-35) lose their
  // figures in an FFT engine: its 1/N and its transforms take their spectrum below FLT_MIN,
  // where it is flushed (cpu-fft came out 2e-3 off at 4095 taps, and at 2^20 taps of 5e-35
  // nothing like the convolution; a QA pass). Such taps go to the engine scaled up by a power of
  // two, which is exact, and process() scales its output back down, exactly unless a sample
  // falls below FLT_MIN, where every engine flushes it anyway. Taps at audible levels are given
  // as they are: no engine's output changes by a bit. Scaled up only as far as -240 dB, not to
  // full scale: an engine's sums then overflow no sooner than at that level (a review: taps
  // brought to 1 had overflowed the direct engine's sums for inputs of 3e38).
  const float peak = taps.peak();
  constexpr int tiny_exponent = -40;  // -240 dB
  const int exponent = peak > 0 && std::ilogb(peak) < tiny_exponent ? tiny_exponent - std::ilogb(peak) : 0;
  const float scale = std::ldexp(1.0f, -exponent);  // at least 2^-86: a normal float
  do_set_taps(exponent != 0 ? taps.scaled_by_power_of_two(exponent) : taps);
  // The frames still in flight when the scale changes mid-stream were computed with the taps
  // before, at their scale: an engine with latency L gives them as its next L frames (a review:
  // a switch from -600 dB taps to audible ones had come out at +18 dBFS for 900 frames).
  if (scale != output_scale_ && mask_frames_ > 0) {
    previous_scale_ = output_scale_;
    previous_scale_frames_ = latency_frames();
  }
  output_scale_ = scale;
  mask_frames_ = taps.mask_frames();
}

Status Engine::process(const float* in, float* out, std::size_t frames) noexcept {
  failure_[0] = '\0';
  if (!ready()) return fail("process before prepare and set_taps");
  if (frames > spec_.max_block_frames)
    return fail("a block of %zu frames exceeds the prepared %zu", frames, spec_.max_block_frames);
  if (frames == 0) return Status::ok;
  const FlushDenormals flush;
  const Status status = do_process(in, out, frames);
  if (status != Status::ok) return status;
  const std::size_t channels = static_cast<std::size_t>(spec_.channels);
  std::size_t frame = 0;
  for (; frame < frames && previous_scale_frames_ > 0; ++frame, --previous_scale_frames_)
    if (previous_scale_ != 1)
      for (std::size_t c = 0; c < channels; ++c) out[frame * channels + c] *= previous_scale_;
  if (output_scale_ != 1)
    for (std::size_t i = frame * channels; i < frames * channels; ++i) out[i] *= output_scale_;
  return status;
}

void Engine::reset() {
  if (prepared_) do_reset();
  previous_scale_frames_ = 0;  // nothing in flight
}

Status Engine::fail(const char* format, ...) noexcept {
  std::va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(failure_, sizeof failure_, format, arguments);
  va_end(arguments);
  return Status::failed;
}

}  // namespace halo
