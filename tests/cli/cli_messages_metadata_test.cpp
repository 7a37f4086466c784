// Issue 13, items 16 and 17 (and 7's help line): messages that say what is wrong in words
// (a binary mask's bytes never reach the terminal, a header with rate 0 is named, --help says
// each default once, a 2-channel IR is described as such), text masks that keep their rate
// ("# rate R Hz", as design writes it), and metadata strings copied to the output, as sox
// does. Files are made and read back with libsndfile directly.
#include <gtest/gtest.h>

#include <sndfile.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

bool printable(const std::string& text) {
  for (unsigned char c : text)
    if (c != '\n' && (c < 0x20 || c >= 0x7f)) return false;
  return true;
}

TEST(Messages, BinaryMaskBytesAreNeverEchoed) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4800, 61, 0.3f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  std::string bytes;  // control and high bytes, an escape sequence, no NUL and no newline
  for (int i = 0; i < 400; ++i) bytes += static_cast<char>(1 + (i * 37) % 255);
  bytes += "\x1b]0;owned\x07";
  write_bytes(dir / "garbage.txt", bytes);
  const DirectorySnapshot before(dir.path());
  const auto args = halo_args({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "garbage.txt"});
  const Result result = run(args);
  expect_one_line_failure(result, 1, "is not a number", before, describe(args, result));
  EXPECT_TRUE(printable(result.err)) << "raw bytes on stderr";
  EXPECT_LT(result.err.size(), 300u) << result.err;
  EXPECT_NE(result.err.find("\\x"), std::string::npos) << result.err;
}

TEST(Messages, HeaderWithRateZeroIsASentence) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4800, 62, 0.3f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  std::string bytes = read_bytes(dir / "in.wav");
  ASSERT_EQ(bytes.substr(12, 4), "fmt ");
  std::memset(&bytes[24], 0, 4);  // the fmt chunk's sample rate
  write_bytes(dir / "rate0.wav", bytes);
  for (const std::vector<std::string>& args :
       {halo_args({"info", dir / "rate0.wav"}), halo_args({"filter", dir / "rate0.wav", dir / "out.wav", "--lowpass", "1k"})}) {
    const DirectorySnapshot before(dir.path());
    const Result result = run(args);
    expect_one_line_failure(result, 1, "sample rate is 0 Hz", before, describe(args, result));
    EXPECT_EQ(result.err.find("SF_INFO"), std::string::npos) << result.err;
  }
}

