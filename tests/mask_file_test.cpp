// Mask files: round trips through every format, impulse responses written by libsndfile
// itself, and every kind of bad file with a message that names it.
#include <gtest/gtest.h>
#include <sndfile.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "audio/atomic_file.hpp"
#include "audio/error.hpp"
#include "audio/mask_file.hpp"
#include "support/temp_dir.hpp"

namespace halo::audio {
namespace {

using filters::Mask;
using filters::MaskSet;

namespace fs = std::filesystem;

// Seeded values in [-0.95, 0.95], none of them zero or tiny.
std::vector<float> random_taps(std::size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-0.95f, 0.95f);
  std::vector<float> taps(count);
  for (float& tap : taps) {
    tap = uniform(generator);
    if (std::fabs(tap) < 1e-3f) tap = 0.5f;
  }
  return taps;
}

Mask mask_of(std::vector<float> taps, double rate_hz, const std::string& provenance) {
  Mask mask;
  mask.taps = std::move(taps);
  mask.rate_hz = rate_hz;
  mask.provenance = provenance;
  return mask;
}

class MaskFile : public testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_ / name; }

  std::string write_file(const std::string& name, const std::string& bytes) const {
    std::ofstream out(path(name), std::ios::binary);
    out << bytes;
    return path(name);
  }

  // The names in the folder: a failed write must leave neither target nor temporary.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_.path())) names.push_back(entry.path().filename());
    return names;
  }

  // Makes a FIFO at `fifo` and a thread that reads it to the end into `received`.
  static std::thread read_fifo(const std::string& fifo, std::string& received) {
    if (mkfifo(fifo.c_str(), 0600) != 0) ADD_FAILURE() << fifo << ": mkfifo failed";
    return std::thread([&fifo, &received] {
      std::ifstream in(fifo);
      received.assign(std::istreambuf_iterator<char>(in), {});
    });
  }

  // read_mask must throw audio::Error with every part in its message.
  static void expect_read_error(const std::string& file, const std::vector<std::string>& parts) {
    try {
      read_mask(file);
      ADD_FAILURE() << file << ": read without error";
    } catch (const Error& e) {
      for (const std::string& part : parts) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
            << "\"" << e.what() << "\" lacks \"" << part << "\"";
      }
    }
  }

  test::TempDir dir_;
};

// ---------------------------------------------------------------- round trips

// Lines that end in a lone \r (classic Mac OS) are lines: a column of taps, not one row of
// gains per channel (a QA pass); and a text mask past 2^24 taps is refused naming the file,
// as every other reader refuses one (design had written one halo then refused to read).
TEST_F(MaskFile, TextLinesEndInAnyOfTheirThreeWaysAndHoldAtMost2To24Taps) {
  std::ofstream(path("cr.txt"), std::ios::binary) << "# rate 44100 Hz\r0.5\r0.25\r\n0.125\r";
  const MaskSet cr = read_mask(path("cr.txt"));
  ASSERT_EQ(cr.size(), 1u);
  EXPECT_EQ(cr[0].taps, (std::vector<float>{0.5f, 0.25f, 0.125f}));
  EXPECT_EQ(cr[0].rate_hz, 44100.0);
  std::string big = "1\n";
  for (std::size_t i = 0; i < (std::size_t{1} << 24); ++i) big += "0\n";
  std::ofstream(path("big.txt"), std::ios::binary) << big;
  expect_read_error(path("big.txt"), {"big.txt: more than 16777216 taps, the most a mask holds"});
  // A sound file named .txt is read as text, and said to be one (not "a file libsndfile cannot read").
  std::ofstream(path("sound.txt"), std::ios::binary) << std::string("RIFF\x24\0\0\0WAVEfmt ", 16);
  expect_read_error(path("sound.txt"), {"sound.txt: a binary file named .txt, which halo reads as a text mask"});
}

// JSON's "taps" that is no number is said so, whatever it is: a list nested 70000 deep had
// crashed halo as it printed it into the message (a QA pass).
TEST_F(MaskFile, AJsonTapsThatIsNoNumberIsSaidSo) {
  const std::size_t depth = 70000;
  std::ofstream(path("deep.json")) << "{\"coefficients\": [1], \"taps\": " << std::string(depth, '[') << std::string(depth, ']') << "}";
  expect_read_error(path("deep.json"), {"deep.json: \"taps\" is not a number"});
}

