#include "src/realtime/worker.hpp"
#include "src/engine/started_thread.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "src/engine/partitioned_engine.hpp"
#include "src/engine/nonfinite.hpp"

namespace halo::realtime {

int make_thread_realtime(int priority) noexcept {
  sched_param param{};
  param.sched_priority = priority;
  return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
}

int set_thread_nice(int nice, pid_t tid) noexcept {
  if (tid == 0) tid = static_cast<pid_t>(syscall(SYS_gettid));
  return setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice) == 0 ? 0 : errno;
}

void place_engine_threads(Engine& engine, int priority, CallbackState* callback, bool follow_callback_cpu) noexcept {
  auto* partitioned = dynamic_cast<CpuPartitionedEngine*>(&engine);
  if (partitioned == nullptr) return;
  // Where SCHED_FIFO is refused, the engine's thread takes the worker's fallback, one step less.
  // The ceiling it takes itself when it wakes, before any work (cap_realtime_priority).
  if (priority > 0 && !partitioned->request_realtime_worker(std::max(1, priority - 1)))
    partitioned->request_worker_nice(worker_nice + 1);
  partitioned->follow_cpu(callback != nullptr && follow_callback_cpu ? &callback->cpu : nullptr);
  partitioned->set_nice_below_realtime(worker_nice + 1);
  partitioned->cap_realtime_priority(callback != nullptr ? &callback->engine_priority_ceiling : nullptr);
}

Worker::Worker(const Config& config, EngineSlot& slot, FrameRing& input, FrameRing& output, PeriodStats& stats,
               std::atomic<bool>* draining)
    : config_(config),
      slot_(slot),
      input_(input),
      output_(output),
      stats_(stats),
      draining_(draining),
      in_block_(config.block_frames * static_cast<std::size_t>(config.channels), 0.0f),
      out_block_(config.block_frames * static_cast<std::size_t>(config.channels), 0.0f),
      mapped_(config.block_frames * static_cast<std::size_t>(config.output_channels), 0.0f),
      cpu_(config.callback != nullptr ? &config.callback->cpu : nullptr) {
  // Checked: the callback posts it and the worker waits on it from the first period.
  if (sem_init(&wake_, 0, 0) != 0) throw Error(std::string("cannot make the worker's semaphore: ") + std::strerror(errno));
}

Worker::~Worker() {
  stop();
  sem_destroy(&wake_);
}

void Worker::start() {
  stopping_.store(false);
  thread_ = started_thread("the audio worker", [this] { loop(); });
  while (!priority_known_.load(std::memory_order_acquire)) std::this_thread::yield();
}

void Worker::stop() noexcept {
  if (!thread_.joinable()) return;
  stopping_.store(true, std::memory_order_release);
  sem_post(&wake_);
  thread_.join();
}

std::string Worker::realtime_note() const {
  if (realtime()) {
    const int priority = priority_.load(std::memory_order_relaxed);
    return "yes (SCHED_FIFO " + std::to_string(priority) +
           (priority > config_.realtime_priority   ? ": one above the callback's thread)"
            : priority < config_.realtime_priority ? ": one below the callback's thread)"
                                                   : ")");
  }
  if (config_.realtime_priority <= 0) return "no (not asked)";
  // Refused "too" where SCHED_FIFO was refused first; play's worker below the lowest callback left it.
  const bool left_realtime = below_lowest_callback_.load(std::memory_order_relaxed);
  const std::string nice = "nice " + std::to_string(worker_nice) +
                           (nice_error_ == 0 ? "" : std::string(left_realtime ? " refused: " : " refused too: ") + std::strerror(nice_error_));
  if (left_realtime)
    return "no (play's worker stays below the callback's thread, which runs at the lowest SCHED_FIFO priority); " + nice;
  if (config_.poll) return "no (polling: a realtime thread that never sleeps would be throttled); " + nice;
  // Where the system refuses, a late wake-up has no defence: say what does without priority.
  return std::string("no (") + std::strerror(priority_error_) + "); " + nice + "; --worker-cpu own polls on a CPU of its own instead";
}

