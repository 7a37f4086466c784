// Issue 13, item 18, through the built `halo`: TPDF dither on pcm16 output by default (its
// error statistics checked with numpy against the triangular-dither model; reproducible; the
// chunk size changes no byte), --no-dither, --norm[=DB] measured by soundfile, and raw input
// (-t raw) read exactly as the WAV of the same samples.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <regex>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

class DitherNormRaw : public ::testing::Test {
 protected:
  Result halo(std::vector<std::string> args) {
    args.insert(args.begin(), HALO_BINARY);
    Result ran = run(args, in_directory(dir.path()));
    last = describe(args, ran);
    return ran;
  }
  void check(const std::string& script) {
    const Result ran = python(dir.path(), "import numpy as np, soundfile as sf\n" + script);
    EXPECT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  }

  TempDir dir;
  std::string last;  // the last halo run, for messages
};

// A quiet stereo sine in float32 (a few LSB of pcm16, with an offset so that the fractional
// parts of sample × 32768 cover [0, 1)), and a one-tap unit mask: OUT's exact value is IN × 32768.
constexpr const char* quiet_sine =
    "t = np.arange(96000) / 48000\n"
    "x = np.stack([3.3 * np.sin(2 * np.pi * 997.3 * t) + 0.37, 2.1 * np.sin(2 * np.pi * 61.7 * t) - 0.2], 1)\n"
    "sf.write('quiet.wav', (x / 32768).astype(np.float32), 48000, subtype='FLOAT')\n"
    "sf.write('short.wav', (x[:24000] / 32768).astype(np.float32), 48000, subtype='FLOAT')\n"
    "open('unit.txt', 'w').write('1\\n')\n";

TEST_F(DitherNormRaw, Pcm16OutputIsTpdfDitheredByDefault) {
  check(quiet_sine);
  ASSERT_EQ(halo({"filter", "quiet.wav", "dithered.wav", "--mask", "unit.txt", "--subtype", "pcm16", "-q"}).exit_code, 0)
      << last;
  ASSERT_EQ(halo({"filter", "quiet.wav", "plain.wav", "--mask", "unit.txt", "--subtype", "pcm16", "--no-dither", "-q"})
                .exit_code, 0) << last;
  check(R"(
x, _ = sf.read('quiet.wav', dtype='float64')            # float32 values, exactly
exact = x * 32768
plain, _ = sf.read('plain.wav', dtype='int16')
y, _ = sf.read('dithered.wav', dtype='int16')
# --no-dither: round to nearest (ties to even), nothing else.
assert np.array_equal(plain, np.rint(exact)), 'no-dither output is not round(x)'
e = (y.astype(np.float64) - exact).ravel()
assert np.count_nonzero(y != plain) > 0.2 * y.size, 'not dithered'
assert np.max(np.abs(y.astype(int) - plain.astype(int))) <= 1, 'dither moved a sample by more than 1 LSB'
# TPDF (±1 LSB) then rounding: error = triangle(-1, 1) convolved with uniform(-1/2, 1/2):
# mean 0, variance 1/6 + 1/12 = 1/4 LSB^2, |e| < 1.5, whatever the signal.
print('mean', e.mean(), 'var', e.var(), 'max', np.abs(e).max())
assert abs(e.mean()) < 0.01, e.mean()
assert abs(e.var() - 0.25) < 0.01, e.var()
assert np.abs(e).max() < 1.5
# The error's distribution is that of the model, numpy's triangular dither on the same exact
# values, and not that of rectangular (RPDF) dither: a two-sample Kolmogorov-Smirnov test.
from scipy import stats
rng = np.random.default_rng(18)
model = (np.rint(exact + rng.triangular(-1, 0, 1, exact.shape)) - exact).ravel()
rpdf = (np.rint(exact + rng.uniform(-0.5, 0.5, exact.shape)) - exact).ravel()
ks = stats.ks_2samp(e, model)
print('ks tpdf', ks.statistic, ks.pvalue, 'ks rpdf', stats.ks_2samp(e, rpdf).statistic)
assert ks.statistic < 0.006 and ks.pvalue > 1e-3, ks
assert stats.ks_2samp(e, rpdf).statistic > 0.02
# Signal-independent error: its first two moments do not depend on where between two
# integers the exact value falls (plain rounding fails this: its error is a function of it).
frac = (exact - np.floor(exact)).ravel()
for k in range(10):
    sel = (frac >= k / 10) & (frac < (k + 1) / 10)
    assert abs(e[sel].mean()) < 0.03 and abs(e[sel].var() - 0.25) < 0.03, (k, e[sel].mean(), e[sel].var())
assert abs(np.corrcoef(e, x.ravel())[0, 1]) < 0.02
)");
}

