#include "filters/resample.hpp"

#include <samplerate.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "filters/error.hpp"

namespace halo::filters {

Mask resample(const Mask& mask, double new_rate_hz) {
  if (!(mask.rate_hz > 0) || !(new_rate_hz > 0))
    throw Error(Field::rate_hz, "resampling needs both rates above 0 Hz");
  if (mask.taps.empty()) throw Error("resampling: the mask has no taps");
  const double ratio = new_rate_hz / mask.rate_hz;
  // libsamplerate takes ratios in [1/256, 256].
  if (ratio < 1.0 / 256 || ratio > 256) {
    char text[160];
    std::snprintf(text, sizeof text, "%.10g Hz from the mask's %.10g Hz: libsamplerate changes a rate by at most 256 "
                  "times either way", new_rate_hz, mask.rate_hz);
    throw Error(Field::rate_hz, text);
  }
  const std::size_t frames = static_cast<std::size_t>(std::ceil(static_cast<double>(mask.taps.size()) * ratio));
  // Said before the work, with both lengths: 70000 taps at 187.5 Hz had been resampled for 11 s
  // into a mask no engine takes, then refused without a word of the file (a QA pass).
  if (frames > max_mask_taps) {
    char text[200];
    std::snprintf(text, sizeof text, "%zu taps at %.10g Hz are %zu at %.10g Hz, more than the %zu a mask holds",
                  mask.taps.size(), mask.rate_hz, frames, new_rate_hz, max_mask_taps);
    throw Error(Field::rate_hz, text);
  }
  // libsamplerate gives floor(input x ratio) frames, so the mask's last frame at the new rate
  // (and a mask shorter than a frame there, all of it: one tap of 48 kHz at 8 kHz had come out
  // silent, a QA pass) needs input past the mask's end: zeros, which the mask is made of there.
  std::vector<float> in(mask.taps);
  in.resize(in.size() + static_cast<std::size_t>(std::ceil(1 / ratio)) + 1, 0.0f);
  std::vector<float> out(frames + 2, 0.0f);
  SRC_DATA data{};
  data.data_in = in.data();
  data.input_frames = static_cast<long>(in.size());
  data.data_out = out.data();
  data.output_frames = static_cast<long>(out.size());
  data.src_ratio = ratio;
  // One call over the whole mask: src_simple treats it as the complete input and flushes the
  // filter's tail into the output.
  if (const int code = src_simple(&data, SRC_SINC_BEST_QUALITY, 1); code != 0)
    throw Error(std::string("resampling: ") + src_strerror(code));
  Mask result;
  result.rate_hz = new_rate_hz;
  result.causal = mask.causal;
  result.taps.assign(frames, 0.0f);
  const double scale = mask.rate_hz / new_rate_hz;
  for (std::size_t i = 0; i < frames && i < static_cast<std::size_t>(data.output_frames_gen); ++i)
    result.taps[i] = static_cast<float>(out[i] * scale);
  char note[96];
  std::snprintf(note, sizeof note, ", resampled from %.10g to %.10g Hz", mask.rate_hz, new_rate_hz);
  result.provenance = mask.provenance + note;
  return result;
}

}  // namespace halo::filters
