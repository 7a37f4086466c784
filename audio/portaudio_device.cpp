#include "audio/portaudio_device.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <pa_jack.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "audio/error.hpp"

namespace halo::audio {
namespace {

// Holds SIGINT, SIGTERM and SIGHUP back from this thread while PortAudio talks to the audio
// server. JACK's client calls wait on sockets with timeouts, which a signal handler's EINTR
// fails whatever SA_RESTART says, and PortAudio's JACK host asserts when a call fails in its
// clean-up: a Ctrl-C (or live's SIGHUP) 25-45 ms after start aborted halo with no message, or
// stopped live with "Unanticipated host error" (a QA pass). The threads libjack starts
// meanwhile keep this mask, so those signals never land on them later either. A signal sent
// meanwhile is delivered when the call returns (JACK's own timeouts bound how long that is).
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    for (int number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&held, number);
    pthread_sigmask(SIG_BLOCK, &held, &previous_);
  }
  ~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t previous_;
};

std::atomic<int> saved_stderr{-1};  // fd 2 as it was, while a QuietStderr lives; -1 otherwise
std::atomic<bool> closing{false};   // inside Pa_CloseStream or Pa_Terminate
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "read from a signal handler");

// Marks PortAudio's clean-up for an abort handler (portaudio_closing).
class Closing {
 public:
  Closing() { closing.store(true); }
  ~Closing() { closing.store(false); }
  Closing(const Closing&) = delete;
  Closing& operator=(const Closing&) = delete;
};

// Points stderr at /dev/null while it lives.
class QuietStderr {
 public:
  QuietStderr() {
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    saved_stderr.store(saved_);
    if (saved_ >= 0 && null >= 0) dup2(null, STDERR_FILENO);
    if (null >= 0) close(null);
  }
  ~QuietStderr() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      dup2(saved_, STDERR_FILENO);
      saved_stderr.store(-1);
      close(saved_);
    }
  }

 private:
  int saved_ = -1;
};

std::string pa_error(PaError error) { return Pa_GetErrorText(error); }

DeviceInfo describe(int index) {
  const PaDeviceInfo* info = Pa_GetDeviceInfo(index);
  DeviceInfo device;
  device.index = index;
  if (info == nullptr) return device;
  device.name = info->name ? info->name : "";
  if (const PaHostApiInfo* api = Pa_GetHostApiInfo(info->hostApi)) {
    device.host_api = api->name ? api->name : "";
    device.jack = api->type == paJACK;
  }
  device.max_input_channels = info->maxInputChannels;
  device.max_output_channels = info->maxOutputChannels;
  device.default_rate_hz = info->defaultSampleRate;
  device.low_input_latency_s = info->defaultLowInputLatency;
  device.high_input_latency_s = info->defaultHighInputLatency;
  device.low_output_latency_s = info->defaultLowOutputLatency;
  device.high_output_latency_s = info->defaultHighOutputLatency;
  device.default_input = index == Pa_GetDefaultInputDevice();
  device.default_output = index == Pa_GetDefaultOutputDevice();
  return device;
}

std::string device_list(const std::vector<DeviceInfo>& devices, bool output) {
  std::string list;
  for (const auto& device : devices)
    if ((output ? device.max_output_channels : device.max_input_channels) > 0)
      list += (list.empty() ? "" : ", ") + std::to_string(device.index) + " '" + device.name + "'";
  return list.empty() ? "none" : list;
}

// Set once a stream's stop did not return within stop_grace: PortAudio's call then still
// waits on a helper thread, holding PortAudio's state, and nothing more of PortAudio may be
// called (closing the stream or terminating waits the same way).
std::atomic<bool> a_stream_was_abandoned{false};
// Longer than any stop takes while the host calls back (a period or two, milliseconds).
constexpr auto stop_grace = std::chrono::seconds(DeviceStream::stop_grace_seconds);

}  // namespace

PortAudio::PortAudio(const std::string& client_name) {
  setenv("JACK_NO_START_SERVER", "1", 0);
  PaError error;
  {
    SignalsHeld held;
    QuietStderr quiet;
    PaJack_SetClientName(client_name.c_str());
    error = Pa_Initialize();
  }
  if (error != paNoError) throw Error("PortAudio: " + pa_error(error));
}

