#include "src/cli/mask_options.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "audio/error.hpp"
#include "audio/format.hpp"
#include "audio/mask_file.hpp"
#include "audio/reader.hpp"
#include "filters/band_spec.hpp"
#include "filters/design.hpp"
#include "filters/error.hpp"
#include "filters/resample.hpp"
#include "src/cli/command.hpp"
#include "src/cli/number_parser.hpp"
#include "src/cli/search_status.hpp"
#include "src/engine/error.hpp"
#include "src/engine/tap_set.hpp"

namespace halo::cli {

void add_mask_options(cxxopts::Options& options, const std::string& group) {
  options.add_options(group)
      ("lowpass", "low-pass with cutoff F Hz", cxxopts::value<std::string>(), "F")
      ("highpass", "high-pass with cutoff F Hz", cxxopts::value<std::string>(), "F")
      ("bandpass", "band-pass between LO and HI Hz", cxxopts::value<std::string>(), "LO:HI")
      ("bandstop", "band-stop between LO and HI Hz", cxxopts::value<std::string>(), "LO:HI")
      ("bands", "multi-band: \"LO-HI:GAIN[/w=WEIGHT], ...\" in Hz, e.g. \"0-3000:1, 4000-24000:0/w=10\" "
       "(remez, firls or auto)", cxxopts::value<std::string>(), "SPEC")
      ("mask", "coefficients from FILE (.txt, .f32, .json, .h or a sound file); centred, or causal where the file says "
       "so (a minimum-phase design, an impulse response design or ir fix wrote); - reads standard input",
       cxxopts::value<std::string>(), "FILE")
      ("ir", "impulse response from FILE (a sound file, or any mask file; - reads standard input), one per channel; causal alignment",
       cxxopts::value<std::string>(), "FILE")
      ("ir-rate", "an --ir file at another rate than the audio (design: than --rate): refuse (default), resample it (libsamplerate) "
       "or keep its taps as they are", cxxopts::value<std::string>(), "refuse|resample|keep")
      ("mask-rate", "a --mask file at another rate than the audio (design: than --rate): refuse (default for .json and .h, which "
       "carry their rate), resample it (libsamplerate) or keep its taps as they are; given, it applies to a "
       "text mask's \"# rate\" line and a sound file's rate too", cxxopts::value<std::string>(),
       "refuse|resample|keep");
  options.add_options("Design")
      ("taps", "mask length (default " + std::to_string(filters::default_taps) +
                   " for a window design; remez, firls and --bands have none: N, or a goal to meet)",
       cxxopts::value<std::string>(), "N")
      ("transition", "transition width in Hz (with --attenuation: Kaiser length and beta)",
       cxxopts::value<std::string>(), "HZ")
      ("attenuation", "stop-band attenuation in dB (with --transition)", cxxopts::value<std::string>(), "DB")
      ("window", "hann|hamming|blackman|kaiser[:BETA]|rect (default hamming)", cxxopts::value<std::string>(), "W")
      ("method", "window|kaiser|remez|firls|auto (default window; remez for --bands); without --taps, "
       "kaiser/remez/firls/auto find the shortest mask that meets --attenuation/--ripple",
       cxxopts::value<std::string>(), "M")
      ("ripple", "pass-band ripple wanted, peak to peak, in dB", cxxopts::value<std::string>(), "DB")
      ("minimum-phase", "the minimum-phase mask of the same length and magnitude (least delay)");
}

namespace {

// The flag that sets a Spec field: the band's own option for its edges.
std::string flag_of(filters::Field field, filters::Band band) {
  switch (field) {
    case filters::Field::none: return "";
    case filters::Field::rate_hz: return "--rate";
    case filters::Field::low_hz:
    case filters::Field::edges: return "--" + filters::to_string(band);
    case filters::Field::taps: return "--taps";
    case filters::Field::transition_hz: return "--transition";
    case filters::Field::attenuation_db: return "--attenuation";
    case filters::Field::window: return "--window";
    case filters::Field::method: return "--method";
    case filters::Field::bands: return "--bands";
    case filters::Field::ripple_db: return "--ripple";
  }
  return "";
}

// A filters::Error as the command line says it: the field it is about, and any other field its
// detail names by its snake_case field name, spelled as the flags the user typed.
std::string with_flags(const filters::Error& error, filters::Band band) {
  std::string detail = error.detail();
  for (filters::Field other : {filters::Field::rate_hz, filters::Field::transition_hz, filters::Field::attenuation_db,
                               filters::Field::ripple_db}) {
    const std::string name = filters::field_name(other);
    for (auto at = detail.find(name); at != std::string::npos; at = detail.find(name, at))
      detail.replace(at, name.size(), flag_of(other, band));
  }
  if (error.field() == filters::Field::none) return detail;
  return flag_of(error.field(), band) + " " + detail;
}

// Runs a filters:: call; its filters::Error comes back worded with flags, as a UsageError
// (exit 2): every filters::Error is about the spec the options made, never about a file.
template <typename Call>
auto flags_for(filters::Band band, Call call) -> decltype(call()) {
  try {
    return call();
  } catch (const filters::Error& error) {
    throw UsageError(with_flags(error, band));
  }
}

MaskSource::IrRate rate_policy(const cxxopts::ParseResult& parsed, const std::string& option) {
  const std::string policy = parsed[option].as<std::string>();
  if (policy != "refuse" && policy != "resample" && policy != "keep")
    throw UsageError("--" + option + " " + policy + ": give refuse, resample or keep");
  return policy == "resample" ? MaskSource::IrRate::resample
         : policy == "keep"   ? MaskSource::IrRate::keep
                              : MaskSource::IrRate::refuse;
}

// The mask files whose rate is the one they were designed at, written by halo design: a text
// mask's "# rate" line or a sound file's header may only be a default (48000 for a mask whose
// rate was unknown).
bool carries_design_rate(const std::string& path) {
  const std::string extension = audio::lower_extension(path);
  return extension == "json" || extension == "h" || extension == "hpp";
}

}  // namespace

RateWords rate_words(MaskSource::RateFrom from) {
  switch (from) {
    case MaskSource::RateFrom::option: return {"--rate asks for", "--rate's"};
    case MaskSource::RateFrom::device: return {"the device runs at", "the device's"};
    case MaskSource::RateFrom::audio: break;
  }
  return {"the audio is at", "the audio's"};
}

std::string file_role(const MaskSource& source) {
  return source.kind == MaskSource::Kind::impulse_response ? "the impulse response file (--ir)" : "the mask file (--mask)";
}

namespace {

// Masks at another rate than the audio's are never used silently: their delays and
// frequencies would all be off. `what` names them in the refusal, `option` is the flag that
// chooses.
void to_audio_rate(filters::MaskSet& masks, MaskSource::IrRate policy, double rate_hz, const std::string& path,
                   const char* what, const char* option, const char* wanted) {
  const double mask_rate = masks.front().rate_hz;
  if (!(mask_rate > 0) || std::fabs(mask_rate - rate_hz) <= 1e-6 * rate_hz || policy == MaskSource::IrRate::keep)
    return;
  if (policy == MaskSource::IrRate::refuse) {
    char line[200];
    std::snprintf(line, sizeof line, ": %s is at %.10g Hz but %s %.10g Hz "
                  "(%s resample resamples it, %s keep uses it as it is)", what, mask_rate, wanted, rate_hz, option,
                  option);
    throw audio::Error(path + line);
  }
  try {
    masks = resampled_saying_cuts(masks, rate_hz, path);
  } catch (const filters::Error& error) {  // its field's name, "rate_hz", had shown (a QA pass)
    throw audio::Error(path + ": " + error.detail());
  }
}

void parse_band_edges(const std::string& option, const std::string& text, filters::Spec& spec) {
  const auto colon = text.find(':');
  // One colon: "1000:2000:3000" had been read as LO 1000 and HI "2000:3000", and quoted so.
  // An edge left out is named, with what was given ("--bandpass : not a frequency" had quoted
  // neither, a QA pass).
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos || colon == 0 ||
      colon + 1 == text.size())
    throw UsageError(option + " " + text + ": give the band as LO:HI");
  spec.low_hz = parse_hz(option, text.substr(0, colon));
  spec.high_hz = parse_hz(option, text.substr(colon + 1));
}

}  // namespace

