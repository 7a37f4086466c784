// cuda-fft and cuda-fft-fused: overlap-save on the GPU, one engine class, two transforms.
#include "cuda/fft/fft_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/device/error.hpp"
#include "cuda/device/gpu_device.hpp"
#include "cuda/device/resources.hpp"
#include "cuda/fft/block_fft.hpp"
#include "cuda/fft/cufft_plan.hpp"
#include "cuda/fft/fused_transform.hpp"
#include "cuda/fft/overlap_save_kernels.hpp"

namespace halo::cuda {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

const char* method_name(FftMethod method) { return method == FftMethod::cufft ? "cuda-fft" : "cuda-fft-fused"; }

// How many waves ahead cuda-fft-fused's blocks prefetch their successors' input (Geometry::
// prefetch_steps): one where one or two blocks fill an SM (L = 8192 and 16384), none elsewhere.
// On the H100 (halo_bench fft, one run, prefetch 0 / 1 / 2 waves): 4095 taps (L = 16384) 0.462
// / 0.445 / 0.470 ms; 1023 taps (L = 4096, four blocks an SM, which hide their loads behind
// each other) 0.282 / 0.296 / 0.313; the cluster kernel 0.703 / 0.720 / 0.715 at 16383 taps
// and 1.000 / 1.017 / 1.025 at 65535.
int default_prefetch_waves(const Geometry& g) { return g.fft_frames >= 8192 && !fused_split(g.fft_frames) ? 1 : 0; }

// Overlap-save on one GPU (overlap_save.hpp has the geometry: segments at fixed stream
// positions, steps, the two rings, pieces).
//
// Contract (Engine's, made concrete): prepare() plans the geometry from the spec alone and
// allocates every device, pinned, event and cuFFT resource; set_taps() transforms the masks
// (once per mask and FFT size) into storage of its own, uploads which mask each channel takes
// and, for small blocks, captures the piece into CUDA graphs; the carry (both rings and the
// stream position) is kept. process() is noexcept and allocates nothing: per piece it copies
// the frames into pinned memory, enqueues copy in, kernels (and cuFFT), copy out, and copies
// the outputs out as each piece completes. A failed CUDA or cuFFT call returns
// Status::failed with the call and the reason. Output lags the causal convolution by
// latency_frames() = step_frames.
//
// Device memory, bounded whatever the file length (Mmax = max_mask_frames, L the FFT size,
// C channels, P = piece_frames <= max_block_frames):
//   rings:  C (R + Ry) floats, R, Ry < 2 (2 L + P): the input and output history;
//   cuFFT:  about 3 cufft_batch_samples floats (segments, their spectra, cuFFT's work area),
//           or C L each when one segment per channel is larger (C L <= 2^26: accepts());
//   split:  fused past one block, fused_batch_samples / 2 complex of scratch (64 MiB), or
//           C L when one step per channel is larger;
//   masks:  distinct masks x (L/2 + 1) complex (cuFFT) or x L complex (fused);
//   staging: 2 P C floats on the device, 2 max_block_frames C pinned.
// For Mmax = 2^20 taps (L = 2^23), stereo, blocks of 2^18: about 0.9 GiB.
class FftEngine final : public Engine {
 public:
  FftEngine(FftMethod method, GpuDevice& device, const FftTuning& tuning)
      : method_(method), device_(device), tuning_(tuning) {}

  ~FftEngine() override {
    if (state_) cudaSetDevice(device_.index());  // free on the device that owns it
  }

  std::string name() const override { return method_name(method_); }

  std::vector<std::pair<std::string, double>> time_breakdown() const override {
    return {{"host staging copies", seconds_.staging}, {"waiting for the device", seconds_.waiting}};
  }

  const Geometry& geometry() const { return g_; }
  bool runs_graphs() const { return graphs_; }

