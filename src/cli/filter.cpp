// halo filter IN OUT (mask options) [--engine E] [--chunk FRAMES] [--tail] ...
#include <cmath>
#include <cstdio>
#include <cxxopts.hpp>

#include "audio/error.hpp"
#include "audio/format.hpp"
#include "src/cli/command.hpp"
#include "src/cli/interrupt.hpp"
#include "src/cli/mask_options.hpp"
#include "src/engine/registry.hpp"
#include "src/offline/filter_job.hpp"
#include "src/cli/progress_bar.hpp"

namespace halo::cli {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : "|") + name;
  return text;
}

constexpr std::size_t max_chunk_frames = std::size_t{1} << 24;

}  // namespace

int filter_command(int argc, char** argv) {
  cxxopts::Options options("halo filter", "Filter a sound file with an FIR mask.\n"
                                          "  halo filter IN OUT (--lowpass F | --highpass F | --bandpass LO:HI | "
                                          "--bandstop LO:HI | --mask FILE | --ir FILE) [options]\n"
                                          "IN and OUT: any format libsndfile reads and writes; - for stdin/stdout.");
  options.positional_help("IN OUT");
  add_mask_options(options);
  options.add_options("Filtering")
      ("engine", join(engine_names()) + " (default auto)", cxxopts::value<std::string>()->default_value("auto"), "E")
      ("block", "threads per block for the seeds' CUDA kernels", cxxopts::value<int>()->default_value("256"), "N")
      ("chunk", "frames per chunk (never changes the result)", cxxopts::value<std::size_t>()->default_value("262144"), "FRAMES")
      ("align", "same (linear-phase delay removed; default) or causal (default for --ir)",
       cxxopts::value<std::string>(), "A")
      ("tail", "add the filter's tail: run to the end of the full convolution")
      ("subtype", "pcm16|pcm24|pcm32|float|double|... (default: the input's)", cxxopts::value<std::string>(), "S")
      ("type", "OUT's container by extension name (wav, flac, au, ...); for - chiefly",
       cxxopts::value<std::string>(), "EXT")
      ("gain", "gain in dB, applied before clipping", cxxopts::value<double>()->default_value("0"), "DB")
      ("timings", "print where the time went")
      ("q,quiet", "print only errors")
      ("h,help", "this help")
      ("files", "", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"files"});
  const auto parsed = options.parse(argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", options.help({"Mask (exactly one)", "Design", "Filtering"}).c_str());
    return 0;
  }
  const auto files = parsed.count("files") ? parsed["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() != 2) throw UsageError("filter needs IN and OUT (see halo filter --help)");
  const std::string& input = files[0];
  const std::string& output = files[1];

  const MaskSource source = parse_mask_options(parsed);
  FilterOptions filter;
  filter.engine = parsed["engine"].as<std::string>();
  try {
    check_engine_name(filter.engine);
  } catch (const Error& error) {
    throw UsageError(std::string("--engine: ") + error.what());
  }
  filter.engine_options.block_threads = parsed["block"].as<int>();
  const int block_threads = filter.engine_options.block_threads;
  if (block_threads < 32 || block_threads > 1024 || block_threads % 32 != 0)
    throw UsageError("--block " + std::to_string(block_threads) + ": give a multiple of 32 from 32 to 1024");
  filter.stream.chunk_frames = parsed["chunk"].as<std::size_t>();
  if (filter.stream.chunk_frames < 1 || filter.stream.chunk_frames > max_chunk_frames)
    throw UsageError("--chunk " + std::to_string(filter.stream.chunk_frames) + ": give 1 to " +
                     std::to_string(max_chunk_frames) + " frames");
  filter.stream.tail = parsed.count("tail") > 0;
  filter.stream.alignment =
      source.kind == MaskSource::Kind::impulse_response ? Alignment::causal : Alignment::centred;
  if (parsed.count("align")) {
    const auto align = parsed["align"].as<std::string>();
    if (align == "same") filter.stream.alignment = Alignment::centred;
    else if (align == "causal") filter.stream.alignment = Alignment::causal;
    else throw UsageError("--align " + align + ": give same or causal");
  }
  const double gain_db = parsed["gain"].as<double>();
  if (!std::isfinite(gain_db) || std::fabs(gain_db) > 200) throw UsageError("--gain: give a level in dB within ±200");
  filter.stream.gain = static_cast<float>(std::pow(10.0, gain_db / 20.0));
  if (parsed.count("subtype")) {
    const std::string subtype = parsed["subtype"].as<std::string>();
    try {
      filter.subtype = audio::parse_subtype(subtype);
    } catch (const audio::Error& error) {
      throw std::runtime_error("--subtype " + std::string(error.what()));
    }
  }
  if (parsed.count("type")) {
    const auto type = parsed["type"].as<std::string>();
    filter.container = audio::container_for_extension("." + type);
    if (filter.container == 0) throw UsageError("--type " + type + ": not a container libsndfile writes");
  }
  const bool quiet = parsed.count("quiet") > 0;

  FilterJob job(input, output);
  const filters::MaskSet masks = masks_for(source, job.input_format().rate_hz);
  for (const auto& mask : masks)
    if (!quiet && mask.rate_hz > 0 && std::fabs(mask.rate_hz - job.input_format().rate_hz) > 0.5)
      notice("warning: the mask was made for " + std::to_string(static_cast<long>(mask.rate_hz)) + " Hz but " +
             input + " is at " + std::to_string(job.input_format().rate_hz) + " Hz");

  FilterReport report;
  {  // the bar erases itself before the summary prints
    ProgressBar progress(job.input_format().frames > 0 ? static_cast<std::uint64_t>(job.input_format().frames) : 0,
                         !quiet);
    report = job.run(masks, filter, [&](std::uint64_t frames) { progress.update(frames); }, interruption());
  }

  if (report.stream.clipped_samples > 0)
    notice("clipped " + std::to_string(report.stream.clipped_samples) + " samples; lower --gain to avoid it");
  if (!quiet) {
    // After the run, not before: a failed run says one line, the error.
    notice("engine " + report.engine.name + " (" + report.engine.reason + ")");
    char line[512];
    std::snprintf(line, sizeof line, "%s -> %s: %s %s, %d Hz, %d ch, %llu frames in, %llu out; %s; %.3f s",
                  input.c_str(), output.c_str(), audio::container_name(report.output.container).c_str(),
                  audio::subtype_name(report.output.subtype).c_str(), report.output.rate_hz, report.output.channels,
                  static_cast<unsigned long long>(report.stream.frames_in),
                  static_cast<unsigned long long>(report.stream.frames_out),
                  masks.front().provenance.c_str(), report.stream.timings.wall_s);
    notice(line);
  }
  if (parsed.count("timings")) {
    const auto& t = report.stream.timings;
    char line[512];
    std::snprintf(line, sizeof line,
                  "timings: engine start %.3f s (waited %.3f s), read %.3f s, engine %.3f s, write %.3f s, wall %.3f s",
                  report.engine_start_s, t.engine_wait_s, t.read_s, t.process_s, t.write_s, t.wall_s);
    std::string text = line;
    if (!report.engine_time_breakdown.empty()) {
      text += "; inside the engine:";
      for (const auto& [part, seconds] : report.engine_time_breakdown) {
        std::snprintf(line, sizeof line, " %s %.3f s,", part.c_str(), seconds);
        text += line;
      }
      text.pop_back();
    }
    notice(text);
  }
  return 0;
}

}  // namespace halo::cli
