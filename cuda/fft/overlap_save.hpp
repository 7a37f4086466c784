#pragma once
// The shape of halo's GPU overlap-save (cuda-fft and cuda-fft-fused), in plain C++: the
// registry's accepts() and the tests read it without a device; the kernels read the same
// structs, and the index arithmetic they share is here, once (HALO_HD: host and device).
//
// The stream is cut into segments at fixed stream positions, whatever the chunks are (an
// FFT's rounding depends on every value in its block, so a segment cut short by a chunk
// boundary would round differently and --chunk would change the output, as in cpu-fft):
//   segment q (q = 0, 1, ...) computes the outputs y[q H, q H + H) from the inputs
//   x[q H - D, q H + H): fft_frames L = H + D of them, x[n < 0] = 0, where the halo D is at
//   least Mmax - 1 (the first D points of the circular convolution are discarded, the
//   first Mmax - 1 of them spoilt by its wrap) and H is a multiple of aligned_hop_frames.
// Segments are computed `segments_per_step` (G) at a time: a step is G consecutive segments,
// step j = segments [j G, j G + G), and it runs once its last input frame has arrived. Its
// outputs are emitted during the next step's frames, so the output lags the causal
// convolution by step_frames = G H frames: latency_frames().
//   cuda-fft:       G = 1: each segment is one transform of a cuFFT batch (its L reals as
//                   L/2 complex pairs: real_spectrum.hpp).
//   cuda-fft-fused: G = 2: the two segments of a step ride in one complex transform (the
//                   first as the real part, the second as the imaginary part; h is real, so
//                   the product's real and imaginary parts are the two convolutions). The
//                   pairing is fixed by the stream position, so it never changes a bit.
//
// On the device each channel keeps two rings, indexed by stream position modulo their size
// (a power of two), for what crosses from one piece to a later one:
//   input ring  (ring_frames R):   x[p] at slot p mod R, for the frames a later piece's
//                                  segments still need (the last step + D + 1 of each piece);
//   output ring (out_ring_frames): y[n] at slot n mod Ry, computed and due in a later piece.
// The rings are large enough that a slot is never overwritten while it is still to be read
// (see plan_geometry), so the halo is carried on the device across chunks with no copy.
//
// A process() call is cut into pieces of at most piece_frames; each piece is one pass on the
// device: the steps it completes (at most batch_steps) read their inputs straight from the
// piece's frames (the ring only before the piece) and write each output straight into the
// piece's output frame (the ring only when it is due in a later piece); then the piece's
// tail goes into the input ring and its first frames, due from earlier pieces, come out of
// the output ring. So the signal crosses device memory about once each way, as in a copy.
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
  cufft,  // cuda-fft: cuFFT C2C of each segment's pairs, spectral product, C2C back; masks up to max_cufft_mask_frames
  fused,  // cuda-fft-fused: one kernel per batch of steps, FFTs in shared memory
};

