#pragma once
#include <cxxopts.hpp>
#include <string>

#include "filters/design.hpp"
#include "filters/mask.hpp"
#include "filters/spec.hpp"

namespace halo::cli {

// The mask options every command shares: one source (a designed band, --mask or --ir) plus
// the design parameters. `group` heads them in the help: filter and design take one mask;
// play and live take --mask again for more, to switch between.
void add_mask_options(cxxopts::Options& options, const std::string& group = "Mask (exactly one)");

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
  // and a --mask-rate given on the command line applies to the file it names; otherwise
  // `filter` only warns about a text or sound mask at another rate (README).
  bool every_mask_rate = false;
  // Whose rate the masks are made at, for the messages: the audio's (filter), --rate's (design
  // converts), or the device's (play and live: play resamples its file to it; "the audio is
  // at 48000 Hz" had named the device's rate for a 44.1 kHz file).
  enum class RateFrom { audio, option, device } rate_from = RateFrom::audio;
  // --quiet: no status line while a shortest-mask search runs (SearchStatus).
  bool quiet = false;
  filters::Spec spec;    // designed; rate_hz is filled in by masks_for()
};

// Whose rate, in the rate messages: "but %s %.10g Hz" (wanted) and "takes it as %s" (owner).
struct RateWords {
  const char* wanted;
  const char* owner;
};
RateWords rate_words(MaskSource::RateFrom from);
// What a mask file is, for a refusal that names it: "the mask file (--mask)", "the impulse
// response file (--ir)".
std::string file_role(const MaskSource& source);

// Whether the source is `--mask -` or `--ir -`: standard input, which IN may not also be.
bool reads_standard_input(const MaskSource& source);

// Throws UsageError when no source or more than one is given, or a value does not parse.
MaskSource parse_mask_options(const cxxopts::ParseResult& parsed);

// Whether the masks' delay is removed by default (`--align same`): a designed linear-phase
// mask and a --mask file are centred; an impulse response (--ir), a minimum-phase design and a
// mask file that says it starts at its first tap (`Mask::causal`: halo's text, JSON and header
// files of a minimum-phase design) are not, since removing (M-1)/2 frames from them would put
// the output before its input (a 255-tap minimum-phase low-pass delays by some 25 frames, not
// 127). A mask file that does not say so (a sound file, raw float32, anyone's text) is centred.
bool centred_by_default(const MaskSource& source, const filters::MaskSet& masks);

// Designs (at rate_hz) or reads the masks. A design the library refuses is reported with the
// command-line flag of the field it names ("--taps 0: ...").
filters::MaskSet masks_for(MaskSource source, double rate_hz);

// `masks` resampled to rate_hz (filters::resample), with a warning naming `name` where a causal
// mask's ring before its start, cut, was loud enough to change its response.
filters::MaskSet resampled_saying_cuts(const filters::MaskSet& masks, double rate_hz, const std::string& name);

// Warns (a notice, kept under --quiet) where a mask file says it was made for another rate than
// rate_hz and its taps are used as they are (a text or sound mask without --mask-rate, or
// --mask-rate keep): its frequencies are off by the ratio. `audio_is_at` names the audio:
// "in.wav is at", "the audio is at".
// The mask file is named at the end where `source` has one.
void warn_of_another_rate(const filters::MaskSet& masks, double rate_hz, const std::string& audio_is_at,
                          const MaskSource& source);

// A designed source (Kind::designed) at rate_hz: the mask and the spec as the design resolved
// it (method, length, window), for the report. Errors worded with flags, as masks_for's.
filters::Designed design_for(MaskSource source, double rate_hz);

// The mask set in a few words for a summary: one mask's provenance, or for per-channel masks
// from one file "file ir.wav: 2 masks, one per channel" (not the first one's "ch 1").
std::string describe_masks(const filters::MaskSet& masks);

}  // namespace halo::cli
