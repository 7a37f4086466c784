// The CUDA direct engines: one class, parameterised by the kernel it runs.
#include "cuda/direct/direct_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/device/error.hpp"
#include "cuda/device/gpu_device.hpp"
#include "cuda/device/resources.hpp"
#include "cuda/direct/kernels.cuh"

namespace halo::cuda {

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

Kernel kernel_that_runs(Kernel kernel, const TapSet& taps) {
  const std::size_t masks = taps.distinct_masks(), m = taps.mask_frames();
  if (kernel == Kernel::fast && masks * padded_taps(Kernel::fast, m) > max_constant_taps && masks * m <= max_constant_taps)
    return Kernel::constant;
  return kernel;
}

std::size_t bank_taps_needed(Kernel kernel, const TapSet& taps) {
  return taps.distinct_masks() * padded_taps(kernel_that_runs(kernel, taps), taps.mask_frames());
}

bool accepts(Kernel kernel, const TapSet& taps, const ProcessSpec& spec, std::string* why_not) {
  const std::size_t needed = bank_taps_needed(kernel, taps);
  if (taps.channels() != spec.channels) {
    if (why_not)
      *why_not = "taps for " + std::to_string(taps.channels()) + " channels, but the stream has " +
                 std::to_string(spec.channels);
    return false;
  }
  if (needed <= max_constant_taps) return true;
  if (why_not) {
    const std::string masks = taps.one_mask() ? "a mask of " + std::to_string(taps.mask_frames()) + " taps"
                                              : std::to_string(taps.distinct_masks()) + " distinct masks of " +
                                                    std::to_string(taps.mask_frames()) + " taps";
    *why_not = masks + " needs " + std::to_string(needed) + " taps of constant memory, which holds " +
               std::to_string(max_constant_taps) + "; the CPU engines take any length";
  }
  return false;
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A direct-convolution engine on one GPU.
//
// Contract (Engine's, made concrete): prepare() allocates every device, pinned and event
// resource for spec.max_block_frames and a carry of spec.max_mask_frames - 1 frames;
// set_taps() leases a region of the GPU's constant bank (GpuDevice), uploads the masks and
// plans the launches, keeping the carry; process() is noexcept: it only enqueues copies and
// kernels, waits for them and copies out; no allocation, no lock, no exception. A failed CUDA
// call makes it return Status::failed with the call and CUDA's reason.
//
// Device state (DeviceState), per channel c (planar, stride `stride_` floats):
//   planar[cur_] + c*stride_ : [ halo_ frames | the chunk, rounded up | read slack ]
//     The halo_ frames in front hold, at their end, the last carry_frames_ input frames
//     before this chunk (the carry), zeros before that; kernels read x[n - k] there for n < k.
//   planar[1 - cur_]         : the other buffer of the pair; after a chunk the carry kernel
//     copies the newest carry_frames_ frames into its halo cells, and the next chunk uses it.
//     Two buffers make the carry a copy between distinct ranges even when the chunk is
//     shorter than the mask.
//   out_planar : the output per channel (stride out_stride_); for one channel it is also
//     the interleaved output.
//   in_dev/out_dev : the chunk interleaved (only for 2+ channels).
//   global_taps : cuda-basic's masks (the others read theirs from the constant bank).
// Host state: pinned_in/pinned_out, page-locked staging of one chunk each way.
//
// process(): the chunk is cut into up to max_slices slices (multiples of frame_granule); for
// each, on alternating streams: host copy into pinned memory, host-to-device copy,
// deinterleave, convolution (after the previous slice's samples are in place: event), interleave,
// device-to-host copy; the host copies slice j out while later slices are still on the GPU.
// The halo never leaves the device.
//
// The period path (cuda-fast when spec.max_block_frames <= PeriodTuning::max_frames: an audio
// period, as `play` and `live` feed it from their worker thread): the chunk path's slices,
// events and timing marks cost far more than a 64-frame block's arithmetic, and its 4096-frame
// kernel tiles leave most of the GPU idle. Instead:
//   - the input history of each channel stays on the device in a ring (PeriodLaunch): no
//     carry is copied; stream position `position_` (host) says where a block lands;
//   - set_taps() captures the whole period into one CUDA graph and instantiates it: the host
//     writes a PeriodHeader (position, frames) and the block into pinned memory, then
//     copies in (PeriodIo::copies) -> period kernel (split-K over the taps, period_kernels.cuh;
//     it also records the block in the ring) -> copies out; PeriodIo::mapped has no copies,
//     the kernel reads and writes the pinned memory itself;
//   - process() = a host copy in, cudaGraphLaunch, cudaStreamSynchronize, a host copy out.
//     The graph is fixed (sized for max_block_frames); the block's size travels in the header,
//     so any frames <= max_block_frames runs the same graph, and the kernel's tiles past the
//     block return at once.
// The period kernel adds partial sums in the order of the kernel the chunk path would run for
// the same taps (kernel_that_runs: fast, or its constant fallback), so both paths give the
// same bits; the contract suite compares them.
//
// Taps: mask m of the TapSet sits at lease offset + m * padded taps. One launch per slice
// covers channels whose masks are all one mask (tap_stride 0) or all distinct in channel
// order (tap_stride = padded taps); other mappings ([a, a, b]) launch once per run of
// channels that share a mask (groups_).
class CudaDirectEngine final : public Engine {
 public:
  CudaDirectEngine(Kernel kernel, int block_threads, GpuDevice& device, const PeriodTuning& tuning)
      : kernel_(kernel), block_threads_(block_threads), device_(device), tuning_(tuning) {}

  ~CudaDirectEngine() override {
    if (state_ || period_state_) cudaSetDevice(device_.index());  // free on the device that owns it
  }

  bool runs_period_path() const { return period_; }

  std::string name() const override { return engine_name(kernel_); }

  // Host staging copies are timed on the host; the device parts with timing events per slice
  // (the parts of different slices overlap, so they add up to more than the wall time).
  std::vector<std::pair<std::string, double>> time_breakdown() const override {
    if (period_)
      return {{"host staging copies", seconds_.staging}, {"period graphs, launch to completion", seconds_.waiting}};
    return {{"host staging copies", seconds_.staging},
            {"copies to device", seconds_.to_device},
            {"kernels", seconds_.kernels},
            {"copies from device", seconds_.from_device},
            {"waiting for the device", seconds_.waiting}};
  }

 protected:
  void do_prepare(const ProcessSpec& spec) override {
    device_.make_current();
    state_.reset();  // a second prepare: release the previous buffers first
    period_state_.reset();
    installed_ = false;
    seconds_ = Seconds{};
    // No mask longer than the bank can ever be installed: the carry need not be longer.
    const std::size_t longest = std::min(spec.max_mask_frames, max_constant_taps);
    carry_frames_ = longest - 1;
    halo_ = halo_frames(Kernel::fast, longest);  // covers every kernel's padding
    channels_ = spec.channels;
    period_ = false;
    if (kernel_ == Kernel::fast && spec.max_block_frames <= tuning_.max_frames) {
      prepare_period(spec, longest);
      period_ = true;
      return;
    }
    const std::size_t block_span = round_up(spec.max_block_frames, frame_granule);
    stride_ = round_up(halo_ + block_span + read_slack_frames, 32);
    out_stride_ = block_span;

    auto state = std::make_unique<DeviceState>();
    const std::size_t samples = spec.max_block_frames * spec.channels;
    for (auto& buffer : state->planar) buffer = DeviceBuffer<float>(stride_ * spec.channels);
    state->out_planar = DeviceBuffer<float>(out_stride_ * spec.channels);
    if (spec.channels > 1) {
      state->in_dev = DeviceBuffer<float>(samples);
      state->out_dev = DeviceBuffer<float>(samples);
    }
    state->pinned_in = PinnedBuffer<float>(samples);
    state->pinned_out = PinnedBuffer<float>(samples);
    if (kernel_ == Kernel::basic) state->global_taps = DeviceBuffer<float>(max_constant_taps);
    state_ = std::move(state);
    clear_carry();
  }

  // The period path's buffers: the ring (taps of the longest mask, padded, plus the largest
  // block: reads and writes of one launch never meet), partial sums for the longest mask in
  // either summation form, the pinned staging (a PeriodHeader in front of the block) and,
  // for PeriodIo::copies, its device twins.
  void prepare_period(const ProcessSpec& spec, std::size_t longest) {
    auto state = std::make_unique<PeriodState>();
    const std::size_t tiles = (spec.max_block_frames + period_tile_frames - 1) / period_tile_frames;
    std::size_t ring = 1;
    while (ring < halo_ + tiles * period_tile_frames) ring *= 2;
    ring_frames_ = ring;
    tiles_ = static_cast<int>(tiles);
    const std::size_t partials = std::max(period_partials(PeriodSum::constant, longest),
                                          period_partials(PeriodSum::fast_pipelined, padded_taps(Kernel::fast, longest)));
    const std::size_t samples = spec.max_block_frames * spec.channels;
    state->ring = DeviceBuffer<float>(ring * spec.channels);
    state->partials = DeviceBuffer<float>(spec.channels * tiles * partials * period_tile_frames);
    state->counters = DeviceBuffer<unsigned>(spec.channels * tiles);
    state->tap_offsets = DeviceBuffer<int>(spec.channels);
    const unsigned flags = tuning_.io == PeriodIo::mapped ? cudaHostAllocMapped : cudaHostAllocDefault;
    state->in_host = PinnedBuffer<float>(header_floats + samples, flags);
    state->out_host = PinnedBuffer<float>(samples, flags);
    std::memset(state->in_host.get(), 0, state->in_host.size() * sizeof(float));
    std::memset(state->out_host.get(), 0, state->out_host.size() * sizeof(float));
    if (tuning_.io == PeriodIo::copies) {
      state->in_dev = DeviceBuffer<float>(header_floats + samples);
      state->out_dev = DeviceBuffer<float>(samples);
    }
    cudaStream_t s = state->stream.get();
    HALO_CUDA_CHECK(cudaMemsetAsync(state->counters.get(), 0, state->counters.bytes(), s));
    HALO_CUDA_CHECK(cudaMemsetAsync(state->partials.get(), 0, state->partials.bytes(), s));
    if (state->in_dev.get()) HALO_CUDA_CHECK(cudaMemsetAsync(state->in_dev.get(), 0, state->in_dev.bytes(), s));
    if (state->out_dev.get()) HALO_CUDA_CHECK(cudaMemsetAsync(state->out_dev.get(), 0, state->out_dev.bytes(), s));
    period_state_ = std::move(state);
    clear_ring();
  }

  // The period path's part of set_taps: the channels' mask offsets, then the graph.
  void set_period_taps(const TapSet& taps, Kernel run, std::size_t padded, int base) {
    PeriodState& d = *period_state_;
    std::vector<int> offsets(taps.channels());
    for (int c = 0; c < taps.channels(); ++c) offsets[c] = base + static_cast<int>(taps.mask_of(c) * padded);
    HALO_CUDA_CHECK(cudaMemcpyAsync(d.tap_offsets.get(), offsets.data(), offsets.size() * sizeof(int),
                                    cudaMemcpyHostToDevice, d.stream.get()));
    HALO_CUDA_CHECK(cudaStreamSynchronize(d.stream.get()));

    PeriodLaunch launch;
    launch.ring = d.ring.get();
    launch.ring_frames = ring_frames_;
    launch.partials = d.partials.get();
    launch.counters = d.counters.get();
    launch.tap_offsets = d.tap_offsets.get();
    launch.channels = channels_;
    launch.tiles = tiles_;
    if (run == Kernel::constant) {
      launch.sum = PeriodSum::constant;
      launch.taps = static_cast<int>(taps.mask_frames());
    } else {
      launch.sum = padded <= static_cast<std::size_t>(ShortPolicy::max_taps) ? PeriodSum::fast_short
                                                                             : PeriodSum::fast_pipelined;
      launch.taps = static_cast<int>(padded);
    }
    const std::size_t in_bytes = d.in_host.size() * sizeof(float), out_bytes = d.out_host.size() * sizeof(float);
    if (tuning_.io == PeriodIo::copies) {
      launch.header = reinterpret_cast<const PeriodHeader*>(d.in_dev.get());
      launch.in = d.in_dev.get() + header_floats;
      launch.out = d.out_dev.get();
    } else {
      float *in = nullptr, *out = nullptr;
      HALO_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&in), d.in_host.get(), 0));
      HALO_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&out), d.out_host.get(), 0));
      launch.header = reinterpret_cast<const PeriodHeader*>(in);
      launch.in = in + header_floats;
      launch.out = out;
    }
    const PeriodIo io = tuning_.io;
    d.graph = GraphExec();
    const Graph graph = Graph::capture(d.stream.get(), [&](cudaStream_t s) {
      if (io == PeriodIo::copies) {
        const cudaError_t in_copy = cudaMemcpyAsync(d.in_dev.get(), d.in_host.get(), in_bytes, cudaMemcpyHostToDevice, s);
        if (in_copy != cudaSuccess) return in_copy;
      }
      const cudaError_t launched = launch_period(launch, s);
      if (launched != cudaSuccess || io != PeriodIo::copies) return launched;
      return cudaMemcpyAsync(d.out_host.get(), d.out_dev.get(), out_bytes, cudaMemcpyDeviceToHost, s);
    });
    d.graph = GraphExec(graph, d.stream.get());
  }

  void do_set_taps(const TapSet& taps) override {
    std::string why;
    if (!accepts(kernel_, taps, spec(), &why)) throw Error(name() + ": " + why);
    device_.make_current();
    const Kernel run = kernel_that_runs(kernel_, taps);
    const std::size_t padded = padded_taps(run, taps.mask_frames());
    std::vector<float> bank(taps.distinct_masks() * padded, 0.0f);
    for (std::size_t m = 0; m < taps.distinct_masks(); ++m)
      std::copy(taps.taps(m).begin(), taps.taps(m).end(), bank.begin() + m * padded);

    // Our previous region is free for the new taps (no kernel of ours runs between calls), so
    // a lone engine keeps offset 0. Until the new taps are in place the engine has none.
    installed_ = false;
    lease_ = BankLease();
    BankLease lease;
    if (run != Kernel::basic) lease = device_.lease_bank(bank.size());
    const int base = static_cast<int>(lease.offset());

    if (period_) {
      upload_taps(lease.offset(), bank.data(), bank.size(), period_state_->stream.get());
      set_period_taps(taps, run, padded, base);
      lease_ = std::move(lease);
      installed_ = true;
      return;
    }

    groups_.clear();
    bool all_distinct = true;
    for (int c = 0; c < taps.channels(); ++c) all_distinct = all_distinct && taps.mask_of(c) == std::size_t(c);
    if (taps.one_mask() || all_distinct) {
      groups_.push_back({0, taps.channels(), base, taps.one_mask() ? 0 : padded});
    } else {
      for (int c = 0; c < taps.channels(); ++c) {
        const int mask_base = base + static_cast<int>(taps.mask_of(c) * padded);
        if (!groups_.empty() && groups_.back().tap_base == mask_base)
          ++groups_.back().channels;
        else
          groups_.push_back({c, 1, mask_base, 0});
      }
    }
    bool at_offset = false;
    for (const Group& g : groups_) at_offset = at_offset || g.tap_base != 0 || (g.tap_stride != 0 && g.channels > 1);
    plan_ = plan_convolution(run, padded, at_offset, block_threads_, device_);

    if (run == Kernel::basic)
      HALO_CUDA_CHECK(cudaMemcpy(state_->global_taps.get(), bank.data(), bank.size() * sizeof(float),
                                 cudaMemcpyHostToDevice));
    else
      upload_taps(lease.offset(), bank.data(), bank.size(), state_->streams[0].get());
    lease_ = std::move(lease);
    installed_ = true;
  }

  Status do_process(const float* in, float* out, std::size_t frames) noexcept override {
    if (!installed_) return fail("%s: no taps installed (the last set_taps failed)", engine_name(kernel_).c_str());
    if (period_) return process_period(in, out, frames);
    DeviceState& d = *state_;
    HALO_CUDA_TRY(cudaSetDevice(device_.index()));
    for (auto& stream : d.streams) HALO_CUDA_TRY(cudaStreamWaitEvent(stream.get(), d.carry_done.get(), 0));

    const int channels = channels_;
    float* planar_in = d.planar[cur_].get();
    float* out_planar = d.out_planar.get();
    const std::size_t slices = std::clamp<std::size_t>(frames / min_slice_frames, 1, max_slices);
    const std::size_t slice_frames = round_up((frames + slices - 1) / slices, frame_granule);

    std::size_t count = 0;  // slices enqueued
    for (std::size_t start = 0; start < frames; start += slice_frames, ++count) {
      const std::size_t length = std::min(slice_frames, frames - start);
      const std::size_t samples = length * channels;
      cudaStream_t s = d.streams[count % 2].get();
      SliceEvents& e = d.slices[count];
      // Host: into pinned memory (overlaps the previous slice's transfers and kernels).
      const auto staging_start = Clock::now();
      std::memcpy(d.pinned_in.get() + start * channels, in + start * channels, samples * sizeof(float));
      seconds_.staging += seconds_since(staging_start);
      HALO_CUDA_TRY(cudaEventRecord(e.marks[0].get(), s));
      float* x = planar_in + halo_ + start;
      if (channels == 1) {
        HALO_CUDA_TRY(cudaMemcpyAsync(x, d.pinned_in.get() + start, samples * sizeof(float), cudaMemcpyHostToDevice, s));
      } else {
        HALO_CUDA_TRY(cudaMemcpyAsync(d.in_dev.get() + start * channels, d.pinned_in.get() + start * channels,
                                      samples * sizeof(float), cudaMemcpyHostToDevice, s));
        HALO_CUDA_TRY(launch_deinterleave(d.in_dev.get() + start * channels, length, channels, x, stride_, s));
      }
      HALO_CUDA_TRY(cudaEventRecord(e.in_ready.get(), s));
      // The kernel reads up to M-1 frames before the slice: the previous slice's samples.
      if (count > 0) HALO_CUDA_TRY(cudaStreamWaitEvent(s, d.slices[count - 1].in_ready.get(), 0));
      HALO_CUDA_TRY(cudaEventRecord(e.marks[1].get(), s));

      for (const Group& g : groups_) {
        PlanarLaunch launch;
        launch.x = x + g.first * stride_;
        launch.x_stride = stride_;
        launch.y = out_planar + start + g.first * out_stride_;
        launch.y_stride = out_stride_;
        launch.frames = length;
        launch.channels = g.channels;
        launch.tap_base = g.tap_base;
        launch.tap_stride = g.tap_stride;
        launch.global_taps = d.global_taps.get();
        HALO_CUDA_TRY(launch_convolution(plan_, launch, s));
      }

      const float* result = out_planar + start;
      if (channels > 1) {
        HALO_CUDA_TRY(launch_interleave(out_planar + start, out_stride_, length, channels,
                                        d.out_dev.get() + start * channels, s));
        result = d.out_dev.get() + start * channels;
      }
      HALO_CUDA_TRY(cudaEventRecord(e.marks[2].get(), s));
      HALO_CUDA_TRY(cudaMemcpyAsync(d.pinned_out.get() + start * channels, result, samples * sizeof(float),
                                    cudaMemcpyDeviceToHost, s));
      HALO_CUDA_TRY(cudaEventRecord(e.marks[3].get(), s));
    }

    // The carry: the newest carry_frames_ input frames of each channel into the other
    // buffer's halo, once every slice's samples are in place. The next process() waits for it
    // on the device.
    cudaStream_t s0 = d.streams[0].get();
    for (std::size_t j = 0; j < count; ++j) HALO_CUDA_TRY(cudaStreamWaitEvent(s0, d.slices[j].in_ready.get(), 0));
    float* next = d.planar[1 - cur_].get();
    HALO_CUDA_TRY(launch_carry(planar_in + halo_ + frames, next + halo_, stride_, carry_frames_, channels, s0));
    HALO_CUDA_TRY(cudaEventRecord(d.carry_done.get(), s0));
    cur_ = 1 - cur_;

    // Copy each slice out as soon as it is back.
    std::size_t j = 0;
    for (std::size_t start = 0; start < frames; start += slice_frames, ++j) {
      const std::size_t samples = std::min(slice_frames, frames - start) * channels;
      const Event(&marks)[4] = d.slices[j].marks;
      const auto wait_start = Clock::now();
      HALO_CUDA_TRY(cudaEventSynchronize(marks[3].get()));
      seconds_.waiting += seconds_since(wait_start);
      const auto staging_start = Clock::now();
      std::memcpy(out + start * channels, d.pinned_out.get() + start * channels, samples * sizeof(float));
      seconds_.staging += seconds_since(staging_start);
      float to_device = 0, kernels = 0, from_device = 0;  // milliseconds
      HALO_CUDA_TRY(cudaEventElapsedTime(&to_device, marks[0].get(), marks[1].get()));
      HALO_CUDA_TRY(cudaEventElapsedTime(&kernels, marks[1].get(), marks[2].get()));
      HALO_CUDA_TRY(cudaEventElapsedTime(&from_device, marks[2].get(), marks[3].get()));
      seconds_.to_device += to_device * 1e-3;
      seconds_.kernels += kernels * 1e-3;
      seconds_.from_device += from_device * 1e-3;
    }
    return Status::ok;
  }

  // One period: header and block into pinned memory, the graph, its end, the outputs out.
  Status process_period(const float* in, float* out, std::size_t frames) noexcept {
    PeriodState& d = *period_state_;
    HALO_CUDA_TRY(cudaSetDevice(device_.index()));
    const auto start = Clock::now();
    PeriodHeader& header = *reinterpret_cast<PeriodHeader*>(d.in_host.get());
    header.position = position_;
    header.frames = static_cast<int>(frames);
    std::memcpy(d.in_host.get() + header_floats, in, frames * channels_ * sizeof(float));
    const auto launch = Clock::now();
    HALO_CUDA_TRY(cudaGraphLaunch(d.graph.get(), d.stream.get()));
    HALO_CUDA_TRY(cudaStreamSynchronize(d.stream.get()));
    const auto done = Clock::now();
    std::memcpy(out, d.out_host.get(), frames * channels_ * sizeof(float));
    position_ += static_cast<long long>(frames);
    seconds_.waiting += std::chrono::duration<double>(done - launch).count();
    seconds_.staging += std::chrono::duration<double>(launch - start).count() + seconds_since(done);
    return Status::ok;
  }

  void do_reset() override {
    device_.make_current();
    if (period_) return clear_ring();
    for (auto& stream : state_->streams) stream.synchronize();
    clear_carry();
  }

  std::size_t do_preferred_block_frames() const override {
    return period_ ? spec().max_block_frames : max_slices * min_slice_frames;
  }

 private:
  static constexpr int max_slices = 4;
  static constexpr std::size_t min_slice_frames = 65536;

  // Zeros both buffers' halo cells (and everything else) and marks the carry done.
  void clear_carry() {
    cudaStream_t s0 = state_->streams[0].get();
    for (auto& buffer : state_->planar) HALO_CUDA_CHECK(cudaMemsetAsync(buffer.get(), 0, buffer.bytes(), s0));
    state_->carry_done.record(s0);
    state_->streams[0].synchronize();
    cur_ = 0;
  }

  // The period path's history: zeros (the stream before frame 0), position 0.
  void clear_ring() {
    cudaStream_t s = period_state_->stream.get();
    HALO_CUDA_CHECK(cudaMemsetAsync(period_state_->ring.get(), 0, period_state_->ring.bytes(), s));
    HALO_CUDA_CHECK(cudaStreamSynchronize(s));
    position_ = 0;
  }

  // Per slice: its samples are in planar[cur_] (in_ready); timing marks before the copy in,
  // before the kernels (after the wait for the previous slice), after the kernels, after the
  // copy out (the host waits for the last before copying the slice out).
  struct SliceEvents {
    Event in_ready;
    Event marks[4] = {Event(true), Event(true), Event(true), Event(true)};
  };
  // Everything prepare() allocates on the GPU and in pinned memory, created on device_ and
  // released together.
  struct DeviceState {
    Stream streams[2];
    DeviceBuffer<float> planar[2];
    DeviceBuffer<float> out_planar;
    DeviceBuffer<float> in_dev, out_dev;
    DeviceBuffer<float> global_taps;
    PinnedBuffer<float> pinned_in, pinned_out;
    SliceEvents slices[max_slices];
    Event carry_done;  // the halo for the next chunk is in place
  };
  // The period path's resources (prepare_period), released together.
  static constexpr std::size_t header_floats = sizeof(PeriodHeader) / sizeof(float);
  struct PeriodState {
    Stream stream;
    DeviceBuffer<float> ring;         // channels * ring_frames_: the input history
    DeviceBuffer<float> partials;     // channels * tiles * partial sums * period_tile_frames
    DeviceBuffer<unsigned> counters;  // channels * tiles: partial blocks finished (0 between periods)
    DeviceBuffer<int> tap_offsets;    // channel c's mask in the bank
    PinnedBuffer<float> in_host;      // PeriodHeader, then the block (interleaved)
    PinnedBuffer<float> out_host;     // the outputs (interleaved)
    DeviceBuffer<float> in_dev, out_dev;  // PeriodIo::copies: in_host's and out_host's twins
    GraphExec graph;                  // one period, captured by set_taps
  };
  static_assert(sizeof(PeriodHeader) % (4 * sizeof(float)) == 0, "the block after the header stays 16-byte aligned");

  // Channels [first, first + channels) in one launch; channel first + i's mask at
  // tap_base + i * tap_stride.
  struct Group {
    int first;
    int channels;
    int tap_base;
    std::size_t tap_stride;
  };

  const Kernel kernel_;        // the kernel asked for (names the engine)
  const int block_threads_;
  GpuDevice& device_;
  const PeriodTuning tuning_;
  bool period_ = false;           // prepare() chose the period path
  std::unique_ptr<PeriodState> period_state_;
  std::size_t ring_frames_ = 0;   // per channel, a power of two
  int tiles_ = 0;                 // period kernel tiles for max_block_frames
  long long position_ = 0;        // frames processed since prepare/reset (the period path's clock)
  int channels_ = 0;
  std::size_t carry_frames_ = 0;  // min(max_mask_frames, bank) - 1: frames carried per channel
  std::size_t halo_ = 0;          // halo frames in front of each channel's chunk
  std::size_t stride_ = 0;        // floats per channel in planar
  std::size_t out_stride_ = 0;    // floats per channel in out_planar
  int cur_ = 0;                   // which planar buffer holds the current carry
  std::unique_ptr<DeviceState> state_;

  // Set by set_taps:
  bool installed_ = false;        // taps uploaded and planned
  BankLease lease_;               // our region of the constant bank (none for cuda-basic)
  ConvolutionPlan plan_;          // the kernel that runs (kernel_that_runs), planned for M
  std::vector<Group> groups_;     // the launches per slice

  struct Seconds {
    double staging = 0, to_device = 0, kernels = 0, from_device = 0, waiting = 0;
  } seconds_;  // totals since prepare(), for time_breakdown()
};