// A rate line as a hand writes it, "# rate 44100" without its unit or "# rate 44.1 kHz", is the
// rate too (each had been taken for no rate, and the mask used at any audio's rate without a
// word: QA passes); a line whose word "rate" no figure follows is prose. A figure that is no
// rate, an "# align" word that is no alignment, and two lines that disagree are refused, naming
// the line (they had been comments, or the last rate and the first "causal" had won silently).
TEST_F(MaskFile, ARateOrAlignLineSaysItsFigureOrIsRefused) {
  for (const std::string line : {"# rate 44100", "#rate 44100 Hz", "# rate 44100\r", "  # rate   44100  ", "# rate 44.1 kHz",
                                 "# rate 44.1k", "# rate 44100 hz", "# rate 44.1 KHz",
                                 // np.savetxt(header='rate: 44100') and other hands (a QA pass)
                                 "# rate: 44100", "# Rate 44100", "# rate=44100", "# RATE = 44.1 kHz"}) {
    std::ofstream(path("r.txt")) << line << "\n0.5\n0.25\n";
    EXPECT_EQ(read_mask(path("r.txt"))[0].rate_hz, 44100.0) << line;
  }
  // kHz as the decimal it is (8.005 x 1000 is 8004.999999999999 in doubles: a review).
  std::ofstream(path("r.txt")) << "# rate 8.005 kHz\n0.5\n";
  EXPECT_EQ(read_mask(path("r.txt"))[0].rate_hz, 8005.0);
  for (const std::string line : {"# rate of decay 3", "# rated 44100 Hz", "# rate", "# align the taps to the peak",
                                 "# rate - see below", "# rate: see below", "# rates: 44100 and 48000"}) {
    std::ofstream(path("r.txt")) << line << "\n0.5\n0.25\n";
    EXPECT_EQ(read_mask(path("r.txt"))[0].rate_hz, 0.0) << line;
    EXPECT_FALSE(read_mask(path("r.txt"))[0].causal) << line;
  }
  for (const std::string line : {"# rate 44100 samples", "# rate 0", "# rate -44100 Hz", "# rate 1e999"}) {
    std::ofstream(path("r.txt")) << "0.5\n" << line << "\n0.25\n";
    expect_read_error(path("r.txt"), {"r.txt:2: \"" + line + "\" says no sample rate"});
  }
  // Past what --rate takes (it had been the mask's rate, exported: a QA pass).
  std::ofstream(path("r.txt")) << "# rate 1e9\n0.5\n";
  expect_read_error(path("r.txt"), {"r.txt:1: \"# rate 1e9\" is past 10 MHz"});
  std::ofstream(path("a.txt")) << "# align same\n0.5\n0.25\n";
  EXPECT_FALSE(read_mask(path("a.txt"))[0].causal);
  // In any case, with ':' or '=', as rate lines (`# Align: causal` had been prose: a QA pass).
  for (const std::string line : {"# Align: causal", "# align=causal", "# ALIGN Causal", "# align = causal"}) {
    std::ofstream(path("a.txt")) << line << "\n0.5\n0.25\n";
    EXPECT_TRUE(read_mask(path("a.txt"))[0].causal) << line;
  }
  std::ofstream(path("a.txt")) << "# align weird\n0.5\n";
  expect_read_error(path("a.txt"), {"a.txt:1: \"# align weird\" is no alignment"});
  // Control bytes in the line quoted are escaped, as every message quotes a file's bytes (the
  // fuzzer found a backspace that had reached the terminal raw).
  std::ofstream(path("c.txt")) << "# rate 48080 \bz\n# align \x1b[2J\n0.5\n";
  expect_read_error(path("c.txt"), {"c.txt:1: \"# rate 48080 \\x08z\" says no sample rate"});
  std::ofstream(path("c.txt")) << "# align \x1b[2J\n0.5\n";
  expect_read_error(path("c.txt"), {"c.txt:1: \"# align \\x1B[2J\" is no alignment"});
  std::ofstream(path("two.txt")) << "# rate 48000 Hz\n0.5\n# rate 44100\n";
  expect_read_error(path("two.txt"), {"two.txt:3: # rate 44100 Hz, but line 1 says 48000 Hz"});
  std::ofstream(path("two.txt")) << "# align causal\n# align same\n0.5\n";
  expect_read_error(path("two.txt"), {"two.txt:2: # align same, but line 1 says causal"});
  std::ofstream(path("two.txt")) << "# rate 48 kHz\n# rate 48000 Hz\n# align causal\n# align causal\n0.5\n";  // the same said twice
  EXPECT_EQ(read_mask(path("two.txt"))[0].rate_hz, 48000.0);
  EXPECT_TRUE(read_mask(path("two.txt"))[0].causal);
}

