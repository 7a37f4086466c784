#include "src/engine/cpu_fft_engine.hpp"

#include <algorithm>
#include <thread>
#include <utility>

#include "src/engine/fft_size.hpp"

namespace halo {

CpuFftEngine::CpuFftEngine(int threads) : requested_threads_(threads) {
  if (threads < 0 || threads > ThreadPool::max_threads)
    throw Error("cpu-fft: " + std::to_string(threads) + " threads: give 1 to " +
                std::to_string(ThreadPool::max_threads) + ", or 0 for one per core");
}

CpuFftEngine::~CpuFftEngine() = default;

std::size_t CpuFftEngine::latency_frames_for(const ProcessSpec& spec) {
  return fft_frames_for(spec.max_mask_frames) - (spec.max_mask_frames - 1);
}

int CpuFftEngine::pool_threads_for(int threads) {
  if (threads > 0) return threads;
  return std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, ThreadPool::max_threads);
}

std::size_t CpuFftEngine::groups_of(const ProcessSpec& spec, int per_task) {
  const std::size_t per = static_cast<std::size_t>(per_task);
  return (static_cast<std::size_t>(std::max(spec.channels, 1)) + per - 1) / per;
}

std::size_t CpuFftEngine::hops_a_call(const ProcessSpec& spec, int threads, int per_task) {
  const std::size_t groups = groups_of(spec, per_task);
  const std::size_t pool = static_cast<std::size_t>(pool_threads_for(threads));
  const std::size_t hop = latency_frames_for(spec);
  const std::size_t for_every_thread = (pool + groups - 1) / groups;
  const std::size_t for_the_hand_over = (pool * min_call_frames_per_thread + hop - 1) / hop;
  return std::max(for_every_thread, for_the_hand_over);
}

int CpuFftEngine::channels_per_task(const ProcessSpec& spec, int threads) {
  if (spec.channels < 2 || fft_frames_for(spec.max_mask_frames) > pair_fft_frames) return 1;
  return hops_a_call(spec, threads, 2) <= hops_a_call(spec, threads, 1) ? 2 : 1;
}

std::size_t CpuFftEngine::tasks_per_block(const ProcessSpec& spec, int threads) {
  return groups_of(spec, channels_per_task(spec, threads));
}

std::size_t CpuFftEngine::parallel_block_frames(const ProcessSpec& spec, int threads) {
  return hops_a_call(spec, threads, channels_per_task(spec, threads)) * latency_frames_for(spec);
}

void CpuFftEngine::do_prepare(const ProcessSpec& spec) {
  pool_.reset();  // joins the old threads before their scratch goes
  halo_frames_ = spec.max_mask_frames - 1;
  fft_frames_ = fft_frames_for(spec.max_mask_frames);
  bins_ = fft_frames_ / 2 + 1;
  hop_frames_ = fft_frames_ - halo_frames_;
  channels_per_task_ = channels_per_task(spec, requested_threads_);
  groups_ = static_cast<int>(tasks_per_block(spec, requested_threads_));
  const int threads = pool_threads_for(requested_threads_);
  const auto check_allocated = [this](bool allocated) {
    if (!allocated) throw Error(cpu_fft_out_of_memory(fft_frames_));
  };
  scratch_.clear();
  scratch_.resize(static_cast<std::size_t>(threads));
  for (auto& scratch : scratch_) {
    for (int k = 0; k < channels_per_task_; ++k) {
      scratch.time[k] = fftw::allocate<float>(fft_frames_);
      check_allocated(scratch.time[k] != nullptr);
    }
    scratch.spectrum = fftw::allocate<fftwf_complex>(bins_);
    check_allocated(scratch.spectrum != nullptr);
  }
  fft_ = std::make_unique<PackedRealFft>(fft_frames_, scratch_[0].time[0].get(), scratch_[0].spectrum.get());

  mask_spectra_.clear();
  for (int c = 0; c < spec.channels; ++c) {
    mask_spectra_.push_back(fftw::allocate<fftwf_complex>(bins_));
    if (!mask_spectra_.back()) throw Error("cpu-fft: out of memory for the masks' spectra");
  }
  mask_of_channel_.assign(spec.channels, 0);
  for (int k = 0; k < 2; ++k) {
    carry_in_[k].assign(spec.channels, std::vector<float>(halo_frames_ + hop_frames_, 0.0f));
    carry_out_[k].clear();
    for (int c = 0; c < spec.channels; ++c) {
      carry_out_[k].push_back(fftw::allocate<float>(fft_frames_));
      check_allocated(carry_out_[k].back() != nullptr);
      std::fill_n(carry_out_[k].back().get(), fft_frames_, 0.0f);
    }
  }
  current_ = 0;
  pending_frames_ = 0;
  pool_ = std::make_unique<ThreadPool>(threads);
}

