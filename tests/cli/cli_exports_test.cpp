// issue 16, outputs: design's exports loaded by the programs (or grammars) they are for, the
// JSON and header exports read back by --mask, the SVG plot parsed and its curves checked
// against a float64 response computed here, `halo ir inspect` against numpy's figures
// (tests/data/ir/make_ir_golden.py), `info --json`, and --ir-rate.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

constexpr double pi = 3.14159265358979323846;

Result halo_ok(const std::vector<std::string>& args, const RunOptions& options = {}) {
  std::vector<std::string> all = {HALO_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  Result result = run(all, options);
  EXPECT_EQ(result.exit_code, 0) << describe(all, result);
  return result;
}

// The coefficients of a text mask (as sox reads it: '#' comments, one number a line).
std::vector<float> text_taps(const std::string& path) {
  std::vector<float> taps;
  std::istringstream in(read_bytes(path));
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream numbers(line);
    for (float value; numbers >> value;) taps.push_back(value);
  }
  return taps;
}

// filter's output of the mono `input` through the text mask `mask` against the plain float64
// convolution of the taps the file holds, aligned as `align`: within 1e-6.
void expect_filtered_by_its_taps(const std::string& input, const std::string& mask, Align align) {
  const std::string out = mask + ".out.wav";
  halo_ok({"filter", input, out, "--mask", mask, "-q"});
  EXPECT_LE(relative_error(read_sound(out).samples, expected_output(read_sound(input).samples, 1, {text_taps(mask)}, align, false)),
            1e-6)
      << mask;
}

// |H(f)| of taps at rate, in dB: the float64 DFT written plainly.
double magnitude_db(const std::vector<float>& taps, double hz, double rate) {
  std::complex<double> sum = 0;
  for (std::size_t k = 0; k < taps.size(); ++k)
    sum += static_cast<double>(taps[k]) * std::polar(1.0, -2 * pi * hz / rate * static_cast<double>(k));
  return 20 * std::log10(std::abs(sum));
}

class Exports : public ::testing::Test {
 protected:
  TempDir dir;
  std::string path(const std::string& name) const { return dir.path() + "/" + name; }
  // The reference mask, designed once as text: every export must hold exactly these floats.
  std::vector<float> reference() {
    halo_ok({"design", "--lowpass", "3000", "--taps", "101", "-o", path("ref.txt")});
    return text_taps(path("ref.txt"));
  }
};

