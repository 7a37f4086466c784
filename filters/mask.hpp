#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace halo::filters {

// An FIR mask: the coefficients h[0..M-1] of y[n] = sum_k h[k] x[n-k] (true convolution,
// never read backwards), the rate it was designed for and where it came from.
struct Mask {
  std::vector<float> taps;    // M >= 1 finite coefficients
  double rate_hz = 0;         // design rate; 0 when unknown (a text or raw mask file)
  std::string provenance;     // e.g. "lowpass 1000 Hz, 255 taps, hamming" or "file ir.wav ch 2"
  // Where its delay lies. false: linear phase, or unknown (a mask is centred by default, its
  // (M-1)/2 frames of delay removed); true: it starts at its first tap (a minimum-phase design,
  // whose delay is a few frames), so it is aligned causally by default. Mask files that hold
  // text or halo's JSON and C header carry it ("# align causal"), so a design read back keeps it.
  bool causal = false;
  // Whether its file said where its delay lies, causal or centred ("# align same", JSON's
  // "align", a C header's NAME_causal, a sound mask's comment), where `causal` false may else
  // mean unknown. `ir fix` keeps a centred mask centred by it, and writes it so (a mask it had
  // kept centred, faded and no longer symmetric, read back as an impulse response: causal).
  bool alignment_stated = false;
};

// The most taps a mask holds (2^24, 6 minutes at 48 kHz): every reader refuses more, naming the
// file, and resampling refuses to make more.
constexpr std::size_t max_mask_taps = std::size_t{1} << 24;

// One mask for every channel, or one per channel (a multi-channel impulse response).
using MaskSet = std::vector<Mask>;

// Where a set came from, for messages: one mask's provenance, or for one per channel the
// first's less its channel's word ("file ir.wav", not "file ir.wav ch 1").
std::string mask_set_source(const MaskSet& masks);

// sum |h|: the largest |output| a full-scale input (within [-1, 1]) can give through the mask;
// for a set, that of its loudest mask.
// Symmetric or antisymmetric taps (types I to IV linear phase), within float rounding of the
// largest: a designed mask, not a measured response. False for one tap or none above 0.
bool linear_phase(const Mask& mask);

double worst_case_gain(const Mask& mask);
double worst_case_gain(const MaskSet& masks);

}  // namespace halo::filters