// The dither carries a sample that fits one LSB past full scale now and then: held there, and
// said, apart from the clipped (it had gone unsaid; sox says "dither clipped N samples", a QA
// pass). At exactly +32767 and -32768 LSB, TPDF dither of +-1 LSB rounds past the edge where it
// is at least 1/2 towards it: one sample in eight, by the triangle's tail, (1/2)^2 / 2.
TEST_F(DitherNormRaw, SamplesTheDitherCarriesPastFullScaleAreSaid) {
  check("x = np.concatenate([np.full(10000, 32767 / 32768), np.full(10000, -1.0)])\n"
        "sf.write('edge.wav', x.astype(np.float32), 48000, subtype='FLOAT')\n"
        "sf.write('inside.wav', (x * 32765 / 32768).astype(np.float32), 48000, subtype='FLOAT')\n"
        "open('unit.txt', 'w').write('1\\n')\n");
  const Result edge = halo({"filter", "edge.wav", "edge16.wav", "--mask", "unit.txt", "--subtype", "pcm16", "-q"});
  ASSERT_EQ(edge.exit_code, 0) << last;
  std::smatch said;
  ASSERT_TRUE(std::regex_search(edge.err, said, std::regex("the dither carried (\\d+) samples past full scale, held there")))
      << edge.err;
  EXPECT_EQ(edge.err.find("clipped"), std::string::npos) << edge.err;  // nothing of the signal was lost
  const double held = std::stod(said[1]), expected = 20000.0 / 8, sigma = std::sqrt(20000.0 / 8 * 7 / 8);
  EXPECT_NEAR(held, expected, 5 * sigma) << edge.err;
  // Not without dither, nor for samples 2 LSB inside the edge, which the dither never carries past.
  const Result plain = halo({"filter", "edge.wav", "plain16.wav", "--mask", "unit.txt", "--subtype", "pcm16", "--no-dither", "-q"});
  EXPECT_EQ(plain.err.find("dither"), std::string::npos) << plain.err;
  const Result inside = halo({"filter", "inside.wav", "inside16.wav", "--mask", "unit.txt", "--subtype", "pcm16", "-q"});
  EXPECT_EQ(inside.err.find("dither"), std::string::npos) << inside.err;
  check("y, _ = sf.read('edge16.wav', dtype='int16')\n"
        "assert set(np.unique(y[:10000])) <= {32766, 32767} and set(np.unique(y[10000:])) <= {-32768, -32767}\n");
}

