// Issue 13, item 5: an input cut short (a file whose header declares more frames than it
// holds) is not filtered silently. halo names the declared and the read frame counts and fails
// (nothing written) unless --accept-short is given; then it warns and filters what is there.
// The truncated files are real files cut with truncate(2); what a reader finds in them comes
// from libsndfile directly (read_sound) and sox, not from halo.
#include <gtest/gtest.h>

#include <cmath>

#include <sndfile.h>
#include <unistd.h>

#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

constexpr std::size_t declared = 48000;

struct Container {
  const char* extension;
  int format;
  int channels = 2;
  int rate_hz = 48000;
  // How the file is cut: to half its size (0), or by this many bytes at its end.
  long cut_end_bytes = 0;
  // The test's name where the extension is not enough (a codec, a way of cutting).
  const char* label = nullptr;
  // Whether the header's count is the frames written: a block codec counts its last block's
  // padding too (IMA ADPCM in a WAV: 48480 for 48000 written).
  bool declares_what_was_written = true;
};

class TruncatedInput : public testing::TestWithParam<Container> {};

TEST_P(TruncatedInput, FailsNamingBothCountsUnlessAccepted) {
  const Container container = GetParam();
  TempDir dir;
  const std::string input = dir / (std::string("cut.") + container.extension);
  write_sound(input, random_signal(declared * container.channels, 5, 0.4f), container.channels, container.rate_hz,
              container.format);
  struct stat status {};
  ASSERT_EQ(stat(input.c_str(), &status), 0);
  ASSERT_EQ(truncate(input.c_str(), container.cut_end_bytes > 0 ? status.st_size - container.cut_end_bytes : status.st_size / 2), 0);
  const Sound cut = read_sound(input);  // what is there, as libsndfile reads it
  ASSERT_GT(cut.frames, 1000);
  ASSERT_LT(cut.frames, static_cast<std::int64_t>(declared));

  const DirectorySnapshot before(dir.path());
  const auto args = halo_args({"filter", input, dir / "out.wav", "--lowpass", "2k"});
  const Result failed = run(args);
  const std::string declares = container.declares_what_was_written ? "declares " + std::to_string(declared) + " frames"
                                                                      : "truncated: its header declares ";
  expect_one_line_failure(failed, 1, declares, before, describe(args, failed));
  EXPECT_NE(failed.err.find(std::to_string(cut.frames)), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("--accept-short"), std::string::npos) << failed.err;

  // Float out: a block codec's output would hold its last block's padding too.
  const auto accepted_args =
      halo_args({"filter", input, dir / "out.wav", "--lowpass", "2k", "--accept-short", "--subtype", "float", "-q"});
  const Result accepted = run(accepted_args);
  ASSERT_EQ(accepted.exit_code, 0) << describe(accepted_args, accepted);
  EXPECT_NE(accepted.err.find("warning"), std::string::npos) << accepted.err;
  if (container.declares_what_was_written) {
    EXPECT_NE(accepted.err.find(std::to_string(declared)), std::string::npos) << accepted.err;
  }
  EXPECT_NE(accepted.err.find(std::to_string(cut.frames)), std::string::npos) << accepted.err;
  EXPECT_EQ(read_sound(dir / "out.wav").frames, cut.frames);

  const Result info = halo({"info", input});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("truncated: the header declares " +
                          (container.declares_what_was_written ? std::to_string(declared) : std::string())),
            std::string::npos)
      << info.out;
}

