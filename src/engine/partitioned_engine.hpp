#pragma once
#include <fftw3.h>
#include <semaphore.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "src/engine/fftw.hpp"
#include <thread>
#include <vector>

#include "src/engine/cpu_follower.hpp"
#include "src/engine/engine.hpp"
#include "src/engine/partition_plan.hpp"

namespace halo {

// Non-uniformly partitioned overlap-save convolution on the CPU (FFTW, single precision), for
// long masks at short periods: the engine of `halo live`.
//
// The first B = 64 taps (the head) are applied directly, sample by sample, so the engine adds
// no latency: the issue's `live` may add at most one period, and the ring between the callback
// and the worker is that period. The taps after the head, h[B..M), are cut as
// partition_plan.hpp says: four partitions of the base size B, then pairs of partitions that
// double in size up to 16384 frames. Each level is a uniformly partitioned
// convolver of its own: every P frames (at stream positions that are multiples of P, whatever
// the blocks are) it transforms the last 2P input frames into its frequency-domain delay line
// (FDL), multiplies the FDL by the spectra of its partitions, sums, and transforms back.
//
// Latency: none (latency_frames() is 0). A base block is transformed once it is complete and
// its outputs are emitted during the next B frames, B frames late: just right for taps that
// start B into the mask. (The head costs B multiply-adds per frame and channel, 6 M/s for
// stereo at 48 kHz: less than the FFT level it replaces would cost per frame.) B does not follow
// max_block_frames, so that engines prepared for different block sizes give the same bits
// (partition_plan.hpp); blocks longer than B are cut into base blocks inside.
//
// Threads. Level 0 and the levels of short partitions run on the thread that calls process(),
// at every base-block boundary. Levels of partitions >= 1024 frames run on a worker
// thread that the engine starts in prepare() and joins in its destructor: a level's input block
// is complete P + B frames before its first output is due, so the worker computes it ahead
// while process() runs on. process() never locks: it publishes the stream position with an
// atomic store and wakes the worker with sem_post (no lock on Linux); the worker publishes
// each level's finished blocks with an atomic counter. When an output block is due and the
// worker has not finished it, process() waits for it, yielding a few times and then sleeping
// 20 us at a time (in real time the worker runs one SCHED_FIFO priority below the caller on
// the caller's CPU, and a yield never hands the CPU to a lower priority), so the output is
// exact even when the engine runs faster than real time (offline) or the machine is loaded;
// each such wait counts in late_waits(). In real time
// a late wait is an underrun risk; offline it is only the price of driving faster than the
// worker. The worker takes the pending block of the shortest partitions first (the earliest
// deadline).
//
// Carried state:
//   input_      per channel, a ring of the last ring_frames_ input frames (>= 4 Pmax), indexed
//               by stream position modulo ring_frames_; written by process(), read by both
//               threads below the published position. A worker block reads [(q-1)P, (q+1)P)
//               and process() waits for it before it writes past (q+2)P + B: 3P + B frames
//               later, so the ring never overwrites what the worker still reads
//   position_   frames received (and emitted) since the start or reset()
//   ready_      per channel, the FFT levels' B outputs for the base block being emitted (the
//               taps after the head, from input before the block): frame position_ % B is next;
//               the head's part is added as each frame arrives
//   a level's history (FDL): per channel count + 2 spectra, X_q (the FFT of input
//               [(q-1)P, (q+1)P)) in slot q % (count + 2); two more than the partitions, so
//               that set_taps can recompute the last three blocks with the new taps
//   a level's results (levels >= 1): per channel two output blocks of P frames; block Q
//               (outputs [QP, QP+P)) in slot Q % 2, read B frames at a time by process().
//               Two suffice: block Q + 2 is computed from input published at the boundary
//               (Q+1)P, after process() has mixed the last B frames of block Q there
//   published_  the stream position of the last base-block boundary, for the worker
//   a level's done  tasks finished: task q made X_q and output block q + delay_blocks()
// Taps, per distinct mask of the TapSet: each level's partition spectra, scaled by 1 / (2P),
// written by set_taps into storage made in prepare. Channels that share a mask share them.
//
// set_taps keeps the stream: the FDLs hold input spectra, not outputs, so it recomputes the
// output blocks not yet emitted from them with the new spectra; from the stream position of
// the call on, output frame t equals a fresh engine's given the new taps from the start (the
// head switches at once, and ready_ is mixed again from the FDLs with the new spectra).
// set_taps() and reset() take a mutex that only the worker and they use (the worker holds it
// while it computes), never process().
//
// Neither set_taps() nor process() allocates: plans and buffers are made in prepare(). The
// FFT blocks sit at fixed stream positions, so any blocking gives the same bits.
class CpuPartitionedEngine final : public Engine {
 public:
  CpuPartitionedEngine();
  ~CpuPartitionedEngine() override;
  std::string name() const override { return "cpu-partitioned"; }

