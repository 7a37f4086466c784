#include "src/realtime/callback.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>

#include "src/engine/partitioned_engine.hpp"

namespace halo::realtime {
namespace {

// grow_lead (callback.hpp): ends a run of back-to-back callbacks or goes on with it; once
// run_samples runs have ended, sets the lead to add. No allocation: the runs are sorted where they lie.
void track_runs(CallbackState& state, bool back_to_back, std::size_t frames) noexcept {
  if (back_to_back) {
    state.run_frames += frames;
    return;
  }
  if (state.run_frames > 0 && state.runs_seen < CallbackState::run_samples) {
    state.runs[state.runs_seen++] = static_cast<std::uint32_t>(state.run_frames);
    if (state.runs_seen == CallbackState::run_samples) {  // the runs are not looked at again: sorted in place
      std::uint32_t* runs = state.runs;
      std::nth_element(runs, runs + CallbackState::run_samples / 2, runs + CallbackState::run_samples);
      const std::size_t median = runs[CallbackState::run_samples / 2];
      state.host_run_frames.store(median, std::memory_order_relaxed);
      const bool fits = state.output != nullptr && 2 * median <= state.output->capacity_frames() &&
                        (state.input == nullptr || 2 * median <= state.input->capacity_frames());
      // A run longer than the period (the lead live starts with; a callback's own frames where
      // there is none): a host buffer's last slice may be shorter than the period.
      const std::size_t period = state.initial_lead_frames > 0 ? state.initial_lead_frames : frames;
      if (median > period && !fits) {
        state.run_too_long.store(median, std::memory_order_relaxed);
      } else if (median > period) {
        // From now on a run's frames are there at each run's start (this callback starts one):
        // the pipeline (callback.hpp), which is live's latency, comes to exactly a run. What it
        // holds past that is dropped (owed), what it lacks is made up with silence; the
        // warm-up's owed frames are forgotten.
        const std::uint64_t out = state.frames_out.load(std::memory_order_relaxed) + state.discarded;
        const std::uint64_t in = state.initial_lead_frames + state.captured;
        const std::size_t ready = in > out ? static_cast<std::size_t>(in - out) : 0;
        state.owed_frames = ready > median ? ready - median : 0;
        state.lead_to_add = median > ready ? median - ready : 0;
        state.target_pipeline_frames = median;
        state.lead_added.store(median - period, std::memory_order_relaxed);
      }
    }
  }
  state.run_frames = frames;
}

// keep_latency: the frames the pipeline holds past its target, once `played` more frames have
// left it (callback.hpp): what is owed.
std::uint64_t frames_past_target(const CallbackState& state, std::uint64_t played) noexcept {
  const std::uint64_t out = state.frames_out.load(std::memory_order_relaxed) + played + state.discarded;
  const std::uint64_t in = state.initial_lead_frames + state.captured;
  const std::uint64_t pipeline = in > out ? in - out : 0;
  const std::uint64_t target =
      state.target_pipeline_frames > 0 ? state.target_pipeline_frames : state.initial_lead_frames;
  return pipeline > target ? pipeline - target : 0;
}

// Every callback, the pipeline open or not: where it ran, and the worker woken.
void finish_callback(CallbackState& state) noexcept {
  state.cpu.store(sched_getcpu(), std::memory_order_relaxed);
  if (!state.thread_known.load(std::memory_order_relaxed)) {
    state.thread = pthread_self();
    state.thread_known.store(true, std::memory_order_release);
  }
  if (state.wake != nullptr) sem_post(state.wake);
}

}  // namespace

void run_callback(CallbackState& state, const float* input, float* output, std::size_t frames,
                  bool host_xrun, bool continues_host_buffer) noexcept {
  state.callbacks.fetch_add(1, std::memory_order_relaxed);
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // vDSO: no system call
  const std::int64_t now_ns = static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  const double interval_ns = static_cast<double>(now_ns - state.last_callback_ns);
  state.last_callback_ns = now_ns;
  const bool back_to_back = interval_ns < 0.5e9 * static_cast<double>(frames) / state.rate_hz;
  if (!continues_host_buffer) state.host_catching_up = back_to_back;
  state.recent_own_underruns <<= 1;
  // A worker that reports, once the pipeline is open (the quarter-second bound opened it before
  // the worker was placed), that it cannot preempt this thread: the lead grows from here, as it
  // does while shut (below), a few runs' shortfall late rather than three periods in four for
  // good (a review). The flag is written once, and says all it means by itself.
  if (state.pipeline_open && !state.grow_lead && state.wait_for_worker &&
      state.worker_cannot_preempt.load(std::memory_order_relaxed)) {
    state.grow_lead = true;
    state.run_frames = 0;
  }
  if (state.grow_lead) track_runs(state, back_to_back, frames);
  if (host_xrun) {
    // PortAudio's buffer processor hands one flagged host buffer to several callbacks in a row
    // (play: four 64-frame callbacks a 256-frame JACK buffer, each flagged): one xrun, counted
    // once (play had counted four times live's). A server catching up that runs two flagged
    // buffers back to back counts once too: one stall.
    if (!(back_to_back && state.since_host_xrun == 0)) state.host_xruns.fetch_add(1, std::memory_order_relaxed);
    state.since_host_xrun = 0;
    const std::uint32_t window = ((1u << CallbackState::flag_delay_periods) - 1) << 1;  // the last few callbacks
    if (const int late = __builtin_popcount(state.recent_own_underruns & window); late > 0) {
      state.host_underruns.fetch_add(static_cast<std::uint64_t>(late), std::memory_order_relaxed);
      state.host_underruns_flagged_later.fetch_add(static_cast<std::uint64_t>(late), std::memory_order_relaxed);
    }
    state.recent_own_underruns = 0;
  } else if (state.since_host_xrun < 1000) {
    ++state.since_host_xrun;
  }
  if (state.wait_for_worker && !state.pipeline_open) {
    const int worker_cpu = state.worker_cpu.load(std::memory_order_acquire);
    // A worker placed on this CPU that cannot preempt this thread: measure the runs from here
    // on and grow the lead, as for a worker elsewhere (callback.hpp).
    if (!state.grow_lead && worker_cpu != CallbackState::worker_not_placed &&
        state.worker_cannot_preempt.load(std::memory_order_relaxed)) {
      state.grow_lead = true;
      state.run_frames = 0;
    }
    const bool measured = !state.grow_lead || state.runs_seen == CallbackState::run_samples;
    const bool in_place = worker_cpu == CallbackState::worker_anywhere || worker_cpu == sched_getcpu();
    // Bounded: where the callback's thread could not be pinned and keeps moving, a quarter of a
    // second of silence is the most waiting for the worker costs. Not the measuring, which takes
    // run_samples runs however long they are: opened before it on a 4096-frame server, live's
    // first runs found a period of lead where they needed a run (0.3 s short, a QA pass).
    const bool waited_enough = static_cast<double>(state.silent_start_frames.load(std::memory_order_relaxed)) >= 0.25 * state.rate_hz;
    state.pipeline_open = measured && (in_place || waited_enough) && !back_to_back;
    if (state.pipeline_open && !in_place) state.opened_without_worker.store(true, std::memory_order_relaxed);
    if (!state.pipeline_open) {
      if (output != nullptr && state.output != nullptr)
        std::fill(output, output + frames * static_cast<std::size_t>(state.output->channels()), 0.0f);
      state.silent_start_frames.fetch_add(frames, std::memory_order_relaxed);
      finish_callback(state);
      return;
    }
  }
  if (state.input != nullptr && input != nullptr) {
    const std::size_t written = state.input->write(input, frames);
    state.captured += written;
    if (written < frames) state.overruns.fetch_add(1, std::memory_order_relaxed);
  }
  if (state.output != nullptr && output != nullptr) {
    FrameRing& ring = *state.output;
    const std::size_t channels = static_cast<std::size_t>(ring.channels());
    if (state.lead_to_add > 0) {  // silence that leaves the ring's frames there: the lead grows
      const std::size_t silent = static_cast<std::size_t>(std::min<std::uint64_t>(state.lead_to_add, frames));
      std::fill(output, output + silent * channels, 0.0f);
      state.lead_to_add -= silent;
      output += silent * channels;
      frames -= silent;
    }
    if (state.owed_frames > 0) {
      // Never more than the pipeline holds past its target: input lost to an overrun since the
      // debt was counted will never arrive to be dropped. And only from what this period does
      // not need: dropping into it would leave it short, owe again, and drop each block the
      // worker brings while it catches up one a period (silent all along, where the frames
      // could play a little late until the backlog gives the surplus to pay with).
      state.owed_frames = std::min(state.owed_frames, frames_past_target(state, frames));
      const std::size_t ready = ring.readable_frames();
      const std::size_t spare = ready > frames ? ready - frames : 0;
      const std::size_t dropped = ring.discard(static_cast<std::size_t>(std::min<std::uint64_t>(state.owed_frames, spare)));
      state.owed_frames -= dropped;
      state.discarded += dropped;
    }
    // Read before the ring: set, every frame the worker will put is in it, and a short read is
    // the end. Read after it, a worker late at the end could put its last frames and set it
    // between the two, and a real underrun had passed for the end (a review).
    const bool drained = state.draining.load(std::memory_order_acquire);
    const std::size_t got = ring.read(output, frames);
    if (got < frames) {
      std::fill(output + got * channels, output + frames * channels, 0.0f);
      if (drained) {
        state.finished.store(true, std::memory_order_release);
      } else {
        state.underruns.fetch_add(1, std::memory_order_relaxed);
        // Run back to back by the host: live's ring holds a period (or a run), which a buffer
        // more can empty before its worker gets the CPU. play's holds seconds: short there, its
        // worker (or reader) was late, whatever the host's rhythm (3 of 4 had been put on the
        // host's account on a 256-frame server, a QA pass). Not the trampoline's slices of one
        // buffer (continues_host_buffer).
        const bool run_by_the_host = state.host_catching_up && state.input != nullptr;
        if (state.since_host_xrun <= 1 || run_by_the_host)
          state.host_underruns.fetch_add(1, std::memory_order_relaxed);
        else
          state.recent_own_underruns |= 1;
        state.underrun_frames.fetch_add(frames - got, std::memory_order_relaxed);
        if (state.keep_latency) state.owed_frames = frames_past_target(state, got);
      }
    }
    state.frames_out.fetch_add(got, std::memory_order_relaxed);
  }
  finish_callback(state);
}

void learn_engine_priority_ceiling(CallbackState& state) noexcept {
  if (state.engine_priority_ceiling.load(std::memory_order_relaxed) != 0 || !state.thread_known.load(std::memory_order_acquire))
    return;
  int policy = SCHED_OTHER;
  sched_param parameters{};
  const bool realtime = pthread_getschedparam(state.thread, &policy, &parameters) == 0 &&
                        (policy == SCHED_FIFO || policy == SCHED_RR);
  const int ceiling = !realtime ? -1
                      : parameters.sched_priority > sched_get_priority_min(policy) ? parameters.sched_priority - 1
                                                                                     : CpuPartitionedEngine::below_every_realtime_priority;
  state.engine_priority_ceiling.store(ceiling, std::memory_order_release);
}

}  // namespace halo::realtime
