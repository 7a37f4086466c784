#include "src/offline/filter_job.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>

#include "audio/writer.hpp"

namespace halo {
namespace {

bool same_file(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return false;
  struct stat first {}, second {};
  if (stat(a.c_str(), &first) != 0 || stat(b.c_str(), &second) != 0) return false;
  return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

struct PreparedEngine {
  EngineChoice choice;
  std::unique_ptr<Engine> engine;
  double seconds = 0;
};

}  // namespace

FilterJob::FilterJob(const std::string& input_path, const std::string& output_path)
    : reader_(input_path), output_path_(output_path) {
  if (same_file(input_path, output_path))
    throw Error(output_path + " is the input file: choose another output (halo never overwrites its input)");
  if (reader_.format().frames == 0) throw Error(input_path + ": has no audio frames");
}

FilterReport FilterJob::run(const filters::MaskSet& masks, const FilterOptions& options,
                            const Stream::Progress& progress, const Cancellation& cancellation) {
  FilterReport report;
  report.input = reader_.format();
  check_engine_name(options.engine);  // before any file is touched
  const TapSet taps = [&] {
    try {
      return TapSet::from_masks(masks, report.input.channels);
    } catch (const Error& error) {
      throw Error(reader_.path() + ": " + error.what());  // the mask does not fit this file
    }
  }();
  ProcessSpec spec;
  spec.channels = report.input.channels;
  spec.max_block_frames = options.stream.chunk_frames;
  spec.max_mask_frames = taps.mask_frames();
  spec.rate_hz = report.input.rate_hz;
  validate(spec);
  const std::uint64_t samples =
      report.input.frames > 0 ? static_cast<std::uint64_t>(report.input.frames) * spec.channels : 0;

  Stream stream(options.stream, taps.mask_frames());
  report.output = audio::output_format(report.input, output_path_, options.subtype, options.container);
  audio::Writer writer(output_path_, report.output, options.stream.chunk_frames);

  // Choosing may start the CUDA driver and creating starts a context: both overlap reading.
  auto pending = std::async(std::launch::async, [&]() {
    const auto start = std::chrono::steady_clock::now();
    PreparedEngine prepared;
    prepared.choice = choose_engine(options.engine, taps, spec, samples);
    prepared.engine = make_engine(prepared.choice.name, options.engine_options);
    prepared.engine->prepare(spec);
    prepared.engine->set_taps(taps);
    prepared.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return prepared;
  });
  PreparedEngine prepared;
  auto engine_source = [&]() -> Engine& {
    prepared = pending.get();
    report.engine = prepared.choice;
    report.engine_start_s = prepared.seconds;
    return *prepared.engine;
  };
  try {
    report.stream = stream.run(reader_, engine_source, writer, progress, cancellation);
  } catch (...) {
    if (pending.valid()) pending.wait();  // never leave the engine thread running behind us
    throw;
  }
  if (pending.valid()) engine_source();  // an empty pipe: still report the engine's errors
  if (prepared.engine) report.engine_time_breakdown = prepared.engine->time_breakdown();
  if (report.stream.frames_in == 0)
    throw Error((reader_.path() == "-" ? std::string("standard input") : reader_.path()) + ": has no audio frames");
  writer.commit();
  return report;
}

}  // namespace halo
