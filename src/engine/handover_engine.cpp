#include "src/engine/handover_engine.hpp"
#include "src/engine/started_thread.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace halo {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

HandoverEngine::HandoverEngine(std::unique_ptr<Engine> first, std::string second_name, Factory make_second,
                               std::size_t min_latency_frames, const HandoverTiming& timing)
    : first_(std::move(first)),
      second_name_(std::move(second_name)),
      make_second_(std::move(make_second)),
      min_latency_frames_(min_latency_frames),
      timing_(timing) {
  if (!first_) throw Error("hand-over: no first engine");
  if (!make_second_) throw Error("hand-over: no way to make " + second_name_);
}

HandoverEngine::~HandoverEngine() { stop_background(); }

std::string HandoverEngine::name() const { return "handover(" + first_->name() + "," + second_name_ + ")"; }

void HandoverEngine::stop_background() {
  if (background_.joinable()) background_.join();
}

void HandoverEngine::do_prepare(const ProcessSpec& spec) {
  stop_background();  // a second prepare starts over
  second_.reset();
  state_.store(starting);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_taps_.reset();
    second_failure_.clear();
    second_start_s_ = 0;
  }
  first_->prepare(spec);
  latency_frames_ = std::max(first_->latency_frames(), min_latency_frames_);
  first_delay_ = latency_frames_ - first_->latency_frames();
  history_frames_ = latency_frames_ + spec.max_mask_frames - 1;
  const std::size_t channels = static_cast<std::size_t>(spec.channels);
  history_.assign(history_frames_ * channels, 0.0f);
  delayed_.assign(spec.max_block_frames * channels, 0.0f);
  dropped_.assign(spec.max_block_frames * channels, 0.0f);
  position_ = 0;
  handed_over_ = false;
  priming_failed_ = false;
  priming_failure_[0] = '\0';
  second_delay_ = 0;
  first_frames_ = 0;
  first_s_ = priming_s_ = second_s_ = 0;
}

void HandoverEngine::do_set_taps(const TapSet& taps) {
  first_->set_taps(taps);  // idle after the hand-over, but reset() goes back to it
  if (!background_.joinable()) {
    // Tried once: a second engine whose thread could not be started leaves the first alone for
    // good. A later mask had tried again while the state still said failed, so no history was
    // kept for the hand-over that then came (a review).
    if (state_.load(std::memory_order_acquire) != failed) start_second(taps);
    if (timing_.wait_in_set_taps) wait_for_second();
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_.load(std::memory_order_acquire) == ready && !priming_failed_)
    second_->set_taps(taps);
  else if (state_.load(std::memory_order_acquire) == starting)
    pending_taps_ = taps;  // the background installs the latest
}

void HandoverEngine::start_second(const TapSet& taps) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_taps_ = taps;
  }
  // Without a thread to start it on (a process limit), the GPU engine is a second engine that
  // failed: the CPU engine filters on alone, as it would for any other failure of the second.
  try {
    start_second_thread();
  } catch (const Error& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    second_failure_ = error.what();
    pending_taps_.reset();
    state_.store(failed, std::memory_order_release);
  }
}

void HandoverEngine::start_second_thread() {
  background_ = started_thread("starting the GPU engine beside the CPU one", [this, spec = spec()] {
    const auto start = Clock::now();
    try {
      std::unique_ptr<Engine> engine = make_second_();
      if (!engine) throw Error("it could not be made");
      engine->prepare(spec);
      if (engine->latency_frames() > latency_frames_)
        throw Error("its latency of " + std::to_string(engine->latency_frames()) + " frames exceeds the " +
                    std::to_string(latency_frames_) + " the stream started with");
      std::lock_guard<std::mutex> lock(mutex_);
      engine->set_taps(*pending_taps_);
      pending_taps_.reset();
      second_ = std::move(engine);
      second_start_s_ = seconds_since(start);
      state_.store(ready, std::memory_order_release);
    } catch (const std::exception& error) {
      std::lock_guard<std::mutex> lock(mutex_);
      second_failure_ = error.what();
      pending_taps_.reset();
      state_.store(failed, std::memory_order_release);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      second_failure_ = "an unknown error";
      pending_taps_.reset();
      state_.store(failed, std::memory_order_release);
    }
  });
}

void HandoverEngine::wait_for_second() { stop_background(); }

void HandoverEngine::do_reset() {
  first_->reset();
  if (handed_over_) second_->reset();
  handed_over_ = false;
  std::fill(history_.begin(), history_.end(), 0.0f);
  position_ = 0;
  first_frames_ = 0;
}

void HandoverEngine::copy_history(std::int64_t first_frame, std::size_t frames, float* out) const noexcept {
  const std::size_t channels = static_cast<std::size_t>(this->channels());
  const auto size = static_cast<std::int64_t>(history_frames_);
  std::size_t slot = static_cast<std::size_t>(((first_frame % size) + size) % size);
  while (frames > 0) {
    const std::size_t run = std::min(frames, history_frames_ - slot);
    std::memcpy(out, history_.data() + slot * channels, run * channels * sizeof(float));
    out += run * channels;
    frames -= run;
    slot = 0;
  }
}