  const PartitionPlan& plan() const { return plan_; }
  // Times process() had to wait for the worker (an output block was due and not ready).
  std::uint64_t late_waits() const noexcept { return late_waits_.load(std::memory_order_relaxed); }
  // CPU seconds the worker thread has used since prepare (0 without a worker).
  double worker_cpu_seconds() const noexcept;
  bool has_worker() const { return worker_.joinable(); }
  // Asks for SCHED_FIFO at `priority` (1..99) for the worker, as jconvolver gives its threads:
  // a real-time caller gives it one step below its own. Ask after prepare(), which starts a new
  // worker at normal priority. False where the system refuses (no privilege) or there is no
  // worker; the engine stays exact either way (late waits).
  bool request_realtime_worker(int priority) noexcept;
  // The fallback where SCHED_FIFO is refused: the worker sets its own nice value to `nice` when
  // it next wakes (a thread's nice value is its own on Linux). Whether it was granted:
  // worker_nice_granted().
  void request_worker_nice(int nice) noexcept { requested_nice_.store(nice, std::memory_order_release); }
  bool worker_nice_granted() const noexcept { return nice_granted_.load(std::memory_order_acquire); }
  // The worker moves to the CPU `cpu` holds whenever it wakes (cpu_follower.hpp); null: it runs
  // where the system puts it. The real-time path gives it the audio callback's CPU.
  void follow_cpu(const std::atomic<int>* cpu) noexcept { worker_cpu_.set_target(cpu); }
  // The highest SCHED_FIFO priority the worker may hold, as `ceiling` says when the worker
  // wakes (0: no ceiling yet); null: none. The real-time path keeps it below the audio
  // callback's thread, which it learns only once the callback has run: under `jackd -R` at its
  // default priority the callback's thread runs at FIFO 5, and a worker at 59 beside it on one
  // CPU preempted it mid-period (a QA pass: 8-19 host xruns in 10 s at 2^20 taps, against 1-2
  // under `jackd -P 70`, where the callback's thread runs at 65).
  // A ceiling of below_every_realtime_priority: the callback's thread runs at the lowest
  // SCHED_FIFO priority, so the worker leaves SCHED_FIFO for the nice value set here (at FIFO 1
  // beside a callback at 1 it could not be preempted by it, a review).
  static constexpr int below_every_realtime_priority = -2;
  void set_nice_below_realtime(int nice) noexcept { nice_below_realtime_.store(nice, std::memory_order_relaxed); }
  void cap_realtime_priority(const std::atomic<int>* ceiling) noexcept { priority_ceiling_.store(ceiling, std::memory_order_release); }
  int worker_realtime_priority() const noexcept { return worker_priority_.load(std::memory_order_acquire); }  // 0: not SCHED_FIFO

  std::vector<std::pair<std::string, double>> time_breakdown() const override;

 protected:
  void do_prepare(const ProcessSpec& spec) override;
  void do_set_taps(const TapSet& taps) override;
  Status do_process(const float* in, float* out, std::size_t frames) noexcept override;
  void do_reset() override;
  std::size_t do_latency_frames() const override { return 0; }
  std::size_t do_preferred_block_frames() const override { return plan_.base_frames; }

