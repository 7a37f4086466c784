#pragma once
// The shape of halo's GPU overlap-save (cuda-fft and cuda-fft-fused), in plain C++: the
// registry's accepts() and the tests read it without a device; the kernels read the same
// structs, and the index arithmetic they share is here, once (HALO_HD: host and device).
//
// The stream is cut into segments at fixed stream positions, whatever the chunks are (an
// FFT's rounding depends on every value in its block, so a segment cut short by a chunk
// boundary would round differently and --chunk would change the output, as in cpu-fft):
//   segment q (q = 0, 1, ...) computes the outputs y[q H, q H + H) from the inputs
//   x[q H - (Mmax - 1), q H + H): fft_frames L = H + Mmax - 1 of them, x[n < 0] = 0.
// Segments are computed `segments_per_step` (G) at a time: a step is G consecutive segments,
// step j = segments [j G, j G + G), and it runs once its last input frame has arrived. Its
// outputs are emitted during the next step's frames, so the output lags the causal
// convolution by step_frames = G H frames: latency_frames().
//   cuda-fft:       G = 1: each segment is one real transform of a cuFFT batch.
//   cuda-fft-fused: G = 2: the two segments of a step ride in one complex transform (the
//                   first as the real part, the second as the imaginary part; h is real, so
//                   the product's real and imaginary parts are the two convolutions). The
//                   pairing is fixed by the stream position, so it never changes a bit.
//
// On the device each channel keeps two rings, indexed by stream position modulo their size
// (a power of two):
//   input ring  (ring_frames R):   x[p] at slot p mod R, for the frames a segment still needs;
//   output ring (out_ring_frames): y[n] at slot n mod Ry, computed and not yet emitted.
// The rings are large enough that a slot is never overwritten while it is still to be read
// (see plan_geometry), so the halo is carried on the device across chunks with no copy.
//
// A process() call is cut into pieces of at most piece_frames; each piece is one pass on the
// device: its frames into the input ring, the steps it completes (at most batch_steps)
// through the transform into the output ring, its outputs out of the output ring.
#include <cstddef>
#include <string>

#include "src/engine/process_spec.hpp"
#include "src/engine/tap_set.hpp"

#if defined(__CUDACC__)
#define HALO_HD __host__ __device__ __forceinline__
#else
#define HALO_HD inline
#endif

namespace halo::cuda {

enum class FftMethod {
  cufft,  // cuda-fft: cuFFT R2C, spectral product, C2R; any mask length up to max_cufft_mask_frames
  fused,  // cuda-fft-fused: one kernel per batch of steps, FFTs in shared memory
};

// Limits (accepts() and plan_geometry() share them).
constexpr std::size_t max_cufft_mask_frames = std::size_t{1} << 22;  // 4 Mi taps (87 s at 48 kHz)
constexpr std::size_t max_cufft_fft_frames = std::size_t{1} << 23;   // 32 MiB of float per segment
constexpr std::size_t min_cufft_fft_frames = 256;
// Real samples of segments the cuFFT path holds at once (channels x batch x L); bounds its
// device memory: about 3x this many floats (segments, spectra, cuFFT's work area).
constexpr std::size_t cufft_batch_samples = std::size_t{1} << 22;
constexpr std::size_t max_cufft_channel_samples = std::size_t{1} << 26;  // channels x L
// The fused kernel holds one complex transform of L points in shared memory (8 L bytes).
constexpr std::size_t min_fused_fft_frames = 512;
constexpr std::size_t max_fused_fft_frames = 16384;                   // 128 KiB of shared memory
constexpr std::size_t max_fused_mask_frames = max_fused_fft_frames / 2;  // L >= 2 Mmax
// Largest max_block_frames whose pieces run as one captured CUDA graph.
constexpr std::size_t graph_max_block_frames = 16384;

// Everything prepare() sizes, from the method, the channels, max_mask_frames and
// max_block_frames alone; so set_taps never reallocates and the latency never changes.
struct Geometry {
  FftMethod method = FftMethod::cufft;
  int channels = 0;
  long long mask_frames = 0;       // Mmax: the geometry's mask length (shorter masks are zero-padded)
  long long halo_frames = 0;       // Mmax - 1: inputs before a segment's outputs
  long long fft_frames = 0;        // L, a power of two
  long long hop_frames = 0;        // H = L - (Mmax - 1): outputs per segment
  int segments_per_step = 1;       // G
  long long step_frames = 0;       // G H: frames per step, and the latency
  long long batch_steps = 0;       // B: most steps one piece completes (a batch per channel)
  long long piece_frames = 0;      // most frames one pass on the device takes
  long long ring_frames = 0;       // R, a power of two
  long long out_ring_frames = 0;   // Ry, a power of two
  int max_pieces = 0;              // pieces of the largest block
  int fused_threads = 0;           // threads per block of the fused kernel
  bool graph = false;              // a piece runs as one captured CUDA graph (small blocks)

