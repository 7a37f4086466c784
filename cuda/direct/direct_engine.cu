// The CUDA engines: one class, parameterised by the kernel it runs.
#include "cuda/direct/direct_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/device/error.hpp"
#include "cuda/direct/kernels.cuh"
#include "cuda/device/resources.hpp"

namespace halo::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  throw Error(std::string("CUDA error in ") + call + " (" + file + ":" + std::to_string(line) +
              "): " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ")");
}

std::string engine_name(Kernel kernel) {
  switch (kernel) {
    case Kernel::basic: return "cuda-basic";
    case Kernel::constant: return "cuda-constant";
    case Kernel::tiled: return "cuda-tiled";
    case Kernel::cached: return "cuda-cached";
    case Kernel::fast: return "cuda-fast";
  }
  return "cuda-unknown";
}

bool device_usable(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = std::string("no usable CUDA device: ") + cudaGetErrorString(status);
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA device";
    return false;
  }
  return kernels_loadable(why);
}

namespace {

std::size_t round_up(std::size_t value, std::size_t granule) { return (value + granule - 1) / granule * granule; }

// The constant-memory tap bank is one per process: the engine whose taps it holds owns it.
// Engines lock it for a whole process() call and upload their taps when they are not the
// owner, so several CUDA engines in one process stay correct (they take turns).
std::mutex bank_mutex;
const void* bank_owner = nullptr;

// A direct-convolution engine on the GPU.
//
// Device state, per channel c (planar, stride `stride_` floats):
//   planar_[cur_] + c*stride_ : [ halo_ frames | the chunk, rounded up | read slack ]
//     The halo_ frames in front hold, at their end, the last M-1 input frames before this
//     chunk (the carry), zeros before that; kernels read x[n - k] there for n < k.
//   planar_[1 - cur_]         : the other buffer of the pair; after a chunk the carry kernel
//     copies the newest M-1 frames into its halo cells, and the next chunk uses it. Two
//     buffers make the carry a copy between distinct ranges even when the chunk is shorter
//     than the mask.
//   out_planar_ : the output per channel (stride out_stride_); for one channel it is also
//     the interleaved output.
//   in_dev_/out_dev_ : the chunk interleaved (only for 2+ channels).
// Host state: pinned_in_/pinned_out_, page-locked staging of one chunk each way.
//
// process(): the chunk is cut into up to max_slices slices (multiples of frame_granule); for
// each, on alternating streams: host copy into pinned memory, host-to-device copy,
// deinterleave, convolution (after the previous slice's samples are in place: event), interleave,
// device-to-host copy; the host copies slice j out while later slices are still on the GPU.
// Nothing is allocated; the halo never leaves the device.
class CudaEngine final : public Engine {
 public:
  CudaEngine(Kernel kernel, int block_threads, int device)
      : kernel_(kernel), block_threads_(block_threads), device_(device) {}

  ~CudaEngine() override {
    std::lock_guard<std::mutex> lock(bank_mutex);
    if (bank_owner == this) bank_owner = nullptr;
  }

  std::string name() const override { return engine_name(kernel_); }

  // Host staging copies are timed on the host; the device parts with timing events per slice
  // (the parts of different slices overlap, so they add up to more than the wall time).
  std::vector<std::pair<std::string, double>> time_breakdown() const override {
    return {{"host staging copies", seconds_.staging},
            {"copies to device", seconds_.to_device},
            {"kernels", seconds_.kernels},
            {"copies from device", seconds_.from_device},
            {"waiting for the device", seconds_.waiting}};
  }