  // process() without the host staging (process_on_device).
  Status run_on_device(const float* in, float* out, std::size_t frames, cudaStream_t stream) noexcept {
    if (!ready() || !installed_) return fail("%s: not ready (prepare and set_taps first)", name().c_str());
    if (frames == 0) return Status::ok;
    if (frames > spec().max_block_frames)
      return fail("a block of %zu frames exceeds the prepared %zu", frames, spec().max_block_frames);
    DeviceState& d = *state_;
    HALO_CUDA_TRY(cudaSetDevice(device_.index()));
    // Queued on the caller's stream itself, after the last pass whatever stream that took (the
    // engine's own stream is idle between calls: every method that uses it waits for its work
    // before returning). A hop to the own stream and back for every call, two waits between
    // streams, kept the H100 idle between calls of 2^24 frames.
    if (device_pass_pending_) HALO_CUDA_TRY(cudaStreamWaitEvent(stream, d.device_pass_done.get(), 0));
    if (point_plans_at(stream) != Status::ok) return Status::failed;
    const int pieces = plan_pieces(frames);
    long long done = 0;
    for (int k = 0; k < pieces; ++k) {
      const PieceHeader& piece = d.pinned_headers.get()[k];
      const long long offset = done * g_.channels;
      if (enqueue(stream, PieceSource{piece, nullptr}, in + offset, out + offset, piece.frames, piece.segments,
                  piece.segments > 0) != Status::ok)
        return Status::failed;
      done += piece.frames;
    }
    HALO_CUDA_TRY(cudaEventRecord(d.device_pass_done.get(), stream));
    device_pass_pending_ = true;
    return Status::ok;
  }