// A decimal just past halfway between two floats reads as the upper one, the float nearest it:
// 1 + 2^-24 is halfway between 1 and the next float up, and the digits below are 1e-24 more,
// which the double nearest them (1 + 2^-24 itself) loses, so that reading through a double gave
// 1 (a tie, to even). Just short of halfway gives 1.
TEST_F(MaskFile, TextTapsAreTheFloatNearestTheirDecimals) {
  std::ofstream(path("t.txt")) << "1.000000059604644775390626\n1.000000059604644775390624\n-1.000000059604644775390626\n";
  const MaskSet masks = read_mask(path("t.txt"));
  ASSERT_EQ(masks[0].taps.size(), 3u);
  EXPECT_EQ(masks[0].taps[0], std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(masks[0].taps[1], 1.0f);
  EXPECT_EQ(masks[0].taps[2], -std::nextafter(1.0f, 2.0f));
}

// Decimal commas (0,25 as a European locale writes a quarter) are not read as columns of whole
// numbers: "0,25" had been 0 for the left channel and 25 for the right, without a word (a QA
// pass). Columns with a point anywhere, or whole numbers apart by spaces, are columns.
// Other tools' text is named with what to give instead: an Equalizer APO configuration and REW's
// text export (each had been '"Preamp:" is not a number', '"*" is not a number': a QA pass).
TEST_F(MaskFile, OtherToolsTextIsNamed) {
  std::ofstream(path("eq.txt")) << "Preamp: -6 dB\nFilter 1: ON PK Fc 100 Hz Gain 3 dB Q 1\n";
  expect_read_error(path("eq.txt"), {"eq.txt:1: an Equalizer APO configuration, not coefficients"});
  std::ofstream(path("rew.txt")) << "* Impulse Response data saved by REW V5.20\n0.7 // Peak value\n";
  expect_read_error(path("rew.txt"), {"rew.txt:1: REW's text export", "as a WAV file"});
}

TEST_F(MaskFile, DecimalCommasAreRefusedNotReadAsColumns) {
  std::ofstream(path("dc.txt")) << "0,25\n0,5\n0,25\n";
  expect_read_error(path("dc.txt"), {"dc.txt:1: commas split whole numbers into 2 columns: decimal commas?"});
  std::ofstream(path("cols.txt")) << "0.25,0.5\n1,0\n";
  EXPECT_EQ(read_mask(path("cols.txt")).size(), 2u);
  std::ofstream(path("ints.txt")) << "1 0\n0 1\n";
  EXPECT_EQ(read_mask(path("ints.txt")).size(), 2u);
}

TEST_F(MaskFile, TextRoundTripIsExact) {
  const Mask mask = mask_of(random_taps(301, 1), 44100, "lowpass 1000 Hz, 301 taps, hann window, 44100 Hz");
  write_mask(path("m.txt"), {mask});
  const MaskSet back = read_mask(path("m.txt"));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].taps, mask.taps);  // %.9g reads back to the same float
  EXPECT_EQ(back[0].rate_hz, 44100.0);  // its "# rate 44100 Hz" line reads back (issue 13, item 17)
  EXPECT_NE(back[0].provenance.find("m.txt"), std::string::npos);

  std::ifstream in(path("m.txt"));
  std::string first_line;
  std::getline(in, first_line);
  EXPECT_EQ(first_line, "# " + mask.provenance);
}

// A sound file whose name says nothing of it (room.irs, the usual name of an impulse-response
// WAV; no extension at all) is read by its content, as IN is: it had been refused as "a binary
// file, not a text mask" (a QA pass). Binary bytes that are no sound file are still refused, and
// a .txt is text whatever it holds.
TEST_F(MaskFile, ASoundFileUnderANameThatSaysNothingIsReadByItsContent) {
  const MaskSet stereo = {mask_of(random_taps(300, 3), 48000, ""), mask_of(random_taps(300, 4), 48000, "")};
  write_mask(path("room.wav"), stereo);
  const std::string bytes = [&] {
    std::ifstream in(path("room.wav"), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  for (const std::string name : {"room.irs", "room"}) {
    const MaskSet back = read_mask(write_file(name, bytes));
    ASSERT_EQ(back.size(), 2u) << name;
    EXPECT_EQ(back[0].taps, stereo[0].taps) << name;
    EXPECT_EQ(back[1].taps, stereo[1].taps) << name;
    EXPECT_EQ(back[0].rate_hz, 48000.0) << name;
  }
  // Through a FIFO whose writer brings the header in two pieces: the first block is read whole
  // before it is judged (a first read of 30 bytes had been refused as binary, a review).
  const std::string fifo = path("piped.irs");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    if (fd < 0) return;
    if (::write(fd, bytes.data(), 30) != 30) ADD_FAILURE() << "short write";
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (::write(fd, bytes.data() + 30, bytes.size() - 30) != static_cast<ssize_t>(bytes.size() - 30)) ADD_FAILURE() << "short write";
    ::close(fd);
  });
  const MaskSet piped = read_mask(fifo);
  writer.join();
  ASSERT_EQ(piped.size(), 2u);
  EXPECT_EQ(piped[0].taps, stereo[0].taps);
  EXPECT_THROW(read_mask(write_file("room.txt", bytes)), halo::audio::Error);
  EXPECT_THROW(read_mask(write_file("noise.bin", std::string("\x01\x00\x02\x03", 4) + std::string(100, 'x'))),
               halo::audio::Error);
}

