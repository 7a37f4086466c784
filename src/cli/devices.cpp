// halo devices: every PortAudio device, its host API, channels, default rate and latencies.
#include <cstdio>
#include <string>

#include "audio/portaudio_device.hpp"
#include "src/cli/command.hpp"
#include "src/cli/interrupt.hpp"

namespace halo::cli {

int devices_command(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::printf("halo devices: every PortAudio device: index, name, host API, input and output channels, default\n"
                  "rate, low and high latency; * marks the default input (in) and output (out). play and live take\n"
                  "a device by index or name (--device, --input-device).\n");
      return 0;
    }
    throw UsageError("devices takes no arguments: '" + arg + "' (see halo devices --help)");
  }
  keep_a_thread_for_signals();  // PortAudio's start-up holds the signals back from this thread
  audio::PortAudio portaudio;
  const auto devices = portaudio.devices();
  if (devices.empty()) {
    notice("no audio devices (PortAudio finds none: no sound card, and no JACK or PulseAudio server running)");
    return 1;
  }
  std::printf("%5s  %-32s %-28s %4s %4s %9s  %-19s %s\n", "index", "name", "host API", "in", "out", "rate",
              "in latency ms", "out latency ms");  // the last column unpadded: no trailing spaces
  for (const auto& device : devices) {
    std::string mark;
    if (device.default_input) mark += " *in";
    if (device.default_output) mark += " *out";
    char in_latency[32] = "-", out_latency[32] = "-";
    if (device.max_input_channels > 0)
      std::snprintf(in_latency, sizeof in_latency, "%.2f..%.2f", device.low_input_latency_s * 1e3,
                    device.high_input_latency_s * 1e3);
    if (device.max_output_channels > 0)
      std::snprintf(out_latency, sizeof out_latency, "%.2f..%.2f", device.low_output_latency_s * 1e3,
                    device.high_output_latency_s * 1e3);
    char last[64];  // the out latency, padded only where a default mark follows it
    std::snprintf(last, sizeof last, mark.empty() ? "%s" : "%-19s", out_latency);
    std::printf("%5d  %-32s %-28s %4d %4d %9.0f  %-19s %s%s\n", device.index, device.name.c_str(),
                device.host_api.c_str(), device.max_input_channels, device.max_output_channels, device.default_rate_hz,
                in_latency, last, mark.c_str());
  }
  return 0;
}

}  // namespace halo::cli