 protected:
  void do_prepare(const ProcessSpec& spec) override {
    device_.make_current();
    state_.reset();  // a second prepare: release the previous buffers first
    installed_ = false;
    seconds_ = Seconds{};
    g_ = plan_geometry(method_, spec, tuning_);
    if (method_ == FftMethod::fused) {
      const int clusters = allow_fused_kernel(device_, g_, !tuning_.split_in_three);
      split_clusters_ = clusters;
      if (clusters > 0 && tuning_.batch_samples == 0) {  // pieces of whole waves of clusters
        FftTuning whole_waves = tuning_;
        whole_waves.batch_samples = whole_wave_batch_samples(g_, clusters);
        g_ = plan_geometry(method_, spec, whole_waves);
      } else if (clusters == 0 && tuning_.batch_samples == 0 && !fused_split(g_.fft_frames)) {
        // The one-block kernel's pieces of whole waves of blocks, the nearest count: 2^24
        // samples had been 512 steps at L = 16384, 3.88 waves of the H100's 132 blocks, so
        // every piece ended in a wave an eighth full.
        FftTuning whole_waves = tuning_;
        const long long blocks = fused_steps_at_once(device_, g_, 0) * g_.channels;
        whole_waves.batch_samples = whole_wave_batch_samples(g_, static_cast<int>(blocks), WaveRounding::nearest);
        g_ = plan_geometry(method_, spec, whole_waves);
      }
      // Steps beside the cluster kernel, on the SMs its clusters leave idle: added to the
      // piece, so the cluster kernel keeps its whole waves. Not on the graph path, whose pieces
      // complete a step at most.
      cluster_steps_ = 0;
      const long long helper_steps =
          clusters == 0 || spec.max_block_frames <= graph_max_block_frames ? 0
          : tuning_.helper_steps >= 0                                      ? tuning_.helper_steps
          : tuning_.batch_samples == 0                                     ? split_helper_steps(device_, g_, clusters)
                                                                           : 0;
      if (helper_steps > 0) {
        cluster_steps_ = g_.batch_steps;
        FftTuning with_helper = tuning_;
        with_helper.batch_samples =
            static_cast<std::size_t>((g_.batch_steps + helper_steps) * g_.segments_per_step * g_.fft_frames * g_.channels);
        g_ = plan_geometry(method_, spec, with_helper);
      }
      const int waves = tuning_.prefetch_waves >= 0 ? tuning_.prefetch_waves : default_prefetch_waves(g_);
      g_.prefetch_steps = waves * fused_steps_at_once(device_, g_, clusters);
    }

    device_pass_pending_ = false;  // freeing the old buffers waited for every pass
    auto d = std::make_unique<DeviceState>();
    const long long channels = g_.channels;
    d->ring = DeviceBuffer<float>(channels * g_.ring_frames);
    d->out_ring = DeviceBuffer<float>(channels * g_.out_ring_frames);
    d->headers = DeviceBuffer<PieceHeader>(1);
    d->pinned_headers = PinnedBuffer<PieceHeader>(g_.max_pieces);
    std::memset(static_cast<void*>(d->pinned_headers.get()), 0, g_.max_pieces * sizeof(PieceHeader));
    d->in_dev = DeviceBuffer<float>(channels * g_.piece_frames);
    d->out_dev = DeviceBuffer<float>(channels * g_.piece_frames);
    const std::size_t samples = spec.max_block_frames * spec.channels;
    d->pinned_in = PinnedBuffer<float>(samples);
    d->pinned_out = PinnedBuffer<float>(samples);
    std::memset(d->pinned_in.get(), 0, samples * sizeof(float));  // a graph copies whole pieces
    d->piece_done.resize(g_.max_pieces);
    d->mask_of_channel = DeviceBuffer<int>(channels);
    cudaStream_t s = d->stream.get();
    if (method_ == FftMethod::cufft) {
      const long long batch = channels * g_.batch_segments();
      d->segments = DeviceBuffer<float>(batch * g_.fft_frames);
      d->spectra = DeviceBuffer<cufftComplex>(batch * g_.bins());
      d->pairs_plan = FftPlan(g_.fft_frames / 2, batch, CUFFT_C2C);
      d->mask_plan = FftPlan(g_.fft_frames, channels, CUFFT_R2C);
      HALO_CUFFT_CHECK(cufftSetStream(d->pairs_plan.get(), s));
      HALO_CUFFT_CHECK(cufftSetStream(d->mask_plan.get(), s));
      plans_stream_ = s;
      // Segment slots a piece does not fill still go through the transforms: defined values.
      HALO_CUDA_CHECK(cudaMemsetAsync(d->segments.get(), 0, d->segments.bytes(), s));
      HALO_CUDA_CHECK(cudaMemsetAsync(d->spectra.get(), 0, d->spectra.bytes(), s));
    } else {
      tables_ = make_fused_tables(static_cast<std::size_t>(g_.fft_frames));
      d->twiddles = DeviceBuffer<Complex>(tables_.twiddles.size());
      HALO_CUDA_CHECK(cudaMemcpyAsync(d->twiddles.get(), tables_.twiddles.data(), d->twiddles.bytes(),
                                      cudaMemcpyHostToDevice, s));
      if (fused_split(g_.fft_frames)) {
        d->column_twiddles = DeviceBuffer<Complex>(tables_.column_twiddles.size());
        HALO_CUDA_CHECK(cudaMemcpyAsync(d->column_twiddles.get(), tables_.column_twiddles.data(),
                                        d->column_twiddles.bytes(), cudaMemcpyHostToDevice, s));
        if (split_clusters_ == 0 || cluster_steps_ > 0)  // every step's scratch, or the helper's steps'
          d->split_rows = DeviceBuffer<Complex>((g_.batch_steps - cluster_steps_) * channels * g_.fft_frames);
      }
    }
    HALO_CUDA_CHECK(cudaMemsetAsync(d->in_dev.get(), 0, d->in_dev.bytes(), s));
    HALO_CUDA_CHECK(cudaMemsetAsync(d->out_dev.get(), 0, d->out_dev.bytes(), s));
    HALO_CUDA_CHECK(cudaMemsetAsync(d->headers.get(), 0, d->headers.bytes(), s));
    state_ = std::move(d);
    clear_carry();
  }