// Past the first block read (64 KiB), a file is judged by its header, with the rest to come:
// a CAF whose data chunk ran past that block had been refused as "a binary file" (an IR of 8192
// stereo float frames on standard input or as room.irs, a QA pass). Every container that holds
// float taps, long enough to pass the block.
TEST_F(MaskFile, ALongSoundFileUnderANameThatSaysNothingIsReadByItsContent) {
  const MaskSet stereo = {mask_of(random_taps(20000, 5), 48000, ""), mask_of(random_taps(20000, 6), 48000, "")};
  for (const std::string extension : {"caf", "w64", "aiff", "wav", "rf64"}) {
    write_mask(path("room." + extension), stereo);
    std::ifstream in(path("room." + extension), std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    ASSERT_GT(bytes.size(), 65536u) << extension;
    const MaskSet back = read_mask(write_file("room.irs", bytes));
    ASSERT_EQ(back.size(), 2u) << extension;
    EXPECT_EQ(back[0].taps, stereo[0].taps) << extension;
    EXPECT_EQ(back[1].taps, stereo[1].taps) << extension;
  }
}

// Where a mask's delay lies (Mask::causal: a minimum-phase design starts at its first tap)
// survives every format that has room for it, and is not guessed where there is none.
TEST_F(MaskFile, ACausalMaskSaysSoInEveryFormatThatHoldsIt) {
  Mask mask = mask_of(random_taps(63, 7), 48000, "lowpass 2000 Hz, 63 taps, remez, minimum phase, 48000 Hz");
  for (const bool causal : {true, false}) {
    mask.causal = causal;
    for (const std::string name : {"m.txt", "m.wav", "m.flac", "m.aiff"}) {
      write_mask(path(name), {mask, mask});
      const MaskSet back = read_mask(path(name));
      ASSERT_EQ(back.size(), 2u) << name;
      EXPECT_EQ(back[0].causal, causal) << name;
      EXPECT_EQ(back[1].causal, causal) << name;
    }
    write_mask(path("m.f32"), {mask});
    EXPECT_FALSE(read_mask(path("m.f32"))[0].causal);  // raw floats have no room: centred, as before
  }
  // Written by hand, as the README gives it: the comment alone, anywhere; nothing like it counts.
  std::ofstream(path("hand.txt")) << "0.5\n0.25 # align causal\n0.125\n";
  EXPECT_TRUE(read_mask(path("hand.txt"))[0].causal);
  std::ofstream(path("near.txt")) << "# align causal please\n# aligned causal\n0.5\n0.25\n";
  EXPECT_FALSE(read_mask(path("near.txt"))[0].causal);
}

TEST_F(MaskFile, TextColumnsArePerChannelMasks) {
  const MaskSet masks = {mask_of(random_taps(64, 2), 0, "a"), mask_of(random_taps(64, 3), 0, "b"),
                         mask_of(random_taps(64, 4), 0, "c")};
  write_mask(path("three.txt"), masks);
  const MaskSet back = read_mask(path("three.txt"));
  ASSERT_EQ(back.size(), 3u);
  for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(back[c].taps, masks[c].taps) << "column " << c;
  EXPECT_NE(back[2].provenance.find("column 3"), std::string::npos) << back[2].provenance;
}

// A tap too small for a float is 0 in every text format, as a compiler reads 1e-400f: the text
// reader had refused 1e-400 (out of a double's range) while it read 1e-50 as 0, and JSON and C
// headers read both as 0.
TEST_F(MaskFile, ATapTooSmallForAFloatIsZeroInEveryTextFormat) {
  const std::vector<float> expected{0.5f, 0.0f, 0.0f, -0.25f};
  EXPECT_EQ(read_mask(write_file("tiny.txt", "0.5\n1e-400\n-1e-50\n-0.25\n"))[0].taps, expected);
  EXPECT_EQ(read_mask(write_file("tiny.json", "{\"coefficients\": [0.5, 1e-400, -1e-50, -0.25]}"))[0].taps, expected);
  EXPECT_EQ(read_mask(write_file("tiny.h", "const float h[] = {0.5f, 1e-400, -1e-50, -0.25f};\n"))[0].taps, expected);
  expect_read_error(write_file("huge.txt", "0.5\n1e400\n"), {"huge.txt:2:", "out of range"});
}

TEST_F(MaskFile, TextByHandWithCommentsCommasAndCrLf) {
  const std::string file = write_file("hand.csv",
                                      "# a hand-written mask\n"
                                      "\n"
                                      "  0.5, -0.25   # first row\n"
                                      "0.125\t0.0625\r\n"
                                      "+1e-3,-2E-3\n"
                                      "   \n");
  const MaskSet masks = read_mask(file);
  ASSERT_EQ(masks.size(), 2u);
  EXPECT_EQ(masks[0].taps, (std::vector<float>{0.5f, 0.125f, 1e-3f}));
  EXPECT_EQ(masks[1].taps, (std::vector<float>{-0.25f, 0.0625f, -2e-3f}));
}

TEST_F(MaskFile, RawFloat32RoundTripIsExact) {
  const Mask mask = mask_of(random_taps(1000, 5), 48000, "raw");
  write_mask(path("m.f32"), {mask});
  EXPECT_EQ(fs::file_size(path("m.f32")), 4000u);
  const MaskSet back = read_mask(path("m.f32"));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].taps, mask.taps);
}