// Limits (accepts() and plan_geometry() share them).
constexpr std::size_t max_cufft_mask_frames = std::size_t{1} << 22;  // 4 Mi taps (87 s at 48 kHz)
constexpr std::size_t max_cufft_fft_frames = std::size_t{1} << 23;   // 32 MiB of float per segment
constexpr std::size_t min_cufft_fft_frames = 256;
// Real samples of segments the cuFFT path holds at once (channels x batch x L); bounds its
// device memory: about 3x this many floats (segments, spectra, cuFFT's work area).
constexpr std::size_t cufft_batch_samples = std::size_t{1} << 22;
// The fused path holds no segments: its batch bounds only the grid and the piece's staging
// (2 x channels x piece floats); larger pieces mean fewer launches and fuller last waves.
constexpr std::size_t fused_batch_samples = std::size_t{1} << 24;
constexpr std::size_t max_cufft_channel_samples = std::size_t{1} << 26;  // channels x L
// The fused kernel holds one complex transform of L points in shared memory (8 L bytes), up
// to max_fused_block_fft_frames; larger transforms run split over 16 rows of at most that
// size (split_fft.hpp): in a cluster of 16 blocks where the GPU holds one, else in three
// kernels through a scratch in device memory of fused_batch_samples / 2 complex values a
// piece (64 MiB). On the H100 (halo_bench
// fft-batch) larger pieces were faster at every size tried, 2^20 to 2^24 samples: 16383 taps
// 2.23 / 1.36 / 1.00 / 0.90 / 0.84 ms; 16 MiB of scratch stayed in the L2 cache between the
// kernels, but left too few blocks to fill the GPU.
constexpr std::size_t min_fused_fft_frames = 512;
constexpr std::size_t max_fused_block_fft_frames = 16384;                 // 128 KiB of shared memory
constexpr std::size_t max_fused_fft_frames = 16 * max_fused_block_fft_frames;  // split: 16 rows
constexpr std::size_t max_fused_mask_frames = max_fused_fft_frames / 2;  // L >= 2 Mmax
// Every hop is a multiple of this many frames, so that every segment's first input frame and
// first output sit at a multiple of it in the stream: the kernels load a segment's points and
// store its outputs 32 consecutive frames a warp, and so cover whole 32-byte sectors (in mono;
// 4 of them a warp) rather than straddling one more. Nsight Compute on cuda-fft-fused at 255
// taps with the unaligned hop, 1794: 26.9 of 32 bytes used a stored sector, 29.8 a loaded one.
constexpr long long aligned_hop_frames = 32;

// Largest max_block_frames whose pieces run as one captured CUDA graph.
constexpr std::size_t graph_max_block_frames = 16384;

// Everything prepare() sizes, from the method, the channels, max_mask_frames and
// max_block_frames alone; so set_taps never reallocates and the latency never changes.
struct Geometry {
  FftMethod method = FftMethod::cufft;
  int channels = 0;
  long long mask_frames = 0;       // Mmax: the geometry's mask length (shorter masks are zero-padded)
  long long halo_frames = 0;       // D = L - H >= Mmax - 1: inputs before a segment's outputs
  long long fft_frames = 0;        // L, a power of two
  long long hop_frames = 0;        // H: outputs per segment, L - (Mmax - 1) rounded down to aligned_hop_frames
  int segments_per_step = 1;       // G
  long long step_frames = 0;       // G H: frames per step, and the latency
  long long batch_steps = 0;       // B: most steps one piece completes (a batch per channel)
  long long piece_frames = 0;      // most frames one pass on the device takes
  long long ring_frames = 0;       // R, a power of two
  long long out_ring_frames = 0;   // Ry, a power of two
  int max_pieces = 0;              // pieces of the largest block
  bool graph = false;              // a piece runs as one captured CUDA graph (small blocks)
  // cuda-fft-fused: each block (each cluster) asks L2 for the input of the step this many steps
  // of its channel past its own, which a block of the next wave will read; 0: none. Set by the
  // engine from what the GPU holds at once (fused_steps_at_once), not by plan_geometry.
  long long prefetch_steps = 0;

  HALO_HD long long bins() const { return fft_frames / 2 + 1; }  // a real spectrum's bins (the masks')
  HALO_HD long long batch_segments() const { return batch_steps * segments_per_step; }  // per channel
};

// Whether cuda-fft-fused's L-point transforms run split over 16 rows rather than in one block.
HALO_HD bool fused_split(long long fft_frames) { return fft_frames > static_cast<long long>(max_fused_block_fft_frames); }

// The work of one piece (the host plans it: plan_piece).
struct PieceHeader {
  long long position = 0;       // stream frame of the piece's first frame
  long long first_segment = 0;  // the first segment the piece completes
  int frames = 0;               // frames in the piece (1 .. piece_frames)
  int segments = 0;             // segments it completes, a multiple of G (0 .. batch_segments)
};

// Where a kernel finds its piece. A direct launch passes the header by value among its
// parameters: nothing is copied before the kernels, so calls queue back to back (a copy of
// the header into device memory ahead of every piece, and the wait before the next call
// could rewrite its pinned source, left the H100 idle for more than half of cuda-fft-fused's
// time at 255 taps). A CUDA graph, captured once to run any piece, reads it from device
// memory (`on_device`, which the graph's first node fills).
struct PieceSource {
  PieceHeader value;
  const PieceHeader* on_device = nullptr;
};