TEST(Messages, HelpStatesEachDefaultOnceAndSaysFloat32) {
  for (const std::string command : {"filter", "design"}) {
    const Result result = halo({command, "--help"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    // One entry per option: a line whose first word starts with '-', then its continuation
    // lines (indented to the description column).
    std::vector<std::string> entries;
    for (const std::string& line : lines_of(result.out)) {
      const std::size_t indent = line.find_first_not_of(' ');
      if (indent == std::string::npos || indent == 0) continue;
      if (line[indent] == '-' && indent < 10) entries.push_back(line);
      else if (!entries.empty() && indent >= 10) entries.back() += " " + line.substr(indent);
    }
    ASSERT_GT(entries.size(), 5u) << result.out;
    for (const std::string& entry : entries) {
      std::size_t defaults = 0;
      for (auto at = entry.find("(default"); at != std::string::npos; at = entry.find("(default", at + 1)) ++defaults;
      EXPECT_LE(defaults, 1u) << command << ": " << entry;
    }
    if (command == "filter") {
      EXPECT_NE(result.out.find("float32"), std::string::npos) << result.out;
    }
  }
}

TEST(Messages, TwoChannelImpulseResponseIsDescribedAsSuch) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4800 * 2, 63, 0.3f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_sound(dir / "ir.wav", {0.5f, 0.25f, 0.25f, 0.125f, 0.125f, 0.0f}, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Result result = halo({"filter", dir / "in.wav", dir / "out.wav", "--ir", dir / "ir.wav"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find(" ch 1"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("2 masks, one per channel"), std::string::npos) << result.err;
  const Result design = halo({"design", "--mask", dir / "ir.wav", "-o", dir / "copy.wav"});
  ASSERT_EQ(design.exit_code, 0) << design.err;
  EXPECT_EQ(design.out.find(" ch 1"), std::string::npos) << design.out;
  EXPECT_NE(design.out.find("2 masks, one per channel"), std::string::npos) << design.out;
  // Resampled, the note follows the file's name and no channel's word stays (" ch 1, resampled").
  write_sound(dir / "in44.wav", random_signal(4410 * 2, 66, 0.3f), 2, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Result resampled = halo({"filter", dir / "in44.wav", dir / "out44.wav", "--ir", dir / "ir.wav", "--ir-rate", "resample"});
  ASSERT_EQ(resampled.exit_code, 0) << resampled.err;
  EXPECT_EQ(resampled.err.find(" ch 1"), std::string::npos) << resampled.err;
  EXPECT_NE(resampled.err.find("ir.wav, resampled from 48000 to 44100 Hz: 2 masks, one per channel"), std::string::npos)
      << resampled.err;
  // After ir fix's steps, which follow the first channel's word in brackets (" ch 1 (removed ...)"),
  // the exports' headers had kept it, and a JSON's provenance was the first channel's alone.
  ASSERT_EQ(halo({"ir", "fix", dir / "ir.wav", dir / "fixed.h", "--normalize", "-3", "-q"}).exit_code, 0);
  ASSERT_EQ(halo({"ir", "fix", dir / "ir.wav", dir / "fixed.json", "--normalize", "-3", "-q"}).exit_code, 0);
  const std::string header = read_bytes(dir / "fixed.h"), json = read_bytes(dir / "fixed.json");
  EXPECT_EQ(header.find(" ch 1"), std::string::npos) << header.substr(0, 200);
  EXPECT_NE(header.find("ir.wav (scaled by"), std::string::npos) << header.substr(0, 200);
  EXPECT_EQ(json.find(" ch 1"), std::string::npos) << json.substr(0, 200);
  EXPECT_NE(json.find("ir.wav (scaled by"), std::string::npos) << json.substr(0, 200);
  // The channel's word after the name goes, not one inside the name (a review).
  std::filesystem::copy_file(dir / "ir.wav", dir / "room ch 1 a.wav");
  ASSERT_EQ(halo({"ir", "fix", dir / "room ch 1 a.wav", dir / "room.json", "--normalize", "-3", "-q"}).exit_code, 0);
  const std::string room = read_bytes(dir / "room.json");
  EXPECT_NE(room.find("room ch 1 a.wav (scaled by"), std::string::npos) << room.substr(0, 200);
}

// A mask of another channel count than the audio: the error names both files (it had named the
// audio only, as if that were wrong), one line, and nothing is written.
TEST(Messages, AMaskOfTheWrongChannelCountIsNamed) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(4800 * 2, 64, 0.3f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_sound(dir / "ir3.wav", random_signal(16 * 3, 65, 0.3f), 3, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Result result = halo({"filter", dir / "in.wav", dir / "out.wav", "--ir", dir / "ir3.wav"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "halo: " + std::string(dir / "in.wav") + ": the mask (file " + std::string(dir / "ir3.wav") +
                            ") has 3 channels but the audio has 2: give one mask, or one per channel\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "out.wav"));
  // Mono audio with a stereo IR (a reverb) is told how to make IN stereo, and a single line of
  // numbers that it is read as one tap per channel (both had said no more than the counts: a QA pass).
  write_sound(dir / "mono.wav", random_signal(4800, 66, 0.3f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_sound(dir / "ir2.wav", random_signal(16 * 2, 67, 0.3f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Result mono = halo({"filter", dir / "mono.wav", dir / "out.wav", "--ir", dir / "ir2.wav"});
  EXPECT_EQ(mono.exit_code, 1);
  EXPECT_NE(mono.err.find("has 2 channels but the audio has 1: give one mask, or audio of 2 channels (a file made so "
                          "first: sox IN -c 2 OUT, or remix; live: --channels 2)"),
            std::string::npos)
      << mono.err;
  write_bytes(dir / "row.txt", "0.1, 0.2, 0.4, 0.2, 0.1\n");
  const Result row = halo({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "row.txt"});
  EXPECT_EQ(row.exit_code, 1);
  EXPECT_NE(row.err.find("a single line of numbers is one tap per channel; write one tap per line"), std::string::npos)
      << row.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.wav"));
}

// design writes "# rate 44100 Hz"; --mask reads it back: a sound file made from it keeps the
// rate, and filtering audio at another rate warns.
TEST(TextMaskRate, IsReadBackAndChecked) {
  TempDir dir;
  const Result designed = halo({"design", "--lowpass", "1k", "--rate", "44100", "-o", dir / "lp.txt"});
  ASSERT_EQ(designed.exit_code, 0) << designed.err;
  ASSERT_NE(read_bytes(dir / "lp.txt").find("# rate 44100 Hz"), std::string::npos);

  for (const std::string extension : {"flac", "wav"}) {
    const std::string ir = dir / ("lp." + extension);
    const Result converted = halo({"design", "--mask", dir / "lp.txt", "-o", ir});
    ASSERT_EQ(converted.exit_code, 0) << converted.err;
    EXPECT_EQ(read_sound(ir).rate_hz, 44100) << ir;
  }

  write_sound(dir / "at48.wav", random_signal(4800, 64, 0.3f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_sound(dir / "at44.wav", random_signal(4410, 65, 0.3f), 1, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  // A warning is about the result: --quiet (no summary, no bar) keeps it.
  const Result other = halo({"filter", dir / "at48.wav", dir / "out.wav", "--mask", dir / "lp.txt", "--quiet"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.err.find("warning: the mask was made for 44100 Hz but " + dir / "at48.wav" + " is at 48000 Hz (" +
                           dir / "lp.txt" + ")\n"),
            std::string::npos)
      << other.err;  // the file named: play's several masks had each been warned of in the same words
  const Result same = halo({"filter", dir / "at44.wav", dir / "out.wav", "--mask", dir / "lp.txt"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.err.find("warning"), std::string::npos) << same.err;
}

TEST(Metadata, StringsAreCopiedToTheOutput) {
  TempDir dir;
  {
    SF_INFO info{};
    info.samplerate = 48000;
    info.channels = 2;
    info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
    SNDFILE* file = sf_open((dir / "tagged.wav").c_str(), SFM_WRITE, &info);
    ASSERT_NE(file, nullptr) << sf_strerror(nullptr);
    ASSERT_EQ(sf_set_string(file, SF_STR_TITLE, "A Title"), 0);
    ASSERT_EQ(sf_set_string(file, SF_STR_ARTIST, "An Artist"), 0);
    ASSERT_EQ(sf_set_string(file, SF_STR_COMMENT, "a comment"), 0);
    const std::vector<float> x = random_signal(4800 * 2, 66, 0.3f);
    ASSERT_EQ(sf_writef_float(file, x.data(), 4800), 4800);
    ASSERT_EQ(sf_close(file), 0);
  }
  for (const std::string extension : {"wav", "flac"}) {
    const std::string out = dir / ("out." + extension);
    const Result result = halo({"filter", dir / "tagged.wav", out, "--lowpass", "1k", "-q"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    SF_INFO info{};
    SNDFILE* file = sf_open(out.c_str(), SFM_READ, &info);
    ASSERT_NE(file, nullptr) << out;
    auto text = [&](int kind) {
      const char* value = sf_get_string(file, kind);
      return std::string(value ? value : "<none>");
    };
    EXPECT_EQ(text(SF_STR_TITLE), "A Title") << out;
    EXPECT_EQ(text(SF_STR_ARTIST), "An Artist") << out;
    EXPECT_EQ(text(SF_STR_COMMENT), "a comment") << out;
    sf_close(file);
  }
}

// AIFF's copyright and software chunks hold ASCII: libsndfile had written UTF-8 there as '.' and
// cut it short ("© Zoë" read back as ".. Zo..", "halo ✓" as "halo "), without a word (a QA
// pass). A character past ASCII there is '?' and is said; the title, artist and comment keep
// their UTF-8.
TEST(Metadata, AiffCopyrightAndSoftwareAreAsciiAndSaidSo) {
  TempDir dir;
  const Result made = python(dir.path(), R"(
import numpy as np, soundfile as sf
with sf.SoundFile('in.flac', 'w', 48000, 1, 'PCM_16', format='FLAC') as f:
    f.copyright = '\u00a9 Zo\u00eb'; f.title = 'T\u00eetle'; f.artist = '\u00c5sa'; f.write(np.zeros(100) + 0.1)
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const Result result = halo({"filter", dir / "in.flac", dir / "out.aiff", "--lowpass", "1k"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("out.aiff: AIFF's copyright and software hold ASCII only: 2 characters of IN's tags "
                            "written as '?'"),
            std::string::npos)
      << result.err;
  const Result check = python(dir.path(), R"(
import soundfile as sf
f = sf.SoundFile('out.aiff')
assert f.copyright == '? Zo?', repr(f.copyright)
assert f.title == 'T\u00eetle' and f.artist == '\u00c5sa', (f.title, f.artist)
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// Tags through MP3: LAME's ID3 frames hold Latin-1, and UTF-8 had been written into them as it
// was, read back as "Ã¼" for "ü", one layer more at each pass (a QA pass). Checked on the bytes:
// the ID3v1 tag (short fields: the only one LAME writes) and the ID3v2 frame (a long comment
// makes one) hold Latin-1; the FLAC halo makes of the MP3 again holds the UTF-8 it started with;
// a character past Latin-1 becomes '?' and is said.
TEST(Metadata, Mp3TagsAreLatin1AndComeBackAsUtf8) {
  TempDir dir;
  const Result made = python(dir.path(), R"(
import numpy as np, soundfile as sf
x = np.random.default_rng(3).standard_normal((22050, 2)) * 0.1
with sf.SoundFile('short.flac', 'w', 44100, 2, 'PCM_16', format='FLAC') as f:
    f.title = 'Title ünï'; f.artist = 'Zoë Ωmega'; f.write(x)
with sf.SoundFile('long.flac', 'w', 44100, 2, 'PCM_16', format='FLAC') as f:
    f.title = 'Title ünï'; f.comment = 'c' * 200; f.write(x)
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const Result short_tags = halo({"filter", dir / "short.flac", dir / "short.mp3", "--lowpass", "1k"});
  ASSERT_EQ(short_tags.exit_code, 0) << short_tags.err;
  EXPECT_NE(short_tags.err.find("MP3 tags hold Latin-1 text only: 1 character of IN's tags written as '?'"), std::string::npos)
      << short_tags.err;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"long.flac", "long.mp3"}, {"long.mp3", "again.mp3"},
                                 {"short.mp3", "back.flac"}, {"again.mp3", "long-back.flac"}}) {
    const Result result = halo({"filter", dir / from, dir / to, "--lowpass", "1k", "-q"});
    ASSERT_EQ(result.exit_code, 0) << from << ": " << result.err;
  }
  const Result check = python(dir.path(), R"(
import soundfile as sf
def v1_title(name):
    tag = open(name, 'rb').read()[-128:]
    assert tag[:3] == b'TAG', name
    return tag[3:33].rstrip(b'\0').decode('latin-1')
def v2_title(name):
    data = open(name, 'rb').read()
    at = data.find(b'TIT2')
    assert data[:3] == b'ID3' and at > 0, name
    size = int.from_bytes(data[at + 4:at + 8], 'big')
    assert data[at + 10] == 0, name  # encoding 0: ISO-8859-1
    return data[at + 11:at + 10 + size].rstrip(b'\0').decode('latin-1')
for name in ('short.mp3', 'long.mp3', 'again.mp3'):
    assert v1_title(name) == 'Title ünï', (name, v1_title(name))
for name in ('long.mp3', 'again.mp3'):
    assert v2_title(name) == 'Title ünï', (name, v2_title(name))
assert sf.SoundFile('back.flac').title == 'Title ünï', sf.SoundFile('back.flac').title
assert sf.SoundFile('back.flac').artist == 'Zoë ?mega', sf.SoundFile('back.flac').artist
assert sf.SoundFile('long-back.flac').title == 'Title ünï', sf.SoundFile('long-back.flac').title
)");
  EXPECT_EQ(check.exit_code, 0) << check.err << check.out;
}

}  // namespace
}  // namespace halo::test