  void do_set_taps(const TapSet& taps) override {
    device_.make_current();
    DeviceState& d = *state_;
    cudaStream_t s = d.stream.get();
    if (back_to_own_stream() != Status::ok) throw Error(failure());
    installed_ = false;
    d.graph_with_transform = GraphExec();  // they point at the masks, which may move
    d.graph_without_transform = GraphExec();

    std::vector<int> mask_of_channel(g_.channels);
    for (int c = 0; c < g_.channels; ++c) mask_of_channel[c] = static_cast<int>(taps.mask_of(c));
    HALO_CUDA_CHECK(cudaMemcpyAsync(d.mask_of_channel.get(), mask_of_channel.data(), mask_of_channel.size() * sizeof(int),
                                    cudaMemcpyHostToDevice, s));
    const long long masks = static_cast<long long>(taps.distinct_masks());
    const float scale = 1.0f / static_cast<float>(g_.fft_frames);  // the inverse is unnormalised; exact (power of two)
    if (method_ == FftMethod::cufft) {
      // Each distinct mask, scaled and zero-padded to L, in the first segment slots (distinct
      // masks <= channels <= slots), through the masks' R2C (the first `channels` slots).
      if (d.mask_spectra.size() != static_cast<std::size_t>(masks * g_.bins()))
        d.mask_spectra = DeviceBuffer<cufftComplex>(masks * g_.bins());
      HALO_CUDA_CHECK(cudaMemsetAsync(d.segments.get(), 0, masks * g_.fft_frames * sizeof(float), s));
      std::vector<float> scaled;
      for (long long m = 0; m < masks; ++m) {
        const auto& h = taps.taps(static_cast<std::size_t>(m));
        scaled.resize(h.size());
        for (std::size_t k = 0; k < h.size(); ++k) scaled[k] = h[k] * scale;
        HALO_CUDA_CHECK(cudaMemcpyAsync(d.segments.get() + m * g_.fft_frames, scaled.data(), scaled.size() * sizeof(float),
                                        cudaMemcpyHostToDevice, s));
        HALO_CUDA_CHECK(cudaStreamSynchronize(s));  // `scaled` is reused for the next mask
      }
      HALO_CUFFT_CHECK(cufftExecR2C(d.mask_plan.get(), d.segments.get(), d.spectra.get()));
      HALO_CUDA_CHECK(cudaMemcpyAsync(d.mask_spectra.get(), d.spectra.get(), d.mask_spectra.bytes(),
                                      cudaMemcpyDeviceToDevice, s));
    } else {
      if (d.fused_masks.size() != static_cast<std::size_t>(masks * g_.fft_frames))
        d.fused_masks = DeviceBuffer<Complex>(masks * g_.fft_frames);
      for (long long m = 0; m < masks; ++m) {
        const auto spectrum = fused_mask_spectrum(taps.taps(static_cast<std::size_t>(m)), tables_);
        HALO_CUDA_CHECK(cudaMemcpyAsync(d.fused_masks.get() + m * g_.fft_frames, spectrum.data(),
                                        spectrum.size() * sizeof(Complex), cudaMemcpyHostToDevice, s));
        HALO_CUDA_CHECK(cudaStreamSynchronize(s));  // `spectrum` dies at the end of this iteration
      }
    }
    HALO_CUDA_CHECK(cudaStreamSynchronize(s));
    graphs_ = false;
    if (g_.graph) {
      // Where cuFFT cannot be captured (it can since CUDA 11), the pieces run as direct
      // launches, which give the same bits.
      try {
        capture_graphs();
        graphs_ = true;
      } catch (const Error&) {
        d.graph_with_transform = GraphExec();
        d.graph_without_transform = GraphExec();
      }
    }
    installed_ = true;
  }