// FFT size for cuda-fft by a cost model: per output, an overlap-save segment costs about
// L (log2 L + c) / H, where c stands for the passes over memory that do not grow with L
// (gather, product, crop); the cheaper of the powers of two at 4x and 8x Mmax, within
// [min_cufft_fft_frames, max_cufft_fft_frames].
std::size_t cufft_fft_frames(std::size_t max_mask_frames);
// FFT size for cuda-fft-fused, by the same model with log2 L rounded up to whole radix-16
// passes (a pass of radix 2 costs a barrier and a shared-memory round trip as one of 16
// does) and c = 4 for the loads and stores (16 for a split transform: its scratch crosses
// memory three times more); the cheaper of 4x and 8x Mmax, within
// [min_fused_fft_frames, max_fused_fft_frames]. On the H100 (bench/halo_bench fft, calls of
// the engine's piece) it picks the fastest size measured at 255, 1023 and 4095 taps: 2048,
// 4096 and 16384 (0.518 ms against 0.552 at 8192; in calls of 2^24 frames, each cut into a
// large and a small piece, 8192 had looked faster).
std::size_t fused_fft_frames(std::size_t max_mask_frames);

// Whether `method` takes this stream and these taps; when not, why_not says why in words.
// Starts no CUDA context.
bool fft_accepts(FftMethod method, const TapSet& taps, const ProcessSpec& spec, std::string* why_not);

// What the registry's engines use (every field 0), and tests and the benchmark may change: a
// smaller batch makes more pieces and wraps the rings sooner, on short signals; a forced FFT
// size measures the cost model's choice against its neighbours; a hop multiple of 1 (the
// unaligned hop, L - (Mmax - 1)) measures what the alignment gains; the split in three
// kernels, what the cluster kernel gains (and tests the path GPUs without clusters take).
struct FftTuning {
  std::size_t batch_samples = 0;  // channels x batch segments x L, at least one step; 0: the method's
  std::size_t fft_frames = 0;     // a power of two within the method's limits, >= 2 Mmax; 0: the model's
  long long hop_multiple = 0;     // the hop rounded down to a multiple of this; 0: aligned_hop_frames
  bool split_in_three = false;    // cuda-fft-fused past one block: three kernels even where a cluster kernel runs
  int prefetch_waves = -1;        // cuda-fft-fused: Geometry::prefetch_steps in waves of steps; -1: the engine's choice
  long long helper_steps = -1;    // cuda-fft-fused with clusters: steps a piece the three kernels take beside the
                                  // cluster kernel (split_helper_steps); -1: the engine's choice, 0: none
};

// The whole geometry. Throws halo::Error where fft_accepts would refuse the spec.
Geometry plan_geometry(FftMethod method, const ProcessSpec& spec, const FftTuning& tuning = {});

// A batch (FftTuning::batch_samples) of whole waves for a kernel that runs `concurrent` steps
// of one channel at once (the cluster kernel: the clusters the GPU holds; the one-block
// kernel: the blocks it holds): steps x channels a multiple of `concurrent`, as many steps as
// g's batch has or fewer (down), or the multiple nearest to it (nearest), but one multiple at
// least. A partial last wave leaves SMs idle for a whole step's time: 32 steps on the H100's
// 7 clusters at L = 2^18 ran 5 waves where 28 run 4.
enum class WaveRounding { down, nearest };
std::size_t whole_wave_batch_samples(const Geometry& g, int concurrent, WaveRounding rounding = WaveRounding::down);

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

// One channel's view of a piece: its own frames and outputs (interleaved), and its rings.
struct ChannelIo {
  const float* in;  // x[position + f] at in[f * channels], f < frames
  float* out;       // the piece's output frame f at out[f * channels]
  const float* ring;
  float* out_ring;
};

