#include "src/engine/partitioned_engine.hpp"
#include "src/engine/started_thread.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace halo {
namespace {

// Spectra start on 128-byte boundaries, so every FFT input and output has the alignment of the
// arrays the plans were made with (FFTW's new-array execute requires it).
constexpr std::size_t complex_alignment = 16;

// A late wait (mix_ready): this many yields, then sleeps of this long until the worker is done.
constexpr int yields_before_sleeping = 64;
constexpr std::chrono::microseconds late_wait_sleep{20};

std::size_t round_up(std::size_t count, std::size_t multiple) { return (count + multiple - 1) / multiple * multiple; }

// Zero-filled FFTW memory for `count` elements of the array's type.
template <typename Array>
void allocate(Array& array, std::size_t count) {
  using Element = typename Array::element_type;
  array.reset(static_cast<Element*>(fftwf_malloc(sizeof(Element) * count)));
  if (!array) throw Error("cpu-partitioned: out of memory for " + std::to_string(sizeof(Element) * count) + " bytes");
  std::memset(static_cast<void*>(array.get()), 0, sizeof(Element) * count);
}

std::int64_t thread_cpu_ns() noexcept {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

}  // namespace

CpuPartitionedEngine::CpuPartitionedEngine() = default;

CpuPartitionedEngine::~CpuPartitionedEngine() {
  stop_worker();
  if (wake_made_) sem_destroy(&wake_);
}

double CpuPartitionedEngine::worker_cpu_seconds() const noexcept {
  return static_cast<double>(worker_cpu_ns_.load(std::memory_order_relaxed)) * 1e-9;
}

std::vector<std::pair<std::string, double>> CpuPartitionedEngine::time_breakdown() const {
  if (!has_worker()) return {};
  return {{"worker thread (CPU)", worker_cpu_seconds()}};
}

void CpuPartitionedEngine::do_prepare(const ProcessSpec& spec) {
  stop_worker();
  // The FFT levels take the taps after the direct head: [B, Mmax) of the mask.
  plan_ = plan_partitions(std::max<std::size_t>(1, spec.max_mask_frames > base_frames ? spec.max_mask_frames - base_frames : 1));
  channel_count_ = spec.channels;
  const auto channels = static_cast<std::size_t>(spec.channels);
  head_taps_.assign(channels * plan_.base_frames, 0.0f);
  head_frames_ = 0;

  level_count_ = plan_.levels.size();
  levels_.reset(new Level[level_count_]);
  std::size_t longest = 0;
  first_worker_partition_ = 0;
  for (std::size_t l = 0; l < level_count_; ++l) {
    Level& level = levels_[l];
    level.shape = plan_.levels[l];
    const std::size_t size = level.shape.partition_frames;
    level.spectrum_stride = round_up(size + 1, complex_alignment);
    // A mask per channel at most (the TapSet shares the spectra of equal masks).
    allocate(level.spectra, channels * level.slots() * level.spectrum_stride);
    allocate(level.history, channels * level.slots() * level.spectrum_stride);
    if (l > 0) allocate(level.results, channels * 2 * size);
    longest = std::max(longest, size);
    if (level.shape.on_worker && first_worker_partition_ == 0) first_worker_partition_ = size;
  }
  for (Scratch* scratch : {&process_scratch_, &worker_scratch_}) {
    allocate(scratch->time, 2 * longest);
    allocate(scratch->sum, round_up(longest + 1, complex_alignment));
    allocate(scratch->block, longest);
  }
  for (std::size_t l = 0; l < level_count_; ++l) {
    Level& level = levels_[l];
    const int n = static_cast<int>(2 * level.shape.partition_frames);
    // Measured plans from wisdom only, else estimated, under the planner's lock (fftw.hpp):
    // never measured here, so a reload mid-stream prepares in milliseconds.
    level.forward = fftw::plan_r2c(n, process_scratch_.time.get(), level.history.get());
    level.inverse = fftw::plan_c2r(n, process_scratch_.sum.get(), process_scratch_.time.get());
    if (!level.forward || !level.inverse)
      throw Error("cpu-partitioned: FFTW could not plan an FFT of " + std::to_string(n));
  }

  ring_frames_ = 1;
  while (ring_frames_ < 4 * longest) ring_frames_ *= 2;
  input_.assign(channels, std::vector<float>(ring_frames_, 0.0f));
  ready_.assign(channels, std::vector<float>(plan_.base_frames, 0.0f));
  mask_of_channel_.assign(channels, 0);
  position_ = 0;
  published_.store(0, std::memory_order_relaxed);
  late_waits_.store(0, std::memory_order_relaxed);
  worker_cpu_ns_.store(0, std::memory_order_relaxed);
  if (first_worker_partition_ > 0) start_worker();
}

bool CpuPartitionedEngine::request_realtime_worker(int priority) noexcept {
  if (!worker_.joinable()) return false;
  sched_param parameters{};
  parameters.sched_priority = priority;
  if (pthread_setschedparam(worker_.native_handle(), SCHED_FIFO, &parameters) != 0) return false;
  worker_priority_.store(priority, std::memory_order_release);
  return true;
}

void CpuPartitionedEngine::start_worker() {
  worker_priority_.store(0, std::memory_order_release);  // a new thread, at the caller's policy until asked
  if (!wake_made_) {
    if (sem_init(&wake_, 0, 0) != 0) throw Error("cpu-partitioned: could not make the worker's semaphore");
    wake_made_ = true;
  }
  stopping_.store(false, std::memory_order_relaxed);
  worker_ = started_thread("cpu-partitioned's worker", [this] { worker_loop(); });
}

void CpuPartitionedEngine::stop_worker() noexcept {
  if (!worker_.joinable()) return;
  stopping_.store(true, std::memory_order_release);
  sem_post(&wake_);
  worker_.join();
}

void CpuPartitionedEngine::worker_loop() noexcept {
  for (;;) {
    while (sem_wait(&wake_) != 0 && errno == EINTR) {
    }
    if (stopping_.load(std::memory_order_acquire)) return;
    if (const int nice = requested_nice_.exchange(no_nice_request, std::memory_order_acq_rel); nice != no_nice_request)
      nice_granted_.store(setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice) == 0, std::memory_order_release);
    worker_cpu_.follow();
    if (const std::atomic<int>* ceiling = priority_ceiling_.load(std::memory_order_acquire)) {
      const int cap = ceiling->load(std::memory_order_acquire), own = worker_priority_.load(std::memory_order_relaxed);
      sched_param parameters{};
      parameters.sched_priority = cap;
      if (cap > 0 && own > cap && pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0)
        worker_priority_.store(cap, std::memory_order_release);
      sched_param none{};
      if (cap == below_every_realtime_priority && own > 0 && pthread_setschedparam(pthread_self(), SCHED_OTHER, &none) == 0) {
        worker_priority_.store(0, std::memory_order_release);
        if (const int nice = nice_below_realtime_.load(std::memory_order_relaxed); nice != no_nice_request)
          nice_granted_.store(setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice) == 0, std::memory_order_release);
      }
    }
    {
      std::lock_guard<std::mutex> lock(worker_mutex_);
      run_pending_worker_tasks(worker_scratch_);
    }
    worker_cpu_ns_.store(thread_cpu_ns(), std::memory_order_relaxed);
  }
}

