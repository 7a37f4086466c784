// Issue 13, items 12 and 13, through the built `halo`: every command-line mistake exits 2
// (a file or data error stays 1) with one `halo:` line naming the flag, before any output is
// made; every number goes through one strict parser (a whole decimal number, optionally `k`
// or a frequency suffix), and a single-valued option given twice is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

class StrictOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    input = dir / "in.wav";
    ASSERT_EQ(python(dir.path(), "import numpy as np, soundfile as sf\n"
                "t = np.arange(4800) / 48000\n"
                "sf.write('in.wav', 0.5 * np.sin(2 * np.pi * 440 * t), 48000, subtype='PCM_16')\n").exit_code, 0);
  }

  // `halo filter in.wav out.wav ARGS` must exit `code` with one `halo:` line containing `names`,
  // leaving an existing OUT byte for byte and nothing else in the directory.
  void expect_refused(const std::vector<std::string>& args, int code, const std::string& names) {
    const std::string output = dir / "out.wav";
    const std::string existing = "an existing OUT\n";
    write_bytes(output, existing);
    const auto before = list_directory(dir.path());
    std::vector<std::string> all = {HALO_BINARY, "filter", input, output};
    all.insert(all.end(), args.begin(), args.end());
    const Result ran = run(all, in_directory(dir.path()));
    const std::string context = describe(all, ran);
    EXPECT_EQ(ran.exit_code, code) << context;
    const auto lines = lines_of(ran.err);
    ASSERT_EQ(lines.size(), 1u) << context;
    EXPECT_EQ(lines[0].rfind("halo: ", 0), 0u) << context;
    EXPECT_NE(lines[0].find(names), std::string::npos) << "should name " << names << "\n" << context;
    EXPECT_EQ(read_bytes(output), existing) << context;
    EXPECT_EQ(list_directory(dir.path()), before) << context;
  }

  // `halo COMMAND...` for each of `commands`: exit 2, one line, containing `says`.
  void expect_commands_refused(const std::vector<std::vector<std::string>>& commands, const std::string& says) {
    for (const std::vector<std::string>& args : commands) {
      std::vector<std::string> all = {HALO_BINARY};
      all.insert(all.end(), args.begin(), args.end());
      const Result ran = run(all);
      EXPECT_EQ(ran.exit_code, 2) << describe(all, ran);
      EXPECT_EQ(lines_of(ran.err).size(), 1u) << describe(all, ran);
      EXPECT_NE(ran.err.find(says), std::string::npos) << describe(all, ran);
    }
  }

  TempDir dir;
  std::string input;
};

// Item 12: the mistakes the issue lists, each exit 2 with its flag named.
TEST_F(StrictOptions, EveryCommandLineMistakeExitsTwo) {
  expect_refused({"--lowpass", "1k", "--engine", "gpu"}, 2, "--engine");
  expect_refused({"--lowpass", "1k", "--subtype", "pcm12"}, 2, "--subtype pcm12");
  expect_refused({"--lowpass", "1k", "--taps", "-5"}, 2, "--taps");
  expect_refused({"--lowpass", "1k", "--taps", "0"}, 2, "--taps 0: the length must be in [1, 1048576]");
  // Past what an int holds, the same range as the library's (it had said "give -1073741824 to ...").
  expect_refused({"--lowpass", "1k", "--taps", "1e30"}, 2, "--taps 1e30: the length must be in [1, 1048576]");
  // A --subtype OUT's container holds at no rate: how the command was called (it exited 1).
  expect_refused({"--lowpass", "1k", "--subtype", "vorbis"}, 2, "WAV cannot hold --subtype vorbis");
  expect_refused({"--lowpass", "1k", "--window", "kaiser:abc"}, 2, "--window");
  expect_refused({"--lowpass", "-1k"}, 2, "--lowpass");
  expect_refused({"--lowpass", "nan"}, 2, "--lowpass");
  expect_refused({"--lowpass", "24k"}, 2, "--lowpass");  // Nyquist of the 48 kHz input
  expect_refused({"--bandpass", "3400:300"}, 2, "--bandpass");
  expect_refused({"--highpass", "100", "--taps", "256"}, 2, "--taps");
  expect_refused({"--lowpass", "1k", "--transition", "100", "--attenuation", "1e6"}, 2, "--attenuation");
  // A 0 given is named as given, not taken for the other flag missing.
  expect_refused({"--lowpass", "1k", "--transition", "100", "--attenuation", "0"}, 2, "--attenuation 0");
  expect_refused({"--lowpass", "1k", "--transition", "0", "--attenuation", "60"}, 2, "--transition 0");
  // `--ripple 0` had been read as no ripple goal and the spec said met (a QA pass).
  expect_refused({"--lowpass", "1k", "--method", "kaiser", "--transition", "500", "--attenuation", "40", "--ripple", "0"},
                 2, "--ripple 0: give a ripple above 0 dB");
  expect_refused({"--lowpass", "1k", "--method", "remez", "--transition", "0", "--attenuation", "60"}, 2,
                 "--transition 0");
  expect_refused({"--lowpass", "1k", "third.wav"}, 2, "'third.wav' is a third file name");
}

