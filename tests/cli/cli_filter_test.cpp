// End-to-end tests of the built `halo` binary on files that work: golden data made with
// numpy/scipy (tests/data/make_convolution_golden.py), generated files at several rates,
// channel counts, subtypes and lengths against the float64 reference, chunk sizes, every mask
// source, subtype and container conversions, gain and clipping, stdin/stdout, and the
// design/info/--version/--help commands.
#include <gtest/gtest.h>

#include <sndfile.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

constexpr double tolerance = 1e-6;

std::string golden(const std::string& name) { return std::string(HALO_TEST_DATA) + "/convolution/" + name; }

// Taps at a real mask's scale, small enough that outputs of inputs within ±0.5 do not clip.
std::vector<float> random_taps(std::size_t count, std::uint64_t seed) {
  return random_signal(count, seed, static_cast<float>(1.0 / std::sqrt(static_cast<double>(count))));
}

// Runs halo with `args` (after "halo"), expecting success.
Result halo_ok(const std::vector<std::string>& args, const RunOptions& options = {}) {
  std::vector<std::string> all = {HALO_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  Result result = run(all, options);
  EXPECT_EQ(result.exit_code, 0) << describe(all, result);
  return result;
}

// Checks an output against a reference with the tolerance of its subtype.
void expect_matches(const Sound& out, const std::vector<double>& ref, const std::string& context) {
  if (full_scale(out.format) > 0) {
    EXPECT_LE(max_lsb_error(out, ref), lsb_tolerance(out.format)) << context;
  } else {
    EXPECT_LE(relative_error(out.samples, ref), tolerance) << context;
  }
}

std::vector<double> read_text_column(const std::string& text) {
  std::vector<double> values;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream numbers(line);
    double value;
    if (numbers >> value) values.push_back(value);
  }
  return values;
}

double relative_error_of_taps(const std::vector<double>& out, const std::vector<double>& ref) {
  if (out.size() != ref.size() || ref.empty()) return INFINITY;
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(out[i])) return INFINITY;
    diff2 += (out[i] - ref[i]) * (out[i] - ref[i]);
    ref2 += ref[i] * ref[i];
  }
  return std::sqrt(diff2 / ref2);
}

// ---------------------------------------------------------------- golden data (numpy/scipy)

struct GoldenCase {
  std::string expected, input;
  int channels = 0;
  std::size_t frames = 0;
  std::vector<std::string> args;
};

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  std::ifstream in(golden("cases.txt"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    GoldenCase c;
    std::string dashes;
    fields >> c.expected >> c.input >> c.channels >> c.frames >> dashes;
    for (std::string arg; fields >> arg;) c.args.push_back(arg[0] == '@' ? golden(arg.substr(1)) : arg);
    cases.push_back(c);
  }
  return cases;
}

TEST(CliGolden, FilterMatchesNumpyConvolve) {
  const auto cases = golden_cases();
  ASSERT_GE(cases.size(), 20u) << "tests/data/convolution/cases.txt is missing or short";
  TempDir dir;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expected);
    std::vector<std::string> args = {"filter", golden(c.input), dir / "out.wav", "--quiet"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    halo_ok(args);
    const Sound out = read_sound(dir / "out.wav");
    const auto expected_f32 = read_f32(golden(c.expected));
    const std::vector<double> expected(expected_f32.begin(), expected_f32.end());
    ASSERT_EQ(expected.size(), c.frames * c.channels);
    EXPECT_EQ(out.channels, c.channels);
    EXPECT_EQ(out.frames, static_cast<std::int64_t>(c.frames));
    const Sound in = read_sound(golden(c.input));
    EXPECT_EQ(out.rate_hz, in.rate_hz);
    // OUT keeps IN's subtype unless told.
    bool subtype_given = false;
    for (const auto& arg : c.args) subtype_given = subtype_given || arg == "--subtype";
    if (!subtype_given) {
      EXPECT_EQ(subtype_of(out), subtype_of(in));
    }
    expect_matches(out, expected, c.expected);
  }
}

TEST(CliGolden, DesignMatchesScipyFirwin) {
  TempDir dir;
  const std::map<std::string, std::vector<std::string>> designs = {
      {"design_lowpass.txt", {"--lowpass", "3000", "--taps", "63"}},
      {"design_highpass.txt", {"--highpass", "5000", "--taps", "63", "--window", "hann"}},
      {"design_bandpass.txt", {"--bandpass", "1000:4000", "--taps", "64", "--window", "blackman"}},
      {"design_bandstop.txt", {"--bandstop", "2000:6000", "--taps", "101", "--window", "kaiser:5"}},
      {"design_kaiserord.txt", {"--lowpass", "4000", "--transition", "1000", "--attenuation", "60"}},
  };
  for (const auto& [name, spec] : designs) {
    SCOPED_TRACE(name);
    const auto want = read_text_column(read_bytes(golden(name)));
    ASSERT_GT(want.size(), 10u);
    std::vector<std::string> base = {"design"};
    base.insert(base.end(), spec.begin(), spec.end());
    base.insert(base.end(), {"--rate", "48000"});

    // Text to stdout; the summary goes to stderr.
    const Result to_stdout = halo_ok(base);
    EXPECT_LE(relative_error_of_taps(read_text_column(to_stdout.out), want), tolerance);
    EXPECT_NE(to_stdout.err.find("taps"), std::string::npos) << to_stdout.err;

    for (const std::string extension : {"txt", "f32", "wav"}) {
      const std::string path = dir / ("mask." + extension);
      auto args = base;
      args.insert(args.end(), {"-o", path});
      const DirectorySnapshot before(dir.path());
      const Result written = halo_ok(args);
      EXPECT_NE(written.out.find(path), std::string::npos) << "the summary names the file:\n" << written.out;
      std::vector<double> got;
      if (extension == "txt") got = read_text_column(read_bytes(path));
      if (extension == "f32") {
        const auto raw = read_f32(path);
        got.assign(raw.begin(), raw.end());
      }
      if (extension == "wav") {
        const Sound sound = read_sound(path);
        EXPECT_EQ(sound.channels, 1);
        EXPECT_EQ(sound.rate_hz, 48000);
        got.assign(sound.samples.begin(), sound.samples.end());
      }
      EXPECT_LE(relative_error_of_taps(got, want), tolerance) << extension;
      const auto left = before.added({"mask." + extension});
      EXPECT_TRUE(left.empty()) << extension << ": left beside the mask: " << joined(left);
    }
  }
}

// ---------------------------------------------------------------- rates, channels, subtypes

struct FileShape {
  int rate_hz;
  int channels;
  int subtype;
};

std::string file_shape_name(const testing::TestParamInfo<FileShape>& info) {
  const char* subtype = info.param.subtype == SF_FORMAT_PCM_16 ? "pcm16"
                        : info.param.subtype == SF_FORMAT_PCM_24 ? "pcm24"
                                                                 : "float";
  return std::to_string(info.param.rate_hz) + "Hz_" + std::to_string(info.param.channels) + "ch_" + subtype;
}

class CliFilterFiles : public testing::TestWithParam<FileShape> {};

TEST_P(CliFilterFiles, MatchesReferenceAndKeepsTheFormat) {
  const FileShape shape = GetParam();
  TempDir dir;
  // Lengths differ with the rate: 0.1 s, plus an odd remainder.
  const std::size_t frames = shape.rate_hz / 10 + 37;
  const std::uint64_t seed = shape.rate_hz + 10 * shape.channels + shape.subtype;
  const Sound in = make_noise_file(dir / "in.wav", frames, shape.channels, shape.rate_hz,
                                   SF_FORMAT_WAV | shape.subtype, seed);
  const auto taps = random_taps(101, seed + 1);
  write_mask_text(dir / "mask.txt", {taps});
  halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.txt", "--quiet"});
  const Sound out = read_sound(dir / "out.wav");
  EXPECT_EQ(out.rate_hz, shape.rate_hz);
  EXPECT_EQ(out.channels, shape.channels);
  EXPECT_EQ(out.format, SF_FORMAT_WAV | shape.subtype);
  expect_matches(out, expected_output(in.samples, shape.channels, {taps}, Align::same, false), "same");

  halo_ok({"filter", dir / "in.wav", dir / "tail.wav", "--mask", dir / "mask.txt", "--align", "causal", "--tail",
           "--quiet"});
  expect_matches(read_sound(dir / "tail.wav"),
                 expected_output(in.samples, shape.channels, {taps}, Align::causal, true), "causal tail");
}