MaskSource parse_mask_options(const cxxopts::ParseResult& parsed) {
  static const char* sources[] = {"lowpass", "highpass", "bandpass", "bandstop", "bands", "mask", "ir"};
  std::string chosen;
  for (const char* name : sources) {
    if (!parsed.count(name)) continue;
    if (!chosen.empty()) throw UsageError("--" + chosen + " and --" + name + ": give only one mask");
    chosen = name;
  }
  if (chosen.empty())
    throw UsageError("no mask: give --lowpass, --highpass, --bandpass, --bandstop, --bands, --mask or --ir");

  MaskSource source;
  source.quiet = parsed.count("quiet") > 0;
  const std::string value = parsed[chosen].as<std::string>();
  if (chosen == "mask" || chosen == "ir") {
    for (const char* design_option : {"taps", "transition", "attenuation", "window", "method", "ripple", "minimum-phase"})
      if (parsed.count(design_option))
        throw UsageError("--" + std::string(design_option) + " designs a mask; it does not apply to --" + chosen);
    source.kind = chosen == "mask" ? MaskSource::Kind::mask_file : MaskSource::Kind::impulse_response;
    source.path = value;
    if (value.empty()) throw UsageError("--" + chosen + ": an empty file name (- reads standard input)");  // not ": No such file"
    if (parsed.count("ir-rate")) {
      source.ir_rate = rate_policy(parsed, "ir-rate");
      if (chosen != "ir") throw UsageError("--ir-rate applies to --ir");
    }
    if (parsed.count("mask-rate")) {
      source.mask_rate = rate_policy(parsed, "mask-rate");
      source.every_mask_rate = true;  // asked for: a text or sound mask's rate follows it too
      if (chosen != "mask") throw UsageError("--mask-rate applies to --mask");
    }
    return source;
  }
  if (parsed.count("mask-rate")) throw UsageError("--mask-rate applies to --mask");
  if (parsed.count("ir-rate")) throw UsageError("--ir-rate applies to --ir");  // was taken and ignored

  filters::Spec& spec = source.spec;
  if (chosen == "lowpass" || chosen == "highpass") {
    spec.band = chosen == "lowpass" ? filters::Band::lowpass : filters::Band::highpass;
    spec.low_hz = parse_hz("--" + chosen, value);
  } else if (chosen == "bands") {
    spec.band = filters::Band::multiband;
    spec.bands = flags_for(spec.band, [&] { return filters::parse_bands(value); });
    spec.method = filters::Method::remez;
    // The bands give every edge: a transition had been taken and ignored (a QA pass).
    if (parsed.count("transition"))
      throw UsageError("--transition does not apply to --bands: its bands give every edge (leave a gap between them)");
  } else {
    spec.band = chosen == "bandpass" ? filters::Band::bandpass : filters::Band::bandstop;
    parse_band_edges("--" + chosen, value, spec);
  }
  if (parsed.count("method")) {
    const std::string method = parsed["method"].as<std::string>();
    spec.method = flags_for(spec.band, [&] { return filters::parse_method(method); });
  }
  spec.minimum_phase = parsed.count("minimum-phase") > 0;
  if (parsed.count("ripple")) {
    // Given, it is above 0, as --attenuation: the library reads 0 as "no ripple goal", and `--ripple 0`
    // had been dropped without a word, the spec said met (a QA pass).
    const std::string text = parsed["ripple"].as<std::string>();
    spec.ripple_db = parse_db("--ripple", text);
    if (!(spec.ripple_db > 0)) throw UsageError("--ripple " + text + ": give a ripple above 0 dB");
  }
  const auto taps_given = [&] {
    // The range is the library's to say (a filters::Error naming --taps, per method); past what
    // an int holds, said here the same way.
    const std::string text = parsed["taps"].as<std::string>();
    const std::string range = "the length must be in [1, " + std::to_string(filters::max_taps) + "]";
    const auto taps = static_cast<int>(parse_count("--taps", text, -(1LL << 30), 1LL << 30, range));
    // The library reads 0 as "not given" and would say so: a 0 given is out of range.
    if (taps == 0) throw UsageError("--taps " + text + ": " + range);
    return taps;
  };
  // Given, each is above 0: the library reads 0 as "not given", and would say the other is missing.
  const auto transition = [&] {
    const std::string text = parsed["transition"].as<std::string>();
    const double hz = parse_hz("--transition", text);
    if (!(hz > 0)) throw UsageError("--transition " + text + ": give a width above 0 Hz");
    return hz;
  };
  const auto attenuation = [&] {
    const std::string text = parsed["attenuation"].as<std::string>();
    const double db = parse_db("--attenuation", text);
    if (!(db > 0)) throw UsageError("--attenuation " + text + ": give a level above 0 dB");
    return db;
  };
  if (spec.method != filters::Method::window) {
    // Every goal is optional here; the library says which one a method needs.
    if (parsed.count("window")) throw UsageError("--window is for --method window");
    spec.taps = parsed.count("taps") ? taps_given() : 0;
    if (parsed.count("transition")) spec.transition_hz = transition();
    if (parsed.count("attenuation")) spec.attenuation_db = attenuation();
    return source;
  }
  const bool by_kaiser = parsed.count("transition") || parsed.count("attenuation");
  if (by_kaiser) {
    if (!parsed.count("transition") || !parsed.count("attenuation"))
      throw UsageError("--transition and --attenuation go together");
    if (parsed.count("taps")) throw UsageError("--taps, or --transition with --attenuation: not both");
    if (parsed.count("window"))
      throw UsageError("--window: --transition/--attenuation design with a Kaiser window of their own beta");
    spec.taps = 0;
    spec.transition_hz = transition();
    spec.attenuation_db = attenuation();
  } else {
    spec.taps = parsed.count("taps") ? taps_given() : filters::default_taps;
  }
  if (parsed.count("window")) {
    const std::string window = parsed["window"].as<std::string>();
    spec.window = flags_for(spec.band, [&] { return filters::parse_window(window); });
  }
  return source;
}