HALO_HD ChannelIo channel_io(const Geometry& g, long long c, const float* in, float* out, const float* ring,
                             float* out_ring) {
  return {in + c, out + c, ring + c * g.ring_frames, out_ring + c * g.out_ring_frames};
}

// Frames of each piece's tail that go into the input ring: a later piece's segments read back
// at most step + D - 1 frames before that piece (its first completed segment starts after
// P - step - D).
HALO_HD long long ring_tail_frames(const Geometry& g) { return g.step_frames + g.halo_frames + 1; }

// The piece's first frame that goes into the input ring: every piece keeps its own last
// ring_tail_frames.
HALO_HD int first_frame_to_ring(const Geometry& g, const PieceHeader& h) {
  const long long kept = ring_tail_frames(g);
  return h.frames > kept ? static_cast<int>(h.frames - kept) : 0;
}

// The piece's first frames, whose outputs y[position + f - step_frames] an earlier piece
// computed (n below the piece's first completed segment's outputs): at most step_frames.
HALO_HD int frames_from_ring(const Geometry& g, const PieceHeader& h) {
  const long long n = h.first_segment * g.hop_frames + g.step_frames - h.position;
  return n < 0 ? 0 : n > h.frames ? h.frames : static_cast<int>(n);
}

// x[p] for a segment of this piece: p at piece frame f = p - position (f < frames, since the
// piece completes the segment), from the piece when f >= 0, from the ring before, 0 before
// the stream.
HALO_HD float piece_input(const Geometry& g, const PieceHeader& h, const ChannelIo& io, long long p) {
  const long long f = p - h.position;
  if (f >= 0) return io.in[f * g.channels];
  return p < 0 ? 0.0f : io.ring[ring_slot(p, g.ring_frames)];
}

// y[n], computed by this piece: into its output frame n + step_frames - position (> 0, since
// the piece's first segment starts after position - step_frames) when the piece has it,
// else into the output ring for a later piece.
HALO_HD void piece_output(const Geometry& g, const PieceHeader& h, const ChannelIo& io, long long n, float y) {
  const long long f = n + g.step_frames - h.position;
  if (f < h.frames)
    io.out[f * g.channels] = y;
  else
    io.out_ring[ring_slot(n, g.out_ring_frames)] = y;
}

// Sample i (first_frame_to_ring x channels <= i < frames x channels) of the piece's
// interleaved frames into the input ring.
HALO_HD void to_ring_sample(const Geometry& g, const PieceHeader& h, long long i, const float* in, float* ring) {
  const long long f = i / g.channels, c = i - f * g.channels;
  ring[c * g.ring_frames + ring_slot(h.position + f, g.ring_frames)] = in[i];
}

// Sample i (< frames_from_ring x channels) of the piece's outputs: frame f carries
// y[position + f - step_frames] (0 before the stream's start).
HALO_HD void from_ring_sample(const Geometry& g, const PieceHeader& h, long long i, const float* out_ring, float* out) {
  const long long f = i / g.channels, c = i - f * g.channels;
  const long long n = h.position + f - g.step_frames;
  out[i] = n < 0 ? 0.0f : out_ring[c * g.out_ring_frames + ring_slot(n, g.out_ring_frames)];
}

// Point i (< L) of segment first_segment + s of channel c into its slot.
HALO_HD void gather_point(const Geometry& g, const PieceHeader& h, long long c, long long s, long long i,
                          const ChannelIo& io, float* segments) {
  segments[(c * g.batch_segments() + s) * g.fft_frames + i] = piece_input(g, h, io, segment_input(g, h.first_segment + s) + i);
}

// Output i (< H) of segment first_segment + s of channel c: point D + i of its inverse
// transform (the first Mmax - 1 are spoilt by the circular wrap).
HALO_HD void crop_point(const Geometry& g, const PieceHeader& h, long long c, long long s, long long i,
                        const float* segments, const ChannelIo& io) {
  piece_output(g, h, io, (h.first_segment + s) * g.hop_frames + i,
               segments[(c * g.batch_segments() + s) * g.fft_frames + g.halo_frames + i]);
}

}  // namespace halo::cuda
