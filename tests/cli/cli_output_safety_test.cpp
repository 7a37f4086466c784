// Issue 13, items 1, 2, 4, 6, 14 and 15: what OUT is and where its bytes go. Each test runs the
// built `halo` through /bin/sh on real files (a real symbolic link, device node, FIFO, pipe,
// /dev/full, a 64 KiB tmpfs), and checks the samples with numpy and soundfile
// (/usr/bin/python3), never with halo's own code. The mask is one tap of 0.5, so every expected
// output is exactly half the input.
#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {
namespace {

// The lines of stderr that start with "halo:" (design's summary also goes to stderr).
std::vector<std::string> halo_lines(const Result& result) {
  std::vector<std::string> lines;
  for (const std::string& line : lines_of(result.err))
    if (line.rfind("halo:", 0) == 0) lines.push_back(line);
  return lines;
}

// A work directory for the files under test; output is captured outside it, so that "nothing
// left behind" can be checked on its listing.
class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    // Inputs made by soundfile: float stereo noise, and copies as pcm16 FLAC and CAF.
    const Result made = python(R"(
import numpy as np, soundfile as sf
x = np.random.default_rng(13).uniform(-0.5, 0.5, (4800, 2)).astype(np.float32)
sf.write('in.wav', x, 48000, subtype='FLOAT')
q = np.round(x * 32767) / 32768
sf.write('in16.flac', q, 48000, subtype='PCM_16')
sf.write('in16.caf', q, 48000, subtype='PCM_16')
open('half.txt', 'w').write('0.5\n')
)");
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }

  std::string at(const std::string& name) const { return work_ / name; }

  // Runs `command` with /bin/sh in the work directory; $HALO is the binary under test. stdout
  // and stderr are captured unless the command redirects them itself.
  Result sh(const std::string& command) const {
    const std::string full = std::string("HALO='") + HALO_BINARY + "' && export HALO && { " + command + "\n}";
    return run({"/bin/sh", "-c", full}, in_directory(work_.path()));
  }

  // A Python script (numpy, scipy, soundfile) run in the work directory; a failed assert is a
  // non-zero exit with the reason on stderr.
  Result python(const std::string& script) const { return test::python(work_.path(), script); }

  // `out` (read by soundfile) is half of `in`: frames, channels and every sample, exactly or
  // within `tolerance`.
  void expect_half(const std::string& in, const std::string& out, double tolerance = 0) const {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.17g", tolerance);
    const Result check = python("import numpy as np, soundfile as sf\n"
                                "x, rx = sf.read('" + in + "', dtype='float64', always_2d=True)\n"
                                "y, ry = sf.read('" + out + "', dtype='float64', always_2d=True)\n"
                                "assert rx == ry and x.shape == y.shape, (rx, ry, x.shape, y.shape)\n"
                                "assert np.max(np.abs(y - 0.5 * x)) <= " + std::string(limit) +
                                ", np.max(np.abs(y - 0.5 * x))\n");
    EXPECT_EQ(check.exit_code, 0) << in << " -> " << out << ":\n" << check.err;
  }

  // `name`: `seconds` of stereo pcm16 white noise (uniform, +-0.4) from numpy's generator `seed`.
  void make_noise(const std::string& name, int seconds, int seed) const {
    const Result made = python("import numpy as np, soundfile as sf\n"
                               "x = np.random.default_rng(" + std::to_string(seed) + ").uniform(-0.4, 0.4, (48000 * " +
                               std::to_string(seconds) + ", 2))\n"
                               "sf.write('" + name + "', x, 48000, subtype='PCM_16')\n");
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }

  // One `halo:` line on stderr that contains `words`, exit code `code`, nothing new in the work
  // directory (`before` is its listing before the run).
  void expect_refused(const std::string& command, int code, const std::string& words,
                      const std::vector<std::string>& before) const {
    const Result run = sh(command);
    EXPECT_EQ(run.exit_code, code) << describe_command(command, run);
    const auto lines = halo_lines(run);
    ASSERT_EQ(lines.size(), 1u) << describe_command(command, run);
    EXPECT_NE(lines[0].find(words), std::string::npos) << "expected \"" << words << "\"\n"
                                                       << describe_command(command, run);
    EXPECT_EQ(list_directory(work_.path()), before) << describe_command(command, run);
  }

  TempDir work_;
};

// ------------------------------------------------------------------------------- item 1

TEST_F(OutputSafety, SymbolicLinkIsWrittenThroughAndStaysALink) {
  ASSERT_EQ(mkdir(at("sub").c_str(), 0755), 0);
  std::ofstream(at("sub/target.wav")) << "old";
  ASSERT_EQ(chmod(at("sub/target.wav").c_str(), 0640), 0);
  ASSERT_EQ(symlink("sub/target.wav", at("link.wav").c_str()), 0);
  ASSERT_EQ(symlink("sub/new.wav", at("dangling.wav").c_str()), 0);  // its target does not exist yet

  for (const std::string link : {"link.wav", "dangling.wav"}) {
    const std::string command = "$HALO filter in.wav " + link + " --mask half.txt -q";
    const Result run = sh(command);
    ASSERT_EQ(run.exit_code, 0) << describe_command(command, run);
    struct stat status {};
    ASSERT_EQ(lstat(at(link).c_str(), &status), 0);
    EXPECT_TRUE(S_ISLNK(status.st_mode)) << link << " was replaced by a plain file";
  }
  expect_half("in.wav", "sub/target.wav");
  expect_half("in.wav", "sub/new.wav");
  struct stat target {};
  ASSERT_EQ(stat(at("sub/target.wav").c_str(), &target), 0);
  EXPECT_EQ(target.st_mode & 07777, 0640u);
  EXPECT_EQ(list_directory(at("sub")), (std::vector<std::string>{"new.wav", "target.wav"}))
      << "a temporary was left beside the target";
}