TEST_F(MaskFile, RawFloat32IsLittleEndian) {
  // 1.0f = 0x3f800000 and -2.5f = 0xc0200000, least significant byte first.
  const std::string file = write_file("le.f32", std::string("\x00\x00\x80\x3f\x00\x00\x20\xc0", 8));
  const MaskSet masks = read_mask(file);
  ASSERT_EQ(masks.size(), 1u);
  EXPECT_EQ(masks[0].taps, (std::vector<float>{1.0f, -2.5f}));
}

TEST_F(MaskFile, WavRoundTripIsExactFloatWithRateAndChannels) {
  const MaskSet masks = {mask_of(random_taps(257, 6), 96000, "left"),
                         mask_of(random_taps(257, 7), 96000, "right")};
  write_mask(path("ir.wav"), masks);
  const MaskSet back = read_mask(path("ir.wav"));
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(back[c].taps, masks[c].taps) << "channel " << c;
    EXPECT_EQ(back[c].rate_hz, 96000.0);
  }
  EXPECT_NE(back[1].provenance.find("ch 2"), std::string::npos) << back[1].provenance;
}

TEST_F(MaskFile, WavWithoutRateIsWrittenAt48000) {
  write_mask(path("norate.wav"), {mask_of(random_taps(16, 8), 0, "")});
  EXPECT_EQ(read_mask(path("norate.wav"))[0].rate_hz, 48000.0);
}

TEST_F(MaskFile, FloatContainersRoundTripExactly) {
  for (const char* name : {"m.aiff", "m.aifc", "m.caf", "m.w64", "m.au", "m.rf64", "m.mat", "m.ircam"}) {
    const Mask mask = mask_of(random_taps(129, 9), 44100, name);
    write_mask(path(name), {mask});
    const MaskSet back = read_mask(path(name));
    ASSERT_EQ(back.size(), 1u) << name;
    EXPECT_EQ(back[0].taps, mask.taps) << name;
    EXPECT_EQ(back[0].rate_hz, 44100.0) << name;
  }
}

TEST_F(MaskFile, FlacRoundTripIsWithin24Bits) {
  const MaskSet masks = {mask_of(random_taps(511, 10), 48000, "l"), mask_of(random_taps(511, 11), 48000, "r")};
  write_mask(path("ir.flac"), masks);
  const MaskSet back = read_mask(path("ir.flac"));
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t c = 0; c < 2; ++c) {
    ASSERT_EQ(back[c].taps.size(), masks[c].taps.size());
    for (std::size_t n = 0; n < masks[c].taps.size(); ++n) {
      EXPECT_NEAR(back[c].taps[n], masks[c].taps[n], 1.0 / (1 << 23)) << "channel " << c << " tap " << n;
    }
    EXPECT_EQ(back[c].rate_hz, 48000.0);
  }
}

TEST_F(MaskFile, FlacRefusesTapsBeyondFullScaleAndLeavesNothing) {
  std::vector<float> taps = random_taps(32, 12);
  taps[5] = 1.5f;
  EXPECT_THROW(write_mask(path("loud.flac"), {mask_of(taps, 48000, "")}), Error);
  EXPECT_TRUE(entries().empty());
}

TEST_F(MaskFile, TwoChannelPcmImpulseResponseFromLibsndfile) {
  // Written by libsndfile directly as 16-bit integers, not by write_mask: read as float,
  // sample s must come back as s / 32768 exactly.
  const std::vector<float> values = random_taps(2 * 100, 13);
  std::vector<short> interleaved(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) interleaved[i] = static_cast<short>(values[i] * 32767);
  SF_INFO info{};
  info.samplerate = 22050;
  info.channels = 2;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  SNDFILE* file = sf_open(path("ir16.wav").c_str(), SFM_WRITE, &info);
  ASSERT_NE(file, nullptr) << sf_strerror(nullptr);
  ASSERT_EQ(sf_writef_short(file, interleaved.data(), 100), 100);
  ASSERT_EQ(sf_close(file), 0);

  const MaskSet masks = read_mask(path("ir16.wav"));
  ASSERT_EQ(masks.size(), 2u);
  for (std::size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(masks[c].rate_hz, 22050.0);
    ASSERT_EQ(masks[c].taps.size(), 100u);
    for (std::size_t f = 0; f < 100; ++f) {
      EXPECT_EQ(masks[c].taps[f], interleaved[2 * f + c] / 32768.0f) << "channel " << c << " frame " << f;
    }
  }
}

