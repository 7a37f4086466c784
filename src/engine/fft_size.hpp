#pragma once
#include <cstddef>

namespace halo {

// The FFT length for overlap-save on the CPU with masks of up to `max_mask_frames` taps
// ([1, ProcessSpec::max_mask_frames_limit]), by a cost model measured with FFTW
// (bench/cpu_fft_bench.cpp, `sizes`): a block of N frames costs about c(N) x N log2 N (forward
// FFT, spectral multiply, inverse FFT; c by N's memory level) and yields N - M + 1 output
// frames, so the model weighs a short FFT's cheaper transform against its smaller yield.
// Candidates are 2^a x {1, 3, 5, 9, 15} >= 64 (FFTW plans those well with FFTW_ESTIMATE;
// higher powers of 3 and 5 run up to 4x slower a point). Of those within 5 % of the cheapest
// per output frame, the shortest (latency and memory grow with N).
// A pure function of the mask length, so engines prepared alike always agree bit for bit.
std::size_t fft_frames_for(std::size_t max_mask_frames);

// The model's cost of one block of `fft_frames` frames, in nanoseconds on the machine it was
// measured on (for the benchmark, which prints it beside what it measures); `fft_frames` one
// of the candidates above.
double modelled_block_ns(std::size_t fft_frames);

}  // namespace halo
