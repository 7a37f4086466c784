// Every bad input of issue 2 run through the built `halo`: a non-zero exit code, exactly one
// stderr line "halo: ..." naming the file or option, no OUT left behind, an existing OUT
// untouched byte for byte, and no new file of any name in OUT's directory (its listing before
// and after the run are compared, so a mask file's temporaries count as a sound file's). Also
// Ctrl-C during a long run. Where the test runs as root, permission cases drop to `nobody`
// (root reads and writes through chmod); file-system cases mount a tmpfs where allowed.
#include <gtest/gtest.h>

#include <filesystem>

#include <sndfile.h>
#include <sys/mount.h>

#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

const std::string existing_bytes = "an existing OUT that must survive\n";

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The failure contract for one run. `out_abs` is where OUT lands on disk (empty: no file to
// check); `existing`, when set, is what OUT held before and must still hold; `before` is OUT's
// directory as it was before the run, and must be again.
//
// stderr: exactly one line, "halo: ..." naming the file or option (the engine notice comes only
// after a successful run), with or without --quiet.
void expect_failure_contract(const std::vector<std::string>& args, const Result& result, const std::string& out_abs,
                             const std::string& must_name, const std::string* existing,
                             const DirectorySnapshot& before) {
  const std::string context = describe(args, result);
  EXPECT_NE(result.exit_code, 0) << context;
  EXPECT_EQ(result.signal, 0) << context;
  const auto lines = lines_of(result.err);
  EXPECT_TRUE(!result.err.empty() && result.err.back() == '\n') << context;
  ASSERT_FALSE(lines.empty()) << context;
  EXPECT_EQ(lines.size(), 1u) << "exactly one line on stderr\n" << context;
  const std::string& error = lines.back();
  EXPECT_EQ(error.rfind("halo: ", 0), 0u) << context;
  EXPECT_NE(error.find(must_name), std::string::npos) << "the message names '" << must_name << "'\n" << context;
  if (out_abs.empty()) return;
  if (existing) {
    ASSERT_TRUE(file_exists(out_abs)) << "the existing OUT was removed\n" << context;
    EXPECT_TRUE(read_bytes(out_abs) == *existing) << "the existing OUT was changed\n" << context;
  } else {
    EXPECT_FALSE(file_exists(out_abs)) << "OUT left behind\n" << context;
  }
  EXPECT_EQ(before.directory(), directory_of(out_abs)) << "the snapshot is of OUT's directory";
  const auto left = before.added();
  EXPECT_TRUE(left.empty()) << "left in " << before.directory() << ": " << joined(left) << "\n" << context;
}

// Runs `args` and checks the failure contract, OUT's directory watched around the run.
void expect_run_fails(const std::vector<std::string>& args, const std::string& out_abs, const std::string& must_name,
                      const std::string* existing, const RunOptions& options = {}) {
  const DirectorySnapshot before(out_abs.empty() ? "" : directory_of(out_abs));
  const Result result = run(args, options);
  expect_failure_contract(args, result, out_abs, must_name, existing, before);
}

// Runs `halo ARGS` without OUT, over an existing OUT, and over it again with --quiet (one
// line only), and checks the contract each time. `out_abs` is where OUT lands on disk.
void expect_clean_failure(const std::vector<std::string>& halo_arguments, const std::string& out_abs,
                          const std::string& must_name, const RunOptions& options = {}) {
  std::vector<std::string> args = {HALO_BINARY};
  args.insert(args.end(), halo_arguments.begin(), halo_arguments.end());
  unlink(out_abs.c_str());
  expect_run_fails(args, out_abs, must_name, nullptr, options);
  write_bytes(out_abs, existing_bytes);
  expect_run_fails(args, out_abs, must_name, &existing_bytes, options);
  if (halo_arguments.front() == "filter") {
    args.push_back("--quiet");
    expect_run_fails(args, out_abs, must_name, &existing_bytes, options);
  }
  unlink(out_abs.c_str());
}

class CliErrors : public testing::Test {
 protected:
  void SetUp() override {
    in_ = make_noise_file(dir_ / "in.wav", 2000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1);
  }
  std::string in() const { return dir_ / "in.wav"; }
  std::string out() const { return dir_ / "out.wav"; }

  // `halo filter IN OUT EXTRA...` with the default mask unless EXTRA gives one.
  void expect_filter_fails(std::vector<std::string> extra, const std::string& must_name) {
    bool has_mask = false;
    for (const auto& arg : extra)
      for (const char* option : {"--lowpass", "--highpass", "--bandpass", "--bandstop", "--mask", "--ir"})
        has_mask = has_mask || arg == option;
    std::vector<std::string> args = {"filter", in(), out()};
    if (!has_mask) args.insert(args.end(), {"--lowpass", "1000"});
    args.insert(args.end(), extra.begin(), extra.end());
    expect_clean_failure(args, out(), must_name);
  }

  TempDir dir_;
  Sound in_;
};

// Whether `halo` can be run as `nobody` (the tests drop to it when running as root).
bool nobody_can_run_halo() {
  RunOptions options;
  options.uid = nobody_uid();
  return run(halo_args({"--version"}), options).exit_code == 0;
}

// ---------------------------------------------------------------- IN

// A name holding a newline or an escape sequence still gives one line, its control characters
// written as \xNN: a name "a\nb" had split the error in two, and escapes reached the terminal
// (a QA pass).
TEST_F(CliErrors, ControlCharactersInNamesStayOnOneLine) {
  const DirectorySnapshot before(dir_.path());
  expect_one_line_failure(halo({"filter", in(), dir_ / "a\nb.xyz", "--lowpass", "1000"}), 2, "a\\x0Ab.xyz", before,
                          "a newline in OUT");
  expect_one_line_failure(halo({"filter", dir_ / "x\x1b[31m.wav", out(), "--lowpass", "1000"}), 1, "x\\x1B[31m.wav",
                          before, "an escape in IN");
}

TEST_F(CliErrors, MissingInput) {
  expect_clean_failure({"filter", dir_ / "missing.wav", out(), "--lowpass", "1000"}, out(), "missing.wav");
}

// play's FILE is opened before any device is looked for: on a machine with no device (no JACK
// server here, and none started), a missing FILE had been "no output device" (a README QA pass).
TEST_F(CliErrors, PlayNamesAMissingFileBeforeLookingForADevice) {
  const std::vector<std::string> args = {"/usr/bin/env", "JACK_NO_START_SERVER=1", "JACK_DEFAULT_SERVER=halo-no-server",
                                         HALO_BINARY, "play", dir_ / "missing.wav", "--lowpass", "1000"};
  const Result result = run(args);
  EXPECT_EQ(result.exit_code, 1) << describe(args, result);
  EXPECT_EQ(result.err, "halo: " + dir_ / "missing.wav" + ": No such file or directory\n") << describe(args, result);
}

// And its mask files, and live's spec at a --rate given (live runs at it whatever the device):
// named with the exit code a server's presence does not change (they had been "no output
// device", exit 1, where with a server they were exit 2 and the mask's own words: a QA pass).
// play's spec waits for the device's rate, which may not be IN's (a review).
TEST_F(CliErrors, PlayAndLiveNameABadMaskBeforeLookingForADevice) {
  const std::vector<std::string> no_server = {"/usr/bin/env", "JACK_NO_START_SERVER=1", "JACK_DEFAULT_SERVER=halo-no-server",
                                              HALO_BINARY};
  const auto with = [&](std::vector<std::string> words) {
    std::vector<std::string> args = no_server;
    args.insert(args.end(), words.begin(), words.end());
    return args;
  };
  const std::string even = "halo: --taps 256: a highpass needs an odd number of taps (try 257)\n";
  for (const auto& args : {with({"live", "--highpass", "1k", "--taps", "256", "--rate", "48000"})}) {
    const Result result = run(args);
    EXPECT_EQ(result.exit_code, 2) << describe(args, result);
    EXPECT_EQ(result.err, even) << describe(args, result);
  }
  for (const auto& missing : {with({"play", in(), "--mask", dir_ / "missing.txt"}), with({"live", "--ir", dir_ / "missing.txt"})}) {
    const Result result = run(missing);
    EXPECT_EQ(result.exit_code, 1) << describe(missing, result);
    EXPECT_EQ(result.err, "halo: " + dir_ / "missing.txt" + ": No such file or directory\n") << describe(missing, result);
  }
  // A raw FILE shorter than a frame says why it has none, as filter says it (a review).
  write_bytes(dir_ / "three.raw", "abc");
  const auto raw = with({"play", dir_ / "three.raw", "-t", "raw", "--rate", "48000", "--channels", "2", "--encoding",
                         "pcm16", "--lowpass", "1k"});
  const Result short_raw = run(raw);
  EXPECT_EQ(short_raw.exit_code, 1) << describe(raw, short_raw);
  EXPECT_EQ(short_raw.err, "halo: " + dir_ / "three.raw" + ": has no audio frames; " + dir_ / "three.raw" +
                               " ends with 3 bytes that make no whole frame of 2 channels: they were not read (check "
                               "--channels and --encoding)\n");
  // A play whose file is at another rate than a mask made at the device's still reaches the
  // device (here: none), not a refusal made at IN's rate.
  const Result at_device = run(with({"play", in(), "--lowpass", "1k"}));
  EXPECT_NE(at_device.err.find("no output device"), std::string::npos) << at_device.err;
}

TEST_F(CliErrors, InputIsADirectory) {
  mkdir((dir_ / "folder.wav").c_str(), 0755);
  expect_clean_failure({"filter", dir_ / "folder.wav", out(), "--lowpass", "1000"}, out(), "folder.wav");
}

TEST_F(CliErrors, UnreadableInput) {
  chmod((dir_ / "in.wav").c_str(), 0);
  RunOptions options;
  if (running_as_root()) {
    if (!nobody_can_run_halo())
      GTEST_SKIP() << "running as root, where chmod 000 does not stop reading, and `nobody` cannot run "
                   << HALO_BINARY;
    options.uid = nobody_uid();
    chmod(dir_.path().c_str(), 0777);  // nobody may write OUT here: only IN is the problem
  }
  expect_clean_failure({"filter", in(), out(), "--lowpass", "1000"}, out(), "in.wav", options);
}

TEST_F(CliErrors, NotAudio) {
  write_bytes(dir_ / "text.wav", "this is not a sound file, just some text\n");
  expect_clean_failure({"filter", dir_ / "text.wav", out(), "--lowpass", "1000"}, out(), "text.wav");
  std::string noise(5000, '\0');
  const auto values = random_signal(noise.size(), 2);
  for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>(values[i] * 127);
  write_bytes(dir_ / "noise.flac", noise);
  expect_clean_failure({"filter", dir_ / "noise.flac", out(), "--lowpass", "1000"}, out(), "noise.flac");
  write_bytes(dir_ / "empty.wav", "");
  // Said as such (libsndfile's "Format not recognised" had sent the user looking at the format).
  expect_clean_failure({"filter", dir_ / "empty.wav", out(), "--lowpass", "1000"}, out(), "empty.wav: an empty file (0 bytes)");
  const Result info = halo({"info", dir_ / "empty.wav"});
  EXPECT_EQ(info.err, "halo: " + std::string(dir_ / "empty.wav") + ": an empty file (0 bytes)\n");
  // A file whose size says 0 but that has bytes to read (/proc's) is no empty file (a QA pass).
  const Result proc = halo({"info", "/proc/cpuinfo"});
  EXPECT_EQ(proc.exit_code, 1);
  EXPECT_EQ(proc.err, "halo: /proc/cpuinfo: not a sound file libsndfile can read (Format not recognised.)\n");
  // And one whose read fails (/proc/self/mem at offset 0) says so, not "empty" (a QA note).
  const Result memory = halo({"info", "/proc/self/mem"});
  EXPECT_EQ(memory.exit_code, 1);
  EXPECT_EQ(memory.err, "halo: /proc/self/mem: cannot be read: Input/output error\n");
  // Standard input from a device that gives no bytes (< /dev/null) is empty too (it had been "not
  // a sound file"); from one that gives bytes (/dev/zero, no sound), not.
  expect_clean_failure({"filter", "-", out(), "--lowpass", "1000"}, out(), "standard input: empty: no bytes came");
  RunOptions zeros;
  zeros.stdin_path = "/dev/zero";
  const Result from_zeros = halo({"info", "-"}, zeros);
  EXPECT_EQ(from_zeros.exit_code, 1);
  EXPECT_NE(from_zeros.err.find("standard input: not a sound file"), std::string::npos) << from_zeros.err;
  // An empty IN name is named so, as info's is (it had been "halo: : No such file or directory").
  expect_clean_failure({"filter", "", out(), "--lowpass", "1000"}, out(), "filter: an empty IN name");
}

TEST_F(CliErrors, TruncatedOrCorruptHeader) {
  const std::string good = read_bytes(in());
  struct Damage {
    std::string name;
    std::string bytes;
  };
  std::vector<Damage> damaged = {
      {"truncated30.wav", good.substr(0, 30)},  // inside the fmt chunk
      {"truncated12.wav", good.substr(0, 12)},  // RIFF header only
  };
  std::string magic = good;
  magic.replace(8, 4, "XXXX");  // "WAVE" -> garbage
  damaged.push_back({"magic.wav", magic});
  std::string format_chunk = good;
  format_chunk[20] = 0x77;  // audio format code nobody knows
  damaged.push_back({"format.wav", format_chunk});
  std::string channels = good;
  channels[22] = 0;  // 0 channels
  channels[23] = 0;
  damaged.push_back({"channels.wav", channels});
  for (const auto& damage : damaged) {
    write_bytes(dir_ / damage.name, damage.bytes);
    expect_clean_failure({"filter", dir_ / damage.name, out(), "--lowpass", "1000"}, out(), damage.name);
  }
}

// A process limit that refuses a thread (ulimit -u) at whatever point it bites: one `halo:`
// line saying a thread could not start, exit 1, nothing left beside OUT. halo had aborted
// ("terminate called without an active exception", SIGABRT) when the writer's thread failed
// after the reader's had started, leaving its temporary (a QA pass).
TEST_F(CliErrors, AThreadThatCannotStartFailsCleanly) {
  RunOptions options;
  if (running_as_root()) {
    if (!nobody_can_run_halo()) GTEST_SKIP() << "running as root, and `nobody` cannot run " << HALO_BINARY;
    options.uid = nobody_uid();  // RLIMIT_NPROC does not bind root
    chmod(dir_.path().c_str(), 0777);
  }
  int refused = 0;
  for (int processes = 1; processes <= 8; ++processes) {
    const std::string command = "ulimit -u " + std::to_string(processes) + " && exec \"$0\" \"$@\"";
    const std::vector<std::string> args = {"/bin/bash", "-c", command, HALO_BINARY, "filter", in(), out(),
                                           "--lowpass", "1000", "--threads", "4"};
    unlink(out().c_str());
    const DirectorySnapshot before(dir_.path());
    const Result result = run(args, options);
    EXPECT_EQ(result.signal, 0) << describe(args, result);
    if (result.exit_code == 0) continue;  // enough threads at this limit
    ++refused;
    expect_failure_contract(args, result, out(), "cannot start a thread", nullptr, before);
  }
  EXPECT_GT(refused, 0) << "no limit refused a thread: the test tests nothing";
}

TEST_F(CliErrors, ZeroFrames) {
  write_sound(dir_ / "zero.wav", {}, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  ASSERT_EQ(read_sound(dir_ / "zero.wav").frames, 0);
  expect_clean_failure({"filter", dir_ / "zero.wav", out(), "--lowpass", "1000"}, out(), "zero.wav");
  write_sound(dir_ / "zero.flac", {}, 1, 44100, SF_FORMAT_FLAC | SF_FORMAT_PCM_16);
  expect_clean_failure({"filter", dir_ / "zero.flac", out(), "--lowpass", "1000"}, out(), "zero.flac");
}

TEST_F(CliErrors, ZeroFramesOnStandardInput) {
  write_sound(dir_ / "zero.au", {}, 2, 48000, SF_FORMAT_AU | SF_FORMAT_FLOAT);
  for (const char* name : {"zero.au", "in.wav"}) {
    // A pipe that holds only a header (or nothing at all for in.wav: head -c 0).
    const std::string feed = std::string(name) == "in.wav" ? "head -c 0 '" + in() + "'" : "cat '" + (dir_ / name) + "'";
    for (const bool quiet : {false, true}) {
      const std::string command =
          feed + " | '" + HALO_BINARY + "' filter - '" + out() + "' --lowpass 1000" + (quiet ? " --quiet" : "");
      unlink(out().c_str());
      const DirectorySnapshot before(dir_.path());
      const Result result = run({"/bin/sh", "-c", command});
      expect_failure_contract({command}, result, out(), "standard input", nullptr, before);
    }
  }
}

// A piped WAV whose header declares frames, none of which come: said with the count, as a
// stream cut short (it had read as a file with no frames at all; a QA pass).
TEST_F(CliErrors, APipedHeaderWithoutItsFramesSaysWhatItDeclared) {
  const std::string bytes = read_bytes(in());
  const std::size_t data = bytes.find("data");
  ASSERT_NE(data, std::string::npos);
  const std::string command = "head -c " + std::to_string(data + 8) + " '" + in() + "' | '" + HALO_BINARY +
                              "' filter - '" + out() + "' --lowpass 1000";
  unlink(out().c_str());
  const DirectorySnapshot before(dir_.path());
  const Result result = run({"/bin/sh", "-c", command});
  expect_failure_contract({command}, result, out(), "standard input: ended before its first frame, though its header "
                                                    "declares 2000 frames", nullptr, before);
}

// ---------------------------------------------------------------- OUT

TEST_F(CliErrors, OutputIsTheInput) {
  const std::string before = read_bytes(in());
  RunOptions in_dir;
  in_dir.cwd = dir_.path();
  link(in().c_str(), (dir_ / "hardlink.wav").c_str());
  symlink("in.wav", (dir_ / "symlink.wav").c_str());
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {in(), in()}, {"in.wav", "./in.wav"}, {"./in.wav", "in.wav"}, {"in.wav", dir_ / "in.wav"},
      {"in.wav", "hardlink.wav"}, {"in.wav", "symlink.wav"}, {"symlink.wav", "in.wav"}};
  for (const auto& [input, output] : pairs) {
    const std::vector<std::string> args = halo_args({"filter", input, output, "--lowpass", "1000"});
    expect_run_fails(args, in(), output, &before, in_dir);
    EXPECT_TRUE(read_bytes(dir_ / "hardlink.wav") == before);
  }
}

TEST_F(CliErrors, OutputInAMissingDirectory) {
  const std::string out_path = dir_ / "no/such/dir/out.wav";
  const auto args = halo_args({"filter", in(), out_path, "--lowpass", "1000"});
  const DirectorySnapshot parent(dir_.path());
  expect_run_fails(args, out_path, "no/such/dir", nullptr);
  EXPECT_TRUE(parent.added().empty()) << "left in " << dir_.path() << ": " << joined(parent.added());
}

TEST_F(CliErrors, OutputInAReadOnlyDirectory) {
  const std::string locked = dir_ / "locked";
  mkdir(locked.c_str(), 0755);
  write_bytes(locked + "/existing.wav", existing_bytes);
  chmod(locked.c_str(), 0555);
  RunOptions options;
  if (running_as_root()) {
    if (!nobody_can_run_halo())
      GTEST_SKIP() << "running as root, where a 0555 directory is still writable, and `nobody` cannot run "
                   << HALO_BINARY;
    options.uid = nobody_uid();
    chmod(dir_.path().c_str(), 0755);
  }
  for (const char* name : {"new.wav", "existing.wav"}) {
    const std::string out_path = locked + "/" + name;
    const auto args = halo_args({"filter", in(), out_path, "--lowpass", "1000"});
    const bool existed = file_exists(out_path);
    expect_run_fails(args, out_path, out_path, existed ? &existing_bytes : nullptr, options);
  }
}

// A tmpfs mounted for one test (root only, where mounting is allowed); unmounted on exit.
class TmpfsMount {
 public:
  TmpfsMount(const std::string& path, const std::string& options) : path_(path) {
    mkdir(path.c_str(), 0755);
    mounted_ = mount("tmpfs", path.c_str(), "tmpfs", 0, options.c_str()) == 0;
    if (!mounted_) error_ = std::strerror(errno);
  }
  ~TmpfsMount() {
    if (mounted_) umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  bool remount_read_only() {
    return mount(nullptr, path_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0;
  }

 private:
  std::string path_;
  bool mounted_ = false;
  std::string error_;
};

TEST_F(CliErrors, OutputOnAReadOnlyFileSystem) {
  TmpfsMount ro(dir_ / "ro", "size=64k");
  if (!ro.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (" << ro.error() << "); needs root";
  write_bytes(dir_ / "ro/existing.wav", existing_bytes);
  if (!ro.remount_read_only()) GTEST_SKIP() << "cannot remount the tmpfs read-only: " << std::strerror(errno);
  for (const char* name : {"new.wav", "existing.wav"}) {
    const std::string out_path = dir_ / "ro/" + name;
    const auto args = halo_args({"filter", in(), out_path, "--lowpass", "1000"});
    const bool existed = file_exists(out_path);
    expect_run_fails(args, out_path, out_path, existed ? &existing_bytes : nullptr);
  }
}

TEST_F(CliErrors, FullDisk) {
  // /dev/full: a device, written directly; every write fails with ENOSPC.
  const auto args = halo_args({"filter", in(), "/dev/full", "--lowpass", "1000"});
  expect_run_fails(args, "", "/dev/full", nullptr);
  // Raw audio has no header to fail on first: the failure comes from writing samples.
  make_noise_file(dir_ / "long.wav", 200000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 3);
  for (const bool quiet : {false, true}) {
    auto long_args = halo_args({"filter", dir_ / "long.wav", "/dev/full", "--lowpass", "1000", "--type", "raw"});
    if (quiet) long_args.push_back("--quiet");
    expect_run_fails(long_args, "", "/dev/full", nullptr);
  }
}

// design's text to a full standard output says why: its one write fails inside stdio, and the
// reason had been lost ("standard output: write failed", a QA pass); a reader that goes away
// (`| head`) is still no failure (Signals.SigpipeIsNoStop).
TEST_F(CliErrors, DesignToAFullStandardOutputSaysWhy) {
  for (const std::string format : {"txt", "json"}) {
    RunOptions to_full;
    to_full.stdout_path = "/dev/full";
    const Result result = halo({"design", "--lowpass", "1k", "--taps", "4095", "--format", format, "-q", "-o", "-"}, to_full);
    EXPECT_EQ(result.exit_code, 1) << format;
    EXPECT_EQ(result.err, "halo: standard output: write failed: No space left on device\n") << format;
  }
}

TEST_F(CliErrors, FullTinyFileSystem) {
  TmpfsMount tiny(dir_ / "tiny", "size=64k");
  if (!tiny.mounted()) GTEST_SKIP() << "cannot mount a 64 kB tmpfs here (" << tiny.error() << "); needs root";
  // 200000 stereo float frames: 1.6 MB of output for 64 kB of room.
  make_noise_file(dir_ / "long.wav", 200000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 4);
  expect_clean_failure({"filter", dir_ / "long.wav", dir_ / "tiny/out.wav", "--lowpass", "1000"},
                       dir_ / "tiny/out.wav", "tiny/out.wav");
  // Nothing of the failed runs is left on the file system.
  EXPECT_EQ(list_directory(dir_ / "tiny").size(), 0u);
}

// ---------------------------------------------------------------- band edges and taps

TEST_F(CliErrors, CutoffsAtOrAboveNyquist) {
  expect_filter_fails({"--lowpass", "24000"}, "--lowpass");
  expect_filter_fails({"--lowpass", "30000"}, "--lowpass");
  expect_filter_fails({"--lowpass", "24k"}, "--lowpass");
  expect_filter_fails({"--highpass", "24000"}, "--highpass");
  expect_filter_fails({"--bandpass", "1000:24000"}, "--bandpass");
  expect_filter_fails({"--bandstop", "1000:30000"}, "--bandstop");
  expect_filter_fails({"--bandpass", "25000:26000"}, "--bandpass");
  expect_filter_fails({"--lowpass", "4000", "--transition", "30000", "--attenuation", "60"}, "--transition");
}

TEST_F(CliErrors, NegativeZeroOrReversedBandEdges) {
  expect_filter_fails({"--lowpass", "-5"}, "--lowpass");
  expect_filter_fails({"--lowpass", "0"}, "--lowpass");
  expect_filter_fails({"--highpass", "-1000"}, "--highpass");
  expect_filter_fails({"--bandpass", "-100:1000"}, "--bandpass");
  expect_filter_fails({"--bandpass", "3000:1000"}, "--bandpass");
  expect_filter_fails({"--bandstop", "3000:3000"}, "--bandstop");
  expect_filter_fails({"--bandstop", "5000:-1000"}, "--bandstop");
  expect_filter_fails({"--bandpass", "1000"}, "--bandpass");
  expect_filter_fails({"--lowpass", "abc"}, "--lowpass");
  expect_filter_fails({"--lowpass", "1000", "--transition", "-10", "--attenuation", "60"}, "--transition");
  expect_filter_fails({"--lowpass", "1000", "--transition", "100", "--attenuation", "-60"}, "--attenuation");
}

TEST_F(CliErrors, EvenTapsWhereOddAreNeeded) {
  expect_filter_fails({"--highpass", "1000", "--taps", "64"}, "--taps");
  expect_filter_fails({"--bandstop", "1000:2000", "--taps", "100"}, "--taps");
  expect_filter_fails({"--lowpass", "1000", "--taps", "0"}, "--taps");
  expect_filter_fails({"--lowpass", "1000", "--taps", "-3"}, "--taps");
}

TEST_F(CliErrors, BadDesignOptions) {
  expect_filter_fails({"--lowpass", "1000", "--window", "triangle"}, "--window");
  expect_filter_fails({"--lowpass", "1000", "--transition", "100"}, "--attenuation");
  expect_filter_fails({"--lowpass", "1000", "--highpass", "2000"}, "--");
  expect_filter_fails({"--mask", dir_ / "in.wav", "--taps", "31"}, "--taps");
}

// ---------------------------------------------------------------- mask files

TEST_F(CliErrors, BadMaskFiles) {
  struct BadMask {
    std::string name;
    std::string bytes;
  };
  const std::vector<BadMask> masks = {
      {"empty.txt", ""},
      {"comments.txt", "# only a comment\n\n   \n# and another\n"},
      {"nan.txt", "0.25\n0.5\nnan\n0.25\n"},
      {"inf.txt", "0.25\ninf\n0.25\n"},
      {"minus_inf.txt", "0.25\n-inf\n"},
      {"huge.txt", "0.25\n1e300\n"},
      {"words.txt", "0.25\nhello\n"},
      {"trailing.txt", "0.25\n0.5abc\n"},
      {"ragged.txt", "0.25 0.5\n0.25\n"},
      {"empty.f32", ""},
      {"odd.f32", "abcdefg"},
      {"nan.f32", std::string("\x00\x00\x80\x3e\x00\x00\xc0\x7f", 8)},  // 0.25, NaN
      {"inf.f32", std::string("\x00\x00\x80\x7f", 4)},                  // +Inf
      {"notaudio.wav", "this is not a wav file\n"},
  };
  for (const auto& mask : masks) {
    write_bytes(dir_ / mask.name, mask.bytes);
    expect_filter_fails({"--mask", dir_ / mask.name}, mask.name);
  }
  write_sound(dir_ / "silent_ir.wav", {}, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  expect_filter_fails({"--ir", dir_ / "silent_ir.wav"}, "silent_ir.wav");
  expect_filter_fails({"--mask", dir_ / "missing.txt"}, "missing.txt");
  expect_filter_fails({"--ir", dir_ / "missing.wav"}, "missing.wav");
}

TEST_F(CliErrors, MaskChannelsNotMatchingTheInput) {
  write_mask_text(dir_ / "three.txt", {{0.5f, 0.25f}, {0.5f, 0.25f}, {0.5f, 0.25f}});
  expect_filter_fails({"--mask", dir_ / "three.txt"}, "in.wav");
  write_sound(dir_ / "ir3.wav", random_signal(3 * 40, 5, 0.3f), 3, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  expect_filter_fails({"--ir", dir_ / "ir3.wav"}, "in.wav");
}

TEST_F(CliErrors, MaskLongerThanTheFileStillWorks) {
  // Not an error: it is just convolution. 10 frames through 101 taps, every alignment.
  const Sound short_in = make_noise_file(dir_ / "short.wav", 10, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 6);
  const auto taps = random_signal(101, 7, 0.1f);
  write_mask_text(dir_ / "long.txt", {taps});
  for (const auto& [flags, align, tail] : std::vector<std::tuple<std::vector<std::string>, Align, bool>>{
           {{}, Align::same, false},
           {{"--tail"}, Align::same, true},
           {{"--align", "causal", "--tail"}, Align::causal, true}}) {
    auto args = halo_args({"filter", dir_ / "short.wav", out(), "--mask", dir_ / "long.txt", "--quiet"});
    args.insert(args.end(), flags.begin(), flags.end());
    const Result result = run(args);
    ASSERT_EQ(result.exit_code, 0) << describe(args, result);
    const Sound got = read_sound(out());
    const auto ref = expected_output(short_in.samples, 2, {taps}, align, tail);
    EXPECT_EQ(got.samples.size(), ref.size());
    EXPECT_LE(relative_error(got.samples, ref), 1e-6);
  }
}

// ---------------------------------------------------------------- other options

TEST_F(CliErrors, UnknownEngine) {
  expect_filter_fails({"--engine", "gpu"}, "--engine");
  expect_filter_fails({"--engine", ""}, "--engine");
}

TEST_F(CliErrors, BadChunk) {
  for (const char* chunk : {"0", "-5", "abc", "1.5", "99999999999", "18446744073709551617"})
    expect_filter_fails({"--chunk", chunk}, "--chunk");
}

TEST_F(CliErrors, BadSubtypeAndContainer) {
  expect_filter_fails({"--subtype", "pcm17"}, "--subtype");
  expect_filter_fails({"--subtype", ""}, "--subtype");
  // WAV cannot hold Vorbis, nor (libsndfile writes MPEG only as an MP3 file) MP3, which had
  // failed with libsndfile's "Supported file format but unsupported encoding".
  expect_filter_fails({"--subtype", "vorbis"}, "--subtype");
  expect_filter_fails({"--subtype", "mp3"}, "WAV cannot hold --subtype mp3");
  // An output name whose extension no container has, written as the input's container, is
  // fine; a FLAC cannot hold float.
  unlink((dir_ / "out.flac").c_str());
  expect_clean_failure({"filter", in(), dir_ / "out.flac", "--lowpass", "1000", "--subtype", "float"},
                       dir_ / "out.flac", "--subtype");
}

// cxxopts's own refusals read as halo's others: in halo's words, the option as it was typed, the
// command (ir's too) and its help ("Option 'lowpas' does not exist" had been cxxopts's wording
// beside halo's own, a QA pass).
TEST_F(CliErrors, AnUnknownOptionNamesItsCommandAndHelp) {
  const Result filter = halo({"filter", in(), out(), "--lowpass", "1k", "--bogus"});
  EXPECT_EQ(filter.exit_code, 2);
  EXPECT_EQ(filter.err, "halo: filter: unknown option --bogus (see halo filter --help)\n");
  const Result short_option = halo({"filter", in(), out(), "--lowpass", "1k", "-z"});
  EXPECT_EQ(short_option.err, "halo: filter: unknown option -z (see halo filter --help)\n");
  const Result fix = halo({"ir", "fix", in(), dir_ / "ir.wav", "--in-rat", "4"});
  EXPECT_EQ(fix.exit_code, 2);
  EXPECT_EQ(fix.err, "halo: ir fix: unknown option --in-rat (see halo ir fix --help)\n");
  const Result design = halo({"design", "--taps"});
  EXPECT_EQ(design.err, "halo: design: --taps needs a value (see halo design --help)\n");
  const Result dashes = halo({"filter", in(), out(), "---lowpass", "1k"});
  EXPECT_EQ(dashes.exit_code, 2);
  EXPECT_EQ(dashes.err, "halo: filter: '---lowpass' is no option (options are -x or --name) (see halo filter --help)\n");
}

// Each mistake in one line that quotes what was typed and names what is wrong, with exit 2 (a
// QA pass of the command line found each of these saying less, or something else).
TEST_F(CliErrors, MessagesQuoteWhatWasTyped) {
  const auto expect_line = [](const Result& result, const std::string& line) {
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(result.err, "halo: " + line + "\n");
  };
  expect_line(halo({}), "give a command: filter, design, info, ir, devices, play, live or wisdom (halo --help describes them)");
  expect_line(halo({"info", in(), "b.wav"}), "info takes one FILE: 'b.wav' is a second file name");
  expect_line(halo({"--version", "extra"}), "--version takes nothing after it: 'extra'");
  const Result help = halo({"help", "filter"});  // as `halo filter --help`, as git takes it
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out.rfind("Filter a sound file with an FIR mask.", 0), 0u) << help.out;
  expect_line(halo({"play", in(), "extra", "--lowpass", "1k"}), "play takes one FILE: 'extra' is a second file name");
  expect_line(halo({"design", "--lowpass", "1k", "--window", "kaiser:9dB"}),
              "--window kaiser:9dB: \"9dB\" is not a Kaiser beta (a number, e.g. kaiser:8.6)");
  expect_line(halo({"filter", in(), out(), "--bandpass", "1k:"}), "--bandpass 1k:: give the band as LO:HI");
  expect_line(halo({"filter", in(), out(), "--bandpass", ":1k"}), "--bandpass :1k: give the band as LO:HI");
  expect_line(halo({"ir", "fix", in(), dir_ / "ir.wav", "--fade-out", "0"}), "--fade-out 0: give a length in ms above 0");
  expect_line(halo({"wisdom", "--taps", "255,", "--file", dir_ / "w"}),
              "--taps 255,: an empty item in the list (give lengths as 255,1023)");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "w"));
  // What is accepted in any case or unit elsewhere is accepted here too: -t RAW, band edges in kHz.
  const Result raw = halo({"filter", dir_ / "missing.raw", out(), "-t", "RAW", "--rate", "8000", "--channels", "1",
                           "--encoding", "pcm16", "--lowpass", "1k"});
  EXPECT_EQ(raw.exit_code, 1) << raw.err;
  EXPECT_NE(raw.err.find("missing.raw"), std::string::npos) << raw.err;
  const Result bands = halo({"design", "--bands", "0-3kHz:1, 4kHz-24kHz:0", "--taps", "101", "-q"});
  EXPECT_EQ(bands.exit_code, 0) << bands.err;
}

TEST_F(CliErrors, OtherBadOptionsAndUsage) {
  expect_filter_fails({"--align", "middle"}, "--align");
  expect_filter_fails({"--gain", "abc"}, "--gain");
  expect_filter_fails({"--gain", "1000"}, "--gain");
  expect_filter_fails({"--frobnicate"}, "frobnicate");
  // No mask at all.
  expect_clean_failure({"filter", in(), out()}, out(), "--lowpass");
  // One file only / three files.
  const auto one = halo_args({"filter", in(), "--lowpass", "1000"});
  expect_run_fails(one, "", "OUT", nullptr);
  expect_clean_failure({"filter", in(), out(), dir_ / "third.wav", "--lowpass", "1000"}, out(), "OUT");
  const auto unknown = halo_args({"transmogrify"});
  expect_run_fails(unknown, "", "transmogrify", nullptr);
}

TEST_F(CliErrors, DesignAndInfoErrors) {
  expect_clean_failure({"design", "--lowpass", "30000", "--rate", "48000", "-o", dir_ / "mask.txt"},
                       dir_ / "mask.txt", "--lowpass");
  expect_clean_failure({"design", "--highpass", "1000", "--taps", "64", "-o", dir_ / "mask.txt"}, dir_ / "mask.txt",
                       "--taps");
  expect_clean_failure({"design", "--lowpass", "1000", "--rate", "-8000", "-o", dir_ / "mask.txt"},
                       dir_ / "mask.txt", "--rate");
  const auto missing_dir = halo_args({"design", "--lowpass", "1000", "-o", dir_ / "nowhere/mask.txt"});
  expect_run_fails(missing_dir, dir_ / "nowhere/mask.txt", "nowhere", nullptr);
  const auto info_missing = halo_args({"info", dir_ / "missing.wav"});
  expect_run_fails(info_missing, "", "missing.wav", nullptr);
  write_bytes(dir_ / "text.wav", "not audio\n");
  const auto info_text = halo_args({"info", dir_ / "text.wav"});
  expect_run_fails(info_text, "", "text.wav", nullptr);
}

// ---------------------------------------------------------------- Ctrl-C

TEST_F(CliErrors, InterruptLeavesNothingBehind) {
  // Ten minutes of mono 48 kHz through 64-frame chunks and 4095 taps: seconds of work, even
  // for the vectorised direct engine (at 255 taps it finished the file in 0.28 s on a 2-core
  // VM, before the interrupt came).
  make_noise_file(dir_ / "long.wav", 600 * 48000, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 8);
  for (const auto& [existed, quiet] : {std::pair{false, false}, std::pair{true, false}, std::pair{true, true}}) {
    unlink(out().c_str());
    if (existed) write_bytes(out(), existing_bytes);
    auto args =
        halo_args({"filter", dir_ / "long.wav", out(), "--lowpass", "1000", "--taps", "4095", "--chunk", "64", "--engine", "cpu"});
    if (quiet) args.push_back("--quiet");
    RunOptions options;
    options.stdout_path = "/dev/null";
    const DirectorySnapshot before(dir_.path());
    Process process(args, options);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_TRUE(process.running()) << "the run finished before the interrupt: make the input longer";
    // Some output has been written by now: the temporary exists while the run goes on.
    kill(process.pid(), SIGINT);
    const Result result = process.wait();
    EXPECT_EQ(result.exit_code, 130) << describe(args, result);
    expect_failure_contract(args, result, out(), "interrupted", existed ? &existing_bytes : nullptr, before);
  }
}

}  // namespace
}  // namespace halo::test
