#include "src/engine/cpu_fft_engine.hpp"

#include <algorithm>
#include <mutex>
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
  // Complete blocks one call can bring: up to hop - 1 frames were pending before it.
  const std::size_t blocks_per_call = (hop_frames_ - 1 + spec.max_block_frames) / hop_frames_;

  const int threads = pool_threads_for(requested_threads_);
  scratch_.clear();
  scratch_.resize(static_cast<std::size_t>(threads));
  for (auto& scratch : scratch_) {
    scratch.time = fftw::allocate<float>(fft_frames_);
    scratch.spectrum = fftw::allocate<fftwf_complex>(bins_);
    if (!scratch.time || !scratch.spectrum)
      throw Error("cpu-fft: out of memory for an FFT of " + std::to_string(fft_frames_));
  }
  const int n = static_cast<int>(fft_frames_);
  forward_ = fftw::plan_r2c(n, scratch_[0].time.get(), scratch_[0].spectrum.get());  // under the planner's lock
  inverse_ = fftw::plan_c2r(n, scratch_[0].spectrum.get(), scratch_[0].time.get());
  if (!forward_ || !inverse_) throw Error("cpu-fft: FFTW could not plan an FFT of " + std::to_string(fft_frames_));

  mask_spectra_.clear();
  for (int c = 0; c < spec.channels; ++c) {
    mask_spectra_.push_back(fftw::allocate<fftwf_complex>(bins_));
    if (!mask_spectra_.back()) throw Error("cpu-fft: out of memory for the masks' spectra");
  }
  mask_of_channel_.assign(spec.channels, 0);
  input_.assign(spec.channels, std::vector<float>(fft_frames_ + spec.max_block_frames, 0.0f));
  output_.assign(spec.channels, std::vector<float>((1 + blocks_per_call) * hop_frames_, 0.0f));
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
    fftwf_execute_dft_r2c(forward_.get(), scratch.time.get(), mask_spectra_[mask].get());
  }
  for (int c = 0; c < taps.channels(); ++c) mask_of_channel_[c] = taps.mask_of(c);
}

void CpuFftEngine::do_reset() {
  for (auto& input : input_) std::fill(input.begin(), input.end(), 0.0f);
  for (auto& output : output_) std::fill(output.begin(), output.end(), 0.0f);
  pending_frames_ = 0;
}

Status CpuFftEngine::do_process(const float* in, float* out, std::size_t frames) noexcept {
  const int channel_count = channels();
  const std::size_t received = pending_frames_ + frames;  // frames of this call's blocks, the first partial
  const std::size_t blocks = received / hop_frames_;

  // The (de)interleaving copies go through the pool too: on many cores a single thread's pass
  // over every sample, in and out, took longer than all the FFTs together.
  const std::size_t pieces = copy_pieces(frames);
  auto piece_range = [frames, pieces](std::size_t piece) {
    return std::pair<std::size_t, std::size_t>(frames * piece / pieces, frames * (piece + 1) / pieces);
  };
  auto deinterleave = [&](std::size_t piece, int) noexcept {
    const auto [first, last] = piece_range(piece);
    for (int c = 0; c < channel_count; ++c) {
      float* input = input_[c].data() + halo_frames_ + pending_frames_;
      for (std::size_t n = first; n < last; ++n) input[n] = in[n * channel_count + c];
    }
  };
  pool_->run(pieces, deinterleave);

  auto task = [this, blocks](std::size_t index, int thread) noexcept {
    transform_block(static_cast<int>(index / blocks), index % blocks, scratch_[static_cast<std::size_t>(thread)]);
  };
  if (blocks > 0) pool_->run(blocks * static_cast<std::size_t>(channel_count), task);

  auto interleave = [&](std::size_t piece, int) noexcept {
    const auto [first, last] = piece_range(piece);
    for (int c = 0; c < channel_count; ++c) {
      const float* output = output_[c].data() + pending_frames_;
      for (std::size_t n = first; n < last; ++n) out[n * channel_count + c] = output[n];
    }
  };
  pool_->run(pieces, interleave);

  if (blocks > 0) {
    for (int c = 0; c < channel_count; ++c) {
      // The frames after the last complete block, with the halo before them, start the next.
      float* input = input_[c].data();
      const std::size_t consumed = blocks * hop_frames_;
      std::copy(input + consumed, input + halo_frames_ + received, input);
      float* ready = output_[c].data();
      std::copy(ready + consumed, ready + consumed + hop_frames_, ready);
    }
  }
  pending_frames_ = received % hop_frames_;
  return Status::ok;
}

std::size_t CpuFftEngine::copy_pieces(std::size_t frames) const noexcept {
  // A piece small enough to spread over every thread, none so small that waking a thread for
  // it (microseconds) costs more than the copy.
  constexpr std::size_t min_piece_frames = 16384;
  const std::size_t wanted = (frames + min_piece_frames - 1) / min_piece_frames;
  return std::clamp<std::size_t>(wanted, 1, static_cast<std::size_t>(pool_->threads()));
}

// y for one block's hop of frames, into its place in output_: input_ frames
// [block hop, block hop + N) are the block with its halo.
void CpuFftEngine::transform_block(int channel, std::size_t block, Scratch& scratch) noexcept {
  float* time = scratch.time.get();
  fftwf_complex* spectrum = scratch.spectrum.get();
  std::copy_n(input_[channel].data() + block * hop_frames_, fft_frames_, time);
  fftwf_execute_dft_r2c(forward_.get(), time, spectrum);
  const fftwf_complex* mask = mask_spectra_[mask_of_channel_[channel]].get();
  for (std::size_t b = 0; b < bins_; ++b) {
    const float re = spectrum[b][0] * mask[b][0] - spectrum[b][1] * mask[b][1];
    const float im = spectrum[b][0] * mask[b][1] + spectrum[b][1] * mask[b][0];
    spectrum[b][0] = re;
    spectrum[b][1] = im;
  }
  fftwf_execute_dft_c2r(inverse_.get(), spectrum, time);
  // Circular wrap spoils the first Mmax-1 results; the rest are the block's outputs.
  std::copy_n(time + halo_frames_, hop_frames_, output_[channel].data() + (block + 1) * hop_frames_);
}

}  // namespace halo