void Worker::loop() noexcept {
  // Polling, never SCHED_FIFO: a realtime thread that never sleeps is throttled by the
  // kernel (sched_rt_runtime_us: stopped for 50 ms of every second), far worse than a late wake-up.
  if (config_.realtime_priority > 0 && !config_.poll) {
    priority_error_ = make_thread_realtime(config_.realtime_priority);
    priority_.store(config_.realtime_priority, std::memory_order_relaxed);
    realtime_.store(priority_error_ == 0, std::memory_order_release);
  }
  if (config_.realtime_priority > 0 && !realtime_.load(std::memory_order_relaxed)) nice_error_ = set_thread_nice(worker_nice);
  // Polling, the worker takes its CPU before the stream starts rather than moving in its first
  // periods; place_threads moves it only should the callback turn out to run there.
  if (config_.poll) own_cpu_.store(pin_self_apart_from(-1), std::memory_order_relaxed);
  priority_known_.store(true, std::memory_order_release);
  while (!stopping_.load(std::memory_order_acquire)) {
    place_threads();
    const std::size_t written = step();
    if (!config_.poll)
      wait_for_work();
    else if (written == 0)
      poll_for_work();
  }
}

void Worker::wait_for_work() noexcept {
  // On the monotonic clock: a wall clock set back (NTP, the user) had stretched the fallback.
  timespec until{};
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec += 20 * 1000 * 1000;  // wake now and then even if nobody posts
  if (until.tv_nsec >= 1000000000) {
    until.tv_sec += 1;
    until.tv_nsec -= 1000000000;
  }
  while (sem_clockwait(&wake_, CLOCK_MONOTONIC, &until) != 0 && errno == EINTR) {
  }
}

void Worker::poll_for_work() noexcept {
  while (sem_trywait(&wake_) == 0) {  // an atomic decrement in user space: no system call
  }
#if defined(__x86_64__) || defined(__i386__)
  for (int i = 0; i < 16; ++i) __builtin_ia32_pause();  // under a microsecond: a pause lasts tens to ~140 cycles
#elif defined(__aarch64__)
  for (int i = 0; i < 16; ++i) asm volatile("yield");
#endif
}

int pin_self_apart_from(int apart_from) noexcept {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  // The process's CPUs (its main thread's), not the caller's: the caller may be pinned already.
  if (sched_getaffinity(getpid(), sizeof allowed, &allowed) != 0) return -1;
  for (int cpu = CPU_SETSIZE - 1; cpu >= 0; --cpu) {
    if (cpu == apart_from || !CPU_ISSET(cpu, &allowed)) continue;
    return pin_thread(pthread_self(), cpu) ? cpu : -1;
  }
  return -1;
}

bool pin_thread(pthread_t thread, int cpu) noexcept {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof set, &set) == 0;
}

void Worker::place_threads() noexcept {
  CallbackState* callback = config_.callback;
  if (callback == nullptr) return;
  if (!callback_pin_tried_ && callback->thread_known.load(std::memory_order_acquire)) {
    callback_pin_tried_ = true;
    if (config_.follow_callback) {
      const int cpu = callback->cpu.load(std::memory_order_relaxed);
      callback_pinned_.store(pin_thread(callback->thread, cpu), std::memory_order_relaxed);
      if (config_.poll && own_cpu_.load(std::memory_order_relaxed) == cpu)
        own_cpu_.store(pin_self_apart_from(cpu), std::memory_order_relaxed);
    }
    rank_against_callback();
    // live on the callback's CPU, unable to preempt its thread (no realtime priority, or not
    // above it): the callback grows its lead as for a worker elsewhere, before the pipeline
    // opens (callback.hpp). Stored before worker_cpu below, whose release publishes it. Without
    // it, three periods in four came out silent on a 256-frame server with --no-realtime, 15 in
    // 16 on a 1024-frame one, and were counted on the host's account (a QA pass).
    if (!config_.play && config_.follow_callback && !config_.poll && !preempts_callback())
      callback->worker_cannot_preempt.store(true, std::memory_order_relaxed);
  }
  if (config_.follow_callback && !config_.poll) cpu_.follow();
  // live's callback keeps its pipeline shut until the worker is where it runs (callback.hpp).
  // Polling apart, or where the system refused to move the worker, it is as placed as it gets.
  // Stored on a change only: the cache line is the callback's, and a polling worker passes here
  // every microsecond.
  if (callback_pin_tried_) {
    const int where = !config_.follow_callback || config_.poll || cpu_.cpu() < 0 ? CallbackState::worker_anywhere : cpu_.cpu();
    if (callback->worker_cpu.load(std::memory_order_relaxed) != where)
      callback->worker_cpu.store(where, std::memory_order_release);
  }
}