TEST_F(OutputSafety, ReplacedFileKeepsItsModeAndOwner) {
  std::ofstream(at("private.wav")) << "old";
  ASSERT_EQ(chmod(at("private.wav").c_str(), 0600), 0);
  const uid_t owner = running_as_root() ? 65534 : geteuid();  // root may give it away: nobody
  const gid_t group = running_as_root() ? 65534 : getegid();
  ASSERT_EQ(chown(at("private.wav").c_str(), owner, group), 0);

  const Result run = sh("$HALO filter in.wav private.wav --mask half.txt -q && $HALO design --lowpass 1k -o private.txt");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_half("in.wav", "private.wav");
  struct stat status {};
  ASSERT_EQ(stat(at("private.wav").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0600u) << "a private file turned readable by others";
  EXPECT_EQ(status.st_uid, owner);
  EXPECT_EQ(status.st_gid, group);
}

// An output past what a container's 32-bit sizes count (4 GiB of samples) is refused before any
// work, naming the containers that hold it: an AIFF of 9.7 GB had been written with its sizes
// wrapped, exit 0, read back as a fraction of the audio (a review). IN is a sparse raw file of
// 5 GiB, so that nothing of it need be read to be refused. (A WAV turns RF64: LargeWav.)
TEST_F(OutputSafety, AnOutputPastAContainersSizeFieldsIsRefusedBeforeAnyWork) {
  ASSERT_EQ(sh("truncate -s 5G big.raw").exit_code, 0);
  const std::vector<std::string> before = list_directory(work_.path());
  for (const std::string out : {"o.aiff", "o.mat"})
    expect_refused("$HALO filter -t raw --rate 48000 --channels 1 --encoding float big.raw " + out + " --lowpass 1k", 1,
                   "counts at most 4 GiB of samples (its header's sizes are 32-bit), and this output is 5.0 GiB: write "
                   "CAF, W64 or RF64",
                   before);
  std::filesystem::remove(at("big.raw"));
}

// A file its owner may write but not read (0200) is replaced with its mode: the temporary had
// taken that mode before it was written, and a CAF of ALAC, read back to check what libsndfile
// wrote, could then not be read ("Permission denied", a review). As its owner, not root (whom
// no mode stops): nobody, where the tests run as root.
TEST_F(OutputSafety, AWriteOnlyFileIsReplacedWithItsMode) {
  std::ofstream(at("drop.caf")) << "old";
  ASSERT_EQ(chmod(at("drop.caf").c_str(), 0200), 0);
  std::string halo = "$HALO";
  const TempDir bin;
  if (running_as_root()) {
    ASSERT_EQ(chown(work_.path().c_str(), 65534, 65534), 0);
    ASSERT_EQ(chown(at("drop.caf").c_str(), 65534, 65534), 0);
    ASSERT_EQ(chmod(bin.path().c_str(), 0755), 0);
    std::filesystem::copy_file(HALO_BINARY, bin / "halo");
    halo = "setpriv --reuid=65534 --regid=65534 --clear-groups " + std::string(bin / "halo");
  }
  const Result run = sh(halo + " filter in16.flac drop.caf --subtype alac16 --mask half.txt -q");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  struct stat status {};
  ASSERT_EQ(stat(at("drop.caf").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0200u);
  ASSERT_EQ(chmod(at("drop.caf").c_str(), 0600), 0);
  expect_half("in16.flac", "drop.caf", 1.0 / 32768);
}

// A write-protected OUT is refused to a user its mode keeps out, as the shell's `>` refuses it:
// a temporary renamed over it had replaced someone else's read-only file in a folder the user
// may write, and made it the user's (a QA pass). Run as nobody where the tests run as root.
TEST_F(OutputSafety, AWriteProtectedFileIsRefusedToAUserWhoMayNotWriteIt) {
  std::ofstream(at("master.wav")) << "master";
  ASSERT_EQ(chmod(at("master.wav").c_str(), 0444), 0);
  std::string halo = "$HALO";
  const TempDir bin;  // the binary where nobody may run it (the build's folder may be root's alone)
  if (running_as_root()) {  // nobody may write the folder (as in the QA's case) but not the file
    ASSERT_EQ(chown(work_.path().c_str(), 65534, 65534), 0);
    ASSERT_EQ(chmod(bin.path().c_str(), 0755), 0);
    std::filesystem::copy_file(HALO_BINARY, bin / "halo");
    halo = "setpriv --reuid=65534 --regid=65534 --clear-groups " + std::string(bin / "halo");
  }
  const std::vector<std::string> before = list_directory(work_.path());
  for (const std::string command : {"filter in.wav master.wav --mask half.txt -q", "design --lowpass 1k -o master.wav"})
    expect_refused(halo + " " + command, 1, "master.wav: write-protected (Permission denied)", before);
  EXPECT_EQ(read_bytes(at("master.wav")), "master");
  if (running_as_root()) {  // root writes it, as `>` does
    ASSERT_EQ(sh("$HALO filter in.wav master.wav --mask half.txt -q").exit_code, 0);
    expect_half("in.wav", "master.wav");
  }
}

// A file no rename may replace is refused before any work, as `>` refuses it at once: an
// immutable file (chattr +i), and another user's file in a sticky folder, had been found out only
// after the whole run ("cannot rename the finished file into place", a QA pass).
TEST_F(OutputSafety, AFileNoRenameMayReplaceIsRefusedBeforeAnyWork) {
  std::ofstream(at("kept.wav")) << "kept";
  const std::vector<std::string> before = list_directory(work_.path());
  if (sh("chattr +i kept.wav 2>/dev/null").exit_code == 0) {
    for (const std::string command : {"$HALO filter in.wav kept.wav --mask half.txt -q", "$HALO design --lowpass 1k -o kept.wav"})
      expect_refused(command, 1, "kept.wav: immutable (chattr +i): no rename may replace it", before);
    ASSERT_EQ(sh("chattr -i kept.wav").exit_code, 0);
  } else {
    std::cout << "(chattr +i is not available here: the immutable case is not run)\n";
  }
  EXPECT_EQ(read_bytes(at("kept.wav")), "kept");
  if (!running_as_root()) GTEST_SKIP() << "the sticky folder's case runs as root (it writes as another user)";
  // A sticky folder any user may write, holding root's file that any user may write.
  ASSERT_EQ(mkdir(at("sticky").c_str(), 01777), 0);
  ASSERT_EQ(chmod(at("sticky").c_str(), 01777), 0);
  std::ofstream(at("sticky/root.wav")) << "root's";
  ASSERT_EQ(chmod(at("sticky/root.wav").c_str(), 0666), 0);
  ASSERT_EQ(chmod(work_.path().c_str(), 0755), 0);
  const TempDir bin;
  ASSERT_EQ(chmod(bin.path().c_str(), 0755), 0);
  std::filesystem::copy_file(HALO_BINARY, bin / "halo");
  const std::string nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups " + std::string(bin / "halo");
  const std::vector<std::string> sticky_before = list_directory(at("sticky"));
  const Result run = sh(nobody + " filter in.wav sticky/root.wav --mask half.txt");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("sticky/root.wav: another user's file in a sticky folder"), std::string::npos) << run.err;
  EXPECT_EQ(halo_lines(run).size(), 1u) << run.err;
  EXPECT_EQ(list_directory(at("sticky")), sticky_before);
  EXPECT_EQ(read_bytes(at("sticky/root.wav")), "root's");
}

// An append-only folder (chattr +a) takes a new name but replaces and removes none: a new OUT is
// linked into place whole, and an existing one refused before any work. halo had filtered to
// the end, failed to rename, and left a full-size temporary nobody could delete (a QA pass).
TEST_F(OutputSafety, AnAppendOnlyFolderTakesANewFileWholeAndReplacesNone) {
  ASSERT_EQ(mkdir(at("log").c_str(), 0755), 0);
  std::ofstream(at("log/old.wav")) << "old";
  if (sh("chattr +a log 2>/dev/null").exit_code != 0) GTEST_SKIP() << "chattr +a is not available here";
  const Result made = sh("$HALO filter in.wav log/new.wav --mask half.txt -q");
  const Result refused = sh("$HALO filter in.wav log/old.wav --mask half.txt -q");
  const Result design = sh("$HALO design --lowpass 30k -o log/old.txt");  // a name not taken: the spec's error
  const std::vector<std::string> left = list_directory(at("log"));
  ASSERT_EQ(sh("chattr -a log").exit_code, 0);
  EXPECT_EQ(made.exit_code, 0) << made.err;
  expect_half("in.wav", "log/new.wav");
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("log/old.wav: in an append-only folder (chattr +a), where no rename may replace a file"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(read_bytes(at("log/old.wav")), "old");
  EXPECT_NE(design.err.find("--lowpass"), std::string::npos) << design.err;
  EXPECT_EQ(left, (std::vector<std::string>{"new.wav", "old.wav"}));
}

// Names the file system cannot take are refused before any work, as the shell's `>` refuses
// them: a 256-byte name had been found out after the whole run (a QA pass). A read-only file
// system for design's -o and ir fix's OUT too: found after an 8 s design, or the resampling.
TEST_F(OutputSafety, NamesAndFoldersThatCannotBeWrittenAreRefusedFirst) {
  const std::string long_name = std::string(252, 'n') + ".wav";
  expect_refused("$HALO filter in.wav " + long_name + " --lowpass 1k", 1, "File name too long", list_directory(work_.path()));
  // design: the spec's error (30k at 48 kHz) would come first if the output were checked after it.
  expect_refused("$HALO design --lowpass 30k -o " + long_name.substr(0, 252) + ".txt", 1, "File name too long",
                 list_directory(work_.path()));
  ASSERT_EQ(mkdir(at("ro").c_str(), 0755), 0);
  if (mount("tmpfs", at("ro").c_str(), "tmpfs", MS_RDONLY, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a read-only tmpfs here (" << std::strerror(errno) << ")";
  const Result design = sh("$HALO design --lowpass 30k -o ro/m.txt");
  const Result fix = sh("$HALO ir fix missing.wav ro/m.wav --in-rate 48000");
  umount(at("ro").c_str());
  EXPECT_EQ(design.exit_code, 1) << design.err;
  EXPECT_NE(design.err.find("ro/m.txt"), std::string::npos) << design.err;
  EXPECT_NE(design.err.find("Read-only file system"), std::string::npos) << design.err;
  EXPECT_EQ(fix.exit_code, 1) << fix.err;
  EXPECT_NE(fix.err.find("Read-only file system"), std::string::npos) << fix.err;
}

// An export's configuration names its coefficients' file on a line of text: a name with a
// newline had split Equalizer APO's "Convolution:" line, and one with a 0xFF byte made
// CamillaDSP's YAML unreadable, each written with exit 0 (a QA pass). Refused before any work.
TEST_F(OutputSafety, ConfigsNameOnlyFilesTheirProgramsCanRead) {
  const std::vector<std::string> before = list_directory(work_.path());
  expect_refused("$HALO design --lowpass 4k --taps 11 --format eqapo -o \"$(printf 'eq\\nnl.txt')\"", 2,
                 "Equalizer APO's config names its WAV on a line of text", before);
  expect_refused("$HALO design --lowpass 4k --taps 11 -o \"$(printf 'cy\\377.yml')\"", 2,
                 "CamillaDSP's YAML names its coefficients' file", before);
  const Result plain = sh("$HALO design --lowpass 4k --taps 11 -o 'caf\xc3\xa9 ok.yml' -q");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
}

// Standard streams closed at the start (`>&-`, `<&-`): a closed output that nothing needs is no
// error (filter to a file had exited 1, "write failed: Bad file descriptor"), one that something
// needs is refused naming it (OUT `-` had been taken for IN, which had landed on descriptor 1),
// and what a command printed there is said to have gone nowhere (a QA pass).
TEST_F(OutputSafety, ClosedStandardStreamsAreNamedOnlyWhereNeeded) {
  const Result quiet = sh("$HALO filter in.wav out.wav --mask half.txt >&-");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  expect_half("in.wav", "out.wav");
  const std::vector<std::string> before = list_directory(work_.path());
  expect_refused("$HALO filter in.wav - --type au --mask half.txt >&-", 1,
                 "standard output: closed when halo started (>&-); name OUT instead", before);
  expect_refused("$HALO filter - piped.wav --mask half.txt <&-", 1,
                 "standard input: closed when halo started (<&-); name IN instead", before);
  expect_refused("$HALO info in.wav >&-", 1, "bytes printed there went nowhere", before);

  // A command that prints a report beside the file it writes refuses a closed output before it
  // writes: design -o and ir fix had replaced the file and then exited 1 for the report printed
  // nowhere (a QA pass). With -q nothing is printed, and nothing needs it.
  std::ofstream(at("kept.txt")) << "kept";
  const std::vector<std::string> with_kept = list_directory(work_.path());
  expect_refused("$HALO design --lowpass 1k -o kept.txt >&-", 1, "design prints its report there: give -q", with_kept);
  expect_refused("$HALO ir fix in.wav kept.txt >&-", 1, "ir fix prints what it did there: give -q", with_kept);
  expect_refused("$HALO ir inspect in.wav --plot plot.svg >&-", 1, "ir inspect prints its figures there", with_kept);
  // Without -o the mask itself goes there: refused before --plot is written, -q or not (a
  // review); and a mistake in the command line is still exit 2, said first.
  expect_refused("$HALO design --lowpass 1k --plot plot.svg -q >&-", 1, "design writes the mask there: give -o FILE", with_kept);
  expect_refused("$HALO design --lowpass 1k --taps 0 -o kept.txt >&-", 2, "--taps 0", with_kept);
  EXPECT_EQ(read_bytes(at("kept.txt")), "kept");
  const Result quietly = sh("$HALO ir fix in.wav kept.txt -q >&-");
  EXPECT_EQ(quietly.exit_code, 0) << quietly.err;
  EXPECT_NE(read_bytes(at("kept.txt")), "kept");
  // A mask or IR from a closed standard input is named so (it had said "no coefficients").
  for (const std::string command : {"filter in.wav out2.wav --mask - <&-", "ir fix - fixed.wav <&-", "ir inspect - <&-"})
    expect_refused("$HALO " + command, 1, "standard input: closed when halo started (<&-); pipe it in, or name the file",
                   with_kept);
}

TEST_F(OutputSafety, DeviceNodeAndFifoAreWrittenThroughNotReplaced) {
  ASSERT_EQ(mkfifo(at("pipe.au").c_str(), 0644), 0);
  const std::string fifo = "cat pipe.au > got.au & $HALO filter in.wav pipe.au --mask half.txt -q; code=$?; wait; exit $code";
  const Result run = sh(fifo);
  ASSERT_EQ(run.exit_code, 0) << describe_command(fifo, run);
  struct stat status {};
  ASSERT_EQ(lstat(at("pipe.au").c_str(), &status), 0);
  EXPECT_TRUE(S_ISFIFO(status.st_mode)) << "the FIFO was replaced";
  expect_half("in.wav", "got.au");

  // A FIFO named for a container that cannot go down a pipe is refused at once (halo had
  // waited in open() for a reader, then refused).
  ASSERT_EQ(mkfifo(at("pipe.wav").c_str(), 0644), 0);
  const std::string unread = "timeout 20 $HALO filter in.wav pipe.wav --mask half.txt";
  const Result refused = sh(unread);
  EXPECT_EQ(refused.exit_code, 1) << describe_command(unread, refused);  // as on standard output
  EXPECT_NE(refused.err.find("pipe.wav: a FIFO, and WAV cannot be written to a pipe"), std::string::npos) << refused.err;
  // ... and one with no extension, whose container is IN's (WAV), known only once IN is open.
  ASSERT_EQ(mkfifo(at("pipe").c_str(), 0644), 0);
  const std::string unnamed = "timeout 20 $HALO filter in.wav pipe --mask half.txt";
  const Result unnamed_refused = sh(unnamed);
  EXPECT_EQ(unnamed_refused.exit_code, 1) << describe_command(unnamed, unnamed_refused);
  EXPECT_NE(unnamed_refused.err.find("pipe: a FIFO, and WAV cannot be written to a pipe"), std::string::npos)
      << unnamed_refused.err;

  // /dev/stdout and /dev/fd/N on a pipe: names the kernel follows through /proc to "pipe:[N]",
  // which halo had followed by hand and then tried to make a temporary in /proc/self/fd.
  for (const std::string name : {"/dev/stdout", "/dev/fd/1"}) {
    const std::string through = "$HALO filter in.wav " + name + " --type au --mask half.txt -q | cat > got.au";
    const Result piped = sh(through);
    ASSERT_EQ(piped.exit_code, 0) << describe_command(through, piped);
    expect_half("in.wav", "got.au");
  }

  if (!running_as_root()) GTEST_SKIP() << "mknod needs root: the device-node half is not run";
  ASSERT_EQ(mknod(at("null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);  // /dev/null
  for (const std::string command : {"$HALO design --lowpass 1k -o null", "$HALO filter in.wav null --mask half.txt -q"}) {
    const Result device = sh(command);
    EXPECT_EQ(device.exit_code, 0) << describe_command(command, device);
    ASSERT_EQ(lstat(at("null").c_str(), &status), 0);
    EXPECT_TRUE(S_ISCHR(status.st_mode)) << "a plain file was renamed over the device node: " << command;
  }
}

// ------------------------------------------------------------------------------- item 2

// A 64 KiB tmpfs, mounted for one test and unmounted after.
class SmallDisk {
 public:
  explicit SmallDisk(const std::string& path) : path_(path) {
    if (mkdir(path.c_str(), 0755) != 0) return;
    mounted_ = mount("tmpfs", path.c_str(), "tmpfs", 0, "size=64k") == 0;
  }
  ~SmallDisk() {
    if (mounted_) umount(path_.c_str());
  }
  bool mounted() const { return mounted_; }

 private:
  std::string path_;
  bool mounted_ = false;
};

TEST_F(OutputSafety, FullDiskFailsCleanlyForEveryContainer) {
  make_noise("noise.wav", 20, 2);
  SmallDisk disk(at("small"));
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << std::strerror(errno);
  for (const std::string extension : {"mp3", "ogg", "opus", "wav", "flac", "caf", "aiff", "w64", "au"}) {
    // On a roomy disk the output is larger than the small one: the failure below is the disk's.
    const std::string roomy = "$HALO filter noise.wav roomy." + extension + " --lowpass 10k -q";
    const Result fits = sh(roomy);
    ASSERT_EQ(fits.exit_code, 0) << describe_command(roomy, fits);
    EXPECT_GT(std::filesystem::file_size(at("roomy." + extension)), 64u * 1024) << extension;

    const std::string command = "$HALO filter noise.wav small/out." + extension + " --lowpass 10k -q";
    const Result run = sh(command);
    EXPECT_EQ(run.exit_code, 1) << describe_command(command, run);
    const auto lines = halo_lines(run);
    ASSERT_EQ(lines.size(), 1u) << describe_command(command, run);
    EXPECT_NE(lines[0].find("small/out." + extension), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("No space left on device"), std::string::npos) << lines[0];
    EXPECT_EQ(list_directory(at("small")), std::vector<std::string>{}) << "left on the full disk after " << command;
  }
  // A mask written as a sound file says so as these do (it had been libsndfile's "System error :
  // No space left on device.", a QA pass).
  const auto before = list_directory(work_.path());
  for (const std::string command : {"$HALO design --lowpass 1k --taps 65535 -o small/m.wav -q",
                                    "$HALO design --lowpass 1k --taps 65535 -o small/m.w64 -q"}) {
    expect_refused(command, 1, ": write failed: No space left on device", before);
    EXPECT_EQ(list_directory(at("small")), std::vector<std::string>{}) << "left on the full disk after " << command;
  }
}

// An export of several files (CamillaDSP's YAML and its raw coefficients) changes all or none:
// on a disk with room for the coefficients alone, the run fails and both old files stay as
// they were. The coefficients had been renamed into place before the YAML was written, so a
// new .f32 stood beside the old .yml (a QA pass).
TEST_F(OutputSafety, AnExportsFilesChangeTogetherOrNotAtAll) {
  SmallDisk disk(at("small"));
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << std::strerror(errno);
  write_bytes(at("small/m.yml"), "old yaml\n");
  write_bytes(at("small/m.f32"), "");
  struct statvfs room {};
  ASSERT_EQ(statvfs(at("small").c_str(), &room), 0);
  const unsigned long long free_bytes = static_cast<unsigned long long>(room.f_bavail) * room.f_frsize;
  constexpr unsigned long long coefficient_bytes = 4096 * 3;  // 3001 taps of float32, in whole pages
  ASSERT_GT(free_bytes, coefficient_bytes);
  write_bytes(at("small/filler"), std::string(free_bytes - coefficient_bytes, 'x'));
  const std::string command = "$HALO design --lowpass 1k --taps 3001 -o small/m.yml -q";
  const Result run = sh(command);
  EXPECT_EQ(run.exit_code, 1) << describe_command(command, run);
  EXPECT_EQ(read_bytes(at("small/m.yml")), "old yaml\n") << "the YAML changed";
  EXPECT_EQ(read_bytes(at("small/m.f32")), "") << "the coefficients changed while the YAML could not be written";
  EXPECT_EQ(list_directory(at("small")), (std::vector<std::string>{"filler", "m.f32", "m.yml"}));
}

// design's mask and its --plot go into place together or not at all: with the plot on a full
// disk, the mask named by -o had been replaced all the same, and the run failed (a QA pass).
TEST_F(OutputSafety, ADesignsMaskAndPlotChangeTogetherOrNotAtAll) {
  SmallDisk disk(at("small"));
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << std::strerror(errno);
  write_bytes(at("m.txt"), "# old mask\n0.5\n");
  struct statvfs room {};
  ASSERT_EQ(statvfs(at("small").c_str(), &room), 0);
  write_bytes(at("small/filler"), std::string(static_cast<std::size_t>(room.f_bavail) * room.f_frsize, 'x'));
  const std::string command = "$HALO design --lowpass 1k --taps 255 -o m.txt --plot small/p.svg -q";
  const Result run = sh(command);
  EXPECT_EQ(run.exit_code, 1) << describe_command(command, run);
  EXPECT_EQ(halo_lines(run).size(), 1u) << describe_command(command, run);
  EXPECT_EQ(read_bytes(at("m.txt")), "# old mask\n0.5\n") << "the mask changed while its plot could not be written";
  EXPECT_EQ(list_directory(at("small")), std::vector<std::string>{"filler"});
  // And its --report (it had been written after the mask and plot were in place, a review).
  const std::string report = "$HALO design --lowpass 1k --taps 255 -o m.txt --plot p0.svg --report small/r.json -q";
  const Result reported = sh(report);
  EXPECT_EQ(reported.exit_code, 1) << describe_command(report, reported);
  EXPECT_EQ(read_bytes(at("m.txt")), "# old mask\n0.5\n") << "the mask changed while its report could not be written";
  EXPECT_FALSE(std::filesystem::exists(at("p0.svg"))) << "the plot went into place while the report could not";
  // An export to standard output that is refused (two masks for sox's one) leaves no plot.
  write_bytes(at("two.txt"), "0.5 0.25\n0.25 0.5\n");
  const std::string refused = "$HALO design --mask two.txt --format sox -o - --plot p1.svg";
  const Result sox = sh(refused);
  EXPECT_EQ(sox.exit_code, 1) << describe_command(refused, sox);
  EXPECT_FALSE(std::filesystem::exists(at("p1.svg"))) << "a plot of a refused export";
  // With room for both, both.
  const Result fine = sh("$HALO design --lowpass 1k --taps 255 -o m.txt --plot p.svg -q");
  ASSERT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_NE(read_bytes(at("m.txt")).find("# lowpass 1000 Hz"), std::string::npos);
  EXPECT_NE(read_bytes(at("p.svg")).find("<svg"), std::string::npos);
}

// Past a file-size limit (`ulimit -f`) the kernel's SIGXFSZ killed halo where it stood (exit
// 153, no message) and left its temporary file; now the write fails like a full disk's: one
// line, exit 1, the old OUT intact and nothing beside it. The same for a pipe to a file.
TEST_F(OutputSafety, AFileSizeLimitFailsCleanly) {
  make_noise("noise.wav", 10, 3);
  ASSERT_EQ(sh("cp in.wav old.wav").exit_code, 0);
  const std::string old = read_bytes(at("old.wav"));
  const auto before = list_directory(work_.path());
  // ulimit -f counts 1024-byte blocks: 200 KiB, less than the 1.9 MB output.
  for (const std::string command : {"ulimit -f 200; $HALO filter noise.wav old.wav --lowpass 4k -q",
                                    "ulimit -f 200; $HALO design --lowpass 1k --taps 65535 -o old.wav -q"}) {
    const Result run = sh(command);
    EXPECT_EQ(run.exit_code, 1) << describe_command(command, run);
    const auto lines = halo_lines(run);
    ASSERT_EQ(lines.size(), 1u) << describe_command(command, run);
    EXPECT_NE(lines[0].find("File too large"), std::string::npos) << lines[0];
    EXPECT_EQ(list_directory(work_.path()), before) << "left behind by " << command;
    EXPECT_TRUE(read_bytes(at("old.wav")) == old) << "the old output was changed by " << command;
  }
  const std::string piped = "ulimit -f 200; $HALO filter noise.wav - --type au --lowpass 4k -q > piped.au";
  const Result run = sh(piped);
  EXPECT_EQ(run.exit_code, 1) << describe_command(piped, run);
  ASSERT_EQ(halo_lines(run).size(), 1u) << describe_command(piped, run);
  EXPECT_NE(halo_lines(run)[0].find("standard output: write failed: File too large"), std::string::npos)
      << halo_lines(run)[0];
}

// A kill no handler sees (SIGKILL, as the OOM killer sends) leaves nothing beside OUT: the output
// is an unnamed file until it is complete, where a named temporary ".out.wav.halo-XXXXXX" had
// stayed behind (a QA pass). halo is killed while it waits for the rest of IN on a FIFO, with
// its output begun (the first chunk filtered: --chunk 1024).
TEST_F(OutputSafety, AKillNoHandlerSeesLeavesNothingBesideOut) {
  make_noise("long.wav", 2, 31);
  ASSERT_EQ(mkfifo(at("in.fifo").c_str(), 0600), 0);
  const std::vector<std::string> before = list_directory(work_.path());
  const Result killed = sh("$HALO filter in.fifo killed.wav --mask half.txt --chunk 1024 -q & h=$!\n"
                           "exec 3>in.fifo\n"
                           "head -c 100000 long.wav >&3\n"
                           "sleep 1\n"
                           "kill -KILL $h\n"
                           "wait $h\n"
                           "echo \"exit $?\"\n"
                           "exec 3>&-");
  EXPECT_NE(killed.out.find("exit 137"), std::string::npos) << killed.out << killed.err;
  EXPECT_EQ(list_directory(work_.path()), before) << "left beside OUT after SIGKILL";
}

// A failure after part of the output has gone down a pipe cannot take it back: the message says
// the output is incomplete, not "nothing written" (as it does for a file, whose temporary goes).
TEST_F(OutputSafety, AFailureAfterStreamingSaysTheOutputIsIncomplete) {
  make_noise("noise.wav", 10, 4);
  // Damage met halfway (a FLAC's bytes overwritten), to a pipe: the half sent is said to be
  // incomplete (a review: it had said only "read failed").
  ASSERT_EQ(python("import soundfile as sf\nx, r = sf.read('noise.wav')\nsf.write('noise.flac', x, r, subtype='PCM_16')\n"
                   "b = bytearray(open('noise.flac', 'rb').read())\nb[len(b) // 2:len(b) // 2 + 4000] = b'\\x55' * 4000\n"
                   "open('damaged.flac', 'wb').write(b)\n").exit_code, 0);
  const Result streamed = sh("$HALO filter damaged.flac - --type au --lowpass 4k -q | wc -c");
  ASSERT_EQ(halo_lines(streamed).size(), 1u) << streamed.err;
  EXPECT_NE(halo_lines(streamed)[0].find("read failed"), std::string::npos) << streamed.err;
  EXPECT_NE(halo_lines(streamed)[0].find("the output streamed so far is incomplete"), std::string::npos) << streamed.err;
  // The AU header at least went out; how many frames with it depends on how far the writer had
  // come when the reader met the damage (it reads ahead, and the first failure stops every stage).
  EXPECT_GE(std::stoll(streamed.out), 24) << "some of it went out";
  // A file whose header declares more than it holds is refused before any output, to a pipe too
  // (it had been filtered up to its end first, its output sent on: a review).
  ASSERT_EQ(sh("head -c 1000000 noise.wav > cut.wav").exit_code, 0);  // 249989 of 480000 frames
  const Result cut = sh("$HALO filter cut.wav - --type au --lowpass 4k -q | wc -c");
  ASSERT_EQ(halo_lines(cut).size(), 1u) << cut.err;
  EXPECT_NE(halo_lines(cut)[0].find("truncated: its header declares 480000 frames but only 249989 could be read; nothing "
                                    "was written"),
            std::string::npos)
      << cut.err;
  EXPECT_EQ(cut.out, "0\n") << "nothing went out";
  const Result to_file = sh("$HALO filter cut.wav cut-out.wav --lowpass 4k -q");
  EXPECT_EQ(to_file.exit_code, 1) << to_file.err;
  EXPECT_NE(to_file.err.find("nothing was written"), std::string::npos) << to_file.err;
  EXPECT_FALSE(std::filesystem::exists(at("cut-out.wav")));
}

// ------------------------------------------------------------------------------- item 3

// A WAV that stays small is a plain WAV: with its length known, the classic header ("fmt "
// right after "WAVE"); from a pipe, RF64 at first and plain RIFF after close. Both read back
// whole by scipy's own WAV parser. (The > 4 GiB run is tests/large/large_wav.cpp.)
TEST_F(OutputSafety, SmallWavStaysPlainWav) {
  const Result run = sh("$HALO filter in.wav known.wav --mask half.txt -q && "
                       "cat in.wav | $HALO filter - piped.wav --mask half.txt -q");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_bytes(at("known.wav")).substr(0, 4), "RIFF");
  EXPECT_EQ(read_bytes(at("known.wav")).substr(8, 8), "WAVEfmt ");
  EXPECT_EQ(read_bytes(at("piped.wav")).substr(0, 4), "RIFF");
  const Result check = python(R"(
import numpy as np, scipy.io.wavfile as w, warnings
warnings.simplefilter('ignore')
for name in ('known.wav', 'piped.wav'):
    rate, y = w.read(name)
    assert rate == 48000 and y.shape == (4800, 2), (name, rate, y.shape)
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  expect_half("in.wav", "piped.wav");
}

// ------------------------------------------------------------------------------- item 4

TEST_F(OutputSafety, StandardOutputOnAFullDeviceIsAnError) {
  for (const std::string command :
       {"$HALO design --lowpass 1k > /dev/full", "$HALO info in.wav > /dev/full", "$HALO --help > /dev/full",
        "$HALO filter in.wav - --type au --mask half.txt -q > /dev/full"}) {
    const Result run = sh(command);
    EXPECT_EQ(run.exit_code, 1) << describe_command(command, run);
    const auto lines = halo_lines(run);
    ASSERT_EQ(lines.size(), 1u) << describe_command(command, run);
    EXPECT_NE(lines[0].find("standard output"), std::string::npos) << describe_command(command, run);
    EXPECT_NE(lines[0].find("No space left on device"), std::string::npos) << describe_command(command, run);
  }
  // Ogg Vorbis on a full device: the system's reason, and nothing on standard output (libsndfile
  // printed "Not a valid error number (-1)." there when asked for words for its code, a QA pass).
  const Result vorbis = sh("$HALO filter in.wav /dev/full --type ogg --mask half.txt -q");
  EXPECT_EQ(vorbis.exit_code, 1) << vorbis.err;
  EXPECT_EQ(vorbis.out, "");
  EXPECT_EQ(vorbis.err, "halo: /dev/full: write failed: No space left on device\n");
}

// ------------------------------------------------------------------------------- item 6

TEST_F(OutputSafety, OutputThatIsTheInputThroughStandardStreamsIsRefused) {
  ASSERT_EQ(sh("cp in.wav x.wav && ln x.wav hard.wav && ln -s x.wav soft.wav").exit_code, 0);
  const std::string original = read_bytes(at("x.wav"));
  const auto before = list_directory(work_.path());
  expect_refused("$HALO filter - x.wav --mask half.txt -q < x.wav", 1, "standard input", before);
  expect_refused("$HALO filter - hard.wav --mask half.txt -q < x.wav", 1, "hard.wav", before);
  expect_refused("$HALO filter x.wav - --type au --mask half.txt -q >> x.wav", 1, "standard output", before);
  expect_refused("$HALO filter soft.wav - --type au --mask half.txt -q >> x.wav", 1, "soft.wav", before);
  EXPECT_TRUE(read_bytes(at("x.wav")) == original) << "the input was changed";
  // Another file through the same streams is fine.
  const Result other = sh("$HALO filter - other.wav --mask half.txt -q < x.wav");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  expect_half("x.wav", "other.wav");
}

// `>> log`: the shell opened the file for appending, and what halo writes goes after what it
// holds, whichever name OUT gives that descriptor. halo had followed /dev/stdout to the file and
// renamed a new one over it (all it held lost, exit 0), and an AU sent to `-` ended in a second
// header that libsndfile's return to complete the first had put there (a QA pass). Raw and Ogg,
// which libsndfile writes front to back, append; what needs going back is refused.
TEST_F(OutputSafety, AnOutputOpenForAppendingIsAppendedToOrRefused) {
  ASSERT_EQ(sh("$HALO filter in.wav alone.raw --type raw --mask half.txt -q").exit_code, 0);
  const std::string alone = read_bytes(at("alone.raw"));
  ASSERT_EQ(alone.size(), 4800u * 2 * 4);
  for (const std::string out : {"-", "/dev/stdout", "/proc/self/fd/1", "/dev/fd/3"}) {
    const std::string redirect = out == "/dev/fd/3" ? "3>> log.raw" : ">> log.raw";
    ASSERT_EQ(sh("printf 'kept\\n' > log.raw && $HALO filter in.wav " + out + " --type raw --mask half.txt -q " + redirect +
                 " && $HALO filter in.wav " + out + " --type raw --mask half.txt -q " + redirect).exit_code, 0) << out;
    EXPECT_TRUE(read_bytes(at("log.raw")) == "kept\n" + alone + alone) << out;
    const auto before = list_directory(work_.path());
    for (const std::string type : {"au", "wav", "ircam"})
      expect_refused("$HALO filter in.wav " + out + " --type " + type + " --mask half.txt -q " + redirect, 1,
                     "open for appending", before);
    EXPECT_TRUE(read_bytes(at("log.raw")) == "kept\n" + alone + alone) << out;
  }
  // Where the shell's offset is past 0 (a group writing before halo), raw still appends (a
  // review: libsndfile had taken it for an embedded file and refused it), and Ogg too.
  for (int group = 0; group < 2; ++group)
    ASSERT_EQ(sh("{ printf 'x\\n'; $HALO filter in.wav /dev/stdout --type raw --mask half.txt -q; } >> group.raw").exit_code, 0);
  EXPECT_TRUE(read_bytes(at("group.raw")) == "x\n" + alone + "x\n" + alone);
  ASSERT_EQ(sh("{ printf 'x\\n'; $HALO filter in.wav - --type ogg --mask half.txt -q; } >> group.ogg").exit_code, 0);
  // A block codec's padding is not judged from an appended file, which holds what was there
  // before (it had counted those bytes as padding), nor from a FIFO, whose reading waited for a
  // writer that never came (a review).
  ASSERT_EQ(python("import soundfile as sf\nx, r = sf.read('in.wav')\nsf.write('mono.wav', x[:, 0], r, subtype='FLOAT')\n").exit_code, 0);
  const Result gsm = sh("head -c 100000 in.wav > log.gsm && $HALO filter mono.wav /dev/stdout --type raw --subtype gsm610 "
                        "--mask half.txt >> log.gsm");
  ASSERT_EQ(gsm.exit_code, 0) << gsm.err;
  EXPECT_EQ(gsm.err.find("padding"), std::string::npos) << gsm.err;
  const Result fifo = sh("mkfifo gsm.fifo && { cat gsm.fifo > /dev/null & } && timeout 20 $HALO filter mono.wav gsm.fifo "
                         "--type raw --subtype gsm610 --mask half.txt -q; echo $? > fifo.rc; rm gsm.fifo");
  EXPECT_EQ(read_bytes(at("fifo.rc")), "0\n") << fifo.err;
  // Ogg appends (a chained stream, as the Ogg format allows).
  ASSERT_EQ(sh("rm log.raw log.gsm group.raw group.ogg fifo.rc mono.wav && $HALO filter in.wav - --type ogg --mask half.txt -q >> log.ogg").exit_code, 0);
  EXPECT_GT(read_bytes(at("log.ogg")).size(), 1000u);
  // Text from design too: after what the file holds.
  ASSERT_EQ(sh("printf '# kept\\n' > masks.txt && $HALO design --lowpass 1k -o /dev/stdout -q >> masks.txt").exit_code, 0);
  const std::string masks = read_bytes(at("masks.txt"));
  EXPECT_EQ(masks.rfind("# kept\n# lowpass 1000 Hz", 0), 0u) << masks.substr(0, 80);
  // `>` truncated the file already: written through from its start, a WAV as before.
  ASSERT_EQ(sh("$HALO filter in.wav /dev/stdout --mask half.txt -q > whole.wav").exit_code, 0);
  expect_half("in.wav", "whole.wav");
}

// `{ printf 'x\n'; halo IN OUT; } > log`: the shell's `>` truncated the file, but what the group
// wrote before halo is there, and the descriptor's offset is past it. Whichever name OUT gives
// that descriptor, halo writes after it, every container with its header where its own bytes
// begin. /dev/stdout had been followed to the file and a new one renamed over it (the x lost,
// exit 0), and raw and Ogg to `-` refused as "cannot write RAW to a pipe" (a QA note).
TEST_F(OutputSafety, AnOutputAfterWhatItsGroupWroteKeepsIt) {
  ASSERT_EQ(sh("$HALO filter in.wav alone.raw --type raw --mask half.txt -q").exit_code, 0);
  const std::string alone = read_bytes(at("alone.raw"));
  ASSERT_EQ(alone.size(), 4800u * 2 * 4);
  for (const std::string out : {"-", "/dev/stdout", "/proc/self/fd/1"}) {
    const Result raw = sh("{ printf 'x\\n'; $HALO filter in.wav " + out + " --type raw --mask half.txt -q; } > group.raw");
    ASSERT_EQ(raw.exit_code, 0) << out << ": " << raw.err;
    EXPECT_TRUE(read_bytes(at("group.raw")) == "x\n" + alone) << out;
    // Two runs into one file, one after the other.
    ASSERT_EQ(sh("{ $HALO filter in.wav " + out + " --type raw --mask half.txt -q; $HALO filter in.wav " + out +
                 " --type raw --mask half.txt -q; } > two.raw").exit_code, 0) << out;
    EXPECT_TRUE(read_bytes(at("two.raw")) == alone + alone) << out;
    // A container that goes back to its header: the header lands where its bytes begin.
    for (const std::string type : {"wav", "au", "ogg"}) {
      const Result headed = sh("{ printf 'x\\n'; $HALO filter in.wav " + out + " --type " + type +
                               " --mask half.txt -q; } > group.bin && tail -c +3 group.bin > alone." + type);
      ASSERT_EQ(headed.exit_code, 0) << out << " " << type << ": " << headed.err;
      EXPECT_EQ(read_bytes(at("group.bin")).substr(0, 2), "x\n") << out << " " << type;
      if (type != "ogg") expect_half("in.wav", "alone." + type);
      else EXPECT_EQ(python("import soundfile as sf\nprint(sf.info('alone.ogg').frames)\n").out, "4800\n") << out;
    }
  }
  // design's mask to /dev/stdout: its report goes to standard error, not into the file after the
  // taps (a review: `> m.txt` had then read as "is not a number"), and a sound mask through a
  // link to /dev/stdout lands after the x with its header where its bytes begin.
  ASSERT_EQ(sh("$HALO design --lowpass 1k --taps 31 -o /dev/stdout > m.txt 2> report.txt").exit_code, 0);
  EXPECT_NE(read_bytes(at("report.txt")).find("written:"), std::string::npos);
  const Result masked = sh("$HALO filter in.wav masked.wav --mask m.txt -q");
  EXPECT_EQ(masked.exit_code, 0) << masked.err;
  ASSERT_EQ(sh("ln -s /dev/stdout link.wav && { printf 'x\\n'; $HALO design --lowpass 1k --taps 31 -o link.wav -q; } > g.bin && "
               "tail -c +3 g.bin > g.wav").exit_code, 0);
  EXPECT_EQ(python("import soundfile as sf\nprint(sf.info('g.wav').frames)\n").out, "31\n");
  // A descriptor open for reading only is refused at once (it had failed at the first write).
  ASSERT_EQ(sh("printf 'kept' > b.raw").exit_code, 0);
  const auto before = list_directory(work_.path());
  expect_refused("$HALO filter in.wav /dev/fd/0 --type raw --mask half.txt -q < b.raw", 1, "open for reading only", before);
  EXPECT_EQ(read_bytes(at("b.raw")), "kept");
  // A descriptor the shell did not give halo is refused before any work: /dev/fd/3 had led to
  // halo's own spool of standard input (the output written into it, lost, exit 0), and
  // /dev/stdout after >&- to the placeholder halo keeps there (a QA pass).
  expect_refused("cat in.wav | $HALO filter - /dev/fd/3 --type raw --mask half.txt -q 3>&-", 1,
                 "descriptor 3 was not open when halo started", before);
  expect_refused("$HALO filter in.wav /dev/stdout --mask half.txt -q >&-", 1, "standard output was closed when halo started",
                 before);
  expect_refused("$HALO design --lowpass 1k --taps 11 -o /dev/stdout >&-", 1, "standard output was closed when halo started",
                 before);
  // The shell writes on after a FLAC, whose STREAMINFO libsndfile goes back to at close: the
  // descriptor is left at the FLAC's end (it had been left 18 bytes in, and the END below had
  // overwritten the FLAC, a QA pass).
  for (const std::string out : {"-", "/dev/stdout"}) {
    ASSERT_EQ(sh("{ $HALO filter in.wav " + out + " --type flac --mask half.txt -q; printf END; } > end.flac").exit_code, 0);
    const std::string bytes = read_bytes(at("end.flac"));
    ASSERT_GT(bytes.size(), 3u);
    EXPECT_EQ(bytes.substr(bytes.size() - 3), "END") << out;
    ASSERT_EQ(sh("head -c " + std::to_string(bytes.size() - 3) + " end.flac > alone.flac").exit_code, 0);
    expect_half("in.wav", "alone.flac", 1.0 / 8388608);
  }
  // An AU written into a longer file opened in place (1<>) counts its own frames, not the bytes
  // past them (its header had counted the old tail as samples).
  ASSERT_EQ(sh("head -c 200000 /dev/urandom > in-place.au && $HALO filter in.wav /dev/stdout --type au --mask half.txt -q "
               "1<> in-place.au").exit_code, 0);
  EXPECT_EQ(python("import soundfile as sf\nprint(sf.info('in-place.au').frames)\n").out, "4800\n");
  // Raw keeps the old tail after its bytes (the shell's 1<> truncates nothing), which a reader
  // takes for samples: said (it had not been, a QA note).
  const Result in_place = sh("head -c 200000 /dev/urandom > in-place.raw && $HALO filter in.wav /dev/stdout --type raw "
                             "--mask half.txt -q 1<> in-place.raw");
  ASSERT_EQ(in_place.exit_code, 0) << in_place.err;
  EXPECT_NE(in_place.err.find("/dev/stdout: 161600 bytes the file held before remain after halo's output"),
            std::string::npos)
      << in_place.err;
  // Standard output's reader gone is a quiet 141 whatever OUT names it (/dev/stdout had been
  // exit 1, "write failed: Broken pipe").
  ASSERT_EQ(python("import numpy as np, soundfile as sf\n"
                   "sf.write('long.wav', np.random.default_rng(3).uniform(-0.4, 0.4, (480000, 2)), 48000, subtype='FLOAT')\n")
                .exit_code, 0);
  const Result gone = sh("{ $HALO filter long.wav /dev/stdout --type raw --mask half.txt -q 2> gone.err; echo $? > gone.rc; } "
                         "| head -c 10 > /dev/null");
  EXPECT_EQ(read_bytes(at("gone.rc")), "141\n") << read_bytes(at("gone.err"));
  EXPECT_EQ(read_bytes(at("gone.err")), "");
  // A read-only standard output, a pipe named /dev/stdout and a sound mask to a pipe are each said
  // as such ("Bad file descriptor", "a FIFO", and libsndfile's own words had been: a QA pass).
  expect_refused("$HALO filter in.wav - --type raw --mask half.txt -q 1< b.raw", 1, "standard output is open for reading only",
                 list_directory(work_.path()));
  const Result piped_wav = sh("$HALO filter in.wav /dev/stdout --mask half.txt -q 2> piped.err | cat > /dev/null");
  EXPECT_NE(read_bytes(at("piped.err")).find("/dev/stdout: a pipe, and"), std::string::npos) << read_bytes(at("piped.err"));
  const Result piped_mask = sh("$HALO design --lowpass 1k --taps 11 -o link.wav -q 2> mask.err | cat > /dev/null");
  EXPECT_NE(read_bytes(at("mask.err")).find("link.wav: a pipe, and a sound mask's header is completed at its end"),
            std::string::npos)
      << read_bytes(at("mask.err"));
  // Sound to a terminal is refused as such (it had blamed a pipe, and advised --type au to AU).
  const Result terminal = sh("/usr/bin/script -qec \"$HALO filter in.wav - --type au --mask half.txt\" /dev/null");
  EXPECT_NE(terminal.out.find("standard output: a terminal, which plays no sound"), std::string::npos) << terminal.out;
  // A text --format to /dev/stdout is written as for - (it had been told to be named .json).
  ASSERT_EQ(sh("$HALO design --lowpass 1k --taps 11 -o /dev/stdout --format json -q > d.json").exit_code, 0);
  const Result json_mask = sh("$HALO filter in.wav from-json.wav --mask d.json -q");
  EXPECT_EQ(json_mask.exit_code, 0) << json_mask.err;
  // ALAC is read back from where its bytes begin (libsndfile's own reading from an offset had
  // found no frames and failed a sound file).
  const Result alac = sh("{ printf 'x\\n'; $HALO filter in.wav /dev/stdout --type caf --subtype alac16 --mask half.txt -q; } "
                         "> group.caf && tail -c +3 group.caf > alone.caf");
  ASSERT_EQ(alac.exit_code, 0) << alac.err;
  const Result frames = python("import soundfile as sf\nprint(sf.info('alone.caf').frames)\n");
  EXPECT_EQ(frames.out, "4800\n") << frames.err;
}

// A mask or impulse response is an input too: `ir fix` and `design` convert one into a file
// that may have its name (directly or through a link), and `filter` reads one beside its
// audio. Each is refused before anything is written, naming the file's role (OUT the mask had
// been called "the input file", a QA pass), and the file keeps its bytes.
TEST_F(OutputSafety, OutputThatIsTheMaskOrImpulseResponseIsRefused) {
  const Result made = python(R"(
import numpy as np, soundfile as sf
sf.write('room.wav', np.random.default_rng(5).normal(0, 0.1, 4800), 48000, subtype='FLOAT')
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ASSERT_EQ(sh("ln -s room.wav room-link.wav && cp half.txt mask.txt").exit_code, 0);
  const std::string room = read_bytes(at("room.wav")), mask = read_bytes(at("mask.txt"));
  const auto before = list_directory(work_.path());
  expect_refused("$HALO ir fix room.wav room.wav --normalize peak", 1, "room.wav is the input file", before);
  expect_refused("$HALO ir fix room.wav ./room-link.wav --normalize -6", 1, "room-link.wav is room.wav, the input file", before);
  expect_refused("$HALO design --mask mask.txt -o mask.txt", 1, "mask.txt is the mask file (--mask)", before);
  expect_refused("$HALO design --ir room.wav -o room-link.wav", 1, "room-link.wav is room.wav, the impulse response file (--ir)", before);
  expect_refused("$HALO filter in.wav room.wav --ir room.wav -q", 1, "room.wav is the impulse response file (--ir)", before);
  expect_refused("$HALO filter in.wav room-link.wav --mask room.wav -q", 1, "room-link.wav is room.wav, the mask file (--mask)", before);
  // The files an export writes beside its own: Equalizer APO's WAV (room.txt -> room.wav) and
  // CamillaDSP's raw coefficients, and the plot (it had rewritten the IR as float, silently).
  expect_refused("$HALO design --mask room.wav --format eqapo -o room.txt", 1, "room.wav is the mask file (--mask)", before);
  ASSERT_EQ(sh("sox -M room.wav room.wav stereo.wav").exit_code, 0);  // two masks: CamillaDSP's beside is a WAV
  const std::string stereo = read_bytes(at("stereo.wav"));
  const auto with_stereo = list_directory(work_.path());
  expect_refused("$HALO design --mask stereo.wav --format camilladsp -o stereo.yml", 1, "stereo.wav is the mask file (--mask)",
                 with_stereo);
  expect_refused("$HALO ir fix stereo.wav stereo.yml --normalize peak", 1, "stereo.wav is the input file", with_stereo);
  ASSERT_EQ(sh("cp mask.txt text-mask.svg").exit_code, 0);  // text by any other name
  const auto with_svg = list_directory(work_.path());
  expect_refused("$HALO design --mask text-mask.svg --plot text-mask.svg -o x.txt", 1, "text-mask.svg is the mask file (--mask)",
                 with_svg);
  EXPECT_TRUE(read_bytes(at("stereo.wav")) == stereo) << "the two-channel IR was changed";
  ASSERT_EQ(sh("rm -f stereo.wav text-mask.svg").exit_code, 0);
  EXPECT_TRUE(read_bytes(at("room.wav")) == room) << "the impulse response was changed";
  EXPECT_TRUE(read_bytes(at("mask.txt")) == mask) << "the mask was changed";
  // Another name is fine, and the fixed IR is the original scaled to a peak of 1.
  const Result fixed = sh("$HALO ir fix room.wav fixed.wav --normalize peak -q");
  ASSERT_EQ(fixed.exit_code, 0) << fixed.err;
  const Result check = python(R"(
import numpy as np, soundfile as sf
x, _ = sf.read('room.wav'); y, _ = sf.read('fixed.wav')
assert y.shape == x.shape and np.max(np.abs(y - x / np.max(np.abs(x)))) < 1e-6
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// ------------------------------------------------------------------------------- item 14

TEST_F(OutputSafety, OutputNamesAreCheckedBeforeAnyWork) {
  ASSERT_EQ(mkdir(at("folder").c_str(), 0755), 0);
  const auto before = list_directory(work_.path());
  // The input does not exist: a message about OUT shows that OUT was checked first.
  expect_refused("$HALO filter missing.wav '' --mask half.txt", 2, "empty output name", before);
  expect_refused("$HALO filter missing.wav out.xyz --mask half.txt", 2, "out.xyz", before);
  expect_refused("$HALO filter missing.wav out.wav --type au --mask half.txt", 2, "contradicts", before);
  // A folder is a matter of files, exit 1, as design -o, ir fix and wisdom --file say (it had
  // been 2, a command-line mistake, in filter alone: a QA pass).
  expect_refused("$HALO filter missing.wav folder --mask half.txt", 1, "is a directory", before);
  expect_refused("$HALO design --lowpass 1k -o folder", 1, "folder", before);
  expect_refused("$HALO ir fix in.wav folder", 1, "folder", before);
  expect_refused("$HALO design --lowpass 1k -o ''", 2, "empty output name", before);

  // An extension halo does not know, with the container named: written as asked.
  Result run = sh("$HALO filter in.wav out.xyz --type au --mask half.txt -q");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_bytes(at("out.xyz")).substr(0, 4), ".snd");
  // A 250-character name: its temporary must still be a valid name.
  const std::string long_name = std::string(246, 'n') + ".wav";
  run = sh("$HALO filter in.wav " + long_name + " --mask half.txt -q");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_half("in.wav", long_name);
  // Names that start with '-', after "--".
  run = sh("cp in.wav ./-in.wav && $HALO filter --mask half.txt -q -- -in.wav -out.wav");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_half("in.wav", "-out.wav");
  std::vector<std::string> expected = before;
  expected.insert(expected.end(), {"out.xyz", long_name, "-in.wav", "-out.wav"});
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(list_directory(work_.path()), expected) << "a temporary was left";
}

// A file into a folder that is not there: every command that writes one words it alike, exits 1
// (the file's problem, not the command line's) and writes nothing. filter had said "No such
// file or directory" of the folder, --report "no folder", and --plot and --report exited 2.
TEST_F(OutputSafety, AMissingFolderIsWordedAlikeByEveryWriter) {
  const auto before = list_directory(work_.path());
  const std::string says = "cannot create a file in no/such: no such folder";
  expect_refused("$HALO filter in.wav no/such/out.wav --mask half.txt", 1, "no/such/out.wav: " + says, before);
  expect_refused("$HALO design --lowpass 1k -o no/such/m.txt", 1, "no/such/m.txt: " + says, before);
  expect_refused("$HALO design --lowpass 1k --plot no/such/p.svg", 1, "--plot no/such/p.svg: " + says, before);
  expect_refused("$HALO design --lowpass 1k --report no/such/r.json", 1, "--report no/such/r.json: " + says, before);
  expect_refused("$HALO ir fix in.wav no/such/ir.wav", 1, "no/such/ir.wav: " + says, before);
  // A folder that is there but makes no files (procfs answers ENOENT too) is not called missing.
  const std::string proc = "cannot create a file in /proc: its file system makes no new files there";
  expect_refused("$HALO filter in.wav /proc/out.wav --mask half.txt", 1, "/proc/out.wav: " + proc, before);
  expect_refused("$HALO ir fix in.wav /proc/ir.wav", 1, "/proc/ir.wav: " + proc, before);
  // And the temporaries of --norm and of a FLAC read from a pipe, in $TMPDIR ("/proc: No such
  // file or directory", a QA pass).
  expect_refused("TMPDIR=/proc $HALO filter in.wav n.wav --mask half.txt --norm", 1,
                 "--norm: cannot make its temporary in /proc: its file system makes no new files there", before);
  expect_refused("TMPDIR=no/such $HALO filter in.wav n.wav --mask half.txt --norm", 1,
                 "--norm: cannot make its temporary in no/such: no such folder", before);
  expect_refused("cat in16.flac | TMPDIR=/proc $HALO filter - n.wav --mask half.txt", 1,
                 "cannot make a temporary in /proc to read it from (libsndfile reads this container only from a seekable "
                 "file): its file system makes no new files there", before);
}

// --report naming a file design writes already (-o m.json --report m.json) had written the
// report over the mask, exit 0: refused before any work, by any spelling of the name.
TEST_F(OutputSafety, DesignsReportCannotNameItsOtherOutputs) {
  const auto before = list_directory(work_.path());
  expect_refused("$HALO design --lowpass 3k -o m.json --report m.json", 2, "--report m.json names a file design writes",
                 before);
  expect_refused("$HALO design --lowpass 3k -o m.json --report ./m.json", 2, "names a file design writes", before);
  expect_refused("$HALO design --lowpass 3k -o m.json --report ../$(basename $PWD)/m.json", 2,
                 "names a file design writes", before);
  // -o and --plot spelled alike had slipped past the plot's check (a review finding).
  expect_refused("$HALO design --lowpass 3k --format txt -o p.svg --plot p.svg", 2, "--plot p.svg names a file design writes",
                 before);
  // A link to the mask, made before the run: the same file by another name.
  ASSERT_EQ(sh("$HALO design --lowpass 3k -q -o m.json && ln -s m.json link.json").exit_code, 0);
  const std::string mask = read_bytes(at("m.json"));
  const Result linked = sh("$HALO design --lowpass 2k -q -o m.json --report link.json");
  EXPECT_EQ(linked.exit_code, 2) << linked.err;
  EXPECT_EQ(read_bytes(at("m.json")), mask);
  const Result fine = sh("$HALO design --lowpass 3k -q -o m.json --report r.json");
  ASSERT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_NE(read_bytes(at("m.json")).find("coefficients"), std::string::npos);
  EXPECT_NE(read_bytes(at("r.json")).find("attenuation_db"), std::string::npos);
}

TEST_F(OutputSafety, DesignDashOWritesToStandardOutput) {
  const Result run = sh("$HALO design --lowpass 1k -o - > taps.txt");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(std::filesystem::exists(at("-"))) << "a file named '-' was made";
  const Result check = python(R"(
import numpy as np, scipy.signal as s
h = np.loadtxt('taps.txt')
r = s.firwin(255, 1000, fs=48000, window='hamming')
assert h.shape == r.shape and np.max(np.abs(h - r)) < 1e-7, np.max(np.abs(h - r))
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// design's -o is checked before the design: with a spec that is also wrong (a cutoff past
// Nyquist), the error names the output, so nothing was designed first.
TEST_F(OutputSafety, DesignOutputIsCheckedBeforeTheDesign) {
  // A name no mask can have is how the command was called (2), a missing folder the file's (1).
  for (const auto& [output, exit_code] : {std::pair<std::string, int>{"mask.ogg", 2}, {"no/such/folder/mask.txt", 1}}) {
    const Result run = sh("$HALO design --lowpass 30k -o " + output);
    EXPECT_EQ(run.exit_code, exit_code) << run.err;
    EXPECT_NE(run.err.find(output), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("--lowpass"), std::string::npos) << "the spec was looked at first: " << run.err;
    EXPECT_FALSE(std::filesystem::exists(at(output)));
  }
}

// ------------------------------------------------------------------------------- item 15

TEST_F(OutputSafety, PipesCarryWhatTheReadmeSays) {
  // FLAC and CAF from a pipe, and FLAC from a FIFO named as IN.
  for (const std::string command :
       {"cat in16.flac | $HALO filter - flac.wav --mask half.txt --subtype float -q",
        "cat in16.caf | $HALO filter - caf.wav --mask half.txt --subtype float -q",
        "mkfifo in.fifo && { cat in16.flac > in.fifo & } && $HALO filter in.fifo fifo.wav --mask half.txt --subtype float -q"}) {
    const Result run = sh(command);
    ASSERT_EQ(run.exit_code, 0) << describe_command(command, run);
  }
  expect_half("in16.flac", "flac.wav");
  expect_half("in16.caf", "caf.wav");
  expect_half("in16.flac", "fifo.wav");

  // The README's example, with `play -t au -` stood in for by sox reading AU from the pipe.
  Result run = sh("$HALO filter in.wav - --mask half.txt --type au -q | sox -t au - via_sox.wav");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_half("in.wav", "via_sox.wav", 1e-7);  // sox carries samples as 32-bit integers
  run = sh("$HALO filter in.wav - --mask half.txt --type ogg -q | cat > piped.ogg");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Result frames = python("import soundfile as sf; assert sf.info('piped.ogg').frames == 4800\n");
  EXPECT_EQ(frames.exit_code, 0) << frames.err;

  // What does not go to a pipe says so in one line, and puts no byte into it.
  for (const std::string type : {"wav", "aiff", "flac", "mp3"}) {
    const std::string command = "$HALO filter in.wav - --mask half.txt --type " + type + " -q | wc -c";
    run = sh(command);
    EXPECT_EQ(std::atoi(run.out.c_str()), 0) << describe_command(command, run);
    const auto lines = halo_lines(run);
    ASSERT_EQ(lines.size(), 1u) << describe_command(command, run);
    EXPECT_NE(lines[0].find("pipe"), std::string::npos) << describe_command(command, run);
    EXPECT_NE(lines[0].find("--type au"), std::string::npos) << describe_command(command, run);
  }
}

TEST_F(OutputSafety, LossyInputBecomesPcm16ElsewhereAsSoxDoes) {
  const Result made = python(R"(
import numpy as np, soundfile as sf
x, r = sf.read('in.wav')
sf.write('in.mp3', x, r, format='MP3')
sf.write('in.ogg', x, r, subtype='VORBIS')
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  for (const std::string command : {"$HALO filter in.mp3 mp3.wav --mask half.txt -q",
                                    "$HALO filter in.ogg ogg.flac --mask half.txt -q"}) {
    const Result run = sh(command);
    ASSERT_EQ(run.exit_code, 0) << describe_command(command, run);
  }
  // pcm16, and half of what soundfile decodes, within pcm16's rounding and dither (1.5 LSB).
  const Result check = python(R"(
import numpy as np, soundfile as sf
for src, out in (('in.mp3', 'mp3.wav'), ('in.ogg', 'ogg.flac')):
    assert sf.info(out).subtype == 'PCM_16', (out, sf.info(out).subtype)
    x, _ = sf.read(src, always_2d=True)
    y, _ = sf.read(out, always_2d=True)
    assert x.shape == y.shape, (src, x.shape, y.shape)
    err = np.max(np.abs(y - 0.5 * x)) * 32768
    assert err <= 1.5, (src, err)
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

// An .opus name, or --type opus, asks for the Opus codec whatever the input holds (a player
// takes an .opus file for Opus); .ogg stays Vorbis. A rate Opus cannot take is refused in one
// line rather than written as Vorbis under an .opus name.
TEST_F(OutputSafety, OpusNamesGetOpusEvenFromVorbis) {
  const Result made = python(R"(
import numpy as np, soundfile as sf
x, r = sf.read('in.wav')
sf.write('in.ogg', x, r, subtype='VORBIS')
sf.write('in44.wav', x, 44100, subtype='FLOAT')
open('unit.txt', 'w').write('1\n')
)");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  for (const std::string command : {"$HALO filter in.ogg vorbis-in.opus --mask half.txt -q",
                                    "$HALO filter in.wav typed --type opus --mask half.txt -q",
                                    "$HALO filter in.wav - --type opus --mask half.txt -q > piped.opus",
                                    "$HALO filter in.ogg out.ogg --mask half.txt -q",
                                    "$HALO filter vorbis-in.opus opus-in.ogg --mask unit.txt -q",
                                    "$HALO filter vorbis-in.opus opus-kept.ogg --subtype opus --mask unit.txt -q"}) {
    const Result run = sh(command);
    ASSERT_EQ(run.exit_code, 0) << describe_command(command, run);
  }
  const Result check = python(R"(
import numpy as np, soundfile as sf
# An .ogg name writes Vorbis from Opus too (it had kept Opus), unless --subtype asks.
for name, codec in (('vorbis-in.opus', 'OPUS'), ('typed', 'OPUS'), ('piped.opus', 'OPUS'), ('out.ogg', 'VORBIS'),
                    ('opus-in.ogg', 'VORBIS'), ('opus-kept.ogg', 'OPUS')):
    info = sf.info(name)
    assert (info.format, info.subtype) == ('OGG', codec), (name, info.format, info.subtype)
    x, _ = sf.read('in.wav', always_2d=True)
    y, _ = sf.read(name, always_2d=True)
    # Lossy codecs on white noise: the length, and the level within 30 %, not the samples.
    level = np.sqrt(np.mean(y ** 2)) / np.sqrt(np.mean((0.5 * x) ** 2))
    assert len(y) == len(x) and 0.7 < level < 1.3, (name, len(y), level)
)");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  const auto before = list_directory(work_.path());
  expect_refused("$HALO filter in44.wav out44.opus --mask half.txt -q", 1, "out44.opus", before);
}

}  // namespace
}  // namespace halo::test
