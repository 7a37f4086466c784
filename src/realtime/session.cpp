#include "src/realtime/session.hpp"
#include "src/engine/started_thread.hpp"

#include <samplerate.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>

#include "audio/error.hpp"
#include "audio/portaudio_device.hpp"
#include "audio/reader.hpp"
#include "audio/speaker_order.hpp"
#include "src/engine/error.hpp"
#include "src/engine/nonfinite.hpp"
#include "src/engine/tap_set.hpp"
#include "src/realtime/memory_lock.hpp"

namespace halo::realtime {
namespace {

// PortAudio's trampoline. Where the stream takes the host's buffers whole (live on JACK, below),
// a buffer longer than the period is handed on a period at a time, each slice as one callback:
// what PortAudio's buffer processor did, less the buffer of latency it added.
int portaudio_callback(const void* input, void* output, unsigned long frames, const PaStreamCallbackTimeInfo*,
                       PaStreamCallbackFlags flags, void* user) {
  constexpr PaStreamCallbackFlags xrun = paInputUnderflow | paInputOverflow | paOutputUnderflow | paOutputOverflow;
  auto& state = *static_cast<CallbackState*>(user);
  const std::size_t slice = state.slice_frames > 0 ? state.slice_frames : frames;
  const auto* in = static_cast<const float*>(input);
  auto* out = static_cast<float*>(output);
  for (std::size_t done = 0; done < frames;) {
    const std::size_t now = std::min<std::size_t>(slice, frames - done);
    run_callback(state, in != nullptr ? in + done * state.input_channels : nullptr,
                 out + done * state.output_channels, now, done == 0 && (flags & xrun) != 0, done > 0);
    done += now;
  }
  return paContinue;
}

std::string device_label(const audio::DeviceInfo& device) {
  return "'" + device.name + "' (" + device.host_api + ")";
}

std::string ms(double frames, double rate_hz) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f ms", 1000.0 * frames / rate_hz);
  return text;
}

// Live needs an engine whose latency keeps it live: at most this many frames (or 8 periods).
constexpr std::size_t live_latency_limit_frames = 2048;
// The direct CPU engine's budget in real time: multiply-adds per second it may take (about a
// third of what one core of the 2-core development machine does: 27 s for 60 s of stereo
// at 16383 taps is 3.5e9 per second).
constexpr double direct_engine_macs_per_second = 1.2e9;

}  // namespace

// The play side's reader thread: reads the file in chunks, resamples it to the device's rate
// where needed (libsamplerate), and writes the frames into the worker's input ring; at the
// end, it tells the worker how many frames there were (or, with loop, opens the file again).
struct Session::Reader {
  std::string path;
  audio::RawInput raw;  // -t raw: the file's layout
  bool loop = false;
  double ratio = 1;  // device rate / file rate
  int channels = 0;
  FrameRing* ring = nullptr;
  Worker* worker = nullptr;
  std::unique_ptr<audio::Reader> file;
  struct ResamplerDelete {
    void operator()(SRC_STATE* state) const noexcept { src_delete(state); }
  };
  std::unique_ptr<SRC_STATE, ResamplerDelete> resampler;  // null: the file plays at its own rate
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string error, warning;
  std::uint64_t frames_written = 0;
  std::uint64_t frames_resampled_in = 0;  // file frames given to the resampler, every pass of a loop
  // Input samples that were NaN or Inf, zeroed here before the resampler (which had spread one
  // over some 2 ms of sound, each output sample of it then counted: 200 for 2, a QA pass); the
  // worker's own count then finds none in what comes from here. Every pass of a loop.
  std::atomic<std::uint64_t> nonfinite{0};

