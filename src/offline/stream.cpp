#include "src/offline/stream.hpp"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "audio/error.hpp"
#include "audio/streamed_output.hpp"
#include "src/engine/started_thread.hpp"
#include "src/offline/chunk_queue.hpp"
#include "src/engine/silence_gate.hpp"

namespace halo {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// How much less the reader and writer threads weigh with the scheduler than the engine's.
// Where the engine's threads take every core (cpu-fft on a small machine), an I/O thread that
// wakes preempts one of them in the middle of a block task, and the whole pool then waits at
// the end of its call for that one task; with three chunks queued each way the I/O threads
// have slack, so they should run in the gaps instead. On the 2-core development VM, 10-minute
// stereo at 65535 taps, 9 alternating runs each: median 0.34 s at equal weight, 0.31 s at +10
// (+5: 0.33, +15 and +19: 0.31). Nice weighs only where threads contend for a core.
constexpr int io_nice_increment = 10;

// Lowers the calling thread's scheduling weight by io_nice_increment (Linux: nice is a
// thread's own, and a higher one needs no privilege). Best effort: a refusal leaves it as it was.
void lower_this_threads_priority() noexcept {
#ifdef SYS_gettid
  const auto thread = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int nice_now = getpriority(PRIO_PROCESS, thread);
  if (errno == 0) setpriority(PRIO_PROCESS, thread, std::min(nice_now + io_nice_increment, 19));
#endif
}

// Zero-filled float storage from calloc. A large block comes from mmap as pages the kernel
// zeroes when they are first touched, so the pool's buffers (up to 200 MB with 16 threads at
// 65535 taps) cost nothing before the reader starts, where std::vector's fill wrote every byte
// first, on the critical path; each page is touched later by the stage that fills it.
class ZeroedSamples {
 public:
  explicit ZeroedSamples(std::size_t count)
      : samples_(static_cast<float*>(std::calloc(std::max<std::size_t>(count, 1), sizeof(float)))) {
    if (!samples_) throw std::bad_alloc();
  }
  float* data() noexcept { return samples_.get(); }
  const float* data() const noexcept { return samples_.get(); }

 private:
  struct Free {
    void operator()(float* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<float, Free> samples_;
};

// The largest |x[i]|: one loop the compiler vectorises.
float peak_of(const float* x, std::size_t count) {
  float peak = 0;
  for (std::size_t i = 0; i < count; ++i) peak = std::max(peak, std::fabs(x[i]));
  return peak;
}

// One buffer of the pool: `frames` valid frames; for output, frames [first, frames) are kept.
struct Chunk {
  explicit Chunk(std::size_t samples_count) : samples(samples_count) {}
  ZeroedSamples samples;
  std::size_t frames = 0;
  std::size_t first = 0;
  bool end = false;  // the reader's last message: no more input
  ChunkZeros zeros;  // input: where its channels are 0 (SilenceGate)
};

// Buffers in flight per direction: one being filled, one queued, one being drained.
constexpr std::size_t pool_chunks = 3;

// The first error of any stage wins; it closes every queue so the other stages stop, and is
// told to `on_first` (StreamOptions::on_failure) at once.
class Failure {
 public:
  template <typename... Queues>
  void record(std::exception_ptr error, const std::function<void(std::exception_ptr)>& on_first, Queues&... queues) {
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) {
        error_ = error;
        first = true;
      }
    }
    (queues.close(), ...);
    if (first && on_first) try {
        on_first(error);
      } catch (...) {  // told or not, run() rethrows it once the stages have stopped
      }
  }
  void rethrow_if_any() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
};


}  // namespace

void check_input_length(const audio::Reader& reader, std::uint64_t frames_read, std::int64_t declared, bool accept_short) {
  if (accept_short || declared < 0 || frames_read >= static_cast<std::uint64_t>(declared)) return;
  const std::string name = audio::input_name(reader.path());
  throw Error(name + ": truncated: its header declares " + std::to_string(declared) + " frames but only " +
              std::to_string(frames_read) + " could be read; " + audio::failed_output_note() +
              " (--accept-short filters what there is)");
}

std::size_t engine_block_frames(const StreamOptions& options, int channels) {
  const std::size_t width = static_cast<std::size_t>(std::max(channels, 1));
  const std::size_t budget = max_buffer_samples / width;
  if (options.chunk_frames) return std::max<std::size_t>(1, std::min(*options.chunk_frames, budget));
  const std::size_t automatic = std::min(default_chunk_frames, budget);
  if (options.parallel_frames == 0) return std::max<std::size_t>(1, automatic);
  const std::size_t parallel = std::min(options.parallel_frames, max_parallel_buffer_samples / width);
  // Whole parallel blocks, as many as the default holds (at least one): cpu-fft's tasks are
  // whole FFT blocks, and a call of 2.67 of its parallel blocks (262144 frames at 65535 taps
  // on two threads, stereo) left a thread idle at the end of every other call.
  return std::max<std::size_t>(1, parallel * std::max<std::size_t>(1, automatic / parallel));
}