std::vector<FileShape> all_file_shapes() {
  std::vector<FileShape> shapes;
  for (int rate : {8000, 44100, 48000, 96000})
    for (int channels : {1, 2, 6})
      for (int subtype : {SF_FORMAT_PCM_16, SF_FORMAT_PCM_24, SF_FORMAT_FLOAT}) shapes.push_back({rate, channels, subtype});
  return shapes;
}

INSTANTIATE_TEST_SUITE_P(Formats, CliFilterFiles, testing::ValuesIn(all_file_shapes()), file_shape_name);

// ---------------------------------------------------------------- lengths

TEST(CliFilter, OneFrameAndShorterThanTheMask) {
  TempDir dir;
  const auto taps = random_taps(101, 5);
  write_mask_text(dir / "mask.txt", {taps});
  for (const std::size_t frames : {std::size_t{1}, std::size_t{2}, std::size_t{50}, std::size_t{100}}) {
    for (const int channels : {1, 2}) {
      const Sound in = make_noise_file(dir / "in.wav", frames, channels, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT,
                                       frames * 3 + channels);
      for (const auto& [flags, align, tail] :
           std::vector<std::tuple<std::vector<std::string>, Align, bool>>{
               {{}, Align::same, false},
               {{"--tail"}, Align::same, true},
               {{"--align", "causal"}, Align::causal, false},
               {{"--align", "causal", "--tail"}, Align::causal, true}}) {
        std::vector<std::string> args = {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.txt",
                                         "--quiet"};
        args.insert(args.end(), flags.begin(), flags.end());
        halo_ok(args);
        const Sound out = read_sound(dir / "out.wav");
        const auto ref = expected_output(in.samples, channels, {taps}, align, tail);
        const std::string context = std::to_string(frames) + " frames, " + std::to_string(channels) + " ch, " +
                                    (align == Align::same ? "same" : "causal") + (tail ? " tail" : "");
        EXPECT_EQ(out.samples.size(), ref.size()) << context;
        EXPECT_LE(relative_error(out.samples, ref), tolerance) << context;
      }
    }
  }
}

TEST(CliFilter, ThreeMinutesStreamInFlatMemory) {
  TempDir dir;
  const std::size_t rate = 48000, frames = 180 * rate + 11;
  const Sound in = make_noise_file(dir / "long.wav", frames, 1, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 77);
  make_noise_file(dir / "short.wav", rate, 1, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 78);
  const auto taps = random_taps(31, 79);
  write_mask_text(dir / "mask.txt", {taps});

  const Result short_run =
      halo_ok({"filter", dir / "short.wav", dir / "short_out.wav", "--mask", dir / "mask.txt", "--quiet"});
  const Result long_run =
      halo_ok({"filter", dir / "long.wav", dir / "long_out.wav", "--mask", dir / "mask.txt", "--quiet"});
  const Sound out = read_sound(dir / "long_out.wav");
  ASSERT_EQ(out.frames, static_cast<std::int64_t>(frames));
  EXPECT_LE(relative_error(out.samples, expected_output(in.samples, 1, {taps}, Align::same, false)), tolerance);
  // The input alone is 34 MB as float: a program holding the file (or its output) in memory
  // would need that much more than for a 1-second file.
  EXPECT_LT(long_run.max_rss_kb, short_run.max_rss_kb + 16 * 1024)
      << "peak memory " << long_run.max_rss_kb << " kB for 3 minutes vs " << short_run.max_rss_kb
      << " kB for 1 second";
}

// ---------------------------------------------------------------- chunk sizes

// `--chunk` never changes the result: the same bytes for 1, 7 and the default.
void expect_chunk_sizes_identical(const std::vector<std::string>& extra_args) {
  TempDir dir;
  make_noise_file(dir / "in.wav", 5003, 2, 44100, SF_FORMAT_WAV | SF_FORMAT_PCM_24, 90, 0.9f);
  make_noise_file(dir / "in6.wav", 3001, 6, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 91);
  for (const auto& [input, output] : {std::pair<std::string, std::string>{"in.wav", "out.wav"},
                                      std::pair<std::string, std::string>{"in6.wav", "out.au"}}) {
    for (const std::vector<std::string>& mode : {std::vector<std::string>{"--lowpass", "2000"},
                                                 std::vector<std::string>{"--lowpass", "2000", "--tail"},
                                                 std::vector<std::string>{"--bandpass", "300:5000", "--taps", "1001",
                                                                          "--align", "causal"}}) {
      std::string first;
      for (const std::string chunk : {"", "1", "7", "4096"}) {
        std::vector<std::string> args = {"filter", dir / input, dir / output, "--quiet"};
        args.insert(args.end(), mode.begin(), mode.end());
        args.insert(args.end(), extra_args.begin(), extra_args.end());
        if (!chunk.empty()) args.insert(args.end(), {"--chunk", chunk});
        halo_ok(args);
        const std::string bytes = read_bytes(dir / output);
        std::string context = input;
        for (const auto& arg : mode) context += " " + arg;
        if (chunk.empty()) {
          first = bytes;
          // Not a trivial file: it has the input's length and is not silent.
          const Sound out = read_sound(dir / output);
          float peak = 0;
          for (float v : out.samples) peak = std::max(peak, std::fabs(v));
          EXPECT_GT(peak, 0.01f) << context;
        } else {
          EXPECT_TRUE(bytes == first) << context << ": --chunk " << chunk << " differs from the default";
        }
      }
    }
  }
}

TEST(CliFilter, ChunkSizeNeverChangesTheBytesCpuEngine) { expect_chunk_sizes_identical({"--engine", "cpu"}); }

TEST(CliFilter, ChunkSizeNeverChangesTheBytesDefaultEngine) { expect_chunk_sizes_identical({}); }

// ---------------------------------------------------------------- mask sources

TEST(CliFilter, MaskFromTextF32AndSoundFiles) {
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 4000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 100);
  const auto taps = random_taps(48, 101);
  write_mask_text(dir / "mask.txt", {taps});
  write_f32(dir / "mask.f32", taps);
  write_sound(dir / "mask.wav", taps, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const auto ref = expected_output(in.samples, 2, {taps}, Align::same, false);
  for (const std::string name : {"mask.txt", "mask.f32", "mask.wav"}) {
    halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / name, "--quiet"});
    EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples, ref), tolerance) << name;
  }
  // Two columns: one mask per channel (the shorter one ends in zeros in the file).
  std::vector<float> other = random_taps(20, 102);
  other.resize(taps.size(), 0.0f);
  write_mask_text(dir / "two.txt", {taps, other});
  halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "two.txt", "--quiet"});
  EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples,
                           expected_output(in.samples, 2, {taps, other}, Align::same, false)),
            tolerance);
}

TEST(CliFilter, ImpulseResponsesAreCausalPerChannelAnyFormat) {
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 3000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 110);
  // A 2-channel FLAC IR in pcm24: halo reads what libsndfile decodes; so does the reference.
  std::vector<float> ir(2 * 300);
  const auto noise = random_signal(ir.size(), 111, 0.5f);
  for (std::size_t n = 0; n < 300; ++n)
    for (int c = 0; c < 2; ++c) ir[2 * n + c] = noise[2 * n + c] * std::exp(-static_cast<float>(n) / 60.0f);
  write_sound(dir / "ir.flac", ir, 2, 48000, SF_FORMAT_FLAC | SF_FORMAT_PCM_24);
  const Sound ir_read = read_sound(dir / "ir.flac");
  std::vector<float> left, right;
  for (std::size_t n = 0; n < 300; ++n) {
    left.push_back(ir_read.samples[2 * n]);
    right.push_back(ir_read.samples[2 * n + 1]);
  }
  write_sound(dir / "ir16.wav", ir, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  const Sound ir16 = read_sound(dir / "ir16.wav");
  std::vector<float> left16, right16;
  for (std::size_t n = 0; n < 300; ++n) {
    left16.push_back(ir16.samples[2 * n]);
    right16.push_back(ir16.samples[2 * n + 1]);
  }

  halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--ir", dir / "ir.flac", "--quiet"});
  EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples,
                           expected_output(in.samples, 2, {left, right}, Align::causal, false)),
            tolerance);
  halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--ir", dir / "ir16.wav", "--tail", "--quiet"});
  EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples,
                           expected_output(in.samples, 2, {left16, right16}, Align::causal, true)),
            tolerance);
  halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--ir", dir / "ir.flac", "--align", "same", "--quiet"});
  EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples,
                           expected_output(in.samples, 2, {left, right}, Align::same, false)),
            tolerance);
}

