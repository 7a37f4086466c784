#include "filters/mask.hpp"

#include <algorithm>
#include <cmath>

namespace halo::filters {

std::string mask_set_source(const MaskSet& masks) {
  if (masks.empty()) return "";
  std::string source = masks.front().provenance;
  if (masks.size() == 1) return source;
  // "file ir.wav ch 1", "file m.txt column 1", "file ir.wav ch 1, resampled from 48000 to 44100 Hz":
  // "file ir.wav ch 1 (removed 5 frames of pre-delay)": the first channel's word goes, wherever
  // it stands (after a resampling's note, and before ir fix's steps, it had stayed); the last
  // such word, which the reader added after the name ("room ch 1 a.wav ch 1": a review).
  for (const std::string word : {" ch 1", " column 1"})
    if (const auto at = source.rfind(word); at != std::string::npos && (at + word.size() == source.size() ||
                                                                       source[at + word.size()] == ',' ||
                                                                       source[at + word.size()] == ' '))
      source.erase(at, word.size());
  return source;
}

bool linear_phase(const Mask& mask) {
  const std::vector<float>& h = mask.taps;
  double largest = 0;
  for (float tap : h) largest = std::max(largest, std::fabs(static_cast<double>(tap)));
  if (h.size() < 2 || largest == 0) return false;
  const double slack = 1e-6 * largest;
  bool symmetric = true, antisymmetric = true;
  for (std::size_t k = 0; k < h.size() / 2; ++k) {
    const double a = h[k], b = h[h.size() - 1 - k];
    symmetric = symmetric && std::fabs(a - b) <= slack;
    antisymmetric = antisymmetric && std::fabs(a + b) <= slack;
  }
  return symmetric || antisymmetric;
}

double worst_case_gain(const Mask& mask) {
  double sum = 0;
  for (const float tap : mask.taps) sum += std::fabs(static_cast<double>(tap));
  return sum;
}

double worst_case_gain(const MaskSet& masks) {
  double worst = 0;
  for (const Mask& mask : masks) worst = std::max(worst, worst_case_gain(mask));
  return worst;
}

}  // namespace halo::filters
