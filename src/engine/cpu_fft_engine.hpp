#pragma once
#include <fftw3.h>

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "src/engine/engine.hpp"
#include "src/engine/fftw.hpp"
#include "src/engine/packed_real_fft.hpp"
#include "src/engine/thread_pool.hpp"

namespace halo {

// Overlap-save FFT convolution on the CPU (FFTW, single precision) on every core: the engine
// for long masks where no GPU is usable.
//
// The FFT length follows the spec's max_mask_frames (Mmax) alone, by the cost model of
// fft_size.hpp, not the installed taps, the block size or the thread count: set_taps never
// reallocates, the latency never changes, and neither --chunk nor the threads change a bit.
// Shorter masks are zero-padded to Mmax.
//
// The FFT blocks sit at fixed places in the stream, `hop_frames_` apart, whatever the chunks
// are: an FFT's rounding depends on every value in its block, so a block cut short by a chunk
// boundary would round differently and --chunk would change the output. The price is latency:
// a block is transformed once its hop of input is complete, so the output lags the causal
// convolution by hop_frames_ (latency_frames()), and the pipeline trims that.
//
// Threads. A process() call that completes q blocks on C channels has q x G independent
// tasks, G the channel groups (one block of a group: gather its frames, then for each of its
// channels forward FFT, multiply, inverse FFT, then scatter its outputs); a ThreadPool made
// in prepare() runs them on every core, the caller included, and process() returns when all
// are done. One pair of FFTW plans, complex
// transforms of half the length that carry the real block packed two samples a value
// (packed_real_fft.hpp; from the machine's wisdom where `halo wisdom` measured this length,
// else FFTW_ESTIMATE: fftw.hpp; either way the same plan in every engine of a process, so two
// engines agree bit for bit), is executed on each thread's own aligned buffers through
// FFTW's new-array functions, which are thread-safe; a task writes only its own block's
// outputs (block 0 also the carried block's rest, the last block also the next call's
// carries), so which thread runs it changes nothing.
//
// Memory traffic. A task gathers its block straight from the caller's interleaved frames
// (and the carry, for frames before the call) into its FFT buffer, and scatters its outputs
// straight into the caller's interleaved output: a sample crosses memory once each way
// outside the FFTs (per-channel staging buffers had cost two passes more, about a sixth of
// the whole process's CPU at 65535 taps on a 2-core VM: bench/FFT.md). A group is two
// neighbouring channels (channels_per_task) where the FFT is at most pair_fft_frames, so that
// one pass reads each interleaved input line and one writes each output line for both: with a
// task per channel, each task read the block's lines and each wrote them (a read for
// ownership) for its one sample a frame (on 2 cores at 65535 taps, stereo: 8 % less time for
// the whole process). Past pair_fft_frames the tasks take one channel, so that the second
// buffer a thread does not grow with the longest masks, and so they do where pairs, half the
// tasks a block, would need longer calls to feed every thread (on 16 cores at 65535 taps,
// stereo, 16 hops a call instead of 11: no faster end to end, and the first output waits for
// a whole call). The G tasks of one block write the same output cache lines, so each starts
// its scatter at its own offset, 1/G of the hop further along per group, and the threads keep
// out of each other's lines.
//
// Carried state, per channel, in two buffers each (current_ and 1 - current_): a call's last
// block writes the next call's carry into the other buffer while earlier blocks may still be
// reading the current one, and the call ends by flipping current_:
//   carry_in_   the input frames before this call that a block still needs: [the Mmax-1
//               frames before the current block | its pending_frames_ frames so far]
//   carry_out_  the last complete block's inverse FFT, which the last block writes there
//               rather than into its scratch (saving a copy of every output in whole-hop
//               calls): past its Mmax-1 spoilt frames, its hop of outputs, of which frame
//               pending_frames_ is the next to emit
// Input and output advance together, so one cursor (pending_frames_) serves both.
// Taps, per distinct mask of the TapSet: mask_spectra_ holds the FFT of h (scaled by
// 1 / fft_frames_), written by set_taps into storage made in prepare (channels sharing a
// mask share it; transforming the TapSet is this engine's part of "built off the audio
// thread").
// Neither set_taps() nor process() allocates: the plans, the threads and every buffer are
// made in prepare().
class CpuFftEngine final : public Engine {
 public:
  // threads: [1, ThreadPool::max_threads], or 0 for one per core.
  explicit CpuFftEngine(int threads = 0);
  ~CpuFftEngine() override;
  std::string name() const override { return "cpu-fft"; }

  // The latency an engine prepared for `spec` reports: fft_frames_for(Mmax) - (Mmax - 1).
  static std::size_t latency_frames_for(const ProcessSpec& spec);
  // The threads an engine made with `threads` runs (0: one per core).
  static int pool_threads_for(int threads);
  // The channels one task of an engine made with `threads` transforms (see "Memory traffic"
  // above): 2 for two or more channels where fft_frames_for(Mmax) <= pair_fft_frames and
  // pairs do not make parallel_block_frames longer, else 1; and the tasks a block makes.
  static constexpr std::size_t pair_fft_frames = std::size_t{1} << 19;
  static int channels_per_task(const ProcessSpec& spec, int threads);
  static std::size_t tasks_per_block(const ProcessSpec& spec, int threads);
  // Frames a process() call must bring for every one of `threads` (0: one per core) to get a
  // task (ceil(threads / tasks_per_block) hops), and at least min_call_frames_per_thread
  // frames a thread, in whole hops: handing a call over to the pool
  // costs about a millisecond where a sleeping thread wakes slowly (thread_pool.cpp), and at
  // 16383 taps on 16 cores calls of 8 hops (360000 frames) spent 0.85 s of engine time on an
  // hour of stereo against 0.45 s at 4095 taps. What a pipeline should give this engine (the
  // stream's parallel_frames); only spec's channels and max_mask_frames count.
  static constexpr std::size_t min_call_frames_per_thread = 65536;
  static std::size_t parallel_block_frames(const ProcessSpec& spec, int threads);