// A minimum-phase design delays by a few frames, not (M-1)/2: removing (M-1)/2 put the output
// before its input (a QA pass: an impulse at frame 1000 came out peaking at 898). So it is
// causal by default, as --ir is, and `--align same` still centres it.
TEST(CliFilter, MinimumPhaseDesignsAreCausalByDefault) {
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 3000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 112);
  const std::vector<std::string> spec = {"--lowpass", "2000", "--method", "kaiser", "--taps", "255", "--attenuation",
                                         "60", "--minimum-phase"};
  std::vector<std::string> design = {"design", "-o", dir / "m.wav", "--quiet"};
  design.insert(design.end(), spec.begin(), spec.end());
  halo_ok(design);  // the mask (float WAV) that filter designs the same way
  const std::vector<float> taps = read_sound(dir / "m.wav").samples;
  ASSERT_EQ(taps.size(), 255u);
  for (const bool same : {false, true}) {
    std::vector<std::string> filter = {"filter", dir / "in.wav", dir / "out.wav", "--quiet"};
    filter.insert(filter.end(), spec.begin(), spec.end());
    if (same) filter.insert(filter.end(), {"--align", "same"});
    halo_ok(filter);
    EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples,
                             expected_output(in.samples, 2, {taps}, same ? Align::same : Align::causal, false)),
              tolerance)
        << (same ? "--align same" : "the default");
  }
}

// The same design written to a file and read back with --mask: halo's text, JSON, C header and
// sound files say it starts at its first tap, so it is causal by default too (it was centred,
// the output some 100 frames early); a .f32 has no room to say so and stays centred, and a
// conversion by `design --mask` keeps what the file said. The header is named so that its
// NAME_causal and NAME_rate_hz hold "_causal" twice (min_causal_causal, min_causal_rate_hz).
TEST(CliFilter, AMinimumPhaseMaskReadBackIsCausalToo) {
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 3000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 113);
  const std::vector<std::string> spec = {"--lowpass", "2000", "--method", "kaiser", "--taps", "255", "--attenuation",
                                         "60", "--minimum-phase", "--quiet"};
  for (const std::string name : {"m.wav", "m.txt", "m.json", "min_causal.h", "m.f32"}) {
    std::vector<std::string> design = {"design", "-o", dir / name};
    design.insert(design.end(), spec.begin(), spec.end());
    halo_ok(design);
  }
  halo_ok({"design", "--mask", dir / "m.txt", "-o", dir / "converted.json", "--quiet"});
  const std::vector<float> taps = read_sound(dir / "m.wav").samples;
  ASSERT_EQ(taps.size(), 255u);
  for (const std::string name : {"m.wav", "m.txt", "m.json", "min_causal.h", "converted.json", "m.f32"}) {
    const bool says_causal = name != "m.f32";
    for (const bool same : {false, true}) {
      std::vector<std::string> filter = {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / name, "--quiet"};
      if (same) filter.insert(filter.end(), {"--align", "same"});
      halo_ok(filter);
      const Align expected = same || !says_causal ? Align::same : Align::causal;
      EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples, expected_output(in.samples, 2, {taps}, expected, false)),
                tolerance)
          << name << (same ? " --align same" : " by default");
    }
  }
}

// ---------------------------------------------------------------- subtypes, containers, gain