// Every worker level's blocks whose input is published, the shortest partitions first (the
// earliest deadline): after each block, look again from the shortest.
void CpuPartitionedEngine::run_pending_worker_tasks(Scratch& scratch) noexcept {
  for (;;) {
    const std::uint64_t published = published_.load(std::memory_order_acquire);
    Level* next = nullptr;
    for (std::size_t l = 1; l < level_count_ && next == nullptr; ++l) {
      Level& level = levels_[l];
      const std::uint64_t task = level.done.load(std::memory_order_relaxed);
      if (level.shape.on_worker && (task + 1) * level.shape.partition_frames <= published) next = &level;
    }
    if (next == nullptr) return;
    run_task(*next, next->done.load(std::memory_order_relaxed), scratch);
  }
}

// Task q of a level >= 1: X_q into the FDL, then output block q + delay into its slot.
void CpuPartitionedEngine::run_task(Level& level, std::uint64_t task, Scratch& scratch) noexcept {
  const std::uint64_t block = task + level.shape.delay_blocks();
  for (int c = 0; c < channel_count_; ++c) {
    transform_input(level, c, task, scratch);
    synthesize(level, c, task, scratch, result_block(level, c, block));
  }
  level.done.store(task + 1, std::memory_order_release);
}

// X_q: the FFT of input frames [(q-1)P, (q+1)P) (frames before 0 are the ring's zeros).
void CpuPartitionedEngine::transform_input(Level& level, int channel, std::uint64_t task,
                                           Scratch& scratch) noexcept {
  const std::size_t size = level.shape.partition_frames;
  const std::uint64_t start = (task + 1) * size - 2 * size;  // wraps below 0, as the ring does
  const std::size_t first = static_cast<std::size_t>(start & (ring_frames_ - 1));
  const std::size_t before_wrap = std::min(2 * size, ring_frames_ - first);
  const float* ring = input_[channel].data();
  float* time = scratch.time.get();
  std::copy_n(ring + first, before_wrap, time);
  std::copy_n(ring, 2 * size - before_wrap, time + before_wrap);
  fftwf_execute_dft_r2c(level.forward.get(), time, level.spectrum(level.history, channel, task % level.slots()));
}