  Status do_process(const float* in, float* out, std::size_t frames) noexcept override {
    if (!installed_) return fail("%s: no taps installed (the last set_taps failed)", name().c_str());
    DeviceState& d = *state_;
    HALO_CUDA_TRY(cudaSetDevice(device_.index()));
    const int channels = g_.channels;
    cudaStream_t s = d.stream.get();
    if (back_to_own_stream() != Status::ok) return Status::failed;
    const int pieces = plan_pieces(frames);

    if (graphs_) {  // one piece: one graph launch and one wait
      const PieceHeader& piece = d.pinned_headers.get()[0];
      auto staging = Clock::now();
      std::memcpy(d.pinned_in.get(), in, frames * channels * sizeof(float));
      seconds_.staging += seconds_since(staging);
      const auto waiting = Clock::now();
      const GraphExec& graph = piece.segments > 0 ? d.graph_with_transform : d.graph_without_transform;
      HALO_CUDA_TRY(cudaGraphLaunch(graph.get(), s));
      HALO_CUDA_TRY(cudaStreamSynchronize(s));
      seconds_.waiting += seconds_since(waiting);
      staging = Clock::now();
      std::memcpy(out, d.pinned_out.get(), frames * channels * sizeof(float));
      seconds_.staging += seconds_since(staging);
      return Status::ok;
    }

    long long done = 0;
    for (int k = 0; k < pieces; ++k) {
      const PieceHeader& piece = d.pinned_headers.get()[k];
      const std::size_t offset = static_cast<std::size_t>(done) * channels;
      const std::size_t samples = static_cast<std::size_t>(piece.frames) * channels;
      // Host: into pinned memory (overlaps the previous piece's work on the device).
      const auto staging = Clock::now();
      std::memcpy(d.pinned_in.get() + offset, in + offset, samples * sizeof(float));
      seconds_.staging += seconds_since(staging);
      HALO_CUDA_TRY(cudaMemcpyAsync(d.in_dev.get(), d.pinned_in.get() + offset, samples * sizeof(float),
                                    cudaMemcpyHostToDevice, s));
      if (enqueue(s, PieceSource{piece, nullptr}, d.in_dev.get(), d.out_dev.get(), piece.frames, piece.segments,
                  piece.segments > 0) != Status::ok)
        return Status::failed;
      HALO_CUDA_TRY(cudaMemcpyAsync(d.pinned_out.get() + offset, d.out_dev.get(), samples * sizeof(float),
                                    cudaMemcpyDeviceToHost, s));
      HALO_CUDA_TRY(cudaEventRecord(d.piece_done[k].get(), s));
      done += piece.frames;
    }
    // Copy each piece out as soon as it is back.
    done = 0;
    for (int k = 0; k < pieces; ++k) {
      const PieceHeader& piece = d.pinned_headers.get()[k];
      const std::size_t offset = static_cast<std::size_t>(done) * channels;
      const auto waiting = Clock::now();
      HALO_CUDA_TRY(cudaEventSynchronize(d.piece_done[k].get()));
      seconds_.waiting += seconds_since(waiting);
      const auto staging = Clock::now();
      std::memcpy(out + offset, d.pinned_out.get() + offset, static_cast<std::size_t>(piece.frames) * channels * sizeof(float));
      seconds_.staging += seconds_since(staging);
      done += piece.frames;
    }
    return Status::ok;
  }

  void do_reset() override {
    device_.make_current();
    if (back_to_own_stream() != Status::ok) throw Error(failure());
    state_->stream.synchronize();
    clear_carry();
  }

  std::size_t do_latency_frames() const override { return static_cast<std::size_t>(g_.step_frames); }
  std::size_t do_preferred_block_frames() const override { return static_cast<std::size_t>(g_.piece_frames); }

 private:
  struct DeviceState;  // below: every GPU and pinned resource

  // Where run_on_device left work on a caller's stream: the own stream waits for it, and the
  // cuFFT plans run on the own stream again. What every member that uses the own stream does
  // first.
  Status back_to_own_stream() noexcept {
    DeviceState& d = *state_;
    if (device_pass_pending_) {
      HALO_CUDA_TRY(cudaStreamWaitEvent(d.stream.get(), d.device_pass_done.get(), 0));
      device_pass_pending_ = false;
    }
    return point_plans_at(d.stream.get());
  }

  // Queues the cuFFT plans' work on `stream` (a host-side setting of each plan).
  Status point_plans_at(cudaStream_t stream) noexcept {
    if (method_ != FftMethod::cufft || plans_stream_ == stream) return Status::ok;
    HALO_CUFFT_TRY(cufftSetStream(state_->pairs_plan.get(), stream));
    plans_stream_ = stream;
    return Status::ok;
  }