// Every container whose header declares a length (libsndfile says so in its log, or for NIST
// not even there): IRCAM, PAF and XI headers carry none, so a cut one is what is there.
const Container declaring_containers[] = {
    {"wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16},      {"aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16},
    {"au", SF_FORMAT_AU | SF_FORMAT_FLOAT},         {"w64", SF_FORMAT_W64 | SF_FORMAT_PCM_24},
    {"rf64", SF_FORMAT_RF64 | SF_FORMAT_FLOAT},     {"nist", SF_FORMAT_NIST | SF_FORMAT_PCM_16},
    {"mat4", SF_FORMAT_MAT4 | SF_FORMAT_PCM_16},    {"mat5", SF_FORMAT_MAT5 | SF_FORMAT_FLOAT},
    {"voc", SF_FORMAT_VOC | SF_FORMAT_PCM_16},      {"avr", SF_FORMAT_AVR | SF_FORMAT_PCM_16},
    {"mpc2k", SF_FORMAT_MPC2K | SF_FORMAT_PCM_16},  {"wve", SF_FORMAT_WVE | SF_FORMAT_ALAW, 1, 8000},
    {"svx", SF_FORMAT_SVX | SF_FORMAT_PCM_16, 1},
    // Found by a QA pass: a W64, CAF or IFF two bytes short (a W64's "padding" had hidden the
    // lost frame; the CAF's data chunk counts a 4-byte edit count), and block codecs, whose
    // frames are not bytes over a sample's size (a GSM 6.10 WAV is "unseekable" to libsndfile
    // as its codec cannot seek, and had been read as from a pipe).
    {"w64", SF_FORMAT_W64 | SF_FORMAT_PCM_16, 2, 48000, 2, "w64_two_bytes_short"},
    {"caf", SF_FORMAT_CAF | SF_FORMAT_PCM_16, 2, 48000, 2, "caf_two_bytes_short"},
    {"svx", SF_FORMAT_SVX | SF_FORMAT_PCM_16, 1, 48000, 2, "svx_two_bytes_short"},
    {"wav", SF_FORMAT_WAV | SF_FORMAT_IMA_ADPCM, 2, 48000, 0, "wav_ima_adpcm", false},
    {"wav", SF_FORMAT_WAV | SF_FORMAT_MS_ADPCM, 2, 48000, 0, "wav_ms_adpcm", false},
    {"wav", SF_FORMAT_WAV | SF_FORMAT_GSM610, 1, 8000, 0, "wav_gsm610", false},
    {"w64", SF_FORMAT_W64 | SF_FORMAT_MS_ADPCM, 2, 48000, 0, "w64_ms_adpcm", false},
    {"aiff", SF_FORMAT_AIFF | SF_FORMAT_IMA_ADPCM, 2, 48000, 0, "aiff_ima_adpcm", false},
    {"caf", SF_FORMAT_CAF | SF_FORMAT_ALAC_16, 2, 48000, 2, "caf_alac_two_bytes_short"},
};

INSTANTIATE_TEST_SUITE_P(Containers, TruncatedInput, testing::ValuesIn(declaring_containers),
                         [](const testing::TestParamInfo<Container>& info) {
                           return std::string(info.param.label ? info.param.label : info.param.extension);
                         });

// A GSM 6.10 WAV of whole blocks whose data chunk is odd (5 blocks of 65 bytes: libsndfile's
// writer leaves out the pad byte): libsndfile counts a sixth block and decodes it from nothing,
// junk up to 0.65 here. halo reads the five, as sox does, and filters no junk into OUT.
TEST(TruncatedInput, AGsmWavWithAnOddDataChunkReadsItsWholeBlocksOnly) {
  if (access("/usr/bin/sox", X_OK) != 0) GTEST_SKIP() << "sox is not installed";
  TempDir dir;
  std::vector<float> tone(1600);
  for (std::size_t i = 0; i < tone.size(); ++i) tone[i] = 0.3f * static_cast<float>(std::sin(0.2 * static_cast<double>(i)));
  const std::string gsm = dir / "gsm.wav", out = dir / "out.wav", decoded = dir / "sox.wav";
  write_sound(gsm, tone, 1, 8000, SF_FORMAT_WAV | SF_FORMAT_GSM610);
  ASSERT_EQ(run({"/usr/bin/sox", gsm, "-e", "floating-point", "-b", "32", decoded}).exit_code, 0);
  const Sound by_sox = read_sound(decoded);
  ASSERT_EQ(by_sox.frames, 1600u) << "sox reads the five blocks";
  ASSERT_EQ(read_sound(gsm).frames, 1920u) << "libsndfile counts six (if it no longer does, this test is moot)";
  write_mask_text(dir / "one.txt", {{1.0f}});
  const Result filtered = halo({"filter", gsm, out, "--mask", dir / "one.txt", "--subtype", "float", "-q"});
  ASSERT_EQ(filtered.exit_code, 0) << filtered.err;
  const Sound by_halo = read_sound(out);
  ASSERT_EQ(by_halo.frames, by_sox.frames);
  for (std::size_t i = 0; i < by_sox.samples.size(); ++i) ASSERT_NEAR(by_halo.samples[i], by_sox.samples[i], 1e-6) << i;
  const Result info = halo({"info", gsm});
  EXPECT_NE(info.out.find("frames:    1600"), std::string::npos) << info.out;
}

