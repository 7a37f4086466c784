// halo filter IN OUT (mask options) [--engine E] [--chunk FRAMES] [--tail] ...
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cxxopts.hpp>

#include "audio/atomic_file.hpp"
#include "audio/error.hpp"
#include "audio/format.hpp"
#include "audio/same_file.hpp"
#include "audio/standard_streams.hpp"
#include "filters/design_report.hpp"
#include "src/cli/command.hpp"
#include "src/cli/failure_report.hpp"
#include "src/cli/filter_arguments.hpp"
#include "src/cli/interrupt.hpp"
#include "src/cli/mask_options.hpp"
#include "src/cli/progress_bar.hpp"
#include "src/engine/fftw.hpp"
#include "src/engine/fftw_wisdom.hpp"
#include "src/engine/registry.hpp"
#include "src/offline/filter_job.hpp"

namespace halo::cli {
namespace {

// What happened to samples on the way, in one line like sox's clipping report; empty when
// nothing did. Non-finite input is read as 0; non-finite results are written as 0 (float) or
// clipped (integer output, where they are part of the clipped count).
std::string sample_report(const StreamResult& stream, const EngineChoice& engine) {
  const auto samples = [](std::uint64_t count, const char* one, const char* many) {
    return std::to_string(count) + (count == 1 ? one : many);
  };
  std::string line;
  auto add = [&](const std::string& part) { line += (line.empty() ? "" : "; ") + part; };
  if (stream.nonfinite_input_samples > 0)
    add(samples(stream.nonfinite_input_samples, " input sample was NaN or Inf and was read as 0",
                " input samples were NaN or Inf and were read as 0"));
  if (stream.clipped_samples > 0) {
    std::string part = "clipped " + samples(stream.clipped_samples, " sample", " samples");
    if (stream.nonfinite_output_samples > 0)
      part += " (" + std::to_string(stream.nonfinite_output_samples) + " of them NaN or Inf)";
    add(part);
  } else if (stream.nonfinite_output_samples > 0) {
    add(samples(stream.nonfinite_output_samples, " output sample overflowed to NaN or Inf and was written as 0",
                " output samples overflowed to NaN or Inf and were written as 0"));
  }
  // An overflow inside an engine can be the input's size as well as the gain's (an FFT's sums
  // overflow from about 3.4e38 over its length): "lower --gain" alone had been the advice where
  // no gain was given (a QA pass). The direct engine's sums (of 64 taps at a time) overflow far
  // later: named where an FFT engine ran (a review: not to a run already on it).
  const auto by_fft = [](const std::string& name) {
    return name.find("fft") != std::string::npos || name.find("partitioned") != std::string::npos;
  };
  if (stream.nonfinite_output_samples > 0)
    add(by_fft(engine.name) || by_fft(engine.takes_over)
            ? "lower --gain or scale IN down, or try --engine cpu, whose sums overflow far later"
            : "lower --gain or scale IN down");
  else if (stream.clipped_samples > 0)
    add("lower --gain to avoid it");
  // Last: no sample was lost, and nothing needs lowering unless the edge's noise matters.
  if (stream.dither_held_samples > 0)
    add("the dither carried " + samples(stream.dither_held_samples, " sample", " samples") +
        " past full scale, held there (--no-dither rounds them plainly)");
  return line;
}

// The engine notice: which engine ran, and with a hand-over which part each took.
std::string engine_notice(const FilterReport& report) {
  std::string line = "engine " + report.engine.name + " (" + report.engine.reason + ")";
  if (!report.handover) return line;
  const HandoverReport& handover = *report.handover;
  char text[160];
  if (handover.handed_over) {
    std::snprintf(text, sizeof text, "; %s took over after %llu frames, %.3f s after it began to start",
                  handover.second.c_str(), static_cast<unsigned long long>(handover.first_frames),
                  handover.second_start_s);
    return line + text;
  }
  if (!handover.second_failure.empty())
    return line + "; " + handover.second + " did not take over: " + handover.second_failure;
  return line + "; the input ended before " + handover.second + " had started";
}

}  // namespace

int filter_command(int argc, char** argv) {
  const FilterArguments arguments = parse_filter_arguments(argc, argv);
  if (arguments.help) {
    audio::print_to_standard_output(arguments.help_text + "\n");
    return 0;
  }
  // The whole run, from here: the mask's design (a Kaiser search may take seconds) and reading,
  // the engine's start and the stream. The stream's own clock had been the summary's time, 0.022 s
  // for a 40 s run, and smaller than the engine's start beside it (a QA pass).
  const auto run_start = std::chrono::steady_clock::now();
  const auto seconds_so_far = [&run_start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  };
  const std::string& input = arguments.input;
  const std::string& output = arguments.output;
  const MaskSource& source = arguments.source;
  FilterOptions filter = arguments.filter;
  // A failed write had waited, unsaid, for a stalled pipe at IN to bring more (a review).
  filter.stream.on_failure = stall_guard("filter");
  const bool quiet = arguments.quiet;

  audio::check_output_is_no_folder(output);  // exit 1 (it had been 2, a command-line mistake: a QA pass)
  audio::check_output_descriptor(output);
  try {  // before any work: the input is read, the mask designed, only for an output that can be
    audio::check_output_name(output, filter.container);
    audio::check_output_subtype(output, filter.container, filter.subtype);
  } catch (const audio::Error& error) {
    throw UsageError(error.what());
  }
  audio::check_output_pipe(output, filter.container);
  // The mask's file is an input too: `--mask m.txt` with OUT m.txt would replace it.
  if (source.kind != MaskSource::Kind::designed) audio::refuse_overwriting_input(source.path, output, file_role(source));
  FilterJob job(input, output, arguments.raw);
  const double mask_start_s = seconds_so_far();
  filters::MaskSet masks;
  if (source.kind == MaskSource::Kind::designed) {  // designed here: measured, for a mask with no edge
    const filters::Designed design = design_for(source, job.input_format().rate_hz);
    masks = {design.mask};
    const filters::DesignReport measured = filters::measure(design.mask, design.spec);
    if (const std::string warning = filters::missing_edge_warning(design.spec, measured); !warning.empty())
      notice("warning: " + warning);
    // A goal with no edge to judge it at does nothing: said, as design's report says it (filter
    // had taken --ripple without a word, a QA pass).
    if (!measured.spec_given && measured.target_ripple_db > 0)
      notice("warning: --ripple not judged: no --transition, so no band edge to judge it at (the mask is the " +
             std::to_string(measured.taps) + "-tap window design)");
    // design exits 3 for a spec it misses; filter goes on (the mask is close, and the audio is
    // what was asked for), but says so: it had filtered with 78.9 dB for 80 asked, silently.
    // An even length centred keeps half a sample of delay (its centre falls between two taps):
    // a 2-way crossover of a 604-tap low-pass (kaiserord's length) and a 605-tap high-pass had
    // summed 30 dB from its input, with nothing said (a QA pass). Said; an odd --taps has none.
    const bool centred = !design.mask.causal && !(arguments.align_given && filter.stream.alignment == Alignment::causal);
    if (design.mask.taps.size() % 2 == 0 && centred && !quiet)
      notice("note: " + std::to_string(design.mask.taps.size()) +
             " taps, an even length: the output lags the input by half a sample (--taps " +
             std::to_string(design.mask.taps.size() + 1) + " has no such lag)");
    if (measured.spec_given && !measured.met)
      notice("warning: the spec is not met: " + filters::judged_goals(measured) +
             (design.spec.method == filters::Method::window
                  ? " (kaiserord's length is an estimate: --method kaiser gives the shortest mask that meets it)"
                  : ""));
  } else {
    masks = masks_for(source, job.input_format().rate_hz);
  }
  if (!arguments.align_given)
    filter.stream.alignment = centred_by_default(source, masks) ? Alignment::centred : Alignment::causal;
  const double mask_s = seconds_so_far() - mask_start_s;
  // Warnings are about the result, so --quiet (which hides the summary and the bar) keeps them.
  warn_of_another_rate(masks, job.input_format().rate_hz, input + " is at", source);

  FilterReport report;
  {  // the bar erases itself before the summary prints
    ProgressBar progress(job.input_format().frames > 0 ? static_cast<std::uint64_t>(job.input_format().frames) : 0,
                         job.input_format().rate_hz, !quiet);
    report = job.run(masks, filter, [&](std::uint64_t frames) { progress.update(frames); }, interruption());
  }

  const double wall_s = seconds_so_far();
  if (const std::string line = sample_report(report.stream, report.engine); !line.empty()) notice(line);
  if (!report.output_note.empty()) notice(report.output_note);
  const std::string damage = report.input_damage.empty() ? "" : " (" + report.input_damage + ")";
  // --accept-short. A decoder that lost sync (FLAC) cannot tell a cut end from damage inside:
  // "truncated" had named a file damaged mid-stream.
  if (report.stream.declared_frames > static_cast<std::int64_t>(report.stream.frames_in))
    notice("warning: " + input + (damage.empty() ? " is truncated" : " is cut short or damaged" + damage) + ": its header declares " +
           std::to_string(report.stream.declared_frames) + " frames, " + std::to_string(report.stream.frames_in) +
           " were read and filtered");
  else if (!damage.empty())  // no declared length to fall short of (a pipe)
    notice("warning: " + input + " ended early" + damage + ": " + std::to_string(report.stream.frames_in) +
           " frames were read and filtered");
  // A pipe cannot be checked before the end, and a stream may be cut on purpose: a warning.
  if (report.input_streamed_declared_frames > static_cast<std::int64_t>(report.stream.frames_in))
    notice("warning: " + audio::input_name(input) + " ended after " +
           std::to_string(report.stream.frames_in) + " frames, before the " +
           std::to_string(report.input_streamed_declared_frames) +
           " its header declares: the stream was cut short; what came was filtered");
  if (!report.input_partial_frame_note.empty()) notice("warning: " + report.input_partial_frame_note);
  // Known once an engine planned its FFTs, so after the run too, with the other warnings and
  // before the summary (it had come after it).
  if (const std::string problem = fftw::wisdom_problem(); !problem.empty()) notice("warning: " + problem);
  // --threads sizes cpu-fft's pool; an engine without one had taken it without a word.
  if (filter.engine_options.cpu_threads > 0 && report.engine.name.find("cpu-fft") == std::string::npos)
    notice("warning: --threads is for cpu-fft's threads: engine " + report.engine.name + " does not use it");
  // And --block sizes the textbook CUDA kernels' blocks only (a QA pass: taken silently by the rest).
  const auto uses_block = [&] {
    for (const char* name : {"cuda-basic", "cuda-constant", "cuda-tiled", "cuda-cached"})
      if (report.engine.name.find(name) != std::string::npos) return true;
    return false;
  };
  if (arguments.block_given && !uses_block())
    notice("warning: --block is for the blocks of cuda-basic, cuda-constant, cuda-tiled and cuda-cached: engine " +
           report.engine.name + " does not use it");
  // A warning: --norm of a silent output scales nothing (it had said nothing).
  if (filter.write.norm_peak > 0 && report.norm_found_silence)
    notice("warning: the output is silent: --norm had no peak to scale to");
  if (filter.write.norm_peak > 0 && report.norm_found_noise) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "warning: the output's peak, %.1f dB below what IN's own peak reaches through the mask, is float32 "
                  "rounding, not signal: --norm left it as it is",
                  20 * std::log10(report.norm_noise_reference / report.norm_noise_peak));
    notice(line);
  }
  if (!quiet) {
    // After the run, not before: a failed run says one line, the error.
    notice(engine_notice(report));
    // The gain applied, where one was: --gain's, or the one --norm found (the summary had been
    // the same with or without them, a QA pass).
    char gain[96] = "";
    if (filter.write.norm_peak > 0 && !report.norm_found_silence && !report.norm_found_noise)
      std::snprintf(gain, sizeof gain, "; gain %+.2f dB (--norm)", 20 * std::log10(report.norm_gain));
    else if (filter.stream.gain != 1.0f)
      std::snprintf(gain, sizeof gain, "; gain %+.2f dB", 20 * std::log10(static_cast<double>(filter.stream.gain)));
    char line[640];
    std::snprintf(line, sizeof line, "%s -> %s: %s %s, %d Hz, %d ch, %llu frames in, %llu out; %s%s; %.3f s",
                  input.c_str(), output.c_str(), audio::container_name(report.output.container).c_str(),
                  audio::subtype_name(report.output.subtype).c_str(), report.output.rate_hz, report.output.channels,
                  static_cast<unsigned long long>(report.stream.frames_in),
                  static_cast<unsigned long long>(report.stream.frames_out),
                  describe_masks(masks).c_str(), gain, wall_s);
    notice(line);
  }
  if (arguments.timings) {
    const auto& t = report.stream.timings;
    char line[512];
    std::snprintf(line, sizeof line,
                  "timings: mask %.3f s, engine start %.3f s (waited %.3f s), read %.3f s, engine %.3f s, write %.3f s, "
                  "wall %.3f s (the stream %.3f s)",
                  mask_s, report.engine_start_s, t.engine_wait_s, t.read_s, t.process_s, t.write_s, wall_s, t.wall_s);
    std::string text = line;
    if (!report.engine_time_breakdown.empty()) {
      text += "; inside the engine:";
      for (const auto& [part, seconds] : report.engine_time_breakdown) {
        std::snprintf(line, sizeof line, " %s %.3f s,", part.c_str(), seconds);
        text += line;
      }
      text.pop_back();
    }
    if (report.handover) {
      const HandoverReport& handover = *report.handover;
      std::snprintf(line, sizeof line, "; hand-over: %llu frames on %s, %s %s",
                    static_cast<unsigned long long>(handover.first_frames), handover.first.c_str(),
                    handover.second.c_str(), handover.handed_over ? "the rest" : "none");
      text += line;
      if (handover.second_ready) {
        std::snprintf(line, sizeof line, " (ready after %.3f s)", handover.second_start_s);
        text += line;
      } else if (!handover.second_failure.empty()) {
        text += " (" + handover.second_failure + ")";
      } else {
        text += " (still starting)";
      }
    }
    if (const fftw::PlanCounts plans = fftw::plan_counts(); plans.from_wisdom + plans.estimated > 0) {
      std::snprintf(line, sizeof line, "; FFTW plans: %d measured (wisdom), %d estimated", plans.from_wisdom,
                    plans.estimated);
      text += line;
    }
    notice(text);
  }
  return 0;
}

}  // namespace halo::cli
