#include "realtime/jack_fixture.hpp"

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <map>
#include <regex>
#include <thread>

namespace halo::test {

namespace {
// One server per test process (ctest runs tests in parallel, each in its own process).
const std::string server_name = "halo-test-" + std::to_string(getpid());
}  // namespace

bool on_path(const std::string& program) {
  return run({"/bin/sh", "-c", "command -v " + program}).exit_code == 0;
}

std::string jack_program(const std::string& name) {
  static std::map<std::string, std::string> found;  // the tests' own thread only
  auto it = found.find(name);
  if (it == found.end()) {
    const std::vector<std::string> path = lines_of(run({"/bin/sh", "-c", "command -v " + name}).out);
    it = found.emplace(name, path.empty() || path[0].empty() ? "/usr/bin/" + name : path[0]).first;
  }
  return it->second;
}

std::vector<std::string> bounded_jack_rec(const std::string& path, const std::string& seconds,
                                          std::initializer_list<std::string> ports) {
  std::vector<std::string> command = {"/usr/bin/timeout", "-k", "5", "60", jack_program("jack_rec"), "-f", path,
                                      "-d", seconds, "-b", "32"};
  command.insert(command.end(), ports);
  return command;
}

std::vector<std::string> ports() { return lines_of(Process({jack_program("jack_lsp")}).wait_at_most(10).out); }

bool jack_connect(const std::string& from, const std::string& to) {
  return Process({jack_program("jack_connect"), from, to}).wait_at_most(10).exit_code == 0;
}

bool wait_for_port(const std::string& port, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    for (const auto& name : ports())
      if (name == port) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void Jack::SetUpTestSuite() {
  if (!on_path("jackd") || !on_path("jack_rec")) {
    skip_reason_ = "jackd2 is not installed (setup.sh installs it)";
    return;
  }
  setenv("JACK_DEFAULT_SERVER", server_name.c_str(), 1);  // every client of this test, halo included
  setenv("JACK_NO_START_SERVER", "1", 1);
  for (const bool realtime : {true, false}) {
    std::vector<std::string> args = {jack_program("jackd"), "-n", server_name};
    if (realtime) args.insert(args.end(), {"-R", "-P", "70"});
    args.insert(args.end(), {"-d", "dummy", "-r", std::to_string(rate), "-p", std::to_string(period)});
    server_ = new Process(args);
    if (wait_for_port("system:playback_1", 5)) {
      if (!realtime) std::fprintf(stderr, "jack test: jackd -R failed; running without -R (expect more host xruns)\n");
      return;
    }
    delete server_;
    server_ = nullptr;
  }
  skip_reason_ = "jackd with the dummy driver did not start";
}

OwnServer::OwnServer(const std::string& name, int period_frames, const std::vector<std::string>& driver_options) {
  const char* suite = std::getenv("JACK_DEFAULT_SERVER");
  suite_server_ = suite != nullptr ? suite : "";
  name_ = name;
  setenv("JACK_DEFAULT_SERVER", name.c_str(), 1);
  std::vector<std::string> command = {jack_program("jackd"), "-n", name, "-d", "dummy", "-r",
                                      std::to_string(rate), "-p", std::to_string(period_frames)};
  command.insert(command.end(), driver_options.begin(), driver_options.end());
  process_ = std::make_unique<Process>(command);
  started_ = wait_for_port("system:playback_1", 5);
}

OwnServer::~OwnServer() {
  kill(process_->pid(), SIGCONT);
  kill(process_->pid(), SIGTERM);
  process_->wait_at_most(10);
  setenv("JACK_DEFAULT_SERVER", suite_server_.c_str(), 1);
  // A client still connected when its server went (the server-gone tests) leaves its
  // semaphores behind, jack_sem.UID_SERVER_CLIENT: with a server name of its own each run
  // would add files to /dev/shm for good.
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ignored)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("jack_sem.", 0) == 0 && file.find("_" + name_ + "_") != std::string::npos)
      std::filesystem::remove(entry.path(), ignored);
  }
}

void Jack::TearDownTestSuite() {
  if (server_ != nullptr) {
    kill(server_->pid(), SIGTERM);
    server_->wait();
    delete server_;
    server_ = nullptr;
  }
}

void Jack::SetUp() {
  if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
}

Process* Jack::server_ = nullptr;
std::string Jack::skip_reason_;

long added_latency(const std::string& err) {
  std::smatch match;
  if (!std::regex_search(err, match, std::regex("halo adds ([0-9]+) frames"))) return -1;
  return std::stol(match[1]);
}

long short_frames(const std::string& err) {
  std::smatch match;
  if (!std::regex_search(err, match, std::regex("([0-9]+) frames short in all"))) return -1;
  return std::stol(match[1]);
}

long underruns(const std::string& err) {
  std::smatch match;
  if (!std::regex_search(err, match, std::regex("underruns ([0-9]+) \\(halo's own"))) return -1;
  return std::stol(match[1]);
}