// A FLAC cut mid-stream does not read short: libsndfile's decoder loses sync and reports an
// error. --accept-short filters the frames decoded before it (each the whole file's own, as
// libsndfile reads the uncut file), and info describes them; without it, one line and nothing
// written.
TEST(TruncatedInput, ACutFlacFiltersTheFramesBeforeTheDamage) {
  TempDir dir;
  const std::size_t frames = 4 * declared;
  constexpr int channels = 2;
  write_sound(dir / "whole.flac", random_signal(frames * channels, 8, 0.4f), channels, 48000,
              SF_FORMAT_FLAC | SF_FORMAT_PCM_24);
  const Sound whole = read_sound(dir / "whole.flac");
  ASSERT_EQ(run({"/bin/sh", "-c", "head -c 300000 '" + dir / "whole.flac" + "' > '" + dir / "cut.flac" + "'"}).exit_code,
            0);
  write_mask_text(dir / "one.txt", {{1.0f}});

  const DirectorySnapshot before(dir.path());
  const auto args = halo_args({"filter", dir / "cut.flac", dir / "out.wav", "--mask", dir / "one.txt"});
  const Result failed = run(args);
  expect_one_line_failure(failed, 1, "read failed", before, describe(args, failed));

  const auto accepted_args = halo_args({"filter", dir / "cut.flac", dir / "out.wav", "--mask", dir / "one.txt",
                                        "--subtype", "float", "--accept-short", "-q"});
  const Result accepted = run(accepted_args);
  ASSERT_EQ(accepted.exit_code, 0) << describe(accepted_args, accepted);
  EXPECT_NE(accepted.err.find("warning: " + dir / "cut.flac" + " is cut short or damaged ("), std::string::npos) << accepted.err;
  const Sound out = read_sound(dir / "out.wav");
  ASSERT_GT(out.frames, 10000) << "300000 bytes of 24-bit stereo FLAC hold some 40000 frames";
  ASSERT_LT(out.frames, static_cast<std::int64_t>(frames));
  EXPECT_NE(accepted.err.find(std::to_string(out.frames) + " were read"), std::string::npos) << accepted.err;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < out.samples.size(); ++i) differing += out.samples[i] != whole.samples[i];
  EXPECT_EQ(differing, 0u) << "the frames before the damage are the whole file's";

  const Result info = halo({"info", dir / "cut.flac"});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("frames:    " + std::to_string(out.frames)), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("damaged:"), std::string::npos) << info.out;
}