  // Cuts `frames` from the stream position into pieces, writes their headers into pinned
  // memory (headers[k] for piece k) and advances the position. Returns the piece count.
  int plan_pieces(std::size_t frames) noexcept {
    PieceHeader* headers = state_->pinned_headers.get();
    int pieces = 0;
    for (long long done = 0; done < static_cast<long long>(frames); ++pieces) {
      const int n = static_cast<int>(std::min<long long>(g_.piece_frames, static_cast<long long>(frames) - done));
      headers[pieces] = plan_piece(g_, position_, n);
      position_ += n;
      done += n;
    }
    return pieces;
  }

  // One piece on `stream`: the transform of the steps it completes (when `transform`), reading
  // its frames `in` (device, interleaved) and writing its outputs into `out` (device,
  // interleaved), then what crosses pieces through the rings. grid_frames / grid_segments size
  // the grids (the kernels read the piece's own counts from `piece`).
  Status enqueue(cudaStream_t stream, const PieceSource& piece, const float* in, float* out, long long grid_frames,
                 long long grid_segments, bool transform) noexcept {
    DeviceState& d = *state_;
    if (transform && method_ == FftMethod::cufft) {
      // The segments as complex pairs through one C2C plan each way, and between them one
      // pass for the real spectrum's product (launch_spectral_product).
      auto* pairs = reinterpret_cast<cufftComplex*>(d.segments.get());
      HALO_CUDA_TRY(launch_gather(piece, g_, in, d.ring.get(), d.segments.get(), grid_segments, stream));
      HALO_CUFFT_TRY(cufftExecC2C(d.pairs_plan.get(), pairs, d.spectra.get(), CUFFT_FORWARD));
      HALO_CUDA_TRY(launch_spectral_product(piece, g_, d.spectra.get(), d.mask_spectra.get(), d.mask_of_channel.get(),
                                            grid_segments, stream));
      HALO_CUFFT_TRY(cufftExecC2C(d.pairs_plan.get(), d.spectra.get(), pairs, CUFFT_INVERSE));
      HALO_CUDA_TRY(launch_crop(piece, g_, d.segments.get(), out, d.out_ring.get(), grid_segments, stream));
    } else if (transform && fused_split(g_.fft_frames)) {  // one cluster kernel or three, and the ring traffic
      // The ring traffic and any steps past the cluster kernel's beside it, on streams of
      // their own; not inside a captured graph (one piece of a step or less).
      SplitHelper beside;
      if (!g_.graph)
        beside = {cluster_steps_,      d.cluster_stream.get(), d.helper_stream.get(),
                  d.split_fork.get(), d.cluster_done.get(),   d.beside_done.get()};
      HALO_CUDA_TRY(launch_split(piece, g_, in, out, d.ring.get(), d.out_ring.get(), d.split_rows.get(),
                                 d.fused_masks.get(), d.mask_of_channel.get(), d.twiddles.get(),
                                 d.column_twiddles.get(), grid_frames, grid_segments / g_.segments_per_step,
                                 split_clusters_, beside, stream));
      return Status::ok;
    } else if (transform) {  // the fused kernel moves the ring traffic too
      HALO_CUDA_TRY(launch_fused(piece, g_, in, out, d.ring.get(), d.out_ring.get(), d.fused_masks.get(),
                                 d.mask_of_channel.get(), d.twiddles.get(), grid_frames,
                                 grid_segments / g_.segments_per_step, stream));
      return Status::ok;
    }
    // The tail's ring slots are none the transform reads (plan_geometry sizes the ring).
    HALO_CUDA_TRY(launch_to_ring(piece, g_, in, d.ring.get(), grid_frames, stream));
    HALO_CUDA_TRY(launch_from_ring(piece, g_, d.out_ring.get(), out, grid_frames, stream));
    return Status::ok;
  }

