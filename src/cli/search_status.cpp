#include "src/cli/search_status.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace halo::cli {

SearchStatus::SearchStatus(bool enabled)
    : enabled_(enabled && isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

SearchStatus::~SearchStatus() {
  if (drawn_width_ > 0) std::fprintf(stderr, "\r%*s\r", drawn_width_, "");
}

filters::SearchObserver SearchStatus::observer() {
  return [this](const filters::SearchStep& step) { this->step(step); };
}

void SearchStatus::step(const filters::SearchStep& step) {
  if (step.method != method_) {  // auto moves on to the next method
    method_ = step.method;
    shortest_met_ = longest_missed_ = 0;
  }
  ++lengths_;
  if (step.met) shortest_met_ = shortest_met_ == 0 ? step.taps : std::min(shortest_met_, step.taps);
  else longest_missed_ = std::max(longest_missed_, step.taps);
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::string where;
  if (shortest_met_ > 0) where = std::to_string(shortest_met_) + " taps meets";
  if (longest_missed_ > 0) where += (where.empty() ? "" : ", ") + std::to_string(longest_missed_) + " misses";
  const double seconds = std::chrono::duration<double>(now - start_).count();
  // Padded to the widest line drawn so far, so a shorter one leaves nothing of a longer behind.
  const int width = std::fprintf(stderr, "\rhalo: searching %s: %s (%d lengths, %.0f s)%*s", filters::to_string(method_).c_str(),
                                 where.c_str(), lengths_, seconds, 0, "");
  if (width - 1 < drawn_width_) std::fprintf(stderr, "%*s", drawn_width_ - (width - 1), "");
  drawn_width_ = std::max(drawn_width_, width - 1);
  std::fflush(stderr);
}

}  // namespace halo::cli
