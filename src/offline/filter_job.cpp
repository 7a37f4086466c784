#include "src/offline/filter_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <optional>
#include <system_error>

#include "audio/atomic_file.hpp"
#include "audio/same_file.hpp"
#include "audio/writer.hpp"

namespace halo {
namespace {

struct PreparedEngine {
  EngineChoice choice;
  std::unique_ptr<Engine> engine;
  double seconds = 0;
};

}  // namespace

FilterJob::FilterJob(const std::string& input_path, const std::string& output_path, const audio::RawInput& raw)
    : reader_(input_path, raw), output_path_(output_path) {
  audio::refuse_overwriting_input(input_path, output_path);
  // IN opened, OUT judged, before the mask is designed and any frame filtered: a name too long
  // had been found out only after the whole run (a QA pass).
  audio::check_output_writable(output_path);
  // A raw file shorter than one frame says why, as one with a part-frame at its end does (it had
  // said only "has no audio frames", a QA pass).
  if (reader_.format().frames == 0) throw Error(reader_.no_frames_message());  // standard input named so
}

FilterReport FilterJob::run(const filters::MaskSet& masks, const FilterOptions& options,
                            const Stream::Progress& progress, const Cancellation& cancellation) {
  FilterReport report;
  report.input = reader_.format();
  check_engine_name(options.engine);  // before any file is touched
  // A file whose header declares more than it holds is known truncated now, before any output:
  // a 10 GB WAV cut short had been filtered to its end first (a review). A decoder's damage (a
  // FLAC's) is still found where it is met.
  if (report.input.frames >= 0 && reader_.declared_frames() > report.input.frames)
    check_input_length(reader_, static_cast<std::uint64_t>(report.input.frames), reader_.declared_frames(),
                       options.stream.accept_short);
  const TapSet taps = [&] {
    try {
      return TapSet::from_masks(masks, report.input.channels);
    } catch (const Error& error) {
      throw Error(reader_.path() + ": " + error.what());  // the mask does not fit this file
    }
  }();
  ProcessSpec spec;
  spec.channels = report.input.channels;
  spec.max_mask_frames = taps.mask_frames();
  spec.max_block_frames = engine_block_frames(options.stream, spec.channels);  // within the memory budget
  spec.rate_hz = report.input.rate_hz;
  validate(spec);
  const std::uint64_t samples =
      report.input.frames > 0 ? static_cast<std::uint64_t>(report.input.frames) * spec.channels : 0;

  // auto decides here, at no cost (no CUDA: the driver's listing and the crossover table), so
  // that an engine running alone gets blocks that feed all its threads, as its registry entry
  // asks (Stream's parallel_frames; cpu-fft). A hand-over keeps the default block: the GPU
  // engine that takes over stages whole blocks, and with 2.1 M-frame blocks the hand-over on
  // the hour at 65535 taps went from 8 % faster than cuda-fft alone (0.988 s) to 11-14 % slower
  // (1.18-1.22 s).
  std::optional<EngineChoice> auto_choice;
  if (options.engine == "auto") auto_choice = choose_engine(options.engine, taps, spec, samples);
  StreamOptions stream_options = options.stream;
  stream_options.measure_input_peak = options.write.norm_peak > 0;
  const bool alone = !auto_choice || auto_choice->takes_over.empty();
  const EngineEntry& entry = engine_entry(auto_choice ? auto_choice->name : options.engine);
  if (alone && entry.parallel_block_frames) {
    stream_options.parallel_frames = entry.parallel_block_frames(spec, options.engine_options);
    spec.max_block_frames = engine_block_frames(stream_options, spec.channels);
  }

  Stream stream(stream_options, taps.mask_frames());
  // The writer's choice of WAV or RF64 rests on OUT's length where known, and so do the
  // layouts libsndfile writes wrong at odd lengths only.
  const std::int64_t out_frames =
      report.input.frames >= 0 ? static_cast<std::int64_t>(stream.output_frames(static_cast<std::uint64_t>(report.input.frames)))
                               : -1;
  report.output = audio::output_format(report.input, output_path_, options.subtype, options.container, out_frames);
  audio::Writer writer(output_path_, report.output, io_chunk_frames(stream_options, spec.channels), options.write);

  // Choosing an engine by name may start the CUDA driver and creating it starts a context:
  // both overlap reading. `auto` starts no CUDA here: where the GPU pays, the hand-over engine
  // starts the context on its own thread while the CPU engine filters.
  auto prepare = [&]() {
    const auto start = std::chrono::steady_clock::now();
    PreparedEngine prepared;
    prepared.choice = auto_choice ? *auto_choice : choose_engine(options.engine, taps, spec, samples);
    prepared.engine = make_engine(prepared.choice, options.engine_options);
    prepared.engine->prepare(spec);
    prepared.engine->set_taps(taps);
    prepared.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return prepared;
  };
  std::future<PreparedEngine> pending;
  try {
    pending = std::async(std::launch::async, prepare);
  } catch (const std::system_error& error) {  // std::async's own words: "Resource temporarily unavailable"
    throw Error(std::string("cannot start a thread for making the engine: ") + error.what());
  }
  PreparedEngine prepared;
  auto engine_source = [&]() -> Engine& {
    prepared = pending.get();
    report.engine = prepared.choice;
    report.engine_start_s = prepared.seconds;
    return *prepared.engine;
  };
  try {
    reader_.stop_at_damage(options.stream.accept_short);  // a damaged file's frames before the damage
    report.stream = stream.run(reader_, engine_source, writer, progress, cancellation);
  } catch (...) {
    if (pending.valid()) pending.wait();  // never leave the engine thread running behind us
    throw;
  }
  if (pending.valid()) engine_source();  // an empty pipe: still report the engine's errors
  if (prepared.engine) report.engine_time_breakdown = prepared.engine->time_breakdown();
  if (const auto* handover = dynamic_cast<const HandoverEngine*>(prepared.engine.get())) report.handover = handover->report();
  if (report.stream.frames_in == 0) {
    // A piped header that declares frames none of which came: the stream was cut, say so with
    // the count (it had read as a file with none).
    const std::int64_t declared = reader_.streamed_declared_frames();
    throw Error(declared > 0 ? audio::input_name(reader_.path()) + ": ended before its first frame, though its header "
                                                                 "declares " + std::to_string(declared) + " frames"
                             : reader_.no_frames_message());
  }
  // --norm's floor: 2^-20 (-120 dB) of the most IN's own peak can reach through the masks. FFT
  // engines leave rounding of about 1e-7 of that where the exact output is 0. Against full
  // scale, as it was, a quiet float or 24-bit file filtered exactly had been called rounding
  // and left unscaled (a QA pass: a -120 dBFS tone).
  report.norm_noise_reference = static_cast<double>(report.stream.input_peak) * filters::worst_case_gain(masks);
  writer.set_norm_noise_floor(std::ldexp(report.norm_noise_reference, -20));
  writer.commit([&] { return cancellation.requested(); });
  // --norm converts (and so clips and counts) in commit(): take the counts after it.
  report.stream.clipped_samples = writer.clipped_samples();
  report.stream.dither_held_samples = writer.dither_held_samples();
  report.stream.nonfinite_output_samples = writer.nonfinite_samples();
  report.output.container = writer.container();  // RF64 where a WAV outgrew 4 GiB
  report.output_note = writer.note();
  report.norm_gain = writer.norm_gain();
  report.norm_found_silence = writer.norm_found_silence();
  report.norm_found_noise = writer.norm_found_noise();
  report.norm_noise_peak = writer.norm_noise_peak();
  report.input_damage = reader_.damage();
  report.input_partial_frame_note = reader_.partial_frame_note();
  report.input_streamed_declared_frames = reader_.streamed_declared_frames();
  return report;
}

}  // namespace halo
