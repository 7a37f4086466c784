#include "filters/resample.hpp"

#include <samplerate.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "filters/error.hpp"
#include "filters/real_transform.hpp"

namespace halo::filters {
namespace {

// The mask's band-limited values at old frames i + offset for i in [0, count): its spectrum
// (zero-padded to at least twice count, so that the interpolation's wrap-around lies a whole
// count away) turned by e^{2 pi j k offset / n}, in double.
std::vector<float> band_limited_from(const std::vector<float>& taps, double offset, std::size_t count) {
  std::size_t n = 2;
  while (n < 2 * std::max(count, taps.size())) n *= 2;
  RealTransform transform(n);
  double* x = transform.real();
  std::fill(x, x + n, 0.0);
  std::copy(taps.begin(), taps.end(), x);
  transform.forward();
  const double pi = 3.14159265358979323846;
  std::complex<double>* bins = transform.spectrum();
  for (std::size_t k = 0; k <= n / 2; ++k)
    bins[k] *= std::polar(1.0 / static_cast<double>(n), 2 * pi * static_cast<double>(k) * offset / static_cast<double>(n));
  transform.backward();  // c2r reads the real part of the last bin: the band-limited value
  return std::vector<float>(x, x + count);
}

// libsamplerate's best sinc over `in`, as one whole input (its tail flushed into the output).
std::vector<float> run_libsamplerate(const std::vector<float>& in, double ratio, std::size_t out_frames) {
  std::vector<float> out(out_frames, 0.0f);
  SRC_DATA data{};
  data.data_in = in.data();
  data.input_frames = static_cast<long>(in.size());
  data.data_out = out.data();
  data.output_frames = static_cast<long>(out.size());
  data.src_ratio = ratio;
  if (const int code = src_simple(&data, SRC_SINC_BEST_QUALITY, 1); code != 0)
    throw Error(std::string("resampling: ") + src_strerror(code));
  out.resize(static_cast<std::size_t>(data.output_frames_gen));
  return out;
}

}  // namespace

Mask resample(const Mask& mask, double new_rate_hz, double* energy_cut) {
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
  std::size_t frames = static_cast<std::size_t>(std::ceil(static_cast<double>(mask.taps.size()) * ratio));
  if (!mask.causal && mask.taps.size() % 2 == 1 && frames % 2 == 0) ++frames;  // a whole-frame centre
  // Said before the work, with both lengths: 70000 taps at 187.5 Hz had been resampled for 11 s
  // into a mask no engine takes, then refused without a word of the file (a QA pass).
  if (frames > max_mask_taps) {
    char text[200];
    std::snprintf(text, sizeof text, "%zu taps at %.10g Hz are %zu at %.10g Hz, more than the %zu a mask holds",
                  mask.taps.size(), mask.rate_hz, frames, new_rate_hz, max_mask_taps);
    throw Error(Field::rate_hz, text);
  }
  // libsamplerate puts new frame j at old frame j / ratio. A causal mask keeps its start there;
  // a centred one (its (M - 1) / 2 frames of delay removed) must keep its centre, new frame
  // (frames - 1) / 2 at old (M - 1) / 2, so its grid starts `start` old frames in (within a new
  // frame and half an old one of 0, the length kept odd). Started at 0, one tap at 8 kHz had come out at 48 kHz with its peak 2.5 frames
  // early, and a 255-tap low-pass from 44.1 to 48 kHz 0.27 frames early, no longer symmetric (a
  // QA pass).
  const double start =
      mask.causal ? 0 : 0.5 * static_cast<double>(mask.taps.size() - 1) - 0.5 * static_cast<double>(frames - 1) / ratio;
  // Off the old grid, libsamplerate is given the mask's band-limited values at old frames
  // i + offset (i >= 0), whose tails do not end at the mask's ends as its taps do: `margin` old
  // frames of them before the mask and after it, beyond the reach of libsamplerate's best sinc
  // (about 143 zero crossings of the lower rate), so that neither end is cut where the other
  // is not. `lead` is the new frames the margin before it makes, dropped from the output.
  const std::size_t margin = start == 0 ? 0 : static_cast<std::size_t>(std::ceil(256 / std::min(1.0, ratio)));
  const std::size_t lead = static_cast<std::size_t>(std::ceil(static_cast<double>(margin) * ratio));
  const double offset = start - static_cast<double>(lead) / ratio;  // old frame of input frame 0
  // libsamplerate gives floor(input x ratio) frames, so the mask's last frame at the new rate
  // (and a mask shorter than a frame there, all of it: one tap of 48 kHz at 8 kHz had come out
  // silent, a QA pass) needs input past the mask's end.
  const std::size_t input_frames =
      2 * margin + mask.taps.size() + static_cast<std::size_t>(std::ceil(1 / ratio)) + 1;
  std::vector<float> in = margin == 0 ? mask.taps : band_limited_from(mask.taps, offset, input_frames);
  in.resize(input_frames, 0.0f);  // beyond the mask on the old grid: zeros, which it is made of there
  // One call over the whole mask: src_simple treats it as the complete input and flushes the
  // filter's tail into the output.
  const std::vector<float> out = run_libsamplerate(in, ratio, lead + frames + 2);
  if (energy_cut) {
    *energy_cut = 0;
    if (mask.causal) {
      // The first taps again with room before them: what rings there is what the start cuts.
      // Only they reach it (the sinc's reach, `room` old frames), so a long IR is not resampled
      // twice; the rest of the energy is the result's own. (An estimate: that grid lies up to half
      // a new frame off the result's, so the frame nearest the start is taken for its first.)
      const std::size_t room = static_cast<std::size_t>(std::ceil(256 / std::min(1.0, ratio)));
      std::vector<float> padded(room, 0.0f);
      padded.insert(padded.end(), in.begin(), in.begin() + static_cast<long>(std::min(in.size(), 2 * room)));
      const std::vector<float> ring =
          run_libsamplerate(padded, ratio, static_cast<std::size_t>(std::ceil(static_cast<double>(padded.size()) * ratio)) + 4);
      const auto before_start =
          std::min(ring.size(), static_cast<std::size_t>(std::llround(static_cast<double>(room) * ratio)));
      double before = 0, kept = 0;
      for (std::size_t i = 0; i < before_start; ++i) before += static_cast<double>(ring[i]) * ring[i];
      for (std::size_t i = lead; i < lead + frames && i < out.size(); ++i) kept += static_cast<double>(out[i]) * out[i];
      *energy_cut = before + kept > 0 ? before / (before + kept) : 0;
    }
  }
  Mask result;
  result.rate_hz = new_rate_hz;
  result.causal = mask.causal;
  result.alignment_stated = mask.alignment_stated;
  result.taps.assign(frames, 0.0f);
  const double scale = mask.rate_hz / new_rate_hz;
  for (std::size_t i = 0; i < frames && lead + i < out.size(); ++i)
    result.taps[i] = static_cast<float>(out[lead + i] * scale);
  char note[96];
  std::snprintf(note, sizeof note, ", resampled from %.10g to %.10g Hz", mask.rate_hz, new_rate_hz);
  result.provenance = mask.provenance + note;
  return result;
}

MaskSet resample(const MaskSet& masks, double new_rate_hz, double* energy_cut) {
  MaskSet result;
  double largest = 0;
  for (const Mask& mask : masks) {
    double cut = 0;
    result.push_back(resample(mask, new_rate_hz, &cut));
    largest = std::max(largest, cut);
  }
  if (energy_cut) *energy_cut = largest;
  return result;
}

}  // namespace halo::filters