void CpuFftEngine::do_set_taps(const TapSet& taps) {
  const float scale = 1.0f / static_cast<float>(fft_frames_);  // FFTW's inverse is unnormalised
  Scratch& scratch = scratch_[0];
  for (std::size_t mask = 0; mask < taps.distinct_masks(); ++mask) {
    const auto& h = taps.taps(mask);
    float* time = scratch.time[0].get();
    std::fill_n(time, fft_frames_, 0.0f);
    for (std::size_t k = 0; k < h.size(); ++k) time[k] = h[k] * scale;
    fft_->forward(time, scratch.spectrum.get());
    fft_->untangle(scratch.spectrum.get(), mask_spectra_[mask].get());
  }
  for (int c = 0; c < taps.channels(); ++c) mask_of_channel_[c] = taps.mask_of(c);
}

void CpuFftEngine::do_reset() {
  for (int k = 0; k < 2; ++k) {
    for (auto& carry : carry_in_[k]) std::fill(carry.begin(), carry.end(), 0.0f);
    for (auto& carry : carry_out_[k]) std::fill_n(carry.get(), fft_frames_, 0.0f);
  }
  current_ = 0;
  pending_frames_ = 0;
}

Status CpuFftEngine::do_process(const float* in, float* out, std::size_t frames) noexcept {
  const std::size_t received = pending_frames_ + frames;  // frames of this call's blocks, the first partial
  const Call call{in, out, frames, halo_frames_ + pending_frames_, received / hop_frames_};
  if (call.blocks == 0) {  // the call ends inside the current block: carry it on (frames < hop)
    for (int g = 0; g < groups_; ++g) {
      const ChannelGroup channels = group(g);
      scatter(channels, call, carried_outputs(channels, pending_frames_), 0, frames);
      gather(channels, call, call.carried, frames, carry_in(channels, current_, call.carried));
    }
  } else {
    auto task = [this, &call](std::size_t index, int thread) noexcept {
      transform_block(group(static_cast<int>(index / call.blocks)), index % call.blocks, call,
                      scratch_[static_cast<std::size_t>(thread)]);
    };
    pool_->run(call.blocks * static_cast<std::size_t>(groups_), task);
    current_ = 1 - current_;
  }
  pending_frames_ = received % hop_frames_;
  return Status::ok;
}

CpuFftEngine::ChannelGroup CpuFftEngine::group(int index) const noexcept {
  const int first = index * channels_per_task_;
  return {first, std::min(channels_per_task_, channels() - first), index};
}

CpuFftEngine::Pointers<float> CpuFftEngine::carry_in(const ChannelGroup& group, int which, std::size_t from) noexcept {
  Pointers<float> carries{};
  for (int k = 0; k < group.count; ++k) carries[k] = carry_in_[which][group.first + k].data() + from;
  return carries;
}

CpuFftEngine::Pointers<const float> CpuFftEngine::carried_outputs(const ChannelGroup& group,
                                                                  std::size_t from) const noexcept {
  Pointers<const float> outputs{};
  for (int k = 0; k < group.count; ++k) outputs[k] = carry_out_[current_][group.first + k].get() + halo_frames_ + from;
  return outputs;
}

