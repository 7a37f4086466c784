// `halo wisdom` measures the CPU engines' FFTs and saves FFTW's wisdom; `halo filter` then
// plans them from it (its --timings says how its plans were made) and still equals the float64
// reference. A broken wisdom file is said once and skipped; bad options are refused.
// HALO_FFTW_WISDOM names the file in every run here, so the user's cache is never touched.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

// `halo ARGS...` with HALO_FFTW_WISDOM=wisdom.
std::vector<std::string> with_wisdom(const std::string& wisdom, std::initializer_list<std::string> args) {
  std::vector<std::string> all = {"/usr/bin/env", "HALO_FFTW_WISDOM=" + wisdom, HALO_BINARY};
  all.insert(all.end(), args);
  return all;
}

struct Job {
  Sound in;
  std::vector<float> mask;
};

Job make_job(TempDir& dir) {
  Job job;
  job.in = make_noise_file(dir / "in.wav", 20000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 31);
  job.mask = random_signal(300, 32, 2.0f / std::sqrt(300.0f));
  write_mask_text(dir / "mask.txt", {job.mask});
  return job;
}

TEST(CliWisdom, MeasuredPlansAreSavedAndUsed) {
  TempDir dir;
  const Job job = make_job(dir);
  const std::string wisdom = dir / "cache/wisdom";  // in a directory that does not exist yet
  const auto measure = with_wisdom(wisdom, {"wisdom", "--taps", "300"});
  const Result made = run(measure);
  ASSERT_EQ(made.exit_code, 0) << describe(measure, made);
  EXPECT_NE(made.err.find("-point FFTs measured in"), std::string::npos) << made.err;
  EXPECT_EQ(read_bytes(wisdom).rfind("(fftw-3.3", 0), 0u) << "not FFTW's wisdom: " << read_bytes(wisdom).substr(0, 200);
  for (const auto& entry : std::filesystem::directory_iterator(dir / "cache"))
    EXPECT_EQ(entry.path().filename(), "wisdom") << "a temporary was left: " << entry.path();

  for (const std::string engine : {"cpu-fft", "cpu-partitioned"}) {
    const auto filter = with_wisdom(wisdom, {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.txt",
                                             "--engine", engine, "--timings"});
    const Result result = run(filter);
    ASSERT_EQ(result.exit_code, 0) << describe(filter, result);
    // cpu-fft plans one length (2 plans), cpu-partitioned one per partition size: all measured.
    EXPECT_NE(result.err.find(" measured (wisdom), 0 estimated"), std::string::npos) << engine << ": " << result.err;
    EXPECT_EQ(result.err.find(" 0 measured (wisdom)"), std::string::npos) << engine << ": " << result.err;
    const Sound out = read_sound(dir / "out.wav");
    EXPECT_LE(relative_error(out.samples, expected_output(job.in.samples, 2, {job.mask}, Align::same, false)), 1e-6)
        << engine;
  }

  // A second run measures nothing and says so (it had said "measured in 0.000 s"), naming whose
  // transform each length is.
  const Result again = run(measure);
  ASSERT_EQ(again.exit_code, 0) << describe(measure, again);
  EXPECT_EQ(again.err.find("measured in"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("wisdom: cpu-fft's "), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("-point FFTs: in the wisdom already"), std::string::npos) << again.err;

  // Without wisdom (HALO_FFTW_WISDOM empty: none at all) every plan is estimated.
  const auto plain = with_wisdom("", {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.txt",
                                      "--engine", "cpu-fft", "--timings"});
  const Result estimated = run(plain);
  ASSERT_EQ(estimated.exit_code, 0) << describe(plain, estimated);
  EXPECT_NE(estimated.err.find("0 measured (wisdom), 2 estimated"), std::string::npos) << estimated.err;
}

TEST(CliWisdom, ABrokenFileIsSaidAndSkipped) {
  TempDir dir;
  const Job job = make_job(dir);
  write_bytes(dir / "broken", "(fftw-3.3 this is not wisdom");
  const auto filter = with_wisdom(dir / "broken", {"filter", dir / "in.wav", dir / "out.wav", "--mask",
                                                   dir / "mask.txt", "--engine", "cpu-fft", "--timings"});
  const Result result = run(filter);
  ASSERT_EQ(result.exit_code, 0) << describe(filter, result);
  EXPECT_NE(result.err.find("halo: warning: FFTW wisdom in " + std::string(dir / "broken") + " could not be read"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("0 measured (wisdom), 2 estimated"), std::string::npos) << result.err;
  const Sound out = read_sound(dir / "out.wav");
  EXPECT_LE(relative_error(out.samples, expected_output(job.in.samples, 2, {job.mask}, Align::same, false)), 1e-6);
}

// What is not a regular file is not read: FFTW reads a path to its end, and /dev/zero or a FIFO
// with no writer had hung every run (a QA pass). The run goes on estimated, and says why.
TEST(CliWisdom, APathThatIsNotARegularFileIsSaidAndSkipped) {
  TempDir dir;
  const Job job = make_job(dir);
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  for (const std::string& place : {std::string("/dev/zero"), dir / "fifo"}) {
    auto filter = with_wisdom(place, {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.txt", "--engine",
                                      "cpu-fft", "--timings"});
    filter.insert(filter.begin(), {"/usr/bin/timeout", "20"});
    const Result result = run(filter);
    ASSERT_EQ(result.exit_code, 0) << describe(filter, result);
    EXPECT_NE(result.err.find("halo: warning: FFTW wisdom in " + place + " is not a regular file"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("0 measured (wisdom), 2 estimated"), std::string::npos) << result.err;
    // A warning, so before the summary, as the others are (it had come last).
    EXPECT_LT(result.err.find("is not a regular file"), result.err.find(" frames in, ")) << result.err;
  }
}

// `--file` adds to what the file holds, as the default place does: a second run for other
// lengths had replaced the first's plans.
TEST(CliWisdom, AFileNamedTwiceKeepsBothRunsPlans) {
  TempDir dir;
  make_job(dir);
  const std::string wisdom = dir / "w";
  for (const std::string taps : {"300", "4000"})
    ASSERT_EQ(run(with_wisdom("", {"wisdom", "--taps", taps, "--file", wisdom, "-q"})).exit_code, 0) << taps;
  const auto filter = with_wisdom(wisdom, {"filter", dir / "in.wav", dir / "out.wav", "--mask", dir / "mask.txt",
                                           "--engine", "cpu-fft", "--timings"});
  const Result result = run(filter);
  ASSERT_EQ(result.exit_code, 0) << describe(filter, result);
  EXPECT_NE(result.err.find(" measured (wisdom), 0 estimated"), std::string::npos) << "the 300-tap plans: " << result.err;
}

// A --file holds its own wisdom and what its runs measure, not the default place's: that had
// been loaded too and merged into it, and the new file's lengths said "in the wisdom already"
// with nothing measured (a QA pass). The default place holds 255 taps' plans; a new --file
// then measures them, and holds none of the default place's 4000-tap plans.
TEST(CliWisdom, AFileNamedHoldsNoneOfTheDefaultPlacesWisdom) {
  TempDir dir;
  const std::string default_place = dir / "default", named = dir / "named";
  ASSERT_EQ(run(with_wisdom(default_place, {"wisdom", "--taps", "255", "--taps", "4000", "-q"})).exit_code, 0);
  const Result fresh = run(with_wisdom(default_place, {"wisdom", "--taps", "255", "--file", named}));
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_EQ(fresh.err.find("in the wisdom already"), std::string::npos) << fresh.err;
  EXPECT_NE(fresh.err.find("measured in"), std::string::npos) << fresh.err;
  // The named file plans 255 taps from wisdom alone, and not 4000 (the default place's).
  const Result again = run(with_wisdom(default_place, {"wisdom", "--taps", "255", "--taps", "4000", "--file", named}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("in the wisdom already"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("measured in"), std::string::npos) << "the 4000-tap plans: " << again.err;
}

// A --file that holds no wisdom FFTW reads is said and replaced, as the default place's is
// (it had been refused, with "run `halo wisdom` again", which failed the same way: a review);
// one that is not a regular file is refused.
TEST(CliWisdom, ABrokenFileNamedIsReplacedAndAFifoRefused) {
  TempDir dir;
  write_bytes(dir / "bad", "garbage\n");
  const auto args = with_wisdom("", {"wisdom", "--taps", "300", "--file", dir / "bad"});
  const Result made = run(args);
  ASSERT_EQ(made.exit_code, 0) << describe(args, made);
  EXPECT_NE(made.err.find("halo: warning: FFTW wisdom in " + dir / "bad" + " could not be read: replaced by what this run measures"),
            std::string::npos)
      << made.err;
  EXPECT_EQ(read_bytes(dir / "bad").rfind("(fftw-3.3", 0), 0u) << "not FFTW's wisdom now";
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  std::vector<std::string> to_fifo = {"/usr/bin/timeout", "20", HALO_BINARY, "wisdom", "--taps", "300", "-q", "--file", dir / "fifo"};
  const Result refused = run(to_fifo);
  EXPECT_EQ(refused.exit_code, 1) << describe(to_fifo, refused);
  EXPECT_EQ(lines_of(refused.err).size(), 1u) << refused.err;
  EXPECT_NE(refused.err.find("is not a regular file"), std::string::npos) << refused.err;
}

TEST(CliWisdom, BadOptionsAndPlacesAreRefused) {
  TempDir dir;
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string says;
  };
  const Case cases[] = {
      {with_wisdom(dir / "w", {"wisdom", "--taps", "0"}), 2, "halo: --taps 0"},
      {with_wisdom(dir / "w", {"wisdom", "--taps", "6abc"}), 2, "halo: --taps 6abc"},
      {with_wisdom(dir / "w", {"wisdom", "--bogus"}), 2, "bogus"},
      {with_wisdom("", {"wisdom", "-q"}), 2, "halo: wisdom: nowhere to save"},
      // An empty --file is named, not taken for an empty HALO_FFTW_WISDOM (a QA pass).
      {with_wisdom(dir / "w", {"wisdom", "-q", "--file", ""}), 2, "halo: --file: an empty name"},
      // `-` is no file FFTW could read back (it had been written as a file named "-", a QA pass).
      {with_wisdom(dir / "w", {"wisdom", "-q", "--file", "-"}), 2, "halo: --file -: wisdom is kept in a file"},
      {with_wisdom(dir / "w", {"wisdom", "--taps", "64", "-q", "--file", "/proc/halo-wisdom"}), 1, "/proc/halo-wisdom"},
  };
  for (const Case& c : cases) {
    const Result result = run(c.args);
    EXPECT_EQ(result.exit_code, c.exit_code) << describe(c.args, result);
    EXPECT_NE(result.err.find(c.says), std::string::npos) << describe(c.args, result);
    EXPECT_FALSE(file_exists(dir / "w")) << describe(c.args, result);
  }
  // A --file in a folder that does not exist is refused, the folder not made (only the default
  // place's is, ~/.cache/halo).
  const auto args = with_wisdom(dir / "w", {"wisdom", "--taps", "64", "-q", "--file", dir / "no/such/w"});
  const Result missing = run(args);
  EXPECT_EQ(missing.exit_code, 1) << describe(args, missing);
  EXPECT_NE(missing.err.find(dir / "no/such"), std::string::npos) << describe(args, missing);
  EXPECT_FALSE(file_exists(dir / "no")) << "a folder was made";
}

}  // namespace
}  // namespace halo::test