// A cut SDS goes the other way: libsndfile counts the header's frames and, past the end of
// the file, reads the last block's again. halo stops where the blocks end: refused without
// --accept-short; with it, the frames there, each the whole file's own (an identity mask,
// float out), and as many as the 127-byte blocks of 40 samples left in the file hold.
TEST(TruncatedInput, ACutSdsEndsWhereItsBlocksEnd) {
  TempDir dir;
  write_sound(dir / "whole.sds", random_signal(declared, 9, 0.4f), 1, 48000, SF_FORMAT_SDS | SF_FORMAT_PCM_16);
  const Sound whole = read_sound(dir / "whole.sds");
  ASSERT_EQ(whole.frames, static_cast<std::int64_t>(declared));
  struct stat status {};
  ASSERT_EQ(stat((dir / "whole.sds").c_str(), &status), 0);
  const off_t cut_bytes = status.st_size / 2;
  ASSERT_EQ(run({"/bin/sh", "-c",
                 "head -c " + std::to_string(cut_bytes) + " '" + dir / "whole.sds" + "' > '" + dir / "cut.sds" + "'"})
                .exit_code,
            0);
  write_mask_text(dir / "one.txt", {{1.0f}});

  const DirectorySnapshot before(dir.path());
  const auto args = halo_args({"filter", dir / "cut.sds", dir / "out.wav", "--mask", dir / "one.txt"});
  const Result failed = run(args);
  expect_one_line_failure(failed, 1, "declares " + std::to_string(declared) + " frames", before, describe(args, failed));

  const auto accepted_args = halo_args({"filter", dir / "cut.sds", dir / "out.wav", "--mask", dir / "one.txt",
                                        "--subtype", "float", "--accept-short", "-q"});
  const Result accepted = run(accepted_args);
  ASSERT_EQ(accepted.exit_code, 0) << describe(accepted_args, accepted);
  const Sound out = read_sound(dir / "out.wav");
  const std::int64_t blocks_there = (cut_bytes - 21) / 127;  // a 21-byte dump header, then 127-byte packets
  EXPECT_GE(out.frames, (blocks_there - 1) * 40);
  EXPECT_LE(out.frames, (blocks_there + 1) * 40);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < out.samples.size(); ++i) differing += out.samples[i] != whole.samples[i];
  EXPECT_EQ(differing, 0u) << "the frames there are the whole file's";
}

