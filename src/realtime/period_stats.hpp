#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace halo::realtime {

// The worker's time per period against its deadline, kept so that recording costs nothing:
// a histogram of 1 µs bins (0 .. max_us, the last bin holding everything longer) allocated
// once in the constructor, the worst time, and the count of periods that missed the deadline.
//
// Contract: record() is called by one thread (the worker) and is noexcept, lock-free and
// allocation-free. worst_us(), periods() and late_periods() may be read from any thread at any
// time (atomics); percentile_us() reads the histogram and is meant for after the worker has
// stopped (while it runs, it reads a count that may be a period behind, never garbage).
class PeriodStats {
 public:
  static constexpr std::size_t max_us = 100000;  // 100 ms; longer periods land in the last bin

  // deadline_us: a period's time, period_frames long (0: every record is a whole period).
  explicit PeriodStats(double deadline_us, std::size_t period_frames = 0);
  double deadline_us() const noexcept { return deadline_us_; }

  // One block of `frames` (0: a whole period), late past its own time: live's worker takes the
  // frames as the server's buffers bring them, and with --frames above the server's buffer each
  // 256-frame block had been judged against a 2048-frame period's time (a QA pass).
  void record(double microseconds, std::size_t frames = 0) noexcept;
  // The frames of the mean block, and its time: what the late count was judged against.
  double mean_block_frames() const noexcept;
  double mean_block_deadline_us() const noexcept;

  std::uint64_t periods() const noexcept { return periods_.load(std::memory_order_relaxed); }
  std::uint64_t late_periods() const noexcept { return late_.load(std::memory_order_relaxed); }
  double worst_us() const noexcept { return static_cast<double>(worst_ns_.load(std::memory_order_relaxed)) / 1000.0; }
  // The q-quantile (0 < q <= 1) of the recorded times, to the bin (1 µs); 0 before any.
  double percentile_us(double q) const noexcept;

 private:
  double deadline_us_;
  std::size_t period_frames_;
  std::atomic<std::uint64_t> frames_{0};  // recorded blocks' frames (whole periods counted as period_frames_)
  // 64-bit: most periods fall in one or two bins, and a 32-bit count wraps after 2^32 of them
  // (six hours of 1-frame periods at 192 kHz, days of short ones), the percentiles with it.
  std::vector<std::atomic<std::uint64_t>> bins_;
  std::atomic<std::uint64_t> periods_{0};
  std::atomic<std::uint64_t> late_{0};
  std::atomic<std::uint64_t> worst_ns_{0};
};

}  // namespace halo::realtime