bool centred_by_default(const MaskSource& source, const filters::MaskSet& masks) {
  if (source.kind == MaskSource::Kind::impulse_response) return false;
  if (source.kind == MaskSource::Kind::designed && source.spec.minimum_phase) return false;
  return std::none_of(masks.begin(), masks.end(), [](const filters::Mask& mask) { return mask.causal; });
}

namespace {

// A mask file's taps against the engines' own rules (TapSet's: a worst-case gain past float32),
// said with the mask's name: filter had named the audio file (a QA pass).
filters::MaskSet checked_taps(filters::MaskSet masks, const std::string& path) {
  try {
    TapSet::check_taps(masks);
  } catch (const halo::Error& error) {
    throw audio::Error(path + ": " + error.what());
  }
  // A gain no filter has (+100 dB): most likely a file of another format read as this one
  // (float64 or int32 bytes named .f32 had given taps up to 1.8e37, written out without a word:
  // a QA pass). Said, not refused: the taps are what the file holds.
  if (const double gain = filters::worst_case_gain(masks); gain > 1e5) {
    char line[200];
    std::snprintf(line, sizeof line, ": the mask can raise a full-scale input by %.0f dB (sum |h| = %.3g): is the file "
                  "in the format its name says?", 20 * std::log10(gain), gain);
    notice("warning: " + path + line);
  }
  // Taps below float32's normal range count as 0 in every engine: said where a mask has them,
  // and a mask of nothing else is silence (taps of 1e-40 had given a silent file without a
  // word, and a low-pass scaled by 1e-36 had lost 172 of its 255 taps: a QA pass).
  std::size_t count = 0, zeros = 0, subnormal = 0;
  for (const filters::Mask& mask : masks)
    for (const float tap : mask.taps) {
      ++count;
      if (tap == 0) ++zeros;
      else if (std::fabs(tap) < FLT_MIN) ++subnormal;
    }
  if (zeros + subnormal == count)
    notice("warning: " + path + ": every tap is 0 or below float32's normal range (1.2e-38), which counts as 0: "
           "the output is silence");
  else if (subnormal > 0)
    notice("warning: " + path + ": " + std::to_string(subnormal) + " of " + std::to_string(count) +
           " taps lie below float32's normal range (1.2e-38) and count as 0");
  return masks;
}

// Asked to resample a file that says no rate (raw .f32, a text mask without "# rate", a MAT-file
// without its rate variable): its taps are taken as they are, and the user hears so (--ir had
// said nothing).
void warn_when_no_rate_to_resample_from(const filters::MaskSet& masks, MaskSource::IrRate policy, const char* option,
                                        const std::string& name, const MaskSource& source, double rate_hz) {
  if (policy != MaskSource::IrRate::resample || masks.front().rate_hz > 0) return;
  char line[160];
  std::snprintf(line, sizeof line, " does not say its rate: %s resample takes it as %s %.10g Hz", option,
                rate_words(source.rate_from).owner, rate_hz);
  notice("warning: " + name + line);
}

}  // namespace