 protected:
  void do_prepare(const std::vector<std::vector<float>>& taps_per_channel, std::size_t max_chunk_frames) override {
    HALO_CUDA_CHECK(cudaSetDevice(device_));
    const int channels = static_cast<int>(taps_per_channel.size());
    const std::size_t taps = taps_per_channel[0].size();
    bool shared_mask = true;
    for (const auto& mask : taps_per_channel) shared_mask = shared_mask && mask == taps_per_channel[0];

    // Which kernel runs and how the bank is laid out. cuda-fast pads each mask to its tap tile;
    // where per-channel padded masks would overflow the bank but unpadded ones fit, it runs the
    // constant kernel instead (same results, slower).
    const std::size_t masks = shared_mask ? 1 : channels;
    run_kernel_ = kernel_;
    if (kernel_ == Kernel::fast && masks * padded_taps(Kernel::fast, taps) > max_constant_taps &&
        masks * taps <= max_constant_taps)
      run_kernel_ = Kernel::constant;
    const std::size_t bank_taps = padded_taps(run_kernel_, taps);
    if (masks * bank_taps > max_constant_taps) {
      throw Error(shared_mask || channels == 1
                      ? "the mask of " + std::to_string(taps) + " taps exceeds the " +
                            std::to_string(max_constant_taps) +
                            " taps constant memory holds; use --engine cpu"
                      : "the masks of " + std::to_string(taps) + " taps x " + std::to_string(channels) +
                            " channels exceed the " + std::to_string(max_constant_taps) +
                            " taps constant memory holds; use --engine cpu (or one mask for all channels)");
    }
    if (max_chunk_frames > (std::size_t{1} << 30)) throw Error("chunks of over 2^30 frames are not supported");
    if (kernel_ != Kernel::fast && (block_threads_ < 1 || block_threads_ > 1024))
      throw Error("block of " + std::to_string(block_threads_) + " threads: give 1 to 1024");

    channels_ = channels;
    taps_ = taps;
    kernel_taps_ = static_cast<int>(bank_taps);
    tap_stride_ = shared_mask ? 0 : bank_taps;
    bank_.assign(masks * bank_taps, 0.0f);
    for (std::size_t m = 0; m < masks; ++m)
      std::copy(taps_per_channel[m].begin(), taps_per_channel[m].end(), bank_.begin() + m * bank_taps);

    halo_ = halo_frames(run_kernel_, taps);
    const std::size_t chunk_span = round_up(max_chunk_frames, frame_granule);
    stride_ = round_up(halo_ + chunk_span + read_slack_frames, 32);
    out_stride_ = chunk_span;

    // Release the previous buffers first (a second prepare), then size everything once.
    release_buffers();
    streams_.resize(2);
    for (int s = 0; s < 2; ++s) streams_[s] = Stream();
    for (int b = 0; b < 2; ++b) planar_[b] = DeviceBuffer<float>(stride_ * channels);
    out_planar_ = DeviceBuffer<float>(out_stride_ * channels);
    if (channels > 1) {
      in_dev_ = DeviceBuffer<float>(max_chunk_frames * channels);
      out_dev_ = DeviceBuffer<float>(max_chunk_frames * channels);
    }
    pinned_in_ = PinnedBuffer<float>(max_chunk_frames * channels);
    pinned_out_ = PinnedBuffer<float>(max_chunk_frames * channels);
    if (run_kernel_ == Kernel::basic) {
      global_taps_ = DeviceBuffer<float>(bank_.size());
      HALO_CUDA_CHECK(cudaMemcpy(global_taps_.get(), bank_.data(), bank_.size() * sizeof(float),
                                 cudaMemcpyHostToDevice));
    }
    for (int j = 0; j < max_slices; ++j) {
      slice_in_ready_[j] = Event();
      slice_out_ready_[j] = Event();
      for (auto& mark : slice_marks_[j]) mark = Event(true);
    }
    seconds_ = Seconds{};
    carry_done_ = Event();
    {
      std::lock_guard<std::mutex> lock(bank_mutex);
      if (bank_owner == this) bank_owner = nullptr;  // new taps: upload on the next process()
    }
    clear_carry();
  }

