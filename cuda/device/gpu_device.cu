#include "cuda/device/gpu_device.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "cuda/device/error.hpp"

namespace halo::cuda {
namespace {

// Compiled with the same architectures as every kernel of halo: if it loads, they do.
__global__ void probe_kernel() {}

std::string unusable_reason(cudaError_t status) {
  switch (status) {
    case cudaErrorNoDevice: return "no CUDA device";
    case cudaErrorInsufficientDriver: return "no NVIDIA driver (or one older than this build's CUDA)";
    default: return std::string("no usable CUDA device: ") + cudaGetErrorString(status);
  }
}

}  // namespace

GpuDevice::GpuDevice(int index) : index_(index) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear it
    unusable_ = unusable_reason(status);
    return;
  }
  if (count == 0) {
    unusable_ = "no CUDA device";
    return;
  }
  if (index < 0 || index >= count) {
    unusable_ = "no CUDA device " + std::to_string(index) + " (this machine has " + std::to_string(count) + ")";
    return;
  }
  cudaDeviceProp properties{};
  if (const cudaError_t e = cudaGetDeviceProperties(&properties, index); e != cudaSuccess) {
    cudaGetLastError();
    unusable_ = unusable_reason(e);
    return;
  }
  name_ = properties.name;
  sm_count_ = properties.multiProcessorCount;
  // Loading a kernel starts the context: leave the caller's current device as it was.
  int previous = 0;
  cudaGetDevice(&previous);
  cudaFuncAttributes attributes{};
  cudaError_t loaded = cudaSetDevice(index);
  if (loaded == cudaSuccess) loaded = cudaFuncGetAttributes(&attributes, probe_kernel);
  if (loaded != cudaSuccess) {
    cudaGetLastError();
    unusable_ = label() + ": the CUDA kernels do not load on this GPU: " + cudaGetErrorString(loaded);
  }
  cudaSetDevice(previous);
}

GpuDevice& GpuDevice::get(int index) {
  static std::mutex devices_mutex;
  // Never destroyed: engines (and their leases) may outlive static destruction order.
  static auto* devices = new std::map<int, std::unique_ptr<GpuDevice>>();
  std::lock_guard<std::mutex> lock(devices_mutex);
  auto& device = (*devices)[index];
  if (!device) device.reset(new GpuDevice(index));
  return *device;
}

bool GpuDevice::usable(std::string* why) const {
  if (unusable_.empty()) return true;
  if (why) *why = unusable_;
  return false;
}

std::string GpuDevice::label() const {
  return "GPU " + std::to_string(index_) + (name_.empty() ? "" : " (" + name_ + ")");
}

void GpuDevice::make_current() const { HALO_CUDA_CHECK(cudaSetDevice(index_)); }

void GpuDevice::allow_dynamic_smem(const void* kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;  // the default limit needs no opt-in
  std::lock_guard<std::mutex> lock(mutex_);
  auto known = std::find_if(allowances_.begin(), allowances_.end(),
                            [&](const SmemAllowance& a) { return a.kernel == kernel; });
  if (known != allowances_.end() && known->bytes >= bytes) return;
  make_current();
  HALO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  if (known != allowances_.end())
    known->bytes = bytes;
  else
    allowances_.push_back({kernel, bytes});
}

int GpuDevice::resident_blocks(const void* kernel, int threads, std::size_t dynamic_smem) {
  allow_dynamic_smem(kernel, dynamic_smem);
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Occupancy& o : occupancy_)
    if (o.kernel == kernel && o.threads == threads && o.dynamic_smem == dynamic_smem) return o.blocks;
  make_current();
  // The whole carveout for shared memory, so that it does not limit the blocks per SM below
  // the registers' limit.
  HALO_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cudaSharedmemCarveoutMaxShared));
  int per_sm = 0;
  HALO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem));
  const int blocks = std::max(1, per_sm) * std::max(1, sm_count_);
  occupancy_.push_back({kernel, threads, dynamic_smem, blocks});
  return blocks;
}

BankLease GpuDevice::lease_bank(std::size_t taps) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t start = 0;  // first fit: the lowest gap long enough
  auto next = leased_.begin();
  for (; next != leased_.end(); ++next) {
    if (next->offset - start >= taps) break;
    start = next->offset + next->size;
  }
  if (taps == 0 || start + taps > max_constant_taps) {
    throw Error(label() + ": constant memory holds " + std::to_string(max_constant_taps) + " taps, " +
                std::to_string(leased_taps()) + " of them leased to other engines; " + std::to_string(taps) +
                " more do not fit");
  }
  leased_.insert(next, Region{start, taps});
  return BankLease(this, start, taps);
}

std::size_t GpuDevice::bank_taps_leased() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return leased_taps();
}

std::size_t GpuDevice::leased_taps() const {
  std::size_t leased = 0;
  for (const Region& r : leased_) leased += r.size;
  return leased;
}

void GpuDevice::return_lease(std::size_t offset) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  leased_.erase(std::remove_if(leased_.begin(), leased_.end(), [&](const Region& r) { return r.offset == offset; }),
                leased_.end());
}

BankLease::BankLease(BankLease&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      offset_(std::exchange(other.offset_, 0)),
      size_(std::exchange(other.size_, 0)) {}

BankLease& BankLease::operator=(BankLease&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, nullptr);
    offset_ = std::exchange(other.offset_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void BankLease::release() noexcept {
  if (device_) device_->return_lease(offset_);
  device_ = nullptr;
  offset_ = size_ = 0;
}

}  // namespace halo::cuda
