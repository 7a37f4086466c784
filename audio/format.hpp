#pragma once
#include <cstdint>
#include <string>

namespace halo::audio {

// What a sound file holds. `container` and `subtype` are libsndfile's SF_FORMAT_* major and
// subtype codes; frames is -1 when unknown (a pipe).
struct Format {
  int rate_hz = 0;
  int channels = 0;
  int container = 0;
  int subtype = 0;
  std::int64_t frames = -1;
};

std::string container_name(int container);  // "WAV", "FLAC", ...
std::string subtype_name(int subtype);      // "pcm16", "float", "vorbis", ...

// The container libsndfile writes for a file name's extension, 0 when none matches.
int container_for_extension(const std::string& path);

// "pcm16|pcm24|pcm32|float|double" (also pcm8, ulaw, alaw, vorbis, opus) → SF_FORMAT_*;
// throws audio::Error saying which names there are (the CLI adds its flag, --subtype).
int parse_subtype(const std::string& text);

// How samples of a subtype are scaled on the way out. Integer PCM is written from the raw
// integer value (libsndfile reads pcm16 as v / 32768 but writes float * 32767, so a round
// trip through normalised floats is not exact; we scale by full_scale ourselves).
struct SampleScale {
  double full_scale = 1.0;  // float value 1.0 maps to this; 32768 for pcm16
  double lowest = -1.0;     // smallest value that fits, in output units
  double highest = 1.0;     // largest value that fits, in output units
  bool integer = false;     // written raw (normalisation off) after rounding by libsndfile
  bool clips = true;        // false for float and double: nothing is clipped or counted
};
SampleScale sample_scale(int subtype);

}  // namespace halo::audio

namespace halo::audio {

// The format an output gets: the input's rate and channels; the container named by the
// output's extension (the input's when it has none, or for "-"); the input's subtype, or
// `subtype` when non-zero. Where the container cannot hold the input's subtype, the nearest
// that it can (float, then pcm24, pcm16, vorbis, opus). Throws audio::Error when none fits.
// `container` (non-zero) overrides the extension (`--type`).
Format output_format(const Format& input, const std::string& output_path, int subtype, int container = 0);

}  // namespace halo::audio
