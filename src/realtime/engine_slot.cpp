#include "src/realtime/engine_slot.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace halo::realtime {

DelayLine::DelayLine(int channels, std::size_t delay_frames)
    : channels_(channels), delay_frames_(delay_frames), buffer_(delay_frames * static_cast<std::size_t>(channels), 0.0f) {}

void DelayLine::process(const float* in, float* out, std::size_t frames) noexcept {
  const std::size_t channels = static_cast<std::size_t>(channels_);
  if (delay_frames_ == 0) {
    if (out != in) std::copy(in, in + frames * channels, out);
    return;
  }
  for (std::size_t f = 0; f < frames; ++f) {
    float* slot = buffer_.data() + cursor_ * channels;
    for (std::size_t c = 0; c < channels; ++c) {
      const float entering = in[f * channels + c];
      out[f * channels + c] = slot[c];
      slot[c] = entering;
    }
    if (++cursor_ == delay_frames_) cursor_ = 0;
  }
}

void DelayLine::clear() noexcept {
  std::fill(buffer_.begin(), buffer_.end(), 0.0f);
  cursor_ = 0;
}

Voice::Voice(VoiceSetup setup, std::size_t max_block_frames)
    : engine_(std::move(setup.engine)),
      label_(std::move(setup.label)),
      mask_index_(setup.mask_index),
      wet_delay_(engine_->channels(), setup.wet_delay_frames),
      dry_(engine_->channels(), setup.dry_delay_frames),
      wet_(max_block_frames * static_cast<std::size_t>(engine_->channels()), 0.0f),
      dry_out_(max_block_frames * static_cast<std::size_t>(engine_->channels()), 0.0f),
      warmup_frames_(std::max(engine_->mask_frames() - 1 + engine_->latency_frames() + setup.wet_delay_frames,
                              setup.dry_delay_frames)),
      silence_gate_(engine_->channels(), std::max<std::size_t>(engine_->mask_frames(), 1)) {
  if (!engine_->ready()) throw std::logic_error("Voice: the engine must be prepared and have taps");
  if (max_block_frames > engine_->spec().max_block_frames)
    throw std::logic_error("Voice: the engine was prepared for smaller blocks");
  input_zeros_.reserve_for_blocks(engine_->channels(), max_block_frames, engine_->mask_frames());
  silence_gate_.reserve_for_blocks(engine_->latency_frames() + max_block_frames, max_block_frames);
}

Status Voice::process(const float* in, std::size_t frames) noexcept {
  input_zeros_.scan(in, frames, engine_->channels(), engine_->mask_frames());
  silence_gate_.feed(input_zeros_);
  if (engine_->process(in, wet_.data(), frames) != Status::ok) return Status::failed;
  // The engine's output frame t is y_full[t - latency].
  silence_gate_.zero_silent_outputs(wet_.data(), engine_frames_ - static_cast<std::int64_t>(engine_->latency_frames()), frames);
  engine_frames_ += static_cast<std::int64_t>(frames);
  wet_delay_.process(wet_.data(), wet_.data(), frames);
  dry_.process(in, dry_out_.data(), frames);
  return Status::ok;
}

EngineSlot::EngineSlot(int channels, std::size_t max_block_frames, std::size_t fade_frames)
    : channels_(channels),
      max_block_frames_(max_block_frames),
      fade_frames_(std::max<std::size_t>(fade_frames, 1)) {}

EngineSlot::~EngineSlot() {
  delete incoming_.exchange(nullptr);
  delete retired_.exchange(nullptr);
  delete fading_;
  delete warming_;
  delete current_;
}

std::unique_ptr<Voice> EngineSlot::offer(std::unique_ptr<Voice> voice) {
  voice->offer_number_ = ++offers_;  // before the release below publishes it
  Voice* expected = nullptr;
  if (!incoming_.compare_exchange_strong(expected, voice.get(), std::memory_order_acq_rel)) return voice;
  voice.release();
  return nullptr;
}