// Digital silence stays digital silence: a silent pcm16 file comes out silent (it came out as
// ±1 LSB noise, a QA pass found), and so does every output whose inputs are all 0 (numpy says
// which here), on every engine: FFT engines had left rounding dust there, up to one of their
// blocks from the burst (982 samples of ±1 LSB in a 1 s gap at 4095 taps with auto, a second
// QA pass found), and the writer dithered it. Float output shows it as it is: exactly 0 there.
TEST_F(DitherNormRaw, DigitalSilenceIsNotDithered) {
  check("x = np.zeros((96000, 2))\n"
        "sf.write('silent.wav', x, 48000, subtype='PCM_16')\n"
        "x[40000:42000] = np.random.default_rng(3).uniform(-0.3, 0.3, (2000, 2))\n"
        "x[41000:41500, 1] = 0\n"  // a gap shorter than the mask inside the burst on one channel
        "sf.write('burst.wav', x, 48000, subtype='PCM_16')\n");
  for (const std::string engine : {"cpu", "cpu-fft", "cpu-partitioned", "auto"})
    for (const std::string name : {"silent", "burst"})
      for (const std::string subtype : {"pcm16", "float"})
        ASSERT_EQ(halo({"filter", name + ".wav", name + "-" + engine + "-" + subtype + ".wav", "--lowpass", "2k", "--taps",
                        "4095", "--subtype", subtype, "--engine", engine, "-q"})
                      .exit_code,
                  0)
            << last;
  check(R"(
m = 4095
x, _ = sf.read('burst.wav')
for engine in ('cpu', 'cpu-fft', 'cpu-partitioned', 'auto'):
    for subtype in ('pcm16', 'float'):
        y, _ = sf.read('silent-%s-%s.wav' % (engine, subtype))
        assert not np.any(y), (engine, subtype, np.count_nonzero(y))
        y, _ = sf.read('burst-%s-%s.wav' % (engine, subtype))
        for c in range(2):
            # y_full[n] has inputs n - m + 1 .. n; output frame i is y_full[i + (m - 1) // 2].
            nonzero = np.flatnonzero(x[:, c])
            n = np.arange(len(x)) + (m - 1) // 2
            silent = np.array([not np.any((nonzero > k - m) & (nonzero <= k)) for k in n])
            assert silent.sum() > 50000, silent.sum()
            assert not np.any(y[silent, c]), (engine, subtype, c, np.count_nonzero(y[silent, c]))
            assert np.count_nonzero(y[~silent, c]) > 0.9 * (~silent).sum(), (engine, subtype, c)  # the burst is there
)");
}

TEST_F(DitherNormRaw, DitherIsReproducibleAndChunkSizeChangesNoByte) {
  check(quiet_sine);
  for (const char* name : {"a.wav", "b.wav"})
    ASSERT_EQ(halo({"filter", "quiet.wav", name, "--mask", "unit.txt", "--subtype", "pcm16", "-q"}).exit_code, 0) << last;
  EXPECT_EQ(read_bytes(dir / "a.wav"), read_bytes(dir / "b.wav")) << "two runs differ";
  ASSERT_EQ(halo({"filter", "short.wav", "c1.wav", "--lowpass", "5k", "--subtype", "pcm16", "--chunk", "1", "-q"})
                .exit_code, 0) << last;
  ASSERT_EQ(halo({"filter", "short.wav", "c64k.wav", "--lowpass", "5k", "--subtype", "pcm16", "--chunk", "65536", "-q"})
                .exit_code, 0) << last;
  ASSERT_EQ(halo({"filter", "short.wav", "c777.wav", "--lowpass", "5k", "--subtype", "pcm16", "--chunk", "777", "-q"})
                .exit_code, 0) << last;
  EXPECT_EQ(read_bytes(dir / "c1.wav"), read_bytes(dir / "c64k.wav")) << "--chunk 1 and --chunk 65536 differ";
  EXPECT_EQ(read_bytes(dir / "c777.wav"), read_bytes(dir / "c64k.wav")) << "--chunk 777 and --chunk 65536 differ";
}

TEST_F(DitherNormRaw, OnlyOutputsBelow24BitsAreDithered) {
  check(quiet_sine);
  for (const char* subtype : {"pcm24", "float"}) {
    ASSERT_EQ(halo({"filter", "quiet.wav", std::string(subtype) + ".wav", "--mask", "unit.txt", "--subtype", subtype, "-q"})
                  .exit_code, 0) << last;
    ASSERT_EQ(halo({"filter", "quiet.wav", std::string(subtype) + "-nd.wav", "--mask", "unit.txt", "--subtype", subtype,
                    "--no-dither", "-q"}).exit_code, 0) << last;
    EXPECT_EQ(read_bytes(dir / (std::string(subtype) + ".wav")), read_bytes(dir / (std::string(subtype) + "-nd.wav")))
        << subtype << " output was dithered";
  }
  check(R"(
x, _ = sf.read('quiet.wav', dtype='float64')
y, _ = sf.read('pcm24.wav', dtype='int32')
assert np.array_equal(y >> 8, np.rint(x * 8388608)), 'pcm24 is not round(x)'
)");
}