  void do_process(const float* in, float* out, std::size_t frames) override {
    HALO_CUDA_CHECK(cudaSetDevice(device_));
    std::lock_guard<std::mutex> lock(bank_mutex);
    cudaStream_t s0 = streams_[0].get();
    if (bank_owner != this && run_kernel_ != Kernel::basic) {
      upload_constant_taps(bank_.data(), bank_.size(), s0);
      streams_[0].synchronize();
      bank_owner = this;
    }
    for (auto& stream : streams_) carry_done_.make_wait(stream.get());

    const int channels = channels_;
    float* planar_in = planar_[cur_].get();
    float* out_planar = out_planar_.get();
    const std::size_t slices = std::clamp<std::size_t>(frames / min_slice_frames, 1, max_slices);
    const std::size_t slice_frames = round_up((frames + slices - 1) / slices, frame_granule);

    std::size_t count = 0;  // slices enqueued
    for (std::size_t start = 0; start < frames; start += slice_frames, ++count) {
      const std::size_t length = std::min(slice_frames, frames - start);
      const std::size_t samples = length * channels;
      cudaStream_t s = streams_[count % 2].get();
      // Host: into pinned memory (overlaps the previous slice's transfers and kernels).
      const auto staging_start = Clock::now();
      std::memcpy(pinned_in_.get() + start * channels, in + start * channels, samples * sizeof(float));
      seconds_.staging += seconds_since(staging_start);
      Event (&marks)[4] = slice_marks_[count];
      marks[0].record(s);
      float* x = planar_in + halo_ + start;
      if (channels == 1) {
        HALO_CUDA_CHECK(cudaMemcpyAsync(x, pinned_in_.get() + start, samples * sizeof(float),
                                        cudaMemcpyHostToDevice, s));
      } else {
        HALO_CUDA_CHECK(cudaMemcpyAsync(in_dev_.get() + start * channels, pinned_in_.get() + start * channels,
                                        samples * sizeof(float), cudaMemcpyHostToDevice, s));
        launch_deinterleave(in_dev_.get() + start * channels, length, channels, x, stride_, s);
      }
      slice_in_ready_[count].record(s);
      // The kernel reads up to M-1 frames before the slice: the previous slice's samples.
      if (count > 0) slice_in_ready_[count - 1].make_wait(s);
      marks[1].record(s);

      PlanarLaunch launch;
      launch.x = x;
      launch.x_stride = stride_;
      launch.y = out_planar + start;
      launch.y_stride = out_stride_;
      launch.frames = length;
      launch.channels = channels;
      launch.taps = kernel_taps_;
      launch.tap_stride = tap_stride_;
      launch.global_taps = global_taps_.get();
      launch.block_threads = block_threads_;
      launch_convolution(run_kernel_, launch, s);

      const float* result = out_planar + start;
      if (channels > 1) {
        launch_interleave(out_planar + start, out_stride_, length, channels, out_dev_.get() + start * channels, s);
        result = out_dev_.get() + start * channels;
      }
      marks[2].record(s);
      HALO_CUDA_CHECK(cudaMemcpyAsync(pinned_out_.get() + start * channels, result, samples * sizeof(float),
                                      cudaMemcpyDeviceToHost, s));
      slice_out_ready_[count].record(s);
      marks[3].record(s);
    }

    // The carry: the newest M-1 input frames of each channel into the other buffer's halo,
    // once every slice's samples are in place. The next process() waits for it on the device.
    for (std::size_t j = 0; j < count; ++j) slice_in_ready_[j].make_wait(s0);
    float* next = planar_[1 - cur_].get();
    launch_carry(planar_in + halo_ + frames, next + halo_, stride_, taps_ - 1, channels, s0);
    carry_done_.record(s0);
    cur_ = 1 - cur_;

    // Copy each slice out as soon as it is back.
    std::size_t j = 0;
    for (std::size_t start = 0; start < frames; start += slice_frames, ++j) {
      const std::size_t samples = std::min(slice_frames, frames - start) * channels;
      const auto wait_start = Clock::now();
      slice_marks_[j][3].synchronize();
      seconds_.waiting += seconds_since(wait_start);
      const auto staging_start = Clock::now();
      std::memcpy(out + start * channels, pinned_out_.get() + start * channels, samples * sizeof(float));
      seconds_.staging += seconds_since(staging_start);
      seconds_.to_device += elapsed_seconds(slice_marks_[j][0], slice_marks_[j][1]);
      seconds_.kernels += elapsed_seconds(slice_marks_[j][1], slice_marks_[j][2]);
      seconds_.from_device += elapsed_seconds(slice_marks_[j][2], slice_marks_[j][3]);
    }
  }

