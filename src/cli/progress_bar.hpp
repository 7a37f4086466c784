#pragma once
#include <chrono>
#include <cstdint>

namespace halo::cli {

// A progress bar on stderr for runs long enough to wonder about: it appears only when stderr
// is a terminal and the run has gone on for a second; it redraws at most ten times a second
// and erases itself when done. Where the length is not known (IN on a pipe) it counts the
// audio filtered so far instead (a run from a pipe had shown nothing for seconds, a QA pass).
class ProgressBar {
 public:
  // total_frames: 0 where not known. rate_hz: for the count of a stream's seconds.
  ProgressBar(std::uint64_t total_frames, double rate_hz, bool enabled);
  ~ProgressBar();
  void update(std::uint64_t frames_done);

 private:
  std::uint64_t total_frames_;
  double rate_hz_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace halo::cli
