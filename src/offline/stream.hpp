#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "audio/reader.hpp"
#include "audio/writer.hpp"
#include "src/engine/engine.hpp"
#include "src/offline/cancellation.hpp"

namespace halo {

// Where output frame 0 sits on the full convolution y_full (length N + M - 1).
enum class Alignment {
  centred,  // linear-phase delay (M-1)/2 removed: numpy.convolve(x, h, mode='same')
  causal,   // no advance, like applying a measured impulse response: y_full[0..]
};

struct StreamOptions {
  std::size_t chunk_frames = 1 << 18;  // [1, 1 << 24] frames per chunk; never changes the result
  Alignment alignment = Alignment::centred;
  bool tail = false;                   // run on to the end of y_full instead of stopping at N frames
  float gain = 1.0f;                   // linear, applied before clipping
};

struct StreamTimings {
  double engine_wait_s = 0;  // waiting for the engine (CUDA context start) after the first chunk was read
  double read_s = 0;         // reader thread inside libsndfile
  double process_s = 0;      // engine stage inside Engine::process
  double write_s = 0;        // writer thread inside gain, clipping and libsndfile
  double wall_s = 0;
};

struct StreamResult {
  std::uint64_t frames_in = 0;
  std::uint64_t frames_out = 0;
  std::uint64_t clipped_samples = 0;
  StreamTimings timings;
};

// Cuts the input into chunks and drives them through the engine, which carries the halo.
// Three threads overlap the work: a reader fills chunks, this thread runs the engine, a writer
// drains them; a small fixed pool of chunk buffers keeps memory flat for any file length.
// The stream trims the alignment delay and the engine's latency from the start and, after the
// input ends, feeds zeros until the output is complete, so the output has exactly
// output_frames(N) frames.
class Stream {
 public:
  Stream(const StreamOptions& options, std::size_t mask_frames);

  std::size_t delay_frames() const;  // the alignment's advance, trimmed from the start (plus the engine's latency)
  std::uint64_t output_frames(std::uint64_t input_frames) const;    // N, or up to the end of y_full with tail

  // `engine` is called once, on this thread, when the first chunk is ready: the engine may
  // still be starting (a CUDA context) while the reader works. It must be prepared for
  // chunk_frames frames and the reader's channel count, with its taps set.
  // progress(frames_out) runs on the writer. A cancellation stops the run between chunks with
  // halo::Error("interrupted").
  using EngineSource = std::function<Engine&()>;
  using Progress = std::function<void(std::uint64_t frames_out)>;
  StreamResult run(audio::Reader& reader, const EngineSource& engine, audio::Writer& writer,
                   const Progress& progress, const Cancellation& cancellation);

 private:
  StreamOptions options_;
  std::size_t mask_frames_;
};

}  // namespace halo