filters::MaskSet resampled_saying_cuts(const filters::MaskSet& masks, double rate_hz, const std::string& name) {
  double cut = 0;
  filters::MaskSet resampled = filters::resample(masks, rate_hz, &cut);
  if (cut >= filters::audible_energy_cut) {
    char line[320];
    std::snprintf(line, sizeof line, ": its first taps, once resampled to %.10g Hz, ring before its start, and that ring "
                  "(%.2g %% of its energy) is cut, which changes its response; give it a few ms of pre-delay first to "
                  "keep it", rate_hz, 100 * cut);
    notice("warning: " + name + line);
  }
  return resampled;
}

filters::MaskSet masks_for(MaskSource source, double rate_hz) {
  const std::string name = audio::input_name(source.path);  // "-" is standard input
  if (source.kind == MaskSource::Kind::mask_file) {
    filters::MaskSet masks = checked_taps(audio::read_mask(source.path), name);
    warn_when_no_rate_to_resample_from(masks, source.mask_rate, "--mask-rate", name, source, rate_hz);
    if (carries_design_rate(source.path) || source.every_mask_rate)
      to_audio_rate(masks, source.mask_rate, rate_hz, name, "the mask", "--mask-rate",
                    rate_words(source.rate_from).wanted);
    return masks;
  }
  if (source.kind == MaskSource::Kind::impulse_response) {
    filters::MaskSet masks = checked_taps(audio::read_mask(source.path), name);
    // An impulse response starts at its first tap: design's exports of it say so, so that
    // --mask reads them back causal, as --ir applies them (they had been marked centred).
    for (filters::Mask& mask : masks) mask.causal = true;
    warn_when_no_rate_to_resample_from(masks, source.ir_rate, "--ir-rate", name, source, rate_hz);
    to_audio_rate(masks, source.ir_rate, rate_hz, name, "the impulse response", "--ir-rate",
                  rate_words(source.rate_from).wanted);
    return masks;
  }
  return {design_for(source, rate_hz).mask};
}

