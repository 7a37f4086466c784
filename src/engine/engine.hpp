#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "src/engine/error.hpp"
#include "src/engine/process_spec.hpp"
#include "src/engine/tap_set.hpp"

namespace halo {

// What process() says. Checked by every caller ([[nodiscard]]); on `failed`, failure() holds
// one line saying why (a CUDA error, say), and the stream state is undefined until reset().
enum class [[nodiscard]] Status { ok, failed };

// The seam every backend (CPU, CUDA, FFT, partitioned) plugs into, so pipelines cannot tell
// them apart. An engine computes the causal convolution
//     y[n] = sum_k h_c[k] x[n-k]     (x[n < 0] = 0)
// of each channel c of an interleaved stream fed in blocks of any size, and carries the halo
// (the last M-1 input frames) from one block to the next itself, so any blocking gives the
// same samples.
//
// Contract:
//   prepare(spec)  sizes every buffer (device, pinned, FFT workspace, carry) once. Throws.
//   set_taps(taps) installs a TapSet built off the audio thread (taps.channels() ==
//                  spec.channels, taps.mask_frames() <= spec.max_mask_frames). The carry is
//                  kept: from stream position t of the call on, output frames t + latency and
//                  later equal a fresh engine's given these taps from the start. Never
//                  concurrent with process(); may allocate tap storage, never stream state.
//                  Throws.
//   process(in, out, frames)  1 <= frames <= spec.max_block_frames interleaved frames in, as
//                  many out; `in` and `out` do not overlap. noexcept: never allocates, locks,
//                  throws or logs; reports failure in its Status.
//   reset()        forgets the carry, as if the stream started again; keeps the taps.
//   latency_frames()   frames by which output lags the causal convolution above.
//   preferred_block_frames()  the block size the engine runs best at (a hint for pipelines).
// The public functions check once and call one protected virtual per implementation.
class Engine {
 public:
  virtual ~Engine() = default;
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void prepare(const ProcessSpec& spec);
  void set_taps(const TapSet& taps);
  Status process(const float* in, float* out, std::size_t frames) noexcept;
  void reset();

  std::size_t latency_frames() const { return do_latency_frames(); }
  std::size_t preferred_block_frames() const { return do_preferred_block_frames(); }
  virtual std::string name() const = 0;

  // Why the last process() failed; empty after a success.
  const char* failure() const noexcept { return failure_; }

  // Seconds spent so far in each part of process() ("copies to device", "kernels", ...), for
  // --timings; empty for engines that do not break their time down.
  virtual std::vector<std::pair<std::string, double>> time_breakdown() const { return {}; }

  const ProcessSpec& spec() const { return spec_; }
  int channels() const { return spec_.channels; }
  std::size_t mask_frames() const { return mask_frames_; }  // M of the installed taps; 0 before set_taps
  bool ready() const { return prepared_ && mask_frames_ > 0; }

 protected:
  virtual void do_prepare(const ProcessSpec& spec) = 0;
  virtual void do_set_taps(const TapSet& taps) = 0;
  virtual Status do_process(const float* in, float* out, std::size_t frames) noexcept = 0;
  virtual void do_reset() = 0;
  virtual std::size_t do_latency_frames() const { return 0; }
  virtual std::size_t do_preferred_block_frames() const { return 4096; }

  // For do_process: records why it failed (formatted into a fixed buffer: no allocation) and
  // returns Status::failed.
  Status fail(const char* format, ...) noexcept
#if defined(__GNUC__)
      __attribute__((format(printf, 2, 3)))
#endif
      ;

 private:
  ProcessSpec spec_;
  std::size_t mask_frames_ = 0;
  // What process() multiplies the output by: 1, or 2^-e for taps set_taps gave the engine
  // multiplied by 2^e (taps far below any audible level; see Engine::set_taps).
  float output_scale_ = 1;
  // After set_taps changed that scale mid-stream: the scale before, for the next
  // previous_scale_frames_ output frames (the engine's latency), which the taps before made.
  float previous_scale_ = 1;
  std::size_t previous_scale_frames_ = 0;
  bool prepared_ = false;
  char failure_[256] = {};
};

}  // namespace halo