TEST_F(MaskFile, LossyImpulseResponsesAreReadToo) {
  // Ogg/Vorbis written by libsndfile: read_mask cannot write it but must read it.
  const std::vector<float> taps = random_taps(4800, 21);
  SF_INFO info{};
  info.samplerate = 48000;
  info.channels = 1;
  info.format = SF_FORMAT_OGG | SF_FORMAT_VORBIS;
  SNDFILE* file = sf_open(path("ir.ogg").c_str(), SFM_WRITE, &info);
  ASSERT_NE(file, nullptr) << sf_strerror(nullptr);
  ASSERT_EQ(sf_writef_float(file, taps.data(), static_cast<sf_count_t>(taps.size())),
            static_cast<sf_count_t>(taps.size()));
  ASSERT_EQ(sf_close(file), 0);

  const MaskSet masks = read_mask(path("ir.ogg"));
  ASSERT_EQ(masks.size(), 1u);
  EXPECT_EQ(masks[0].rate_hz, 48000.0);
  EXPECT_EQ(masks[0].taps.size(), taps.size());
}

TEST_F(MaskFile, OverwriteReplacesTheOldMaskAndLeavesNoTemporary) {
  write_mask(path("m.txt"), {mask_of(random_taps(10, 15), 0, "old")});
  const Mask fresh = mask_of(random_taps(20, 16), 0, "new");
  write_mask(path("m.txt"), {fresh});
  EXPECT_EQ(read_mask(path("m.txt"))[0].taps, fresh.taps);
  EXPECT_EQ(entries(), std::vector<std::string>{"m.txt"});
}

// ---------------------------------------------------------------- writes refused

TEST_F(MaskFile, WritesThatCannotBeDoneLeaveNothing) {
  const Mask a = mask_of(random_taps(8, 17), 48000, "a");
  const Mask shorter = mask_of(random_taps(7, 18), 48000, "b");
  Mask with_nan = a;
  with_nan.taps[3] = std::nanf("");
  EXPECT_THROW(write_mask(path("two.f32"), {a, a}), Error);       // raw holds one mask
  EXPECT_THROW(write_mask(path("ragged.txt"), {a, shorter}), Error);
  EXPECT_THROW(write_mask(path("nan.wav"), {with_nan}), Error);
  EXPECT_THROW(write_mask(path("none.txt"), {}), Error);
  EXPECT_THROW(write_mask(path("lossy.ogg"), {a}), Error);       // a lossy codec is no mask
  EXPECT_THROW(write_mask(path("lossy.mp3"), {a}), Error);
  EXPECT_TRUE(entries().empty());
}

TEST_F(MaskFile, WriteIntoAMissingFolderNamesIt) {
  const std::string target = path("no/such/folder/m.txt");
  try {
    write_mask(target, {mask_of(random_taps(8, 19), 0, "")});
    ADD_FAILURE() << "written";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(target + ": ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot create a file in " + path("no/such/folder") + ": no such folder"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(MaskFile, WritesToAFifoGoDirectly) {
  // A FIFO (like a device) cannot be renamed over: the mask goes through it, no temporary.
  const std::string fifo = path("mask.txt");
  std::string received;
  std::thread reader = read_fifo(fifo, received);
  write_mask(fifo, {mask_of({0.5f, 0.25f}, 0, "piped")});
  reader.join();
  EXPECT_EQ(received, "# piped\n0.5\n0.25\n");
  EXPECT_EQ(entries(), std::vector<std::string>{"mask.txt"});
}

// ---------------------------------------------------------------- atomic output

// Bytes written to a regular file live in an unnamed file in its folder (O_TMPFILE, where the
// file system has them, as here) until close_checked() names it ".NAME.halo-XXXXXX" beside the
// target, and commit() renames that over it: until the output is complete, no name holds it.
TEST_F(MaskFile, AtomicFileWritesBesideAndRenamesOnCommit) {
  const std::string target = path("out.txt");
  {
    AtomicFile file(target);
    EXPECT_FALSE(file.direct());
    file.write_all("abc", 3);
    EXPECT_EQ(entries(), std::vector<std::string>{}) << "unnamed while written";
    file.close_checked();
    const std::vector<std::string> names = entries();
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names[0].rfind(".out.txt.halo-", 0), 0u) << names[0];
    EXPECT_EQ(names[0].size(), std::string(".out.txt.halo-XXXXXX").size()) << names[0];
    file.commit();
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"out.txt"});
  std::ifstream in(target);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "abc");
  // The mode a plain create gives: 0666 less the umask (read back without changing it).
  const mode_t mask = umask(022);
  umask(mask);
  struct stat status {};
  ASSERT_EQ(stat(target.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0666 & ~mask);
}

TEST_F(MaskFile, AtomicFileWithoutCommitLeavesTheOldFile) {
  const std::string target = write_file("keep.txt", "old");
  {
    AtomicFile file(target);
    file.write_all("new and longer", 14);
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"keep.txt"});
  std::ifstream in(target);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "old");
}

