// Multi-band specs: the text a user writes, its checks, and the band layout every method and
// the report share.
#include "filters/band_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "filters/error.hpp"

namespace halo::filters {
namespace {

constexpr std::size_t max_bands = 64;
constexpr double max_gain = 1000;
constexpr double max_weight = 1e6;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

std::string trimmed(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// A plain decimal number, or, when `hz`, one with a k, Hz or kHz suffix (as every frequency
// option takes; "4kHz" had been "not LO-HI in Hz" here alone, a QA pass). False when it is not one.
bool read_number(const std::string& raw, bool hz, double& value) {
  std::string text = trimmed(raw);
  double scale = 1;
  const auto ends_with = [&text](const std::string& suffix) {
    if (text.size() < suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(text[text.size() - suffix.size() + i])) != suffix[i]) return false;
    return true;
  };
  if (hz && ends_with("hz")) text.resize(text.size() - 2);
  if (hz && !text.empty() && (text.back() == 'k' || text.back() == 'K')) {
    scale = 1000;
    text.pop_back();
  }
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto parsed = std::from_chars(text.data(), end, value);
  if (parsed.ec != std::errc() || parsed.ptr != end || !std::isfinite(value)) return false;
  value *= scale;
  return true;
}

BandGoal parse_band(const std::string& text, std::size_t index) {
  const std::string where = "band " + std::to_string(index + 1) + " \"" + trimmed(text) + "\"";
  const std::string form = ": write LO-HI:GAIN[/w=WEIGHT], e.g. 0-3000:1 or 4k-24k:0/w=10";
  BandGoal band;
  std::string body = text;
  const auto slash = body.find('/');
  if (slash != std::string::npos) {
    const std::string weight = trimmed(body.substr(slash + 1));
    if (weight.compare(0, 2, "w=") != 0 || !read_number(weight.substr(2), false, band.weight)) {
      throw Error(Field::bands, where + ": the weight is not /w=NUMBER");
    }
    body = body.substr(0, slash);
  }
  const auto colon = body.find(':');
  if (colon == std::string::npos) throw Error(Field::bands, where + ": no gain" + form);
  if (!read_number(body.substr(colon + 1), false, band.gain)) {
    throw Error(Field::bands, where + ": the gain is not a number" + form);
  }
  // The dash between the edges: the first '-' past the first character (a leading '-' is a
  // sign, which validate_bands then refuses).
  const std::string range = trimmed(body.substr(0, colon));
  const std::size_t dash = range.size() > 1 ? range.find('-', 1) : std::string::npos;
  if (dash == std::string::npos || !read_number(range.substr(0, dash), true, band.low_hz) ||
      !read_number(range.substr(dash + 1), true, band.high_hz)) {
    throw Error(Field::bands, where + ": the edges are not LO-HI in Hz" + form);
  }
  return band;
}

}  // namespace

std::vector<BandGoal> parse_bands(const std::string& text) {
  std::vector<BandGoal> bands;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (trimmed(part).empty()) {
      throw Error(Field::bands, "\"" + text + "\": band " + std::to_string(bands.size() + 1) + " is empty");
    }
    bands.push_back(parse_band(part, bands.size()));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return bands;
}

void validate_bands(const std::vector<BandGoal>& bands, double rate_hz) {
  const double nyquist = rate_hz / 2;
  if (bands.size() < 2 || bands.size() > max_bands) {
    throw Error(Field::bands, std::to_string(bands.size()) + " bands: give 2 to " + std::to_string(max_bands) +
                                  " (a pass band and a stop band at least)");
  }
  bool any_pass = false;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    const BandGoal& b = bands[i];
    const std::string where = "band " + std::to_string(i + 1) + " " + number(b.low_hz) + "-" + number(b.high_hz);
    if (!(b.low_hz >= 0)) throw Error(Field::bands, where + ": the lower edge is below 0 Hz");
    if (!(b.high_hz > b.low_hz)) throw Error(Field::bands, where + ": the edges are out of order (LO-HI, LO < HI)");
    if (b.high_hz > nyquist) {
      throw Error(Field::bands, where + ": the upper edge is past Nyquist (" + number(nyquist) + " Hz at a sample rate of " +
                                    number(rate_hz) + " Hz)");
    }
    if (!(b.gain >= 0 && b.gain <= max_gain)) {
      throw Error(Field::bands, where + ": the gain " + number(b.gain) + " must be in [0, " + number(max_gain) + "]");
    }
    if (!(b.weight > 0 && b.weight <= max_weight)) {
      throw Error(Field::bands, where + ": the weight " + number(b.weight) + " must be in (0, " + number(max_weight) + "]");
    }
    if (i > 0 && !(b.low_hz > bands[i - 1].high_hz)) {
      // Below the band before it altogether: out of order, not overlapping (it had said
      // "overlaps or touches" of two bands far apart, a QA pass).
      const bool below = b.high_hz < bands[i - 1].low_hz;
      throw Error(Field::bands, where + (below ? " comes before band " : " overlaps or touches band ") + std::to_string(i) +
                                    " " + number(bands[i - 1].low_hz) + "-" + number(bands[i - 1].high_hz) +
                                    ": bands go lowest first with a transition between");
    }
    any_pass = any_pass || b.gain > 0;
  }
  if (!any_pass) throw Error(Field::bands, "every band has gain 0: nothing would pass");
}

