// halo info FILE: format, rate, channels, frames, duration and peak of a sound file.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cxxopts.hpp>
#include <vector>

#include "audio/reader.hpp"
#include "src/cli/command.hpp"

namespace halo::cli {

int info_command(int argc, char** argv) {
  cxxopts::Options options("halo info", "Describe a sound file.\n  halo info FILE");
  options.positional_help("FILE");
  options.add_options()("h,help", "this help")("file", "", cxxopts::value<std::vector<std::string>>());
  options.parse_positional({"file"});
  const auto parsed = options.parse(argc, argv);
  if (parsed.count("help")) {
    std::printf("%s\n", options.help().c_str());
    return 0;
  }
  if (!parsed.count("file") || parsed["file"].as<std::vector<std::string>>().size() != 1)
    throw UsageError("info needs one FILE (see halo info --help)");
  const std::string path = parsed["file"].as<std::vector<std::string>>().front();

  audio::Reader reader(path);
  const audio::Format& format = reader.format();
  // The peak needs every sample: read in chunks so memory stays flat.
  constexpr std::size_t chunk_frames = 1 << 15;
  std::vector<float> chunk(chunk_frames * format.channels);
  std::vector<float> channel_peak(format.channels, 0.0f);
  std::uint64_t frames = 0;
  for (std::size_t got; (got = reader.read(chunk.data(), chunk_frames)) > 0;) {
    for (std::size_t i = 0; i < got * format.channels; ++i)
      channel_peak[i % format.channels] = std::max(channel_peak[i % format.channels], std::fabs(chunk[i]));
    frames += got;
  }
  const float peak = *std::max_element(channel_peak.begin(), channel_peak.end());
  auto dbfs = [](float value) { return value > 0 ? 20.0 * std::log10(value) : -INFINITY; };

  std::printf("file:      %s\n", path.c_str());
  std::printf("format:    %s %s\n", audio::container_name(format.container).c_str(),
              audio::subtype_name(format.subtype).c_str());
  std::printf("rate:      %d Hz\n", format.rate_hz);
  std::printf("channels:  %d\n", format.channels);
  std::printf("frames:    %llu\n", static_cast<unsigned long long>(frames));
  std::printf("duration:  %.3f s\n", static_cast<double>(frames) / format.rate_hz);
  std::printf("peak:      %.6f (%.2f dBFS)\n", peak, dbfs(peak));
  if (format.channels > 1)
    for (int c = 0; c < format.channels; ++c)
      std::printf("  ch %-3d   %.6f (%.2f dBFS)\n", c + 1, channel_peak[c], dbfs(channel_peak[c]));
  return 0;
}

}  // namespace halo::cli