PortAudio::~PortAudio() {
  if (a_stream_was_abandoned.load()) return;  // Pa_Terminate would wait on that stream too
  SignalsHeld held;
  QuietStderr quiet;
  Closing closing_now;
  Pa_Terminate();
}

std::vector<DeviceInfo> PortAudio::devices() const {
  std::vector<DeviceInfo> all;
  const int count = Pa_GetDeviceCount();
  for (int i = 0; i < count; ++i) all.push_back(describe(i));
  return all;
}

DeviceInfo PortAudio::find(const std::string& which, bool output) const {
  const std::vector<DeviceInfo> all = devices();
  const char* kind = output ? "output" : "input";
  auto channels = [&](const DeviceInfo& device) { return output ? device.max_output_channels : device.max_input_channels; };
  if (which.empty()) {
    const int index = output ? Pa_GetDefaultOutputDevice() : Pa_GetDefaultInputDevice();
    if (index < 0 || index >= static_cast<int>(all.size()) || channels(all[index]) == 0) {
      // A JACK server that runs with no ports of that kind (jackd -C 0 -P 0) is not "not running".
      const PaHostApiIndex jack = Pa_HostApiTypeIdToHostApiIndex(paJACK);
      const bool jack_has_none = jack >= 0 && std::none_of(all.begin(), all.end(), [&](const DeviceInfo& device) {
                                   return Pa_GetDeviceInfo(device.index)->hostApi == jack && channels(device) > 0;
                                 });
      if (jack_has_none)
        throw Error(std::string("no ") + kind + " device: the JACK server runs but offers no " +
                    (output ? "playback" : "capture") + " ports (jack_lsp lists them; halo devices too)");
      throw Error(std::string("no ") + kind + " device (PortAudio finds " +
                  (all.empty() ? std::string("no devices at all") : "no default " + std::string(kind)) +
                  "; is a sound server such as JACK running? halo devices lists them)");
    }
    return all[index];
  }
  const bool numeric = which.find_first_not_of("0123456789") == std::string::npos && which.size() < 9;
  if (numeric) {
    const int index = std::stoi(which);
    if (index >= static_cast<int>(all.size()))
      throw Error(std::string(output ? "--device " : "--input-device ") + which + ": no device with that index (" + kind + " devices: " +
                  device_list(all, output) + ")");
    if (channels(all[index]) == 0)
      throw Error("device " + which + " '" + all[index].name + "' has no " + kind + "s (" + kind + " devices: " +
                  device_list(all, output) + ")");
    return all[index];
  }
  const DeviceInfo* found = nullptr;
  int partial = 0;
  for (const auto& device : all)
    if (device.name == which && channels(device) > 0) return device;
  for (const auto& device : all)
    if (device.name.find(which) != std::string::npos && channels(device) > 0) {
      found = &device;
      ++partial;
    }
  if (partial == 1) return *found;
  throw Error("device '" + which + "': " + (partial > 1 ? "more than one device matches" : "no such device") + " (" +
              kind + " devices: " + device_list(all, output) + ")");
}

bool rate_supported(const DeviceInfo& device, bool output, int channels, double rate_hz) {
  PaStreamParameters parameters{};
  parameters.device = device.index;
  parameters.channelCount = channels;
  parameters.sampleFormat = paFloat32;
  parameters.suggestedLatency = output ? device.low_output_latency_s : device.low_input_latency_s;
  return Pa_IsFormatSupported(output ? nullptr : &parameters, output ? &parameters : nullptr, rate_hz) ==
         paFormatIsSupported;
}