bool reads_standard_input(const MaskSource& source) {
  return source.kind != MaskSource::Kind::designed && source.path == "-";
}

void warn_of_another_rate(const filters::MaskSet& masks, double rate_hz, const std::string& audio_is_at,
                          const MaskSource& source) {
  const double mask_rate_hz = masks.front().rate_hz;  // from a sound file, or a text mask's "# rate" line
  // The file, where there is one: play's masks were each warned of in the same words (a QA pass).
  const std::string file = source.kind == MaskSource::Kind::designed ? "" : " (" + audio::input_name(source.path) + ")";
  if (mask_rate_hz > 0 && std::fabs(mask_rate_hz - rate_hz) > 0.5)
    notice("warning: the mask was made for " + std::to_string(static_cast<long>(mask_rate_hz)) + " Hz but " +
           audio_is_at + " " + std::to_string(static_cast<long>(rate_hz)) + " Hz" + file);
}

filters::Designed design_for(MaskSource source, double rate_hz) {
  source.spec.rate_hz = rate_hz;
  SearchStatus status(!source.quiet);
  return flags_for(source.spec.band, [&] { return filters::design_to_spec(source.spec, status.observer()); });
}

std::string describe_masks(const filters::MaskSet& masks) {
  if (masks.size() == 1) return masks.front().provenance;
  return filters::mask_set_source(masks) + ": " + std::to_string(masks.size()) + " masks, one per channel";
}

}  // namespace halo::cli