TEST_F(Exports, SoxFiltersWithTheSoxExportAsHaloFilterDoes) {
  halo_ok({"design", "--lowpass", "3000", "--taps", "101", "--format", "sox", "-o", path("sox.txt")});
  write_sound(path("x.wav"), random_signal(9600, 7, 0.4f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Result sox = run({"/usr/bin/sox", path("x.wav"), "-e", "floating-point", "-b", "32", path("y_sox.wav"), "fir",
                          path("sox.txt")});
  ASSERT_EQ(sox.exit_code, 0) << sox.err;
  halo_ok({"filter", path("x.wav"), path("y_halo.wav"), "--mask", path("sox.txt"), "-q"});
  const Sound a = read_sound(path("y_sox.wav")), b = read_sound(path("y_halo.wav"));
  ASSERT_EQ(a.samples.size(), b.samples.size());
  // Both against the float64 convolution, centred (sox removes M/2 = 50 frames of delay).
  const Sound x = read_sound(path("x.wav"));
  const std::vector<double> ref = expected_output(x.samples, 1, {text_taps(path("sox.txt"))}, Align::same, false);
  EXPECT_LE(relative_error(a.samples, ref), 1e-6);  // sox's own float rounding
  EXPECT_LE(relative_error(b.samples, ref), 1e-6);

  // A minimum-phase mask: sox centres it all the same (its output M/2 frames early against the
  // causal convolution halo gives it), and the export says so.
  const Result minimum = halo_ok({"design", "--lowpass", "3000", "--taps", "101", "--minimum-phase", "--format", "sox",
                                  "-o", path("sox_min.txt"), "-q"});
  EXPECT_NE(minimum.err.find("warning: " + path("sox_min.txt") + ": sox's fir removes 50 frames of delay"),
            std::string::npos)
      << minimum.err;
  ASSERT_EQ(run({"/usr/bin/sox", path("x.wav"), "-e", "floating-point", "-b", "32", path("y_sox_min.wav"), "fir",
                 path("sox_min.txt")})
                .exit_code,
            0);
  const std::vector<double> centred =
      expected_output(x.samples, 1, {text_taps(path("sox_min.txt"))}, Align::same, false);
  EXPECT_LE(relative_error(read_sound(path("y_sox_min.wav")).samples, centred), 1e-6);

  // An even length: sox removes (M-1)/2 rounded down, 63 of 128 taps, as halo centres one
  // (the warning had said M/2 = 64, a QA pass); the float64 convolution 63 frames early is
  // sox's output.
  const Result even = halo_ok({"design", "--bandpass", "1k:4k", "--taps", "128", "--minimum-phase", "--format", "sox",
                               "-o", path("sox_even.txt"), "-q"});
  EXPECT_NE(even.err.find("sox's fir removes 63 frames of delay"), std::string::npos) << even.err;
  ASSERT_EQ(run({"/usr/bin/sox", path("x.wav"), "-e", "floating-point", "-b", "32", path("y_sox_even.wav"), "fir",
                 path("sox_even.txt")})
                .exit_code,
            0);
  const std::vector<float> even_taps = text_taps(path("sox_even.txt"));
  ASSERT_EQ(even_taps.size(), 128u);
  const std::vector<double> full = expected_output(x.samples, 1, {even_taps}, Align::causal, true);  // all N + M - 1
  const std::vector<double> early(full.begin() + 63, full.begin() + 63 + static_cast<std::ptrdiff_t>(x.samples.size()));
  EXPECT_LE(relative_error(read_sound(path("y_sox_even.wav")).samples, early), 1e-6);
}

TEST_F(Exports, CamillaDspYamlHasTheDocumentedKeysAndItsRawFileHoldsTheMask) {
  const std::vector<float> taps = reference();
  halo_ok({"design", "--lowpass", "3000", "--taps", "101", "-o", path("lp.yml")});
  const YAML::Node config = YAML::LoadFile(path("lp.yml"));
  const YAML::Node filter = config["filters"]["lp"];
  ASSERT_TRUE(filter) << read_bytes(path("lp.yml"));
  EXPECT_EQ(filter["type"].as<std::string>(), "Conv");
  EXPECT_EQ(filter["parameters"]["type"].as<std::string>(), "Raw");
  EXPECT_EQ(filter["parameters"]["format"].as<std::string>(), "F32_LE");
  EXPECT_EQ(filter["parameters"]["filename"].as<std::string>(), "lp.f32");
  ASSERT_TRUE(config["pipeline"].IsSequence());
  EXPECT_EQ(config["pipeline"][0]["type"].as<std::string>(), "Filter");
  EXPECT_EQ(config["pipeline"][0]["names"][0].as<std::string>(), "lp");
  EXPECT_EQ(read_f32(path("lp.f32")), taps);
}

TEST_F(Exports, EqualizerApoConfigFollowsItsGrammarWithAPreampFromTheWorstCaseGain) {
  const std::vector<float> taps = reference();
  halo_ok({"design", "--lowpass", "3000", "--taps", "101", "--format", "eqapo", "-o", path("eq.txt")});
  // Every line a comment or "Command: parameters" (Equalizer APO's configuration reference).
  const std::regex preamp(R"(Preamp: (-?[0-9]+\.[0-9]+) dB)"), convolution(R"(Convolution: (\S+))");
  double preamp_db = 1;
  std::string wav;
  for (const std::string& line : lines_of(read_bytes(path("eq.txt")))) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch match;
    if (std::regex_match(line, match, preamp)) preamp_db = std::stod(match[1]);
    else if (std::regex_match(line, match, convolution)) wav = match[1];
    else ADD_FAILURE() << "not in the grammar: " << line;
  }
  double sum = 0;
  for (float tap : taps) sum += std::fabs(tap);
  ASSERT_GT(sum, 1.0);
  EXPECT_LE(preamp_db, -20 * std::log10(sum));          // enough headroom
  EXPECT_GE(preamp_db, -20 * std::log10(sum) - 0.011);  // and no more than the rounding
  ASSERT_EQ(wav, "eq.wav");
  const Sound ir = read_sound(path(wav));
  EXPECT_EQ(ir.rate_hz, 48000);
  EXPECT_EQ(ir.samples, taps);
}

// ir fix writes the exports design does, by --format too: Equalizer APO's config is a .txt,
// which the extension alone takes for a text mask (the README had promised eqapo from ir fix,
// which had no way to ask for it; a QA pass). Its WAV holds the IR, scaled as asked.
TEST_F(Exports, IrFixWritesEqualizerApoByFormat) {
  std::vector<float> ir = random_signal(200, 77, 0.2f);
  write_sound(path("room.wav"), ir, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  halo_ok({"ir", "fix", path("room.wav"), path("room-eq.txt"), "--format", "eqapo", "--normalize", "peak", "-q"});
  EXPECT_NE(read_bytes(path("room-eq.txt")).find("\nConvolution: room-eq.wav\n"), std::string::npos)
      << read_bytes(path("room-eq.txt"));
  double peak = 0;
  for (float tap : ir) peak = std::max(peak, static_cast<double>(std::fabs(tap)));
  const Sound fixed = read_sound(path("room-eq.wav"));
  ASSERT_EQ(fixed.samples.size(), ir.size());
  for (std::size_t i = 0; i < ir.size(); ++i) EXPECT_NEAR(fixed.samples[i], ir[i] / peak, 1e-6) << i;
  const Result bad = halo({"ir", "fix", path("room.wav"), path("x.txt"), "--format", "eqapoo"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "halo: --format eqapoo: give txt, f32, wav, json, h, camilladsp, eqapo or sox\n");
}

TEST_F(Exports, TheCHeaderCompilesAndItsArrayEqualsTheMask) {
  const std::vector<float> taps = reference();
  halo_ok({"design", "--lowpass", "3000", "--taps", "101", "-o", path("lp.h")});
  write_bytes(path("main.cpp"),
              "#include \"lp.h\"\n#include <cstdio>\nint main() { std::fwrite(lp, sizeof(float), lp_taps, stdout);"
              " return lp_rate_hz == 48000 && sizeof lp / sizeof lp[0] == 101 ? 0 : 1; }\n");
  const Result compile = run({"/usr/bin/c++", "-std=c++17", "-Wall", "-Werror", "-o", path("main"), path("main.cpp")});
  ASSERT_EQ(compile.exit_code, 0) << compile.err;
  RunOptions to_file;
  to_file.stdout_path = path("out.f32");
  ASSERT_EQ(run({path("main")}, to_file).exit_code, 0);
  EXPECT_EQ(read_f32(path("out.f32")), taps);  // bit for bit
}

// A header's name from any file name is an identifier C and C++ leave to the program: no
// "__", no leading '_' (ünï.h had given "__n__", now "n_"), no keyword, no leading digit: a
// program that names each expected identifier compiles against the header (GCC does not warn
// of reserved names, so the expected names are written out here).
TEST_F(Exports, AHeaderNamedAnyhowGivesAnIdentifierOfTheProgram) {
  const std::vector<std::pair<std::string, std::string>> names = {
      {"\xC3\xBCn\xC3\xAF.h", "n_"}, {"__lp.h", "lp"}, {"2x.h", "mask_2x"}, {"for.h", "mask_for"}, {"a--b.h", "a_b"},
      {"inline.h", "mask_inline"}, {"restrict.h", "mask_restrict"}, {"bool.h", "mask_bool"}, {"true.h", "mask_true"},
      {"constexpr.h", "mask_constexpr"}, {"and.h", "mask_and"}, {"main.h", "mask_main"}};
  for (const auto& [file, identifier] : names) {
    halo_ok({"design", "--lowpass", "3000", "--taps", "11", "-o", path(file)});
    write_bytes(path("use.cpp"), "#include \"" + file + "\"\nint main() { return sizeof " + identifier +
                                     " / sizeof " + identifier + "[0] == 11 ? 0 : 1; }\n");
    const Result compile = run({"/usr/bin/c++", "-std=c++17", "-Wall", "-Werror", "-o", path("use"), path("use.cpp")});
    ASSERT_EQ(compile.exit_code, 0) << file << ": " << compile.err;
    EXPECT_EQ(run({path("use")}).exit_code, 0) << file;
    // And as C (C11), which has keywords C++ has not (restrict).
    write_bytes(path("use.c"), "#include \"" + file + "\"\nint main(void) { return sizeof " + identifier +
                                   " / sizeof " + identifier + "[0] == 11 ? 0 : 1; }\n");
    const Result c = run({"/usr/bin/cc", "-std=c11", "-Wall", "-Werror", "-o", path("use_c"), path("use.c")});
    ASSERT_EQ(c.exit_code, 0) << file << ": " << c.err;
    EXPECT_EQ(run({path("use_c")}).exit_code, 0) << file;
  }
}

TEST_F(Exports, JsonAndHeaderReadBackThroughMask) {
  const std::vector<float> taps = reference();
  halo_ok({"design", "--lowpass", "3000", "--taps", "101", "-o", path("lp.json")});
  halo_ok({"design", "--lowpass", "3000", "--taps", "101", "-o", path("lp.h")});
  const nlohmann::json j = nlohmann::json::parse(read_bytes(path("lp.json")));
  EXPECT_EQ(j["rate_hz"].get<double>(), 48000);
  EXPECT_EQ(j["spec"]["cutoff_hz"].get<double>(), 3000);
  EXPECT_NEAR(j["measured"]["worst_case_gain"].get<double>(), [&] {
    double sum = 0;
    for (float tap : taps) sum += std::fabs(tap);
    return sum;
  }(), 1e-6);
  for (const std::string name : {"lp.json", "lp.h"}) {
    halo_ok({"design", "--mask", path(name), "-o", path(name + ".txt")});
    EXPECT_EQ(text_taps(path(name + ".txt")), taps) << name;
  }
  // filter reads them too, and the result is the filter of those taps.
  write_sound(path("x.wav"), random_signal(4000, 3, 0.4f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Sound x = read_sound(path("x.wav"));
  const std::vector<double> ref = expected_output(x.samples, 1, {taps}, Align::same, false);
  for (const std::string name : {"lp.json", "lp.h"}) {
    halo_ok({"filter", path("x.wav"), path("y.wav"), "--mask", path(name), "-q"});
    EXPECT_LE(relative_error(read_sound(path("y.wav")).samples, ref), 1e-6) << name;
  }
}

// json, h and sox are one text each: -o - writes it to standard output (they had been refused
// there), the report to standard error; the formats with companion files stay refused.
TEST_F(Exports, OneTextExportsGoToStandardOutput) {
  const std::vector<float> taps = reference();
  const std::vector<std::string> design = {"design", "--lowpass", "3000", "--taps", "101", "-o", "-"};
  const auto with_format = [&](const std::string& format) {
    std::vector<std::string> args = design;
    args.insert(args.end(), {"--format", format});
    return args;
  };
  const Result json = halo_ok(with_format("json"));
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["coefficients"].get<std::vector<float>>(), taps);
  EXPECT_EQ(j["rate_hz"].get<double>(), 48000);
  EXPECT_NE(json.err.find("stop band"), std::string::npos) << json.err;  // the report, on stderr
  write_bytes(path("sox.txt"), halo_ok(with_format("sox")).out);
  EXPECT_EQ(text_taps(path("sox.txt")), taps);
  write_bytes(path("piped.h"), halo_ok(with_format("h")).out);
  halo_ok({"design", "--mask", path("piped.h"), "-o", path("piped.txt")});
  EXPECT_EQ(text_taps(path("piped.txt")), taps);
  const DirectorySnapshot before(dir.path());
  for (const std::string format : {"camilladsp", "eqapo", "wav", "f32"})
    expect_one_line_failure(run(halo_args({"design", "--lowpass", "3000", "--taps", "101", "-o", "-", "--format", format})),
                            2, "give -o FILE", before, format + " to stdout");
}

// A text mask with no rate has none to export: JSON leaves "rate_hz" out and the header its
// NAME_rate_hz (both had said 0, which reads as a rate), and both read back without one.
TEST_F(Exports, AMaskWithoutARateExportsNone) {
  write_bytes(path("m.txt"), "0.25\n0.5\n-0.125\n");
  halo_ok({"design", "--mask", path("m.txt"), "-o", path("m.json")});
  halo_ok({"design", "--mask", path("m.txt"), "-o", path("m.h")});
  const nlohmann::json j = nlohmann::json::parse(read_bytes(path("m.json")));
  EXPECT_FALSE(j.contains("rate_hz")) << j.dump();
  EXPECT_EQ(j["coefficients"].get<std::vector<float>>(), (std::vector<float>{0.25f, 0.5f, -0.125f}));
  EXPECT_EQ(read_bytes(path("m.h")).find("rate_hz"), std::string::npos) << read_bytes(path("m.h"));
  for (const std::string name : {"m.json", "m.h"}) {
    // At a file's rate, as a text mask is: a 3-tap mask on a 44.1 kHz file with no rate warning.
    write_sound(path("x.wav"), random_signal(500, 5, 0.4f), 1, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
    const Result filtered = halo_ok({"filter", path("x.wav"), path("y.wav"), "--mask", path(name), "-q"});
    EXPECT_EQ(filtered.err, "") << name;
    const std::vector<double> ref = expected_output(read_sound(path("x.wav")).samples, 1,
                                                    {{0.25f, 0.5f, -0.125f}}, Align::same, false);
    EXPECT_LE(relative_error(read_sound(path("y.wav")).samples, ref), 1e-6) << name;
  }
}

// Converted with --rate, a mask that says no rate is at that rate in every export (a WAV had
// been 48000 Hz, JSON, the header and text had carried none; a QA pass). Checked by soundfile.
TEST_F(Exports, AMaskWithoutARateGivenOneByRateCarriesIt) {
  write_bytes(path("m.txt"), "0.25\n0.5\n-0.125\n");
  for (const std::string name : {"r.wav", "r.json", "r.h", "r.txt"})
    halo_ok({"design", "--mask", path("m.txt"), "--rate", "44100", "-o", path(name)});
  const Result wav = python(dir.path(), "import soundfile as sf; print(sf.info('r.wav').samplerate)");
  EXPECT_EQ(wav.out, "44100\n") << wav.err;
  EXPECT_EQ(nlohmann::json::parse(read_bytes(path("r.json")))["rate_hz"].get<double>(), 44100);
  EXPECT_NE(read_bytes(path("r.h")).find("_rate_hz = 44100"), std::string::npos) << read_bytes(path("r.h"));
  EXPECT_NE(read_bytes(path("r.txt")).find("# rate 44100 Hz"), std::string::npos) << read_bytes(path("r.txt"));
}

// A header or JSON whose declared sizes its lists do not fill is refused: `float h[5] = {four}`
// is five taps to a compiler, the last 0, and halo had read four, centring the mask a frame
// early; JSON's "taps" and "channels" had been ignored (a QA pass). Sizes that agree, an empty
// `[]` and a size that is not a number written out (a macro) read as before.
TEST_F(Exports, DeclaredSizesThatTheListsDoNotFillAreRefused) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"short.h", "static const float h1[5] = { 0.1f, 0.2f, 0.3f, 0.4f };\n"},
      {"taps.h", "static const unsigned h1_taps = 5;\nstatic const float h1[] = { 0.1f, 0.2f, 0.3f, 0.4f };\n"},
      {"lists.h", "static const float h[3][2] = { {0.1f, 0.2f}, {0.3f, 0.4f} };\n"},
      {"wide.h", "static const float h[2][3] = { {0.1f, 0.2f}, {0.3f, 0.4f} };\n"},
      {"channels.h", "static const unsigned h_channels = 3;\nstatic const float h[][2] = { {0.1f, 0.2f}, {0.3f, 0.4f} };\n"},
      {"taps.json", R"({"format": "halo-mask", "version": 1, "taps": 4, "coefficients": [0.25, 0.5, 0.25]})"},
      {"channels.json", R"({"format": "halo-mask", "version": 1, "channels": 2, "coefficients": [0.25, 0.5, 0.25]})"},
      {"flat.h", "static const float h[2][3] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f};\n"}};
  const std::vector<std::string> says = {"h1[5] declares 5 coefficients, the list holds 4",
                                         "h1_taps = 5, the list holds 4 coefficients",
                                         "h[3][2] declares 3 lists, there are 2",
                                         "h[2][3] declares 3 coefficients a list, the lists hold 2",
                                         "h_channels = 3, the lists hold 2 lists",
                                         "\"taps\" says 4, the coefficients are 3 a channel",
                                         "\"channels\" says 2, the coefficients are 1 channel",
                                         "h[2][3] declares 6 coefficients, the list holds 5"};
  for (const auto& [name, text] : refused) write_bytes(path(name), text);
  write_sound(path("in.wav"), random_signal(1000, 79, 0.3f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const DirectorySnapshot before(dir.path());
  for (std::size_t i = 0; i < refused.size(); ++i)
    expect_one_line_failure(halo({"filter", path("in.wav"), path("out.wav"), "--mask", path(refused[i].first)}), 1,
                            refused[i].first + ": " + says[i], before, refused[i].first);
  // An expression or an octal number is not read as a size (a review: `2 * 2` had been read
  // as 2, and [010] as 10, where a compiler gives 4 and 8).
  for (const std::string text : {"static const unsigned h_taps = 2;\nstatic const float h[2][2] = { {0.1f, 0.2f}, {0.3f, 0.4f} };\n",
                                 "#define N 2\nstatic const float h[][N] = { {0.1f, 0.2f}, {0.3f, 0.4f} };\n",
                                 "static const unsigned h_taps = 2 * 1;\nstatic const float h[2][2] = { {0.1f, 0.2f}, {0.3f, 0.4f} };\n",
                                 "static const float h[02][2] = { {0.1f, 0.2f}, {0.3f, 0.4f} };\n"}) {
    write_bytes(path("fine.h"), text);
    halo_ok({"filter", path("in.wav"), path("out.wav"), "--mask", path("fine.h"), "-q"});
  }
  // A flat list under two sizes is as many masks as the first says (braces may be left out):
  // each channel filtered by its own three taps, as the nested form filters it.
  write_bytes(path("flat.h"), "static const float h[2][3] = {0.5f, 0.25f, 0.125f, -0.5f, 0.0625f, 0.75f};\n");
  write_bytes(path("nested.h"), "static const float h[][3] = {{0.5f, 0.25f, 0.125f}, {-0.5f, 0.0625f, 0.75f}};\n");
  halo_ok({"filter", path("in.wav"), path("flat.wav"), "--mask", path("flat.h"), "-q"});
  halo_ok({"filter", path("in.wav"), path("nested.wav"), "--mask", path("nested.h"), "-q"});
  EXPECT_EQ(read_sound(path("flat.wav")).samples, read_sound(path("nested.wav")).samples);
}

TEST_F(Exports, BadMaskFilesAndNamesAreOneLineAndWriteNothing) {
  write_bytes(path("nan.json"), "{\"coefficients\": [0.5, NaN]}");
  write_bytes(path("nan.h"), "static const float m[] = {0.5f, nanf};\n");
  write_bytes(path("ragged.json"), "{\"coefficients\": [[1, 2], [3]]}");
  const DirectorySnapshot before(dir.path());
  for (const std::string name : {"nan.json", "nan.h", "ragged.json"}) {
    const auto args = halo_args({"design", "--mask", path(name), "-o", path("out.txt")});
    expect_one_line_failure(run(args), 1, name, before, name);
  }
  // A --format that contradicts -o's name is a usage error; a folder that is not there is the file's.
  expect_one_line_failure(halo({"design", "--lowpass", "1k", "--format", "camilladsp", "-o", path("x.txt")}), 2,
                          "name it .yml", before, "camilladsp to .txt");
  expect_one_line_failure(halo({"design", "--lowpass", "1k", "--format", "camilladsp", "-o", path("x.camilladsp")}), 2,
                          "name it .yml", before, "camilladsp to .camilladsp");
  expect_one_line_failure(halo({"design", "--lowpass", "1k", "--format", "camilladsp", "-o", path("no/x.yml")}), 1,
                          "no", before, "camilladsp into a missing folder");
  expect_one_line_failure(halo({"design", "--lowpass", "1k", "--format", "nope", "-o", path("x.txt")}), 2, "--format",
                          before, "unknown format");
  expect_one_line_failure(halo({"design", "--lowpass", "1k", "--plot", path("x.png")}), 2, ".svg", before, "png plot");
  // A folder as -o is refused before the design's work, as filter refuses it (it had been said
  // after a design search of 7 s, a QA pass).
  mkdir(path("folder.txt").c_str(), 0755);
  const DirectorySnapshot with_folder(dir.path());
  expect_one_line_failure(halo({"design", "--lowpass", "1k", "-o", path("folder.txt")}), 1, "a folder, not a file name",
                          with_folder, "a folder as -o");
  expect_one_line_failure(halo({"ir", "fix", path("nan.json"), path("folder.txt")}), 1, "a folder, not a file name",
                          with_folder, "a folder as ir fix's OUT");
}

// A config's coefficient file replaces no file that was not that config's: `--format eqapo -o
// song.txt` had replaced song.wav, a recording, and `ir fix IR out.yml` an out.wav, naming only
// the config (a QA pass). A re-run of the same export (the config there names its file)
// replaces both, and the summary names every file written.
TEST_F(Exports, ACoefficientFileReplacesNoFileTheConfigDoesNotName) {
  write_bytes(path("song.wav"), "my recording");
  write_bytes(path("lp.f32"), "precious");
  const DirectorySnapshot before(dir.path());
  expect_one_line_failure(halo({"design", "--lowpass", "3k", "--taps", "101", "--format", "eqapo", "-o", path("song.txt")}), 1,
                          "song.wav exists, and this export would replace it", before, "eqapo beside a recording");
  expect_one_line_failure(halo({"design", "--lowpass", "3k", "--taps", "101", "-o", path("lp.yml")}), 1,
                          "lp.f32 exists, and this export would replace it", before, "camilladsp beside a raw file");
  write_sound(path("room.wav"), random_signal(2000, 5, 0.3f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_bytes(path("out.wav"), "keep me");
  const DirectorySnapshot with_room(dir.path());
  expect_one_line_failure(halo({"ir", "fix", path("room.wav"), path("out.yml")}), 1, "out.wav exists", with_room,
                          "ir fix to a config beside a file");
  // The same export again replaces both, and says so.
  const Result first = halo_ok({"design", "--lowpass", "3k", "--taps", "101", "-o", path("re.yml")});
  EXPECT_NE(first.out.find("written:    " + path("re.yml") + ", " + path("re.f32")), std::string::npos) << first.out;
  const Result again = halo_ok({"design", "--lowpass", "2k", "--taps", "101", "-o", path("re.yml")});
  EXPECT_NE(again.out.find("written:    " + path("re.yml") + ", " + path("re.f32")), std::string::npos) << again.out;
}

// The design plot: XML, three panels, and a magnitude curve whose points are the response.
TEST_F(Exports, ThePlotParsesAndItsMagnitudeCurveIsTheResponse) {
  const std::vector<float> taps = reference();
  halo_ok({"design", "--lowpass", "3000", "--taps", "101", "--plot", path("lp.svg"), "-o", path("lp2.txt")});
  // Python's XML parser (expat) as the independent reader: every panel's mapping and every
  // point of its curves, mapped back to values.
  const Result points = python(dir.path(), R"(
import xml.etree.ElementTree as ET, math
ns = {'s': 'http://www.w3.org/2000/svg'}
root = ET.parse('lp.svg').getroot()
panels = root.findall('.//s:g[@class="panel"]', ns)
assert [p.get('id') for p in panels] == ['magnitude', 'group-delay', 'impulse'], [p.get('id') for p in panels]
for p in panels:
    left, top, w, h = (float(p.get('data-' + k)) for k in ('left', 'top', 'width', 'height'))
    x0, x1, y0, y1 = (float(p.get('data-' + k)) for k in ('x-min', 'x-max', 'y-min', 'y-max'))
    curves = p.findall('.//s:polyline[@class="curve"]', ns)
    assert curves, p.get('id')
    for c in curves:
        pts = [tuple(map(float, xy.split(','))) for xy in c.get('points').split()]
        assert len(pts) > 100, (p.get('id'), len(pts))
        for px, py in pts:
            if top <= py <= top + h:
                print(p.get('id'), x0 + (px - left) / w * (x1 - x0), y1 - (py - top) / h * (y1 - y0))
)");
  ASSERT_EQ(points.exit_code, 0) << points.err;
  int checked = 0;
  double worst = 0;
  for (const std::string& line : lines_of(points.out)) {
    std::istringstream in(line);
    std::string panel;
    double x = 0, y = 0;
    in >> panel >> x >> y;
    if (panel == "magnitude" && y > -60) {  // away from the nulls, where a hundredth of a pixel is many dB
      worst = std::max(worst, std::fabs(y - magnitude_db(taps, x, 48000)));
      ++checked;
    }
    if (panel == "group-delay") {
      EXPECT_NEAR(y, 50.0 / 48.0, 1e-3) << line;  // (M-1)/2 samples, in ms
    }
  }
  EXPECT_GT(checked, 200);
  EXPECT_LT(worst, 0.05);
}

// ---------------------------------------------------------------- ir inspect, info --json, --ir-rate

std::string ir_data(const std::string& name) { return std::string(HALO_TEST_DATA) + "/ir/" + name; }

TEST(IrInspect, FiguresMatchNumpyAndTheKnownDecay) {
  const Result result = halo_ok({"ir", "inspect", ir_data("decay_t60_0.5.wav"), "--json"});
  const nlohmann::json j = nlohmann::json::parse(result.out);
  EXPECT_EQ(j["rate_hz"].get<double>(), 48000);
  ASSERT_EQ(j["channel"].size(), 2u);
  std::istringstream golden(read_bytes(ir_data("decay_t60_0.5.txt")));
  int compared = 0;
  for (std::string line; std::getline(golden, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::size_t channel = 0;
    std::string key;
    double value = 0;
    in >> channel >> key >> value;
    const double got = j["channel"][channel - 1][key].get<double>();
    // The fits: a range edge may fall one sample apart where both sums round differently at
    // exactly 0 dB (EDT's upper end), which moves the slope by a few parts in a million.
    const double relative = key.size() > 2 && key.compare(key.size() - 2, 2, "_s") == 0 ? 1e-4 : 1e-6;
    EXPECT_NEAR(got, value, relative * std::max(1.0, std::fabs(value))) << line;
    ++compared;
  }
  EXPECT_EQ(compared, 18);
  // The decay was made with T60 = 0.5 s.
  for (const auto& channel : j["channel"]) EXPECT_NEAR(channel["t30_s"].get<double>(), 0.5, 0.025);
}

TEST(IrInspect, PlotHoldsTheDecayCurve) {
  TempDir dir;
  halo_ok({"ir", "inspect", ir_data("decay_t60_0.5.wav"), "--plot", dir.path() + "/ir.svg"});
  const Result check = python(dir.path(), R"(
import xml.etree.ElementTree as ET
ns = {'s': 'http://www.w3.org/2000/svg'}
root = ET.parse('ir.svg').getroot()
ids = [p.get('id') for p in root.findall('.//s:g[@class="panel"]', ns)]
assert ids == ['impulse', 'decay', 'magnitude'], ids
decay = root.find('.//s:g[@id="decay"]', ns)
assert len(decay.findall('.//s:polyline[@class="curve"]', ns)) == 2
assert len(decay.findall('.//s:line[@class="fit"]', ns)) == 2
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// An IR with a noise floor: the decay is cut where it meets the noise, and its own tail added
// (Lundeby), so EDT, T20 and T30 stay at the decay's T60 (0.5 s by construction) where the decay
// clears the noise by their range and 10 dB more (20, 35 and 45 dB, ISO 3382-1), and are null
// where it does not; the noise is said at its level (the noise added is -60, -50 and -40 dBFS
// mean square, under a decay whose peak is 0 dBFS). Plain backward integration to the file's end
// had given T30 1.78 s at -60 dBFS of noise and 7.56 s at -50 (a QA pass).
TEST(IrInspect, ANoiseFloorNeitherLengthensTheDecayNorPassesForIt) {
  TempDir dir;
  const Result made = python(dir.path(), R"(
import numpy as np, soundfile as sf
rate = 48000
t = np.arange(2 * rate) / rate
rng = np.random.default_rng(7)
for floor in (60, 50, 40):
    h = rng.standard_normal(t.size) * 10 ** (-3 * t / 0.5)
    h /= np.abs(h).max()
    h += rng.standard_normal(t.size) * 10 ** (-floor / 20)
    sf.write('noise%d.wav' % floor, h, rate, subtype='FLOAT')
    if floor == 60:  # and padded with exact zeros, as a power-of-two length or a shift leaves it
        sf.write('padded60.wav', np.concatenate([h, np.zeros(rate // 2)]), rate, subtype='FLOAT')
sf.write('hiss.wav', 0.01 * rng.standard_normal(rate), rate, subtype='FLOAT')  # no decay at all
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  struct Case {
    int floor_db;
    bool t20, t30;  // whether the decay clears the noise by 35 and 45 dB
  };
  for (const Case& c : {Case{60, true, true}, Case{50, true, false}, Case{40, false, false}}) {
    const std::string file = dir.path() + "/noise" + std::to_string(c.floor_db) + ".wav";
    const nlohmann::json j = nlohmann::json::parse(halo_ok({"ir", "inspect", file, "--json"}).out)["channel"][0];
    EXPECT_NEAR(j["noise_dbfs"].get<double>(), -c.floor_db, 0.5) << file;
    EXPECT_NEAR(j["edt_s"].get<double>(), 0.5, 0.04) << file;
    if (c.t20)
      EXPECT_NEAR(j["t20_s"].get<double>(), 0.5, 0.03) << file;
    else
      EXPECT_TRUE(j["t20_s"].is_null()) << file << ": " << j["t20_s"];
    if (c.t30)
      EXPECT_NEAR(j["t30_s"].get<double>(), 0.5, 0.03) << file;
    else
      EXPECT_TRUE(j["t30_s"].is_null()) << file << ": " << j["t30_s"];
  }
  // Zeros after the noise are no noise: the decay is cut where it meets the noise before them
  // (they had hidden it: a review).
  const nlohmann::json padded = nlohmann::json::parse(halo_ok({"ir", "inspect", dir / "padded60.wav", "--json"}).out)["channel"][0];
  EXPECT_NEAR(padded["noise_dbfs"].get<double>(), -60, 0.5);
  EXPECT_NEAR(padded["t30_s"].get<double>(), 0.5, 0.03);
  // Noise alone has no decay: no figure (its Schroeder curve had given one).
  const nlohmann::json hiss = nlohmann::json::parse(halo_ok({"ir", "inspect", dir / "hiss.wav", "--json"}).out)["channel"][0];
  for (const char* figure : {"edt_s", "t20_s", "t30_s"}) EXPECT_TRUE(hiss[figure].is_null()) << figure << ": " << hiss[figure];
  EXPECT_NE(halo_ok({"ir", "inspect", dir / "hiss.wav"}).out.find("with no decay above it to measure"), std::string::npos);
  EXPECT_TRUE(hiss["decay_end_s"].is_null() && hiss["decay_depth_db"].is_null()) << hiss;
  const std::string said = halo_ok({"ir", "inspect", dir.path() + "/noise50.wav"}).out;
  EXPECT_NE(said.find("  noise:           -50.0 dBFS; the decay meets it "), std::string::npos) << said;
  EXPECT_NE(said.find(" dB down (T30 needs 45)\n"), std::string::npos) << said;
}

TEST(IrFix, RemovesTheDelayAndNormalizesThePeak) {
  TempDir dir;
  const std::string out = dir.path() + "/fixed.wav";
  halo_ok({"ir", "fix", ir_data("decay_t60_0.5.wav"), out, "--remove-delay", "--normalize", "-6", "-q"});
  const Sound in = read_sound(ir_data("decay_t60_0.5.wav")), fixed = read_sound(out);
  ASSERT_EQ(fixed.channels, 2);
  ASSERT_EQ(fixed.frames, in.frames - 480);  // the earlier onset: channel 1's, frame 480
  double peak = 0, in_peak = 0;
  for (float v : fixed.samples) peak = std::max(peak, static_cast<double>(std::fabs(v)));
  for (float v : in.samples) in_peak = std::max(in_peak, static_cast<double>(std::fabs(v)));
  EXPECT_NEAR(20 * std::log10(peak), -6, 1e-5);
  for (std::size_t i = 0; i < fixed.samples.size(); ++i)
    ASSERT_NEAR(fixed.samples[i], in.samples[i + 480 * 2] * peak / in_peak, 1e-6) << i;
}

// A silent channel has no peak and no onset: inspect says so (it had given frame 0 for both,
// null in JSON), and --remove-delay takes the onset of the channels that have one (the silent
// channel's frame 0 had kept every frame; a QA pass).
TEST(IrFix, ASilentChannelHasNoOnset) {
  TempDir dir;
  std::vector<float> ir(2 * 2000, 0.0f);
  const std::vector<float> tail = random_signal(1000, 67, 0.5f);
  for (std::size_t f = 0; f < tail.size(); ++f) ir[2 * (300 + f)] = tail[f] * std::exp(-static_cast<float>(f) / 200);
  ir[2 * 300] = 0.9f;  // the peak, and the onset, at frame 300 of channel 1; channel 2 is silent
  write_sound(dir / "ir.wav", ir, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Result inspected = halo({"ir", "inspect", dir / "ir.wav"});
  ASSERT_EQ(inspected.exit_code, 0) << inspected.err;
  EXPECT_NE(inspected.out.find("at frame 300"), std::string::npos) << inspected.out;
  EXPECT_NE(inspected.out.find("peak:            none: the channel is silent"), std::string::npos) << inspected.out;
  const nlohmann::json j = nlohmann::json::parse(halo({"ir", "inspect", dir / "ir.wav", "--json"}).out);
  EXPECT_EQ(j["channel"][0]["onset_index"], 300);
  EXPECT_TRUE(j["channel"][1]["onset_index"].is_null());
  EXPECT_TRUE(j["channel"][1]["peak_index"].is_null());
  halo_ok({"ir", "fix", dir / "ir.wav", dir / "fixed.wav", "--remove-delay", "-q"});
  const Sound fixed = read_sound(dir / "fixed.wav");
  ASSERT_EQ(fixed.frames, 2000u - 300u);
  for (std::size_t i = 0; i < fixed.samples.size(); ++i) ASSERT_EQ(fixed.samples[i], ir[i + 2 * 300]) << i;

  // --minimum-phase keeps the silent channel silent and the other's magnitude (numpy's FFT of
  // both files); it had refused the whole file as "a mask of zeros" (a QA pass).
  halo_ok({"ir", "fix", dir / "ir.wav", dir / "minimum.wav", "--minimum-phase", "-q"});
  const Result check = python(dir.path(), R"(
import numpy as np, soundfile as sf
x, _ = sf.read('ir.wav'); y, _ = sf.read('minimum.wav')
assert y.shape == x.shape, y.shape
assert not y[:, 1].any()
a, b = np.abs(np.fft.rfft(x[:, 0], 1 << 16)), np.abs(np.fft.rfft(y[:, 0], 1 << 16))
keep = a > a.max() * 1e-3
assert np.max(np.abs(20 * np.log10(b[keep] / a[keep]))) < 0.01, np.max(np.abs(20 * np.log10(b[keep] / a[keep])))
assert np.argmax(np.abs(y[:, 0])) < 300  # energy first: no longer the pre-delay's 300 frames
)");
  EXPECT_EQ(check.exit_code, 0) << check.err << check.out;
}

// --rate keeps a causal IR's start: one tap at frame 100 of 48 kHz lies at frame 200 of 96 kHz
// and 50 of 24 kHz, the band-limited impulse symmetric about it. A sound file does not say it
// is causal, and it had been resampled as a centred mask, its peak half a new frame late at
// 96 kHz, a quarter early at 24 kHz, though OUT said it starts at its first tap (a QA pass).
TEST(IrFix, ResamplingKeepsACausalImpulseResponsesStart) {
  TempDir dir;
  std::vector<float> ir(1000, 0.0f);
  ir[100] = 0.5f;
  write_sound(dir / "delta.wav", ir, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  for (const auto& [rate, at] : std::vector<std::pair<int, std::size_t>>{{96000, 200}, {24000, 50}, {192000, 400}}) {
    const std::string out = dir / ("d" + std::to_string(rate) + ".wav");
    halo_ok({"ir", "fix", dir / "delta.wav", out, "--rate", std::to_string(rate), "-q"});
    const std::vector<float> taps = read_sound(out).samples;
    const auto peak = std::max_element(taps.begin(), taps.end(), [](float a, float b) { return std::fabs(a) < std::fabs(b); });
    ASSERT_EQ(static_cast<std::size_t>(peak - taps.begin()), at) << rate << " Hz";
    for (std::size_t k = 1; k <= 10; ++k)
      EXPECT_NEAR(taps[at - k], taps[at + k], 1e-4 * std::fabs(*peak)) << rate << " Hz, " << k << " frames from the peak";
  }
}

// --minimum-phase makes each channel start at its first tap; the channels keep their onsets'
// spacing (a stereo IR's channels 200 frames apart had come out together, a QA pass), and each
// its magnitude (numpy's FFT of both files).
TEST(IrFix, MinimumPhaseKeepsTheChannelsOnsetSpacing) {
  TempDir dir;
  const Result made = python(dir.path(), R"(
import numpy as np, soundfile as sf
rate = 48000
rng = np.random.default_rng(3)
def decay(pre, t60):
    t = np.arange(rate - pre) / rate
    return np.concatenate([np.zeros(pre), rng.standard_normal(rate - pre) * 10 ** (-3 * t / t60)])
h = np.stack([decay(100, 0.1), decay(300, 0.15)], 1)
sf.write('st.wav', 0.5 * h / np.abs(h).max(), rate, subtype='FLOAT')
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  halo_ok({"ir", "fix", dir / "st.wav", dir / "mp.wav", "--minimum-phase", "-q"});
  const Result check = python(dir.path(), R"(
import numpy as np, soundfile as sf
x, _ = sf.read('st.wav'); y, _ = sf.read('mp.wav')
onset = lambda v: int(np.nonzero(np.abs(v) >= 0.1 * np.abs(v).max())[0][0])
spacing_in = onset(x[:, 1]) - onset(x[:, 0])
spacing_out = onset(y[:, 1]) - onset(y[:, 0])
assert abs(spacing_out - spacing_in) <= 3, (spacing_in, spacing_out)
assert onset(y[:, 0]) <= 3, onset(y[:, 0])
assert y.shape[0] == x.shape[0] + spacing_in, (y.shape, spacing_in)
for c in range(2):
    a, b = np.abs(np.fft.rfft(x[:, c], 1 << 17)), np.abs(np.fft.rfft(y[:, c], 1 << 17))
    keep = a > a.max() * 1e-3
    err = np.max(np.abs(20 * np.log10(b[keep] / a[keep])))
    assert err < 0.01, (c, err)
)");
  EXPECT_EQ(check.exit_code, 0) << check.err << check.out;
}

// --minimum-phase keeps each channel's polarity: an inverted channel (one the negative of the
// other) had come out upright, as every minimum phase starts positive (a QA pass).
TEST(IrFix, MinimumPhaseKeepsEachChannelsPolarity) {
  TempDir dir;
  std::vector<float> ir(2 * 2400, 0.0f);
  const std::vector<float> tail = random_signal(2400, 91, 0.02f);
  for (std::size_t f = 0; f < 2400; ++f) {
    const float h = (f == 0 ? 0.8f : 0.0f) + (f >= 20 ? tail[f] * std::exp(-static_cast<float>(f) / 480) : 0.0f);
    ir[2 * f] = h;
    ir[2 * f + 1] = -h;
  }
  write_sound(dir / "pol.wav", ir, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  halo_ok({"ir", "fix", dir / "pol.wav", dir / "mp.wav", "--minimum-phase", "-q"});
  const Sound out = read_sound(dir / "mp.wav");
  ASSERT_EQ(out.channels, 2);
  EXPECT_GT(out.samples[0], 0.5f);
  for (std::size_t f = 0; f < out.frames; ++f)
    ASSERT_NEAR(out.samples[2 * f + 1], -out.samples[2 * f], 1e-6) << "frame " << f;
}

// --rate of a causal IR whose direct sound is at frame 0 says that its ring before its start is
// cut (it had lost 2.6 dB of its response without a word, a QA pass); one 100 frames in, nothing.
// A sound file's header holds whole Hz: 44100.5 is refused for one (it had been written as 44101).
TEST(IrFix, ResamplingSaysTheRingItCutsAndRefusesAFractionalRateForASoundFile) {
  TempDir dir;
  for (const std::size_t at : {0u, 100u}) {
    std::vector<float> ir(480, 0.0f);
    ir[at] = 0.5f;
    write_sound(dir / "d.wav", ir, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
    const Result run = halo({"ir", "fix", dir / "d.wav", dir / "d96.wav", "--rate", "96000", "-q"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err.find("ring before its start") != std::string::npos, at == 0) << "a tap at frame " << at << ": " << run.err;
  }
  const Result fractional = halo({"ir", "fix", dir / "d.wav", dir / "d441.wav", "--rate", "44100.5", "-q"});
  EXPECT_EQ(fractional.exit_code, 1);
  EXPECT_NE(fractional.err.find("a sound file's header holds a whole number of Hz, not 44100.5"), std::string::npos)
      << fractional.err;
  EXPECT_FALSE(file_exists(dir / "d441.wav"));
  halo_ok({"ir", "fix", dir / "d.wav", dir / "d441.txt", "--rate", "44100.5", "-q"});
  EXPECT_NE(read_bytes(dir / "d441.txt").find("# rate 44100.5"), std::string::npos);
  // A short option's value after `=` is refused, not written as a file named "=m.txt".
  const Result equals = halo({"design", "--lowpass", "1k", "--taps", "11", "-o=" + std::string(dir / "m.txt"), "-q"});
  EXPECT_EQ(equals.exit_code, 2) << equals.err;
  EXPECT_NE(equals.err.find("a short option takes its value after a space"), std::string::npos) << equals.err;
  // A headerless file named so is told how halo reads one.
  write_bytes(dir / "x.raw", std::string(1000, '\x11'));
  const Result raw = halo({"filter", dir / "x.raw", dir / "o.wav", "--lowpass", "1k"});
  EXPECT_EQ(raw.exit_code, 1);
  EXPECT_NE(raw.err.find("read a headerless file given -t raw"), std::string::npos) << raw.err;
}

// A text IR without a "# rate" line: each command names its own option for the input's rate
// (ir fix's --rate resamples; it had been named, and then failed the same way).
TEST(IrRate, AFileWithoutARateNamesTheOptionThatGivesIt) {
  TempDir dir;
  write_bytes(dir.path() + "/t.txt", "0\n1\n0.5\n");
  const Result fix = halo({"ir", "fix", dir.path() + "/t.txt", dir.path() + "/o.wav", "--normalize", "peak"});
  EXPECT_EQ(fix.exit_code, 2);
  EXPECT_NE(fix.err.find("does not say its sample rate: give --in-rate HZ"), std::string::npos) << fix.err;
  const Result inspect = halo({"ir", "inspect", dir.path() + "/t.txt"});
  EXPECT_EQ(inspect.exit_code, 2);
  EXPECT_NE(inspect.err.find("does not say its sample rate: give --rate HZ"), std::string::npos) << inspect.err;
  halo_ok({"ir", "fix", dir.path() + "/t.txt", dir.path() + "/o.wav", "--normalize", "peak", "--in-rate", "8000", "-q"});
  EXPECT_EQ(read_sound(dir.path() + "/o.wav").rate_hz, 8000);
}

// ... and a file that says its rate keeps it: --in-rate and inspect's --rate do not overwrite
// it (a 48 kHz WAV had been written as 22050 Hz), a rate past 10 MHz is named as such, a second
// FILE to inspect is called that, and an IR of zeros has no minimum phase, in words.
TEST(IrRate, ARateTheFileSaysIsNotOverwritten) {
  TempDir dir;
  const std::string wav = ir_data("decay_t60_0.5.wav"), out = dir.path() + "/o.wav";
  for (const auto& [args, words] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"ir", "fix", wav, out, "--in-rate", "22050"}, "--in-rate: " + wav + " says its rate, 48000 Hz"},
           {{"ir", "inspect", wav, "--rate", "22050"}, "--rate: " + wav + " says its rate, 48000 Hz"},
           {{"ir", "fix", wav, out, "--rate", "2e7"}, "--rate 2e7: give a sample rate above 0 Hz, up to 10 MHz"},
           {{"design", "--lowpass", "1k", "--rate", "2e7"}, "--rate 2e7: give a sample rate above 0 Hz, up to 10 MHz"},
           {{"ir", "inspect", wav, wav}, "ir inspect takes one FILE: '" + wav + "' is a second file name"},
           // A word --normalize does not know names the words it does (it had said "not a number").
           {{"ir", "fix", wav, out, "--normalize", "peek"}, "--normalize peek: give peak, energy or a peak level in dBFS in [-200, 0]"}}) {
    std::vector<std::string> command = {HALO_BINARY};
    command.insert(command.end(), args.begin(), args.end());
    const Result result = run(command);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(result.err.rfind("halo: " + words, 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_FALSE(file_exists(out));
  }
  halo_ok({"ir", "fix", wav, out, "--in-rate", "48000", "-q"});  // the rate it says: no contradiction
  write_sound(dir.path() + "/zeros.wav", std::vector<float>(64, 0.0f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Result zeros = halo({"ir", "fix", dir.path() + "/zeros.wav", dir.path() + "/z.wav", "--minimum-phase"});
  EXPECT_EQ(zeros.exit_code, 1);
  EXPECT_EQ(zeros.err, "halo: " + dir.path() + "/zeros.wav: a mask of zeros has no minimum phase\n");
}

// `ir fix --minimum-phase` makes an IR that starts at its first tap, and its OUT says so, as a
// minimum-phase design's does: read back with --mask it is aligned causally (it was centred,
// the output (M-1)/2 frames early).
TEST(IrFix, AMinimumPhaseOutputIsCausalReadBack) {
  TempDir dir;
  const std::string lin = dir.path() + "/lin.txt", fixed = dir.path() + "/fixed.txt";
  halo_ok({"design", "--lowpass", "2k", "--taps", "63", "-o", lin, "-q"});  // "# rate 48000 Hz"
  halo_ok({"ir", "fix", lin, fixed, "--minimum-phase", "-q"});
  EXPECT_NE(read_bytes(fixed).find("\n# align causal\n"), std::string::npos) << read_bytes(fixed);
  write_sound(dir.path() + "/x.wav", random_signal(4000, 31, 0.4f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  expect_filtered_by_its_taps(dir.path() + "/x.wav", fixed, Align::causal);
}

// ir fix of a linear-phase mask (symmetric taps, centred when read with --mask) that no step
// moves in time keeps it centred: a mere --normalize had marked OUT causal, and filter's output
// with it came (M-1)/2 frames late against the mask's own (a QA pass). Made minimum phase, it is
// causal. Checked against the plain convolution of the taps each file holds.
TEST(IrFix, ALinearPhaseMaskStaysCentred) {
  TempDir dir;
  const std::string lp = dir.path() + "/lp.json", scaled = dir.path() + "/scaled.txt";
  halo_ok({"design", "--lowpass", "3k", "--taps", "101", "-o", lp, "-q"});
  halo_ok({"ir", "fix", lp, scaled, "--normalize", "-6", "-q"});
  EXPECT_EQ(read_bytes(scaled).find("# align causal"), std::string::npos) << read_bytes(scaled);
  write_sound(dir.path() + "/x.wav", random_signal(4000, 79, 0.4f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  expect_filtered_by_its_taps(dir.path() + "/x.wav", scaled, Align::same);
  halo_ok({"ir", "fix", lp, dir.path() + "/minimum.txt", "--minimum-phase", "-q"});
  EXPECT_NE(read_bytes(dir.path() + "/minimum.txt").find("\n# align causal\n"), std::string::npos);
  // --trim-silence cuts a symmetric mask's ends alike: still centred (a review: a Blackman
  // design's zero end taps trimmed had been marked causal, the output 49 frames late).
  const std::string blackman = dir.path() + "/bm.txt", trimmed = dir.path() + "/trimmed.txt";
  halo_ok({"design", "--lowpass", "3k", "--taps", "101", "--window", "blackman", "-o", blackman, "-q"});
  halo_ok({"ir", "fix", blackman, trimmed, "--trim-silence", "-q"});
  ASSERT_LT(text_taps(trimmed).size(), 101u) << "the end taps are below -120 dB";
  EXPECT_EQ(read_bytes(trimmed).find("# align causal"), std::string::npos) << read_bytes(trimmed);
  expect_filtered_by_its_taps(dir.path() + "/x.wav", trimmed, Align::same);
}

// A mask ir fix keeps centred says so in its file, and ir fix and filter read it back centred
// whatever a step did to its symmetry: faded, a 255-tap low-pass had been written without an
// alignment, read back by a second `ir fix` as an impulse response (causal), and filter's output
// with it came 127 frames later than with the first (a QA pass). Each form that carries an
// alignment: text, JSON, C header, a sound mask's comment.
TEST(IrFix, AMaskKeptCentredStaysCentredThroughASecondFix) {
  TempDir dir;
  halo_ok({"design", "--lowpass", "4k", "--taps", "255", "-o", dir / "lp.wav", "-q"});
  write_sound(dir / "x.wav", random_signal(3000, 83, 0.4f), 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  halo_ok({"ir", "fix", dir / "lp.wav", dir / "faded.txt", "--fade-out", "1", "-q"});
  const std::vector<float> faded = text_taps(dir / "faded.txt");
  const std::vector<double> centred = expected_output(read_sound(dir / "x.wav").samples, 1, {faded}, Align::same, false);
  for (const std::string ext : {".txt", ".json", ".h", ".wav"}) {
    const std::string once = dir / ("once" + ext), twice = dir / ("twice" + ext);
    halo_ok({"ir", "fix", dir / "lp.wav", once, "--fade-out", "1", "-q"});
    halo_ok({"ir", "fix", once, twice, "-q"});
    for (const std::string& mask : {once, twice}) {
      halo_ok({"filter", dir / "x.wav", dir / "y.wav", "--mask", mask, "-q"});
      EXPECT_LE(relative_error(read_sound(dir / "y.wav").samples, centred), 1e-6) << mask;
    }
  }
}

// An impulse response applies causally (--ir), and so does every mask design and ir fix make
// of one: their files say "causal", so --mask reads them back as --ir applies the IR (design
// --ir had written them centred, the output (M-1)/2 frames early: a QA pass).
TEST(IrExports, AnImpulseResponseStaysCausalThroughEveryFile) {
  TempDir dir;
  const std::string ir = dir.path() + "/room.wav";
  std::vector<float> taps(2 * 301);  // stereo, a decaying tail after a pre-delay of 20 frames
  const std::vector<float> noise = random_signal(taps.size(), 41, 0.5f);
  for (std::size_t k = 20; k < 301; ++k)
    for (std::size_t c = 0; c < 2; ++c) taps[2 * k + c] = noise[2 * k + c] * std::exp(-(k - 20.0) / 60.0);
  write_sound(ir, taps, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_sound(dir.path() + "/x.wav", random_signal(2 * 3000, 43, 0.4f), 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const Sound x = read_sound(dir.path() + "/x.wav");
  std::vector<std::vector<float>> per_channel(2);
  for (std::size_t k = 0; k < 301; ++k)
    for (std::size_t c = 0; c < 2; ++c) per_channel[c].push_back(taps[2 * k + c]);
  const std::vector<double> ref = expected_output(x.samples, 2, per_channel, Align::causal, false);
  std::vector<std::string> masks;
  for (const std::string name : {"d.json", "d.txt", "d.wav", "d.h"}) {
    halo_ok({"design", "--ir", ir, "-o", dir.path() + "/" + name, "-q"});
    masks.push_back(dir.path() + "/" + name);
  }
  halo_ok({"ir", "fix", ir, dir.path() + "/f.json", "-q"});
  halo_ok({"ir", "fix", ir, dir.path() + "/f.wav", "-q"});
  masks.insert(masks.end(), {dir.path() + "/f.json", dir.path() + "/f.wav"});
  EXPECT_NE(read_bytes(dir.path() + "/d.json").find("\"align\": \"causal\""), std::string::npos);
  for (const std::string& mask : masks) {
    halo_ok({"filter", dir.path() + "/x.wav", dir.path() + "/y.wav", "--mask", mask, "-q"});
    EXPECT_LE(relative_error(read_sound(dir.path() + "/y.wav").samples, ref), 1e-6) << mask;
  }
}

TEST(InfoJson, GivesTheFiguresOfTheTextReport) {
  TempDir dir;
  const std::string file = dir.path() + "/a.wav";
  std::vector<float> samples = random_signal(2000, 11, 0.25f);
  samples[301] = -0.75f;  // the peak, channel 2 (odd index)
  write_sound(file, samples, 2, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const nlohmann::json j = nlohmann::json::parse(halo_ok({"info", file, "--json"}).out);
  EXPECT_EQ(j["rate_hz"].get<int>(), 44100);
  EXPECT_EQ(j["channels"].get<int>(), 2);
  EXPECT_EQ(j["frames"].get<int>(), 1000);
  EXPECT_NEAR(j["peak"].get<double>(), 0.75, 1e-9);
  EXPECT_NEAR(j["channel"][1]["peak_dbfs"].get<double>(), 20 * std::log10(0.75), 1e-6);
}

// A file name that is not UTF-8 (Latin-1 `caf\xe9.wav`) is JSON all the same, its stray byte
// as U+FFFD: nlohmann-json had thrown, and info printed its exception (a QA pass).
TEST(InfoJson, AFileNameThatIsNotUtf8IsStillJson) {
  TempDir dir;
  const std::string file = dir.path() + "/caf\xe9.wav";
  write_sound(file, random_signal(2000, 12, 0.25f), 2, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  for (const Result& result : {halo({"info", file, "--json"}), halo({"ir", "inspect", file, "--json"})}) {
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const nlohmann::json j = nlohmann::json::parse(result.out);
    const std::string name = j.contains("file") ? j["file"].get<std::string>() : result.out;
    EXPECT_NE(name.find("caf\xef\xbf\xbd.wav"), std::string::npos) << result.out;
  }
}

TEST(IrRate, ARateMismatchIsRefusedOrResampled) {
  TempDir dir;
  // An IR at 96 kHz: a windowed-sinc low-pass at 4 kHz, designed by halo and written as WAV.
  halo_ok({"design", "--lowpass", "4000", "--taps", "201", "--rate", "96000", "-o", dir.path() + "/ir96.wav"});
  const Sound ir = read_sound(dir.path() + "/ir96.wav");
  std::vector<float> impulse(4000, 0.0f);
  impulse[0] = 0.5f;
  write_sound(dir.path() + "/x.wav", impulse, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const DirectorySnapshot before(dir.path());
  expect_one_line_failure(halo({"filter", dir.path() + "/x.wav", dir.path() + "/y.wav", "--ir", dir.path() + "/ir96.wav"}),
                          1, "at 96000 Hz but the audio is at 48000 Hz", before, "refused");
  halo_ok({"filter", dir.path() + "/x.wav", dir.path() + "/y.wav", "--ir", dir.path() + "/ir96.wav", "--ir-rate",
           "resample", "-q"});
  // The response at 48 kHz is the 96 kHz IR's below 20 kHz (pass band within 0.01 dB; the
  // resampler's own stop band is about -97 dB).
  const Sound y = read_sound(dir.path() + "/y.wav");
  std::vector<float> h48(y.samples.begin(), y.samples.end());
  for (float& v : h48) v *= 2;  // the impulse was 0.5
  for (double hz : {100.0, 1000.0, 2000.0, 3000.0})
    EXPECT_NEAR(magnitude_db(h48, hz, 48000), magnitude_db(ir.samples, hz, 96000), 0.01) << hz;
  for (double hz : {8000.0, 12000.0, 16000.0})
    EXPECT_LT(magnitude_db(h48, hz, 48000), -45) << hz;
  // Past what libsamplerate reaches: the file and both rates, not the library's field name
  // ("rate_hz 48000 Hz ...", a QA pass).
  write_sound(dir.path() + "/ir100.wav", random_signal(50, 83, 0.1f), 1, 100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const DirectorySnapshot again(dir.path());
  expect_one_line_failure(halo({"filter", dir.path() + "/x.wav", dir.path() + "/z.wav", "--ir", dir.path() + "/ir100.wav",
                                "--ir-rate", "resample"}),
                          1, "halo: " + dir.path() + "/ir100.wav: 48000 Hz from the mask's 100 Hz: libsamplerate changes",
                          again, "past 256 times");
}

}  // namespace
}  // namespace halo::test
