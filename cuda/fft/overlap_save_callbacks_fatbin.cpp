// The LTO-IR of overlap_save_callbacks.cu, as bin2c wrote it at build time.
#include "cuda/fft/overlap_save_callbacks.hpp"

#include "overlap_save_callbacks_fatbin.h"  // generated: overlap_save_callbacks_lto[]

namespace halo::cuda {

const void* overlap_save_callbacks_fatbin() noexcept { return overlap_save_callbacks_lto; }
std::size_t overlap_save_callbacks_fatbin_bytes() noexcept { return sizeof(overlap_save_callbacks_lto); }

}  // namespace halo::cuda
