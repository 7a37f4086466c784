#pragma once
// RAII owners of CUDA resources: device buffers, pinned host buffers, streams, events.
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
// and overlap with kernels.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count > 0)
      HALO_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&data_), count * sizeof(T), cudaHostAllocDefault));
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
class Stream {
 public:
  Stream() { HALO_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
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

}  // namespace halo::cuda