void CpuFftEngine::gather(const ChannelGroup& group, const Call& call, std::size_t frame, std::size_t count,
                          const Pointers<float>& dst) const noexcept {
  const std::size_t last = frame + count;
  std::size_t done = 0;  // of dst's
  if (frame < call.carried) {
    done = std::min(last, call.carried) - frame;
    for (int k = 0; k < group.count; ++k)
      std::copy_n(carry_in_[current_][group.first + k].data() + frame, done, dst[k]);
    frame += done;
    if (frame == last) return;
  }
  const std::size_t stride = static_cast<std::size_t>(channels());
  const float* in = call.in + (frame - call.carried) * stride + static_cast<std::size_t>(group.first);
  const std::size_t n = last - frame;
  float* first = dst[0] + done;
  // A constant stride for mono and stereo, so that the compiler vectorises the loops.
  if (group.count == 2) {
    float* second = dst[1] + done;
    if (stride == 2)
      for (std::size_t i = 0; i < n; ++i) first[i] = in[2 * i], second[i] = in[2 * i + 1];
    else
      for (std::size_t i = 0; i < n; ++i) first[i] = in[i * stride], second[i] = in[i * stride + 1];
  } else if (stride == 1) {
    std::copy_n(in, n, first);
  } else if (stride == 2) {
    for (std::size_t i = 0; i < n; ++i) first[i] = in[2 * i];
  } else {
    for (std::size_t i = 0; i < n; ++i) first[i] = in[i * stride];
  }
}

void CpuFftEngine::scatter(const ChannelGroup& group, const Call& call, const Pointers<const float>& src,
                           std::size_t frame, std::size_t count) const noexcept {
  const std::size_t stride = static_cast<std::size_t>(channels());
  float* out = call.out + frame * stride + static_cast<std::size_t>(group.first);
  const float* first = src[0];
  const float* second = src[1];
  const auto put = [&](std::size_t from, std::size_t to) {
    if (group.count == 2 && stride == 2)
      for (std::size_t i = from; i < to; ++i) out[2 * i] = first[i], out[2 * i + 1] = second[i];
    else if (group.count == 2)
      for (std::size_t i = from; i < to; ++i) out[i * stride] = first[i], out[i * stride + 1] = second[i];
    else
      for (std::size_t i = from; i < to; ++i) out[i * stride] = first[i];
  };
  // Group g starts g/G of the way along (see the class comment: the groups' tasks of one
  // block run side by side and would otherwise write the same cache lines at the same time).
  const std::size_t start = count * static_cast<std::size_t>(group.index) / static_cast<std::size_t>(groups_);
  put(start, count);
  put(0, start);
}

// Block `block`: the call's frames [block hop, block hop + N) counted from the first that
// carry_in_ holds (the block with its halo); its hop of outputs is the call's output frames
// from (block + 1) hop - pending_frames_ (the hop before it is the carried block's).
void CpuFftEngine::transform_block(const ChannelGroup& group, std::size_t block, const Call& call,
                                   Scratch& scratch) noexcept {
  const Pointers<float> time{scratch.time[0].get(), scratch.time[1].get()};
  fftwf_complex* spectrum = scratch.spectrum.get();
  gather(group, call, block * hop_frames_, fft_frames_, time);
  // The last block transforms back straight into the other carry buffers: its outputs that
  // this call does not emit are the next call's first (in whole-hop calls, all of them).
  const bool last = block + 1 == call.blocks;
  const int next = 1 - current_;  // the carries the last block fills for the next call
  Pointers<const float> outputs{};
  for (int k = 0; k < group.count; ++k) {
    const int channel = group.first + k;
    fft_->forward(time[k], spectrum);
    fft_->multiply(spectrum, mask_spectra_[mask_of_channel_[channel]].get());
    float* result = last ? carry_out_[next][channel].get() : time[k];
    fft_->inverse(spectrum, result);
    outputs[k] = result + halo_frames_;  // circular wrap spoils the first Mmax-1 results
  }
  const std::size_t first = (block + 1) * hop_frames_ - pending_frames_;  // <= call.frames
  scatter(group, call, outputs, first, std::min(hop_frames_, call.frames - first));
  if (block == 0)  // the rest of the carried block's outputs come first
    scatter(group, call, carried_outputs(group, pending_frames_), 0, hop_frames_ - pending_frames_);
  if (last) {  // the next call's input carry
    const std::size_t consumed = call.blocks * hop_frames_;
    gather(group, call, consumed, call.carried + call.frames - consumed, carry_in(group, next, 0));
  }
}


}  // namespace halo
