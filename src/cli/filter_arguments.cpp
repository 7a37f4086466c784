#include "src/cli/filter_arguments.hpp"

#include <cctype>
#include <cmath>
#include <cxxopts.hpp>
#include <sndfile.h>

#include "audio/error.hpp"
#include "audio/format.hpp"
#include "src/cli/command.hpp"
#include "src/cli/number_parser.hpp"
#include "src/cli/raw_input_options.hpp"
#include "src/engine/registry.hpp"

namespace halo::cli {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : "|") + name;
  return text;
}

constexpr long long max_chunk_frames = 1LL << 24;

cxxopts::Options filter_options() {
  cxxopts::Options options("halo filter", "Filter a sound file with an FIR mask.\n"
                                          "  halo filter IN OUT (--lowpass F | --highpass F | --bandpass LO:HI | "
                                          "--bandstop LO:HI | --bands SPEC | --mask FILE | --ir FILE) [options]\n"
                                          "IN and OUT: any format libsndfile reads and writes; - for stdin/stdout.\n"
                                          "Numbers are decimal (1000, 1.5k, 2e3); each option is given once.\n"
                                          "Everything is computed in float32 (24-bit mantissa): pcm32 and double "
                                          "IN and OUT are not carried exactly.");
  options.positional_help("IN OUT");
  add_mask_options(options);
  options.add_options("Filtering")
      ("engine", join(engine_names()), cxxopts::value<std::string>()->default_value("auto"), "E")
      ("block", "threads per block of the textbook CUDA kernels, cuda-basic to cuda-cached", cxxopts::value<std::string>()->default_value("256"), "N")
      ("threads", "threads of the CPU FFT engine (cpu-fft), 1 to 256 (default: one per core); never changes the "
                  "result", cxxopts::value<std::string>(), "N")
      ("chunk", "frames per engine block (never changes the result; default 262144, for cpu-fft whole multiples of "
                "what gives every thread a block, up to 2^23 samples a buffer); fewer where channels x frames would pass "
                "2^20 samples (4 MiB a buffer); files are read and written 65536 frames or more at a time",
       cxxopts::value<std::string>(), "FRAMES")
      ("align", "same (linear-phase delay removed; default) or causal (default for --ir and --minimum-phase)",
       cxxopts::value<std::string>(), "A")
      ("tail", "add the filter's tail: run to the end of the full convolution")
      ("accept-short", "filter a truncated IN (fewer frames than its header declares) with a warning, "
                       "instead of failing")
      ("subtype", "pcm16|pcm24|pcm32|float|double|... (default: the input's)", cxxopts::value<std::string>(), "S")
      ("type", "OUT's container by extension name (wav, flac, au, ...); for - chiefly",
       cxxopts::value<std::string>(), "EXT")
      ("gain", "gain in dB, applied before clipping", cxxopts::value<std::string>()->default_value("0"), "DB")
      ("norm", "normalise OUT's peak to DB dBFS (--norm alone: -1); a second pass over a float32 copy "
               "of OUT spooled in $TMPDIR, so it works for pipes too", cxxopts::value<std::string>()->implicit_value("-1"),
       "DB")
      ("no-dither", "round pcm16/pcm8 OUT without the default TPDF dither (±1 LSB, fixed seed: reproducible)")
      ("timings", "print where the time went");
  add_raw_input_options(options, "IN");
  options.add_options("Filtering")
      ("q,quiet", "no progress bar or summary; errors and warnings still print")
      ("h,help", "this help")
      ("files", "", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"files"});
  return options;
}

// `--norm` alone means -1 dBFS (an implicit value), so cxxopts takes `--norm -3` for --norm
// and an option -3 ("Option '3' does not exist"), and `--norm 0` for --norm and a third file
// name; a number in the next word is its level (`--norm=0` for a file named 0, were there one),
// "-1e1" and "-inf" too (the second refused as a level), which cxxopts had read as options.
std::vector<std::string> with_norm_levels_joined(int argc, char** argv) {
  std::vector<std::string> words(argv, argv + argc);
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "--") break;
    if (words[i] == "--norm" && looks_like_level(words[i + 1])) {
      words[i] = "--norm=" + words[i + 1];
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    }
  }
  return words;
}

cxxopts::ParseResult parse(cxxopts::Options& options, int argc, char** argv) {
  std::vector<std::string> words = with_norm_levels_joined(argc, argv);
  std::vector<const char*> pointers;
  for (const std::string& word : words) pointers.push_back(word.c_str());
  try {
    return parse_strictly(options, static_cast<int>(pointers.size()), pointers.data());
  } catch (const cxxopts::exceptions::exception& error) {
    throw UsageError(option_error("filter", error.what()));
  }
}


}  // namespace