// A switch given a value (`--tail=false`) had been taken as the switch given: the tail added,
// dither off, JSON printed. It is refused, in filter and in the other commands; `=true` is the
// switch itself.
TEST_F(StrictOptions, ASwitchGivenAValueIsRefused) {
  expect_refused({"--lowpass", "1k", "--tail=false"}, 2, "--tail is a switch and takes no value");
  expect_refused({"--lowpass", "1k", "--no-dither=0"}, 2, "--no-dither is a switch and takes no value");
  expect_refused({"--lowpass", "1k", "--timings=false"}, 2, "--timings is a switch");
  expect_commands_refused({{"info", input, "--json=false"}, {"design", "--lowpass", "1k", "--minimum-phase=false"},
                           {"ir", "fix", input, dir / "ir.wav", "--trim-silence=false"},
                           {"wisdom", "--patient=false", "--file", dir / "w"}},
                          "is a switch and takes no value");
  EXPECT_FALSE(std::filesystem::exists(dir / "ir.wav"));
  // Any other word, and a short switch with one: they had come back as cxxopts's "Argument
  // 'yes' failed to parse" and "Option '=' does not exist", naming no switch (a QA pass).
  expect_refused({"--lowpass", "1k", "--tail=yes"}, 2, "--tail=yes: --tail is a switch and takes no value");
  expect_refused({"--lowpass", "1k", "-q=true"}, 2, "-q=true: -q is a switch and takes no value");
  expect_commands_refused({{"info", input, "--json=yes"}, {"design", "--lowpass", "1k", "-q=1"},
                           {"ir", "inspect", input, "--json=on"}, {"play", input, "--lowpass", "1k", "--loop=yes"}},
                          "is a switch and takes no value");
  // A value that looks like a switch given one is a value: a file named "-q=half.txt" after
  // --mask (refused as -q given a value, a QA pass).
  write_mask_text(dir / "-q=half.txt", {{0.5f}});
  const Result named = run({HALO_BINARY, "filter", input, dir / "h.wav", "--mask", "-q=half.txt", "-q"}, in_directory(dir.path()));
  ASSERT_EQ(named.exit_code, 0) << named.err;
  const Result with_true = run({HALO_BINARY, "filter", input, dir / "t.wav", "--lowpass", "1k", "--tail=true", "-q"});
  ASSERT_EQ(with_true.exit_code, 0) << with_true.err;
  EXPECT_EQ(read_sound(dir / "t.wav").frames, 4800u + 127u) << "the tail of a 255-tap mask, centred";
}

