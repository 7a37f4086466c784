#pragma once
// Helpers for the tests that run the built `halo` binary and the tests that need real sound
// files: a temporary directory, running a command with its exit code, stdout and stderr
// captured (also under a memory limit), the expectations on a failed run, a numpy check with
// /usr/bin/python3, and writing/reading sound files with libsndfile directly (not through
// halo's audio/ code, which is what is under test).
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sndfile.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <system_error>
#include <utility>
#include <vector>

#include "support/temp_dir.hpp"
#include "test_signals.hpp"

namespace halo::test {

// ------------------------------------------------------------------ files and directories

inline bool file_exists(const std::string& path) {
  struct stat status {};
  return lstat(path.c_str(), &status) == 0;
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Names in `directory` (not . and ..), sorted: two listings of the same names compare equal.
inline std::vector<std::string> list_directory(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// What a directory held at one moment, to find what a run left there: any name that was not
// there before counts (a sound file's or a mask file's temporary, whatever it is called), not
// only the names one implementation happens to use.
class DirectorySnapshot {
 public:
  // A directory that does not exist (or cannot be listed) holds nothing.
  explicit DirectorySnapshot(std::string directory) : directory_(std::move(directory)), names_(names_now()) {}

  const std::string& directory() const { return directory_; }

  // Names there now that were not at construction, less the `expected` ones.
  std::vector<std::string> added(const std::vector<std::string>& expected = {}) const {
    std::vector<std::string> found;
    for (const auto& name : names_now())
      if (std::find(names_.begin(), names_.end(), name) == names_.end() &&
          std::find(expected.begin(), expected.end(), name) == expected.end())
        found.push_back(name);
    return found;
  }

 private:
  std::vector<std::string> names_now() const {
    std::error_code error;
    if (!std::filesystem::is_directory(directory_, error)) return {};
    return list_directory(directory_);
  }

  std::string directory_;
  std::vector<std::string> names_;
};

inline std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// Raw little-endian float32 (this machine is little-endian; the golden files are '<f4').
inline std::vector<float> read_f32(const std::string& path) {
  const std::string bytes = read_bytes(path);
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

inline void write_f32(const std::string& path, const std::vector<float>& values) {
  write_bytes(path, std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

// One coefficient a line; columns = per-channel masks.
inline void write_mask_text(const std::string& path, const std::vector<std::vector<float>>& columns) {
  std::ofstream out(path);
  out << "# test mask\n";
  char number[64];
  for (std::size_t k = 0; k < columns.front().size(); ++k) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::snprintf(number, sizeof number, "%s%.9g", c ? " " : "", columns[c][k]);
      out << number;
    }
    out << "\n";
  }
}

// ------------------------------------------------------------------ sound files via libsndfile

struct Sound {
  int rate_hz = 0;
  int channels = 0;
  int format = 0;               // SF_FORMAT_* container | subtype
  std::int64_t frames = 0;
  std::vector<float> samples;   // interleaved, normalised as libsndfile reads them (pcm16: v / 32768)
  std::vector<double> raw;      // interleaved, integer subtypes: the stored integer values
};

inline int container_of(const Sound& sound) { return sound.format & SF_FORMAT_TYPEMASK; }
inline int subtype_of(const Sound& sound) { return sound.format & SF_FORMAT_SUBMASK; }

// Full scale of an integer subtype (pcm16: 32768), 0 for float and others.
inline double full_scale(int subtype) {
  switch (subtype & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_S8:
    case SF_FORMAT_PCM_U8: return 128.0;  // libsndfile reads unsigned 8 bits as signed, value - 128
    case SF_FORMAT_PCM_16: return 32768.0;
    case SF_FORMAT_PCM_24: return 8388608.0;
    case SF_FORMAT_PCM_32: return 2147483648.0;
    default: return 0.0;
  }
}

// Writes interleaved floats with libsndfile's own float -> integer conversion; read the file
// back (read_sound) for the exact samples a reader sees.
inline void write_sound(const std::string& path, const std::vector<float>& interleaved, int channels,
                        int rate_hz, int format) {
  SF_INFO info{};
  info.samplerate = rate_hz;
  info.channels = channels;
  info.format = format;
  SNDFILE* file = sf_open(path.c_str(), SFM_WRITE, &info);
  if (!file) throw std::runtime_error(path + ": " + sf_strerror(nullptr));
  // Integer subtypes: avoid libsndfile's clipping surprises at +1.0 by letting it clip.
  sf_command(file, SFC_SET_CLIPPING, nullptr, SF_TRUE);
  const sf_count_t frames = static_cast<sf_count_t>(interleaved.size() / channels);
  const sf_count_t written = frames ? sf_writef_float(file, interleaved.data(), frames) : 0;
  const int closed = sf_close(file);
  if (written != frames || closed != 0) throw std::runtime_error(path + ": write failed");
}

// `raw`, for a headerless file (SF_FORMAT_RAW): its format, channels and rate.
inline Sound read_sound(const std::string& path, const SF_INFO& raw = SF_INFO{}) {
  SF_INFO info = raw;
  SNDFILE* file = sf_open(path.c_str(), SFM_READ, &info);
  if (!file) throw std::runtime_error(path + ": " + sf_strerror(nullptr));
  Sound sound;
  sound.rate_hz = info.samplerate;
  sound.channels = info.channels;
  sound.format = info.format;
  // Read to the end (codecs may only estimate info.frames), in large blocks: libsndfile
  // reports some decoding errors (a FLAC stream with trailing junk) only to large reads.
  constexpr sf_count_t block_frames = 1 << 16;
  std::vector<float> block(block_frames * static_cast<std::size_t>(info.channels));
  for (sf_count_t got; (got = sf_readf_float(file, block.data(), block_frames)) > 0;)
    sound.samples.insert(sound.samples.end(), block.begin(), block.begin() + got * info.channels);
  if (sf_error(file) != SF_ERR_NO_ERROR) {
    const std::string reason = sf_strerror(file);
    sf_close(file);
    throw std::runtime_error(path + ": decoding failed after " + std::to_string(sound.samples.size() / info.channels) +
                             " frames: " + reason);
  }
  sound.frames = static_cast<std::int64_t>(sound.samples.size() / info.channels);
  if (full_scale(info.format) > 0) {
    sf_seek(file, 0, SEEK_SET);
    sf_command(file, SFC_SET_NORM_DOUBLE, nullptr, SF_FALSE);
    std::vector<double> raw_block(4096 * static_cast<std::size_t>(info.channels));
    for (sf_count_t got; (got = sf_readf_double(file, raw_block.data(), 4096)) > 0;)
      sound.raw.insert(sound.raw.end(), raw_block.begin(), raw_block.begin() + got * info.channels);
  }
  sf_close(file);
  return sound;
}

// Writes `frames` frames of seeded noise (never zero) and returns what a reader gets back.
inline Sound make_noise_file(const std::string& path, std::size_t frames, int channels, int rate_hz, int format,
                             std::uint64_t seed, float scale = 0.5f) {
  write_sound(path, random_signal(frames * channels, seed, scale), channels, rate_hz, format);
  return read_sound(path);
}

// ------------------------------------------------------------------ reference outputs

enum class Align { same, causal };

// The expected OUT of `halo filter` in float64, interleaved: per channel the full convolution
// (numpy.convolve) with its mask, sliced from (M-1)//2 (same) or 0 (causal), N frames, or with
// `tail` up to the end of the full convolution. M is the longest mask.
inline std::vector<double> expected_output(const std::vector<float>& interleaved, int channels,
                                           const std::vector<std::vector<float>>& masks, Align align, bool tail,
                                           double gain = 1.0) {
  const std::size_t frames = interleaved.size() / channels;
  std::size_t m = 0;
  for (const auto& mask : masks) m = std::max(m, mask.size());
  const std::size_t start = align == Align::same ? (m - 1) / 2 : 0;
  const std::size_t out_frames = tail ? frames + m - 1 - start : frames;
  std::vector<double> out(out_frames * channels, 0.0);
  for (int c = 0; c < channels; ++c) {
    const auto& mask = masks[masks.size() == 1 ? 0 : c];
    const std::vector<double> full = reference_convolution(interleaved, channels, c, mask);
    for (std::size_t n = 0; n < out_frames; ++n)
      out[n * channels + c] = (start + n < full.size() ? full[start + n] : 0.0) * gain;
  }
  return out;
}

// ||out - ref|| / ||ref|| over all samples; inf on NaN or a length mismatch.
inline double relative_error(const std::vector<float>& out, const std::vector<double>& ref) {
  if (out.size() != ref.size()) return INFINITY;
  return relative_error(out.data(), out.size(), 1, ref.data());
}

// One tolerance per integer output subtype, in LSB of that subtype, for outputs computed in
// float32: pcm16 is coarser than float32 rounding, so its samples are within 1 LSB of the
// rounded reference; pcm24 and pcm32 resolve finer than float32 arithmetic (about 2^-22 of
// full scale after a few hundred taps, more for FFT engines), so they get 2^-19 of full scale.
inline double lsb_tolerance(int subtype) {
  switch (subtype & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_16: return 1.0;
    case SF_FORMAT_PCM_24: return 16.0;
    case SF_FORMAT_PCM_32: return 4096.0;
    default: return 0.0;
  }
}

// Largest |stored - round(clip(ref * full_scale))| in LSB over an integer output; inf on a
// length mismatch.
inline double max_lsb_error(const Sound& sound, const std::vector<double>& ref) {
  const double scale = full_scale(sound.format);
  if (scale == 0 || sound.raw.size() != ref.size()) return INFINITY;
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double want = std::min(std::max(std::nearbyint(ref[i] * scale), -scale), scale - 1);
    worst = std::max(worst, std::fabs(sound.raw[i] - want));
  }
  return worst;
}

// ------------------------------------------------------------------ running commands

struct RunOptions {
  std::string cwd;            // empty: the test's working directory
  std::string stdin_path;     // empty: /dev/null
  std::string stdout_path;    // empty: a pipe, captured into Result::out
  uid_t uid = 0;              // non-zero: drop to this user and group (tests running as root)
};

struct Result {
  int exit_code = -1;         // -1 when killed by a signal
  int signal = 0;
  std::string out;            // stdout, when it went to the pipe
  std::string err;            // stderr
  long max_rss_kb = 0;        // the child's peak resident memory
};

class Process {
 public:
  Process(const std::vector<std::string>& args, const RunOptions& options = {}) {
    char pattern[] = "/tmp/halo-stderr-XXXXXX";
    const int err_fd = mkstemp(pattern);
    if (err_fd < 0) throw std::runtime_error("mkstemp failed");
    err_path_ = pattern;
    int out_pipe[2] = {-1, -1};
    if (options.stdout_path.empty() && pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");

    std::vector<char*> argv;
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);

    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      // Child: only async-signal-safe calls from here on.
      const int in_fd = open(options.stdin_path.empty() ? "/dev/null" : options.stdin_path.c_str(), O_RDONLY);
      if (in_fd < 0) _exit(126);
      dup2(in_fd, STDIN_FILENO);
      if (options.stdout_path.empty()) {
        dup2(out_pipe[1], STDOUT_FILENO);
        close(out_pipe[0]);
        close(out_pipe[1]);
      } else {
        const int out_fd = open(options.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out_fd < 0) _exit(126);
        dup2(out_fd, STDOUT_FILENO);
      }
      dup2(err_fd, STDERR_FILENO);
      if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
      if (options.uid != 0) {
        if (setgroups(0, nullptr) != 0 || setgid(options.uid) != 0 || setuid(options.uid) != 0) _exit(126);
      }
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(err_fd);
    if (out_pipe[1] >= 0) close(out_pipe[1]);
    out_fd_ = out_pipe[0];
  }
  ~Process() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      wait();
    }
    if (out_fd_ >= 0) close(out_fd_);
    if (!err_path_.empty()) unlink(err_path_.c_str());
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }

  // True while the child has not exited (it may be a zombie already; that counts as exited).
  bool running() {
    if (pid_ <= 0) return false;
    siginfo_t info{};
    info.si_pid = 0;
    return waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
  }

  // wait(), but for at most `seconds`: a child still running then is killed (SIGKILL, which
  // Result::signal shows), so a test waiting on a hung child fails at once and says so.
  Result wait_at_most(double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (running() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (running()) kill(pid_, SIGKILL);
    return wait();
  }

  // Drains stdout, waits for the child and collects everything.
  Result wait() {
    Result result;
    if (out_fd_ >= 0) {
      char block[65536];
      for (;;) {
        const ssize_t got = read(out_fd_, block, sizeof block);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        result.out.append(block, static_cast<std::size_t>(got));
      }
      close(out_fd_);
      out_fd_ = -1;
    }
    if (pid_ > 0) {
      int status = 0;
      rusage usage{};
      while (wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      pid_ = 0;
      result.max_rss_kb = usage.ru_maxrss;
      if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    }
    result.err = read_bytes(err_path_);
    return result;
  }

 private:
  pid_t pid_ = 0;
  int out_fd_ = -1;
  std::string err_path_;
};

inline Result run(const std::vector<std::string>& args, const RunOptions& options = {}) {
  Process process(args, options);
  return process.wait();
}

// `halo ARGS...`
inline std::vector<std::string> halo_args(std::initializer_list<std::string> args) {
  std::vector<std::string> all = {HALO_BINARY};
  all.insert(all.end(), args);
  return all;
}

inline Result halo(std::initializer_list<std::string> args, const RunOptions& options = {}) {
  return run(halo_args(args), options);
}

// RunOptions for a run in `cwd`, stdin from `stdin_path` (/dev/null when empty).
inline RunOptions in_directory(const std::string& cwd, const std::string& stdin_path = "") {
  RunOptions options;
  options.cwd = cwd;
  options.stdin_path = stdin_path;
  return options;
}

// For failure messages: the command (a shell command line) and what it printed.
inline std::string describe_command(const std::string& command, const Result& result) {
  std::ostringstream text;
  text << "command: " << command;
  text << "\nexit code: " << result.exit_code << " signal: " << result.signal << "\nstderr:\n" << result.err;
  return text.str();
}

// For failure messages: the command line and what it printed.
inline std::string describe(const std::vector<std::string>& args, const Result& result) {
  std::string command;
  for (const auto& arg : args) command += (command.empty() ? "" : " ") + arg;
  return describe_command(command, result);
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// `halo ARGS` with its address space limited to `limit_mib` (ulimit -v): a run that would need
// gigabytes fails there instead of taking the test machine's memory.
inline Result halo_limited(long limit_mib, const std::vector<std::string>& args, const RunOptions& options = {}) {
  std::string command = "ulimit -v " + std::to_string(limit_mib * 1024) + " && exec \"$0\" \"$@\"";
  std::vector<std::string> all = {"/bin/sh", "-c", command, HALO_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  return run(all, options);
}

// Runs a python3 script (numpy, scipy, soundfile) in `cwd`: its stdout and stderr come back,
// a failed assertion as a non-zero exit.
inline Result python(const std::string& cwd, const std::string& script) {
  return run({"/usr/bin/python3", "-c", script}, in_directory(cwd));
}

// The unprivileged user a root test run drops to, when the binary is usable by it.
inline uid_t nobody_uid() { return 65534; }

inline bool running_as_root() { return geteuid() == 0; }

// ------------------------------------------------------------------ expectations

// The failure contract: non-zero exit `code`, exactly one line on stderr, a `halo:` line that
// contains `words`, and nothing new in the directory.
inline void expect_one_line_failure(const Result& result, int code, const std::string& words,
                                    const DirectorySnapshot& directory, const std::string& context) {
  EXPECT_EQ(result.exit_code, code) << context << "\n" << result.err;
  const auto lines = lines_of(result.err);
  ASSERT_EQ(lines.size(), 1u) << context << "\n" << result.err;
  EXPECT_EQ(lines[0].rfind("halo: ", 0), 0u) << context << "\n" << result.err;
  EXPECT_NE(lines[0].find(words), std::string::npos) << context << ": expected \"" << words << "\" in\n" << result.err;
  EXPECT_TRUE(directory.added().empty()) << context << ": left " << joined(directory.added());
}

}  // namespace halo::test
