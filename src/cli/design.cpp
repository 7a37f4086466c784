// halo design (mask options) [--rate HZ] [-o MASKFILE]: writes a mask and summarises it.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>
#include <cxxopts.hpp>

#include "audio/atomic_file.hpp"
#include "audio/error.hpp"
#include "audio/json_text.hpp"
#include "audio/mask_file.hpp"
#include "audio/standard_streams.hpp"
#include "audio/same_file.hpp"
#include "filters/design_report.hpp"
#include "filters/response.hpp"
#include "src/cli/command.hpp"
#include "src/cli/interrupt.hpp"
#include "src/cli/design_outputs.hpp"
#include "src/cli/mask_options.hpp"
#include "src/cli/number_parser.hpp"

namespace halo::cli {
namespace {

// A mask read from a file: what it is and how long.
void print_file_summary(std::FILE* to, const filters::MaskSet& masks) {
  const filters::Mask& mask = masks.front();
  std::fprintf(to, "mask:       %s\n", describe_masks(masks).c_str());
  std::fprintf(to, "taps:       %zu (delay %zu frames when centred)\n", mask.taps.size(), (mask.taps.size() - 1) / 2);
}

std::string hz_list(const std::vector<double>& hz) {
  if (hz.empty()) return "none";
  std::string text;
  for (double f : hz) {
    char one[32];
    std::snprintf(one, sizeof one, "%s%.1f Hz", text.empty() ? "" : ", ", f);
    text += one;
  }
  return text;
}

// A designed mask: what filters::measure found on the dense response.
void print_report(std::FILE* to, const filters::Mask& mask, const filters::DesignReport& r) {
  std::fprintf(to, "mask:       %s\n", mask.provenance.c_str());
  std::fprintf(to, "method:     %s%s%s, %zu tap%s, %s phase\n", r.method.c_str(), r.window.empty() ? "" : " ",
               r.window.c_str(), r.taps, r.taps == 1 ? "" : "s", r.phase == filters::Phase::linear ? "linear" : "minimum");
  std::fprintf(to, "delay:      %.1f samples (%.3f ms)%s\n", r.delay_samples, r.delay_ms,
               r.phase == filters::Phase::minimum ? ", mean group delay in the pass bands" : "");
  // A band that the transition squeezes to a point (a short mask's wide guard beside a low
  // cutoff) is not measured: said, not left out without a word.
  for (const auto& [kind, count] : {std::pair{"pass", r.squeezed_pass_bands}, std::pair{"stop", r.squeezed_stop_bands}})
    if (count == 1)  // "pass band:  1 squeezed out" had read as a figure (a QA pass)
      std::fprintf(to, "%s band:  squeezed out by the transition at this length, not measured\n", kind);
    else if (count > 1)
      std::fprintf(to, "%s bands: %zu squeezed out by the transition at this length, not measured\n", kind, count);
  for (const filters::BandMeasure& band : r.bands) {
    // Whole hertz at audio rates; at a rate of a few hertz whole hertz gave "0-0 Hz" (a QA pass).
    const int digits = r.rate_hz >= 2000 ? 0 : r.rate_hz >= 200 ? 1 : 3;
    char range[64];
    std::snprintf(range, sizeof range, "%.*f-%.*f Hz", digits, band.low_hz, digits, band.high_hz);
    if (band.gain > 0) {
      std::fprintf(to, "pass band:  %-17s ripple %.3f dB (gain %.3g)\n", range, band.ripple_db, band.gain);
    } else {
      std::fprintf(to, "stop band:  %-17s attenuation %.1f dB\n", range, band.attenuation_db);
    }
  }
  std::fprintf(to, "-3 dB:      %s\n", hz_list(r.minus_3db_hz).c_str());
  std::fprintf(to, "-6 dB:      %s\n", hz_list(r.minus_6db_hz).c_str());
  std::fprintf(to, "worst gain: %.4g (%+.2f dB): the headroom a signal needs never to clip\n", r.worst_case_gain,
               r.worst_case_gain_db);
  if (!r.spec_given) {
    if (r.target_attenuation_db > 0 || r.target_ripple_db > 0)
      std::fprintf(to, "spec:       not judged: no --transition, so no band edge to judge the goals at%s\n",
                   r.method == "kaiser" && r.target_attenuation_db > 0 ? " (--attenuation sets the Kaiser beta)" : "");
    return;
  }
  std::fprintf(to, "spec:       %s: %s\n", r.met ? "met" : "NOT MET", filters::judged_goals(r).c_str());
}

// --report FILE.json: a .json name in a folder that exists, checked before any design work.
void check_report_name(const std::string& path) {
  const std::string extension = ".json";
  if (path.size() <= extension.size() || path.compare(path.size() - extension.size(), extension.size(), extension) != 0)
    throw UsageError("--report " + path + ": give a .json file name");
  const std::string folder = std::filesystem::path(path).parent_path().string();
  if (!folder.empty() && !std::filesystem::is_directory(folder))
    throw audio::Error("--report " + path + ": cannot create a file in " + folder + ": no such folder");  // exit 1, as -o's
}

// The exit code of a design that does not meet the spec its user gave (2 is a usage error).
constexpr int exit_spec_not_met = 3;

}  // namespace

int design_command(int argc, char** argv) {
  cxxopts::Options options("halo design", "Design an FIR mask, write it, print a short summary.\n"
                                          "  halo design (--lowpass F | --highpass F | --bandpass LO:HI | "
                                          "--bandstop LO:HI | --bands SPEC | --mask FILE | --ir FILE) [--rate HZ] [-o MASKFILE]\n"
                                          "MASKFILE: .txt (text), .f32 (raw float32), .json, .h, .yml (CamillaDSP) or a sound file (.wav, .flac, ...);"
                                          " without -o (or with -o -) the coefficients go to stdout as a .txt holds them.");
  add_mask_options(options);
  options.add_options("Output")
      ("rate", "sample rate in Hz", cxxopts::value<std::string>()->default_value("48000"), "HZ")
      ("o,output", "write the mask to MASKFILE", cxxopts::value<std::string>(), "MASKFILE")
      ("report", "write the measured report as JSON to FILE", cxxopts::value<std::string>(), "FILE.json")
      ("q,quiet", "no report on the terminal")
      ("h,help", "this help");
  add_design_output_options(options);
  const auto parsed = parse_strictly(options, argc, argv);
  if (parsed.count("help")) {
    audio::print_to_standard_output(options.help({"Mask (exactly one)", "Design", "Output"}) + "\n");
    return 0;
  }
  refuse_misplaced_values(parsed);  // first: `--lowpass --taps 5` leaves a stray '5'
  if (!parsed.unmatched().empty()) throw UsageError("design takes no file arguments: '" + parsed.unmatched().front() + "' (use -o)");
  refuse_repeats(parsed, {"help", "quiet", "minimum-phase"});  // switches: the same switch
  const double rate_hz = parse_rate_hz("--rate", parsed["rate"].as<std::string>());
  // -o - is standard output (as for filter's OUT), the same text as no -o at all.
  const std::string output = parsed.count("output") ? parsed["output"].as<std::string>() : "-";
  if (output.empty()) throw UsageError("-o: an empty output name: give a file name, or - for standard output");
  audio::check_output_descriptor(output);  // (/dev/fd/3 with no 3>: exit 1, as any OUT that cannot be)
  const DesignOutputs outputs = parse_design_outputs(parsed, output);  // every name checked before any design work
  const std::string report_path = parsed.count("report") ? parsed["report"].as<std::string>() : "";
  if (parsed.count("report")) {
    check_report_name(report_path);
    // The report written last over the mask (-o m.json --report m.json had left only the report).
    // A designed mask is one, so its files are known now.
    for (const std::string& file : design_output_files(outputs, 1))
      if (names_one_file(file, report_path))
        throw UsageError("--report " + report_path + " names a file design writes already (" + file + "): choose another");
  }
  MaskSource source = parse_mask_options(parsed);
  if (source.kind != MaskSource::Kind::designed) audio::refuse_overwriting_input(source.path, output, file_role(source));
  // Each file that can be judged now (a folder not writable, a write-protected file), before
  // the design: a search of 8 s had ended in "Permission denied" (a QA pass).
  for (const std::string& file : design_output_files(outputs, 1)) audio::check_output_writable(file);
  if (!report_path.empty()) audio::check_output_writable(report_path);
  // design converts a mask file (--mask, --ir) without audio: its own rate stands unless
  // --rate names another (then the --ir-rate / --mask-rate rules apply, refusing by default).
  if (parsed.count("rate") == 0) {
    source.ir_rate = MaskSource::IrRate::keep;
    source.mask_rate = MaskSource::IrRate::keep;
  }
  source.every_mask_rate = true;  // --rate names the rate every mask file is converted to
  source.rate_from = MaskSource::RateFrom::option;
  const bool designed = source.kind == MaskSource::Kind::designed;
  if (!designed && parsed.count("report")) throw UsageError("--report measures a designed mask against its spec");
  // After the command line's own mistakes (exit 2), before any file is written: without -o the
  // mask itself goes there, so -q does not help (--plot and --report had been written, then
  // exit 1 for the mask printed nowhere, a review).
  if (output == "-") refuse_closed_report_output("design writes the mask there: give -o FILE");
  else if (!parsed.count("quiet")) refuse_closed_report_output("design prints its report there: give -q");
  filters::MaskSet masks;
  filters::Spec spec = source.spec;  // designed: as the design resolved it (method, length)
  if (designed) {
    const filters::Designed design = design_for(source, rate_hz);
    masks = {design.mask};
    spec = design.spec;
  } else {
    masks = masks_for(source, rate_hz);
    // --rate with keep: the taps as they are, at --rate (they had kept the file's rate, as if
    // --rate had not been given).
    const bool keep = source.kind == MaskSource::Kind::mask_file ? source.mask_rate == MaskSource::IrRate::keep
                                                                 : source.ir_rate == MaskSource::IrRate::keep;
    // And a file that says no rate (a text mask without "# rate", raw .f32) is at --rate: its
    // exports had carried none, or a WAV 48000 Hz (a QA pass).
    if (parsed.count("rate"))
      for (filters::Mask& mask : masks)
        if (keep || !(mask.rate_hz > 0)) mask.rate_hz = rate_hz;
    spec.rate_hz = masks.front().rate_hz > 0 ? masks.front().rate_hz : rate_hz;
    // -o was checked before any work; the files beside it (an export's WAV or raw coefficients,
    // the plot) are known now that the masks are counted.
    for (const std::string& file : design_output_files(outputs, masks.size()))
      audio::refuse_overwriting_input(source.path, file, file_role(source));
  }

  // The report, the plot and the summary describe the file: a FLAC's taps are rounded to 24 bits
  // (it had measured the float taps, up to 140 dB of stop band where the file holds about 125).
  // Whether the float taps met the spec that the file's do not: the 24 bits are then the cause,
  // and the message says so (not where the float design misses too).
  bool float_taps_met = false;
  if (outputs.format == audio::ExportFormat::mask_file && output != "-") {
    filters::MaskSet written = audio::masks_as_written(output, masks);
    if (designed && written.front().taps != masks.front().taps) float_taps_met = filters::measure(masks.front(), spec).met;
    masks = std::move(written);
  }
  const filters::DesignReport report = designed ? filters::measure(masks.front(), spec) : filters::DesignReport{};
  const bool lost_in_the_file = float_taps_met && !report.met;
  if (interrupted()) throw audio::Error("interrupted");  // a signal during the design: nothing written (main says so)
  std::vector<audio::TextFile> report_file;
  if (designed && !report_path.empty()) report_file.push_back({report_path, audio::json_text(report_json(report), 2) + "\n"});
  write_design_outputs(outputs, masks, report_file, designed ? &spec : nullptr, designed ? &report : nullptr);
  const bool quiet = parsed.count("quiet") > 0;
  const auto summarise = [&](std::FILE* to) {
    if (quiet) return;
    if (designed) print_report(to, masks.front(), report);
    else print_file_summary(to, masks);
  };
  if (output != "-") {
    // -o /dev/stdout: the mask went out there, and the report goes to standard error, as for -
    // (it had followed the taps into the file: `> m.txt` then read as "is not a number").
    std::FILE* to = audio::names_standard_output(output) ? stderr : stdout;
    summarise(to);
    if (!quiet) {  // every file: a config's coefficient files, the plot and the report too (only -o was named)
      std::vector<std::string> files = design_output_files(outputs, masks.size());
      if (designed && !report_path.empty()) files.push_back(report_path);
      std::string written;
      for (const std::string& file : files) written += (written.empty() ? "" : ", ") + file;
      std::fprintf(to, "written:    %s\n", written.c_str());
    }
  } else {
    summarise(stderr);
    // halo's own text, as a .txt holds it (an export's one text went out with the outputs):
    // its "# rate" and "# align causal" lines too, which the bare taps had lost, so that
    // `design ... | filter IN OUT --mask -` kept neither (a minimum-phase mask's output 127
    // frames early, a 48 kHz mask on 44.1 kHz audio without a word; a review).
    if (!audio::export_is_one_text(outputs.format))
      audio::print_to_standard_output(audio::mask_text(masks));  // a failed write is main's to report
  }
  // A warning is about the mask, not a summary: -q keeps it.
  if (designed)
    if (const std::string warning = filters::missing_edge_warning(spec, report); !warning.empty())
      notice("warning: " + warning);
  if (const std::string lost = alignment_lost_warning(output, outputs.format, masks); !lost.empty())
    notice("warning: " + lost);
  if (const std::string early =
          sox_delay_warning(output, outputs.format, masks, designed ? "minimum-phase mask" : "causal mask");
      !early.empty())
    notice("warning: " + early);
  // Asked for a spec and not given it: the files are written (to look at), the exit says so.
  if (designed && report.spec_given && !report.met) {
    // What missed, with its figure, as filter's warning says it (-q had left only the mask's
    // name, a QA pass).
    notice("the spec is not met: " + filters::judged_goals(report) + ": " + masks.front().provenance +
           (lost_in_the_file ? " (in the 24-bit taps FLAC holds; as float32, in a .wav, it is met)" : ""));
    return exit_spec_not_met;
  }
  return 0;
}

}  // namespace halo::cli