TEST_F(MaskFile, AtomicFileKeepsTheTemporaryNameShort) {
  // NAME_MAX is 255: a 250-byte name still gets a temporary (its name cut), and the target.
  const std::string name(250, 'n');
  {
    AtomicFile file(path(name));
    file.write_all("x", 1);
    file.close_checked();
    const std::vector<std::string> names = entries();
    ASSERT_EQ(names.size(), 1u);
    EXPECT_LE(names[0].size(), 255u);
    EXPECT_NE(names[0].find(".halo-"), std::string::npos) << names[0];
    file.commit();
  }
  EXPECT_EQ(entries(), std::vector<std::string>{name});
}

TEST_F(MaskFile, AtomicFileWritesAFifoDirectly) {
  const std::string fifo = path("pipe");
  std::string received;
  std::thread reader = read_fifo(fifo, received);
  {
    AtomicFile file(fifo);  // opens once the reader has
    EXPECT_TRUE(file.direct());
    file.write_all("through", 7);
    file.commit();
  }
  reader.join();
  EXPECT_EQ(received, "through");
  EXPECT_EQ(entries(), std::vector<std::string>{"pipe"});
}

// ---------------------------------------------------------------- bad files read

TEST_F(MaskFile, MissingFilesSayWhy) {
  expect_read_error(path("absent.txt"), {"absent.txt: No such file or directory"});
  expect_read_error(path("absent.f32"), {"absent.f32: No such file or directory"});
  expect_read_error(path("ir.wav"), {"ir.wav: No such file or directory"});
  fs::create_directory(path("folder.txt"));
  expect_read_error(path("folder.txt"), {"folder.txt: Is a directory"});
}

TEST_F(MaskFile, TextWithoutCoefficients) {
  expect_read_error(write_file("empty.txt", ""), {"empty.txt: no coefficients"});
  expect_read_error(write_file("comments.txt", "# just\n\n   # comments\n"), {"comments.txt: no coefficients"});
}

TEST_F(MaskFile, TextErrorsNameFileAndLine) {
  expect_read_error(write_file("abc.txt", "0.5\n# fine\nabc\n"), {"abc.txt:3: \"abc\" is not a number"});
  expect_read_error(write_file("half.txt", "0.5\n0.25x\n"), {"half.txt:2: \"0.25x\" is not a number"});
  expect_read_error(write_file("nan.txt", "0.5\nnan\n"), {"nan.txt:2: NaN or Inf coefficient"});
  expect_read_error(write_file("inf.txt", "inf\n"), {"inf.txt:1: NaN or Inf coefficient"});
  expect_read_error(write_file("minf.txt", "0.1 0.2\n0.3 -inf\n"), {"minf.txt:2: NaN or Inf coefficient"});
  expect_read_error(write_file("huge.txt", "1e999\n"), {"huge.txt:1:", "1e999"});
  expect_read_error(write_file("float.txt", "1e300\n"), {"float.txt:1:", "float"});
  expect_read_error(write_file("ragged.txt", "0.1 0.2\n0.3 0.4\n0.5\n"), {"ragged.txt:3:", "1 column, but line 1 has 2", "line 1 has 2"});
  expect_read_error(write_file("commas.txt", "0.1,,0.2\n"), {"commas.txt:1:", "empty column"});
  expect_read_error(write_file("trailing.txt", "0.1,0.2\n0.3,\n"), {"trailing.txt:2:", "empty column"});
}

TEST_F(MaskFile, RawFloat32Errors) {
  expect_read_error(write_file("six.f32", std::string(6, '\x01')), {"six.f32: size 6 is not a multiple of 4 bytes"});
  expect_read_error(write_file("empty.f32", ""), {"empty.f32: no coefficients"});
  // 0x7fc00000 is a quiet NaN; 0x7f800000 is +Inf.
  expect_read_error(write_file("nan.f32", std::string("\x00\x00\x80\x3f\x00\x00\xc0\x7f", 8)),
                    {"nan.f32: NaN or Inf coefficient at index 1"});
  expect_read_error(write_file("inf.f32", std::string("\x00\x00\x80\x7f", 4)), {"inf.f32: NaN or Inf"});
}

