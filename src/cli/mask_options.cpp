#include "src/cli/mask_options.hpp"

#include <stdexcept>

#include "audio/mask_file.hpp"
#include "filters/design.hpp"
#include "filters/error.hpp"
#include "src/cli/command.hpp"
#include "src/cli/number_parser.hpp"

namespace halo::cli {

void add_mask_options(cxxopts::Options& options) {
  options.add_options("Mask (exactly one)")
      ("lowpass", "low-pass with cutoff F Hz", cxxopts::value<std::string>(), "F")
      ("highpass", "high-pass with cutoff F Hz", cxxopts::value<std::string>(), "F")
      ("bandpass", "band-pass between LO and HI Hz", cxxopts::value<std::string>(), "LO:HI")
      ("bandstop", "band-stop between LO and HI Hz", cxxopts::value<std::string>(), "LO:HI")
      ("mask", "coefficients from FILE (.txt, .f32, or a sound file); centred like a designed mask",
       cxxopts::value<std::string>(), "FILE")
      ("ir", "impulse response from a sound FILE, one per channel; causal alignment",
       cxxopts::value<std::string>(), "FILE");
  options.add_options("Design")
      ("taps", "mask length (default " + std::to_string(filters::default_taps) + ")", cxxopts::value<std::string>(), "N")
      ("transition", "transition width in Hz (with --attenuation: Kaiser length and beta)",
       cxxopts::value<std::string>(), "HZ")
      ("attenuation", "stop-band attenuation in dB (with --transition)", cxxopts::value<std::string>(), "DB")
      ("window", "hann|hamming|blackman|kaiser[:BETA]|rect (default hamming)", cxxopts::value<std::string>(), "W");
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
  }
  return "";
}

// A filters::Error as the command line says it: the field it is about, and any other field its
// detail names by its snake_case field name, spelled as the flags the user typed.
std::string with_flags(const filters::Error& error, filters::Band band) {
  std::string detail = error.detail();
  for (filters::Field other : {filters::Field::rate_hz, filters::Field::transition_hz, filters::Field::attenuation_db}) {
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

void parse_band_edges(const std::string& option, const std::string& text, filters::Spec& spec) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw UsageError(option + " " + text + ": give the band as LO:HI");
  spec.low_hz = parse_hz(option, text.substr(0, colon));
  spec.high_hz = parse_hz(option, text.substr(colon + 1));
}

}  // namespace

MaskSource parse_mask_options(const cxxopts::ParseResult& parsed) {
  static const char* sources[] = {"lowpass", "highpass", "bandpass", "bandstop", "mask", "ir"};
  std::string chosen;
  for (const char* name : sources) {
    if (!parsed.count(name)) continue;
    if (!chosen.empty()) throw UsageError("--" + chosen + " and --" + name + ": give only one mask");
    chosen = name;
  }
  if (chosen.empty())
    throw UsageError("no mask: give --lowpass, --highpass, --bandpass, --bandstop, --mask or --ir");

  MaskSource source;
  const std::string value = parsed[chosen].as<std::string>();
  if (chosen == "mask" || chosen == "ir") {
    for (const char* design_option : {"taps", "transition", "attenuation", "window"})
      if (parsed.count(design_option))
        throw UsageError("--" + std::string(design_option) + " designs a mask; it does not apply to --" + chosen);
    source.kind = chosen == "mask" ? MaskSource::Kind::mask_file : MaskSource::Kind::impulse_response;
    source.path = value;
    return source;
  }

  filters::Spec& spec = source.spec;
  if (chosen == "lowpass" || chosen == "highpass") {
    spec.band = chosen == "lowpass" ? filters::Band::lowpass : filters::Band::highpass;
    spec.low_hz = parse_hz("--" + chosen, value);
  } else {
    spec.band = chosen == "bandpass" ? filters::Band::bandpass : filters::Band::bandstop;
    parse_band_edges("--" + chosen, value, spec);
  }
  const bool by_kaiser = parsed.count("transition") || parsed.count("attenuation");
  if (by_kaiser) {
    if (!parsed.count("transition") || !parsed.count("attenuation"))
      throw UsageError("--transition and --attenuation go together");
    if (parsed.count("taps")) throw UsageError("--taps, or --transition with --attenuation: not both");
    if (parsed.count("window"))
      throw UsageError("--window: --transition/--attenuation design with a Kaiser window of their own beta");
    spec.taps = 0;
    spec.transition_hz = parse_hz("--transition", parsed["transition"].as<std::string>());
    spec.attenuation_db = parse_real("--attenuation", parsed["attenuation"].as<std::string>());
  } else {
    // The range is the library's to say (a filters::Error naming --taps); this is what an int holds.
    spec.taps = parsed.count("taps") ? static_cast<int>(parse_count("--taps", parsed["taps"].as<std::string>(),
                                                                     -(1LL << 30), 1LL << 30))
                                     : filters::default_taps;
  }
  if (parsed.count("window")) {
    const std::string window = parsed["window"].as<std::string>();
    spec.window = flags_for(spec.band, [&] { return filters::parse_window(window); });
  }
  return source;
}

filters::MaskSet masks_for(MaskSource source, double rate_hz) {
  if (source.kind != MaskSource::Kind::designed) return audio::read_mask(source.path);
  source.spec.rate_hz = rate_hz;
  return {flags_for(source.spec.band, [&] { return filters::design(source.spec); })};
}

std::string describe_masks(const filters::MaskSet& masks) {
  if (masks.size() == 1) return masks.front().provenance;
  std::string file = masks.front().provenance;  // "file ir.wav ch 1", "file m.txt column 1"
  for (const std::string suffix : {" ch 1", " column 1"})
    if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0)
      file.resize(file.size() - suffix.size());
  return file + ": " + std::to_string(masks.size()) + " masks, one per channel";
}

}  // namespace halo::cli