 private:
  template <typename T>
  using FftwArray = fftw::Array<T>;
  using Plan = fftw::Plan;

  struct Level {
    PartitionLevel shape;
    std::size_t spectrum_stride = 0;  // complex values between spectra (P + 1, rounded up for alignment)
    std::size_t active = 0;           // partitions the installed taps reach (the rest are zeros)
    FftwArray<fftwf_complex> spectra;  // [mask][partition]: the taps' spectra
    FftwArray<fftwf_complex> history;  // [channel][count + 2]: the FDL (see above)
    FftwArray<float> results;          // [channel][2][P]: output blocks (levels >= 1)
    Plan forward, inverse;             // 2P real <-> P + 1 complex
    std::atomic<std::uint64_t> done{0};

    fftwf_complex* spectrum(FftwArray<fftwf_complex>& array, std::size_t row, std::size_t column) const {
      return array.get() + (row * slots() + column) * spectrum_stride;
    }
    std::size_t slots() const { return shape.count + 2; }
  };
  // One thread's FFT workspace: the process thread has one, the worker (and set_taps/reset,
  // which run while the worker is held off by the mutex) the other.
  struct Scratch {
    FftwArray<float> time;              // 2 Pmax frames
    FftwArray<fftwf_complex> sum;       // Pmax + 1 bins
    FftwArray<float> block;             // Pmax frames: one output block (set_taps)
  };

  void start_worker();
  void stop_worker() noexcept;
  void worker_loop() noexcept;
  void run_pending_worker_tasks(Scratch& scratch) noexcept;
  void boundary(std::uint64_t position) noexcept;
  void mix_ready(std::uint64_t position, Scratch& scratch, bool recompute) noexcept;
  void run_task(Level& level, std::uint64_t task, Scratch& scratch) noexcept;
  void transform_input(Level& level, int channel, std::uint64_t task, Scratch& scratch) noexcept;
  void synthesize(Level& level, int channel, std::uint64_t task, Scratch& scratch, float* out) noexcept;
  float* result_block(Level& level, int channel, std::uint64_t block) const noexcept;
  void clear_stream();

  PartitionPlan plan_;
  std::unique_ptr<Level[]> levels_;
  std::size_t level_count_ = 0;
  std::size_t ring_frames_ = 0;                     // a power of two
  std::vector<std::vector<float>> input_;           // [channel][ring_frames_]
  std::vector<std::vector<float>> ready_;           // [channel][B]
  std::vector<std::size_t> mask_of_channel_;        // distinct mask of each channel
  std::vector<float> head_taps_;                    // [mask][B]: taps [0, B) of each distinct mask
  std::size_t head_frames_ = 0;                     // min(B, M): head taps in use
  int channel_count_ = 0;                           // spec.channels (the worker reads it, not spec())
  std::uint64_t position_ = 0;
  Scratch process_scratch_, worker_scratch_;
  std::size_t first_worker_partition_ = 0;          // P of the shortest worker level; 0: none

  std::atomic<std::uint64_t> published_{0};
  std::atomic<std::uint64_t> late_waits_{0};
  std::atomic<std::int64_t> worker_cpu_ns_{0};
  std::atomic<bool> stopping_{false};
  static constexpr int no_nice_request = 100;  // outside nice's range
  std::atomic<int> requested_nice_{no_nice_request};  // taken by the worker when it wakes
  std::atomic<int> nice_below_realtime_{no_nice_request};  // taken where it leaves SCHED_FIFO
  std::atomic<bool> nice_granted_{false};
  sem_t wake_{};
  bool wake_made_ = false;
  std::mutex worker_mutex_;  // held by the worker while it computes, and by set_taps/reset
  CpuFollower worker_cpu_;   // moved by the worker itself, when it wakes
  std::atomic<const std::atomic<int>*> priority_ceiling_{nullptr};  // looked at by the worker when it wakes
  std::atomic<int> worker_priority_{0};  // the worker's SCHED_FIFO priority, 0 where it has none
  std::thread worker_;
};

}  // namespace halo