long host_xruns(const std::string& err) {
  std::smatch match;
  if (!std::regex_search(err, match, std::regex("host xruns ([0-9]+)"))) return -1;
  return std::stol(match[1]);
}

// The offset is searched near where the first non-silent frames of both line up.
Comparison compare_pieces(const std::vector<float>& rec, int rec_channels, const std::vector<int>& rec_columns,
                          const std::vector<double>& expected, int channels, double tolerance) {
  Comparison result;
  const long rec_frames = static_cast<long>(rec.size() / rec_channels);
  const long frames = static_cast<long>(expected.size() / channels);
  auto equal_at = [&](long f, long offset) {
    const long r = f + offset;
    if (r < 0 || r >= rec_frames) return false;
    for (int c = 0; c < channels; ++c)
      if (std::fabs(rec[r * rec_channels + rec_columns[c]] - expected[f * channels + c]) > tolerance) return false;
    return true;
  };
  auto find_offset = [&](long f, long near, long radius, long* offset) {
    for (long d = 0; d <= radius; ++d)
      for (const long candidate : {near + d, near - d}) {
        bool all = true;
        for (long g = f; g < std::min(frames, f + 128) && all; ++g) all = equal_at(g, candidate);
        if (all) {
          *offset = candidate;
          return true;
        }
      }
    return false;
  };
  long first = 0;
  while (first < frames && std::fabs(expected[first * channels]) < 1e-3) ++first;
  long first_rec = 0;
  while (first_rec < rec_frames && std::fabs(rec[first_rec * rec_channels + rec_columns[0]]) < 1e-3) ++first_rec;
  long offset = 0;
  if (!find_offset(first, first_rec - first, 4096, &offset)) {
    result.bad = static_cast<std::size_t>(frames - first);
    return result;
  }
  result.first_offset = offset;
  for (long f = first; f < frames && f + offset < rec_frames; ++f) {
    ++result.compared;
    if (equal_at(f, offset)) {
      ++result.matched;
      continue;
    }
    long again = offset;
    if (find_offset(f, offset, 4 * period * 8, &again)) {
      offset = again;
      ++result.resyncs;
      ++result.matched;
    } else {
      ++result.bad;
    }
  }
  return result;
}

std::vector<float> noise_with_lead(std::size_t lead, std::size_t frames, int channels, std::uint64_t seed) {
  std::vector<float> x(lead * channels, 0.0f);
  const std::vector<float> noise = random_signal(frames * channels, seed, 0.4f);
  x.insert(x.end(), noise.begin(), noise.end());
  return x;
}

Live::Live(std::initializer_list<std::string> args, const RunOptions& options) {
  process = std::make_unique<Process>(halo_args(args), options);
}

Live::Live(const std::vector<std::string>& args, const RunOptions& options) {
  std::vector<std::string> all = {HALO_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  process = std::make_unique<Process>(all, options);
}

Result Live::stop() {
  kill(process->pid(), SIGINT);
  return process->wait_at_most(30);  // a live that hangs is killed: exit code -1, signal 9
}

Terminal::Terminal(const std::vector<std::string>& args, unsigned short columns) {
  winsize size{};
  size.ws_row = 24;
  size.ws_col = columns;
  child_ = forkpty(&fd_, nullptr, nullptr, columns > 0 ? &size : nullptr);
  if (child_ < 0) throw std::runtime_error("forkpty failed");
  if (child_ == 0) {
    std::vector<char*> argv;
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  drain_ = std::thread([this] {
    char block[4096];
    for (ssize_t got; (got = read(fd_, block, sizeof block)) > 0;) {
      std::lock_guard<std::mutex> lock(output_mutex_);
      output_.append(block, static_cast<std::size_t>(got));
    }
  });
}

bool Terminal::wait_for(const std::string& text, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(output_mutex_);
      if (output_.find(text) != std::string::npos) return true;
    }
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Terminal::~Terminal() {
  if (child_ > 0) wait_exit(0);
  if (drain_.joinable()) drain_.join();
  if (fd_ >= 0) close(fd_);
}

bool Terminal::press(char key) { return write(fd_, &key, 1) == 1; }
bool Terminal::type(const std::string& keys) {
  return write(fd_, keys.data(), keys.size()) == static_cast<ssize_t>(keys.size());
}

int Terminal::wait_exit(double seconds) {
  int status = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  pid_t ended = 0;
  while ((ended = waitpid(child_, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool killed = ended == 0;
  if (killed) {
    kill(child_, SIGKILL);
    waitpid(child_, &status, 0);
  }
  child_ = 0;
  if (drain_.joinable()) drain_.join();
  if (killed && seconds > 0) output_ += "\n[test: still running after " + std::to_string(seconds) + " s, killed]\n";
  return killed || !WIFEXITED(status) ? -1 : WEXITSTATUS(status);
}

}  // namespace halo::test