TEST_F(DitherNormRaw, NormReachesThePeakAskedFor) {
  check("t = np.arange(48000) / 48000\n"
        "x = np.stack([0.3 * np.sin(2 * np.pi * 440 * t), 0.2 * np.sin(2 * np.pi * 300 * t)], 1)\n"
        "sf.write('loud.wav', x.astype(np.float32), 48000, subtype='FLOAT')\n"
        "open('unit.txt', 'w').write('1\\n')\n");
  ASSERT_EQ(halo({"filter", "loud.wav", "n1.wav", "--mask", "unit.txt", "--norm", "-q"}).exit_code, 0) << last;
  // The level as the next word, as --gain takes one (cxxopts alone read "-3" as an option).
  ASSERT_EQ(halo({"filter", "loud.wav", "n3.wav", "--lowpass", "2k", "--norm", "-3", "--subtype", "pcm16", "-q"}).exit_code,
            0)
      << last;
  // ... and 0, a level without a sign (it was taken for a third file name).
  ASSERT_EQ(halo({"filter", "loud.wav", "n0.wav", "--mask", "unit.txt", "--norm", "0", "-q"}).exit_code, 0) << last;
  // Through a pipe, with its spool in a TMPDIR of our own that must be empty afterwards.
  std::filesystem::create_directory(dir / "spool");
  const std::string pipeline = "TMPDIR=" + (dir / "spool") + " " + HALO_BINARY +
                               " filter loud.wav - --mask unit.txt --type au --subtype pcm24 --norm=-6 -q | cat > n6.au";
  const Result piped = run({"/bin/sh", "-c", pipeline}, in_directory(dir.path()));
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_TRUE(list_directory(dir / "spool").empty()) << "--norm left its temporary";
  check(R"(
x, _ = sf.read('loud.wav', dtype='float64')
def peak_db(name):
    y, _ = sf.read(name, dtype='float64')
    return 20 * np.log10(np.max(np.abs(y))), y
for name, want in (('n1.wav', -1.0), ('n3.wav', -3.0), ('n6.au', -6.0), ('n0.wav', 0.0)):
    got, y = peak_db(name)
    print(name, got)
    assert abs(got - want) < 0.01, (name, got, want)
# The unit mask's output is the input scaled, nothing else.
_, y = peak_db('n1.wav')
g = 10 ** (-1 / 20) / np.max(np.abs(x))
assert np.max(np.abs(y - x * g)) < 1e-6, np.max(np.abs(y - x * g))
)");
  EXPECT_EQ(halo({"filter", "loud.wav", "bad.wav", "--lowpass", "2k", "--norm=-1", "--gain", "3"}).exit_code, 2) << last;
  EXPECT_EQ(halo({"filter", "loud.wav", "bad.wav", "--lowpass", "2k", "--norm=3"}).exit_code, 2) << last;
  const Result above = halo({"filter", "loud.wav", "bad.wav", "--lowpass", "2k", "--norm", "3"});
  EXPECT_EQ(above.exit_code, 2) << last;
  EXPECT_NE(above.err.find("--norm"), std::string::npos) << above.err;
  EXPECT_EQ(halo({"filter", "loud.wav", "bad.wav", "--lowpass", "2k", "--norm=0x1"}).exit_code, 2) << last;
}