  void do_reset() override {
    HALO_CUDA_CHECK(cudaSetDevice(device_));
    for (auto& stream : streams_) stream.synchronize();
    clear_carry();
  }

 private:
  static constexpr int max_slices = 4;
  static constexpr std::size_t min_slice_frames = 65536;

  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
  static double elapsed_seconds(const Event& from, const Event& to) {
    float milliseconds = 0;
    HALO_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, from.get(), to.get()));
    return milliseconds * 1e-3;
  }

  // Zeros both buffers' halo cells (and everything else) and marks the carry done.
  void clear_carry() {
    cudaStream_t s0 = streams_[0].get();
    for (int b = 0; b < 2; ++b) HALO_CUDA_CHECK(cudaMemsetAsync(planar_[b].get(), 0, planar_[b].bytes(), s0));
    carry_done_.record(s0);
    streams_[0].synchronize();
    cur_ = 0;
  }

  void release_buffers() {
    for (auto& b : planar_) b = DeviceBuffer<float>();
    out_planar_ = DeviceBuffer<float>();
    in_dev_ = DeviceBuffer<float>();
    out_dev_ = DeviceBuffer<float>();
    global_taps_ = DeviceBuffer<float>();
    pinned_in_ = PinnedBuffer<float>();
    pinned_out_ = PinnedBuffer<float>();
  }

  Kernel kernel_;              // the kernel asked for (names the engine)
  Kernel run_kernel_;          // the kernel that runs (see do_prepare)
  int block_threads_;
  int device_;
  int channels_ = 0;
  std::size_t taps_ = 0;       // M
  int kernel_taps_ = 0;        // M, or M padded for cuda-fast
  std::size_t tap_stride_ = 0; // floats between channels' masks in the bank; 0: one mask
  std::vector<float> bank_;    // host copy of the tap bank, uploaded when this engine takes it
  std::size_t halo_ = 0;       // halo frames in front of each channel's chunk
  std::size_t stride_ = 0;     // floats per channel in planar_
  std::size_t out_stride_ = 0; // floats per channel in out_planar_
  int cur_ = 0;                // which planar_ buffer holds the current carry

  std::vector<Stream> streams_;
  DeviceBuffer<float> planar_[2];
  DeviceBuffer<float> out_planar_;
  DeviceBuffer<float> in_dev_, out_dev_;
  DeviceBuffer<float> global_taps_;
  PinnedBuffer<float> pinned_in_, pinned_out_;
  Event slice_in_ready_[max_slices];   // slice j's samples are in planar_[cur_]
  Event slice_out_ready_[max_slices];  // slice j's output is in pinned_out_
  Event carry_done_;                   // the halo for the next chunk is in place
  // Timing marks per slice: before the copy in, before the kernels (after the wait for the
  // previous slice), after the kernels, after the copy out.
  Event slice_marks_[max_slices][4];
  struct Seconds {
    double staging = 0, to_device = 0, kernels = 0, from_device = 0, waiting = 0;
  } seconds_;  // totals since prepare(), for time_breakdown()
};

}  // namespace

std::unique_ptr<Engine> make_engine(Kernel kernel, int block_threads) {
  std::string why;
  if (!device_usable(&why)) throw Error(engine_name(kernel) + ": " + why + "; use --engine cpu");
  const int device = 0;
  HALO_CUDA_CHECK(cudaSetDevice(device));
  HALO_CUDA_CHECK(cudaFree(nullptr));  // start the context now, on the caller's thread
  return std::make_unique<CudaEngine>(kernel, block_threads, device);
}

}  // namespace halo::cuda