  ~Reader() {
    stop();
  }
  void stop() {
    stopping.store(true);
    if (thread.joinable()) thread.join();
  }
  // Writes all of `frames` into the ring, waiting while it is full; false when stopping.
  bool push(const float* samples, std::size_t frames) {
    while (frames > 0) {
      const std::size_t written = ring->write(samples, frames);
      samples += written * static_cast<std::size_t>(channels);
      frames -= written;
      frames_written += written;
      if (written > 0) worker->wake();
      if (frames > 0) {
        if (stopping.load()) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    return true;
  }
  void run() {
    try {
      const std::size_t chunk = 4096;
      std::vector<float> in(chunk * channels), out;
      if (resampler != nullptr) out.resize((static_cast<std::size_t>(chunk * ratio) + 64) * channels);
      // A loop of a file no longer than a chunk plays from memory: opened again every pass, a
      // 1-frame file had taken a core in opens and still dropped frames.
      const auto width = static_cast<std::size_t>(channels);
      const auto file_frames = static_cast<std::size_t>(std::max<std::int64_t>(file->format().frames, 0));
      std::vector<float> whole;  // that file's samples; empty otherwise
      std::size_t whole_at = 0;  // the next frame of `whole` a chunk starts at
      if (loop && file_frames > 0 && file_frames <= chunk) {
        whole.resize(file_frames * width);
        if (file->read(whole.data(), file_frames) != file_frames)
          throw audio::Error(audio::input_name(path) + ": read fewer frames than libsndfile counted: no loop to play");
        say_how_the_pass_ended(file_frames);  // its pass never ends below
      }
      for (;;) {
        if (stopping.load()) return;
        if (!whole.empty()) {  // chunk frames of the loop, from where the last chunk ended
          for (std::size_t f = 0; f < chunk; ++f, whole_at = (whole_at + 1) % file_frames)
            std::copy_n(&whole[whole_at * width], width, &in[f * width]);
        }
        const std::size_t got = whole.empty() ? file->read(in.data(), chunk) : chunk;
        if (const std::uint64_t found = zero_nonfinite(in.data(), got * width); found > 0)
          nonfinite.fetch_add(found, std::memory_order_relaxed);
        bool end = got < chunk;
        if (end) say_how_the_pass_ended(frames_read_total + got);
        // A stream whose header counted nothing (or a pipe that ended before a frame) plays
        // nothing: refused, as filter refuses it, rather than a silent summary and exit 0.
        if (end && !looped && frames_read_total + got == 0)
          throw audio::Error(file->no_frames_message());
        frames_read_total += got;
        if (end && loop) {
          looped = true;
          file = std::make_unique<audio::Reader>(path, raw);
          file->stop_at_damage(true);
          frames_read_total = 0;
          end = false;
          if (got == 0 && file->format().frames == 0) throw audio::Error(path + ": no frames to loop");
        }
        if (resampler == nullptr) {
          if (!push(in.data(), got)) return;
        } else {
          // libsamplerate may give a frame more than the file's length at the new rate (120001
          // for 110250 frames at 44.1 -> 48 kHz): no more than round(frames x ratio) go out.
          frames_resampled_in += got;
          const auto length = static_cast<std::uint64_t>(std::llround(static_cast<double>(frames_resampled_in) * ratio));
          SRC_DATA data{};
          data.data_in = in.data();
          data.input_frames = static_cast<long>(got);
          data.src_ratio = ratio;
          data.end_of_input = end ? 1 : 0;
          for (;;) {
            data.data_out = out.data();
            data.output_frames = static_cast<long>(out.size() / channels);
            if (const int code = src_process(resampler.get(), &data); code != 0)
              throw audio::Error(std::string("resampling: ") + src_strerror(code));
            const std::uint64_t room = length > frames_written ? length - frames_written : 0;
            if (!push(out.data(), static_cast<std::size_t>(std::min<std::uint64_t>(data.output_frames_gen, room)))) return;
            data.data_in += data.input_frames_used * channels;
            data.input_frames -= data.input_frames_used;
            if (data.input_frames == 0 && (!end || data.output_frames_gen == 0)) break;
          }
        }
        if (end) {
          worker->end_of_input(frames_written);
          worker->wake();
          return;
        }
      }
    } catch (const std::exception& caught) {
      std::lock_guard<std::mutex> lock(error_mutex);
      error = caught.what();
      failed.store(true);
    }
  }
  // At the end of a pass over the file (once, for a file looped from memory), as filter says
  // them: a header that declares more than the `frames` read (a file's, or on a pipe a WAV's
  // or AIFF's), a raw input's last bytes that make no whole frame (play had said neither of a
  // loop's pass, nor the second at all).
  void say_how_the_pass_ended(std::uint64_t frames) {
    std::string said;
    const std::int64_t declared = file->header_frames();
    const std::string& damage = file->damage();
    const std::string played = loop ? " were read, and played each pass" : " were read and played";
    if (declared > 0 && static_cast<std::int64_t>(frames) < declared)
      said = audio::input_name(path) + (damage.empty() ? " is truncated" : " is cut short or damaged (" + damage + ")") +
             ": its header declares " + std::to_string(declared) + " frames, " + std::to_string(frames) + played;
    else if (!damage.empty())
      said = audio::input_name(path) + " ended early (" + damage + "): " + std::to_string(frames) + " frames" + played;
    if (std::string note = file->partial_frame_note(); !note.empty()) said = std::move(note);
    if (said.empty()) return;
    std::lock_guard<std::mutex> lock(error_mutex);
    warning = std::move(said);
  }
  std::uint64_t frames_read_total = 0;  // frames read in this pass over the file
  bool looped = false;                   // a pass has ended and the file was opened again
};

Session::Session(const SessionOptions& options, MaskSource masks) : options_(options), mask_source_(std::move(masks)) {
  if (options_.period_frames < 1 || options_.period_frames > 8192)
    throw Error("the period must be 1 to 8192 frames");
  callback_ = std::make_unique<CallbackState>();  // first: the voices' engine threads follow its CPU
  // play's FILE before any device: a missing or bad file is named as such (with no device, "no
  // output device" had hidden it, a README QA pass).
  audio::Format file_format;
  if (!options_.live) {
    reader_ = std::make_unique<Reader>();
    reader_->path = options_.file;
    reader_->loop = options_.loop;
    reader_->raw = options_.raw;
    reader_->file = std::make_unique<audio::Reader>(options_.file, options_.raw);
    // A damaged file (a FLAC cut mid-frame) plays what comes before the damage, then says so,
    // as a file cut short does: it had played 256 frames and stopped without its summary (a QA
    // pass).
    reader_->file->stop_at_damage(true);
    file_format = reader_->file->format();
    if (file_format.frames == 0)  // before any device opens
      throw audio::Error(reader_->file->no_frames_message());
  }
  // live at a --rate runs at that rate whatever the device: its mask is made now, before any
  // device opens, so that a spec no mask meets is named whatever the devices are (with no server
  // "no output device" had hidden it, and the exit code had hung on the server: a QA pass), and
  // kept for the run. play's rate waits for the device, which may take IN's or resample it.
  std::optional<MaskEntry> made_before_the_device;
  if (options_.live && options_.rate_hz > 0) made_before_the_device = mask_source_(0, options_.rate_hz);
  portaudio_ = std::make_unique<audio::PortAudio>(options_.client_name);
  const audio::DeviceInfo out_device = portaudio_->find(options_.output_device, true);
  report_.output_device = device_label(out_device);

  audio::DeviceInfo in_device;
  if (options_.live) {
    if (options_.input_device.empty() && out_device.max_input_channels > 0) in_device = out_device;
    else in_device = portaudio_->find(options_.input_device, false);
    report_.input_device = device_label(in_device);
    const int most = std::min(in_device.max_input_channels, out_device.max_output_channels);
    channels_ = options_.channels > 0 ? options_.channels : std::min(2, most);
    if (channels_ > in_device.max_input_channels)
      throw audio::Error("--channels " + std::to_string(channels_) + ": input device " + device_label(in_device) +
                         " has " + std::to_string(in_device.max_input_channels) + " input channels");
    if (channels_ > out_device.max_output_channels)
      throw audio::Error("--channels " + std::to_string(channels_) + ": output device " + device_label(out_device) +
                         " has " + std::to_string(out_device.max_output_channels) + " output channels");
    device_channels_ = channels_;
    rate_hz_ = options_.rate_hz > 0 ? options_.rate_hz : out_device.default_rate_hz;
    if (!audio::rate_supported(out_device, true, channels_, rate_hz_) ||
        !audio::rate_supported(in_device, false, channels_, rate_hz_))
      throw audio::Error("--rate " + std::to_string(static_cast<long>(rate_hz_)) + " Hz with " +
                         std::to_string(channels_) + " channels: not supported by " + device_label(out_device) +
                         " (its default: " + std::to_string(static_cast<long>(out_device.default_rate_hz)) + " Hz)");
    report_.resampled = "no";
  } else {
    channels_ = file_format.channels;
    if (channels_ <= out_device.max_output_channels) device_channels_ = channels_;
    if (channels_ == 1 && out_device.max_output_channels >= 2) device_channels_ = 2;  // mono to both sides
    if (channels_ > out_device.max_output_channels)
      throw audio::Error(options_.file + " has " + std::to_string(channels_) + " channels; output device " +
                         device_label(out_device) + " has " + std::to_string(out_device.max_output_channels) +
                         " (halo maps mono to two channels, and refuses to drop or mix channels)");
    rate_hz_ = file_format.rate_hz;
    report_.resampled = "no";
    if (!audio::rate_supported(out_device, true, device_channels_, rate_hz_)) {
      rate_hz_ = out_device.default_rate_hz;
      if (!audio::rate_supported(out_device, true, device_channels_, rate_hz_))
        throw audio::Error("output device " + device_label(out_device) + " takes neither " +
                           std::to_string(file_format.rate_hz) + " Hz nor its default rate with " +
                           std::to_string(device_channels_) + " channels");
      report_.resampled = std::to_string(file_format.rate_hz) + " -> " + std::to_string(static_cast<long>(rate_hz_)) +
                          " Hz (libsamplerate, sinc medium quality)";
    }
  }
  report_.rate_hz = rate_hz_;
  report_.channels = channels_;
  report_.device_channels = device_channels_;

  // The masks, made at the rate the filtering runs at, and the engine.
  std::vector<MaskEntry> entries;
  entries.push_back(made_before_the_device ? std::move(*made_before_the_device) : mask_source_(0, rate_hz_));
  wanted_label_ = entries.front().label;
  labels_[0] = wanted_label_;
  {
    const TapSet taps = TapSet::from_masks(entries.front().masks, channels_);
    ProcessSpec spec;
    spec.channels = channels_;
    spec.max_block_frames = options_.period_frames;
    spec.max_mask_frames = taps.mask_frames();
    spec.rate_hz = rate_hz_;
    if (options_.live) {
      const std::string requested = options_.engine.empty() ? "cpu-partitioned" : options_.engine;
      report_.engine = choose_engine(requested, taps, spec, 0);
      if (requested == "auto" && engine_entry(report_.engine.name).device == EngineDevice::cpu)
        report_.engine = {"cpu-partitioned", "live: low latency at any mask length"};
      else if (options_.engine.empty())
        report_.engine = {"cpu-partitioned", "live: low latency at any mask length"};
    } else {
      // As build_voice makes it: a voice's engine runs alone, a period at a time, so auto's
      // choice is its CPU engine whatever the file's length. The summary had weighed the file's
      // length and named a GPU engine taking over, or running alone, where the CPU one ran (a
      // review).
      report_.engine = choose_engine(options_.engine.empty() ? "auto" : options_.engine, taps, spec, 0);
      if (!report_.engine.takes_over.empty()) {
        report_.engine.reason = "play runs auto's CPU engine alone, a period at a time (" + report_.engine.takes_over +
                                " takes over only filter's jobs)";
        report_.engine.takes_over.clear();
      }
    }
    engine_name_ = report_.engine.name;
  }

  // Play: every mask's voice lines up on the largest alignment delay + latency, trimmed at
  // the start as filter trims it (one mask: exactly filter's trim).
  std::unique_ptr<Voice> first = build_voice(entries.front(), 0);
  check_realtime_budget(*first, entries.front());
  report_.engine_latency_frames = first->engine().latency_frames();
  if (!options_.live) {
    common_delay_frames_ = first->dry_delay_frames();
    for (int i = 1; i < options_.mask_count; ++i) {
      entries.push_back(mask_source_(i, rate_hz_));
      const std::unique_ptr<Voice> other = build_voice(entries.back(), i);
      check_realtime_budget(*other, entries.back());
      common_delay_frames_ = std::max(common_delay_frames_, other->dry_delay_frames());
    }
    if (options_.mask_count > 1) first = build_voice(entries.front(), 0);  // again, on the common delay
  } else {
    check_live_voice(*first, entries.front());
  }

  const std::size_t period = options_.period_frames;
  slot_ = std::make_unique<EngineSlot>(channels_, period,
                                       std::max<std::size_t>(1, static_cast<std::size_t>(options_.fade_ms * rate_hz_ / 1000.0)));
  if (slot_->offer(std::move(first)) != nullptr) throw Error("internal: the slot refused the first voice");
  stats_ = std::make_unique<PeriodStats>(1e6 * static_cast<double>(period) / rate_hz_, period);
  if (options_.live) {
    // Room for a host that calls back a whole period of its own at once (JACK up to 4096
    // frames, --frames 64: callback.hpp's runs), in and out, with a lead of that length.
    input_ = std::make_unique<FrameRing>(channels_, std::max<std::size_t>(live_ring_frames, 8 * period));
    output_ = std::make_unique<FrameRing>(device_channels_, std::max<std::size_t>(live_ring_frames, 8 * period));
  } else {
    input_ = std::make_unique<FrameRing>(channels_, std::max<std::size_t>(1 << 16, 16 * period));
    output_ = std::make_unique<FrameRing>(device_channels_, std::max<std::size_t>(1 << 13, 8 * period));
  }
  Worker::Config config;
  config.channels = channels_;
  config.output_channels = device_channels_;
  config.block_frames = period;
  config.rate_hz = rate_hz_;
  config.play = !options_.live;
  config.skip_frames = common_delay_frames_;
  config.realtime_priority = options_.realtime_priority;
  config.callback = callback_.get();
  // --worker-cpu any: placed nowhere, but ranked against the callback all the same (play's
  // worker had kept FIFO 60 above it there: a review).
  config.follow_callback = options_.worker_cpu != WorkerCpu::any;
  config.poll = options_.worker_cpu == WorkerCpu::own;
  // A file that names its speakers goes to the device in WAV's order, as filter writes it to a
  // WAV: a 5.1 Ogg (Vorbis's order, FL FC FR ...) had sent its centre to the second channel, which
  // the same file filtered to a WAV first sends to the third.
  if (!options_.live && device_channels_ == channels_) {
    config.speaker_moves = audio::moves_into_wav_order(file_format.channel_map);
    if (!config.speaker_moves.empty())
      report_.speaker_note = "the file's " + std::to_string(channels_) +
                             " channels go to the device in WAV's speaker order (FL FR FC LFE ...), as filter writes them";
  }
  worker_ = std::make_unique<Worker>(config, *slot_, *input_, *output_, *stats_, &callback_->draining);
  callback_->input = options_.live ? input_.get() : nullptr;
  callback_->output = output_.get();
  callback_->wake = worker_->semaphore();
  callback_->keep_latency = options_.live;
  callback_->grow_lead = options_.live && options_.worker_cpu != WorkerCpu::callback;  // callback.hpp says why
  callback_->initial_lead_frames = options_.live ? period : 0;  // start() writes it
  callback_->wait_for_worker = options_.live;
  if (!config.follow_callback) callback_->worker_cpu = CallbackState::worker_anywhere;  // no placing to wait for
  callback_->rate_hz = rate_hz_;

  if (!options_.live) {
    reader_->channels = channels_;
    reader_->ring = input_.get();
    reader_->worker = worker_.get();
    reader_->ratio = rate_hz_ / file_format.rate_hz;
    // Said with the file and both rates, where libsamplerate's own words named neither ("SRC
    // ratio outside [1/256, 256] range", a QA pass).
    if (reader_->ratio > 256 || reader_->ratio < 1.0 / 256) {
      char rates[128];
      std::snprintf(rates, sizeof rates, ": %.10g Hz cannot be resampled to the device's %.10g Hz",
                    static_cast<double>(file_format.rate_hz), static_cast<double>(rate_hz_));
      throw audio::Error(audio::input_name(options_.file) + rates +
                         ": libsamplerate changes a rate by at most 256 times either way");
    }
    if (reader_->ratio != 1.0) {
      int error = 0;
      reader_->resampler.reset(src_new(SRC_SINC_MEDIUM_QUALITY, channels_, &error));
      if (reader_->resampler == nullptr) throw audio::Error(std::string("libsamplerate: ") + src_strerror(error));
    }
  }

  audio::StreamRequest request;
  request.output_device = out_device.index;
  request.output_channels = device_channels_;
  if (options_.live) {
    request.input_device = in_device.index;
    request.input_channels = channels_;
  }
  request.rate_hz = rate_hz_;
  request.frames_per_buffer = static_cast<unsigned long>(period);
  // live on JACK: the server's buffers as they come, sliced into periods by the trampoline.
  // PortAudio's JACK host takes buffers of any size from the server, and its buffer processor
  // gives a full-duplex stream of fixed buffers one buffer of output latency more (pa_process.c:
  // "variable host buffer size, add framesPerUserBuffer latency"): jack_iodelay measured 192
  // frames through live against 64 for a direct loop, where the summary said halo adds 64 (a
  // QA pass). Elsewhere (ALSA's fixed periods) PortAudio adds none for a period that divides
  // the host's.
  if (options_.live && out_device.jack) {
    request.frames_per_buffer = 0;
    callback_->slice_frames = period;
  }
  callback_->input_channels = options_.live ? static_cast<std::size_t>(channels_) : 0;
  callback_->output_channels = static_cast<std::size_t>(device_channels_);
  stream_ = std::make_unique<audio::DeviceStream>(request, portaudio_callback, callback_.get());

  if (options_.live) {
    report_.added_latency_frames = period + report_.engine_latency_frames;
    report_.added_latency_note = "one period of ring + the engine's " + std::to_string(report_.engine_latency_frames);
  } else {
    // A file shorter than the ring (played once) never fills it: "halo adds 8192 frames" had
    // been said of a 100-frame file.
    // As many as the reader sends of it: the length at the device's rate rounded to the nearest
    // (rounded up, it had said a frame more than the file, a QA pass).
    std::size_t ahead = output_->capacity_frames();
    if (!options_.loop && file_format.frames > 0)
      ahead = std::min<std::size_t>(ahead, static_cast<std::size_t>(std::llround(static_cast<double>(file_format.frames) *
                                                                                  rate_hz_ / file_format.rate_hz)));
    report_.added_latency_frames = ahead;
    report_.added_latency_note = "read ahead: the output ring";
  }
}

Session::~Session() {
  try {
    stop();
  } catch (...) {
  }
  // A stream PortAudio would not stop is left open (DeviceStream::abandoned): should its host
  // call back yet, the callback must find what it reaches, so that outlives the session on
  // purpose, the worker's semaphore with it (its thread has stopped). The process is ending.
  if (stream_abandoned()) {
    (void)callback_.release();
    (void)input_.release();
    (void)output_.release();
    (void)worker_.release();
  }
}

std::unique_ptr<Voice> Session::build_voice(const MaskEntry& entry, int index) {
  const TapSet taps = TapSet::from_masks(entry.masks, channels_);
  ProcessSpec spec;
  spec.channels = channels_;
  spec.max_block_frames = options_.period_frames;
  spec.max_mask_frames = taps.mask_frames();
  spec.rate_hz = rate_hz_;
  std::string engine_name = engine_name_;
  if (!options_.live && (options_.engine.empty() || options_.engine == "auto"))
    engine_name = choose_engine("auto", taps, spec, 0).name;  // per mask, as filter chooses
  else
    choose_engine(engine_name, taps, spec, 0);  // throws where the engine does not take this mask
  std::unique_ptr<Engine> engine = make_engine(engine_name);
  engine->prepare(spec);
  engine->set_taps(taps);
  place_engine_threads(*engine, options_.realtime_priority, callback_.get(), options_.worker_cpu == WorkerCpu::callback);
  const std::size_t align = entry.centred ? (taps.mask_frames() - 1) / 2 : 0;
  const std::size_t latency = engine->latency_frames();
  VoiceSetup setup;
  if (options_.live) {
    setup.wet_delay_frames = 0;
    setup.dry_delay_frames = latency + align;
  } else {
    const std::size_t own = latency + align;
    const std::size_t common = std::max(common_delay_frames_, own);
    setup.wet_delay_frames = common - own;
    setup.dry_delay_frames = common;
  }
  setup.engine = std::move(engine);
  setup.label = entry.label;
  setup.mask_index = index;
  return std::make_unique<Voice>(std::move(setup), options_.period_frames);
}

void Session::check_live_voice(Voice& v, const MaskEntry& entry) const {
  const std::size_t latency = v.engine().latency_frames();
  const std::size_t limit = std::max(live_latency_limit_frames, 8 * options_.period_frames);
  const std::size_t taps = v.engine().mask_frames();
  if (latency > limit)
    throw Error("engine " + v.engine().name() + " adds " + std::to_string(latency) + " frames (" +
                ms(static_cast<double>(latency), rate_hz_) + ") of latency with the " + std::to_string(taps) +
                "-tap mask " + entry.label + ": too much for live (at most " + std::to_string(limit) +
                "); cpu-partitioned adds none at any mask length");
}

// play as live: the direct engine cannot keep up with a mask past its budget, however far
// ahead play fills (play had taken 524287 taps on it: a 2-s file took 13 s).
void Session::check_realtime_budget(Voice& v, const MaskEntry& entry) const {
  if (v.engine().name() != "cpu") return;
  const std::size_t taps = v.engine().mask_frames();
  const double macs = static_cast<double>(taps) * channels_ * rate_hz_;
  if (macs > direct_engine_macs_per_second)
    throw Error("a " + std::to_string(taps) + "-tap mask (" + entry.label + ") is too long for real time on engine cpu (" +
                std::to_string(static_cast<long long>(macs / 1e6)) + " M multiply-adds a second); " +
                (options_.live ? "cpu-partitioned" : "cpu-partitioned or cpu-fft") + " holds it");
}

void Session::start() {
  if (started_) return;
  started_ = true;
  if (options_.live) {
    output_->write_silence(options_.period_frames);  // the one period the worker runs behind
    worker_->start();
  } else {
    reader_->thread = started_thread("reading the file", [this] { reader_->run(); });
    worker_->start();
    // Fill ahead before the device asks for the first frame.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (output_->writable_frames() >= options_.period_frames && !worker_->done() && !worker_->failed() &&
           !reader_->failed.load() && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (reader_->failed.load()) {
      std::lock_guard<std::mutex> lock(reader_->error_mutex);
      throw audio::Error(reader_->error);
    }
  }
  memory_lock_problem_ = lock_process_memory();  // engines built, threads started: all mapped now
  stream_->start();
  callbacks_moved_ = std::chrono::steady_clock::now();  // a host may take a while to start: from here
}

bool Session::device_stalled() {
  if (!started_) return false;
  const std::uint64_t callbacks = callback_->callbacks.load(std::memory_order_relaxed);
  const auto now = std::chrono::steady_clock::now();
  if (callbacks != seen_callbacks_) {
    seen_callbacks_ = callbacks;
    callbacks_moved_ = now;
    return false;
  }
  // Before the first callback, a host's start (not JACK's: ALSA or PulseAudio opening a
  // device) is given longer.
  const double limit = callbacks == 0 ? first_callback_seconds : stall_seconds;
  return std::chrono::duration<double>(now - callbacks_moved_).count() > limit;
}

void Session::stop() {
  if (stream_) stream_->stop();
  if (worker_) worker_->stop();
  if (reader_) reader_->stop();
}

bool Session::stream_abandoned() const { return stream_ && stream_->abandoned(); }

void Session::poll() {
  learn_engine_priority_ceiling(*callback_);  // engines' threads stay below the callback's, in every --worker-cpu mode
  if (std::unique_ptr<Voice> retired = slot_->take_retired()) retired.reset();  // off the audio threads
  if (pending_) pending_ = slot_->offer(std::move(pending_));
}

bool Session::finished() const {
  if (worker_->failed()) throw Error(std::string("the engine failed: ") + slot_->failure());
  if (reader_ && reader_->failed.load()) {
    std::lock_guard<std::mutex> lock(reader_->error_mutex);
    throw audio::Error(reader_->error);
  }
  return callback_->finished.load(std::memory_order_acquire);
}

void Session::change_gain_db(int steps) {
  slot_->set_gain_db(std::clamp(slot_->gain_db() + steps, -60, 24));
}

void Session::select_mask(int index) {
  const int count = std::max(1, options_.mask_count);
  index = ((index % count) + count) % count;
  // Back to the mask being heard before the switch away from it was heard (n then p within a
  // long mask's warm-up): the switch is called off, and nothing changes. The voices on their
  // way had played later, one after the other, the status line naming the mask heard before (a
  // QA pass), and a switch from a mask to itself had been counted.
  // Not while a reload of the mask playing is on its way (`live`'s file changed): calling it off
  // would drop the file's new contents, which the watcher reads only once; the selection then
  // reads the file again, as any other does.
  const bool reload_on_its_way = reloaded_at_switch_ == slot_->switches();
  if (slot_->switches() > 0 && index == slot_->current_mask() && labels_.count(index) && !reload_on_its_way) {
    pending_.reset();
    slot_->cancel_switch().reset();
    wanted_mask_ = index;
    wanted_label_ = labels_[index];
    return;
  }
  queue_voice(index, mask_source_(index, rate_hz_));
}

void Session::replace_mask(int index, const MaskEntry& entry) {
  queue_voice(index, entry);
  if (index == slot_->current_mask()) reloaded_at_switch_ = slot_->switches();
}

bool Session::switching() const { return slot_->mask_heard(unplayed_frames()) != wanted_mask_; }

std::uint64_t Session::unplayed_frames() const { return output_ ? output_->readable_frames() : 0; }

void Session::queue_voice(int index, const MaskEntry& entry) {
  std::unique_ptr<Voice> voice = build_voice(entry, index);
  check_realtime_budget(*voice, entry);
  if (options_.live) check_live_voice(*voice, entry);
  wanted_mask_ = index;
  wanted_label_ = entry.label;
  labels_[index] = entry.label;
  pending_ = std::move(voice);  // a voice still pending is replaced (destroyed here, never offered)
  if (started_) memory_lock_problem_ = lock_process_memory();  // the new engine's pages too
  poll();
}

SessionReport Session::report() const {
  SessionReport report = report_;
  report.frames_played = callback_->frames_out.load();
  report.host_underruns = callback_->host_underruns.load();
  report.host_underruns_flagged_later = callback_->host_underruns_flagged_later.load();
  report.underruns = callback_->underruns.load() - report.host_underruns;
  report.underrun_frames = callback_->underrun_frames.load();
  report.overruns = callback_->overruns.load();
  report.host_xruns = callback_->host_xruns.load();
  report.callbacks = callback_->callbacks.load();
  const bool cannot_preempt = options_.worker_cpu == WorkerCpu::callback && callback_->worker_cannot_preempt.load();
  if (const std::uint64_t run = callback_->run_too_long.load(); run > 0)
    report.warning += std::string(report.warning.empty() ? "" : "; ") + "the host calls back in runs of " +
                      std::to_string(run) + " frames, longer than live's rings allow " +
                      (cannot_preempt ? std::string("for a worker without realtime priority above the callback's thread"
                                                    ": expect underruns (give halo realtime priority, or a shorter server period)")
                                      : std::string("with --worker-cpu ") + (options_.worker_cpu == WorkerCpu::own ? "own" : "any") +
                                            ": expect underruns (use the default --worker-cpu callback, or a shorter server period)");
  if (const std::uint64_t grown = callback_->lead_added.load(); grown > 0) {
    report.added_latency_frames += static_cast<std::size_t>(grown);
    report.added_latency_note += " + " + std::to_string(grown) + " grown at the start: the host calls back in runs of " +
                                 std::to_string(callback_->host_run_frames.load()) + " frames, which a worker " +
                                 (cannot_preempt ? "without realtime priority above the callback's thread"
                                                 : "away from the callback's CPU") +
                                 " cannot answer between";
  }
  if (options_.live) {
    report.silent_start_frames = callback_->silent_start_frames.load();
    report.silent_start_note = callback_->opened_without_worker.load()
                                   ? "a quarter second at most: the worker never ran on the callback's CPU"
                               : options_.worker_cpu == WorkerCpu::any ? "the host's runs measured"
                               : options_.worker_cpu == WorkerCpu::own ? "the callback's thread pinned, the host's runs measured"
                               : cannot_preempt ? "the worker taking the callback's CPU, the host's runs measured"
                                                : "the worker taking the callback's CPU";
  }
  if (options_.live) {  // the dry path is delayed by the engine's latency and the mask's alignment
    const std::size_t dry = slot_->current_dry_delay_frames();
    report.mask_delay_frames = dry > report.engine_latency_frames ? dry - report.engine_latency_frames : 0;
  }
  report.output_latency_s = stream_->output_latency_s();
  report.input_latency_s = options_.live ? stream_->input_latency_s() : 0;
  report.deadline_us = stats_->mean_block_deadline_us();
  report.mean_block_frames = stats_->mean_block_frames();
  report.period_frames = options_.period_frames;
  report.p50_us = stats_->percentile_us(0.5);
  report.p99_us = stats_->percentile_us(0.99);
  report.p999_us = stats_->percentile_us(0.999);
  report.worst_us = stats_->worst_us();
  report.periods = stats_->periods();
  report.late_periods = stats_->late_periods();
  report.nonfinite_input_samples =
      worker_->nonfinite_input_samples() + (reader_ ? reader_->nonfinite.load(std::memory_order_relaxed) : 0);
  report.over_full_scale_samples = worker_->over_full_scale_samples();
  report.realtime = worker_->realtime_note();
  report.memory_locked = memory_lock_problem_.empty() ? "yes" : "no (" + memory_lock_problem_ + ")";
  const std::string callback_thread = worker_->callback_pinned() ? "pinned there" : "not pinned";
  if (options_.worker_cpu == WorkerCpu::own)
    report.worker_cpu = (worker_->pinned_cpu() < 0 ? std::string("its own (not pinned: no CPU apart from the callback's)")
                                                   : "its own, cpu " + std::to_string(worker_->pinned_cpu())) +
                        ", polling the rings (the callback's, cpu " + std::to_string(callback_->cpu.load(std::memory_order_relaxed)) +
                        ": callback thread " + callback_thread + ")";
  else if (worker_->pinned_cpu() < 0)
    report.worker_cpu = "any (not pinned)";
  else
    report.worker_cpu = "the callback's, cpu " + std::to_string(worker_->pinned_cpu()) + " (callback thread " +
                        callback_thread + "; worker moved " +
                        (worker_->cpu_moves() == 1 ? std::string("once") : std::to_string(worker_->cpu_moves()) + " times") + ")";
  report.switches = slot_->switches_heard(unplayed_frames());
  if (reader_) {
    std::lock_guard<std::mutex> lock(reader_->error_mutex);
    if (!reader_->warning.empty()) report.warning += (report.warning.empty() ? "" : "; ") + reader_->warning;
  }
  // A selection still warming up at the end was never heard: said, where the count of switches
  // alone had left the user to think it was (a QA pass).
  if (switching() && slot_->switches() > 0)
    report.warning += std::string(report.warning.empty() ? "" : "; ") + "the mask selected last (" +
                      std::to_string(wanted_mask_ + 1) + "/" + std::to_string(std::max(1, options_.mask_count)) + ", " +
                      wanted_label_ + ") was not heard before the end";
  return report;
}

}  // namespace halo::realtime