void Worker::rank_against_callback() noexcept {
  if (!realtime()) return;
  int policy = SCHED_OTHER;
  sched_param parameters{};
  if (pthread_getschedparam(config_.callback->thread, &policy, &parameters) != 0) return;
  if (policy != SCHED_FIFO && policy != SCHED_RR) return;
  const int current = priority_.load(std::memory_order_relaxed);
  // play: below the callback's thread, whatever the asked priority. Under `jackd -R` at its
  // default the callback runs at 5 and the server at 10; a play worker at 60 on their CPU,
  // given more work than a period holds, had kept both from running (a QA pass: a 2-s file
  // took 13 s, its gaps counted on the host's account).
  // live: at least one above it, so that it computes each period as soon as it is handed over.
  const int wanted = config_.play ? std::min(current, parameters.sched_priority - 1)
                                  : std::max(current, parameters.sched_priority + 1);
  // play under a callback at the lowest SCHED_FIFO priority: no realtime priority is below it,
  // so the worker leaves SCHED_FIFO for nice -20 (it had kept the asked 60, above the callback).
  if (config_.play && wanted < sched_get_priority_min(SCHED_FIFO)) {
    sched_param none{};
    if (pthread_setschedparam(pthread_self(), SCHED_OTHER, &none) != 0) return;
    nice_error_ = set_thread_nice(worker_nice);  // before the release below, which realtime_note reads after
    below_lowest_callback_.store(true, std::memory_order_relaxed);
    realtime_.store(false, std::memory_order_release);
    return;
  }
  if (wanted == current || wanted < sched_get_priority_min(SCHED_FIFO) || wanted > sched_get_priority_max(SCHED_FIFO))
    return;
  if (make_thread_realtime(wanted) == 0) priority_.store(wanted, std::memory_order_relaxed);
}

bool Worker::preempts_callback() const noexcept {
  if (!realtime()) return false;
  int policy = SCHED_OTHER;
  sched_param parameters{};
  if (pthread_getschedparam(config_.callback->thread, &policy, &parameters) != 0) return false;
  if (policy != SCHED_FIFO && policy != SCHED_RR) return true;
  return priority_.load(std::memory_order_relaxed) > parameters.sched_priority;
}

std::size_t Worker::put(const float* block, std::size_t frames) noexcept {
  if (!config_.speaker_moves.empty()) {  // into WAV's speaker order (Config::speaker_moves)
    const std::size_t channels = config_.speaker_moves.size();
    for (std::size_t f = 0; f < frames; ++f)
      for (std::size_t k = 0; k < channels; ++k)
        mapped_[f * channels + k] = block[f * channels + static_cast<std::size_t>(config_.speaker_moves[k])];
    return output_.write(mapped_.data(), frames);
  }
  if (config_.output_channels == config_.channels) return output_.write(block, frames);
  // Mono to the first two device channels, silence on the rest.
  const std::size_t out_channels = static_cast<std::size_t>(config_.output_channels);
  std::fill(mapped_.begin(), mapped_.begin() + frames * out_channels, 0.0f);
  for (std::size_t f = 0; f < frames; ++f)
    for (std::size_t c = 0; c < std::min<std::size_t>(out_channels, 2); ++c) mapped_[f * out_channels + c] = block[f];
  return output_.write(mapped_.data(), frames);
}

