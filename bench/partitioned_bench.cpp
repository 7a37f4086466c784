// partitioned_bench: what one 64-frame period costs the thread that calls process(), for
// stereo masks of 1023 to 1048575 taps, on the partitioned engine (cpu-partitioned) against
// overlap-save with one FFT (cpu-fft). Prints a markdown table.
//
//   partitioned_bench [seconds per row, default 5] [--realtime]
//
// --realtime: the calling thread at SCHED_FIFO 80 and the engine's worker at 79, as `halo live`
// and jconvolver run (root or rtprio needed; the header line says whether it was granted).
//
// cpu-partitioned runs paced like a sound card at 48 kHz: each period starts 1.333 ms after the
// last (absolute sleeps), so its worker thread computes the long partitions in the time between,
// as in `halo live`. Per period: the wall time of process() on the calling thread (median, p99,
// worst, and periods over the 1.333 ms deadline); CPU: the calling thread's CPU time inside
// process() (CLOCK_THREAD_CPUTIME_ID around each call, so the pacing sleeps do not count) plus
// the worker's (CLOCK_THREAD_CPUTIME_ID in the worker), as a share of one core in real time; and
// the periods in which process() had to wait for the worker (late_waits()).
// cpu-fft does all its work on the calling thread in one FFT per hop (a hop of 3 M frames for M
// taps), so it runs unpaced over at least two hops: its worst period is that FFT.
// Inputs and taps are seeded random values (never zeros).
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "src/engine/cpu_fft_engine.hpp"
#include "src/engine/partitioned_engine.hpp"
#include "bench_signals.hpp"

namespace {

constexpr int channels = 2;
constexpr std::size_t period_frames = 64;
constexpr double rate_hz = 48000;
constexpr double deadline_us = 1e6 * period_frames / rate_hz;
constexpr int realtime_priority = 80;
bool realtime = false;          // --realtime asked
bool realtime_granted = true;   // every request so far granted

using halo::bench::random_values;

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

double now_seconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

void sleep_until(double when) {
  timespec at{};
  at.tv_sec = static_cast<time_t>(when);
  at.tv_nsec = static_cast<long>((when - static_cast<double>(at.tv_sec)) * 1e9);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) != 0) {
  }
}

struct Row {
  std::string engine;
  std::size_t taps = 0;
  std::size_t latency_frames = 0;
  std::size_t periods = 0;
  double median_us = 0, p99_us = 0, worst_us = 0;
  std::size_t over_deadline = 0;
  double cpu_percent = 0;  // of one core, in real time
  std::string late;        // late waits, or "-"
  std::string note;
};

// Runs `periods` periods through a prepared engine with its taps; `paced`: one per 1.333 ms.
Row run(halo::Engine& engine, std::size_t periods, bool paced, const std::vector<float>& input) {
  const std::size_t input_periods = input.size() / (channels * period_frames);
  std::vector<float> out(channels * period_frames);
  std::vector<double> times_us(periods);
  double cpu = 0;
  double next = now_seconds();
  for (std::size_t p = 0; p < periods; ++p) {
    if (paced) {
      next += period_frames / rate_hz;
      sleep_until(next);
    }
    const float* in = input.data() + (p % input_periods) * channels * period_frames;
    const double cpu_start = thread_cpu_seconds();
    const double start = now_seconds();
    if (engine.process(in, out.data(), period_frames) != halo::Status::ok) {
      std::fprintf(stderr, "partitioned_bench: %s failed: %s\n", engine.name().c_str(), engine.failure());
      std::exit(1);
    }
    times_us[p] = 1e6 * (now_seconds() - start);
    cpu += thread_cpu_seconds() - cpu_start;
  }

  Row row;
  row.engine = engine.name();
  row.taps = engine.mask_frames();
  row.latency_frames = engine.latency_frames();
  row.periods = periods;
  row.over_deadline = static_cast<std::size_t>(
      std::count_if(times_us.begin(), times_us.end(), [](double t) { return t > deadline_us; }));
  std::sort(times_us.begin(), times_us.end());
  row.median_us = times_us[periods / 2];
  row.p99_us = times_us[std::min(periods - 1, periods * 99 / 100)];
  row.worst_us = times_us.back();
  row.cpu_percent = 100.0 * cpu / (periods * period_frames / rate_hz);
  return row;
}