std::unique_ptr<Voice> EngineSlot::cancel_switch() {
  // Every voice offered so far, by its number: one offered later is not called off, whenever
  // the worker takes it (a count of cancels had retired such a voice when the worker took it
  // between reading the count and the offer: a review).
  cancelled_up_to_.store(offers_, std::memory_order_release);
  return std::unique_ptr<Voice>(incoming_.exchange(nullptr, std::memory_order_acq_rel));
}

namespace {
// The last switch's first block lies further back than what is still to be played.
bool last_switch_heard(std::uint64_t frames_out, std::uint64_t switch_at, std::uint64_t unplayed) {
  return frames_out - switch_at > unplayed;
}
}  // namespace

int EngineSlot::mask_heard(std::uint64_t unplayed) const noexcept {
  if (switches() == 0) return -1;
  const bool heard = last_switch_heard(frames_out_.load(std::memory_order_acquire),
                                       last_switch_at_.load(std::memory_order_acquire), unplayed);
  return heard ? current_mask() : previous_mask_.load(std::memory_order_acquire);
}

std::uint64_t EngineSlot::switches_heard(std::uint64_t unplayed) const noexcept {
  const std::uint64_t made = switches();
  const bool heard = last_switch_heard(frames_out_.load(std::memory_order_acquire),
                                       last_switch_at_.load(std::memory_order_acquire), unplayed);
  return made > 0 && !heard ? made - 1 : made;
}

std::unique_ptr<Voice> EngineSlot::take_retired() {
  return std::unique_ptr<Voice>(retired_.exchange(nullptr, std::memory_order_acq_rel));
}

const char* EngineSlot::failure() const noexcept {
  const Engine* engine = failed_.load(std::memory_order_acquire);
  return engine ? engine->failure() : "";
}

