#include "audio/float_frames.hpp"

#include "audio/format.hpp"

namespace halo::audio {

sf_count_t read_float_frames(SNDFILE* file, int format, int channels, float* interleaved, sf_count_t frames,
                             std::vector<int>& ints) {
  if (!is_paf24(format)) return sf_readf_float(file, interleaved, frames);
  const std::size_t samples = static_cast<std::size_t>(frames) * static_cast<std::size_t>(channels);
  if (ints.size() < samples) ints.resize(samples);
  const sf_count_t got = sf_readf_int(file, ints.data(), frames);
  for (std::size_t i = 0; got > 0 && i < static_cast<std::size_t>(got) * static_cast<std::size_t>(channels); ++i)
    interleaved[i] = static_cast<float>(ints[i]) * 0x1p-31f;
  return got;
}

}  // namespace halo::audio