// An option whose value is missing takes the next option as its value: cxxopts allows it, and
// the message had been about a third file name ('1k'), or "-q: No such file" with exit 1 (a
// QA pass). Now the option is named, exit 2, in every command; a negative number is a value.
TEST_F(StrictOptions, AnOptionFollowedByAnotherHasNoValue) {
  expect_refused({"--mask", "--lowpass", "1k"}, 2, "--mask needs a value: '--lowpass' after it is an option");
  expect_refused({"--lowpass", "--taps", "5"}, 2, "--lowpass needs a value: '--taps' after it is an option");
  expect_refused({"--mask", "-q"}, 2, "--mask needs a value: '-q' after it is an option");
  expect_commands_refused({{"design", "--lowpass", "--taps", "5"}, {"ir", "inspect", input, "--rate", "--json"},
                           {"wisdom", "--file", "--patient"}, {"play", input, "--ir", "-q"}},
                          "needs a value");
  const Result negative = run({HALO_BINARY, "filter", input, dir / "n.wav", "--lowpass", "1k", "--gain", "-3", "-q"});
  EXPECT_EQ(negative.exit_code, 0) << negative.err;
}

// `--norm LEVEL` as its own word takes every number the parser reads: "-1e1" had been taken
// for options (-1, -e...), "1e-1" for a third file name and "-inf" for options too (a QA pass).
TEST_F(StrictOptions, NormTakesEveryNumberAsItsOwnWord) {
  const Result exponent = run({HALO_BINARY, "filter", input, dir / "n.wav", "--lowpass", "1k", "--norm", "-1e1", "-q"});
  ASSERT_EQ(exponent.exit_code, 0) << exponent.err;
  double peak = 0;
  for (const float sample : read_sound(dir / "n.wav").samples) peak = std::max(peak, std::fabs(double{sample}));
  EXPECT_NEAR(20 * std::log10(peak), -10.0, 0.01) << "--norm -1e1 is -10 dBFS";
  expect_refused({"--lowpass", "1k", "--norm", "1e-1"}, 2, "--norm 1e-1: give a peak level in dBFS");
  expect_refused({"--lowpass", "1k", "--norm", "-inf"}, 2, "--norm -inf: not a level");
}

// Lines that name the mistake: an empty --mask had been ": No such file or directory", a second
// length after --taps "'1023' is not an option", and devices' stray word the same (a QA pass).
TEST_F(StrictOptions, StrayAndEmptyWordsAreNamed) {
  expect_refused({"--mask", ""}, 2, "--mask: an empty file name");
  expect_refused({"--ir", ""}, 2, "--ir: an empty file name");
  expect_commands_refused({{"wisdom", "--taps", "255", "1023", "--file", dir / "w"}},
                          "'1023' is a stray word; give several lengths as --taps 255,1023");
  EXPECT_FALSE(std::filesystem::exists(dir / "w"));
  expect_commands_refused({{"wisdom", "quiet"}}, "wisdom: 'quiet' is not an option");  // no --taps hint (a review)
  expect_commands_refused({{"wisdom", "--taps", "255", "1k", "--file", dir / "w"}}, "'1k' is a stray word");
  expect_commands_refused({{"ir", "inspect", ""}, {"ir", "fix", "", dir / "f.txt"}}, "an empty");
  expect_commands_refused({{"devices", "extra"}}, "devices takes no arguments: 'extra'");
}

TEST_F(StrictOptions, DesignMistakesExitTwoToo) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--lowpass", "30k"}, {"--lowpass", "1k", "--taps", "0"},
        {"--highpass", "100", "--taps", "256"}, {"--lowpass", "1k", "--window", "kaiser:abc"},
        {"--lowpass", "1k", "--rate", "0x100"}}) {
    std::vector<std::string> all = {HALO_BINARY, "design"};
    all.insert(all.end(), args.begin(), args.end());
    const Result ran = run(all, in_directory(dir.path()));
    EXPECT_EQ(ran.exit_code, 2) << describe(all, ran);
    EXPECT_EQ(lines_of(ran.err).size(), 1u) << describe(all, ran);
  }
}

