#pragma once
#include <cxxopts.hpp>
#include <string>

#include "filters/design.hpp"
#include "filters/mask.hpp"
#include "filters/spec.hpp"

namespace halo::cli {

// The mask options `filter` and `design` share: one source (a designed band, --mask or --ir)
// plus the design parameters.
void add_mask_options(cxxopts::Options& options);

struct MaskSource {
  enum class Kind { designed, mask_file, impulse_response } kind = Kind::designed;
  std::string path;      // mask_file, impulse_response
  // What to do with an impulse_response whose file rate is not the audio's: refuse it (the
  // default), resample it with libsamplerate (--ir-rate resample), or use its taps as they are
  // (--ir-rate keep, with filter's warning): never silently.
  enum class IrRate { refuse, resample, keep } ir_rate = IrRate::refuse;
  // The same choice for a mask_file that carries the rate it was designed at (the JSON and C
  // header exports of `halo design`), by --mask-rate.
  IrRate mask_rate = IrRate::refuse;
  // Every mask file that says its rate (a text mask's "# rate" line, a sound file) follows
  // mask_rate, not only the JSON and header exports: `design --mask F --rate R` converts to R,
  // where `filter` only warns about a text or sound mask at another rate (README).
  bool every_mask_rate = false;
  filters::Spec spec;    // designed; rate_hz is filled in by masks_for()
};

// Throws UsageError when no source or more than one is given, or a value does not parse.
MaskSource parse_mask_options(const cxxopts::ParseResult& parsed);

// Whether the mask's delay is removed by default (`--align same`): a designed linear-phase
// mask and any --mask file (taken for linear phase: a file does not say its phase) are
// centred; an impulse response (--ir) and a minimum-phase design start at their first tap,
// since removing (M-1)/2 frames from them would put the output before its input (a 255-tap
// minimum-phase low-pass delays by some 25 frames, not 127). A minimum-phase mask read back
// from a file needs `--align causal`, as the README says.
bool centred_by_default(const MaskSource& source);

// Designs (at rate_hz) or reads the masks. A design the library refuses is reported with the
// command-line flag of the field it names ("--taps 0: ...").
filters::MaskSet masks_for(MaskSource source, double rate_hz);

// A designed source (Kind::designed) at rate_hz: the mask and the spec as the design resolved
// it (method, length, window), for the report. Errors worded with flags, as masks_for's.
filters::Designed design_for(MaskSource source, double rate_hz);

// The mask set in a few words for a summary: one mask's provenance, or for per-channel masks
// from one file "file ir.wav: 2 masks, one per channel" (not the first one's "ch 1").
std::string describe_masks(const filters::MaskSet& masks);

}  // namespace halo::cli
