// Issue 13, item 3: a WAV header counts bytes in 32 bits, so a WAV over 4 GiB wraps (1.44e9
// stereo pcm16 frames read back as 366,258,176). audio::wav_may_outgrow decides when the
// Writer writes RF64 instead; the expected sizes here are worked out by hand, not by halo.
// The real > 4 GiB run is tests/large/large_wav.cpp (ctest label `large`).
#include <gtest/gtest.h>
#include <sndfile.h>

#include <cstdint>

#include "audio/format.hpp"

namespace {

halo::audio::Format wav(int channels, int subtype, std::int64_t frames) {
  halo::audio::Format format;
  format.rate_hz = 48000;
  format.channels = channels;
  format.container = SF_FORMAT_WAV;
  format.subtype = subtype;
  format.frames = frames;
  return format;
}

TEST(WavSize, MayOutgrowWhereTheHeaderWouldWrap) {
  using halo::audio::wav_may_outgrow;
  // The run: 1,440,000,000 stereo pcm16 frames are 5.76e9 bytes.
  EXPECT_TRUE(wav_may_outgrow(wav(2, SF_FORMAT_PCM_16, 1'440'000'000)));
  EXPECT_FALSE(wav_may_outgrow(wav(1, SF_FORMAT_PCM_16, 1'440'000'000)));  // 2.88e9 bytes
  EXPECT_TRUE(wav_may_outgrow(wav(1, SF_FORMAT_DOUBLE, 536'870'912)));     // exactly 4 GiB
  EXPECT_TRUE(wav_may_outgrow(wav(2, SF_FORMAT_PCM_24, 715'827'883)));     // 3 bytes a sample: just over
  EXPECT_FALSE(wav_may_outgrow(wav(2, SF_FORMAT_PCM_24, 700'000'000)));    // 4.2e9 bytes
  EXPECT_FALSE(wav_may_outgrow(wav(2, SF_FORMAT_FLOAT, 48000 * 3600)));    // an hour of stereo float: 1.4e9 bytes
  EXPECT_TRUE(wav_may_outgrow(wav(8, SF_FORMAT_FLOAT, 48000 * 3600)));     // of 8 channels: 5.5e9
  EXPECT_TRUE(wav_may_outgrow(wav(1, SF_FORMAT_PCM_16, -1)));              // length unknown (a pipe)
  EXPECT_FALSE(wav_may_outgrow(wav(2, SF_FORMAT_PCM_16, 48000)));
  // The boundary: 64 KiB are kept for the header, of the 2^32 - 1 bytes the RIFF size counts.
  EXPECT_FALSE(wav_may_outgrow(wav(1, SF_FORMAT_PCM_U8, 0xFFFFFFFFll - 65536)));
  EXPECT_TRUE(wav_may_outgrow(wav(1, SF_FORMAT_PCM_U8, 0xFFFFFFFFll - 65535)));
}

}  // namespace