std::size_t Worker::step() noexcept {
  if (done_.load(std::memory_order_relaxed) || failed_.load(std::memory_order_relaxed)) return 0;
  const std::size_t channels = static_cast<std::size_t>(config_.channels);
  std::size_t total = 0;
  for (;;) {
    std::size_t frames = 0;
    const std::int64_t end = end_frames_.load(std::memory_order_acquire);
    if (config_.play) {
      if (output_.writable_frames() < config_.block_frames) break;
      const std::size_t readable = input_.readable_frames();
      if (readable >= config_.block_frames) {
        frames = input_.read(in_block_.data(), config_.block_frames);
      } else if (end >= 0) {  // the input has ended: what is left, then zeros
        frames = input_.read(in_block_.data(), readable);
        std::fill(in_block_.begin() + frames * channels, in_block_.begin() + config_.block_frames * channels, 0.0f);
        frames = config_.block_frames;
      } else {
        break;  // the reader is behind
      }
    } else {
      frames = std::min({input_.readable_frames(), output_.writable_frames(), config_.block_frames});
      if (frames == 0) break;
      input_.read(in_block_.data(), frames);
    }
    in_frames_ += frames;
    if (const std::uint64_t found = zero_nonfinite(in_block_.data(), frames * channels); found > 0)
      nonfinite_in_.fetch_add(found, std::memory_order_relaxed);

    timespec begin{}, finish{};
    clock_gettime(CLOCK_MONOTONIC, &begin);
    const Status status = slot_.process(in_block_.data(), out_block_.data(), frames);
    clock_gettime(CLOCK_MONOTONIC, &finish);
    stats_.record(static_cast<double>(finish.tv_sec - begin.tv_sec) * 1e6 +
                      static_cast<double>(finish.tv_nsec - begin.tv_nsec) / 1e3,
                  frames);
    if (status != Status::ok) {
      failed_.store(true, std::memory_order_release);
      break;
    }
    zero_nonfinite(out_block_.data(), frames * channels);

    // play: trim the delay from the start, stop at exactly `end` outputs.
    std::size_t first = 0, last = frames;
    if (config_.play) {
      const std::uint64_t block_start = out_frames_;
      if (block_start < config_.skip_frames)
        first = static_cast<std::size_t>(std::min<std::uint64_t>(config_.skip_frames - block_start, frames));
      if (end >= 0) {
        const std::uint64_t stop = config_.skip_frames + static_cast<std::uint64_t>(end);
        last = static_cast<std::size_t>(std::clamp<std::int64_t>(static_cast<std::int64_t>(stop - std::min(stop, block_start)), 0,
                                                                 static_cast<std::int64_t>(frames)));
        last = std::max(last, first);
      }
    }
    out_frames_ += frames;
    // Past full scale: the device (or what records it) clips them; play had said nothing of
    // a +24 dB gain that clipped most samples (a QA pass). A pass the compiler vectorises.
    std::uint64_t over = 0;
    for (std::size_t i = first * channels; i < last * channels; ++i) over += std::fabs(out_block_[i]) > 1.0f;
    if (over > 0) over_full_scale_.fetch_add(over, std::memory_order_relaxed);
    const std::size_t written = put(out_block_.data() + first * channels, last - first);
    written_.fetch_add(written, std::memory_order_relaxed);
    total += written;
    if (config_.play && end >= 0 && out_frames_ >= config_.skip_frames + static_cast<std::uint64_t>(end)) {
      done_.store(true, std::memory_order_release);
      if (draining_ != nullptr) draining_->store(true, std::memory_order_release);
      break;
    }
  }
  return total;
}

}  // namespace halo::realtime