  std::size_t fft_frames() const { return fft_frames_; }
  int threads() const { return pool_ ? pool_->threads() : 0; }  // 0 before prepare

 protected:
  void do_prepare(const ProcessSpec& spec) override;
  void do_set_taps(const TapSet& taps) override;
  Status do_process(const float* in, float* out, std::size_t frames) noexcept override;
  void do_reset() override;
  std::size_t do_latency_frames() const override { return hop_frames_; }
  std::size_t do_preferred_block_frames() const override { return hop_frames_; }

 private:
  // The channel groups (tasks a block) where a task takes `per_task` channels, and the hops
  // parallel_block_frames asks for then.
  static std::size_t groups_of(const ProcessSpec& spec, int per_task);
  static std::size_t hops_a_call(const ProcessSpec& spec, int threads, int per_task);

  using RealBuffer = fftw::Array<float>;
  using ComplexBuffer = fftw::Array<fftwf_complex>;

  // One pool thread's FFT workspace; it holds nothing from one task to the next.
  struct Scratch {
    RealBuffer time[2];      // fft_frames_ each: a group's blocks in, their convolutions out ([1]: pairs only)
    ComplexBuffer spectrum;  // bins_: a block's packed spectrum (fft_frames_ / 2 of them), or a mask's
  };
  // Channels [first, first + count) (count 1 or 2), task group `index` of a block.
  struct ChannelGroup {
    int first;
    int count;
    int index;
  };
  ChannelGroup group(int index) const noexcept;
  // One pointer for each of a group's channels (the second null for a group of one).
  template <class T>
  using Pointers = std::array<T*, 2>;

  // One process() call as its block tasks see it.
  struct Call {
    const float* in;      // the call's interleaved input frames
    float* out;           // its interleaved output frames
    std::size_t frames;   // how many of each
    std::size_t carried;  // input frames before the call held in carry_in_: Mmax-1 + pending_frames_
    std::size_t blocks;   // blocks the call completes
  };
  // Block `block` (0: the first completed by this call) of the channels of `group`: its
  // outputs into the call's, and, from the last block, the next call's carry.
  void transform_block(const ChannelGroup& group, std::size_t block, const Call& call, Scratch& scratch) noexcept;
  // The stream's input frames [frame, frame + count) of the call's (counted from the first
  // frame carry_in_ holds) into dst[k][0, count) for the group's k-th channel.
  void gather(const ChannelGroup& group, const Call& call, std::size_t frame, std::size_t count,
              const Pointers<float>& dst) const noexcept;
  // src[k][0, count) into the call's output frames [frame, frame + count) of the group's k-th channel.
  void scatter(const ChannelGroup& group, const Call& call, const Pointers<const float>& src, std::size_t frame,
               std::size_t count) const noexcept;
  // The group's input carries carry_in_[which], from frame `from`.
  Pointers<float> carry_in(const ChannelGroup& group, int which, std::size_t from) noexcept;
  // The carried block's hop of outputs for the group's channels (the current carry_out_ past
  // its spoilt frames), from output `from` of the hop.
  Pointers<const float> carried_outputs(const ChannelGroup& group, std::size_t from) const noexcept;

  int requested_threads_;            // the constructor's; 0: one per core
  std::size_t halo_frames_ = 0;      // Mmax - 1
  std::size_t fft_frames_ = 0;       // FFT length, fft_frames_for(Mmax)
  std::size_t bins_ = 0;             // fft_frames_ / 2 + 1
  std::size_t hop_frames_ = 0;       // fft_frames_ - (Mmax-1): new frames, and outputs, per block
  std::size_t pending_frames_ = 0;   // frames of the current block received (and outputs emitted)
  int channels_per_task_ = 1;        // channels_per_task(spec, the constructor's threads)
  int groups_ = 0;                   // tasks a block makes: ceil(channels / channels_per_task_)
  std::vector<ComplexBuffer> mask_spectra_;   // per distinct mask (room for one per channel)
  std::vector<std::size_t> mask_of_channel_;  // the distinct mask each channel uses
  std::vector<std::vector<float>> carry_in_[2];   // per channel: Mmax-1 + hop frames (see above)
  std::vector<RealBuffer> carry_out_[2];          // per channel: an FFT's output, Mmax-1 spoilt + a hop (see above)
  int current_ = 0;                               // which of the two carries is this call's
  std::vector<Scratch> scratch_;              // per pool thread
  std::unique_ptr<PackedRealFft> fft_;        // planned on scratch_[0]; run on any thread's
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace halo