// Output block q + delay of the level, P frames into `out`: sum_j X_{q-j} H_j, transformed
// back; overlap-save keeps the last P of the 2P results. Always in the same order (j = 0, 1,
// ...), so a recomputation (set_taps) gives the bits a fresh engine gives.
void CpuPartitionedEngine::synthesize(Level& level, int channel, std::uint64_t task, Scratch& scratch,
                                      float* out) noexcept {
  const std::size_t size = level.shape.partition_frames;
  const std::size_t terms = static_cast<std::size_t>(std::min<std::uint64_t>(level.active, task + 1));
  if (terms == 0) {
    std::fill_n(out, size, 0.0f);
    return;
  }
  const std::size_t bins = size + 1;
  const std::size_t mask = mask_of_channel_[channel];
  float* sum = &scratch.sum[0][0];
  for (std::size_t j = 0; j < terms; ++j) {
    const float* x = &level.spectrum(level.history, channel, (task - j) % level.slots())[0][0];
    const float* h = &level.spectrum(level.spectra, mask, j)[0][0];
    if (j == 0) {
      for (std::size_t b = 0; b < bins; ++b) {
        sum[2 * b] = x[2 * b] * h[2 * b] - x[2 * b + 1] * h[2 * b + 1];
        sum[2 * b + 1] = x[2 * b] * h[2 * b + 1] + x[2 * b + 1] * h[2 * b];
      }
    } else {
      for (std::size_t b = 0; b < bins; ++b) {
        sum[2 * b] += x[2 * b] * h[2 * b] - x[2 * b + 1] * h[2 * b + 1];
        sum[2 * b + 1] += x[2 * b] * h[2 * b + 1] + x[2 * b + 1] * h[2 * b];
      }
    }
  }
  fftwf_execute_dft_c2r(level.inverse.get(), scratch.sum.get(), scratch.time.get());
  std::copy_n(scratch.time.get() + size, size, out);
}

float* CpuPartitionedEngine::result_block(Level& level, int channel, std::uint64_t block) const noexcept {
  const std::size_t size = level.shape.partition_frames;
  return level.results.get() + (static_cast<std::size_t>(channel) * 2 + block % 2) * size;
}

// The base block before `position` is complete: its B outputs into ready_, then the short
// levels' blocks that are due, then the worker is told.
void CpuPartitionedEngine::boundary(std::uint64_t position) noexcept {
  const std::uint64_t head_task = position / plan_.base_frames - 1;
  for (int c = 0; c < channel_count_; ++c) transform_input(levels_[0], c, head_task, process_scratch_);
  mix_ready(position, process_scratch_, false);
  // Blocks of the short levels whose input just completed; after the mixing above, which has
  // read the last of the block they replace.
  for (std::size_t l = 1; l < level_count_; ++l) {
    Level& level = levels_[l];
    if (!level.shape.on_worker && position % level.shape.partition_frames == 0)
      run_task(level, position / level.shape.partition_frames - 1, process_scratch_);
  }
  published_.store(position, std::memory_order_release);
  if (first_worker_partition_ > 0 && position % first_worker_partition_ == 0) sem_post(&wake_);
}

