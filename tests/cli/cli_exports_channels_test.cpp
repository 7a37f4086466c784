// issue 16, exports of several masks (one per channel): the CamillaDSP YAML (parsed with
// yaml-cpp against CamillaDSP's documented config keys: a Conv filter of type Wav with its
// 0-based `channel`, one pipeline Filter step per channel) and the Equalizer APO config (its
// documented grammar: `Preamp: X dB`, then `Channel: N` before each `Convolution: FILE`), each
// coefficient file read with libsndfile and compared with the masks written.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

class ExportChannels : public ::testing::Test {
 protected:
  TempDir dir;
  std::vector<std::vector<float>> masks;
  std::string path(const std::string& name) const { return dir.path() + "/" + name; }

  void SetUp() override {
    // Two different masks of 48 taps, exact in float, as a two-column text mask at 44.1 kHz.
    masks.assign(2, std::vector<float>(48));
    for (std::size_t k = 0; k < 48; ++k) {
      masks[0][k] = static_cast<float>(std::ldexp(static_cast<double>(k) - 20.0, -6));
      masks[1][k] = static_cast<float>(std::ldexp(std::sin(0.3 * static_cast<double>(k)), -2));
    }
    std::string text = "# two channels\n# rate 44100 Hz\n";
    char line[96];
    for (std::size_t k = 0; k < 48; ++k) {
      std::snprintf(line, sizeof line, "%.9g %.9g\n", masks[0][k], masks[1][k]);
      text += line;
    }
    write_bytes(path("two.txt"), text);
  }

  void design(const std::vector<std::string>& args) {
    std::vector<std::string> all = {HALO_BINARY, "design", "--mask", path("two.txt"), "-q"};
    all.insert(all.end(), args.begin(), args.end());
    const Result result = run(all);
    ASSERT_EQ(result.exit_code, 0) << describe(all, result);
  }

  // One channel of a sound file, read with libsndfile (not halo's reader).
  std::vector<float> channel_of(const Sound& sound, int c) const {
    std::vector<float> out;
    for (std::size_t i = static_cast<std::size_t>(c); i < sound.samples.size();
         i += static_cast<std::size_t>(sound.channels))
      out.push_back(sound.samples[i]);
    return out;
  }

  double worst_case_gain() const {
    double worst = 0;
    for (const auto& mask : masks) {
      double sum = 0;
      for (float tap : mask) sum += std::fabs(tap);
      worst = std::max(worst, sum);
    }
    return worst;
  }
};

TEST_F(ExportChannels, CamillaDspHasAConvFilterAndAPipelineStepPerChannel) {
  design({"-o", path("room.yml")});
  const YAML::Node config = YAML::LoadFile(path("room.yml"));
  ASSERT_TRUE(config["filters"].IsMap()) << read_bytes(path("room.yml"));
  ASSERT_EQ(config["filters"].size(), 2u);
  ASSERT_TRUE(config["pipeline"].IsSequence());
  ASSERT_EQ(config["pipeline"].size(), 2u);
  const Sound wav = read_sound(path("room.wav"));
  EXPECT_EQ(wav.channels, 2);
  EXPECT_EQ(wav.rate_hz, 44100);
  EXPECT_EQ(subtype_of(wav), SF_FORMAT_FLOAT);
  for (int c = 0; c < 2; ++c) {
    const std::string name = "room_ch" + std::to_string(c + 1);
    const YAML::Node filter = config["filters"][name];
    ASSERT_TRUE(filter) << name << "\n" << read_bytes(path("room.yml"));
    EXPECT_EQ(filter["type"].as<std::string>(), "Conv");
    const YAML::Node parameters = filter["parameters"];
    EXPECT_EQ(parameters["type"].as<std::string>(), "Wav");
    EXPECT_EQ(parameters["filename"].as<std::string>(), "room.wav");
    EXPECT_EQ(parameters["channel"].as<int>(), c);  // 0-based, as CamillaDSP counts
    // The step that applies it: a Filter on that channel only, naming that filter.
    const YAML::Node step = config["pipeline"][c];
    EXPECT_EQ(step["type"].as<std::string>(), "Filter");
    ASSERT_TRUE(step["channels"].IsSequence());
    ASSERT_EQ(step["channels"].size(), 1u);
    EXPECT_EQ(step["channels"][0].as<int>(), c);
    ASSERT_EQ(step["names"].size(), 1u);
    EXPECT_EQ(step["names"][0].as<std::string>(), name);
    // The channel CamillaDSP reads from the WAV is that mask, bit for bit.
    EXPECT_EQ(channel_of(wav, parameters["channel"].as<int>()), masks[static_cast<std::size_t>(c)]) << name;
  }
}

TEST_F(ExportChannels, EqualizerApoSelectsEachChannelBeforeItsConvolution) {
  design({"--format", "eqapo", "-o", path("eq.txt")});
  const std::regex preamp(R"(Preamp: (-?[0-9]+\.[0-9]+) dB)"), channel(R"(Channel: ([0-9]+))"),
      convolution(R"(Convolution: (\S+))");
  double preamp_db = 1;
  int selected = 0;  // the channel the last Channel: line selected (1-based, as Equalizer APO counts)
  std::vector<std::pair<int, std::string>> convolutions;
  for (const std::string& line : lines_of(read_bytes(path("eq.txt")))) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch match;
    if (std::regex_match(line, match, preamp)) {
      EXPECT_EQ(selected, 0) << "the preamp applies to every channel: before any Channel: line";
      preamp_db = std::stod(match[1]);
    } else if (std::regex_match(line, match, channel)) {
      selected = std::stoi(match[1]);
    } else if (std::regex_match(line, match, convolution)) {
      convolutions.emplace_back(selected, match[1]);
    } else {
      ADD_FAILURE() << "not in the grammar: " << line;
    }
  }
  // Enough headroom for the louder channel, and no more than the hundredth of a dB of rounding.
  const double gain_db = 20 * std::log10(worst_case_gain());
  ASSERT_GT(gain_db, 0);
  EXPECT_LE(preamp_db, -gain_db);
  EXPECT_GE(preamp_db, -gain_db - 0.011);
  ASSERT_EQ(convolutions.size(), 2u);
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(convolutions[static_cast<std::size_t>(c)].first, c + 1);
    const std::string wav_name = convolutions[static_cast<std::size_t>(c)].second;
    EXPECT_EQ(wav_name, "eq_ch" + std::to_string(c + 1) + ".wav");
    const Sound wav = read_sound(path(wav_name));
    EXPECT_EQ(wav.channels, 1) << wav_name;
    EXPECT_EQ(wav.rate_hz, 44100) << wav_name;
    EXPECT_EQ(wav.samples, masks[static_cast<std::size_t>(c)]) << wav_name;
  }
}

TEST_F(ExportChannels, SoxTakesOneMaskAndSaysSo) {
  const DirectorySnapshot before(dir.path());
  expect_one_line_failure(halo({"design", "--mask", path("two.txt"), "--format", "sox", "-o", path("sox.txt")}), 1,
                          "one mask", before, "sox with two masks");
}

}  // namespace
}  // namespace halo::test