const char* summary(Kernel kernel) {
  switch (kernel) {
    case Kernel::basic: return "textbook GPU kernel: taps and samples from global memory (for comparison)";
    case Kernel::constant: return "textbook GPU kernel: taps in constant memory";
    case Kernel::tiled: return "textbook GPU kernel: taps in constant memory, samples in a shared tile with its halo";
    case Kernel::cached: return "textbook GPU kernel: shared tile of the block's samples, halo from the caches";
    case Kernel::fast: return "the fastest direct GPU kernel: register-tiled and pipelined; masks up to 16384 taps";
  }
  return "";
}

}  // namespace

bool device_usable(int gpu, std::string* why) { return GpuDevice::get(gpu).usable(why); }

std::unique_ptr<Engine> make_engine(Kernel kernel, const EngineOptions& options) {
  return make_engine(kernel, options, PeriodTuning{});
}

bool runs_period_path(const Engine& engine) {
  const auto* direct = dynamic_cast<const CudaDirectEngine*>(&engine);
  return direct && direct->runs_period_path();
}

std::unique_ptr<Engine> make_engine(Kernel kernel, const EngineOptions& options, const PeriodTuning& tuning) {
  GpuDevice& device = GpuDevice::get(options.gpu);
  std::string why;
  if (!device.usable(&why)) throw Error(engine_name(kernel) + ": " + why);
  if (kernel != Kernel::fast && (options.block_threads < 1 || options.block_threads > 1024))
    throw Error(engine_name(kernel) + ": a block of " + std::to_string(options.block_threads) +
                " threads: give 1 to 1024");
  device.make_current();
  HALO_CUDA_CHECK(cudaFree(nullptr));  // start the context now, on the caller's thread
  return std::make_unique<CudaDirectEngine>(kernel, options.block_threads, device, tuning);
}

std::vector<EngineEntry> direct_engine_entries() {
  std::vector<EngineEntry> entries;
  for (Kernel kernel : {Kernel::basic, Kernel::constant, Kernel::tiled, Kernel::cached, Kernel::fast}) {
    EngineEntry entry;
    entry.name = engine_name(kernel);
    entry.device = EngineDevice::cuda;
    entry.summary = summary(kernel);
    entry.accepts = [kernel](const TapSet& taps, const ProcessSpec& spec, std::string* why_not) {
      return accepts(kernel, taps, spec, why_not);
    };
    entry.make = [kernel](const EngineOptions& options) { return make_engine(kernel, options); };
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace halo::cuda
