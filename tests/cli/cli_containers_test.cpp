// Containers whose details halo had got wrong (a QA pass over every format libsndfile handles):
// integer samples written through libsndfile's int path (PAF 24-bit had come out wrong from
// unnormalised doubles), layouts libsndfile writes but cannot read back refused (SDS 8 and 24
// bits, SD2's resource fork), a WAVEX kept WAVEX with its channel mask, NIST named as such.
// What halo writes is read back with python-soundfile and compared with the input read the
// same way; the WAVEX header is read byte by byte.
#include <gtest/gtest.h>
#include <sndfile.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

TEST(Containers, IntegerSamplesAreExactInEveryContainerThatHoldsThem) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4000, 71, 0.3f), 1, 8000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_mask_text(dir / "unit.txt", {{1.0f}});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"paf", "pcm24"}, {"paf", "pcm16"}, {"paf", "pcm8"},   {"sds", "pcm16"}, {"wav", "pcm8"},  {"wav", "pcm16"},
      {"wav", "pcm24"}, {"wav", "pcm32"}, {"aiff", "pcm8"},  {"au", "pcm32"},  {"caf", "pcm24"}, {"w64", "pcm16"},
      {"flac", "pcm24"}, {"mat5", "pcm32"}, {"avr", "pcm8"}, {"voc", "pcm16"}, {"nist", "pcm24"}, {"ircam", "pcm32"}};
  std::string names;
  for (const auto& [extension, subtype] : cases) {
    const std::string out = "out-" + subtype + "." + extension;
    const Result result = halo({"filter", dir / "in.wav", dir / out, "--mask", dir / "unit.txt", "--subtype", subtype,
                                "--no-dither", "-q"});
    ASSERT_EQ(result.exit_code, 0) << out << ": " << result.err;
    names += "'" + out + "', ";
  }
  // The unit mask's output is the input rounded to the subtype: within half an LSB, every sample.
  const Result check = python(dir.path(), "import numpy as np, soundfile as sf\nnames = [" + names + "]\n" + R"(
x, _ = sf.read('in.wav', dtype='float64')
for name in names:
    y, _ = sf.read(name, dtype='float64')
    bits = int(name.split('-')[1].split('.')[0][3:])
    assert len(y) == len(x), (name, len(y))
    error = np.max(np.abs(y - x)) * 2 ** (bits - 1)
    assert error <= 0.5 + 1e-6, (name, error)
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// XI holds delta PCM alone (dpcm16, dpcm8): halo wrote no XI at all ("XI cannot hold 1 channels
// at 44100 Hz", untrue), and an XI IN became float elsewhere, twice the size (a QA pass). Each
// way the samples are exact.
TEST(Containers, XiIsWrittenAsDeltaPcmAndReadAsThePcmOfItsWidth) {
  TempDir dir;
  write_mask_text(dir / "unit.txt", {{1.0f}});
  const Result made = python(dir.path(), R"(
import numpy as np, soundfile as sf
sf.write('in16.wav', np.random.default_rng(3).integers(-30000, 30000, 4410).astype(np.int16), 44100, subtype='PCM_16')
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const Result xi = halo({"filter", dir / "in16.wav", dir / "out.xi", "--mask", dir / "unit.txt", "--no-dither"});
  ASSERT_EQ(xi.exit_code, 0) << xi.err;
  EXPECT_NE(xi.err.find("XI dpcm16, 44100 Hz"), std::string::npos) << xi.err;
  const Result back = halo({"filter", dir / "out.xi", dir / "back.wav", "--mask", dir / "unit.txt", "--no-dither"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_NE(back.err.find("WAV pcm16, 44100 Hz"), std::string::npos) << back.err;
  ASSERT_EQ(halo({"filter", dir / "in16.wav", dir / "out8.xi", "--mask", dir / "unit.txt", "--subtype", "dpcm8", "-q"}).exit_code, 0);
  const Result check = python(dir.path(), R"(
import numpy as np, soundfile as sf
x = sf.read('in16.wav', dtype='int16')[0]
for name in ('out.xi', 'back.wav'):
    y = sf.read(name, dtype='int16')[0]
    assert y.shape == x.shape and (y == x).all(), (name, np.abs(y.astype(int) - x).max())
y = sf.read('out8.xi', dtype='float64')[0]
assert sf.info('out8.xi').subtype == 'DPCM_8' and np.abs(y - x / 32768.0).max() <= 1.5 / 128, np.abs(y - x / 32768.0).max()  # half an LSB and the dither's one
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// A mono 8-bit, u-law or A-law AIFF of an odd length: libsndfile's header counts the pad byte
// that rounds the data to a 16-bit word as a frame, so 807 frames read back as 808, and the
// summary had said 807 (a QA pass). Asked for, the layout is refused; taken from IN, the next
// subtype that holds the length is written; an even length is written as asked.
TEST(Containers, AnOddLengthIsNotPaddedByAFrame) {
  TempDir dir;
  write_sound(dir / "odd.wav", random_signal(807, 78, 0.3f), 1, 8000, SF_FORMAT_WAV | SF_FORMAT_PCM_U8);
  write_sound(dir / "even.wav", random_signal(808, 79, 0.3f), 1, 8000, SF_FORMAT_WAV | SF_FORMAT_PCM_U8);
  const DirectorySnapshot before(dir.path());
  for (const std::string subtype : {"pcm8", "ulaw", "alaw"})
    expect_one_line_failure(halo({"filter", dir / "odd.wav", dir / "x.aiff", "--lowpass", "1k", "--subtype", subtype}), 1,
                            "reads back 1 frame more than it writes at an odd length", before, subtype);
  for (const auto& args : {std::vector<std::string>{"filter", dir / "odd.wav", dir / "odd.aiff", "--lowpass", "1k", "-q"},
                           {"filter", dir / "even.wav", dir / "even.aiff", "--lowpass", "1k", "--subtype", "pcm8", "-q"}}) {
    std::vector<std::string> command = {HALO_BINARY};
    command.insert(command.end(), args.begin(), args.end());
    const Result result = run(command);
    ASSERT_EQ(result.exit_code, 0) << describe(command, result);
  }
  const Result check = python(dir.path(), R"(
import soundfile as sf
assert sf.info('odd.aiff').frames == 807, sf.info('odd.aiff').frames
assert sf.info('odd.aiff').subtype != 'PCM_S8', sf.info('odd.aiff').subtype
assert sf.info('even.aiff').frames == 808 and sf.info('even.aiff').subtype == 'PCM_S8', sf.info('even.aiff')
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// ALAC is integer PCM behind a lossless codec: rounded to the nearest as PCM is (libsndfile had
// truncated halo's floats, 0.5 LSB of DC, and 29 of 60000 samples of a copy came back 1 LSB
// low), dithered at 16 bits, and elsewhere written as the PCM of its width (a QA pass).
TEST(Containers, AlacIsRoundedAndDitheredAsPcmIs) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(8000, 76, 0.3f), 2, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_mask_text(dir / "unit.txt", {{1.0f}});
  for (const std::string bits : {"16", "24"}) {
    for (const std::string dither : {"--no-dither", "-q"}) {
      const std::string out = dir / ("alac" + bits + (dither == "-q" ? "-dithered" : "") + ".caf");
      const Result result = halo({"filter", dir / "in.wav", out, "--mask", dir / "unit.txt", "--subtype", "alac" + bits,
                                  dither, "-q"});
      ASSERT_EQ(result.exit_code, 0) << out << ": " << result.err;
    }
  }
  const Result copy = halo({"filter", dir / "alac16.caf", dir / "copy.wav", "--mask", dir / "unit.txt", "--no-dither"});
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  EXPECT_NE(copy.err.find("WAV pcm16,"), std::string::npos) << copy.err;
  const Result check = python(dir.path(), R"(
import numpy as np, soundfile as sf
x, _ = sf.read('in.wav', dtype='float64')
for bits in (16, 24):
    full = 2.0 ** (bits - 1)
    y, _ = sf.read('alac%d.caf' % bits, dtype='float64')
    assert sf.info('alac%d.caf' % bits).subtype == 'ALAC_%d' % bits
    error = (y - x) * full
    assert np.max(np.abs(error)) <= 0.5 + 1e-6, (bits, np.max(np.abs(error)))
    d, _ = sf.read('alac%d-dithered.caf' % bits, dtype='float64')
    changed = np.mean(d != y)
    # TPDF dither below 24 bits: about a third of the samples move by an LSB, around no offset.
    assert (0.2 < changed < 0.5) if bits == 16 else changed == 0, (bits, changed)
    assert abs(np.mean((d - x) * full)) < 0.05, (bits, np.mean((d - x) * full))
# The 16-bit ALAC copied into a WAV: pcm16, every sample as it was.
a, _ = sf.read('alac16.caf', dtype='int16'); c, _ = sf.read('copy.wav', dtype='int16')
assert np.array_equal(a, c)
)");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

// PAF of every width from a pipe gives what it gives from the file: 24-bit had been refused
// there ("SF_INFO struct incomplete": libsndfile reads it only from a seekable file, so it now
// goes through the temporary, as FLAC does; a QA pass).
TEST(Containers, PafFromAPipeIsPafFromAFile) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4000, 74, 0.3f), 2, 8000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  for (const std::string subtype : {"pcm24", "pcm16", "pcm8"}) {
    const std::string paf = dir / ("in-" + subtype + ".paf");
    ASSERT_EQ(halo({"filter", dir / "in.wav", paf, "--lowpass", "2k", "--subtype", subtype, "--no-dither", "-q"}).exit_code, 0);
    ASSERT_EQ(halo({"filter", paf, dir / "from-file.wav", "--lowpass", "1k", "--subtype", "float", "-q"}).exit_code, 0);
    const Result piped = run({"/bin/sh", "-c", "cat '" + paf + "' | " + HALO_BINARY + " filter - '" + dir / "from-pipe.wav" +
                                                   "' --lowpass 1k --subtype float -q"});
    ASSERT_EQ(piped.exit_code, 0) << subtype << ": " << piped.err;
    const Sound from_file = read_sound(dir / "from-file.wav"), from_pipe = read_sound(dir / "from-pipe.wav");
    ASSERT_EQ(from_pipe.frames, 4000u / 2) << subtype;
    EXPECT_TRUE(from_pipe.samples == from_file.samples) << subtype;
  }
}

// Codecs libsndfile reads only from a file come through a pipe all the same (copied first): an
// AU of G.721 or G.723 had been "no audio frames", an AIFC of GSM 6.10 "Unspecified internal
// error" (a QA pass). And a WVE, which holds A-law alone, is written so from 16-bit IN without
// --subtype (it had been "cannot hold 1 channels"), and --type takes mpc2k, libsndfile's name.
TEST(Containers, CodecsReadOnlyFromAFileComeThroughAPipe) {
  TempDir dir;
  const Result made = python(dir.path(), R"(
import numpy as np, soundfile as sf
x = 0.5 * np.sin(2 * np.pi * 440 * np.arange(8000) / 8000)
for subtype in ('G721_32', 'G723_24', 'G723_40'):
    sf.write('%s.au' % subtype, x, 8000, subtype=subtype)
sf.write('gsm.aiff', x, 8000, format='AIFF', subtype='GSM610')
sf.write('m8k.wav', x, 8000, subtype='PCM_16')
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  for (const std::string name : {"G721_32.au", "G723_24.au", "G723_40.au", "gsm.aiff"}) {
    ASSERT_EQ(halo({"filter", dir / name, dir / "from-file.wav", "--lowpass", "1k", "-q"}).exit_code, 0) << name;
    const Result piped = run({"/bin/sh", "-c", "cat '" + dir / name + "' | " + HALO_BINARY + " filter - '" +
                                                   dir / "from-pipe.wav" + "' --lowpass 1k -q"});
    ASSERT_EQ(piped.exit_code, 0) << name << ": " << piped.err;
    EXPECT_TRUE(read_sound(dir / "from-pipe.wav").samples == read_sound(dir / "from-file.wav").samples) << name;
  }
  const Result wve = halo({"filter", dir / "m8k.wav", dir / "out.wve", "--lowpass", "1k", "-q"});
  ASSERT_EQ(wve.exit_code, 0) << wve.err;
  EXPECT_NE(halo({"info", dir / "out.wve"}).out.find("WVE alaw"), std::string::npos);
  const Result mpc = halo({"filter", dir / "m8k.wav", dir / "out.mpc", "--type", "mpc2k", "--lowpass", "1k", "-q"});
  EXPECT_EQ(mpc.exit_code, 0) << mpc.err;
}

// A codec the container holds for fewer channels than IN has is named as such: "WAV cannot
// hold --subtype gsm610" had sent the user looking for another container (a QA pass).
TEST(Containers, ACodecForFewerChannelsSaysSo) {
  TempDir dir;
  write_sound(dir / "six.wav", random_signal(6000, 75, 0.3f), 6, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_sound(dir / "two.wav", random_signal(2000, 76, 0.3f), 2, 8000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const DirectorySnapshot before(dir.path());
  expect_one_line_failure(halo({"filter", dir / "six.wav", dir / "x.wav", "--lowpass", "1k", "--subtype", "ima-adpcm"}), 1,
                          "WAV holds --subtype ima-adpcm with fewer channels than IN's 6", before, "ima-adpcm, 6 channels");
  expect_one_line_failure(halo({"filter", dir / "two.wav", dir / "x.wav", "--lowpass", "1k", "--subtype", "gsm610"}), 1,
                          "WAV holds --subtype gsm610 with fewer channels than IN's 2", before, "gsm610, 2 channels");
}

TEST(Containers, LayoutsLibsndfileCannotReadBackAreRefused) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4000, 72, 0.3f), 1, 8000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  for (const std::string subtype : {"pcm24", "pcm8"}) {
    const DirectorySnapshot before(dir.path());
    const auto args = halo_args({"filter", dir / "in.wav", dir / "out.sds", "--lowpass", "1k", "--subtype", subtype});
    expect_one_line_failure(run(args), 2, "SDS cannot hold --subtype " + subtype, before, subtype);
  }
  // Float in, SDS out: the subtype chosen is one that reads back (pcm16), not pcm24.
  ASSERT_EQ(halo({"filter", dir / "in.wav", dir / "out.sds", "--lowpass", "1k", "-q"}).exit_code, 0);
  SF_INFO info{};
  SNDFILE* file = sf_open((dir / "out.sds").c_str(), SFM_READ, &info);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(info.format & SF_FORMAT_SUBMASK, SF_FORMAT_PCM_16);
  sf_close(file);
  // SD2: refused before any work, nothing written here or in the working directory (its
  // resource fork had gone to a "._" there).
  const DirectorySnapshot before(dir.path());
  const auto args = halo_args({"filter", dir / "in.wav", dir / "out.sd2", "--lowpass", "1k"});
  expect_one_line_failure(run(args, in_directory(dir.path())), 2, "cannot write SD2", before, "sd2");
}

// Layouts libsndfile accepts on paper but writes at another rate or length are refused, with
// what would have gone wrong; they had been written with a summary naming IN's rate (a QA
// pass). The same containers at layouts they hold exactly still work.
TEST(Containers, LayoutsWrittenAtAnotherRateOrLengthAreRefused) {
  TempDir dir;
  for (const int rate : {8000, 44100, 48000, 256000})
    write_sound(dir / ("in" + std::to_string(rate) + ".wav"), random_signal(rate / 10, 77, 0.3f), 1, rate,
                SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  struct Case {
    int rate;
    std::string out, subtype, said;
  };
  for (const Case& c : {Case{44100, "a.voc", "pcm8", "VOC pcmu8 at 44100 Hz: the file would say 45454 Hz, not 44100"},
                        Case{44100, "b.voc", "ulaw", "VOC ulaw at 44100 Hz: libsndfile reads back 1 frame more than it writes"},
                        Case{48000, "c.wve", "alaw", "WVE alaw at 48000 Hz: the file would say 8000 Hz, not 48000"},
                        Case{48000, "d.htk", "", "(pcm16: the file would say 48076 Hz, not 48000)"},
                        Case{256000, "e.ogg", "", "(vorbis: libsndfile cannot write it"}}) {
    const DirectorySnapshot before(dir.path());
    std::vector<std::string> args = halo_args({"filter", dir / ("in" + std::to_string(c.rate) + ".wav"), dir / c.out, "--lowpass", "1k"});
    if (!c.subtype.empty()) args.insert(args.end(), {"--subtype", c.subtype});
    expect_one_line_failure(run(args), 1, c.said, before, c.out);
  }
  for (const auto& [rate, out] : {std::pair<int, std::string>{44100, "ok.voc"}, {8000, "ok.htk"}, {48000, "ok.ogg"}}) {
    ASSERT_EQ(halo({"filter", dir / ("in" + std::to_string(rate) + ".wav"), dir / out, "--lowpass", "1k", "-q"}).exit_code, 0)
        << out;
    SF_INFO info{};
    SNDFILE* file = sf_open((dir / out).c_str(), SFM_READ, &info);
    ASSERT_NE(file, nullptr) << out;
    EXPECT_EQ(info.samplerate, rate) << out;
    if (out != "ok.ogg") {
      EXPECT_EQ(info.frames, rate / 10) << out;
    }
    sf_close(file);
  }
}

TEST(Containers, AWavexStaysWavexWithItsChannelMask) {
  TempDir dir;
  write_sound(dir / "six.wav", random_signal(6000, 73, 0.3f), 6, 48000, SF_FORMAT_WAVEX | SF_FORMAT_PCM_24);
  ASSERT_EQ(halo({"filter", dir / "six.wav", dir / "out.wav", "--lowpass", "5k", "-q"}).exit_code, 0);
  const std::string in = read_bytes(dir / "six.wav"), out = read_bytes(dir / "out.wav");
  ASSERT_EQ(in.substr(12, 4), "fmt ");
  ASSERT_EQ(out.substr(12, 4), "fmt ");
  auto u16 = [](const std::string& b, std::size_t at) { return static_cast<unsigned>(static_cast<unsigned char>(b[at])) |
                                                               static_cast<unsigned>(static_cast<unsigned char>(b[at + 1])) << 8; };
  EXPECT_EQ(u16(out, 20), 0xFFFEu) << "WAVE_FORMAT_EXTENSIBLE";
  EXPECT_EQ(u16(out, 40), u16(in, 40)) << "the channel mask (low half)";
  EXPECT_EQ(u16(in, 40), 0x3Fu) << "libsndfile's 5.1 mask, what the input carries";
  // Asked for by name, from a plain WAV.
  write_sound(dir / "plain.wav", random_signal(2000, 74, 0.3f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  ASSERT_EQ(halo({"filter", dir / "plain.wav", dir / "x.wav", "--lowpass", "5k", "--type", "wavex", "-q"}).exit_code, 0);
  EXPECT_EQ(u16(read_bytes(dir / "x.wav"), 20), 0xFFFEu);
  // More than two channels from a container with no layout (FLAC): WAVEX, as sox writes, with
  // libsndfile's 5.1 mask for six; two stay a plain WAV.
  write_sound(dir / "six.flac", random_signal(6000, 77, 0.3f), 6, 48000, SF_FORMAT_FLAC | SF_FORMAT_PCM_16);
  ASSERT_EQ(halo({"filter", dir / "six.flac", dir / "six.wav", "--lowpass", "5k", "-q"}).exit_code, 0);
  const std::string six = read_bytes(dir / "six.wav");
  EXPECT_EQ(u16(six, 20), 0xFFFEu);
  EXPECT_EQ(u16(six, 40), 0x3Fu);
  // Eight: FLAC's 7.1 (FL FR FC LFE BL BR SL SR), 0x63F, as sox writes it (libsndfile's own 0xFF
  // had called the side pair front-of-centre, a QA pass).
  write_sound(dir / "eight.flac", random_signal(8000, 78, 0.3f), 8, 48000, SF_FORMAT_FLAC | SF_FORMAT_PCM_16);
  ASSERT_EQ(halo({"filter", dir / "eight.flac", dir / "eight.wav", "--lowpass", "5k", "-q"}).exit_code, 0);
  const std::string eight = read_bytes(dir / "eight.wav");
  EXPECT_EQ(u16(eight, 20), 0xFFFEu);
  EXPECT_EQ(u16(eight, 40), 0x63Fu);
  ASSERT_EQ(halo({"filter", dir / "plain.wav", dir / "two.wav", "--lowpass", "5k", "-q"}).exit_code, 0);
  EXPECT_EQ(u16(read_bytes(dir / "two.wav"), 20), 1u) << "WAVE_FORMAT_PCM";
}

// A float or double AIFF of a few frames holds those frames: libsndfile, told to write no PEAK
// chunk, had written a mono float AIFF of 1 to 5 frames as 6 frames, the header of a second
// SSND chunk read back as samples (9e11 among them; a QA pass).
TEST(Containers, AShortFloatAiffHoldsItsFramesAndNoMore) {
  TempDir dir;
  write_mask_text(dir / "unit.txt", {{1.0f}});
  for (const std::string subtype : {"float", "double"})
    for (const std::string extension : {"aiff", "aifc"})
      for (int channels = 1; channels <= 2; ++channels)
        for (std::size_t frames = 1; frames <= 7; ++frames) {
          const std::string name = subtype + extension + std::to_string(channels) + "-" + std::to_string(frames);
          const std::vector<float> in = random_signal(frames * channels, 90 + frames, 0.5f);
          write_sound(dir / (name + ".wav"), in, channels, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
          ASSERT_EQ(halo({"filter", dir / (name + ".wav"), dir / (name + "." + extension), "--mask", dir / "unit.txt",
                          "--subtype", subtype, "-q"}).exit_code, 0) << name;
          const Sound out = read_sound(dir / (name + "." + extension));
          EXPECT_EQ(out.frames, static_cast<std::int64_t>(frames)) << name;
          EXPECT_EQ(out.samples, in) << name;
        }
}

// A 24-bit IN keeps its 24 bits where OUT's container holds no pcm24 but holds pcm32 (IRCAM,
// MAT4, MAT5, PVF): it had become pcm16 there, 8 bits lost and dithered (a QA pass).
TEST(Containers, TwentyFourBitsGoToThirtyTwoWhereTwentyFourAreNotHeld) {
  TempDir dir;
  write_mask_text(dir / "unit.txt", {{1.0f}});
  const Result made = python(dir.path(), R"(
import numpy as np, soundfile as sf
x = (np.random.default_rng(5).integers(-2**23, 2**23, (2000, 2)) * 256).astype(np.int32)
sf.write('in24.wav', x, 48000, subtype='PCM_24')
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  for (const std::string extension : {"ircam", "mat4", "mat5", "pvf"}) {
    const Result result = halo({"filter", dir / "in24.wav", dir / ("out." + extension), "--mask", dir / "unit.txt"});
    ASSERT_EQ(result.exit_code, 0) << extension << ": " << result.err;
    EXPECT_NE(result.err.find(" pcm32, "), std::string::npos) << extension << ": " << result.err;
    const Result check = python(dir.path(), "import numpy as np, soundfile as sf\n"
                                            "x = sf.read('in24.wav', dtype='int32')[0]\n"
                                            "y = sf.read('out." + extension + "', dtype='int32')[0]\n"
                                            "assert x.shape == y.shape and (x == y).all(), np.abs(x.astype(np.int64) - y).max()\n");
    EXPECT_EQ(check.exit_code, 0) << extension << ": " << check.err;
  }
  // And 8 bits stay narrow: pcm16 where the container holds no 8 bits, not pcm32 (a review).
  write_sound(dir / "u8.wav", random_signal(2000, 6, 0.3f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_U8);
  for (const std::string extension : {"ircam", "mat4"}) {
    const Result result = halo({"filter", dir / "u8.wav", dir / ("u8." + extension), "--mask", dir / "unit.txt"});
    ASSERT_EQ(result.exit_code, 0) << extension << ": " << result.err;
    EXPECT_NE(result.err.find(" pcm16, "), std::string::npos) << extension << ": " << result.err;
  }
}

// libsndfile's float path reads a 24-bit PAF of 3, 5 or 6 channels wrong (up to 0.94 of full
// scale off, where its int path and sox read it exactly): halo had filtered those samples, and
// taken an impulse response from them. The files are made from int32 by soundfile (libsndfile's
// int path) and checked by it first.
TEST(Containers, A24BitPafOfAnyChannelCountIsReadExactly) {
  TempDir dir;
  write_mask_text(dir / "unit.txt", {{1.0f}});
  for (int channels : {1, 2, 3, 5, 6}) {
    const std::string n = std::to_string(channels);
    const Result made = python(dir.path(), "import numpy as np, soundfile as sf\n"
                                           "c = " + n + "\n" + R"(
r = np.random.default_rng(7 + c)
x = (r.integers(-2**23, 2**23, (3000, c)) * 256).astype(np.int32)
sf.write('in%d.paf' % c, x, 48000, subtype='PCM_24', format='PAF')
assert (sf.read('in%d.paf' % c, dtype='int32')[0].reshape(-1, c) == x).all()
ir = np.zeros((300, c), np.int32); ir[:, :] = x[:300, :]
sf.write('ir%d.paf' % c, ir, 48000, subtype='PCM_24', format='PAF')
imp = np.zeros((400, c), np.float32); imp[0, :] = 1
sf.write('impulse%d.wav' % c, imp, 48000, subtype='FLOAT')
)");
    ASSERT_EQ(made.exit_code, 0) << made.err;
    ASSERT_EQ(halo({"filter", dir / ("in" + n + ".paf"), dir / ("out" + n + ".wav"), "--mask", dir / "unit.txt",
                    "--subtype", "pcm24", "-q"}).exit_code, 0);
    // A unit impulse through the IR on the direct engine is the IR, each tap exactly.
    ASSERT_EQ(halo({"filter", dir / ("impulse" + n + ".wav"), dir / ("ir" + n + ".wav"), "--ir", dir / ("ir" + n + ".paf"),
                    "--engine", "cpu", "-q"}).exit_code, 0);
    const Result check = python(dir.path(), "import numpy as np, soundfile as sf\nc = " + n + "\n" + R"(
x = sf.read('in%d.paf' % c, dtype='int32')[0].reshape(-1, c)
y = sf.read('out%d.wav' % c, dtype='int32')[0].reshape(-1, c)
assert x.shape == y.shape and (x == y).all(), np.abs(x.astype(np.int64) - y).max() / 256
ir = sf.read('ir%d.paf' % c, dtype='int32')[0].reshape(-1, c) / 2.0**31
h = sf.read('ir%d.wav' % c, dtype='float64')[0].reshape(-1, c)
assert (h[:300] == ir).all() and (h[300:] == 0).all(), np.abs(h[:300] - ir).max()
)");
    EXPECT_EQ(check.exit_code, 0) << channels << " channels: " << check.err;
  }
}

// libsndfile's ALAC encoder writes other samples than it is given for some of them (a stereo
// signal on a 20-bit grid: 1.4 of full scale off), and a 24-bit PAF of up to 10 frames reads
// back empty, each with exit 0 (a QA pass). OUT is read back before it goes into place: such a
// run is refused in one line, leaving nothing; one that reads back right is kept.
TEST(Containers, AnOutputLibsndfileWritesWrongIsRefused) {
  TempDir dir;
  write_mask_text(dir / "unit.txt", {{1.0f}});
  const Result made = python(dir.path(), R"(
import numpy as np, soundfile as sf
n = 1000; r = np.random.default_rng(1); t = np.arange(n)[:, None] / 48000
x = 0.4 * np.sin(2 * np.pi * (100 + 37 * np.arange(2)) * t) + 0.1 * r.uniform(-1, 1, (n, 2))
sf.write('grid20.wav', np.round(x * 2**19) / 2**19, 48000, subtype='PCM_24')
sf.write('five.wav', 0.5 * np.sin(np.arange(5) / 3.0), 48000, subtype='PCM_24')
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // This libsndfile (1.2) writes the ALAC wrong; one that writes it right would give it exactly.
  const Result alac = run(halo_args({"filter", dir / "grid20.wav", dir / "a.caf", "--mask", dir / "unit.txt",
                                     "--no-dither", "--subtype", "alac20"}));
  if (alac.exit_code == 0) {
    const Result exact = python(dir.path(), R"(
import numpy as np, soundfile as sf
x = sf.read('grid20.wav', dtype='int32')[0]; y = sf.read('a.caf', dtype='int32')[0]
assert x.shape == y.shape and (x == y).all(), np.abs(x.astype(np.int64) - y).max()
)");
    EXPECT_EQ(exact.exit_code, 0) << "written, and wrong: " << exact.err;
  } else {
    EXPECT_EQ(alac.exit_code, 1) << alac.err;
    EXPECT_EQ(alac.err.rfind("halo: ", 0), 0u) << alac.err;
    EXPECT_NE(alac.err.find("reads back with other samples"), std::string::npos) << alac.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "a.caf"));
    // To standard output redirected to a file, the bytes are out: the run fails, saying so
    // (it had been skipped there, exit 0, a review).
    const Result to_stdout = run({"/bin/sh", "-c", std::string(HALO_BINARY) + " filter grid20.wav - --type caf --mask unit.txt "
                                                   "--no-dither --subtype alac20 > out.caf"},
                                 in_directory(dir.path()));
    EXPECT_EQ(to_stdout.exit_code, 1) << to_stdout.err;
    EXPECT_NE(to_stdout.err.find("what went to standard output is wrong"), std::string::npos) << to_stdout.err;
  }
  {
    const DirectorySnapshot before(dir.path());
    expect_one_line_failure(run(halo_args({"filter", dir / "five.wav", dir / "five.paf", "--mask", dir / "unit.txt"})), 1,
                            "reads back as 0 of its 5 frames", before, "paf24");
  }
  // What reads back right is kept: the same signal as alac16.
  ASSERT_EQ(halo({"filter", dir / "grid20.wav", dir / "a16.caf", "--mask", dir / "unit.txt", "--subtype", "alac16", "-q"}).exit_code, 0);
  EXPECT_EQ(read_sound(dir / "a16.caf").frames, 1000);
}

// Speakers written out here, from the specifications rather than from halo's tables: Vorbis I
// section 4.3.9 (Opus's mapping family 1 is the same), and FLAC's orders by count, which are
// WAV's channel-mask order.
enum Speaker { FL, FR, FC, LFE, BL, BR, BC, SL, SR };
const std::vector<std::vector<Speaker>> vorbis_order = {
    {}, {FC}, {FL, FR}, {FL, FC, FR}, {FL, FR, BL, BR}, {FL, FC, FR, BL, BR}, {FL, FC, FR, BL, BR, LFE},
    {FL, FC, FR, SL, SR, BC, LFE}, {FL, FC, FR, SL, SR, BL, BR, LFE}};
const std::vector<std::vector<Speaker>> wav_order = {
    {}, {FC}, {FL, FR}, {FL, FR, FC}, {FL, FR, BL, BR}, {FL, FR, FC, BL, BR}, {FL, FR, FC, LFE, BL, BR},
    {FL, FR, FC, LFE, BC, SL, SR}, {FL, FR, FC, LFE, BL, BR, SL, SR}};
const unsigned wav_masks[] = {0, 0x4, 0x3, 0x7, 0x33, 0x37, 0x3F, 0x70F, 0x63F};

// A tone for each speaker, low enough that Vorbis keeps it on an LFE channel too (its 5.1 mode
// codes LFE narrow): 50 Hz for FL, 60 for FR, ...
float tone_hz(Speaker speaker) { return 50.0f + 10.0f * static_cast<float>(speaker); }

// One second of each channel's speaker's tone, in `order`.
std::vector<float> speaker_tones(const std::vector<Speaker>& order) {
  const std::size_t channels = order.size();
  std::vector<float> samples(48000 * channels);
  for (std::size_t i = 0; i < 48000; ++i)
    for (std::size_t c = 0; c < channels; ++c)
      samples[i * channels + c] = 0.3f * static_cast<float>(std::sin(2.0 * M_PI * tone_hz(order[c]) * static_cast<double>(i) / 48000.0));
  return samples;
}

// The speaker whose tone each channel of a file carries most of (a lossy codec's rounding aside).
std::vector<Speaker> speakers_heard(const std::string& path) {
  const Sound sound = read_sound(path);
  std::vector<Speaker> heard;
  for (int c = 0; c < sound.channels; ++c) {
    Speaker loudest = FL;
    double most = -1;
    for (int s = FL; s <= SR; ++s) {
      double re = 0, im = 0;
      for (std::int64_t i = 0; i < sound.frames; ++i) {
        const double phase = 2.0 * M_PI * tone_hz(static_cast<Speaker>(s)) * static_cast<double>(i) / sound.rate_hz;
        re += sound.samples[i * sound.channels + c] * std::cos(phase);
        im += sound.samples[i * sound.channels + c] * std::sin(phase);
      }
      if (re * re + im * im > most) most = re * re + im * im, loudest = static_cast<Speaker>(s);
    }
    heard.push_back(loudest);
  }
  return heard;
}

unsigned wavex_mask(const std::string& path) {
  const std::string b = read_bytes(path);
  if (b.size() < 44 || b.substr(12, 4) != "fmt " || (static_cast<unsigned char>(b[20]) | static_cast<unsigned char>(b[21]) << 8) != 0xFFFE)
    return 0xFFFFFFFF;
  unsigned mask = 0;
  for (int i = 3; i >= 0; --i) mask = mask << 8 | static_cast<unsigned char>(b[40 + i]);
  return mask;
}

// Ogg Vorbis and Opus hold 5.1 as FL FC FR BL BR LFE, WAV and FLAC as FL FR FC LFE BL BR, and
// libsndfile passes the samples on in the file's order. halo had written a 5.1 Vorbis file's
// channels into a WAV in Vorbis's order under WAV's 5.1 mask: its centre played on the right,
// its LFE on the left surround. Each speaker's channel now goes to where OUT's container puts
// that speaker, both ways, and a per-channel mask's columns still follow IN's channels.
TEST(Containers, ChannelsMoveToWhereOutsContainerPutsTheirSpeakers) {
  TempDir dir;
  write_mask_text(dir / "unit.txt", {{1.0f}});
  for (int channels = 3; channels <= 8; ++channels) {
    const std::string n = std::to_string(channels);
    write_sound(dir / ("in" + n + ".ogg"), speaker_tones(vorbis_order[channels]), channels, 48000,
                SF_FORMAT_OGG | SF_FORMAT_VORBIS);
    ASSERT_EQ(halo({"filter", dir / ("in" + n + ".ogg"), dir / ("out" + n + ".wav"), "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
    EXPECT_EQ(speakers_heard(dir / ("out" + n + ".wav")), wav_order[channels]) << channels << " channels, Vorbis to WAV";
    EXPECT_EQ(wavex_mask(dir / ("out" + n + ".wav")), wav_masks[channels]) << channels << " channels";
    ASSERT_EQ(halo({"filter", dir / ("in" + n + ".ogg"), dir / ("out" + n + ".flac"), "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
    EXPECT_EQ(speakers_heard(dir / ("out" + n + ".flac")), wav_order[channels]) << channels << " channels, Vorbis to FLAC";
    // CAF: WAV's order too, with its layout where libsndfile has a CAF tag for it (3 to 6).
    ASSERT_EQ(halo({"filter", dir / ("in" + n + ".ogg"), dir / ("out" + n + ".caf"), "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
    EXPECT_EQ(speakers_heard(dir / ("out" + n + ".caf")), wav_order[channels]) << channels << " channels, Vorbis to CAF";
    if (channels <= 6) {
      SF_INFO info{};
      SNDFILE* file = sf_open((dir / ("out" + n + ".caf")).c_str(), SFM_READ, &info);
      ASSERT_NE(file, nullptr);
      std::vector<int> map(static_cast<std::size_t>(channels));
      EXPECT_EQ(sf_command(file, SFC_GET_CHANNEL_MAP_INFO, map.data(), static_cast<int>(map.size() * sizeof(int))), SF_TRUE)
          << channels << " channels: no layout in the CAF";
      sf_close(file);
      // The layout names the speakers where they are (WAV's order), not merely some layout.
      const auto sf_speaker = [](Speaker speaker) {
        switch (speaker) {
          case FL: return SF_CHANNEL_MAP_LEFT;
          case FR: return SF_CHANNEL_MAP_RIGHT;
          case FC: return SF_CHANNEL_MAP_CENTER;
          case LFE: return SF_CHANNEL_MAP_LFE;
          case BL: return SF_CHANNEL_MAP_REAR_LEFT;
          case BR: return SF_CHANNEL_MAP_REAR_RIGHT;
          case BC: return SF_CHANNEL_MAP_REAR_CENTER;
          case SL: return SF_CHANNEL_MAP_SIDE_LEFT;
          case SR: return SF_CHANNEL_MAP_SIDE_RIGHT;
        }
        return SF_CHANNEL_MAP_INVALID;
      };
      std::vector<int> expected;
      for (const Speaker speaker : wav_order[channels]) expected.push_back(sf_speaker(speaker));
      EXPECT_EQ(map, expected) << channels << " channels: the CAF's layout";
    }
    // And back: FLAC's order into Opus's (Vorbis's), through halo both ways.
    ASSERT_EQ(halo({"filter", dir / ("out" + n + ".flac"), dir / ("back" + n + ".opus"), "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
    EXPECT_EQ(speakers_heard(dir / ("back" + n + ".opus")), vorbis_order[channels]) << channels << " channels, FLAC to Opus";
  }
  // A WAVEX of 5.1 (libsndfile's default mask for six, 0x3F) to Vorbis.
  write_sound(dir / "six.wav", speaker_tones(wav_order[6]), 6, 48000, SF_FORMAT_WAVEX | SF_FORMAT_FLOAT);
  ASSERT_EQ(wavex_mask(dir / "six.wav"), 0x3Fu);
  ASSERT_EQ(halo({"filter", dir / "six.wav", dir / "six.ogg", "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
  EXPECT_EQ(speakers_heard(dir / "six.ogg"), vorbis_order[6]);
  // 5.1 of side speakers, as ffmpeg writes it (mask 0x60F): its sides are Vorbis's surround pair.
  {
    SF_INFO info{};
    info.samplerate = 48000;
    info.channels = 6;
    info.format = SF_FORMAT_WAVEX | SF_FORMAT_FLOAT;
    SNDFILE* file = sf_open((dir / "side.wav").c_str(), SFM_WRITE, &info);
    ASSERT_NE(file, nullptr);
    int map[] = {SF_CHANNEL_MAP_LEFT, SF_CHANNEL_MAP_RIGHT, SF_CHANNEL_MAP_CENTER, SF_CHANNEL_MAP_LFE,
                 SF_CHANNEL_MAP_SIDE_LEFT, SF_CHANNEL_MAP_SIDE_RIGHT};
    ASSERT_EQ(sf_command(file, SFC_SET_CHANNEL_MAP_INFO, map, sizeof map), SF_TRUE);
    const std::vector<float> tones = speaker_tones({FL, FR, FC, LFE, SL, SR});
    ASSERT_EQ(sf_writef_float(file, tones.data(), 48000), 48000);
    ASSERT_EQ(sf_close(file), 0);
  }
  ASSERT_EQ(wavex_mask(dir / "side.wav"), 0x60Fu);
  ASSERT_EQ(halo({"filter", dir / "side.wav", dir / "side.opus", "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
  EXPECT_EQ(speakers_heard(dir / "side.opus"), (std::vector<Speaker>{FL, FC, FR, SL, SR, LFE}));
  // Into CAF, whose 5.1 names its surround pair Ls and Rs (libsndfile: rear): that layout, so
  // that a chain on to Vorbis still finds the centre (a CAF without one had gone on in WAV's
  // order, the centre on the right: a QA pass).
  ASSERT_EQ(halo({"filter", dir / "side.wav", dir / "side.caf", "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
  {
    SF_INFO info{};
    SNDFILE* file = sf_open((dir / "side.caf").c_str(), SFM_READ, &info);
    ASSERT_NE(file, nullptr);
    std::vector<int> map(6);
    EXPECT_EQ(sf_command(file, SFC_GET_CHANNEL_MAP_INFO, map.data(), static_cast<int>(map.size() * sizeof(int))), SF_TRUE);
    sf_close(file);
    EXPECT_EQ(map, (std::vector<int>{SF_CHANNEL_MAP_LEFT, SF_CHANNEL_MAP_RIGHT, SF_CHANNEL_MAP_CENTER, SF_CHANNEL_MAP_LFE,
                                     SF_CHANNEL_MAP_REAR_LEFT, SF_CHANNEL_MAP_REAR_RIGHT}));
  }
  ASSERT_EQ(halo({"filter", dir / "side.caf", dir / "side.ogg", "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
  EXPECT_EQ(speakers_heard(dir / "side.ogg"), (std::vector<Speaker>{FL, FC, FR, SL, SR, LFE}));
  // A plain WAV says nothing of its speakers: its order is kept, into Vorbis too.
  write_sound(dir / "plain6.wav", speaker_tones(wav_order[6]), 6, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  ASSERT_EQ(halo({"filter", dir / "plain6.wav", dir / "plain6.ogg", "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
  EXPECT_EQ(speakers_heard(dir / "plain6.ogg"), wav_order[6]);
  // A per-channel mask's column c filters IN's channel c: column 2 (IN's FR in Vorbis order)
  // halves, and it is WAV's FR channel (the second) that comes out at half.
  write_mask_text(dir / "gains.txt", {{1.0f}, {1.0f}, {0.5f}, {1.0f}, {1.0f}, {1.0f}});
  ASSERT_EQ(halo({"filter", dir / "in6.ogg", dir / "gains.wav", "--mask", dir / "gains.txt", "-q"}).exit_code, 0);
  ASSERT_EQ(halo({"filter", dir / "in6.ogg", dir / "unit6.wav", "--mask", dir / "unit.txt", "-q"}).exit_code, 0);
  const Sound gains = read_sound(dir / "gains.wav"), unit = read_sound(dir / "unit6.wav");
  ASSERT_EQ(gains.samples.size(), unit.samples.size());
  for (int c = 0; c < 6; ++c) {
    double ratio_num = 0, ratio_den = 0;
    for (std::int64_t i = 0; i < unit.frames; ++i) {
      ratio_num += static_cast<double>(gains.samples[i * 6 + c]) * unit.samples[i * 6 + c];
      ratio_den += static_cast<double>(unit.samples[i * 6 + c]) * unit.samples[i * 6 + c];
    }
    EXPECT_NEAR(ratio_num / ratio_den, c == 1 ? 0.5 : 1.0, 1e-6) << "WAV channel " << c;
  }
}

// A WAV of unknown length (IN on a pipe) is written as RF64 that libsndfile turns back into a
// WAV at close, keeping RF64's WAVE_FORMAT_EXTENSIBLE fmt chunk: the summary had said "WAV"
// for a WAVEX. It names what the header holds, and a file's IN still gives a plain WAV.
TEST(Containers, TheSummaryNamesTheWavThatAPipesRunWrote) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4000, 75, 0.3f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  auto format_tag = [](const std::string& bytes) {
    const std::size_t fmt = bytes.find("fmt ");
    return fmt == std::string::npos ? 0u : static_cast<unsigned>(static_cast<unsigned char>(bytes[fmt + 8])) |
                                               static_cast<unsigned>(static_cast<unsigned char>(bytes[fmt + 9])) << 8;
  };
  const Result piped = run({"/bin/sh", "-c", "cat '" + dir / "in.wav" + "' | " + HALO_BINARY + " filter - '" +
                                                 dir / "piped.wav" + "' --lowpass 5k"});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(format_tag(read_bytes(dir / "piped.wav")), 0xFFFEu);
  EXPECT_NE(piped.err.find("-> " + std::string(dir / "piped.wav") + ": WAVEX pcm16,"), std::string::npos) << piped.err;
  const Result from_file = halo({"filter", dir / "in.wav", dir / "plain.wav", "--lowpass", "5k"});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(format_tag(read_bytes(dir / "plain.wav")), 1u) << "WAVE_FORMAT_PCM";
  EXPECT_NE(from_file.err.find(": WAV pcm16,"), std::string::npos) << from_file.err;
  // Three channels of raw PCM on a pipe (no length known): WAVEX, and still started as RF64
  // (its JUNK chunk, room for the 64-bit sizes), which only a plain WAV had been (a review finding).
  write_bytes(dir / "three.raw", std::string(3 * 2 * 3000, '\x11'));
  const Result three = run({"/bin/sh", "-c", "cat '" + dir / "three.raw" + "' | " + HALO_BINARY +
                                                 " filter -t raw --rate 48000 --channels 3 --encoding pcm16 - '" +
                                                 dir / "three.wav" + "' --lowpass 5k -q"});
  ASSERT_EQ(three.exit_code, 0) << three.err;
  const std::string bytes = read_bytes(dir / "three.wav");
  EXPECT_EQ(bytes.substr(0, 4), "RIFF");
  EXPECT_EQ(bytes.substr(12, 4), "JUNK");
  EXPECT_EQ(format_tag(bytes), 0xFFFEu);
}

TEST(Containers, NistAndIrcamAreCalledSo) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(2000, 75, 0.3f), 1, 16000, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  ASSERT_EQ(halo({"filter", dir / "in.wav", dir / "out.sph", "--lowpass", "1k", "-q"}).exit_code, 0);
  const Result info = halo({"info", dir / "out.sph"});
  EXPECT_NE(info.out.find("format:    NIST pcm16"), std::string::npos) << info.out;
  // IRCAM likewise, which libsndfile calls "SF (Berkeley/IRCAM/CARL)" (halo had said "SF").
  ASSERT_EQ(halo({"filter", dir / "in.wav", dir / "out.ircam", "--lowpass", "1k", "-q"}).exit_code, 0);
  const Result ircam = halo({"info", dir / "out.ircam"});
  EXPECT_NE(ircam.out.find("format:    IRCAM pcm16"), std::string::npos) << ircam.out;
}

// Opus codes 8, 12, 16, 24 or 48 kHz: a 44.1 kHz input is refused naming the rates, to a file
// and to a pipe alike (on a pipe it had read "cannot write OGG to a pipe").
TEST(Containers, OpusNamesTheRatesItCodes) {
  TempDir dir;
  write_sound(dir / "a44.wav", random_signal(4410 * 2, 76, 0.3f), 2, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const DirectorySnapshot before(dir.path());
  const auto to_file = halo_args({"filter", dir / "a44.wav", dir / "out.opus", "--lowpass", "1k"});
  expect_one_line_failure(run(to_file), 1, "Opus codes 8, 12, 16, 24 or 48 kHz, not 44100 Hz", before, "file");
  const std::string piped = "'" + std::string(HALO_BINARY) + "' filter '" + dir / "a44.wav" +
                            "' - --type opus --lowpass 1k";
  const Result result = run({"/bin/sh", "-c", piped});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_EQ(result.err, "halo: standard output: Opus codes 8, 12, 16, 24 or 48 kHz, not 44100 Hz; resample IN first, "
                        "or write Vorbis (.ogg)\n");
  EXPECT_TRUE(result.out.empty());
}

}  // namespace
}  // namespace halo::test