// 8 bits stay 8 bits: WAV holds them unsigned, FLAC, AIFF and CAF signed, and `--subtype pcm8`
// (or pcmu8) takes the container's own (it went to pcm24, or was refused for a WAV; unsigned
// AIFF came out as AIFC 'raw ', which sox cannot open). Each output is the filtered input within
// an 8-bit LSB and its dither.
// ADPCM and GSM 6.10 code whole blocks, padding the last: OUT then holds more frames than IN.
// The summary says "10000 out" (the frames filtered) and a line says what the file holds, as
// soundfile reads it (it had been silent).
TEST(CliFilter, BlockCodecsSayHowMuchTheyPad) {
  TempDir dir;
  make_noise_file(dir / "in.wav", 10000, 1, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 126);
  for (const std::string subtype : {"gsm610", "ima-adpcm", "ms-adpcm"}) {
    const Result result = halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--lowpass", "1k", "--subtype", subtype});
    const Result frames = python(dir.path(), "import soundfile as sf\nprint(sf.info('out.wav').frames)\n");
    ASSERT_EQ(frames.exit_code, 0) << frames.err;
    const long long held = std::stoll(frames.out);
    EXPECT_GT(held, 10000) << subtype;
    EXPECT_NE(result.err.find("10000 frames in, 10000 out"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(subtype + " codes whole blocks: it holds " + std::to_string(held) + " frames, the last " +
                              std::to_string(held - 10000) + " of them the codec's padding"),
              std::string::npos)
        << result.err;
  }
  // GSM of whole blocks (24000 frames, 75 of 320): its WAV's fact chunk counts the frames
  // exactly, as halo info, filter and sox read them, so there is no padding to speak of
  // (libsndfile's own count adds a block, and the note had named it; a QA pass).
  make_noise_file(dir / "whole.wav", 24000, 1, 8000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 128);
  const Result whole = halo_ok({"filter", dir / "whole.wav", dir / "gsm.wav", "--lowpass", "1k", "--subtype", "gsm610"});
  EXPECT_EQ(whole.err.find("padding"), std::string::npos) << whole.err;
  const Result info = halo_ok({"info", dir / "gsm.wav"});
  EXPECT_NE(info.out.find("frames:    24000\n"), std::string::npos) << info.out;
  // PAF's 24 bits come in blocks of 10 frames: 10001 frames are held as 10010.
  make_noise_file(dir / "odd.wav", 10001, 1, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 127);
  const Result paf = halo_ok({"filter", dir / "odd.wav", dir / "out.paf", "--lowpass", "1k", "--subtype", "pcm24"});
  EXPECT_NE(paf.err.find("PAF pcm24 codes whole blocks: it holds 10010 frames, the last 9 of them the codec's padding"),
            std::string::npos)
      << paf.err;
  // A raw GSM file too, which says nothing of itself (it had been silent: 10000 frames held as
  // 10080, 63 blocks of 160, a QA pass).
  const Result raw = halo_ok({"filter", dir / "in.wav", dir / "out.raw", "--type", "raw", "--lowpass", "1k", "--subtype", "gsm610"});
  EXPECT_EQ(std::filesystem::file_size(dir / "out.raw"), 63u * 33u);
  EXPECT_NE(raw.err.find("gsm610 codes whole blocks: it holds 10080 frames, the last 80 of them the codec's padding"),
            std::string::npos)
      << raw.err;
}

// On a terminal, a run of over a second shows how it goes: a bar where IN's length is known, and
// from a pipe, whose length is not, the audio filtered so far (it had shown nothing, a QA pass).
// Neither is left on the line when the run ends.
TEST(CliFilter, ARunFromAPipeShowsHowFarItHasCome) {
  TempDir dir;
  make_noise_file(dir / "long.wav", 30 * 48000, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 129);
  const std::string halo_run = std::string(HALO_BINARY) + " filter - " + std::string(dir / "out.wav") +
                               " --lowpass 1k --taps 65535 --engine cpu";
  const Result shown = run({"/usr/bin/script", "-qec", "cat " + std::string(dir / "long.wav") + " | " + halo_run, "/dev/null"});
  ASSERT_EQ(shown.exit_code, 0) << shown.out << shown.err;
  EXPECT_NE(shown.out.find("\rhalo: 0:"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find(" of audio filtered"), std::string::npos) << shown.out;
  EXPECT_EQ(read_sound(dir / "out.wav").frames, 30 * 48000);
}

TEST(CliFilter, EightBitsStayEightBits) {
  TempDir dir;
  const auto taps = random_taps(31, 123);
  write_mask_text(dir / "mask.txt", {taps});
  const Sound u8 = make_noise_file(dir / "u8.wav", 3000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 124);
  const Sound s8 = make_noise_file(dir / "s8.aiff", 3000, 2, 48000, SF_FORMAT_AIFF | SF_FORMAT_PCM_S8, 125);
  struct Case {
    const Sound* in;
    std::string input, output, subtype;
    int format;
  };
  const std::vector<Case> cases = {
      {&s8, "s8.aiff", "a.wav", "", SF_FORMAT_WAV | SF_FORMAT_PCM_U8},
      {&u8, "u8.wav", "b.flac", "", SF_FORMAT_FLAC | SF_FORMAT_PCM_S8},
      {&u8, "u8.wav", "c.aiff", "", SF_FORMAT_AIFF | SF_FORMAT_PCM_S8},
      {&u8, "u8.wav", "d.caf", "", SF_FORMAT_CAF | SF_FORMAT_PCM_S8},
      {&s8, "s8.aiff", "e.wav", "pcm8", SF_FORMAT_WAV | SF_FORMAT_PCM_U8},
      {&u8, "u8.wav", "f.flac", "pcmu8", SF_FORMAT_FLAC | SF_FORMAT_PCM_S8},
      {&u8, "u8.wav", "g.aiff", "pcmu8", SF_FORMAT_AIFF | SF_FORMAT_PCM_S8},  // not AIFC 'raw ' (a QA pass)
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {HALO_BINARY, "filter", dir / c.input, dir / c.output, "--mask", dir / "mask.txt", "-q"};
    if (!c.subtype.empty()) args.insert(args.end(), {"--subtype", c.subtype});
    const Result ran = run(args);
    ASSERT_EQ(ran.exit_code, 0) << describe(args, ran);
    const Sound out = read_sound(dir / c.output);
    EXPECT_EQ(out.format, c.format) << c.output;
    EXPECT_LE(max_lsb_error(out, expected_output(c.in->samples, 2, {taps}, Align::same, false)), 1.5) << c.output;
  }
}

TEST(CliFilter, SubtypeConversions) {
  TempDir dir;
  const auto taps = random_taps(63, 120);
  write_mask_text(dir / "mask.txt", {taps});

  const Sound pcm16 = make_noise_file(dir / "in16.wav", 3000, 2, 44100, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 121);
  halo_ok({"filter", dir / "in16.wav", dir / "out.wav", "--mask", dir / "mask.txt", "--subtype", "float", "--quiet"});
  Sound out = read_sound(dir / "out.wav");
  EXPECT_EQ(out.format, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  EXPECT_LE(relative_error(out.samples, expected_output(pcm16.samples, 2, {taps}, Align::same, false)), tolerance);

  const Sound flt = make_noise_file(dir / "inf.wav", 3000, 2, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 122);
  halo_ok({"filter", dir / "inf.wav", dir / "out.wav", "--mask", dir / "mask.txt", "--subtype", "pcm24", "--quiet"});
  out = read_sound(dir / "out.wav");
  EXPECT_EQ(out.format, SF_FORMAT_WAV | SF_FORMAT_PCM_24);
  EXPECT_LE(max_lsb_error(out, expected_output(flt.samples, 2, {taps}, Align::same, false)),
            lsb_tolerance(SF_FORMAT_PCM_24));

  halo_ok({"filter", dir / "inf.wav", dir / "out.wav", "--mask", dir / "mask.txt", "--subtype", "pcm16", "--quiet"});
  out = read_sound(dir / "out.wav");
  EXPECT_EQ(out.format, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  EXPECT_LE(max_lsb_error(out, expected_output(flt.samples, 2, {taps}, Align::same, false)), 1.0);

  halo_ok({"filter", dir / "in16.wav", dir / "out.wav", "--mask", dir / "mask.txt", "--subtype", "double", "--quiet"});
  out = read_sound(dir / "out.wav");
  EXPECT_EQ(out.format, SF_FORMAT_WAV | SF_FORMAT_DOUBLE);
  EXPECT_LE(relative_error(out.samples, expected_output(pcm16.samples, 2, {taps}, Align::same, false)), tolerance);
}

TEST(CliFilter, OutputContainerFollowsTheExtension) {
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 4410, 2, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 130);
  const auto taps = random_taps(63, 131);
  write_mask_text(dir / "mask.txt", {taps});
  const auto ref = expected_output(in.samples, 2, {taps}, Align::same, false);

  halo_ok({"filter", dir / "in.wav", dir / "out.flac", "--mask", dir / "mask.txt", "--quiet"});
  Sound out = read_sound(dir / "out.flac");
  EXPECT_EQ(container_of(out), SF_FORMAT_FLAC);
  EXPECT_EQ(out.frames, 4410);
  ASSERT_GT(full_scale(out.format), 0) << "FLAC holds integers";
  EXPECT_LE(max_lsb_error(out, ref), lsb_tolerance(out.format));

  halo_ok({"filter", dir / "in.wav", dir / "out.aiff", "--mask", dir / "mask.txt", "--quiet"});
  out = read_sound(dir / "out.aiff");
  EXPECT_EQ(container_of(out), SF_FORMAT_AIFF);
  EXPECT_LE(relative_error(out.samples, ref), tolerance);

  // Vorbis is lossy and perceptual: white noise comes back far from the reference, tones
  // close to it. A few tones (and a little noise) then, within 10 %.
  std::vector<float> tones = random_signal(2 * 4410, 132, 0.01f);
  for (std::size_t n = 0; n < 4410; ++n)
    for (int c = 0; c < 2; ++c)
      tones[2 * n + c] += static_cast<float>(0.3 * std::cos(2 * M_PI * 440.0 * n / 44100 + 0.3 + c) +
                                             0.2 * std::cos(2 * M_PI * (1000.0 + 300 * c) * n / 44100 + 0.1));
  write_sound(dir / "tones.wav", tones, 2, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  halo_ok({"filter", dir / "tones.wav", dir / "out.ogg", "--mask", dir / "mask.txt", "--quiet"});
  out = read_sound(dir / "out.ogg");
  EXPECT_EQ(container_of(out), SF_FORMAT_OGG);
  EXPECT_EQ(subtype_of(out), SF_FORMAT_VORBIS);
  EXPECT_EQ(out.channels, 2);
  EXPECT_EQ(out.frames, 4410);
  EXPECT_LT(relative_error(out.samples, expected_output(tones, 2, {taps}, Align::same, false)), 0.1);
}

// A full-scale pcm24 or pcm32 sample through a unit mask is held at the edge, not counted as
// clipped: float32 carries it to 24 bits, so it lands a few of its steps past the edge by
// rounding alone (2147483647 / 2^31 is 1.0 in float32; an FFT engine's rounding reaches an LSB
// of pcm24), where "clipped 1 sample; lower --gain" had been said of an unchanged copy (a QA
// pass). A real overshoot (+1 dB) is still counted, and pcm16 counts as before.
TEST(CliFilter, AFullScaleCopyIsNotClippingButAnOvershootIs) {
  TempDir dir;
  write_mask_text(dir / "one.txt", {{1.0f}});
  std::vector<float> x = random_signal(4000, 150, 0.5f);
  x[10] = 1.0f;  // libsndfile clips it to the largest integer: full scale
  x[20] = -1.0f;
  for (const int subtype : {SF_FORMAT_PCM_24, SF_FORMAT_PCM_32}) {
    write_sound(dir / "in.wav", x, 1, 48000, SF_FORMAT_WAV | subtype);
    const Sound in = read_sound(dir / "in.wav");
    for (const std::string engine : {"cpu", "cpu-fft", "cpu-partitioned"}) {
      const Result copy = halo({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "one.txt", "--engine", engine,
                                "-q", "--no-dither"});
      ASSERT_EQ(copy.exit_code, 0) << copy.err;
      EXPECT_EQ(copy.err.find("clipped"), std::string::npos) << engine << ", " << subtype << ": " << copy.err;
      // Exact on the direct engine; an FFT engine's float32 rounding moves a sample by a few
      // steps of float32 at full scale (a pcm24 LSB, 256 of pcm32's), as anywhere in the file.
      const double steps = engine == "cpu" ? 0 : subtype == SF_FORMAT_PCM_24 ? 4 : 1024;
      const Sound out = read_sound(dir / "out.wav");
      EXPECT_LE(std::fabs(out.raw[10] - in.raw[10]), steps) << engine << ": the positive full-scale sample";
      EXPECT_LE(std::fabs(out.raw[20] - in.raw[20]), steps) << engine << ": the negative one";
    }
    const Result louder = halo({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "one.txt", "--gain", "1", "-q"});
    ASSERT_EQ(louder.exit_code, 0) << louder.err;
    EXPECT_NE(louder.err.find("clipped 2 samples"), std::string::npos) << subtype << ": " << louder.err;
  }
  // Many full-scale samples (a third of them, both signs) through a unit mask and a centred
  // 255-tap delta on every engine: cpu-fft had counted 474 and 209 of them as clipped (a QA
  // pass: its rounding reached 5 float32 steps past full scale, 2 were allowed).
  std::vector<float> loud = random_signal(60000, 152, 0.9f);
  for (std::size_t i = 0; i < loud.size(); i += 3) loud[i] = i % 2 == 0 ? 1.0f : -1.0f;
  std::vector<float> delta(255, 0.0f);
  delta[127] = 1.0f;
  write_mask_text(dir / "delta.txt", {delta});
  for (const int subtype : {SF_FORMAT_PCM_24, SF_FORMAT_PCM_32}) {
    write_sound(dir / "loud.wav", loud, 1, 48000, SF_FORMAT_WAV | subtype);
    for (const std::string mask : {"one.txt", "delta.txt"})
      for (const std::string engine : {"cpu-fft", "cpu-partitioned", "auto"}) {
        const Result copy = halo({"filter", dir / "loud.wav", dir / "out.wav", "--mask", dir / mask, "--engine", engine, "-q"});
        ASSERT_EQ(copy.exit_code, 0) << copy.err;
        EXPECT_EQ(copy.err.find("clipped"), std::string::npos) << engine << ", " << mask << ", " << subtype << ": " << copy.err;
      }
  }
}

// --threads sizes cpu-fft's pool: an engine without one says it does not use it (it had been
// taken without a word, a QA pass); cpu-fft takes it silently, and the result is the same.
TEST(CliFilter, ThreadsOrBlockForAnEngineThatDoesNotUseThemAreSaid) {
  TempDir dir;
  write_sound(dir / "in.wav", random_signal(2 * 3000, 151, 0.4f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  for (const std::string engine : {"cpu", "cpu-partitioned", "cpu-fft"}) {
    const Result ran = halo({"filter", dir / "in.wav", dir / (engine + ".wav"), "--lowpass", "1k", "--taps", "63",
                             "--engine", engine, "--threads", "2", "-q"});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    if (engine == "cpu-fft")
      EXPECT_EQ(ran.err, "");
    else
      EXPECT_EQ(ran.err, "halo: warning: --threads is for cpu-fft's threads: engine " + engine + " does not use it\n");
  }
  const Sound fft = read_sound(dir / "cpu-fft.wav");
  EXPECT_LE(relative_error(read_sound(dir / "cpu.wav").samples, std::vector<double>(fft.samples.begin(), fft.samples.end())),
            1e-6);
  // --block sizes the textbook CUDA kernels' blocks: the CPU engines say they do not use it
  // (taken silently, a QA pass).
  for (const std::string engine : {"cpu", "cpu-fft"}) {
    const Result ran = halo({"filter", dir / "in.wav", dir / (engine + "-block.wav"), "--lowpass", "1k", "--taps", "63",
                             "--engine", engine, "--block", "128", "-q"});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    EXPECT_EQ(ran.err, "halo: warning: --block is for the blocks of cuda-basic, cuda-constant, cuda-tiled and cuda-cached: "
                       "engine " + engine + " does not use it\n");
  }
}

TEST(CliFilter, GainAndClippingCount) {
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 20000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 140, 0.9f);
  write_mask_text(dir / "one.txt", {{1.0f}});
  const double gain = std::pow(10.0, 6.0 / 20.0);
  const auto ref = expected_output(in.samples, 2, {{1.0f}}, Align::same, false, gain);
  std::uint64_t surely = 0, maybe = 0;
  for (double v : ref) {
    const double scaled = v * 32768.0;
    if (scaled > 32767.5 + 1e-3 || scaled < -32768.5 - 1e-3) ++surely;
    else if (scaled > 32767.5 - 1e-3 || scaled < -32768.5 + 1e-3) ++maybe;
  }
  ASSERT_GT(surely, 1000u);

  const Result clipped = halo_ok(
      {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "one.txt", "--gain", "6", "--subtype", "pcm16"});
  const Sound out = read_sound(dir / "out.wav");
  EXPECT_LE(max_lsb_error(out, ref), 1.0);
  // "clipped N samples" on stderr, N as counted from the reference.
  const auto at = clipped.err.find("clipped ");
  ASSERT_NE(at, std::string::npos) << clipped.err;
  const std::uint64_t reported = std::stoull(clipped.err.substr(at + 8));
  EXPECT_GE(reported, surely) << clipped.err;
  EXPECT_LE(reported, surely + maybe) << clipped.err;
  EXPECT_NE(clipped.err.find("clipped " + std::to_string(reported) + " samples"), std::string::npos) << clipped.err;
  // Even with --quiet the clipping is reported.
  const Result quiet = halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "one.txt", "--gain", "6",
                                "--subtype", "pcm16", "--quiet"});
  EXPECT_NE(quiet.err.find("clipped " + std::to_string(reported) + " samples"), std::string::npos) << quiet.err;

  // Float output: written as is, beyond full scale, nothing clipped.
  const Result loud =
      halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "one.txt", "--gain", "6"});
  EXPECT_EQ(loud.err.find("clipped"), std::string::npos) << loud.err;
  EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples, ref), tolerance);

  // Attenuation.
  halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "one.txt", "--gain", "-6.5", "--quiet"});
  EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples,
                           expected_output(in.samples, 2, {{1.0f}}, Align::same, false, std::pow(10.0, -6.5 / 20.0))),
            tolerance);
}

