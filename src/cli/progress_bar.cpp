#include "src/cli/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace halo::cli {

ProgressBar::ProgressBar(std::uint64_t total_frames, double rate_hz, bool enabled)
    : total_frames_(total_frames),
      rate_hz_(rate_hz),
      enabled_(enabled && (total_frames > 0 || rate_hz > 0) && isatty(STDERR_FILENO)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fprintf(stderr, "\r%60s\r", "");
}

void ProgressBar::update(std::uint64_t frames_done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  drawn_ = true;
  if (total_frames_ == 0) {  // a stream of unknown length: how far it has come
    const long seconds = static_cast<long>(static_cast<double>(frames_done) / rate_hz_);
    std::fprintf(stderr, "\rhalo: %ld:%02ld of audio filtered", seconds / 60, seconds % 60);
    std::fflush(stderr);
    return;
  }
  const double fraction = std::min(1.0, static_cast<double>(frames_done) / static_cast<double>(total_frames_));
  constexpr int width = 40;
  const int filled = static_cast<int>(fraction * width);
  std::string bar(filled, '=');
  bar.resize(width, ' ');
  std::fprintf(stderr, "\rhalo: [%s] %3d%%", bar.c_str(), static_cast<int>(fraction * 100));
  std::fflush(stderr);
}

}  // namespace halo::cli
