#pragma once
// cuda-fft with the overlap-save passes folded into cuFFT's own kernels: LTO callbacks
// (overlap_save_callbacks.cu, compiled to LTO-IR at build time and linked into cuFFT's
// kernels by nvJitLink when a plan is made).
//   R2C load:   each segment's L inputs straight from the piece's frames and the input ring
//               (what gather_kernel writes into `segments` otherwise);
//   R2C store:  each bin times the channel's mask spectrum (multiply_kernel's pass);
//   C2R store:  each segment's valid outputs straight into the piece's output or the output
//               ring, the first Mmax - 1 points dropped (crop_kernel's pass).
// So a piece crosses device memory in cuFFT's passes alone: three passes of the three
// kernels' reads and writes fewer (about a third of cuda-fft's traffic at long masks).
#include <cufft.h>

#include <cstddef>

#include "cuda/fft/overlap_save.hpp"

namespace halo::cuda {

// What the callbacks read, in device memory (cuFFT hands a plan one fixed pointer, so the
// piece and its buffers cannot be launch parameters): rewritten before each piece's
// transforms, on the same stream (launch_callback_args), so every piece reads its own.
struct CallbackArgs {
  Geometry g;
  PieceHeader piece;
  const float* in = nullptr;      // the piece's frames, interleaved (device)
  const float* ring = nullptr;    // the input ring
  float* out = nullptr;           // the piece's output frames, interleaved (device)
  float* out_ring = nullptr;      // the output ring
  const cufftComplex* masks = nullptr;  // distinct masks x bins, scaled by 1/L
  const int* mask_of_channel = nullptr;
};

// The callbacks' names: global C++ functions of cuFFT's callback signatures (cuFFT finds them
// by the name and the signature's mangling; extern "C" ones fail the plan with
// CUFFT_INTERNAL_ERROR on the H100).
constexpr const char* gather_callback_symbol = "halo_overlap_save_gather";
constexpr const char* multiply_callback_symbol = "halo_overlap_save_multiply";
constexpr const char* crop_callback_symbol = "halo_overlap_save_crop";

// The callbacks as LTO-IR (a fatbin generated at build time, overlap_save_callbacks_fatbin.cpp).
const void* overlap_save_callbacks_fatbin() noexcept;
std::size_t overlap_save_callbacks_fatbin_bytes() noexcept;

}  // namespace halo::cuda