  HALO_HD long long bins() const { return fft_frames / 2 + 1; }  // R2C output length
  HALO_HD long long batch_segments() const { return batch_steps * segments_per_step; }  // per channel
};

// The work of one piece, in the device memory the kernels read (the host fills it; a CUDA
// graph's kernels read it from the same place every launch).
struct PieceHeader {
  long long position = 0;       // stream frame of the piece's first frame
  long long first_segment = 0;  // the first segment the piece completes
  int frames = 0;               // frames in the piece (1 .. piece_frames)
  int segments = 0;             // segments it completes, a multiple of G (0 .. batch_segments)
};

// FFT size for cuda-fft by a cost model: per output, an overlap-save segment costs about
// L (log2 L + c) / H, where c stands for the passes over memory that do not grow with L
// (gather, product, crop); the cheaper of the powers of two at 4x and 8x Mmax, within
// [min_cufft_fft_frames, max_cufft_fft_frames].
std::size_t cufft_fft_frames(std::size_t max_mask_frames);
// FFT size for cuda-fft-fused: 4x Mmax, within [min_fused_fft_frames, max_fused_fft_frames].
std::size_t fused_fft_frames(std::size_t max_mask_frames);

// Whether `method` takes this stream and these taps; when not, why_not says why in words.
// Starts no CUDA context.
bool fft_accepts(FftMethod method, const TapSet& taps, const ProcessSpec& spec, std::string* why_not);

// What the registry's engines use, and tests may shrink: a smaller batch makes more pieces
// and wraps the rings sooner, on short signals.
struct FftTuning {
  std::size_t batch_samples = cufft_batch_samples;  // channels x batch segments x L, at least one step
};

// The whole geometry. Throws halo::Error where fft_accepts would refuse the spec.
Geometry plan_geometry(FftMethod method, const ProcessSpec& spec, const FftTuning& tuning = {});

// The piece that starts at stream frame `position` and takes `frames` (<= piece_frames).
HALO_HD PieceHeader plan_piece(const Geometry& g, long long position, int frames) {
  PieceHeader piece;
  piece.position = position;
  piece.frames = frames;
  const long long first_step = position / g.step_frames;             // the step `position` is in
  const long long steps = (position + frames) / g.step_frames - first_step;  // steps completed
  piece.first_segment = first_step * g.segments_per_step;
  piece.segments = static_cast<int>(steps * g.segments_per_step);
  return piece;
}

// Slot of stream position p (p >= 0) in a ring of `frames` (a power of two).
HALO_HD long long ring_slot(long long p, long long frames) { return p & (frames - 1); }

// First input frame of segment q: x[segment_input(q) + i] for i in [0, L).
HALO_HD long long segment_input(const Geometry& g, long long q) { return q * g.hop_frames - g.halo_frames; }

// The element-wise work of the kernels (overlap_save_kernels.cu), shared with the host
// emulation in the tests. Channels are planar in the rings (channel c at c R and c Ry); `slot` b =
// c * batch_segments + s is where segment first_segment + s of channel c sits in the cuFFT
// path's buffers.

// Sample i (< frames x channels) of the piece's interleaved frames into the input ring.
HALO_HD void to_ring_sample(const Geometry& g, const PieceHeader& h, long long i, const float* in, float* ring) {
  const long long f = i / g.channels, c = i - f * g.channels;
  ring[c * g.ring_frames + ring_slot(h.position + f, g.ring_frames)] = in[i];
}

// Sample i of the piece's outputs: frame f carries y[position + f - step_frames] (0 before
// the stream's start).
HALO_HD void from_ring_sample(const Geometry& g, const PieceHeader& h, long long i, const float* out_ring, float* out) {
  const long long f = i / g.channels, c = i - f * g.channels;
  const long long n = h.position + f - g.step_frames;
  out[i] = n < 0 ? 0.0f : out_ring[c * g.out_ring_frames + ring_slot(n, g.out_ring_frames)];
}

// Point i (< L) of segment first_segment + s of channel c, from the input ring, into its slot.
HALO_HD void gather_point(const Geometry& g, const PieceHeader& h, long long c, long long s, long long i,
                          const float* ring, float* segments) {
  const long long p = segment_input(g, h.first_segment + s) + i;
  segments[(c * g.batch_segments() + s) * g.fft_frames + i] = p < 0 ? 0.0f : ring[c * g.ring_frames + ring_slot(p, g.ring_frames)];
}

// Output i (< H) of segment first_segment + s of channel c: point Mmax - 1 + i of its inverse
// transform (the first Mmax - 1 are spoilt by the circular wrap), into the output ring.
HALO_HD void crop_point(const Geometry& g, const PieceHeader& h, long long c, long long s, long long i,
                        const float* segments, float* out_ring) {
  const long long n = (h.first_segment + s) * g.hop_frames + i;
  out_ring[c * g.out_ring_frames + ring_slot(n, g.out_ring_frames)] =
      segments[(c * g.batch_segments() + s) * g.fft_frames + g.halo_frames + i];
}

}  // namespace halo::cuda