// A name that is all extension (".h", ".yml") is named as such, by design and ir fix alike: design
// had told halo design to use halo design, or to name it .h (a QA pass, a review), and ir fix had
// written a text mask into ".yml" that --mask then took for a CamillaDSP configuration.
TEST_F(StrictOptions, ANameThatIsOnlyAnExtensionIsSaid) {
  write_mask_text(dir / "m.txt", {{0.25f, 0.5f, 0.25f}});
  for (const auto& [args, name] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"design", "--lowpass", "1k", "-o", dir / ".h"}, ".h"},
           {{"design", "--lowpass", "1k", "--format", "h", "-o", dir / ".h"}, ".h"},
           {{"design", "--lowpass", "1k", "--format", "camilladsp", "-o", dir / ".yml"}, ".yml"},
           {{"ir", "fix", dir / "m.txt", dir / ".yml", "--in-rate", "48000"}, ".yml"}}) {
    std::vector<std::string> all = {HALO_BINARY};
    all.insert(all.end(), args.begin(), args.end());
    const Result ran = run(all, in_directory(dir.path()));
    EXPECT_EQ(ran.exit_code, 2) << describe(all, ran);
    EXPECT_EQ(ran.err, "halo: " + dir / name + ": a name that is only an extension: give the file a name (mask" + name + ")\n")
        << describe(all, ran);
    EXPECT_FALSE(file_exists(dir / name));
  }
}

// File and data errors are not usage errors: they stay 1.
TEST_F(StrictOptions, FileAndDataErrorsStayOne) {
  write_bytes(dir / "bad.txt", "0.5\nnot-a-number\n");
  write_bytes(dir / "notsound.wav", "this is not a sound file\n");
  std::vector<std::vector<std::string>> runs = {
      {HALO_BINARY, "filter", dir / "missing.wav", dir / "o.wav", "--lowpass", "1k"},
      {HALO_BINARY, "filter", dir / "notsound.wav", dir / "o.wav", "--lowpass", "1k"},
      {HALO_BINARY, "filter", input, dir / "o.wav", "--mask", dir / "bad.txt"},
      {HALO_BINARY, "filter", input, dir / "o.wav", "--mask", dir / "missing.txt"},
  };
  for (const auto& args : runs) {
    const Result ran = run(args, in_directory(dir.path()));
    EXPECT_EQ(ran.exit_code, 1) << describe(args, ran);
    EXPECT_EQ(lines_of(ran.err).size(), 1u) << describe(args, ran);
  }
}

// Item 13: one strict parser behind every numeric option.
TEST_F(StrictOptions, LooseNumbersAreRefused) {
  // A level's own unit is no looseness ("6dB" is read, as "500Hz" is for a frequency); another is.
  for (const char* bad : {"6abc", "6 7", "0x10", "nan", "inf", "", "1e", "6dBm", "6Hz", "+-6", "1,5"})
    expect_refused({"--lowpass", "1k", "--gain", bad}, 2, "--gain");
  expect_refused({"--lowpass", "0x100"}, 2, "--lowpass 0x100");
  expect_refused({"--lowpass", "1k5"}, 2, "--lowpass");
  expect_refused({"--bandpass", "300:0x11"}, 2, "--bandpass");
  expect_refused({"--lowpass", "1k", "--taps", "0x11"}, 2, "--taps 0x11");
  expect_refused({"--lowpass", "1k", "--taps", "255.5"}, 2, "--taps");
  expect_refused({"--lowpass", "1k", "--taps", "2 55"}, 2, "--taps");
  expect_refused({"--lowpass", "1k", "--chunk", "0x100"}, 2, "--chunk");
  expect_refused({"--lowpass", "1k", "--chunk", "64abc"}, 2, "--chunk");
  expect_refused({"--lowpass", "1k", "--block", "0x100"}, 2, "--block");
  expect_refused({"--lowpass", "1k", "--transition", "0x100", "--attenuation", "60"}, 2, "--transition");
  expect_refused({"--lowpass", "1k", "--transition", "500", "--attenuation", "60dBm"}, 2, "--attenuation");
  expect_refused({"--lowpass", "1k", "--transition", "500", "--attenuation", "nan"}, 2, "--attenuation");
}

