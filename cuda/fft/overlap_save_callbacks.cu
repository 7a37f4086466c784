// cuda-fft's LTO callbacks (overlap_save_callbacks.hpp says what each folds in). Compiled
// apart from halo_cuda, to LTO-IR only (cuda/CMakeLists.txt): cuFFT inlines them into its
// kernels when the plans are made. They do per element what gather_kernel, multiply_kernel
// and crop_kernel do per thread, through the same index helpers (overlap_save.hpp).
//
// Offsets: with the plans' contiguous layout, the R2C input and the C2R output element of
// slot b = c * batch_segments + s, point i sit at b L + i; the R2C output bin k of slot b at
// b (L/2 + 1) + k. The batch holds fewer than 2^31 elements (channels x L <= 2^26, batches of
// about 2^22 samples), so 32-bit arithmetic decodes them.
#include <cufftXt.h>

#include "cuda/fft/overlap_save_callbacks.hpp"

namespace {

using halo::cuda::CallbackArgs;

__device__ __forceinline__ const CallbackArgs& args_of(void* info) { return *static_cast<const CallbackArgs*>(info); }

}  // namespace

// Point i of segment first_segment + s of channel c; 0 in slots past the piece's segments
// (defined values, and nothing read that the piece does not own).
__device__ cufftReal halo_overlap_save_gather(void*, unsigned long long offset, void* info, void*) {
  const CallbackArgs& a = args_of(info);
  const unsigned fft_frames = static_cast<unsigned>(a.g.fft_frames);
  const unsigned slot = static_cast<unsigned>(offset) / fft_frames;
  const unsigned i = static_cast<unsigned>(offset) - slot * fft_frames;
  const unsigned batch = static_cast<unsigned>(a.g.batch_segments());
  const unsigned c = slot / batch, s = slot - c * batch;
  if (s >= static_cast<unsigned>(a.piece.segments)) return 0.0f;
  const halo::cuda::ChannelIo io = halo::cuda::channel_io(a.g, c, a.in, nullptr, a.ring, nullptr);
  return halo::cuda::piece_input(a.g, a.piece, io, halo::cuda::segment_input(a.g, a.piece.first_segment + s) + i);
}

// Bin k of slot b times bin k of its channel's mask (multiply_kernel's product, every slot).
__device__ void halo_overlap_save_multiply(void* spectra, unsigned long long offset, cufftComplex x,
                                                     void* info, void*) {
  const CallbackArgs& a = args_of(info);
  const unsigned bins = static_cast<unsigned>(a.g.bins());
  const unsigned slot = static_cast<unsigned>(offset) / bins;
  const unsigned k = static_cast<unsigned>(offset) - slot * bins;
  const unsigned c = slot / static_cast<unsigned>(a.g.batch_segments());
  const cufftComplex w = __ldg(a.masks + static_cast<unsigned>(a.mask_of_channel[c]) * bins + k);
  static_cast<cufftComplex*>(spectra)[offset] = make_cuFloatComplex(x.x * w.x - x.y * w.y, x.x * w.y + x.y * w.x);
}

// Point i of segment first_segment + s of channel c: output i - (Mmax - 1) of the segment when
// i >= Mmax - 1 (the first Mmax - 1 are spoilt by the circular wrap and dropped).
__device__ void halo_overlap_save_crop(void*, unsigned long long offset, cufftReal y, void* info, void*) {
  const CallbackArgs& a = args_of(info);
  const unsigned fft_frames = static_cast<unsigned>(a.g.fft_frames);
  const unsigned slot = static_cast<unsigned>(offset) / fft_frames;
  const unsigned i = static_cast<unsigned>(offset) - slot * fft_frames;
  if (i < static_cast<unsigned>(a.g.halo_frames)) return;
  const unsigned batch = static_cast<unsigned>(a.g.batch_segments());
  const unsigned c = slot / batch, s = slot - c * batch;
  if (s >= static_cast<unsigned>(a.piece.segments)) return;
  const halo::cuda::ChannelIo io = halo::cuda::channel_io(a.g, c, nullptr, a.out, nullptr, a.out_ring);
  halo::cuda::piece_output(a.g, a.piece, io, (a.piece.first_segment + s) * a.g.hop_frames + (i - a.g.halo_frames), y);
}