FilterArguments parse_filter_arguments(int argc, char** argv) {
  cxxopts::Options options = filter_options();
  const auto parsed = parse(options, argc, argv);
  FilterArguments arguments;
  if (parsed.count("help")) {
    arguments.help = true;
    arguments.help_text = options.help({"Mask (exactly one)", "Design", "Filtering", "Raw input"});
    return arguments;
  }
  refuse_repeats(parsed, {"files", "tail", "timings", "quiet", "help", "no-dither", "accept-short", "minimum-phase"});
  refuse_misplaced_values(parsed);
  const auto files = parsed.count("files") ? parsed["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() > 2) throw UsageError("filter takes one IN and one OUT: '" + files[2] + "' is a third file name");
  if (files.size() != 2) throw UsageError("filter needs IN and OUT (see halo filter --help)");
  arguments.input = files[0];
  arguments.output = files[1];
  if (arguments.input.empty()) throw UsageError("filter: an empty IN name (- reads standard input)");  // not ": No such file"

  arguments.source = parse_mask_options(parsed);
  if (arguments.input == "-" && reads_standard_input(arguments.source))
    throw UsageError("IN and " + std::string(arguments.source.kind == MaskSource::Kind::impulse_response ? "--ir" : "--mask") +
                     " both read standard input: give one of them a file");
  FilterOptions& filter = arguments.filter;
  filter.engine = parsed["engine"].as<std::string>();
  try {
    check_engine_name(filter.engine);
  } catch (const std::exception& error) {
    throw UsageError(std::string("--engine: ") + error.what());
  }
  const long long block_threads = parse_count("--block", parsed["block"].as<std::string>(), 32, 1024);
  if (block_threads % 32 != 0)
    throw UsageError("--block " + std::to_string(block_threads) + ": give a multiple of 32 from 32 to 1024");
  filter.engine_options.block_threads = static_cast<int>(block_threads);
  arguments.block_given = parsed.count("block") > 0;
  if (parsed.count("threads"))
    filter.engine_options.cpu_threads =
        static_cast<int>(parse_count("--threads", parsed["threads"].as<std::string>(), 1, 256));
  if (parsed.count("chunk"))
    filter.stream.chunk_frames =
        static_cast<std::size_t>(parse_count("--chunk", parsed["chunk"].as<std::string>(), 1, max_chunk_frames));
  filter.stream.tail = parsed.count("tail") > 0;
  filter.stream.accept_short = parsed.count("accept-short") > 0;
  arguments.align_given = parsed.count("align") > 0;
  if (arguments.align_given) {
    const auto align = parsed["align"].as<std::string>();
    if (align == "same") filter.stream.alignment = Alignment::centred;
    else if (align == "causal") filter.stream.alignment = Alignment::causal;
    else throw UsageError("--align " + align + ": give same or causal");
  }
  const std::string gain_text = parsed["gain"].as<std::string>();
  const double gain_db = parse_db("--gain", gain_text);
  if (std::fabs(gain_db) > 200) throw UsageError("--gain " + gain_text + ": give a level in dB within ±200");
  filter.stream.gain = static_cast<float>(std::pow(10.0, gain_db / 20.0));
  if (parsed.count("subtype")) {
    const std::string subtype = parsed["subtype"].as<std::string>();
    try {
      filter.subtype = audio::parse_subtype(subtype);
    } catch (const audio::Error& error) {
      throw UsageError("--subtype " + std::string(error.what()));
    }
  }
  if (parsed.count("type")) {
    const auto type = parsed["type"].as<std::string>();
    filter.container = audio::container_for_extension("." + type);
    if (filter.container == 0) throw UsageError("--type " + type + ": not a container libsndfile writes");
    // --type opus names the codec as an .opus name does (the container alone is Ogg, Vorbis by default).
    if (filter.subtype == 0 && audio::lower_extension("." + type) == "opus") filter.subtype = SF_FORMAT_OPUS;
  }
  filter.write.dither = parsed.count("no-dither") == 0;
  if (parsed.count("norm")) {
    if (parsed.count("gain")) throw UsageError("--gain and --norm: give one (--norm sets the gain itself)");
    const double norm_db = parse_db("--norm", parsed["norm"].as<std::string>());
    if (norm_db > 0 || norm_db < -200) throw UsageError("--norm " + parsed["norm"].as<std::string>() +
                                                        ": give a peak level in dBFS from -200 to 0");
    filter.write.norm_peak = std::pow(10.0, norm_db / 20.0);
  }
  arguments.raw = parse_raw_input(parsed);
  arguments.quiet = parsed.count("quiet") > 0;
  arguments.timings = parsed.count("timings") > 0;
  return arguments;
}

}  // namespace halo::cli