// ---------------------------------------------------------------- standard input and output

TEST(CliFilter, StandardInputFromPipesAndFiles) {
  TempDir dir;
  const auto taps = random_taps(63, 150);
  write_mask_text(dir / "mask.txt", {taps});
  const Sound wav = make_noise_file(dir / "in.wav", 3000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 151);
  const Sound au = make_noise_file(dir / "in.au", 3000, 2, 48000, SF_FORMAT_AU | SF_FORMAT_PCM_16, 152);

  for (const auto& [name, sound] : {std::pair<std::string, const Sound*>{"in.wav", &wav}, {"in.au", &au}}) {
    const auto ref = expected_output(sound->samples, 2, {taps}, Align::same, false);
    // A real pipe: the reader cannot seek.
    const std::string command = "cat '" + (dir / name) + "' | '" + HALO_BINARY + "' filter - '" + (dir / "out.wav") +
                                "' --mask '" + (dir / "mask.txt") + "' --quiet";
    const Result piped = run({"/bin/sh", "-c", command});
    ASSERT_EQ(piped.exit_code, 0) << describe({command}, piped);
    Sound out = read_sound(dir / "out.wav");
    EXPECT_EQ(out.frames, 3000) << name;
    expect_matches(out, ref, name + " through a pipe");

    // A redirected file.
    RunOptions from_file;
    from_file.stdin_path = dir / name;
    halo_ok({"filter", "-", dir / "out.wav", "--mask", dir / "mask.txt", "--quiet"}, from_file);
    out = read_sound(dir / "out.wav");
    expect_matches(out, ref, name + " from a redirected file");
  }
}

// `--timings` and the summary's time count the whole run: the mask's design (here a Kaiser
// search) and the engine's start too. The stream's own clock had been both, smaller than the
// engine's start printed beside it, and 0.022 s for a 40 s design (a QA pass). Figures are
// read from the two lines and checked against each other, not against any speed.
TEST(CliFilter, TimingsCountTheWholeRun) {
  TempDir dir;
  make_noise_file(dir / "in.wav", 4800, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 174);
  const Result run = halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--lowpass", "1k", "--transition", "300",
                              "--attenuation", "80", "--method", "kaiser", "--timings"});
  const auto figure = [&run](const std::string& before, const std::string& after) {
    const std::size_t at = run.err.find(before);
    if (at == std::string::npos) return -1.0;
    const std::size_t end = run.err.find(after, at + before.size());
    return end == std::string::npos ? -1.0 : std::stod(run.err.substr(at + before.size(), end - at - before.size()));
  };
  const double mask = figure("timings: mask ", " s,"), start = figure("engine start ", " s"), wall = figure(", wall ", " s");
  const double stream = figure("(the stream ", " s)"), summary = figure("48000 Hz; ", " s\n");
  ASSERT_GE(mask, 0) << run.err;
  ASSERT_GE(start, 0) << run.err;
  ASSERT_GE(stream, 0) << run.err;
  EXPECT_GE(wall + 0.0015, mask + start) << run.err;  // (each printed to the millisecond)
  EXPECT_GE(wall + 0.0005, stream) << run.err;
  EXPECT_EQ(summary, wall) << run.err;
}

// A designed mask of even length, centred, keeps half a sample of delay: said (kaiserord's 604
// taps had left a 2-way crossover 30 dB from summing to its input without a word, a QA pass);
// not for an odd length, a causal alignment, or -q.
TEST(CliFilter, AnEvenDesignedLengthSaysItsHalfSample) {
  TempDir dir;
  make_noise_file(dir / "in.wav", 4800, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 175);
  const std::string in = dir / "in.wav", out = dir / "out.wav";
  const Result even = halo_ok({"filter", in, out, "--lowpass", "2k", "--transition", "400", "--attenuation", "80"});
  EXPECT_NE(even.err.find("note: 604 taps, an even length: the output lags the input by half a sample (--taps 605"),
            std::string::npos)
      << even.err;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--taps", "63"}, {"--taps", "64", "--align", "causal"}, {"--taps", "64", "-q"}}) {
    std::vector<std::string> command = {"filter", in, out, "--lowpass", "2k"};
    command.insert(command.end(), args.begin(), args.end());
    EXPECT_EQ(halo_ok(command).err.find("half a sample"), std::string::npos) << args[1];
  }
}