Status EngineSlot::process(const float* in, float* out, std::size_t frames) noexcept {
  const std::size_t channels = static_cast<std::size_t>(channels_);
  const std::uint64_t block_start = frames_out_.load(std::memory_order_relaxed);  // this thread's own count
  frames_out_.store(block_start + frames, std::memory_order_release);
  // A switch called off: the warming voice goes back unheard once the mailbox is free, and
  // until then is not handed over. (`play` with keys n then p faster than a long mask warms up
  // had played the mask in between ten seconds later, for eleven: a QA pass.)
  bool cancelling = warming_ != nullptr && warming_->offer_number_ <= cancelled_up_to_.load(std::memory_order_acquire);
  if (cancelling && retired_.load(std::memory_order_acquire) == nullptr) {
    retired_.store(warming_, std::memory_order_release);  // the control thread destroys it
    warming_ = nullptr;
    warming_superseded_ = false;
    cancelling = false;
  }
  // A voice offered while another still warms up supersedes it: the warming one was never
  // heard. (A mask file written twice within a long mask's warm-up, 5.5 s at 2^18 taps, had
  // played the older file first and the newer one seconds later: a QA pass.)
  // Once a warm-up: the voice that superseded one warms up to the end, or a file rewritten more
  // often than a long mask warms up would never be heard at all.
  if (warming_ != nullptr && !warming_superseded_ && !cancelling && incoming_.load(std::memory_order_acquire) != nullptr &&
      retired_.load(std::memory_order_acquire) == nullptr) {
    retired_.store(warming_, std::memory_order_release);  // the control thread destroys it
    warming_ = incoming_.exchange(nullptr, std::memory_order_acq_rel);
    warmed_frames_ = 0;
    warming_superseded_ = true;
  }
  // Take an offered voice at a block boundary, when the last crossfade is over and its voice
  // has been collected. The first voice plays at once; later ones warm up first.
  if (warming_ == nullptr && incoming_.load(std::memory_order_acquire) != nullptr && fading_ == nullptr &&
      retired_.load(std::memory_order_acquire) == nullptr) {
    warming_ = incoming_.exchange(nullptr, std::memory_order_acq_rel);
    warmed_frames_ = 0;
  }
  if (warming_ != nullptr && current_ == nullptr) warmed_frames_ = warming_->warmup_frames();
  // The crossfade's end retires the voice it fades out, so it starts only with the mailbox
  // empty: a voice superseded during this one's warm-up may still wait there (it had been
  // stored over and leaked, engine thread and all, when not collected in time: a review).
  if (warming_ != nullptr && warmed_frames_ >= warming_->warmup_frames() && !cancelling &&
      (current_ == nullptr || retired_.load(std::memory_order_acquire) == nullptr)) {
    if (current_ != nullptr) {
      fading_ = current_;
      fade_done_ = 0;
    }
    current_ = warming_;
    warming_ = nullptr;
    warming_superseded_ = false;
    previous_mask_.store(current_mask_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    last_switch_at_.store(block_start, std::memory_order_relaxed);
    current_mask_.store(current_->mask_index(), std::memory_order_relaxed);
    current_dry_delay_.store(current_->dry_delay_frames(), std::memory_order_relaxed);
    switches_.fetch_add(1, std::memory_order_release);  // publishes the three above
  }
  if (current_ == nullptr) {
    std::fill(out, out + frames * channels, 0.0f);
    return Status::ok;
  }
  if (current_->process(in, frames) != Status::ok) {
    failed_.store(&current_->engine(), std::memory_order_release);
    std::fill(out, out + frames * channels, 0.0f);
    return Status::failed;
  }
  if (warming_ != nullptr) {  // fed the same input, heard only once its output is exact
    if (warming_->process(in, frames) != Status::ok) {
      failed_.store(&warming_->engine(), std::memory_order_release);
      std::fill(out, out + frames * channels, 0.0f);
      return Status::failed;
    }
    warmed_frames_ += frames;
  }
  if (fading_ != nullptr && fading_->process(in, frames) != Status::ok) {
    failed_.store(&fading_->engine(), std::memory_order_release);
    std::fill(out, out + frames * channels, 0.0f);
    return Status::failed;
  }

  const float dry_target = bypass_.load(std::memory_order_relaxed) ? 1.0f : 0.0f;
  const float dry_step = 1.0f / static_cast<float>(fade_frames_);
  const float gain_target = std::pow(10.0f, static_cast<float>(gain_db_.load(std::memory_order_relaxed)) / 20.0f);
  // Linear gain ramp: reaches a new target fade_frames after it was set.
  if (gain_target != gain_target_) {
    gain_target_ = gain_target;
    gain_step_ = std::fabs(gain_target - gain_) / static_cast<float>(fade_frames_);
  }
  const float gain_step = gain_step_;
  const float* wet = current_->wet();
  const float* dry = current_->dry();
  const float* old_wet = fading_ ? fading_->wet() : nullptr;
  const float* old_dry = fading_ ? fading_->dry() : nullptr;
  for (std::size_t f = 0; f < frames; ++f) {
    // Per frame: the bypass mix, the crossfade weight of the current voice and the gain.
    if (dry_mix_ < dry_target) dry_mix_ = std::min(dry_target, dry_mix_ + dry_step);
    else if (dry_mix_ > dry_target) dry_mix_ = std::max(dry_target, dry_mix_ - dry_step);
    if (gain_ < gain_target) gain_ = std::min(gain_target, gain_ + gain_step);
    else if (gain_ > gain_target) gain_ = std::max(gain_target, gain_ - gain_step);
    float weight = 1.0f;
    if (fading_ != nullptr) {
      ++fade_done_;
      weight = std::min(1.0f, static_cast<float>(fade_done_) / static_cast<float>(fade_frames_));
    }
    for (std::size_t c = 0; c < channels; ++c) {
      const std::size_t i = f * channels + c;
      float sample = (1.0f - dry_mix_) * wet[i] + dry_mix_ * dry[i];
      if (old_wet != nullptr) {
        const float old_sample = (1.0f - dry_mix_) * old_wet[i] + dry_mix_ * old_dry[i];
        sample = (1.0f - weight) * old_sample + weight * sample;
      }
      out[i] = gain_ * sample;
    }
  }
  if (fading_ != nullptr && fade_done_ >= fade_frames_) {
    retired_.store(fading_, std::memory_order_release);  // the control thread destroys it
    fading_ = nullptr;
  }
  return Status::ok;
}

}  // namespace halo::realtime