// An Ogg has no length in a header: cut short, libsndfile gives SF_COUNT_MAX for its frames,
// which halo had taken for a declared length ("declares 9223372036854775807 frames", and with
// --accept-short an RF64 for the 4 GiB that length would take). It is what is there.
TEST(TruncatedInput, ACutOggDeclaresNoLength) {
  TempDir dir;
  write_sound(dir / "whole.ogg", random_signal(32000, 10, 0.3f), 1, 8000, SF_FORMAT_OGG | SF_FORMAT_VORBIS);
  const std::string whole = read_bytes(dir / "whole.ogg");
  write_bytes(dir / "cut.ogg", whole.substr(0, whole.size() - 5));
  const Result filtered = halo({"filter", dir / "cut.ogg", dir / "out.wav", "--lowpass", "1k", "-q"});
  ASSERT_EQ(filtered.exit_code, 0) << filtered.err;
  EXPECT_EQ(filtered.err.find("9223372036854775807"), std::string::npos) << filtered.err;
  const Sound out = read_sound(dir / "out.wav");
  EXPECT_GT(out.frames, 20000);
  EXPECT_LT(out.frames, 32000);
  EXPECT_EQ(read_bytes(dir / "out.wav").substr(0, 4), "RIFF");
  const Result info = halo({"info", dir / "cut.ogg"});
  EXPECT_EQ(info.out.find("truncated"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("frames:    " + std::to_string(out.frames)), std::string::npos) << info.out;
}

// A WAV cut short on its way down a pipe: info counts what came and says what the header
// declared, as filter warns of it (info had said nothing, a QA pass). The counts come from the
// bytes sent: a 44-byte header, then 8 bytes a frame.
TEST(TruncatedInput, InfoOnACutWavFromAPipeSaysWhatItsHeaderDeclares) {
  TempDir dir;
  write_sound(dir / "whole.wav", random_signal(2 * 48000, 13, 0.3f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_32);
  ASSERT_EQ(read_bytes(dir / "whole.wav").find("data"), 36u) << "a plain 44-byte header";
  const std::string cut = "head -c " + std::to_string(44 + 8 * 30000) + " '" + dir / "whole.wav" + "' | " + HALO_BINARY + " info -";
  const Result info = run({"/bin/sh", "-c", cut});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("frames:    30000 (truncated: the header declares 48000)"), std::string::npos) << info.out;
  const Result json = run({"/bin/sh", "-c", cut + " --json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["declared_frames"].get<long long>(), 48000) << json.out;
}

// sox, the oracle, agrees that the cut WAV is short ("Premature EOF"), and a whole file of
// every container passes without a word about its length.
TEST(TruncatedInput, SoxAgreesAndWholeFilesPass) {
  TempDir dir;
  std::vector<Container> containers(std::begin(declaring_containers), std::end(declaring_containers));
  containers.push_back({"flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16});
  containers.push_back({"sds", SF_FORMAT_SDS | SF_FORMAT_PCM_16, 1});
  for (const Container container : containers) {
    const std::string input = dir / (std::string("whole.") + container.extension);
    write_sound(input, random_signal(declared * container.channels, 6, 0.4f), container.channels, container.rate_hz,
                container.format);
    const Result whole = halo({"filter", input, dir / "out.wav", "--lowpass", "2k", "-q"});
    EXPECT_EQ(whole.exit_code, 0) << input << "\n" << whole.err;
    EXPECT_EQ(whole.err.find("truncated"), std::string::npos) << whole.err;
  }
  if (access("/usr/bin/sox", X_OK) != 0) GTEST_SKIP() << "sox is not installed";
  const std::string input = dir / "cut.wav";
  write_sound(input, random_signal(declared * 2, 7, 0.4f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  struct stat status {};
  ASSERT_EQ(stat(input.c_str(), &status), 0);
  ASSERT_EQ(truncate(input.c_str(), status.st_size / 2), 0);
  const Result sox = run({"/usr/bin/sox", input, "-n"});
  EXPECT_NE(sox.err.find("Premature EOF"), std::string::npos) << sox.err;

  // Whole files another program wrote down a pipe, kept: sox puts stand-ins for the sizes it
  // could not fill in (a data size of 0x7ffff000 and a fact count made from it in a block-codec
  // WAV; a COMM count of 0x7f000000 bytes' worth, rounded down to whole frames, in an AIFF,
  // which with 3-, 6- or 12-byte frames falls just under 2 GiB - 16 MiB). halo had called them
  // truncated, "declaring" 2118119480 frames (a review).
  const std::vector<std::string> piped_by_sox = {"-c 2 -e ima-adpcm -t wav", "-c 2 -e ms-adpcm -t wav",
                                                 "-c 1 -e gsm-full-rate -t wav", "-b 24 -c 2 -t aiff",
                                                 "-b 16 -c 3 -t aiff", "-b 32 -c 3 -t aiff"};
  for (std::size_t i = 0; i < piped_by_sox.size(); ++i) {
    const std::string kept = dir / ("sox" + std::to_string(i) + (piped_by_sox[i].find("wav") != std::string::npos ? ".wav" : ".aiff"));
    const std::string make = "/usr/bin/sox -n -r 8000 " + piped_by_sox[i] + " - synth 0.5 sine 440 vol 0.5 | cat > '" + kept + "'";
    ASSERT_EQ(run({"/bin/sh", "-c", make}).exit_code, 0) << make;
    const Result whole = halo({"filter", kept, dir / "out.wav", "--lowpass", "1k", "-q"});
    EXPECT_EQ(whole.exit_code, 0) << piped_by_sox[i] << "\n" << whole.err;
    EXPECT_EQ(whole.err.find("truncated"), std::string::npos) << piped_by_sox[i] << "\n" << whole.err;
    const std::string through = "cat '" + kept + "' | '" + HALO_BINARY + "' filter - '" + (dir / "out.wav") + "' --lowpass 1k -q";
    const Result streamed = run({"/bin/sh", "-c", through});
    EXPECT_EQ(streamed.exit_code, 0) << piped_by_sox[i] << "\n" << streamed.err;
    EXPECT_EQ(streamed.err, "") << piped_by_sox[i];
    // 0.5 s at 8 kHz, and no more: an ADPCM WAV streamed behind the stand-in had been decoded
    // for the 2 GiB it declares (2118119480 frames, 45 s).
    EXPECT_LT(read_sound(dir / "out.wav").frames, 8000) << piped_by_sox[i];
  }
}

}  // namespace
}  // namespace halo::test
