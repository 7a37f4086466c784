// audio::layout_problem, the layout a sound file is written in tried in memory first
// (audio/format_probe.hpp): what libsndfile accepts on paper but writes otherwise is named,
// what it writes exactly passes. The figures are libsndfile's own rounding, checked by hand
// against its formats: VOC's 8-bit time constant (256 - 1e6/rate, a byte) and HTK's sample
// period in 100 ns.
#include "audio/format_probe.hpp"

#include <gtest/gtest.h>
#include <sndfile.h>

#include <string>

namespace halo::audio {
namespace {

TEST(FormatProbe, NamesWhatLibsndfileWritesOtherwise) {
  // 1e6 / (256 - round(256 - 1e6 / 44100)) = 1e6 / 22 = 45454.
  EXPECT_EQ(layout_problem(SF_FORMAT_VOC, SF_FORMAT_PCM_U8, 44100, 1), "the file would say 45454 Hz, not 44100");
  // 1e7 / 48000 = 208.3, kept as 208 units of 100 ns: 48076 Hz.
  EXPECT_EQ(layout_problem(SF_FORMAT_HTK, SF_FORMAT_PCM_16, 48000, 1), "the file would say 48076 Hz, not 48000");
  EXPECT_EQ(layout_problem(SF_FORMAT_WVE, SF_FORMAT_ALAW, 48000, 1), "the file would say 8000 Hz, not 48000");
  EXPECT_EQ(layout_problem(SF_FORMAT_VOC, SF_FORMAT_ULAW, 44100, 1), "libsndfile reads back 1 frame more than it writes");
  EXPECT_EQ(layout_problem(SF_FORMAT_OGG, SF_FORMAT_OPUS, 44100, 2), "Opus codes 8, 12, 16, 24 or 48 kHz");
  // AIFF pads an odd count of bytes to a 16-bit word, and libsndfile's header counts the pad as a
  // frame (807 mono 8-bit frames read back as 808, a QA pass); an even count of bytes is exact.
  for (const int subtype : {SF_FORMAT_PCM_S8, SF_FORMAT_ULAW, SF_FORMAT_ALAW}) {
    EXPECT_EQ(layout_problem(SF_FORMAT_AIFF, subtype, 8000, 1), "libsndfile reads back 1 frame more than it writes at an odd length")
        << std::hex << subtype;
    EXPECT_EQ(layout_problem(SF_FORMAT_AIFF, subtype, 8000, 1, 807), "libsndfile reads back 1 frame more than it writes at an odd length")
        << std::hex << subtype;
    EXPECT_EQ(layout_problem(SF_FORMAT_AIFF, subtype, 8000, 1, 808), "") << std::hex << subtype;  // known to be even
    EXPECT_EQ(layout_problem(SF_FORMAT_AIFF, subtype, 8000, 2), "") << std::hex << subtype;
  }
  EXPECT_EQ(layout_problem(SF_FORMAT_OGG, SF_FORMAT_VORBIS, 256000, 1).rfind("libsndfile cannot write it (", 0), 0u);
}

TEST(FormatProbe, PassesWhatLibsndfileWritesExactly) {
  for (const auto& [container, subtype, rate, channels] :
       {std::tuple<int, int, int, int>{SF_FORMAT_WAV, SF_FORMAT_PCM_16, 44100, 2},
        {SF_FORMAT_WAV, SF_FORMAT_FLOAT, 48000, 6},
        {SF_FORMAT_FLAC, SF_FORMAT_PCM_24, 96000, 2},
        {SF_FORMAT_VOC, SF_FORMAT_PCM_16, 44100, 1},  // VOC's 16 bits keep the rate whole
        {SF_FORMAT_HTK, SF_FORMAT_PCM_16, 8000, 1},   // 1250 units of 100 ns: exact
        {SF_FORMAT_RAW, SF_FORMAT_PCM_24, 48000, 2},  // no header: read as written
        {SF_FORMAT_OGG, SF_FORMAT_VORBIS, 48000, 2},
        {SF_FORMAT_WAV, SF_FORMAT_PCM_16, 48000, 1024},
        {SF_FORMAT_WAV, SF_FORMAT_PCM_U8, 44100, 1},   // WAV counts its pad byte as a pad
        {SF_FORMAT_AIFF, SF_FORMAT_PCM_16, 44100, 1},
        {SF_FORMAT_PAF, SF_FORMAT_PCM_24, 48000, 1}})  // pads its blocks of 10 frames, said elsewhere
    EXPECT_EQ(layout_problem(container, subtype, rate, channels), "")
        << std::hex << container << " " << subtype << std::dec << " at " << rate << " Hz, " << channels << " ch";
}

}  // namespace
}  // namespace halo::audio
