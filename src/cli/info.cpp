// halo info FILE [--json]: format, rate, channels, frames, duration and peak of a sound file.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cxxopts.hpp>
#include <nlohmann/json.hpp>
#include <vector>

#include "audio/json_text.hpp"
#include "audio/reader.hpp"
#include "audio/standard_streams.hpp"
#include "src/cli/command.hpp"
#include "src/cli/number_parser.hpp"

namespace halo::cli {

int info_command(int argc, char** argv) {
  cxxopts::Options options("halo info", "Describe a sound file.\n  halo info FILE [--json]");
  options.positional_help("FILE");
  options.add_options()("h,help", "this help")("json", "the same figures as JSON, for scripts (NaN and +-inf as null)")(
      "files", "", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"files"});
  const auto parsed = parse_strictly(options, argc, argv);
  refuse_misplaced_values(parsed);
  if (parsed.count("help")) {
    audio::print_to_standard_output(options.help() + "\n");
    return 0;
  }
  const std::vector<std::string> files = parsed.count("files") ? parsed["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() > 1) throw UsageError("info takes one FILE: '" + files[1] + "' is a second file name");  // as filter and ir say
  if (files.size() != 1) throw UsageError("info needs one FILE (see halo info --help)");
  const std::string path = files.front();
  if (path.empty()) throw UsageError("info: an empty FILE name");  // not ": No such file or directory"

  audio::Reader reader(path);
  reader.stop_at_damage(true);  // a damaged file: describe the frames before the damage, and it
  const audio::Format& format = reader.format();
  // The peak needs every sample: read in chunks so memory stays flat.
  constexpr std::size_t chunk_frames = 1 << 15;
  std::vector<float> chunk(chunk_frames * format.channels);
  // A NaN makes its channel's peak NaN (it is not skipped, as std::max would); an Inf, Inf.
  std::vector<float> channel_peak(format.channels, 0.0f);
  std::vector<std::uint64_t> channel_nans(format.channels, 0), channel_infinities(format.channels, 0);
  std::uint64_t frames = 0;
  for (std::size_t got; (got = reader.read(chunk.data(), chunk_frames)) > 0;) {
    for (std::size_t i = 0; i < got * format.channels; ++i) {
      float& peak = channel_peak[i % format.channels];
      const float magnitude = std::fabs(chunk[i]);
      if (std::isnan(magnitude)) ++channel_nans[i % format.channels];
      if (std::isinf(magnitude)) ++channel_infinities[i % format.channels];
      if (std::isnan(magnitude) || std::isnan(peak)) peak = NAN;
      else peak = std::max(peak, magnitude);
    }
    frames += got;
  }
  // What the header declares: a file's, or on a pipe a WAV's or AIFF's (as filter and play
  // warn of both: info had said nothing of a cut WAV on standard input, a QA pass).
  const std::int64_t declared = reader.header_frames();
  std::uint64_t nans = 0, infinities = 0;
  for (int c = 0; c < format.channels; ++c) {
    nans += channel_nans[c];
    infinities += channel_infinities[c];
  }
  float peak = 0;
  for (float value : channel_peak) peak = std::isnan(value) || std::isnan(peak) ? NAN : std::max(peak, value);
  auto dbfs = [](float value) { return std::isnan(value) ? NAN : value > 0 ? 20.0 * std::log10(value) : -INFINITY; };

  if (parsed.count("json")) {
    // JSON has no NaN or infinity: null stands for them (a silent file's -inf dBFS, a NaN peak).
    const auto number = [](double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); };
    nlohmann::ordered_json j;
    j["file"] = path;
    j["container"] = audio::container_name(format.container);
    j["subtype"] = audio::subtype_name(format.subtype);
    j["rate_hz"] = format.rate_hz;
    j["channels"] = format.channels;
    j["frames"] = frames;
    if (declared > static_cast<std::int64_t>(frames)) j["declared_frames"] = declared;
    j["duration_s"] = static_cast<double>(frames) / format.rate_hz;
    j["peak"] = number(peak);
    j["peak_dbfs"] = number(dbfs(peak));
    nlohmann::ordered_json channels = nlohmann::ordered_json::array();
    for (int c = 0; c < format.channels; ++c)
      channels.push_back({{"peak", number(channel_peak[c])},
                          {"peak_dbfs", number(dbfs(channel_peak[c]))},
                          {"nan_samples", channel_nans[c]},
                          {"inf_samples", channel_infinities[c]}});
    j["channel"] = channels;
    j["nan_samples"] = nans;
    j["inf_samples"] = infinities;
    if (!reader.damage().empty()) j["damage"] = reader.damage();
    std::printf("%s\n", audio::json_text(j, 1).c_str());
    return 0;
  }

  std::printf("file:      %s\n", path.c_str());
  std::printf("format:    %s %s\n", audio::container_name(format.container).c_str(),
              audio::subtype_name(format.subtype).c_str());
  std::printf("rate:      %d Hz\n", format.rate_hz);
  std::printf("channels:  %d\n", format.channels);
  std::printf("frames:    %llu", static_cast<unsigned long long>(frames));
  // Cut short, or damaged mid-stream (the next line says where): "truncated" only for the first.
  if (declared > static_cast<std::int64_t>(frames))
    std::printf(" (%sthe header declares %lld)", reader.damage().empty() ? "truncated: " : "",
                static_cast<long long>(declared));
  std::printf("\n");
  if (!reader.damage().empty())
    std::printf("damaged:   %s after %llu frames (halo filter --accept-short filters the frames before it)\n",
                reader.damage().c_str(), static_cast<unsigned long long>(frames));
  std::printf("duration:  %.3f s\n", static_cast<double>(frames) / format.rate_hz);
  std::printf("peak:      %.6f (%.2f dBFS)\n", peak, dbfs(peak));
  if (nans + infinities > 0)
    std::printf("non-finite: %llu NaN and %llu Inf samples (halo filter reads them as 0)\n",
                static_cast<unsigned long long>(nans), static_cast<unsigned long long>(infinities));
  if (format.channels > 1)
    for (int c = 0; c < format.channels; ++c)
      std::printf("  ch %-3d   %.6f (%.2f dBFS)\n", c + 1, channel_peak[c], dbfs(channel_peak[c]));
  return 0;
}

}  // namespace halo::cli