void HandoverEngine::remember(const float* in, std::size_t frames) noexcept {
  const std::size_t channels = static_cast<std::size_t>(this->channels());
  if (frames >= history_frames_) {  // only the newest history_frames_ matter
    in += (frames - history_frames_) * channels;
    const std::uint64_t first = position_ + frames - history_frames_;
    frames = history_frames_;
    std::size_t slot = static_cast<std::size_t>(first % history_frames_);
    const std::size_t run = history_frames_ - slot;
    std::memcpy(history_.data() + slot * channels, in, run * channels * sizeof(float));
    std::memcpy(history_.data(), in + run * channels, (frames - run) * channels * sizeof(float));
    return;
  }
  std::size_t slot = static_cast<std::size_t>(position_ % history_frames_);
  while (frames > 0) {
    const std::size_t run = std::min(frames, history_frames_ - slot);
    std::memcpy(history_.data() + slot * channels, in, run * channels * sizeof(float));
    in += run * channels;
    frames -= run;
    slot = 0;
  }
}

const float* HandoverEngine::delayed_input(const float* in, std::size_t frames, std::size_t delay) noexcept {
  if (delay == 0) return in;
  const std::size_t channels = static_cast<std::size_t>(this->channels());
  // Frames [position_ - delay, position_) are in the ring; from position_ on, in `in`.
  const std::size_t from_history = std::min(frames, delay);
  copy_history(static_cast<std::int64_t>(position_) - static_cast<std::int64_t>(delay), from_history, delayed_.data());
  std::memcpy(delayed_.data() + from_history * channels, in, (frames - from_history) * channels * sizeof(float));
  return delayed_.data();
}

void HandoverEngine::hand_over() noexcept {
  const auto start = Clock::now();
  const std::size_t latency = second_->latency_frames();
  const std::size_t delay = latency_frames_ - latency;  // the background checked latency <= L
  const std::size_t block = spec().max_block_frames;
  // Input frames [s - W, s - D): the second's own latency and the mask's span, just before the
  // first frame it will be fed in process() (s - D).
  std::int64_t frame = static_cast<std::int64_t>(position_) - static_cast<std::int64_t>(history_frames_);
  const std::int64_t end = static_cast<std::int64_t>(position_) - static_cast<std::int64_t>(delay);
  while (frame < end) {
    const std::size_t piece = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(block), end - frame));
    copy_history(frame, piece, delayed_.data());
    if (second_->process(delayed_.data(), dropped_.data(), piece) != Status::ok) {
      std::snprintf(priming_failure_, sizeof priming_failure_, "priming it failed: %s", second_->failure());
      priming_failed_ = true;
      priming_s_ += seconds_since(start);
      return;
    }
    frame += static_cast<std::int64_t>(piece);
  }
  second_delay_ = delay;
  handed_over_ = true;
  priming_s_ += seconds_since(start);
}

Status HandoverEngine::do_process(const float* in, float* out, std::size_t frames) noexcept {
  const std::size_t channels = static_cast<std::size_t>(this->channels());
  for (std::size_t done = 0; done < frames;) {
    std::size_t span = frames - done;
    if (!handed_over_ && !priming_failed_ && state_.load(std::memory_order_acquire) == ready &&
        position_ + span > timing_.earliest_frame) {
      if (position_ >= timing_.earliest_frame) {
        hand_over();
      } else {
        span = static_cast<std::size_t>(timing_.earliest_frame - position_);  // up to the hand-over, then again
      }
    }
    const float* block_in = in + done * channels;
    float* block_out = out + done * channels;
    const auto start = Clock::now();
    if (handed_over_) {
      if (second_->process(delayed_input(block_in, span, second_delay_), block_out, span) != Status::ok)
        return fail("%s: %s", second_name_.c_str(), second_->failure());
      second_s_ += seconds_since(start);
    } else {
      if (first_->process(delayed_input(block_in, span, first_delay_), block_out, span) != Status::ok)
        return fail("%s", first_->failure());
      first_s_ += seconds_since(start);
      first_frames_ += span;
    }
    // The history serves a hand-over to come and the running engine's delay.
    const bool handover_possible =
        !handed_over_ && !priming_failed_ && state_.load(std::memory_order_acquire) != failed;
    if (handover_possible || (handed_over_ ? second_delay_ : first_delay_) > 0) remember(block_in, span);
    position_ += span;
    done += span;
  }
  return Status::ok;
}

HandoverReport HandoverEngine::report() const {
  HandoverReport report;
  report.first = first_->name();
  report.second = second_name_;
  report.handed_over = handed_over_;
  report.first_frames = first_frames_;
  const int state = state_.load(std::memory_order_acquire);
  report.second_ready = state == ready;
  std::lock_guard<std::mutex> lock(mutex_);
  if (state == ready) report.second_start_s = second_start_s_;
  if (state == failed) report.second_failure = second_failure_;
  if (priming_failed_) report.second_failure = priming_failure_;
  return report;
}

std::vector<std::pair<std::string, double>> HandoverEngine::time_breakdown() const {
  std::vector<std::pair<std::string, double>> parts = {{first_->name(), first_s_}};
  if (!handed_over_ && priming_s_ == 0) return parts;
  parts.emplace_back("priming " + second_name_, priming_s_);
  if (!handed_over_) return parts;
  parts.emplace_back(second_name_, second_s_);
  for (const auto& [part, seconds] : second_->time_breakdown()) parts.emplace_back(second_name_ + " " + part, seconds);
  return parts;
}

}  // namespace halo