TEST_F(StrictOptions, RepeatedSingleValuedOptionsAreRefused) {
  expect_refused({"--lowpass", "1k", "--lowpass", "2k"}, 2, "--lowpass");
  expect_refused({"--lowpass", "1k", "--gain", "-3", "--gain", "-6"}, 2, "--gain");
  expect_refused({"--lowpass", "1k", "--taps", "101", "--taps=201"}, 2, "--taps");
  expect_refused({"--lowpass", "1k", "--engine", "cpu", "--engine", "cpu-fft"}, 2, "--engine");
  const std::vector<std::string> design = {HALO_BINARY, "design", "--lowpass", "1k", "--rate", "44100", "--rate", "48k"};
  const Result ran = run(design, in_directory(dir.path()));
  EXPECT_EQ(ran.exit_code, 2) << describe(design, ran);
  EXPECT_NE(ran.err.find("--rate"), std::string::npos) << describe(design, ran);
}

// A switch given twice is the same switch, in every command (--accept-short and `wisdom -q -q`
// had been refused where `-q -q` and `--tail --tail` were taken: a QA pass).
TEST_F(StrictOptions, ASwitchGivenTwiceIsTheSameSwitch) {
  write_mask_text(dir / "unit.txt", {{1.0f}});
  const std::vector<std::vector<std::string>> runs = {
      {HALO_BINARY, "filter", input, dir / "y.wav", "--lowpass", "1k", "--accept-short", "--accept-short", "-q", "-q"},
      {HALO_BINARY, "design", "--lowpass", "1k", "-o", dir / "m.txt", "-q", "-q", "--minimum-phase", "--minimum-phase"},
      {HALO_BINARY, "ir", "fix", dir / "unit.txt", dir / "u.txt", "--in-rate", "48000", "--trim-silence", "--trim-silence", "-q", "-q"},
      {HALO_BINARY, "info", input, "--json", "--json"}};
  for (const auto& args : runs) {
    const Result ran = run(args, in_directory(dir.path()));
    EXPECT_EQ(ran.exit_code, 0) << describe(args, ran);
  }
}

// What the strict parser accepts still means what it says: a `k` multiplies by 1000 and the
// frequency suffixes stay, checked against a mask designed with the plain number.
TEST_F(StrictOptions, DecimalNumbersWithSuffixesStillWork) {
  auto design = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {HALO_BINARY, "design", "--rate", "48000"});
    const Result ran = run(args, in_directory(dir.path()));
    EXPECT_EQ(ran.exit_code, 0) << describe(args, ran);
    return ran.out;
  };
  const std::string plain = design({"--lowpass", "1500", "--taps", "101"});
  EXPECT_FALSE(plain.empty());
  EXPECT_EQ(design({"--lowpass", "1.5k", "--taps", "101"}), plain);
  EXPECT_EQ(design({"--lowpass", "1.5kHz", "--taps", "101"}), plain);
  EXPECT_EQ(design({"--lowpass", "1500Hz", "--taps", "101"}), plain);
  EXPECT_EQ(design({"--lowpass", "1.5e3", "--taps", "1.01e2"}), plain);
  EXPECT_EQ(design({"--lowpass", "+1500", "--taps", "+101"}), plain);
  const Result gain = run({HALO_BINARY, "filter", input, dir / "g.wav", "--lowpass", "1k", "--gain", "-6.5", "-q"},
                          in_directory(dir.path()));
  EXPECT_EQ(gain.exit_code, 0) << gain.err;
}

}  // namespace
}  // namespace halo::test