// `--mask -` and `--ir -` read the mask from standard input (it had been "-: No such file or
// directory", a QA pass): a text mask through a pipe, a sound-file IR from a redirected file,
// each against the plain convolution; IN and the mask cannot both be standard input, and a
// terminal is refused rather than waited on.
TEST(CliFilter, MaskFromStandardInput) {
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 3000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 171);
  const auto taps = random_taps(45, 172);
  write_mask_text(dir / "mask.txt", {taps});
  const std::string command = "cat '" + (dir / "mask.txt") + "' | '" + HALO_BINARY + "' filter '" + (dir / "in.wav") +
                              "' '" + (dir / "out.wav") + "' --mask - --quiet";
  const Result piped = run({"/bin/sh", "-c", command});
  ASSERT_EQ(piped.exit_code, 0) << describe({command}, piped);
  expect_matches(read_sound(dir / "out.wav"), expected_output(in.samples, 2, {taps}, Align::same, false), "--mask -");

  write_sound(dir / "ir.wav", taps, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--ir", "-", "--quiet"}, in_directory(dir.path(), dir / "ir.wav"));
  expect_matches(read_sound(dir / "out.wav"), expected_output(in.samples, 2, {taps}, Align::causal, false), "--ir -");

  const Result inspected = halo_ok({"ir", "inspect", "-"}, in_directory(dir.path(), dir / "ir.wav"));
  EXPECT_NE(inspected.out.find("file:      standard input\n"), std::string::npos) << inspected.out;

  const DirectorySnapshot before(dir.path());
  expect_one_line_failure(halo({"filter", "-", dir / "out2.wav", "--mask", "-"}, in_directory(dir.path(), dir / "in.wav")),
                          2, "IN and --mask both read standard input", before, "IN and mask from stdin");
  expect_one_line_failure(halo({"play", "-", "--mask", "-"}, in_directory(dir.path(), dir / "in.wav")), 2,
                          "FILE and --mask both read standard input", before, "play's FILE and mask from stdin");
  expect_one_line_failure(halo({"filter", dir / "in.wav", dir / "out2.wav", "--mask", "-"}), 1,
                          "standard input: no coefficients", before, "empty standard input");
  const std::string on_terminal = std::string("'") + HALO_BINARY + "' filter '" + (dir / "in.wav") + "' '" + (dir / "out2.wav") +
                                  "' --mask -";
  const Result terminal = run({"/usr/bin/script", "-qec", on_terminal, "/dev/null"});
  EXPECT_EQ(terminal.exit_code, 1) << terminal.out << terminal.err;
  EXPECT_NE(terminal.out.find("halo: standard input is a terminal"), std::string::npos) << terminal.out;
  EXPECT_TRUE(before.added().empty()) << joined(before.added());

  // A sound file cut short is refused as such from standard input, as from its name: it had
  // been "a binary file, not ... a sound file libsndfile reads" there (a QA pass).
  write_sound(dir / "long-ir.wav", random_taps(2000, 173), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_24);
  ASSERT_EQ(run({"/bin/sh", "-c", "head -c 3000 '" + (dir / "long-ir.wav") + "' > '" + (dir / "cut-ir.wav") + "'"}).exit_code, 0);
  const DirectorySnapshot with_cut(dir.path());
  for (const std::string option : {"--mask", "--ir"})
    expect_one_line_failure(halo({"filter", dir / "in.wav", dir / "out2.wav", option, "-"}, in_directory(dir.path(), dir / "cut-ir.wav")),
                            1, "standard input: truncated: its header declares 2000 frames", with_cut, option + " - cut short");
}

// A C header on standard input is told by its content whatever it opens with: a declaration, a
// `//` line or `#pragma once` (only design's own `/*` comment had been, the rest read as text:
// "static" is not a number, a QA pass): each filters as its taps' float64 convolution. A text
// mask keeps a text mask's errors (a review: "nan" had been sent to the header parser).
TEST(CliFilter, AnyCHeaderFromStandardInput) {
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 2000, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 173);
  const std::vector<float> taps = {0.125f, 0.5f, 0.25f, -0.0625f, 0.1875f};
  const std::string array = "{0.125f, 0.5f, 0.25f, -0.0625f, 0.1875f};\n";
  for (const std::string& header : std::vector<std::string>{"static const float mask[5] = " + array, "// five taps\nconst float mask[5] = " + array,
                                   "#pragma once\nstatic const float mask[5] = " + array,
                                   "  float mask[] = " + array}) {
    write_bytes(dir / "m.h", header);
    halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", "-", "--quiet"}, in_directory(dir.path(), dir / "m.h"));
    expect_matches(read_sound(dir / "out.wav"), expected_output(in.samples, 1, {taps}, Align::same, false), header);
  }
  // A bare JSON list, and JSON after a UTF-8 byte-order mark, are JSON on standard input as in a
  // .json file (both had been read as text: "[0.125" is not a number, a QA pass).
  for (const std::string& json : {std::string("[0.125, 0.5, 0.25, -0.0625, 0.1875]\n"),
                                  std::string("\xEF\xBB\xBF{\"coefficients\": [0.125, 0.5, 0.25, -0.0625, 0.1875]}")}) {
    write_bytes(dir / "m.json", json);
    halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", "-", "--quiet"}, in_directory(dir.path(), dir / "m.json"));
    expect_matches(read_sound(dir / "out.wav"), expected_output(in.samples, 1, {taps}, Align::same, false), json);
  }
  // A text mask whose comment holds "= {" is still text (a QA pass: it had become a header).
  write_bytes(dir / "t.txt", "# h = {0.125, 0.5} from octave\n0.125\n0.5\n0.25\n-0.0625\n0.1875\n");
  halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--mask", "-", "--quiet"}, in_directory(dir.path(), dir / "t.txt"));
  expect_matches(read_sound(dir / "out.wav"), expected_output(in.samples, 1, {taps}, Align::same, false), "t.txt");
  write_bytes(dir / "nan.txt", "nan\n0.5\n");
  const DirectorySnapshot before(dir.path());
  expect_one_line_failure(halo({"filter", dir / "in.wav", dir / "bad.wav", "--mask", "-"}, in_directory(dir.path(), dir / "nan.txt")),
                          1, "NaN or Inf coefficient", before, "a text mask's error from standard input");
}

// `design | filter --mask -` keeps what the mask says: design's standard output carries the
// "# rate" and "# align causal" lines a .txt holds (bare taps had lost them: a minimum-phase
// mask's output came 127 frames early, a 48 kHz mask ran on 44.1 kHz audio without a word),
// and a JSON or C header on standard input is read as such, told by its first characters (it
// had been "{" is not a number; a review). Each against the plain convolution of the taps the
// same design writes to a file.
TEST(CliFilter, APipedDesignKeepsItsRateAndAlignment) {
  TempDir dir;
  const Sound in = make_noise_file(dir / "in.wav", 3000, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 173);
  make_noise_file(dir / "in44.wav", 3000, 1, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 174);
  halo_ok({"design", "--lowpass", "4k", "--taps", "63", "--minimum-phase", "-o", dir / "mp.txt", "-q"});
  const std::vector<double> written = read_text_column(read_bytes(dir / "mp.txt"));
  const auto ref = expected_output(in.samples, 1, {std::vector<float>(written.begin(), written.end())}, Align::causal, false);
  for (const std::string format : {"txt", "json", "h"}) {
    const std::string command = std::string("'") + HALO_BINARY + "' design --lowpass 4k --taps 63 --minimum-phase -q" +
                                " --format " + format + " -o - | '" + HALO_BINARY + "' filter '" + (dir / "in.wav") +
                                "' '" + (dir / "out.wav") + "' --mask - --quiet";
    const Result piped = run({"/bin/sh", "-c", command});
    ASSERT_EQ(piped.exit_code, 0) << describe({command}, piped);
    EXPECT_LE(relative_error(read_sound(dir / "out.wav").samples, ref), tolerance) << format;
  }
  const std::string other_rate = std::string("'") + HALO_BINARY + "' design --lowpass 4k -q | '" + HALO_BINARY +
                                 "' filter '" + (dir / "in44.wav") + "' '" + (dir / "out44.wav") + "' --mask -";
  const Result warned = run({"/bin/sh", "-c", other_rate});
  ASSERT_EQ(warned.exit_code, 0) << describe({other_rate}, warned);
  EXPECT_NE(warned.err.find("warning: the mask was made for 48000 Hz but"), std::string::npos) << warned.err;
}