halo::TapSet stereo_taps(std::size_t taps) {
  halo::filters::MaskSet masks(2);
  for (int c = 0; c < 2; ++c) masks[c].taps = random_values(taps, 100 + taps + c, 1.0f / 256);
  return halo::TapSet::from_masks(masks, channels);
}

Row bench_partitioned(std::size_t taps, double seconds, const std::vector<float>& input) {
  halo::CpuPartitionedEngine engine;
  engine.prepare(halo::ProcessSpec{channels, period_frames, taps, rate_hz});
  engine.set_taps(stereo_taps(taps));
  if (realtime && engine.has_worker()) realtime_granted &= engine.request_realtime_worker(realtime_priority - 1);
  // Warm up unpaced over two blocks of the longest partitions, so every level has run.
  run(engine, 2 * halo::max_partition_frames / period_frames + 16, false, input);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double worker_start = engine.worker_cpu_seconds();
  const std::uint64_t late_start = engine.late_waits();

  const auto periods = static_cast<std::size_t>(seconds * rate_hz / period_frames);
  Row row = run(engine, periods, true, input);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the worker's last block and its clock
  const double worker = engine.worker_cpu_seconds() - worker_start;
  const double audio_seconds = periods * period_frames / rate_hz;
  char note[96];
  std::snprintf(note, sizeof note, "calling thread %.2f %% + worker %.2f %%", row.cpu_percent,
                100.0 * worker / audio_seconds);
  row.note = note;
  row.cpu_percent += 100.0 * worker / audio_seconds;
  row.late = std::to_string(engine.late_waits() - late_start);
  return row;
}

Row bench_fft(std::size_t taps, double seconds, const std::vector<float>& input) {
  halo::CpuFftEngine engine;
  engine.prepare(halo::ProcessSpec{channels, period_frames, taps, rate_hz});
  engine.set_taps(stereo_taps(taps));
  const std::size_t hop_periods = (engine.latency_frames() + period_frames - 1) / period_frames;
  const auto periods = std::max(static_cast<std::size_t>(seconds * rate_hz / period_frames), 2 * hop_periods);
  Row row = run(engine, periods, false, input);
  row.late = "-";
  row.note = "unpaced, " + std::to_string(periods / hop_periods) + " FFT hops";
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5.0;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--realtime")
      realtime = true;
    else
      seconds = std::atof(argv[i]);
  }
  if (!(seconds > 0)) {
    std::fprintf(stderr, "usage: partitioned_bench [seconds per row > 0] [--realtime]\n");
    return 2;
  }
  if (realtime) {
    sched_param parameters{};
    parameters.sched_priority = realtime_priority;
    realtime_granted = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0;
  }
  const std::vector<float> input = random_values(channels * 48000, 7, 0.5f);
  std::vector<Row> rows;
  for (const std::size_t taps : {1023, 65535, 262143, 1048575}) {
    std::fprintf(stderr, "partitioned_bench: %zu taps...\n", taps);
    rows.push_back(bench_partitioned(taps, seconds, input));
    rows.push_back(bench_fft(taps, seconds, input));
  }

  std::printf("Stereo, %zu-frame periods at %.0f Hz (deadline %.0f us), %u hardware threads, %s.\n\n",
              period_frames, rate_hz, deadline_us, std::thread::hardware_concurrency(),
              !realtime ? "normal priority"
                        : realtime_granted ? "SCHED_FIFO (calling thread 80, worker 79)" : "SCHED_FIFO refused");
  std::printf("| engine | taps | latency | periods | median us | p99 us | worst us | over deadline | CPU %% of a core | late waits | notes |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (const Row& row : rows) {
    std::printf("| %s | %zu | %zu | %zu | %.1f | %.1f | %.0f | %zu | %.2f | %s | %s |\n", row.engine.c_str(), row.taps,
                row.latency_frames, row.periods, row.median_us, row.p99_us,
                row.worst_us, row.over_deadline, row.cpu_percent, row.late.c_str(), row.note.c_str());
  }
  return 0;
}
