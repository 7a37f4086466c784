#pragma once
// Small helpers for the issue 13 command-line tests (strict options, dither, --norm, raw
// input): a temporary directory, running a command with its exit code, stdout and stderr
// captured, and running a numpy check with /usr/bin/python3 (independent of halo's code).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace halo::test13 {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/halo-i13-XXXXXX";
    if (!mkdtemp(pattern)) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "<missing " + path + ">";
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline std::vector<std::string> listing(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Ran {
  int exit_code = -1;  // -1: killed by a signal
  std::string out, err;
};

// Runs args[0] with the rest in `cwd`; stdin from `stdin_path` (/dev/null when empty), stdout
// into `stdout_path` when given (else captured into Ran::out), stderr captured.
inline Ran run_command(const std::vector<std::string>& args, const std::string& cwd,
                       const std::string& stdin_path = "", const std::string& stdout_path = "") {
  const std::string out_file = stdout_path.empty() ? cwd + "/.stdout" : stdout_path;
  const std::string err_file = cwd + "/.stderr";
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int in = open(stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), O_RDONLY);
    const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || chdir(cwd.c_str()) != 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Ran ran;
  if (WIFEXITED(status)) ran.exit_code = WEXITSTATUS(status);
  if (stdout_path.empty()) ran.out = read_file(out_file);
  ran.err = read_file(err_file);
  std::remove(err_file.c_str());
  if (stdout_path.empty()) std::remove(out_file.c_str());
  return ran;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::string describe(const std::vector<std::string>& args, const Ran& ran) {
  std::string text = "command:";
  for (const auto& arg : args) text += " '" + arg + "'";
  return text + "\nexit " + std::to_string(ran.exit_code) + "\nstderr:\n" + ran.err;
}

// Runs a Python script (numpy, scipy, soundfile) in `cwd`; its stdout and stderr come back
// as Ran::out / Ran::err, a failed assertion as a non-zero exit.
inline Ran python(const std::string& cwd, const std::string& script) {
  write_file(cwd + "/.check.py", script);
  return run_command({"/usr/bin/python3", cwd + "/.check.py"}, cwd);
}

}  // namespace halo::test13
