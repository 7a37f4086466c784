#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>

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
  // [1, 1 << 24] frames per engine block (--chunk); never changes the result. Unset: the
  // automatic block (default_chunk_frames, or whole multiples of parallel_frames: as many as
  // default_chunk_frames holds, at least one).
  std::optional<std::size_t> chunk_frames;
  // Frames one engine call must bring for the engine to give every thread work
  // (EngineEntry::parallel_block_frames, cpu-fft's; 0: no wish). cpu-fft runs one task per complete block
  // of each channel, and at long masks a block is long (262146 frames at 65535 taps): with
  // 2^18-frame calls, 16 threads had 2 stereo tasks a call. Only the automatic block follows it.
  std::size_t parallel_frames = 0;
  Alignment alignment = Alignment::centred;
  bool tail = false;                   // run on to the end of y_full instead of stopping at N frames
  float gain = 1.0f;                   // linear, applied before clipping
  bool accept_short = false;           // an input shorter than its header declares: filter what
                                       // there is (the caller warns) instead of failing
  bool measure_input_peak = false;     // StreamResult::input_peak (--norm's noise floor), a pass over each chunk
  // Called once, on the stage that failed, as soon as the run's first failure is known, before
  // the other stages are waited for: one blocked in a read or a write that never returns (a
  // stalled pipe at the other end) holds run() back until it does, and with it the failure.
  // The CLI gives the run the grace a signal gets to unwind, then says the failure and exits
  // (src/cli/interrupt.hpp). Empty: nothing called.
  std::function<void(std::exception_ptr)> on_failure;
};

// Memory stays flat whatever the file length and the channel count: every buffer the stream
// sizes (and the engine's blocks) holds at most max_buffer_samples samples (4 MiB of float32),
// so the frames per block shrink as channels grow: 262144 frames for stereo, 1024 for 1024
// channels. The one exception is the automatic block of an engine with threads to feed
// (parallel_frames): up to max_parallel_buffer_samples (32 MiB of float32) a buffer, so at
// most 6 such buffers (3 in, 3 out) and the engine's own of the same size.
// Reading and writing go in I/O chunks of at least min_io_frames frames (within the same
// budget) whatever the engine block is, so a tiny --chunk costs no system call per block.
constexpr std::size_t max_buffer_samples = std::size_t{1} << 20;
constexpr std::size_t max_parallel_buffer_samples = std::size_t{1} << 23;
constexpr std::size_t default_chunk_frames = std::size_t{1} << 18;
constexpr std::size_t min_io_frames = std::size_t{1} << 16;

// Fewer frames read than the header declares is a truncated file: throws, naming both counts
// and what became of the output, unless accept_short.
void check_input_length(const audio::Reader& reader, std::uint64_t frames_read, std::int64_t declared, bool accept_short);

// The engine block: chunk_frames, capped by the budget (at least 1 frame); unset, the larger
// of default_chunk_frames (within the budget) and parallel_frames (within the parallel budget).
std::size_t engine_block_frames(const StreamOptions& options, int channels);
// The I/O chunk: at least the engine block, at least min_io_frames where the budget allows.
std::size_t io_chunk_frames(const StreamOptions& options, int channels);

struct StreamTimings {
  double engine_wait_s = 0;  // waiting for the engine (CUDA context start) after the first chunk was read
  double read_s = 0;         // reader thread inside libsndfile
  double process_s = 0;      // engine stage inside Engine::process
  double write_s = 0;        // writer thread inside gain, clipping and libsndfile
  double wall_s = 0;
};

struct StreamResult {
  std::uint64_t frames_in = 0;
  std::int64_t declared_frames = -1;  // what the input's header declares; -1 when unknown (a pipe)
  std::uint64_t frames_out = 0;
  std::uint64_t clipped_samples = 0;           // the writer's (NaN counts as clipped in integer output)
  std::uint64_t dither_held_samples = 0;       // the writer's: carried past full scale by the dither alone
  std::uint64_t nonfinite_input_samples = 0;   // NaN or Inf read, fed to the engine as 0
  float input_peak = 0;                        // with measure_input_peak: the largest |sample| read (finite)
  std::uint64_t nonfinite_output_samples = 0;  // NaN or Inf results, written as 0 (or clipped)
  StreamTimings timings;
};

// Cuts the input into chunks and drives them through the engine, which carries the halo.
// Three threads overlap the work: a reader fills I/O chunks, this thread runs the engine over
// each in blocks of engine_block_frames, a writer drains them; a small fixed pool of chunk
// buffers keeps memory flat for any file length and channel count.
// One rule for non-finite samples, whatever the engine: NaN and Inf input samples are fed to
// the engine as 0 and counted; the writer counts (and does not write) non-finite results.
// An input that ends before the frames its header declares fails the run (nothing written)
// unless options.accept_short. The input's metadata strings (title, artist, ...) are copied
// to the output.
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
  // engine_block_frames frames (or fewer: the stream then uses that) and the reader's channel
  // count, with its taps set. The writer takes I/O chunks of up to its max_chunk_frames().
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
