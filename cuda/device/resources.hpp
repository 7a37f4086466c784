#pragma once
// RAII owners of CUDA resources: device buffers, pinned host buffers, streams, events, and
// captured graphs with their executable instances.
// Construction checks and throws halo::cuda::Error; destruction never throws (a failure
// there can only be reported, and the process is usually unwinding already).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "cuda/device/error.hpp"

namespace halo::cuda {

// `count` elements of T in device memory (cudaMalloc: 256-byte aligned).
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > 0) HALO_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  void release() noexcept {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// `count` elements of T in page-locked host memory (cudaHostAlloc), so copies run as DMA
// and overlap with kernels. `flags` cudaHostAllocMapped: kernels may read and write it
// directly (zero-copy, over the bus; with unified addressing get() is also the device's
// pointer).
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count, unsigned flags = cudaHostAllocDefault) : count_(count) {
    if (count > 0) HALO_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&data_), count * sizeof(T), flags));
  }
  ~PinnedBuffer() { release(); }
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  void release() noexcept {
    if (data_) cudaFreeHost(data_);
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// A non-blocking stream: it never synchronises implicitly with the legacy default stream.
// Priority::highest: the GPU dispatches its kernels' blocks ahead of those of streams of the
// default (lowest) priority that are ready at the same time.
class Stream {
 public:
  enum class Priority { normal, highest };
  explicit Stream(Priority priority = Priority::normal) {
    int least = 0, greatest = 0;
    if (priority == Priority::highest) HALO_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    HALO_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
  }
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    if (this != &other) {
      if (stream_) cudaStreamDestroy(stream_);
      stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  void synchronize() const { HALO_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

// An event; `timing` false (the default) makes record/wait cheaper (no timestamp).
class Event {
 public:
  explicit Event(bool timing = false) {
    HALO_CUDA_CHECK(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    if (this != &other) {
      if (event_) cudaEventDestroy(event_);
      event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const { HALO_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { HALO_CUDA_CHECK(cudaEventSynchronize(event_)); }
  // Makes `stream` wait (on the device) for the work recorded before this event.
  void make_wait(cudaStream_t stream) const { HALO_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0)); }

 private:
  cudaEvent_t event_ = nullptr;
};

// A CUDA graph (the work of one captured sequence of stream calls), owned.
class Graph {
 public:
  Graph() = default;
  explicit Graph(cudaGraph_t graph) : graph_(graph) {}
  ~Graph() {
    if (graph_) cudaGraphDestroy(graph_);
  }
  Graph(Graph&& other) noexcept : graph_(std::exchange(other.graph_, nullptr)) {}
  Graph& operator=(Graph&& other) noexcept {
    if (this != &other) {
      if (graph_) cudaGraphDestroy(graph_);
      graph_ = std::exchange(other.graph_, nullptr);
    }
    return *this;
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  cudaGraph_t get() const { return graph_; }

  // Records the calls `enqueue(stream)` makes on `stream` (thread-local capture mode: other
  // threads' CUDA calls are not disturbed) into a new graph. Throws halo::cuda::Error; a
  // failed capture is ended before the throw, so the stream stays usable.
  template <typename Enqueue>
  static Graph capture(cudaStream_t stream, Enqueue&& enqueue) {
    HALO_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const cudaError_t recorded = enqueue(stream);
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    Graph owned(graph);
    HALO_CUDA_CHECK(recorded);
    HALO_CUDA_CHECK(ended);
    return owned;
  }

 private:
  cudaGraph_t graph_ = nullptr;
};

// An instantiated graph, ready to launch; uploaded to the device at construction, so the
// first launch does not pay for it.
class GraphExec {
 public:
  GraphExec() = default;
  GraphExec(const Graph& graph, cudaStream_t upload_stream) {
    HALO_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph.get(), 0));
    HALO_CUDA_CHECK(cudaGraphUpload(exec_, upload_stream));
    HALO_CUDA_CHECK(cudaStreamSynchronize(upload_stream));
  }
  ~GraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  GraphExec(GraphExec&& other) noexcept : exec_(std::exchange(other.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& other) noexcept {
    if (this != &other) {
      if (exec_) cudaGraphExecDestroy(exec_);
      exec_ = std::exchange(other.exec_, nullptr);
    }
    return *this;
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  cudaGraphExec_t get() const { return exec_; }
  explicit operator bool() const { return exec_ != nullptr; }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace halo::cuda