// Where the exact output is 0 but an FFT engine leaves its float32 rounding (1e-8), --norm leaves
// that as it is and says so: a mask whose first 1000 taps are 0 on 300 frames (the exact
// convolution below is 0 everywhere, and cpu, the direct engine, gives 0) had been raised 151 dB
// to -1 dBFS of noise on cpu-fft (a QA pass). A quiet real signal, -100 dB, is still scaled,
// and so is a -120 dBFS tone through a low-pass on either engine: the floor is measured from
// IN's own peak, where from full scale it had called that tone rounding (a QA pass).
TEST_F(DitherNormRaw, NormLeavesAnFftEnginesRoundingAsItIs) {
  check("h = np.zeros(2000); h[1000] = 0.5; h[1001:] = 0.01 * np.random.default_rng(1).standard_normal(999)\n"
        "sf.write('delay.wav', h.astype(np.float32), 48000, subtype='FLOAT')\n"
        "x = np.random.default_rng(2).uniform(-0.5, 0.5, 300)\n"
        "assert np.max(np.abs(np.convolve(x, h)[:300])) == 0\n"
        "sf.write('click.wav', x.astype(np.float32), 48000, subtype='FLOAT')\n"
        "t = np.arange(4800) / 48000\n"
        "sf.write('faint.wav', (1e-5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), 48000, subtype='FLOAT')\n"
        "sf.write('whisper.wav', (1e-6 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), 48000, subtype='FLOAT')\n"
        "open('unit.txt', 'w').write('1\\n')\n");
  const Result noise = halo({"filter", "click.wav", "noise.wav", "--ir", "delay.wav", "--engine", "cpu-fft", "--norm"});
  ASSERT_EQ(noise.exit_code, 0) << last;
  EXPECT_NE(noise.err.find("is float32 rounding, not signal: --norm left it as it is"), std::string::npos) << noise.err;
  EXPECT_EQ(noise.err.find("(--norm)"), std::string::npos) << "no gain applied: " << noise.err;
  check("y, _ = sf.read('noise.wav', dtype='float64')\nassert np.max(np.abs(y)) < 1e-6, np.max(np.abs(y))\n");
  ASSERT_EQ(halo({"filter", "faint.wav", "faint-n.wav", "--mask", "unit.txt", "--norm", "-q"}).exit_code, 0) << last;
  check("y, _ = sf.read('faint-n.wav', dtype='float64')\nassert abs(20 * np.log10(np.max(np.abs(y))) + 1) < 0.01\n");
  for (const std::string engine : {"cpu", "cpu-fft"}) {
    const Result whisper =
        halo({"filter", "whisper.wav", "whisper-n.wav", "--lowpass", "1k", "--engine", engine, "--norm", "-q"});
    ASSERT_EQ(whisper.exit_code, 0) << last;
    EXPECT_EQ(whisper.err.find("rounding"), std::string::npos) << engine << ": " << whisper.err;
    check("y, _ = sf.read('whisper-n.wav', dtype='float64')\nassert abs(20 * np.log10(np.max(np.abs(y))) + 1) < 0.01\n");
  }
}

// The summary says the gain applied: --gain's, or the one --norm found (it had read the same
// with or without them), and a silent output under --norm is warned of, not scaled (a QA pass).
// The peak of the loud file is 0.3 (-10.46 dBFS): --norm -1 applies +9.46 dB through the unit mask.
TEST_F(DitherNormRaw, TheSummarySaysTheGainApplied) {
  check("t = np.arange(48000) / 48000\n"
        "sf.write('loud.wav', (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), 48000, subtype='FLOAT')\n"
        "sf.write('silent.wav', np.zeros(4800, dtype=np.float32), 48000, subtype='FLOAT')\n"
        "open('unit.txt', 'w').write('1\\n')\n");
  const Result gained = halo({"filter", "loud.wav", "g.wav", "--mask", "unit.txt", "--gain", "-6"});
  ASSERT_EQ(gained.exit_code, 0) << last;
  EXPECT_NE(gained.err.find("; gain -6.00 dB; "), std::string::npos) << gained.err;
  const Result normed = halo({"filter", "loud.wav", "n.wav", "--mask", "unit.txt", "--norm", "-1"});
  ASSERT_EQ(normed.exit_code, 0) << last;
  const double expected = -1 - 20 * std::log10(0.3);
  char said[64];
  std::snprintf(said, sizeof said, "; gain %+.2f dB (--norm); ", expected);
  EXPECT_NE(normed.err.find(said), std::string::npos) << said << "\n" << normed.err;
  // The level with its unit, as the next word (it had been taken for an option "-1dB").
  const Result with_unit = halo({"filter", "loud.wav", "n.wav", "--mask", "unit.txt", "--norm", "-1dB"});
  ASSERT_EQ(with_unit.exit_code, 0) << last;
  EXPECT_NE(with_unit.err.find(said), std::string::npos) << said << "\n" << with_unit.err;
  const Result plain = halo({"filter", "loud.wav", "p.wav", "--mask", "unit.txt"});
  EXPECT_EQ(plain.err.find("gain"), std::string::npos) << plain.err;
  const Result silent = halo({"filter", "silent.wav", "s.wav", "--mask", "unit.txt", "--norm", "-q"});
  ASSERT_EQ(silent.exit_code, 0) << last;
  EXPECT_EQ(silent.err, "halo: warning: the output is silent: --norm had no peak to scale to\n");
}