  // The small-block path: a piece (one per call) as one graph, with and without the
  // transform (most small blocks complete no step): header and frames in, kernels, frames
  // out, all sized for the largest piece.
  void capture_graphs() {
    DeviceState& d = *state_;
    cudaStream_t s = d.stream.get();
    const std::size_t samples = static_cast<std::size_t>(g_.piece_frames) * g_.channels;
    for (const bool transform : {true, false}) {
      const Graph graph = Graph::capture(s, [&](cudaStream_t stream) -> cudaError_t {
        cudaError_t e = cudaMemcpyAsync(d.headers.get(), d.pinned_headers.get(), sizeof(PieceHeader),
                                        cudaMemcpyHostToDevice, stream);
        if (e == cudaSuccess)
          e = cudaMemcpyAsync(d.in_dev.get(), d.pinned_in.get(), samples * sizeof(float), cudaMemcpyHostToDevice, stream);
        if (e != cudaSuccess) return e;
        if (enqueue(stream, PieceSource{PieceHeader{}, d.headers.get()}, d.in_dev.get(), d.out_dev.get(),
                    g_.piece_frames, g_.batch_segments(), transform) != Status::ok)
          return cudaErrorUnknown;  // failure() says which call
        return cudaMemcpyAsync(d.pinned_out.get(), d.out_dev.get(), samples * sizeof(float), cudaMemcpyDeviceToHost,
                               stream);
      });
      (transform ? d.graph_with_transform : d.graph_without_transform) = GraphExec(graph, s);
    }
  }

  // Zeros both rings (the stream before frame 0) and the stream position.
  void clear_carry() {
    cudaStream_t s = state_->stream.get();
    HALO_CUDA_CHECK(cudaMemsetAsync(state_->ring.get(), 0, state_->ring.bytes(), s));
    HALO_CUDA_CHECK(cudaMemsetAsync(state_->out_ring.get(), 0, state_->out_ring.bytes(), s));
    HALO_CUDA_CHECK(cudaStreamSynchronize(s));
    position_ = 0;
  }

  // Everything prepare() and set_taps() allocate on the GPU and in pinned memory, released
  // together (on device_).
  struct DeviceState {
    Stream stream;
    DeviceBuffer<float> ring;            // C x R: input history, slot p mod R holds x[p]
    DeviceBuffer<float> out_ring;        // C x Ry: outputs computed, slot n mod Ry holds y[n]
    DeviceBuffer<PieceHeader> headers;   // 1: the graph's piece, copied in by the graph
    PinnedBuffer<PieceHeader> pinned_headers;  // max_pieces: the pieces of the current call
    DeviceBuffer<float> in_dev, out_dev;  // one piece, interleaved, each way
    PinnedBuffer<float> pinned_in, pinned_out;  // one whole block each way
    std::vector<Event> piece_done;       // piece k's outputs are in pinned_out
    Event device_pass_done;              // run_on_device: recorded on the caller's stream after its pass
    DeviceBuffer<int> mask_of_channel;   // C: which distinct mask channel c takes
    // cuda-fft:
    DeviceBuffer<float> segments;        // C x batch_segments x L: the transforms' input and output
    DeviceBuffer<cufftComplex> spectra;  // C x batch_segments x (L/2 + 1): the spectra (L/2 each with C2C)
    DeviceBuffer<cufftComplex> mask_spectra;  // distinct masks x (L/2 + 1), scaled by 1/L (set_taps)
    FftPlan pairs_plan;                  // a C2C over every slot's L/2 pairs, both ways
    FftPlan mask_plan;                   // an R2C over `channels` slots, for the masks' spectra
    // cuda-fft-fused:
    DeviceBuffer<Complex> twiddles;      // about L/4: every pass's table (make_twiddles; of the rows when split)
    DeviceBuffer<Complex> column_twiddles;  // split: pass 0 over the columns (4 L/16)
    DeviceBuffer<Complex> split_rows;    // split: the three kernels' steps x C x L, each step's transform between them
    // Split with clusters (launch_split's SplitHelper):
    Stream cluster_stream{Stream::Priority::highest};  // the cluster kernel
    Stream helper_stream;                // beside it: the ring traffic and the steps past cluster_steps_
    Event split_fork, cluster_done, beside_done;
    DeviceBuffer<Complex> fused_masks;   // distinct masks x L, in the kernel's order, scaled by 1/L (set_taps)
    // The small-block path (Geometry::graph), captured by set_taps:
    GraphExec graph_with_transform, graph_without_transform;
  };

