#include "src/cli/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace halo::cli {

ProgressBar::ProgressBar(std::uint64_t total_frames, bool enabled)
    : total_frames_(total_frames),
      enabled_(enabled && total_frames > 0 && isatty(STDERR_FILENO)),
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
  const double fraction = std::min(1.0, static_cast<double>(frames_done) / static_cast<double>(total_frames_));
  constexpr int width = 40;
  const int filled = static_cast<int>(fraction * width);
  std::string bar(filled, '=');
  bar.resize(width, ' ');
  std::fprintf(stderr, "\rhalo: [%s] %3d%%", bar.c_str(), static_cast<int>(fraction * 100));
  std::fflush(stderr);
}

}  // namespace halo::cli
