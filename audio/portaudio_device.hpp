#pragma once
#include <portaudio.h>

#include <string>
#include <vector>

namespace halo::audio {

// One PortAudio device as `halo devices` lists it.
struct DeviceInfo {
  int index = -1;
  std::string name;
  std::string host_api;
  // JACK's host in PortAudio takes any buffer size the server gives (its buffer processor then
  // adds a buffer of latency to a full-duplex stream of fixed buffers: session.cpp says why that matters).
  bool jack = false;
  int max_input_channels = 0;
  int max_output_channels = 0;
  double default_rate_hz = 0;
  double low_input_latency_s = 0, high_input_latency_s = 0;
  double low_output_latency_s = 0, high_output_latency_s = 0;
  bool default_input = false;   // the default input of the default host API
  bool default_output = false;
};

// PortAudio, initialised for the lifetime of this object (Pa_Initialize / Pa_Terminate).
// Initialising probes every host API; their libraries print to stderr (ALSA's "unknown PCM"
// lines on a machine without sound cards, JACK's "cannot connect" without a server), so the
// probe runs with stderr pointed at /dev/null and halo says what matters itself. A JACK
// server is never started on the side (JACK_NO_START_SERVER), and halo's JACK client is named
// `client_name` (its ports: client_name:out_0, :in_0, ...).
class PortAudio {
 public:
  explicit PortAudio(const std::string& client_name = "halo");
  ~PortAudio();
  PortAudio(const PortAudio&) = delete;
  PortAudio& operator=(const PortAudio&) = delete;

  std::vector<DeviceInfo> devices() const;
  // A device by index ("3") or by name (exact, else the one device whose name contains it);
  // "" is the default. `output`: the device must have outputs (else inputs). Throws
  // audio::Error naming what was asked for and what there is.
  DeviceInfo find(const std::string& which, bool output) const;
};

// An open PortAudio stream (RAII for PaStream*): float32 interleaved, full duplex, input or
// output only. The callback runs on the host's audio thread.
struct StreamRequest {
  int input_device = -1;    // -1: no input
  int output_device = -1;   // -1: no output
  int input_channels = 0;
  int output_channels = 0;
  double rate_hz = 0;
  unsigned long frames_per_buffer = 0;  // the period; 0: the host's choice
};

class DeviceStream {
 public:
  // Checks the format first (Pa_IsFormatSupported) and throws audio::Error with PortAudio's
  // reason and the device's name.
  DeviceStream(const StreamRequest& request, PaStreamCallback* callback, void* user);
  ~DeviceStream();
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;

  void start();
  // Waits for the last callback to return, at most stop_grace_seconds: a host that stopped
  // calling back (its server died or stalled) leaves the stream abandoned, open.
  void stop() noexcept;
  static constexpr int stop_grace_seconds = 2;
  bool abandoned() const { return abandoned_; }
  bool active() const;
  double input_latency_s() const;   // as PortAudio reports it (Pa_GetStreamInfo)
  double output_latency_s() const;
  double rate_hz() const;

 private:
  PaStream* stream_ = nullptr;
  bool started_ = false;
  bool abandoned_ = false;  // stop() gave up waiting for the host (nothing of it may be closed)
};

// Whether the device takes this rate with these channels (no exception).
bool rate_supported(const DeviceInfo& device, bool output, int channels, double rate_hz);

// The descriptor that reaches the user's stderr: fd 2, or while PortAudio's own chatter is
// silenced (fd 2 then points at /dev/null) the saved one. Async-signal-safe, for a handler
// that must still be heard when a library aborts inside a silenced call.
int audible_stderr() noexcept;

// Whether this process is inside PortAudio's clean-up (Pa_CloseStream, Pa_Terminate), which
// asserts where the JACK server has gone. Async-signal-safe.
bool portaudio_closing() noexcept;

}  // namespace halo::audio
