#pragma once
// One object per GPU: what it is, whether halo can use it, the occupancy of each kernel on it
// (asked once, then cached), and the allocator of its constant tap bank. Several engines on
// one or several GPUs share these objects; nothing here is touched by Engine::process, so
// process() takes no lock.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/device/constant_bank.hpp"

namespace halo::cuda {

class GpuDevice;

// A region [offset, offset + size) of one GPU's constant tap bank, held by one engine from
// set_taps on; returned to the device on destruction. Movable, not copyable.
class BankLease {
 public:
  BankLease() = default;
  ~BankLease() { release(); }
  BankLease(BankLease&& other) noexcept;
  BankLease& operator=(BankLease&& other) noexcept;
  BankLease(const BankLease&) = delete;
  BankLease& operator=(const BankLease&) = delete;

  std::size_t offset() const { return offset_; }  // in taps (floats) from the bank's start
  std::size_t size() const { return size_; }      // in taps
  bool held() const { return device_ != nullptr; }

 private:
  friend class GpuDevice;
  BankLease(GpuDevice* device, std::size_t offset, std::size_t size)
      : device_(device), offset_(offset), size_(size) {}
  void release() noexcept;

  GpuDevice* device_ = nullptr;
  std::size_t offset_ = 0;
  std::size_t size_ = 0;
};

class GpuDevice {
 public:
  // The device with CUDA index `index`, created on first use (thread-safe) and kept for the
  // life of the process. Creating it asks the driver (and starts a context on a usable
  // device, to check that halo's kernels load there); it never throws.
  static GpuDevice& get(int index);

  GpuDevice(const GpuDevice&) = delete;
  GpuDevice& operator=(const GpuDevice&) = delete;

  int index() const { return index_; }
  // Whether halo's kernels can run here; when not, `why` gets a few words ("no CUDA device",
  // "no NVIDIA driver", "the CUDA kernels do not load on this GPU: ...").
  bool usable(std::string* why = nullptr) const;
  const std::string& name() const { return name_; }  // "NVIDIA H100 80GB HBM3"; empty when unusable
  int sm_count() const { return sm_count_; }
  // "GPU 0 (NVIDIA H100 80GB HBM3)": how messages name it.
  std::string label() const;

  // Makes this the calling thread's current device. Throws halo::cuda::Error.
  void make_current() const;

  // Blocks of `kernel` (a __global__ function) that fit on the whole GPU at once with
  // `threads` threads and `dynamic_smem` bytes of dynamic shared memory. The first call per
  // (kernel, threads, bytes) asks CUDA (after preferring the whole shared-memory carveout and
  // opting in to the dynamic shared memory) and caches the answer; later calls only look it
  // up. Call it at prepare/set_taps time, not in process(): it takes the device's lock.
  // Throws halo::cuda::Error.
  int resident_blocks(const void* kernel, int threads, std::size_t dynamic_smem);
  // Lets `kernel` launch with `bytes` of dynamic shared memory (above 48 KiB a kernel must opt
  // in); asks CUDA only when `bytes` exceeds what this kernel was allowed before. Throws.
  void allow_dynamic_smem(const void* kernel, std::size_t bytes);

  // A region of `taps` floats of the constant tap bank (max_constant_taps in all), first fit
  // from offset 0. Throws halo::cuda::Error naming this GPU and the taps already leased when
  // the bank has no free run that long.
  BankLease lease_bank(std::size_t taps);
  std::size_t bank_taps_leased() const;

 private:
  friend class BankLease;
  explicit GpuDevice(int index);
  void return_lease(std::size_t offset) noexcept;
  std::size_t leased_taps() const;  // with mutex_ held

  int index_;
  std::string name_;
  int sm_count_ = 0;
  std::string unusable_;  // empty: usable

  struct Occupancy {
    const void* kernel;
    int threads;
    std::size_t dynamic_smem;
    int blocks;  // per GPU
  };
  struct SmemAllowance {
    const void* kernel;
    std::size_t bytes;
  };
  struct Region {
    std::size_t offset, size;
  };
  mutable std::mutex mutex_;              // guards the three tables below
  std::vector<Occupancy> occupancy_;      // cache, filled once per kernel shape
  std::vector<SmemAllowance> allowances_; // dynamic shared memory each kernel may use so far
  std::vector<Region> leased_;            // the bank's leased regions, sorted by offset
};

}  // namespace halo::cuda
