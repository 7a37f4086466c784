#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace halo {

// Output that must be exactly 0 written as 0. y_full[n] = sum_k h[k] x[n - k] is exactly 0
// wherever x[n - M + 1 .. n] are all 0 on that channel (or subnormal: every engine flushes
// those), but an FFT engine leaves rounding dust there (about 3e-8 after a burst, up to one of
// its blocks away: over a second with cpu-fft's parallel blocks), which the writer's dither
// then turned into ±1 LSB noise in digital silence (a QA pass, 4095 taps: 982 samples in a 1 s
// gap). The gate zeroes what the input's zero runs leave exactly 0, whatever the engine;
// nothing else changes.
//
// Two halves, so the per-sample scan runs on the reader thread: ChunkZeros scans one chunk on
// its own (vectorised where a stretch holds no silent sample: nearly all audio that is not
// silent), and SilenceGate, on the engine's thread, stitches the chunks in order and zeroes
// the outputs. play and live run both on their worker, block by block (realtime::Voice): there
// both are sized once (reserve_for_blocks) and then never allocate.

// The zero frames of one chunk, per channel (chunk-relative frames).
struct ChunkZeros {
  struct Run {
    std::size_t begin, end;  // frames [begin, end), all 0
  };
  struct Channel {
    std::size_t leading = 0;   // zero frames from the chunk's start (all of them: a silent channel)
    std::size_t trailing = 0;  // zero frames up to its end
    std::vector<Run> inner;    // runs between non-zero frames of at least min_run frames
  };
  std::vector<Channel> channels;
  std::size_t frames = 0;

  // The reader's one pass over a chunk of `frames` interleaved frames of `channel_count`
  // channels: NaN and Inf made 0 by the one rule (nonfinite.hpp; returns how many), and the
  // chunk summarised. Inner runs shorter than `min_run` (the mask's length: no output is 0
  // through them alone) are not kept. One pass, not two: on a fast machine the reader thread
  // sets the pace of a whole run, and a second pass over each chunk cost it 12-14 % (H100
  // machine, 10 minutes of stereo at 255 taps, alternating rounds in both orders).
  std::uint64_t scan(float* interleaved, std::size_t frames, int channel_count, std::size_t min_run);
  // The same summary of input already free of NaN and Inf (the real-time worker's blocks): read
  // only, the input's non-finite samples (none) counted as sound.
  void scan(const float* interleaved, std::size_t frames, int channel_count, std::size_t min_run);

  // Room for chunks of up to `max_frames`, so that no later scan of one allocates.
  void reserve_for_blocks(int channel_count, std::size_t max_frames, std::size_t min_run);

 private:
  template <typename Sample>
  std::uint64_t scan_samples(Sample* interleaved, std::size_t frames, int channel_count, std::size_t min_run);
  // Per channel while scanning: the last non-zero frame, and whether one has been met yet.
  std::vector<std::size_t> last_nonzero_;
  std::vector<char> met_;
};

class SilenceGate {
 public:
  SilenceGate(int channels, std::size_t mask_frames);

  // The input fed to the engine next, in order: a chunk as scanned, or `frames` of silence
  // (the flush after the input's end).
  void feed(const ChunkZeros& chunk);
  void feed_silence(std::size_t frames);

  // Zeroes, in `frames` interleaved output frames holding y_full[first ..], those that every
  // input frame before them leaves exactly 0. Only frames fed so far may be asked for.
  void zero_silent_outputs(float* interleaved, std::int64_t first, std::size_t frames);

  // Bounds what the gate holds, so that it never allocates again: outputs are asked for at most
  // `max_lag_frames` behind the input fed (an engine's latency plus a block), in chunks of up
  // to `max_chunk_frames`. Runs past the bound (none, if the bound holds) are not kept: their
  // outputs keep the engine's values, never zeroed wrongly.
  void reserve_for_blocks(std::size_t max_lag_frames, std::size_t max_chunk_frames);

 private:
  struct Run {
    std::int64_t begin, end;  // input frames [begin, end), all 0 on the channel
  };
  struct Channel {
    std::vector<Run> closed;  // runs of at least M frames that outputs still to come may fall in
    // Whether the input fed so far ends in zeros, and where that run began. Before the input
    // x is 0: the gate starts in a run that began long before frame 0.
    bool open;
    std::int64_t open_begin;
  };
  std::vector<Channel> channels_;
  std::int64_t mask_frames_;
  std::int64_t fed_ = 0;  // input frames fed so far
  bool bounded_ = false;  // reserve_for_blocks was called: closed never grows past its capacity
  void close_run(Channel& gate, std::int64_t begin, std::int64_t end);
};

}  // namespace halo