TEST_F(MaskFile, SoundFileErrors) {
  expect_read_error(write_file("text.wav", "0.5\n0.25\nthis is not audio\n"), {"text.wav:", "libsndfile"});

  // A real WAV cut inside its header.
  write_mask(path("whole.wav"), {mask_of(random_taps(64, 20), 48000, "")});
  std::ifstream in(path("whole.wav"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 30u);
  expect_read_error(write_file("cut.wav", bytes.substr(0, 30)), {"cut.wav:"});
  // ... and cut inside its data (the header declares 64 frames, 40 are there): a reverb
  // without its tail would filter silently with a response cut short.
  const std::size_t data = bytes.find("data");
  ASSERT_NE(data, std::string::npos);
  ASSERT_EQ(bytes.size(), data + 8 + 64 * 4);  // float samples after the chunk's 8-byte header
  expect_read_error(write_file("short.wav", bytes.substr(0, data + 8 + 40 * 4)),
                    {"short.wav: truncated", "declares 64 frames", "only 40"});
  // ... but a whole WAV whose sizes are a pipe writer's stand-ins (ffmpeg's 0xffffffff, sox's
  // 0x7ffff000: it could not go back to fill them in) is whole, and reads as such.
  const Mask whole = read_mask(path("whole.wav"))[0];
  for (const std::uint32_t stand_in : {0xffffffffu, 0x7ffff000u}) {
    std::string piped = bytes;
    for (int b = 0; b < 4; ++b) {
      piped[4 + b] = static_cast<char>((stand_in >> (8 * b)) & 0xff);         // RIFF size
      piped[data + 4 + b] = static_cast<char>((stand_in >> (8 * b)) & 0xff);  // data size
    }
    const MaskSet back = read_mask(write_file("piped.wav", piped));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].taps, whole.taps) << std::hex << stand_in;
  }
  // Any other size is a length: a header declaring 3 GiB over 256 bytes of data is truncated,
  // and so is a W64 (64-bit sizes: only all ones there is a stand-in) declaring 3 GiB.
  std::string three_gib = bytes;
  for (int b = 0; b < 4; ++b) three_gib[data + 4 + b] = static_cast<char>((0xC0000000u >> (8 * b)) & 0xff);
  expect_read_error(write_file("3gib.wav", three_gib), {"3gib.wav: truncated", "only 64"});
  write_mask(path("whole.w64"), {mask_of(random_taps(64, 20), 48000, "")});
  std::ifstream w64_in(path("whole.w64"), std::ios::binary);
  std::string w64((std::istreambuf_iterator<char>(w64_in)), std::istreambuf_iterator<char>());
  const std::size_t w64_data = w64.rfind("data");  // the data chunk's GUID, then its 64-bit size
  ASSERT_NE(w64_data, std::string::npos);
  const std::uint64_t declared = (3ull << 30) + 24;  // W64 counts its 24-byte chunk header
  for (int b = 0; b < 8; ++b) w64[w64_data + 16 + b] = static_cast<char>((declared >> (8 * b)) & 0xff);
  expect_read_error(write_file("3gib.w64", w64), {"3gib.w64: truncated", "only 64"});
  // An RF64 keeps its sizes in its ds64 chunk ("data" says 0xFFFFFFFF): cut, it is found by those.
  write_mask(path("whole.rf64"), {mask_of(random_taps(1000, 21), 48000, "")});
  std::ifstream rf64_in(path("whole.rf64"), std::ios::binary);
  const std::string rf64((std::istreambuf_iterator<char>(rf64_in)), std::istreambuf_iterator<char>());
  expect_read_error(write_file("cut.rf64", rf64.substr(0, rf64.size() - 400 * 4)),
                    {"cut.rf64: truncated", "declares 1000 frames", "only 600"});

  // A valid WAV with no frames, and one holding a NaN sample.
  SF_INFO info{};
  info.samplerate = 48000;
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  SNDFILE* file = sf_open(path("silent.wav").c_str(), SFM_WRITE, &info);
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(sf_close(file), 0);
  expect_read_error(path("silent.wav"), {"silent.wav: no coefficients"});

  file = sf_open(path("nan.wav").c_str(), SFM_WRITE, &info);
  ASSERT_NE(file, nullptr);
  const float samples[3] = {0.5f, std::nanf(""), 0.25f};
  ASSERT_EQ(sf_writef_float(file, samples, 3), 3);
  ASSERT_EQ(sf_close(file), 0);
  expect_read_error(path("nan.wav"), {"nan.wav: NaN or Inf coefficient", "frame 1"});
}

}  // namespace
}  // namespace halo::audio
