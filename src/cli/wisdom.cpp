// halo wisdom: measures the FFTs the CPU engines run and saves FFTW's wisdom, so that every
// later run plans them as measured at once (src/engine/fftw_wisdom.hpp says why).
#include <cstdio>
#include <cxxopts.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "audio/atomic_file.hpp"
#include "audio/error.hpp"
#include "audio/standard_streams.hpp"
#include "src/cli/command.hpp"
#include "src/cli/number_parser.hpp"
#include "src/engine/fft_size.hpp"
#include "src/engine/fftw_wisdom.hpp"
#include "src/engine/partition_plan.hpp"
#include "src/engine/process_spec.hpp"

namespace halo::cli {
namespace {

// For each mask length, cpu-fft's transform (packed) and cpu-partitioned's (r2c; twice each
// level's partition), as those engines choose them.
std::vector<fftw::WisdomLength> lengths_for(const std::vector<long long>& taps) {
  std::set<fftw::WisdomLength> lengths;
  for (const long long m : taps) {
    lengths.insert({static_cast<int>(fft_frames_for(static_cast<std::size_t>(m))), fftw::RealTransform::packed});
    for (const PartitionLevel& level : plan_partitions(static_cast<std::size_t>(m)).levels)
      lengths.insert({static_cast<int>(2 * level.partition_frames), fftw::RealTransform::r2c});
  }
  return {lengths.begin(), lengths.end()};
}

}  // namespace

int wisdom_command(int argc, char** argv) {
  cxxopts::Options options("halo wisdom",
                           "Measure the FFTs the CPU engines run here and save FFTW's wisdom: later runs of filter, play\n"
                           "and live plan them as measured, at once. Seconds to minutes, once per machine.\n"
                           "  halo wisdom [--taps N[,N...]] [--patient] [--file PATH] [-q]");
  options.add_options()("h,help", "this help")(
      "taps", "mask lengths to measure cpu-fft's FFT for (default 255,1023,4095,16383,65535): a comma list, or repeated",
      cxxopts::value<std::vector<std::string>>())("patient", "FFTW_PATIENT: longer to measure, sometimes faster plans")(
      "file", "where to save (default: $HALO_FFTW_WISDOM, else $XDG_CACHE_HOME/halo/fftw-wisdom-float, else ~/.cache/halo/...)",
      cxxopts::value<std::string>())("q,quiet", "no line per length");
  const auto parsed = parse_strictly(options, argc, argv);
  if (parsed.count("help")) {
    audio::print_to_standard_output(options.help() + "\n");
    return 0;
  }
  refuse_repeats(parsed, {"taps", "quiet", "patient", "help"});
  refuse_misplaced_values(parsed);
  // `--taps 255 1023` leaves a stray 1023, which had been "not an option" (a QA pass).
  if (!parsed.unmatched().empty()) {
    const std::string& stray = parsed.unmatched().front();
    bool a_length = parsed.count("taps") > 0;  // a length as --taps reads one ("1023", "1k")
    try {
      if (a_length) parse_count("--taps", stray, 1, static_cast<long long>(ProcessSpec::max_mask_frames_limit));
    } catch (const UsageError&) {
      a_length = false;
    }
    throw UsageError("wisdom: '" + stray + "' is " +
                     (a_length ? "a stray word; give several lengths as --taps 255,1023 or --taps 255 --taps 1023"
                               : "not an option (halo wisdom takes no file names; see halo wisdom --help)"));
  }
  // cxxopts drops an empty item at a list's end ("--taps 255," had been taken for 255, where
  // "--taps ''" is refused, a QA pass): a list is refused with its empty item wherever it is.
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const bool joined = word.rfind("--taps=", 0) == 0;
    if (word != "--taps" && !joined) continue;
    const std::string list = joined ? word.substr(7) : i + 1 < argc ? argv[i + 1] : "";
    if (!list.empty() && (list.front() == ',' || list.back() == ',' || list.find(",,") != std::string::npos))
      throw UsageError("--taps " + list + ": an empty item in the list (give lengths as 255,1023)");
  }
  std::vector<long long> taps = {255, 1023, 4095, 16383, 65535};
  if (parsed.count("taps")) {
    taps.clear();
    for (const auto& text : parsed["taps"].as<std::vector<std::string>>())
      taps.push_back(parse_count("--taps", text, 1, static_cast<long long>(ProcessSpec::max_mask_frames_limit)));
  }
  const std::filesystem::path file = parsed.count("file") ? std::filesystem::path(parsed["file"].as<std::string>())
                                                          : fftw::wisdom_path();
  if (file.empty())
    throw UsageError(parsed.count("file") ? "--file: an empty name: name the file to keep the wisdom in"
                                          : "wisdom: nowhere to save (HALO_FFTW_WISDOM is set but empty, or there is no HOME): "
                                            "name a --file");
  // `-` is standard output everywhere else in halo; wisdom is a file FFTW reads back by name, so
  // it is refused rather than written as a file named "-" (a QA pass).
  if (parsed.count("file") && file == "-")
    throw UsageError("--file -: wisdom is kept in a file that halo reads back by name: name one");
  const bool quiet = parsed.count("quiet") > 0;

  // The file first (its directory made, its temporary opened), so a place that cannot be
  // written is said before minutes of measuring; an error or Ctrl-C leaves the old file.
  // Only the default place's folder (~/.cache/halo) is made: a --file names one that exists.
  std::error_code error;
  // Its own reason where the folder cannot be made (the file's "No such file or directory" named
  // no cause, a QA pass).
  if (!parsed.count("file") && file.has_parent_path() && !std::filesystem::create_directories(file.parent_path(), error) &&
      error)
    throw audio::Error("wisdom: cannot make the folder " + file.parent_path().string() + ": " + error.message());
  // Wisdom is a file: a FIFO or a device there (/dev/null) is no place to keep it.
  if (std::filesystem::exists(file, error) && !std::filesystem::is_regular_file(file, error))
    throw audio::Error("wisdom: " + file.string() + " is not a regular file: name a file to keep the wisdom in");
  audio::AtomicFile out(file.string());
  const fftw::MeasuredWisdom wisdom =
      fftw::measure_wisdom(lengths_for(taps), parsed.count("patient") > 0, file,
                           [&](const fftw::WisdomLength& length, double seconds, bool known) {
        if (quiet) return;
        // Whose transform: a length may be both engines' ("2048-point" had come twice, unnamed).
        const std::string what = std::string(length.form == fftw::RealTransform::packed ? "cpu-fft's " : "cpu-partitioned's ") +
                                 std::to_string(length.points) + "-point FFTs";
        notice("wisdom: " + what + (known ? ": in the wisdom already"
                                          : " measured in " + std::to_string(seconds).substr(0, 5) + " s"));
      });
  if (!wisdom.note.empty()) notice("warning: " + wisdom.note);
  const std::string& text = wisdom.text;
  out.write_all(text.data(), text.size());
  out.commit();
  if (!quiet) notice("wisdom: saved to " + file.string());
  return 0;
}

}  // namespace halo::cli
