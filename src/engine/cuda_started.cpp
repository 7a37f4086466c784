#include "src/engine/cuda_started.hpp"

#include <atomic>

namespace halo {
namespace {
std::atomic<bool> started{false};  // set once, by whichever thread starts the context
}  // namespace

void note_cuda_started() noexcept { started.store(true, std::memory_order_relaxed); }
bool cuda_started() noexcept { return started.load(std::memory_order_relaxed); }

}  // namespace halo