  const FftMethod method_;
  GpuDevice& device_;
  const FftTuning tuning_;
  int split_clusters_ = 0;  // a split L's steps as one cluster kernel in this many clusters (allow_fused_kernel), else three
  long long cluster_steps_ = 0;  // with clusters: the cluster kernel's steps a piece, the three kernels' past them; 0: all
  Geometry g_;                       // fixed by prepare
  FusedTables tables_;               // fused: the host copy of the tables, for the masks' spectra
  std::unique_ptr<DeviceState> state_;
  long long position_ = 0;           // stream frames received since prepare/reset: places every piece
  bool installed_ = false;           // set_taps completed (masks transformed, graphs captured)
  bool graphs_ = false;              // each process() is one graph launch (the small-block path)
  bool device_pass_pending_ = false;  // a run_on_device pass may still run (device_pass_done)
  cudaStream_t plans_stream_ = nullptr;  // cuda-fft: where the cuFFT plans queue their work

  struct Seconds {
    double staging = 0, waiting = 0;
  } seconds_;  // totals since prepare(), for time_breakdown()
};

const char* summary(FftMethod method) {
  return method == FftMethod::cufft
             ? "overlap-save with cuFFT: masks of any length up to 4 Mi taps; wins over the direct kernels past a few hundred taps"
             : "overlap-save with the FFTs in shared memory: a block a step up to 8192 taps, a cluster of 16 blocks a step "
               "(three kernels where the GPU has no clusters) up to 131072";
}

FftEngine* as_fft_engine(Engine& engine) { return dynamic_cast<FftEngine*>(&engine); }

}  // namespace

std::unique_ptr<Engine> make_fft_engine(FftMethod method, const EngineOptions& options, const FftTuning& tuning) {
  GpuDevice& device = GpuDevice::get(options.gpu);
  std::string why;
  if (!device.usable(&why)) throw Error(std::string(method_name(method)) + ": " + why);
  device.make_current();
  HALO_CUDA_CHECK(cudaFree(nullptr));  // start the context now, on the caller's thread
  return std::make_unique<FftEngine>(method, device, tuning);
}

Status process_on_device(Engine& engine, const float* in, float* out, std::size_t frames, cudaStream_t stream) noexcept {
  FftEngine* fft = as_fft_engine(engine);
  if (!fft) return Status::failed;
  return fft->run_on_device(in, out, frames, stream);
}

const Geometry& geometry_of(const Engine& engine) {
  const auto* fft = dynamic_cast<const FftEngine*>(&engine);
  if (!fft || fft->spec().channels == 0) throw Error(engine.name() + " is no prepared FFT engine");
  return fft->geometry();
}

bool runs_graphs(const Engine& engine) {
  const auto* fft = dynamic_cast<const FftEngine*>(&engine);
  return fft && fft->runs_graphs();
}

std::vector<EngineEntry> fft_engine_entries() {
  std::vector<EngineEntry> entries;
  for (FftMethod method : {FftMethod::cufft, FftMethod::fused}) {
    EngineEntry entry;
    entry.name = method_name(method);
    entry.device = EngineDevice::cuda;
    entry.summary = summary(method);
    entry.accepts = [method](const TapSet& taps, const ProcessSpec& spec, std::string* why_not) {
      return fft_accepts(method, taps, spec, why_not);
    };
    entry.make = [method](const EngineOptions& options) { return make_fft_engine(method, options); };
    // Without a device: the hand-over engine (auto) lines its CPU engine up on this.
    entry.latency_frames = [method](const ProcessSpec& spec) {
      return static_cast<std::size_t>(plan_geometry(method, spec).step_frames);
    };
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace halo::cuda