std::size_t io_chunk_frames(const StreamOptions& options, int channels) {
  const std::size_t budget = max_buffer_samples / static_cast<std::size_t>(std::max(channels, 1));
  return std::max(engine_block_frames(options, channels), std::min(min_io_frames, budget));
}

Stream::Stream(const StreamOptions& options, std::size_t mask_frames)
    : options_(options), mask_frames_(mask_frames) {
  if (options_.chunk_frames && *options_.chunk_frames < 1) throw Error("a chunk must hold at least 1 frame");
  if (mask_frames_ < 1) throw Error("the mask has no taps");
}

std::size_t Stream::delay_frames() const {
  return options_.alignment == Alignment::centred ? (mask_frames_ - 1) / 2 : 0;
}

std::uint64_t Stream::output_frames(std::uint64_t input_frames) const {
  if (input_frames == 0) return 0;
  return options_.tail ? input_frames + (mask_frames_ - 1) - delay_frames() : input_frames;
}

StreamResult Stream::run(audio::Reader& reader, const EngineSource& engine_source, audio::Writer& writer,
                         const Progress& progress, const Cancellation& cancellation) {
  auto interrupted = [&] { return cancellation.requested(); };
  const int channels = reader.format().channels;
  // I/O chunks as large as the writer takes; engine blocks as the engine was prepared for.
  const std::size_t io_frames = std::max<std::size_t>(1, std::min(io_chunk_frames(options_, channels),
                                                                   writer.max_chunk_frames()));
  std::size_t block_frames = std::min(engine_block_frames(options_, channels), io_frames);
  const std::size_t io_samples = io_frames * channels;
  const auto wall_start = Clock::now();
  writer.copy_strings(reader.strings());  // before any audio: some containers put them first

  std::vector<Chunk> inputs, outputs;
  ChunkQueue<Chunk*> free_inputs, full_inputs, free_outputs, full_outputs;
  for (std::size_t i = 0; i < pool_chunks; ++i) {
    inputs.emplace_back(io_samples);
    outputs.emplace_back(io_samples);
  }
  for (auto& chunk : inputs) free_inputs.push(&chunk);
  for (auto& chunk : outputs) free_outputs.push(&chunk);
  // Fed after the input ends to flush the delay and the tail; one engine block of zeros, reused.
  const ZeroedSamples silence(block_frames * channels);

  Failure failure;
  auto fail = [&](std::exception_ptr error) {
    failure.record(error, options_.on_failure, free_inputs, full_inputs, free_outputs, full_outputs);
  };
  StreamResult result;
  result.declared_frames = reader.declared_frames();

  auto read_chunks = [&] {
    lower_this_threads_priority();
    try {
      for (;;) {
        if (interrupted()) throw Error("interrupted");
        auto chunk = free_inputs.pop();
        if (!chunk) return;
        const auto start = Clock::now();
        try {
          (*chunk)->frames = reader.read((*chunk)->samples.data(), io_frames);
        } catch (const audio::Error& error) {
          // What became of the output, said with the failure (a damaged FLAC streamed to a pipe
          // had said only "read failed", the part sent a whole file to all appearances: a review).
          throw Error(std::string(error.what()) + "; " + audio::failed_output_note() +
                      (options_.accept_short ? "" : " (--accept-short filters what there is before the damage)"));
        }
        result.nonfinite_input_samples +=
            (*chunk)->zeros.scan((*chunk)->samples.data(), (*chunk)->frames, channels, mask_frames_);
        if (options_.measure_input_peak)  // after the scan, which reads NaN and Inf as 0
          result.input_peak = std::max(result.input_peak, peak_of((*chunk)->samples.data(), (*chunk)->frames * channels));
        result.timings.read_s += seconds_since(start);
        (*chunk)->end = (*chunk)->frames < io_frames;
        if (!full_inputs.push(*chunk) || (*chunk)->end) return;
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  auto write_chunks = [&] {
    lower_this_threads_priority();
    try {
      for (;;) {
        auto chunk = full_outputs.pop();
        if (!chunk) return;
        const auto start = Clock::now();
        float* samples = (*chunk)->samples.data() + (*chunk)->first * channels;
        const std::size_t frames = (*chunk)->frames - (*chunk)->first;
        if (options_.gain != 1.0f)
          for (std::size_t i = 0; i < frames * channels; ++i) samples[i] *= options_.gain;
        writer.write(samples, frames);
        result.timings.write_s += seconds_since(start);
        result.frames_out += frames;
        if (progress) progress(result.frames_out);
        if (!free_outputs.push(*chunk)) return;
      }
    } catch (...) {
      fail(std::current_exception());
    }
  };
  std::thread reader_thread = started_thread("reading the input", read_chunks);
  std::thread writer_thread;
  try {
    writer_thread = started_thread("writing the output", write_chunks);
  } catch (...) {
    fail(std::current_exception());  // closes every queue: the reader stops
    reader_thread.join();
    throw;
  }

  // The engine stage, on this thread.
  try {
    Engine* engine = nullptr;
    // Engine output frames to drop first: the alignment's advance plus the engine's own lag.
    std::uint64_t delay = delay_frames();
    std::uint64_t engine_frames = 0;  // frames the engine has produced so far
    std::int64_t engine_latency = 0;
    SilenceGate silence_gate(channels, mask_frames_);
    // Runs `frames` (up to one I/O chunk) through the engine, block by block, and queues the
    // part of the engine's output [delay, stop) they produced. `in` is null for silence, else
    // `zeros` is where it is 0.
    auto run_engine = [&](const float* in, const ChunkZeros* zeros, std::size_t frames, std::uint64_t stop) -> bool {
      auto out = free_outputs.pop();
      if (!out) return false;
      if (in) silence_gate.feed(*zeros);
      else silence_gate.feed_silence(frames);
      auto start = Clock::now();
      for (std::size_t done = 0; done < frames; done += block_frames) {
        const std::size_t block = std::min(block_frames, frames - done);
        const float* block_in = in ? in + done * channels : silence.data();
        if (engine->process(block_in, (*out)->samples.data() + done * channels, block) != Status::ok)
          throw Error(engine->name() + ": " + engine->failure());
      }
      // Engine frame e holds y_full[e - latency].
      silence_gate.zero_silent_outputs((*out)->samples.data(), static_cast<std::int64_t>(engine_frames) - engine_latency,
                                       frames);
      result.timings.process_s += seconds_since(start);
      const std::uint64_t begin = engine_frames, end = engine_frames + frames;
      engine_frames = end;
      (*out)->frames = static_cast<std::size_t>(std::min(end, stop) - begin);
      (*out)->first = static_cast<std::size_t>(std::min<std::uint64_t>(std::max<std::uint64_t>(begin, delay), end) - begin);
      if ((*out)->first >= (*out)->frames) return free_outputs.push(*out);
      return full_outputs.push(*out);
    };

    for (;;) {
      auto chunk = full_inputs.pop();
      if (!chunk) break;
      if (!engine) {
        const auto start = Clock::now();
        engine = &engine_source();
        result.timings.engine_wait_s = seconds_since(start);
        engine->reset();
        engine_latency = static_cast<std::int64_t>(engine->latency_frames());
        delay += engine->latency_frames();
        block_frames = std::min(block_frames, engine->spec().max_block_frames);
      }
      result.frames_in += (*chunk)->frames;
      const bool end = (*chunk)->end;
      if (end) check_input_length(reader, result.frames_in, result.declared_frames, options_.accept_short);
      if ((*chunk)->frames > 0 && !run_engine((*chunk)->samples.data(), &(*chunk)->zeros, (*chunk)->frames, UINT64_MAX))
        break;
      if (!free_inputs.push(*chunk) || end) break;
      if (interrupted()) throw Error("interrupted");
    }
    // Flush: zeros until the engine has produced delay + output_frames.
    const std::uint64_t wanted = output_frames(result.frames_in);
    while (engine && result.frames_in > 0 && engine_frames < delay + wanted) {
      if (interrupted()) throw Error("interrupted");
      const std::size_t frames =
          static_cast<std::size_t>(std::min<std::uint64_t>(io_frames, delay + wanted - engine_frames));
      if (!run_engine(nullptr, nullptr, frames, delay + wanted)) break;
    }
  } catch (...) {
    fail(std::current_exception());
  }
  full_outputs.close();
  free_inputs.close();
  reader_thread.join();
  writer_thread.join();
  failure.rethrow_if_any();
  result.clipped_samples = writer.clipped_samples();
  result.dither_held_samples = writer.dither_held_samples();
  result.nonfinite_output_samples = writer.nonfinite_samples();
  result.timings.wall_s = seconds_since(wall_start);
  return result;
}

}  // namespace halo