// ready_ for the base block after `position`: level 0's output block from its FDL, plus B
// frames of each longer level's output block that covers [position - B, position).
// process() (recompute false) takes those blocks from the levels' results, waiting for a
// worker level that is late. set_taps (recompute true) synthesizes them again from the FDLs
// with the new spectra: their result slot may already hold the block two ahead.
void CpuPartitionedEngine::mix_ready(std::uint64_t position, Scratch& scratch, bool recompute) noexcept {
  const std::size_t base = plan_.base_frames;
  Level& head = levels_[0];
  const std::uint64_t head_task = position / base - 1;
  for (int c = 0; c < channel_count_; ++c) synthesize(head, c, head_task, scratch, ready_[c].data());
  // Mix in B frames of each longer level's output block that covers [position - B, position).
  const std::uint64_t first = position - base;
  for (std::size_t l = 1; l < level_count_; ++l) {
    Level& level = levels_[l];
    const std::size_t size = level.shape.partition_frames;
    const std::uint64_t block = first / size;
    if (block < level.shape.delay_blocks()) continue;  // before any input reached this level
    const std::uint64_t needed = block - level.shape.delay_blocks() + 1;
    if (!recompute && level.shape.on_worker && level.done.load(std::memory_order_acquire) < needed) {
      // The worker is late: wait for it (see the class comment), and count it. Yield a while
      // (the worker may be finishing on another CPU), then sleep in short steps: in real time
      // the worker runs one SCHED_FIFO priority below this thread on the same CPU, and a
      // yield never hands the CPU to a lower priority; a wait that only yielded never ended.
      late_waits_.fetch_add(1, std::memory_order_relaxed);
      for (int turn = 0; level.done.load(std::memory_order_acquire) < needed; ++turn) {
        if (turn < yields_before_sleeping)
          std::this_thread::yield();
        else
          std::this_thread::sleep_for(late_wait_sleep);
      }
    }
    const std::size_t offset = static_cast<std::size_t>(first - block * size);
    for (int c = 0; c < channel_count_; ++c) {
      const float* from = offset + (recompute ? scratch.block.get() : result_block(level, c, block));
      if (recompute) synthesize(level, c, needed - 1, scratch, scratch.block.get());
      float* to = ready_[c].data();
      for (std::size_t i = 0; i < base; ++i) to[i] += from[i];
    }
  }
}

Status CpuPartitionedEngine::do_process(const float* in, float* out, std::size_t frames) noexcept {
  const std::size_t base = plan_.base_frames;
  const std::size_t channels = static_cast<std::size_t>(channel_count_);
  for (std::size_t done = 0; done < frames;) {
    const std::size_t phase = static_cast<std::size_t>(position_ % base);
    const std::size_t span = std::min(frames - done, base - phase);
    // ring_frames_ is a multiple of B, so a span within one base block does not wrap.
    const std::size_t at = static_cast<std::size_t>(position_ & (ring_frames_ - 1));
    const std::size_t wrap = ring_frames_ - 1;
    for (std::size_t c = 0; c < channels; ++c) {
      float* ring = input_[c].data() + at;
      const float* ready = ready_[c].data() + phase;
      const float* head = head_taps_.data() + mask_of_channel_[c] * base;
      const float* history = input_[c].data();
      for (std::size_t i = 0; i < span; ++i) {
        ring[i] = in[(done + i) * channels + c];
        // The head, directly: taps [0, B) against the newest B input frames, this one included.
        const std::uint64_t now = position_ + i;
        float sum = 0.0f;
        for (std::size_t k = 0; k < head_frames_; ++k) sum += head[k] * history[(now - k) & wrap];
        out[(done + i) * channels + c] = ready[i] + sum;
      }
    }
    done += span;
    position_ += span;
    if (position_ % base == 0) boundary(position_);
  }
  return Status::ok;
}