DeviceStream::DeviceStream(const StreamRequest& request, PaStreamCallback* callback, void* user) {
  // float32 interleaved at the device's low latency.
  auto parameters = [](int device, int channels, bool output) {
    PaStreamParameters p{};
    p.device = device;
    p.channelCount = channels;
    p.sampleFormat = paFloat32;
    const PaDeviceInfo* info = Pa_GetDeviceInfo(device);
    p.suggestedLatency = output ? info->defaultLowOutputLatency : info->defaultLowInputLatency;
    return p;
  };
  PaStreamParameters in{}, out{};
  PaStreamParameters* in_parameters = nullptr;
  PaStreamParameters* out_parameters = nullptr;
  if (request.input_device >= 0) {
    in = parameters(request.input_device, request.input_channels, false);
    in_parameters = &in;
  }
  if (request.output_device >= 0) {
    out = parameters(request.output_device, request.output_channels, true);
    out_parameters = &out;
  }
  auto name = [](int index) { return std::string("'") + Pa_GetDeviceInfo(index)->name + "'"; };
  std::string what;
  if (in_parameters) what += "input " + name(in.device) + " (" + std::to_string(in.channelCount) + " ch)";
  if (out_parameters)
    what += (what.empty() ? "" : ", ") + std::string("output ") + name(out.device) + " (" +
            std::to_string(out.channelCount) + " ch)";
  what += " at " + std::to_string(static_cast<long>(request.rate_hz)) + " Hz";
  const PaError supported = Pa_IsFormatSupported(in_parameters, out_parameters, request.rate_hz);
  if (supported != paFormatIsSupported) throw Error(what + ": not supported (" + pa_error(supported) + ")");
  PaError error;
  {
    SignalsHeld held;
    QuietStderr quiet;
    error = Pa_OpenStream(&stream_, in_parameters, out_parameters, request.rate_hz,
                          request.frames_per_buffer == 0 ? paFramesPerBufferUnspecified : request.frames_per_buffer,
                          paClipOff | paDitherOff, callback, user);
  }
  if (error != paNoError) throw Error(what + ": cannot open (" + pa_error(error) + ")");
}

DeviceStream::~DeviceStream() {
  stop();
  SignalsHeld held;
  QuietStderr quiet;  // a server gone meanwhile: PortAudio's complaints (and abort, see cli/interrupt.cpp)
  Closing closing_now;
  if (stream_ != nullptr && !abandoned_) Pa_CloseStream(stream_);
}

void DeviceStream::start() {
  PaError error;
  {
    SignalsHeld held;
    error = Pa_StartStream(stream_);
  }
  if (error != paNoError) throw Error("cannot start the audio stream (" + pa_error(error) + ")");
  started_ = true;
}

void DeviceStream::stop() noexcept {
  if (!started_) return;
  started_ = false;
  // PortAudio's JACK host waits up to ten minutes for the server's next callback to
  // acknowledge a stop: where the server died or stalled, Ctrl-C hung. So the stop runs on a
  // helper thread and gets stop_grace; past that the stream is abandoned, still open.
  try {
    auto stopped = std::make_shared<std::promise<void>>();
    std::future<void> done = stopped->get_future();
    std::thread([stream = stream_, stopped] {
      SignalsHeld held;  // this thread's whole life: the signals go to the waiting one
      Pa_StopStream(stream);
      stopped->set_value();
    }).detach();
    if (done.wait_for(stop_grace) == std::future_status::ready) return;
  } catch (...) {  // no thread to be had: stop here, however long it takes
    SignalsHeld held;
    Pa_StopStream(stream_);
    return;
  }
  abandoned_ = true;
  a_stream_was_abandoned.store(true);
}

bool portaudio_closing() noexcept { return closing.load(); }

int audible_stderr() noexcept {
  const int saved = saved_stderr.load();
  return saved >= 0 ? saved : STDERR_FILENO;
}

bool DeviceStream::active() const { return Pa_IsStreamActive(stream_) == 1; }

double DeviceStream::input_latency_s() const {
  const PaStreamInfo* info = Pa_GetStreamInfo(stream_);
  return info ? info->inputLatency : 0;
}
double DeviceStream::output_latency_s() const {
  const PaStreamInfo* info = Pa_GetStreamInfo(stream_);
  return info ? info->outputLatency : 0;
}
double DeviceStream::rate_hz() const {
  const PaStreamInfo* info = Pa_GetStreamInfo(stream_);
  return info ? info->sampleRate : 0;
}

}  // namespace halo::audio
