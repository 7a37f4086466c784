// halo design (mask options) [--rate HZ] [-o MASKFILE]: writes a mask and summarises it.
#include <cmath>
#include <cstdio>
#include <cxxopts.hpp>

#include "audio/mask_file.hpp"
#include "filters/response.hpp"
#include "src/cli/command.hpp"
#include "src/cli/mask_options.hpp"
#include "src/cli/number_parser.hpp"

namespace halo::cli {
namespace {

double db(double magnitude) { return magnitude > 0 ? 20.0 * std::log10(magnitude) : -INFINITY; }

// `spec`: the design, at the rate the mask is for.
void print_summary(std::FILE* to, const filters::MaskSet& masks, const MaskSource& source, const filters::Spec& spec) {
  const filters::Mask& mask = masks.front();
  std::fprintf(to, "mask:      %s\n", describe_masks(masks).c_str());
  std::fprintf(to, "taps:      %zu (delay %zu frames when centred)\n", mask.taps.size(), (mask.taps.size() - 1) / 2);
  if (source.kind != MaskSource::Kind::designed) return;
  const double rate_hz = spec.rate_hz;
  std::fprintf(to, "gain:      %.2f dB at 0 Hz, %.2f dB at %g Hz, %.2f dB at %g Hz (Nyquist)\n",
               db(filters::magnitude_at(mask, 0, rate_hz)), db(filters::magnitude_at(mask, spec.low_hz, rate_hz)),
               spec.low_hz, db(filters::magnitude_at(mask, rate_hz / 2, rate_hz)), rate_hz / 2);
  const filters::StopBand stop = filters::stop_band(mask, spec);
  if (stop.points > 0) {
    std::fprintf(to, "stop band: %.1f dB at most (beyond %.0f Hz of the edges)\n", db(stop.worst_magnitude),
                 stop.guard_hz);
  } else if (spec.band == filters::Band::bandstop) {
    // A notch narrower than the transition: its depth at the centre is what there is to say.
    std::fprintf(to, "stop band: within %.0f Hz of both edges; %.1f dB at its centre, %g Hz\n", stop.guard_hz,
                 db(stop.centre_magnitude), stop.centre_hz);
  }
}

}  // namespace

int design_command(int argc, char** argv) {
  cxxopts::Options options("halo design", "Design an FIR mask, write it, print a short summary.\n"
                                          "  halo design (--lowpass F | --highpass F | --bandpass LO:HI | "
                                          "--bandstop LO:HI | --mask FILE | --ir FILE) [--rate HZ] [-o MASKFILE]\n"
                                          "MASKFILE: .txt (text), .f32 (raw float32) or a sound file (.wav, .flac, ...);"
                                          " without -o (or with -o -) the coefficients go to stdout as text.");
  add_mask_options(options);
  options.add_options("Output")
      ("rate", "sample rate in Hz", cxxopts::value<std::string>()->default_value("48000"), "HZ")
      ("o,output", "write the mask to MASKFILE", cxxopts::value<std::string>(), "MASKFILE")
      ("h,help", "this help");
  const auto parsed = options.parse(argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", options.help({"Mask (exactly one)", "Design", "Output"}).c_str());
    return 0;
  }
  if (!parsed.unmatched().empty()) throw UsageError("design takes no file arguments: '" + parsed.unmatched().front() + "' (use -o)");
  refuse_repeats(parsed, {"help"});
  const double rate_hz = parse_hz("--rate", parsed["rate"].as<std::string>());
  if (!(rate_hz > 0) || rate_hz > 10e6) throw UsageError("--rate: give a sample rate above 0 Hz");
  // -o - is standard output (as for filter's OUT), the same text as no -o at all.
  const std::string output = parsed.count("output") ? parsed["output"].as<std::string>() : "-";
  if (output.empty()) throw UsageError("-o: an empty output name: give a file name, or - for standard output");
  if (output != "-") audio::check_mask_output(output);  // before any design work
  const MaskSource source = parse_mask_options(parsed);
  filters::MaskSet masks = masks_for(source, rate_hz);
  filters::Spec spec = source.spec;
  spec.rate_hz = masks.front().rate_hz > 0 ? masks.front().rate_hz : rate_hz;

  if (output != "-") {
    audio::write_mask(output, masks);
    print_summary(stdout, masks, source, spec);
    std::printf("written:   %s\n", output.c_str());
  } else {
    print_summary(stderr, masks, source, spec);
    for (std::size_t k = 0; k < masks.front().taps.size(); ++k) {
      for (std::size_t c = 0; c < masks.size(); ++c)
        std::printf(c == 0 ? "%.9g" : " %.9g", k < masks[c].taps.size() ? masks[c].taps[k] : 0.0f);
      std::printf("\n");
    }
  }
  return 0;
}

}  // namespace halo::cli
