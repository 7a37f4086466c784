// audio::parse_header_mask against the C++ compiler itself: each header is compiled into a tiny
// program that prints the array `h` as the compiler laid it out (every float in %a, exact, and
// how many rows it has), and halo must read exactly those taps, one mask per row of a 2-D
// array, or refuse the header in one line. The headers are the QA pass's (2026-11-27), where
// halo had read other taps than the compiler without a word: east const (its rate and
// alignment lost), a flat list under [][M], an octal coefficient, braced scalars, a float
// literal a double falls between, `#if 0` and a backslash-continued comment hiding an old
// array; and what it must refuse: several arrays, three sizes, sizes a list does not fill
// (the compiler pads with zeros) or that are expressions.
#include "audio/c_header_reader.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "audio/error.hpp"
#include "support/temp_dir.hpp"

namespace halo::audio {
namespace {

struct Compiled {
  std::vector<float> values;  // the array's floats in memory order
  std::size_t rows = 0;       // sizeof(h) / sizeof(h[0]): the floats for a 1-D array, C for [C][M]
};

// What /usr/bin/c++ makes of `header`'s array h.
bool have_compiler() { return std::system("/usr/bin/c++ --version > /dev/null 2>&1") == 0; }

Compiled compile(const test::TempDir& dir, const std::string& header) {
  std::ofstream(dir / "h.h") << header;
  // The floating types of filter tools' headers as their own headers define them (CMSIS-DSP's
  // arm_math.h, MATLAB's tmwtypes.h), and each element as a mask holds it: a float.
  std::ofstream(dir / "main.cpp") << "#include <cstdio>\n#include <type_traits>\n"
                                     "typedef float float32_t; typedef double float64_t;\n"
                                     "typedef float real32_T; typedef double real64_T; typedef double real_T;\n"
                                     "#include \"h.h\"\n"
                                     "int main() {\n"
                                     "  using E = std::remove_cv_t<std::remove_all_extents_t<decltype(h)>>;\n"
                                     "  const E* p = reinterpret_cast<const E*>(&h);\n"
                                     "  const unsigned long n = sizeof(h) / sizeof(E);\n"
                                     "  std::printf(\"%lu %lu\\n\", n, (unsigned long)(sizeof(h) / sizeof(h[0])));\n"
                                     "  for (unsigned long i = 0; i < n; ++i) std::printf(\"%a\\n\", (double)(float)p[i]);\n"
                                     "}\n";
  const std::string command = "/usr/bin/c++ -std=c++17 -w -o '" + (dir / "main") + "' '" + (dir / "main.cpp") + "' && '" +
                              (dir / "main") + "' > '" + (dir / "out.txt") + "'";
  Compiled compiled;
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << "the compiler refused:\n" << header;
    return compiled;
  }
  std::ifstream out(dir / "out.txt");
  std::size_t n = 0;
  out >> n >> compiled.rows;
  for (std::size_t i = 0; i < n; ++i) {
    std::string value;
    out >> value;
    compiled.values.push_back(std::strtof(value.c_str(), nullptr));
  }
  return compiled;
}

TEST(CHeaderReader, ReadsWhatTheCompilerReads) {
  if (!have_compiler()) GTEST_SKIP() << "no /usr/bin/c++ to be the oracle";
  const test::TempDir dir;
  const std::vector<std::string> headers = {
      "static const float h[5] = {0.5f, 0.25f, 0.125f, -1.0f, 2e-3f};\n",
      "static const double h_rate_hz = 44100;\nstatic const int h_causal = 1;\nfloat const h[3] = {0.5f, 0.25f, 0.125f};\n",
      "static const float h[][3] = {0.5f, 0.25f, 0.125f, 1.0f, -1.0f, 0.5f};\n",
      "static const float h[2][3] = {{0.5f, 0.25f, 0.125f}, {1.0f, -1.0f, 0.5f}};\n",
      "static const float h[] = {0.5f, 010, 0.25f, 0x10, 1u};\n",
      "static const float h[] = {{0.5f}, {0.25f}};\n",
      "static const float h[] = {0.25f, 1.00000005960464477550f, 1.00000005960464477550, 0x1.8p-3f};\n",
      "#if 0\nstatic const float h[] = {9, 9, 9};\n#else\nstatic const float h[] = {0.5f, 0.25f, 0.125f};\n#endif\n",
      "#if 1\nstatic const float h[] = {0.5f, 0.25f};\n#else\nstatic const float h[] = {9, 9, 9};\n#endif\n",
      "// an old one: \\\nstatic const float h[] = {9, 9, 9};\nstatic const float h[] = {0.5f, 0.25f};\n",
      "#define N 4\n#define C 2\nstatic const float h[C][N] = {{1, 2, 3, 4}, {5, 6, 7, 8}};\n",
      "static const float h[0x4] = {0.5f, 0.25f, 0.125f, 1.0f};\n",
      "static const unsigned h_taps = 2 * 1;\nstatic const float h[2] = {0.5f, -0.5f};\n  /* \"//\" */ const char* s = \"// not a comment\";\n",
      // A review's: lone CR line ends, a byte-order mark before a #define, alignas(float),
      // C++'s brace init, a sign apart from its number, a backslash and spaces ending a //
      // comment, #elif 1, an include guard (TFilter's form), an #ifdef of a name the file does
      // not define inside the list, a const bool, a string holding "float g[] = {".
      "#pragma once\r// c\rstatic const float h[] = {0.5f, 0.25f};\r",
      "\xEF\xBB\xBF#define N 3\nstatic const float h[N] = {0.5f, 0.25f, 0.125f};\n",
      "alignas(float) static const float h[2] = {0.5f, 0.25f};\n",
      "constexpr float h[] {0.5f, 0.25f, -1.0f};\n",
      "static const float h[] = {- 0.5f, 0.25f, +  1.0f};\n",
      "static const float h[] = {0.25f, // first \\  \n 9.0f,\n 0.5f};\n",
      "#if 0\n#define N 2\n#elif 1\n#define N 3\n#else\n#define N 4\n#endif\nstatic const float h[N] = {1, 2, 3};\n",
      "#ifndef SAMPLEFILTER_H_\n#define SAMPLEFILTER_H_\n#define FILTER_TAP_NUM 3\nstatic const float h[FILTER_TAP_NUM] = {0.5f, 0.25f, 0.125f};\n#endif\n",
      "static const float h[] = {\n#ifdef EXTRA\n 9,\n#endif\n 1, 2};\n",
      // The arrays of filter tools' headers (refused as "not float" before): TFilter's double,
      // CMSIS-DSP's float32_t, MATLAB's filter designer's real64_T and real_T; each tap the
      // compiler's double, as a float.
      "#define FILTER_TAP_NUM 3\nstatic double h[FILTER_TAP_NUM] = {\n  -0.02010411882885732,\n  0.1,\n  0.05125096443534972\n};\n",
      "#define NUM_TAPS 3\nconst float32_t h[NUM_TAPS] = {\n  -0.0018225230f, +0.0000000000f, 0.0080754303f\n};\n",
      "const int BL = 4;\nconst real64_T h[4] = {\n  0.1, 0.2, 0.2, 0.1\n};\n",
      "const real_T h[2] = {0.5, -0.25};\nconst float64_t g_unused = 1;\n",
      "static const bool h_causal = true;\nstatic const float h[] = {0.5f, 0.25f};\nconst char* s = \"float g[] = {1};\";\n"};

  for (const std::string& header : headers) {
    const Compiled compiled = compile(dir, header);
    if (compiled.values.empty()) continue;
    const filters::MaskSet masks = parse_header_mask("h.h", header);
    const std::size_t count = compiled.rows == compiled.values.size() ? 1 : compiled.rows;
    ASSERT_EQ(masks.size(), count) << header;
    std::vector<float> read;
    for (const filters::Mask& mask : masks) read.insert(read.end(), mask.taps.begin(), mask.taps.end());
    EXPECT_EQ(read, compiled.values) << header;
  }
  // The constants of an east-const array are its own (its name had been taken for `const`).
  const filters::MaskSet east = parse_header_mask("h.h", headers[1]);
  EXPECT_EQ(east.front().rate_hz, 44100);
  EXPECT_TRUE(east.front().causal);
  EXPECT_TRUE(parse_header_mask("h.h", headers.back()).front().causal);  // `= true`
  // MATLAB's filter designer's header whole, its #include of tmwtypes.h (which no compiler here
  // has) outside the list: the five doubles, each as a float.
  const filters::MaskSet matlab = parse_header_mask(
      "fdacoefs.h", "/*\n * Filter Coefficients (C Source) generated by the Filter Design and Analysis Tool\n */\n"
                    "#include \"tmwtypes.h\"\nconst int BL = 5;\nconst real64_T B[5] = {\n  0.1, 0.2, 0.4, 0.2, 0.1\n};\n");
  EXPECT_EQ(matlab.front().taps, (std::vector<float>{0.1f, 0.2f, 0.4f, 0.2f, 0.1f}));
}

TEST(CHeaderReader, RefusesWhatItCannotReadAsTheCompilerDoes) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"static const float window[3] = {0.1f, 0.2f, 0.3f};\nstatic const float h[3] = {0.5f, 0.25f, 0.125f};\n",
       "h.h: 2 floating arrays (window, h): halo reads a header of one, the mask"},
      {"static const float h[1][2][3] = {0.5f, 0.25f, 0.125f, 1.0f, -1.0f, 0.5f};\n", "h has 3 sizes"},
      {"#define N 5\nstatic const float h[N] = {0.5f, 0.25f, 0.125f, 1.0f};\n", "h[5] declares 5 coefficients, the list holds 4"},
      {"static const float h[0x4] = {0.5f, 0.25f, 0.125f};\n", "h[4] declares 4 coefficients, the list holds 3"},
      {"static const float h[2+2] = {0.5f, 0.25f, 0.125f, 1.0f};\n", "h[2+2]: halo cannot tell this size"},
      {"static const float h[TAPS] = {0.5f, 0.25f};\n", "h[TAPS]: halo cannot tell this size"},
      {"static const float h[][4] = {0.5f, 0.25f, 0.125f, 1.0f, 2.0f};\n", "h[][4] declares lists of 4 coefficients, the list holds 5"},
      {"static const float h[] = {{0.5f, 0.1f}, {0.25f, 0.2f}};\n", "h[] has one size, and its list holds lists"},
      {"static const float h = {0.5f};\n", "is not an array"},
      // A review's: a comma left out (one expression to a compiler), an #include inside the
      // list, a size past what a mask holds, a rate given two ways under a condition halo
      // cannot evaluate, an alignment it cannot read, and an array of another type.
      {"static const float h[3] = {0.125f, -0.5f\n  -0.25f};\n", "h.h:2: a comma is missing before \"-0.25f\""},
      {"static const float h[] = {\n#include \"coeffs.inc\"\n, 1.0f};\n", "h.h:2: #include inside the list"},
      {"static const float h[4611686018427387905][4] = {1, 2, 3, 4};\n", "more than the 16777216 taps a mask holds"},
      {"#ifdef __cplusplus\nstatic const double h_rate_hz = 96000;\n#else\nstatic const double h_rate_hz = 48000;\n#endif\n"
       "static const float h[] = {0.5f};\n", "h_rate_hz is given twice (96000 and 48000)"},
      {"static const int h_causal = is_causal();\nstatic const float h[] = {0.5f};\n", "h_causal = is_causal(): halo cannot read this value"},
      {"#define FILTER_TAP_NUM 2\nstatic const q15_t filter_taps[FILTER_TAP_NUM] = {16384, 8192};\n",
       "the array here is `static const q15_t filter_taps[FILTER_TAP_NUM]`, and halo reads arrays of float or double"},
      {"static const float window[2] = {0.5f, 0.5f};\nstatic const double h[2] = {0.5, 0.25};\n",
       "h.h: 2 floating arrays (window, h)"}};
  for (const auto& [header, says] : refused) {
    try {
      parse_header_mask("h.h", header);
      ADD_FAILURE() << "read, not refused:\n" << header;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what() << "\n" << header;
    }
  }
}

}  // namespace
}  // namespace halo::audio