std::vector<BandGoal> band_layout(const Spec& spec, int taps) {
  // With both goals, the stop bands weigh delta_pass / delta_stop: equiripple then meets both
  // at once (Parks and McClellan's weighting); a multi-band spec's own weights are multiplied.
  double w = 1;
  if (spec.ripple_db > 0 && spec.attenuation_db > 0) {
    const double g = std::pow(10.0, spec.ripple_db / 20);
    w = ((g - 1) / (g + 1)) / std::pow(10.0, -spec.attenuation_db / 20);
  }
  if (spec.band == Band::multiband) {
    std::vector<BandGoal> bands = spec.bands;
    for (BandGoal& band : bands)
      if (band.gain == 0) band.weight *= w;
    return bands;
  }
  const double nyquist = spec.rate_hz / 2;
  const double width = spec.transition_hz > 0 ? spec.transition_hz : 4 * spec.rate_hz / std::max(taps, 1);
  // Keeps an edge inside the band it bounds: a short mask's guard can be wider than the band.
  const auto below = [&](double f, double floor) { return std::max(f - width / 2, floor + 1e-9 * nyquist); };
  const auto above = [&](double f, double ceiling) { return std::min(f + width / 2, ceiling - 1e-9 * nyquist); };
  const double f1 = spec.low_hz, f2 = spec.high_hz;
  const double middle = (f1 + f2) / 2;
  switch (spec.band) {
    case Band::lowpass: return {{0, below(f1, 0), 1, 1}, {above(f1, nyquist), nyquist, 0, w}};
    case Band::highpass: return {{0, below(f1, 0), 0, w}, {above(f1, nyquist), nyquist, 1, 1}};
    case Band::bandpass:
      return {{0, below(f1, 0), 0, w}, {above(f1, middle), below(f2, middle), 1, 1}, {above(f2, nyquist), nyquist, 0, w}};
    case Band::bandstop:
      return {{0, below(f1, 0), 1, 1}, {above(f1, middle), below(f2, middle), 0, w}, {above(f2, nyquist), nyquist, 1, 1}};
    case Band::multiband: break;
  }
  return spec.bands;
}

std::string to_string(const std::vector<BandGoal>& bands) {
  std::string text;
  for (const BandGoal& b : bands) {
    if (!text.empty()) text += ", ";
    text += number(b.low_hz) + "-" + number(b.high_hz) + ":" + number(b.gain);
    if (b.weight != 1) text += "/w=" + number(b.weight);
  }
  return text;
}

}  // namespace halo::filters