// Raw samples from a device are read as they come, as from a pipe: /dev/zero, named or on
// standard input, had been "has no audio frames" at once (a QA pass). It never ends, so the run
// goes on until interrupted, and nothing is written.
TEST_F(DitherNormRaw, RawInputFromADeviceIsReadAsItComes) {
  const std::string raw = " -t raw --rate 48000 --channels 1 --encoding pcm16 --lowpass 1k -q";
  for (const std::string& command : {"timeout --preserve-status -s INT 1 '" + std::string(HALO_BINARY) + "' filter /dev/zero z.wav" + raw,
                                    "timeout --preserve-status -s INT 1 '" + std::string(HALO_BINARY) + "' filter - z.wav" + raw + " < /dev/zero"}) {
    const Result result = run({"/bin/sh", "-c", command}, in_directory(dir.path()));
    EXPECT_EQ(result.exit_code, 130) << command << "\n" << result.err;
    EXPECT_EQ(result.err, "halo: interrupted; nothing was written\n") << command;
    EXPECT_FALSE(std::filesystem::exists(dir / "z.wav"));
  }
}

TEST_F(DitherNormRaw, RawInputReadsAsTheWavOfTheSameSamples) {
  check("rng = np.random.default_rng(13)\n"
        "s = rng.integers(-32768, 32768, size=(30000, 2), dtype=np.int16)\n"
        "s.astype('<i2').tofile('in.raw')\n"
        "sf.write('in.wav', s, 44100, subtype='PCM_16')\n"
        "f = rng.standard_normal((20000, 3)).astype(np.float32) * 0.3\n"
        "f.astype('<f4').tofile('in.f32raw')\n"
        "sf.write('inf.wav', f, 22050, subtype='FLOAT')\n"
        "open('unit.txt', 'w').write('1\\n')\n");
  const std::vector<std::string> raw16 = {"-t", "raw", "--rate", "44100", "--channels", "2", "--encoding", "pcm16"};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  ASSERT_EQ(halo(with({"filter", "in.raw", "raw.wav", "--lowpass", "3k", "--subtype", "float", "-q"}, raw16)).exit_code, 0)
      << last;
  ASSERT_EQ(halo({"filter", "in.wav", "wav.wav", "--lowpass", "3k", "--subtype", "float", "-q"}).exit_code, 0) << last;
  ASSERT_EQ(halo(with({"filter", "in.raw", "unit.wav", "--mask", "unit.txt", "--subtype", "float", "-q"}, raw16)).exit_code,
            0) << last;
  // From a pipe too.
  const Result piped = run(with({HALO_BINARY, "filter", "-", "pipe.wav", "--mask", "unit.txt", "--subtype", "float",
                                 "-q"}, raw16), in_directory(dir.path(), dir / "in.raw"));
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  ASSERT_EQ(halo({"filter", "in.f32raw", "f.wav", "--mask", "unit.txt", "-t", "raw", "--rate", "22050", "--channels", "3",
                  "--encoding", "float", "-q"}).exit_code, 0) << last;
  // The rate as every frequency is written, Hz, k or kHz (they had been "not a whole number",
  // a QA pass); a fraction of a Hz is none.
  for (const std::string rate : {"44.1kHz", "44100Hz", "44.1k"}) {
    ASSERT_EQ(halo({"filter", "in.raw", "k.wav", "--mask", "unit.txt", "--subtype", "float", "-q", "-t", "raw", "--rate", rate,
                    "--channels", "2", "--encoding", "pcm16"}).exit_code, 0) << last;
    check("u, r = sf.read('k.wav', dtype='float64')\nassert r == 44100, r\n");
  }
  const Result fraction = halo({"filter", "in.raw", "k.wav", "--mask", "unit.txt", "-q", "-t", "raw", "--rate", "44.1005k",
                                "--channels", "2", "--encoding", "pcm16"});
  EXPECT_EQ(fraction.exit_code, 2) << last;
  EXPECT_NE(fraction.err.find("--rate 44.1005k: not a whole number of Hz"), std::string::npos) << fraction.err;
  check(R"(
a, ra = sf.read('raw.wav', dtype='float64')
b, rb = sf.read('wav.wav', dtype='float64')
assert ra == rb == 44100 and a.shape == b.shape == (30000, 2), (ra, rb, a.shape, b.shape)
assert np.array_equal(a, b), 'raw input filtered differently from the WAV of the same samples'
w, _ = sf.read('in.wav', dtype='float64')
for name in ('unit.wav', 'pipe.wav'):
    u, ru = sf.read(name, dtype='float64')
    assert ru == 44100 and np.array_equal(u, w), name + ' is not the samples / 32768'
f, rf = sf.read('f.wav', dtype='float32')
g, _ = sf.read('inf.wav', dtype='float32')
assert rf == 22050 and np.array_equal(f, g), 'float raw input'
)");
  // The layout belongs with -t raw, and -t raw needs all of it.
  EXPECT_EQ(halo({"filter", "in.raw", "x.wav", "--lowpass", "3k", "-t", "raw", "--rate", "44100", "--channels", "2"})
                .exit_code, 2) << last;
  EXPECT_EQ(halo({"filter", "in.wav", "x.wav", "--lowpass", "3k", "--rate", "44100"}).exit_code, 2) << last;
  EXPECT_EQ(halo(with({"filter", "in.raw", "x.wav", "--lowpass", "3k", "--encoding", "vorbis"},
                      {"-t", "raw", "--rate", "44100", "--channels", "2"})).exit_code, 2) << last;
  EXPECT_EQ(halo({"filter", "in.wav", "x.wav", "--lowpass", "3k", "-t", "wav"}).exit_code, 2) << last;
  EXPECT_EQ(halo(with({"filter", "in.raw", "x.wav", "--lowpass", "3k", "--channels", "0x2"},
                      {"-t", "raw", "--rate", "44100", "--encoding", "pcm16"})).exit_code, 2) << last;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.wav"));
  // Bytes past the last whole frame (a wrong --channels or --encoding, or a cut file) are not
  // read, and said: 1001 bytes of pcm16 stereo are 250 frames and 1 byte.
  check("open('odd.raw', 'wb').write(open('in.raw', 'rb').read()[:1001])\n");
  const Result odd = run(with({HALO_BINARY, "filter", "odd.raw", "odd.wav", "--mask", "unit.txt", "-q"}, raw16),
                         in_directory(dir.path()));
  ASSERT_EQ(odd.exit_code, 0) << odd.err;
  EXPECT_NE(odd.err.find("warning: odd.raw ends with 1 byte that makes no whole frame of 2 channels"), std::string::npos)
      << odd.err;
  EXPECT_EQ(read_sound(dir / "odd.wav").frames, 250);
  // And so from standard input, a file or a pipe, and from a FIFO: libsndfile drops the byte
  // there too, and halo counts what it read (a QA pass: a pipe's part-frame went unsaid).
  RunOptions from_file = in_directory(dir.path());
  from_file.stdin_path = dir / "odd.raw";
  const std::vector<std::pair<std::string, Result>> streams = {
      {"standard input (a file)", run(with({HALO_BINARY, "filter", "-", "s.wav", "--mask", "unit.txt", "-q"}, raw16), from_file)},
      {"standard input (a pipe)",
       run({"/bin/sh", "-c", "cat odd.raw | " + std::string(HALO_BINARY) +
                                 " filter - p.wav --mask unit.txt -q -t raw --rate 44100 --channels 2 --encoding pcm16"},
           in_directory(dir.path()))},
      {"a FIFO", run({"/bin/sh", "-c", "mkfifo odd.fifo && (cat odd.raw > odd.fifo &) && " + std::string(HALO_BINARY) +
                                           " filter odd.fifo f.wav --mask unit.txt -q -t raw --rate 44100 --channels 2 "
                                           "--encoding pcm16"},
                     in_directory(dir.path()))}};
  for (const auto& [what, result] : streams) {
    ASSERT_EQ(result.exit_code, 0) << what << ": " << result.err;
    EXPECT_NE(result.err.find("ends with 1 byte that makes no whole frame of 2 channels"), std::string::npos)
        << what << ": " << result.err;
  }
  EXPECT_NE(streams[0].second.err.find("warning: standard input ends with"), std::string::npos) << streams[0].second.err;
  // A raw file shorter than one frame is refused with the same words, not a bare "has no audio
  // frames" (a QA pass), from a file and from a pipe.
  check("open('three.raw', 'wb').write(b'abc')\n");
  const Result three = run(with({HALO_BINARY, "filter", "three.raw", "three.wav", "--mask", "unit.txt"}, raw16),
                           in_directory(dir.path()));
  EXPECT_EQ(three.exit_code, 1);
  EXPECT_EQ(three.err, "halo: three.raw: has no audio frames; three.raw ends with 3 bytes that make no whole frame of 2 "
                       "channels: they were not read (check --channels and --encoding)\n");
  const Result three_piped = run({"/bin/sh", "-c", "cat three.raw | " + std::string(HALO_BINARY) +
                                                 " filter - three.wav --mask unit.txt -t raw --rate 44100 --channels 2 --encoding pcm16"},
                           in_directory(dir.path()));
  EXPECT_EQ(three_piped.exit_code, 1);
  EXPECT_NE(three_piped.err.find("has no audio frames; standard input ends with 3 bytes"), std::string::npos)
      << three_piped.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "three.wav"));
  // Standard input read into already (its first frame, 4 bytes, taken by head): libsndfile
  // opens a raw file only at its start, and had refused it ("embedding not supported"); it is
  // read as the stream it is, from where it stands (a review).
  const Result later = run({"/bin/sh", "-c", "(head -c 4 > /dev/null; exec " + std::string(HALO_BINARY) +
                                                 " filter - l.wav --mask unit.txt -q --subtype float -t raw --rate 44100 "
                                                 "--channels 2 --encoding pcm16) < odd.raw"},
                           in_directory(dir.path()));
  ASSERT_EQ(later.exit_code, 0) << later.err;
  EXPECT_NE(later.err.find("ends with 1 byte that makes no whole frame"), std::string::npos) << later.err;
  SF_INFO layout{};
  layout.samplerate = 44100;
  layout.channels = 2;
  layout.format = SF_FORMAT_RAW | SF_FORMAT_PCM_16;
  const Sound from_frame_1 = read_sound(dir / "l.wav"), all = read_sound(dir / "odd.raw", layout);
  ASSERT_EQ(from_frame_1.frames, 249);
  EXPECT_EQ(from_frame_1.samples, std::vector<float>(all.samples.begin() + 2, all.samples.end()));
  for (const char* name : {"s.wav", "p.wav", "f.wav"}) {
    const Sound out = read_sound(dir / name);
    EXPECT_EQ(out.frames, 250) << name;
    EXPECT_EQ(out.samples, read_sound(dir / "odd.wav").samples) << name;
  }
  const Result whole = run(with({HALO_BINARY, "filter", "in.raw", "whole.wav", "--mask", "unit.txt", "-q"}, raw16),
                           in_directory(dir.path()));
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(whole.err, "");
}

}  // namespace
}  // namespace halo::test
