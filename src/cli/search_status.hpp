#pragma once
#include <chrono>
#include <string>

#include "filters/design.hpp"

namespace halo::cli {

// A status line on stderr while a shortest-mask search runs long (thousands of remez taps take
// a minute): like ProgressBar, only on a terminal, only after a second, redrawn at most ten
// times a second and erased when the search ends. A search has no known length, so it says
// where the search is: "halo: searching remez: 7410 taps meets, 7366 misses (14 lengths, 23 s)".
class SearchStatus {
 public:
  explicit SearchStatus(bool enabled);
  ~SearchStatus();
  SearchStatus(const SearchStatus&) = delete;
  SearchStatus& operator=(const SearchStatus&) = delete;

  // For design_to_spec; refers to this status, which must outlive the design.
  filters::SearchObserver observer();

 private:
  void step(const filters::SearchStep& step);

  bool enabled_;
  int drawn_width_ = 0;  // columns of the widest line drawn; 0 while none
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  // The search so far, of the method it is on: the shortest length that met and the longest
  // that missed (0: none yet), and the lengths measured in all.
  filters::Method method_ = filters::Method::automatic;
  int shortest_met_ = 0;
  int longest_missed_ = 0;
  int lengths_ = 0;
};

}  // namespace halo::cli