void CpuPartitionedEngine::do_set_taps(const TapSet& taps) {
  // The worker is held off; its pending blocks are computed first (with the old taps), so every
  // FDL holds the input up to the last published boundary.
  std::lock_guard<std::mutex> lock(worker_mutex_);
  run_pending_worker_tasks(worker_scratch_);

  const std::size_t base = plan_.base_frames;
  head_frames_ = std::min(base, taps.mask_frames());
  for (int c = 0; c < channel_count_; ++c) mask_of_channel_[c] = taps.mask_of(c);
  std::fill(head_taps_.begin(), head_taps_.end(), 0.0f);
  for (std::size_t m = 0; m < taps.distinct_masks(); ++m)
    std::copy_n(taps.taps(m).data(), head_frames_, head_taps_.begin() + static_cast<std::ptrdiff_t>(m * base));

  // The levels hold the taps after the head, h[B + n], and emit them B frames late: exactly
  // where they fall in the causal convolution, so the engine as a whole has no latency.
  const std::size_t mask_frames = taps.mask_frames() > base ? taps.mask_frames() - base : 0;
  float* time = worker_scratch_.time.get();
  for (std::size_t l = 0; l < level_count_; ++l) {
    Level& level = levels_[l];
    const std::size_t size = level.shape.partition_frames;
    const std::size_t offset = level.shape.offset_frames;
    level.active = mask_frames <= offset ? 0 : std::min(level.shape.count, (mask_frames - offset + size - 1) / size);
    const float scale = 1.0f / static_cast<float>(2 * size);  // FFTW's inverse is unnormalised
    for (std::size_t m = 0; m < taps.distinct_masks(); ++m) {
      const std::vector<float>& h = taps.taps(m);
      for (std::size_t j = 0; j < level.active; ++j) {
        const std::size_t from = offset + j * size;
        const std::size_t count = std::min(size, mask_frames - from);
        std::fill_n(time, 2 * size, 0.0f);
        for (std::size_t k = 0; k < count; ++k) time[k] = h[base + from + k] * scale;
        fftwf_execute_dft_r2c(level.forward.get(), time, level.spectrum(level.spectra, m, j));
      }
    }
  }
  // The output blocks already computed and not yet (wholly) emitted, again with the new taps.
  for (std::size_t l = 1; l < level_count_; ++l) {
    Level& level = levels_[l];
    const std::uint64_t tasks = level.done.load(std::memory_order_relaxed);
    for (std::uint64_t back = std::min<std::uint64_t>(tasks, 2); back > 0; --back) {
      const std::uint64_t task = tasks - back;
      for (int c = 0; c < channel_count_; ++c)
        synthesize(level, c, task, worker_scratch_, result_block(level, c, task + level.shape.delay_blocks()));
    }
  }
  // And the base block being emitted now: from this call on the output is the new taps' (the
  // levels' part of it needs only input before the last boundary, which the FDLs hold).
  const std::uint64_t boundary_position = position_ / base * base;
  if (boundary_position > 0) mix_ready(boundary_position, worker_scratch_, true);
}

void CpuPartitionedEngine::do_reset() {
  std::lock_guard<std::mutex> lock(worker_mutex_);
  for (auto& ring : input_) std::fill(ring.begin(), ring.end(), 0.0f);
  for (auto& ready : ready_) std::fill(ready.begin(), ready.end(), 0.0f);
  for (std::size_t l = 0; l < level_count_; ++l) {
    Level& level = levels_[l];
    const std::size_t channels = static_cast<std::size_t>(channel_count_);
    std::memset(static_cast<void*>(level.history.get()), 0,
                sizeof(fftwf_complex) * channels * level.slots() * level.spectrum_stride);
    if (level.results)
      std::memset(level.results.get(), 0, sizeof(float) * channels * 2 * level.shape.partition_frames);
    level.done.store(0, std::memory_order_relaxed);
  }
  position_ = 0;
  published_.store(0, std::memory_order_relaxed);
}

}  // namespace halo
