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

std::size_t CpuFftEngine::parallel_block_frames(const ProcessSpec& spec, int threads) {
  const std::size_t channels = static_cast<std::size_t>(std::max(spec.channels, 1));
  const std::size_t pool = static_cast<std::size_t>(pool_threads_for(threads));
  const std::size_t hop = latency_frames_for(spec);
  const std::size_t for_every_thread = (pool + channels - 1) / channels;
  const std::size_t for_the_hand_over = (pool * min_call_frames_per_thread + hop - 1) / hop;
  return std::max(for_every_thread, for_the_hand_over) * hop;
}

void CpuFftEngine::do_prepare(const ProcessSpec& spec) {
  pool_.reset();  // joins the old threads before their scratch goes
  halo_frames_ = spec.max_mask_frames - 1;
  fft_frames_ = fft_frames_for(spec.max_mask_frames);
  bins_ = fft_frames_ / 2 + 1;
  hop_frames_ = fft_frames_ - halo_frames_;
  const int threads = pool_threads_for(requested_threads_);
  scratch_.clear();
  scratch_.resize(static_cast<std::size_t>(threads));
  for (auto& scratch : scratch_) {
    scratch.time = fftw::allocate<float>(fft_frames_);
    scratch.spectrum = fftw::allocate<fftwf_complex>(bins_);
    if (!scratch.time || !scratch.spectrum)
      throw Error("cpu-fft: out of memory for an FFT of " + std::to_string(fft_frames_));
  }
  fft_ = std::make_unique<PackedRealFft>(fft_frames_, scratch_[0].time.get(), scratch_[0].spectrum.get());

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
      if (!carry_out_[k].back()) throw Error("cpu-fft: out of memory for an FFT of " + std::to_string(fft_frames_));
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
    std::fill_n(scratch.time.get(), fft_frames_, 0.0f);
    for (std::size_t k = 0; k < h.size(); ++k) scratch.time[k] = h[k] * scale;
    fft_->forward(scratch.time.get(), scratch.spectrum.get());
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
    for (int c = 0; c < channels(); ++c) {
      scatter(c, call, carried_outputs(c) + pending_frames_, 0, frames);
      gather(c, call, call.carried, frames, carry_in_[current_][c].data() + call.carried);
    }
  } else {
    auto task = [this, &call](std::size_t index, int thread) noexcept {
      transform_block(static_cast<int>(index / call.blocks), index % call.blocks, call,
                      scratch_[static_cast<std::size_t>(thread)]);
    };
    pool_->run(call.blocks * static_cast<std::size_t>(channels()), task);
    current_ = 1 - current_;
  }
  pending_frames_ = received % hop_frames_;
  return Status::ok;
}

void CpuFftEngine::gather(int channel, const Call& call, std::size_t frame, std::size_t count,
                          float* dst) const noexcept {
  const std::size_t last = frame + count;
  if (frame < call.carried) {
    const std::size_t from_carry = std::min(last, call.carried) - frame;
    std::copy_n(carry_in_[current_][channel].data() + frame, from_carry, dst);
    dst += from_carry;
    frame += from_carry;
    if (frame == last) return;
  }
  const std::size_t stride = static_cast<std::size_t>(channels());
  const float* in = call.in + (frame - call.carried) * stride + static_cast<std::size_t>(channel);
  const std::size_t n = last - frame;
  // A constant stride for mono and stereo, so that the compiler vectorises the loop.
  if (stride == 1)
    std::copy_n(in, n, dst);
  else if (stride == 2)
    for (std::size_t i = 0; i < n; ++i) dst[i] = in[2 * i];
  else
    for (std::size_t i = 0; i < n; ++i) dst[i] = in[i * stride];
}

void CpuFftEngine::scatter(int channel, const Call& call, const float* src, std::size_t frame,
                           std::size_t count) const noexcept {
  const std::size_t stride = static_cast<std::size_t>(channels());
  float* out = call.out + frame * stride + static_cast<std::size_t>(channel);
  // Channel c starts c/C of the way along (see the class comment: the channels' tasks of one
  // block run side by side and would otherwise write the same cache lines at the same time).
  const std::size_t start = count * static_cast<std::size_t>(channel) / stride;
  for (std::size_t i = start; i < count; ++i) out[i * stride] = src[i];
  for (std::size_t i = 0; i < start; ++i) out[i * stride] = src[i];
}

// Block `block`: the call's frames [block hop, block hop + N) counted from the first that
// carry_in_ holds (the block with its halo); its hop of outputs is the call's output frames
// from (block + 1) hop - pending_frames_ (the hop before it is the carried block's).
void CpuFftEngine::transform_block(int channel, std::size_t block, const Call& call, Scratch& scratch) noexcept {
  float* time = scratch.time.get();
  fftwf_complex* spectrum = scratch.spectrum.get();
  gather(channel, call, block * hop_frames_, fft_frames_, time);
  fft_->forward(time, spectrum);
  fft_->multiply(spectrum, mask_spectra_[mask_of_channel_[channel]].get());
  // The last block transforms back straight into the other carry buffer: its outputs that
  // this call does not emit are the next call's first (in whole-hop calls, all of them).
  const bool last = block + 1 == call.blocks;
  const int next = 1 - current_;  // the carries the last block fills for the next call
  float* result = last ? carry_out_[next][channel].get() : time;
  fft_->inverse(spectrum, result);
  // Circular wrap spoils the first Mmax-1 results; the rest are the block's outputs.
  const float* outputs = result + halo_frames_;
  const std::size_t first = (block + 1) * hop_frames_ - pending_frames_;  // <= call.frames
  scatter(channel, call, outputs, first, std::min(hop_frames_, call.frames - first));
  if (block == 0)  // the rest of the carried block's outputs come first
    scatter(channel, call, carried_outputs(channel) + pending_frames_, 0, hop_frames_ - pending_frames_);
  if (last) {  // the next call's input carry
    const std::size_t consumed = call.blocks * hop_frames_;
    gather(channel, call, consumed, call.carried + call.frames - consumed, carry_in_[next][channel].data());
  }
}

const float* CpuFftEngine::carried_outputs(int channel) const noexcept {
  return carry_out_[current_][channel].get() + halo_frames_;
}

}  // namespace halo
