#pragma once
#include <cxxopts.hpp>
#include <string>

#include "filters/mask.hpp"
#include "filters/spec.hpp"

namespace halo::cli {

// The mask options `filter` and `design` share: one source (a designed band, --mask or --ir)
// plus the design parameters.
void add_mask_options(cxxopts::Options& options);

struct MaskSource {
  enum class Kind { designed, mask_file, impulse_response } kind = Kind::designed;
  std::string path;      // mask_file, impulse_response
  filters::Spec spec;    // designed; rate_hz is filled in by masks_for()
};

// Throws UsageError when no source or more than one is given, or a value does not parse.
MaskSource parse_mask_options(const cxxopts::ParseResult& parsed);

// Designs (at rate_hz) or reads the masks. A design the library refuses is reported with the
// command-line flag of the field it names ("--taps 0: ...").
filters::MaskSet masks_for(MaskSource source, double rate_hz);

// The mask set in a few words for a summary: one mask's provenance, or for per-channel masks
// from one file "file ir.wav: 2 masks, one per channel" (not the first one's "ch 1").
std::string describe_masks(const filters::MaskSet& masks);

}  // namespace halo::cli