// Containers libsndfile reads only from a seekable file arrive whole through a pipe too: halo
// copies them to a temporary first. RF64 had been read from its fmt chunk on as audio (wrong
// samples, exit 0), SDS had looped at full CPU, HTK, XI and WVE had been refused (a QA pass);
// FLAC and CAF were spooled already. The reference is each file's own samples, as libsndfile
// reads the file, filtered plainly.
TEST(CliFilter, StandardInputOfContainersThatDoNotStream) {
  TempDir dir;
  const auto taps = random_taps(31, 163);
  write_mask_text(dir / "mask.txt", {taps});
  struct Case {
    const char* name;
    int format, channels, rate_hz;
  };
  for (const Case& c : {Case{"in.rf64", SF_FORMAT_RF64 | SF_FORMAT_FLOAT, 2, 48000},
                        Case{"in.sds", SF_FORMAT_SDS | SF_FORMAT_PCM_16, 1, 48000},
                        Case{"in.htk", SF_FORMAT_HTK | SF_FORMAT_PCM_16, 1, 16000},
                        Case{"in.wve", SF_FORMAT_WVE | SF_FORMAT_ALAW, 1, 8000},
                        Case{"in.w64", SF_FORMAT_W64 | SF_FORMAT_IMA_ADPCM, 2, 44100},
                        Case{"in.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 2, 48000},
                        Case{"in.caf", SF_FORMAT_CAF | SF_FORMAT_PCM_16, 2, 48000},
                        Case{"gsm.wav", SF_FORMAT_WAV | SF_FORMAT_GSM610, 1, 8000}}) {
    make_noise_file(dir / c.name, 3000, c.channels, c.rate_hz, c.format, 164);
    const Sound in = read_sound(dir / c.name);  // as libsndfile reads the file itself
    ASSERT_GT(in.frames, 2000) << c.name;
    const std::string command = "cat '" + (dir / c.name) + "' | timeout 60 '" + HALO_BINARY + "' filter - '" +
                                (dir / "out.wav") + "' --mask '" + (dir / "mask.txt") + "' --subtype float -q";
    const Result piped = run({"/bin/sh", "-c", command});
    ASSERT_EQ(piped.exit_code, 0) << describe({command}, piped);
    const Sound out = read_sound(dir / "out.wav");
    EXPECT_EQ(out.frames, in.frames) << c.name;
    expect_matches(out, expected_output(in.samples, c.channels, {taps}, Align::same, false), c.name);
  }
}

// A stream that ends within its first bytes is refused in one line: libsndfile had read a
// 2-byte pipe for ever (and halo's peek at it, a pipe of 16 buffers, blocked on the 17th).
TEST(CliFilter, AStreamOfAFewBytesIsRefusedAtOnce) {
  TempDir dir;
  make_noise_file(dir / "in.wav", 100, 1, 8000, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 165);
  write_mask_text(dir / "mask.txt", {{1.0f}});
  for (const int bytes : {2, 10, 23}) {
    const std::string command = "head -c " + std::to_string(bytes) + " '" + (dir / "in.wav") + "' | timeout 20 '" +
                                HALO_BINARY + "' filter - '" + (dir / "out.wav") + "' --mask '" + (dir / "mask.txt") + "'";
    const Result result = run({"/bin/sh", "-c", command});
    EXPECT_EQ(result.exit_code, 1) << describe({command}, result);
    EXPECT_EQ(lines_of(result.err).size(), 1u) << result.err;
    EXPECT_NE(result.err.find("halo: standard input: "), std::string::npos) << result.err;
  }
}

// A WAV or AIFF cut short on its way down a pipe: the header still says how long it is, so the
// shortfall is told (it was filtered without a word); the frames that came are filtered as
// usual. A stand-in length (sox's AIFF on a pipe, which does not know where it will end) is not
// taken for one.
TEST(CliFilter, AStreamCutShortIsToldFromItsHeader) {
  TempDir dir;
  const auto taps = random_taps(31, 153);
  write_mask_text(dir / "mask.txt", {taps});
  const Sound wav = make_noise_file(dir / "in.wav", 6000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 154);
  // 44 bytes of header, then 2000 frames of 4 bytes.
  const std::string cut = "head -c " + std::to_string(44 + 2000 * 4) + " '" + (dir / "in.wav") + "' | '" +
                          HALO_BINARY + "' filter - '" + (dir / "out.wav") + "' --mask '" + (dir / "mask.txt") + "' -q";
  const Result piped = run({"/bin/sh", "-c", cut});
  ASSERT_EQ(piped.exit_code, 0) << describe({cut}, piped);
  EXPECT_NE(piped.err.find("warning: standard input ended after 2000 frames, before the 6000 its header declares"),
            std::string::npos)
      << piped.err;
  const std::vector<float> first(wav.samples.begin(), wav.samples.begin() + 2000 * 2);
  Sound out = read_sound(dir / "out.wav");
  EXPECT_EQ(out.frames, 2000);
  expect_matches(out, expected_output(first, 2, {taps}, Align::same, false), "the frames that came");

  const std::string whole = "sox '" + (dir / "in.wav") + "' -t aiff - | '" + HALO_BINARY + "' filter - '" +
                            (dir / "out.wav") + "' --mask '" + (dir / "mask.txt") + "' -q";
  const Result aiff = run({"/bin/sh", "-c", whole});
  ASSERT_EQ(aiff.exit_code, 0) << describe({whole}, aiff);
  EXPECT_EQ(aiff.err, "") << "sox's stand-in length is no length";
  EXPECT_EQ(read_sound(dir / "out.wav").frames, 6000);

  // Such a stream kept in a file (ffmpeg's 0xffffffff for the sizes it could not fill in) is
  // whole: filtered as it is, not refused as truncated.
  std::string bytes = read_bytes(dir / "in.wav");
  const std::size_t data = bytes.find("data");
  ASSERT_NE(data, std::string::npos);
  for (const std::size_t at : {std::size_t{4}, data + 4}) bytes.replace(at, 4, "\xff\xff\xff\xff");
  write_bytes(dir / "kept.wav", bytes);
  const Result kept = halo_ok({"filter", dir / "kept.wav", dir / "out.wav", "--mask", dir / "mask.txt", "-q"});
  EXPECT_EQ(kept.err, "");
  out = read_sound(dir / "out.wav");
  EXPECT_EQ(out.frames, 6000);
  expect_matches(out, expected_output(wav.samples, 2, {taps}, Align::same, false), "a kept stream");
}

TEST(CliFilter, StandardOutputToPipesAndFiles) {
  TempDir dir;
  const auto taps = random_taps(63, 160);
  write_mask_text(dir / "mask.txt", {taps});
  const Sound au = make_noise_file(dir / "in.au", 3000, 2, 48000, SF_FORMAT_AU | SF_FORMAT_FLOAT, 161);
  const Sound wav = make_noise_file(dir / "in.wav", 3000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 162);

  // AU can be written to a pipe: OUT "-" takes IN's container.
  const Result piped = halo_ok({"filter", dir / "in.au", "-", "--mask", dir / "mask.txt", "--quiet"});
  write_bytes(dir / "from_pipe.au", piped.out);
  Sound out = read_sound(dir / "from_pipe.au");
  EXPECT_EQ(container_of(out), SF_FORMAT_AU);
  EXPECT_EQ(out.frames, 3000);
  EXPECT_LE(relative_error(out.samples, expected_output(au.samples, 2, {taps}, Align::same, false)), tolerance);

  // WAV needs to seek back to its header: into a regular file it works...
  RunOptions to_file;
  to_file.stdout_path = dir / "from_stdout.wav";
  halo_ok({"filter", dir / "in.wav", "-", "--mask", dir / "mask.txt", "--quiet"}, to_file);
  out = read_sound(dir / "from_stdout.wav");
  EXPECT_EQ(container_of(out), SF_FORMAT_WAV);
  EXPECT_LE(relative_error(out.samples, expected_output(wav.samples, 2, {taps}, Align::same, false)), tolerance);

  // With --type, WAV input goes to a pipe as AU.
  const Result typed = halo_ok({"filter", dir / "in.wav", "-", "--type", "au", "--mask", dir / "mask.txt", "--quiet"});
  write_bytes(dir / "typed.au", typed.out);
  out = read_sound(dir / "typed.au");
  EXPECT_EQ(container_of(out), SF_FORMAT_AU);
  EXPECT_LE(relative_error(out.samples, expected_output(wav.samples, 2, {taps}, Align::same, false)), tolerance);

  // ... into a pipe it cannot: one clear line, not a broken file.
  const auto args = halo_args({"filter", dir / "in.wav", "-", "--mask", dir / "mask.txt", "--quiet"});
  const Result refused = run(args);
  EXPECT_NE(refused.exit_code, 0) << describe(args, refused);
  const auto lines = lines_of(refused.err);
  ASSERT_EQ(lines.size(), 1u) << refused.err;
  EXPECT_EQ(lines[0].rfind("halo: ", 0), 0u) << refused.err;
  EXPECT_NE(lines[0].find("standard output"), std::string::npos) << refused.err;
  EXPECT_TRUE(refused.out.empty()) << refused.out.size() << " bytes written to the pipe";
}

// The containers libsndfile writes without seeking back must go through a pipe whole: exit
// code 0, decodable to the end, every frame, the same samples as the same container written to
// a file, and the reference's. The containers that need to seek back (their header holds the
// length), and FLAC (libFLAC rewrites its header at the end: audio/writer.cpp), are refused
// with one line naming standard output, and nothing reaches the pipe.
TEST(CliFilter, PipedContainersDecodeOrAreRefused) {
  TempDir dir;
  const auto taps = random_taps(31, 165);
  write_mask_text(dir / "mask.txt", {taps});
  const Sound in = make_noise_file(dir / "in.wav", 3000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 166);
  const auto ref = expected_output(in.samples, 2, {taps}, Align::same, false);
  SF_INFO raw{};  // what halo writes as raw here: the input's pcm16, in the machine's byte order
  raw.format = SF_FORMAT_RAW | SF_FORMAT_PCM_16;
  raw.channels = 2;
  raw.samplerate = 48000;

  for (const std::string type : {"au", "raw", "ogg", "ircam"}) {
    // Through a real pipe: `(halo ... -; echo $? > status) | cat > piped.TYPE`.
    const std::string piped_path = dir / ("piped." + type), file_path = dir / ("file." + type);
    const std::string command = "('" + std::string(HALO_BINARY) + "' filter '" + (dir / "in.wav") + "' - --type " +
                                type + " --mask '" + (dir / "mask.txt") + "' --quiet; echo $? > '" + (dir / "status") +
                                "') | cat > '" + piped_path + "'";
    const Result piped = run({"/bin/sh", "-c", command});
    ASSERT_EQ(piped.exit_code, 0) << describe({command}, piped);
    ASSERT_EQ(read_bytes(dir / "status"), "0\n") << type << " can be written to a pipe\n" << describe({command}, piped);
    halo_ok({"filter", dir / "in.wav", file_path, "--mask", dir / "mask.txt", "--quiet"});
    const SF_INFO info = type == "raw" ? raw : SF_INFO{};
    Sound out, from_file;
    try {
      out = read_sound(piped_path, info);
      from_file = read_sound(file_path, info);
    } catch (const std::exception& error) {
      ADD_FAILURE() << type << " written to a pipe does not decode: " << error.what();
      continue;
    }
    EXPECT_EQ(out.frames, 3000) << type;
    EXPECT_EQ(out.format, from_file.format) << type;
    EXPECT_TRUE(out.samples == from_file.samples) << type << ": the pipe's samples differ from the file's";
    if (type == "ogg") {
      EXPECT_LT(relative_error(out.samples, ref), 1.0) << type;  // lossy; here only: not silent, not garbage
    } else {
      expect_matches(out, ref, type + " through a pipe");
    }
    if (type != "raw") {
      const auto info_args = halo_args({"info", piped_path});
      const Result halo_info = run(info_args);
      EXPECT_EQ(halo_info.exit_code, 0) << "halo reads back what it wrote to a pipe\n" << describe(info_args, halo_info);
    }
  }

  // PAF's header had gone out before libsndfile's error, and an SDS went out whole but with a
  // header counting no frames (read back: none), exit 0 (a QA pass). SDS is mono.
  make_noise_file(dir / "mono.wav", 3000, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 163);
  for (const std::string type : {"flac", "wav", "aiff", "caf", "w64", "paf", "sds"}) {
    const std::string in = type == "sds" ? dir / "mono.wav" : dir / "in.wav";
    const auto args = halo_args({"filter", in, "-", "--type", type, "--mask", dir / "mask.txt", "--quiet"});
    const Result result = run(args);
    EXPECT_NE(result.exit_code, 0) << type << " cannot be written to a pipe\n" << describe(args, result);
    const auto lines = lines_of(result.err);
    EXPECT_EQ(lines.size(), 1u) << type << ": refused with one line\n" << describe(args, result);
    EXPECT_NE(result.err.find("standard output"), std::string::npos) << describe(args, result);
    EXPECT_TRUE(result.out.empty()) << type << ": refused, yet " << result.out.size()
                                    << " bytes were written to the pipe";
  }
}

// ---------------------------------------------------------------- messages of a working run

TEST(CliFilter, NoticesGoToStderrAndQuietSilencesThem) {
  TempDir dir;
  make_noise_file(dir / "in.wav", 1000, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 170);
  const Result talkative = halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--lowpass", "1000"});
  EXPECT_TRUE(talkative.out.empty());
  const auto lines = lines_of(talkative.err);
  ASSERT_FALSE(lines.empty());
  bool engine_named = false;
  for (const auto& line : lines) {
    EXPECT_EQ(line.rfind("halo: ", 0), 0u) << line;
    engine_named = engine_named || line.rfind("halo: engine ", 0) == 0;
  }
  EXPECT_TRUE(engine_named) << "a one-line notice names the engine:\n" << talkative.err;
  const Result quiet = halo_ok({"filter", dir / "in.wav", dir / "out.wav", "--lowpass", "1000", "--quiet"});
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(quiet.out, "");
}

// ---------------------------------------------------------------- info, version, help

TEST(CliInfo, ReportsFramesRateChannelsAndPeak) {
  TempDir dir;
  auto samples = random_signal(12345 * 3, 180, 0.4f);
  samples[777 * 3 + 1] = -0.75f;
  write_sound(dir / "in.wav", samples, 3, 96000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Result info = halo_ok({"info", dir / "in.wav"});
  EXPECT_NE(info.out.find("frames:    12345\n"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("rate:      96000 Hz\n"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("channels:  3\n"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("peak:      0.750000"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("WAV float"), std::string::npos) << info.out;
  char duration[64];
  std::snprintf(duration, sizeof duration, "%.3f s", 12345.0 / 96000.0);
  EXPECT_NE(info.out.find(duration), std::string::npos) << info.out;

  write_sound(dir / "in.flac", random_signal(4800, 181, 0.25f), 1, 48000, SF_FORMAT_FLAC | SF_FORMAT_PCM_16);
  const Result flac = halo_ok({"info", dir / "in.flac"});
  EXPECT_NE(flac.out.find("FLAC pcm16"), std::string::npos) << flac.out;
  EXPECT_NE(flac.out.find("frames:    4800\n"), std::string::npos) << flac.out;
}

TEST(CliHelp, VersionAndHelp) {
  const Result version = halo_ok({"--version"});
  EXPECT_EQ(version.out.rfind("halo ", 0), 0u) << version.out;
  EXPECT_NE(version.out.find("cpu"), std::string::npos) << "lists the engines: " << version.out;

  const Result help = halo_ok({"--help"});
  for (const char* word : {"filter", "design", "info", "--lowpass", "--version"})
    EXPECT_NE(help.out.find(word), std::string::npos) << word << " in:\n" << help.out;

  const std::map<std::string, std::vector<std::string>> command_words = {
      {"filter", {"--lowpass", "--highpass", "--bandpass", "--bandstop", "--mask", "--ir", "--taps", "--window",
                  "--engine", "--chunk", "--tail", "--subtype", "--gain", "--quiet", "--align"}},
      {"design", {"--lowpass", "--rate", "--output", "--transition", "--attenuation"}},
      {"info", {"FILE"}},
      // Both subcommands' options (ir --help had given their usage lines alone, a QA pass).
      {"ir", {"ir inspect", "--plot-scale", "--json", "ir fix", "--normalize", "--in-rate", "--format"}},
  };
  for (const auto& [command, words] : command_words) {
    const Result result = halo_ok({command, "--help"});
    EXPECT_EQ(result.err, "") << command;
    for (const auto& word : words) EXPECT_NE(result.out.find(word), std::string::npos) << command << ": " << word;
  }

  const auto args = halo_args({});
  const Result bare = run(args);
  EXPECT_EQ(bare.exit_code, 2) << describe(args, bare);
  EXPECT_NE(bare.err.find("filter"), std::string::npos) << "usage on stderr";
}

}  // namespace
}  // namespace halo::test
