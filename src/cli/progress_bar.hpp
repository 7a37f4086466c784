#pragma once
#include <chrono>
#include <cstdint>

namespace halo::cli {

// A progress bar on stderr for runs long enough to wonder about: it appears only when stderr
// is a terminal, the length is known, and the run has gone on for a second; it redraws at
// most ten times a second and erases itself when done.
class ProgressBar {
 public:
  ProgressBar(std::uint64_t total_frames, bool enabled);
  ~ProgressBar();
  void update(std::uint64_t frames_done);

 private:
  std::uint64_t total_frames_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace halo::cli
