#pragma once
// The JACK server the real-time tests run halo against (jackd2's dummy driver paces a real
// PortAudio stream in real time), and what those tests share: waiting for ports, reading
// halo's summary, comparing a recording piece by piece between the periods the host dropped.
// Each test process starts its own server, named after its pid so it never meets another one
// (ctest runs tests in parallel, each in its own process), and stops it; a suite skips where
// jackd is missing.
#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_support.hpp"

namespace halo::test {

// What every JACK test server runs at: `jackd -d dummy -r 48000 -p 64`.
constexpr int rate = 48000;
constexpr int period = 64;

bool on_path(const std::string& program);
// jackd2's programs where PATH finds them (the GPU machine carries them outside /usr/bin),
// else /usr/bin.
std::string jack_program(const std::string& name);
// jack_rec recording `ports` into `path` for `seconds`, under `timeout -k 5 60`: for a recorder
// the test only waits for, which would wait for ever on a server that stopped (seen on the GPU
// machine); the -k, since jack_rec answers SIGTERM by closing its client, which may itself wait
// on that server. A recorder the test may kill runs bare: killing `timeout` would leave it running.
std::vector<std::string> bounded_jack_rec(const std::string& path, const std::string& seconds,
                                          std::initializer_list<std::string> ports);
// jackd2's client programs, each bounded: a server that stops answering (seen on this VM in a
// CI run, where one test hung until ctest's 120 s) fails the test instead of hanging it.
std::vector<std::string> ports();  // jack_lsp, at most 10 s
// jack_connect FROM TO, at most 10 s; whether it succeeded.
bool jack_connect(const std::string& from, const std::string& to);
bool wait_for_port(const std::string& port, double seconds);

// A server of the test's own (`jackd -n NAME -d dummy -r rate -p PERIOD_FRAMES`), for a test
// that stops it or needs another period: every client started while it lives finds it
// (JACK_DEFAULT_SERVER), the suite's server again after. Resumed (a test may have stopped it
// with SIGSTOP) and ended with SIGTERM whatever the test's outcome: a killed jackd leaks its
// slot in JACK's shared-memory registry, and a few leaked slots keep any new server from starting.
class OwnServer {
 public:
  // driver_options go after the dummy driver's rate and period (e.g. {"-C", "0"}: no capture ports).
  OwnServer(const std::string& name, int period_frames, const std::vector<std::string>& driver_options = {});
  ~OwnServer();
  OwnServer(const OwnServer&) = delete;
  OwnServer& operator=(const OwnServer&) = delete;
  bool started() const { return started_; }
  pid_t pid() const { return process_->pid(); }

 private:
  std::string name_;
  std::string suite_server_;
  std::unique_ptr<Process> process_;
  bool started_ = false;
};

// Starts the server once per suite (realtime -R first, plain if that fails) and stops it; every
// client of the test process, halo included, finds it through JACK_DEFAULT_SERVER.
class Jack : public ::testing::Test {
 public:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  void SetUp() override;

 protected:
  static Process* server_;
  static std::string skip_reason_;
  TempDir dir_;
};

// From halo's summary: "halo adds N frames", "N frames short in all" (what the ring ran short),
// "underruns N (halo's own", "host xruns N" (the periods the server flagged). -1 when absent.
long added_latency(const std::string& err);
long short_frames(const std::string& err);
long underruns(const std::string& err);
long host_xruns(const std::string& err);

// Compares a recording with what it should hold, piece by piece: from the first frame where
// `expected` is not silent, rec[f + offset] == expected[f] (within `tolerance`); where the
// host dropped or repeated periods, the offset is found again from the next 128 frames.
// Returns the frames that matched; `resyncs` counts the new offsets; `bad` the frames that
// matched under no offset.
struct Comparison {
  std::size_t compared = 0, matched = 0, resyncs = 0, bad = 0;
  long first_offset = 0;
};
Comparison compare_pieces(const std::vector<float>& rec, int rec_channels, const std::vector<int>& rec_columns,
                          const std::vector<double>& expected, int channels, double tolerance);

// `lead` frames of silence, then `frames` of seeded noise (never zero), interleaved.
std::vector<float> noise_with_lead(std::size_t lead, std::size_t frames, int channels, std::uint64_t seed);

// Starts `halo live ARGS`; stop() ends it as Ctrl-C does and collects what it printed (killing
// it if it has not ended 30 s later: Result::signal 9).
struct Live {
  std::unique_ptr<Process> process;
  explicit Live(std::initializer_list<std::string> args, const RunOptions& options = {});
  explicit Live(const std::vector<std::string>& args, const RunOptions& options = {});  // `halo ARGS...`
  Result stop();
};

// halo under a pseudo-terminal, as a person runs it: keys go in, everything it prints (the
// status line, the summary) comes out. Every wait is bounded, so that a halo or a server that
// stops answering fails the test rather than hanging the suite.
class Terminal {
 public:
  // `columns`: the terminal's width, as a window of that size reports it (0: the pty's default, none).
  explicit Terminal(const std::vector<std::string>& args, unsigned short columns = 0);
  ~Terminal();  // kills the child if it still runs
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;
  bool press(char key);
  // Writes `keys` at once, as a terminal sends an arrow's escape sequence.
  bool type(const std::string& keys);
  // Its exit status, waiting at most `seconds` before killing it (then -1, as for any signal,
  // and output() says so); what it printed is complete after this.
  int wait_exit(double seconds = 30);
  // Whether the child printed `text` within `seconds`: a key pressed after what it printed for
  // an earlier one is taken after that one (the keys are read in order), with no guessed sleep.
  bool wait_for(const std::string& text, double seconds = 10);
  const std::string& output() const { return output_; }  // complete after wait_exit

 private:
  pid_t child_ = -1;
  int fd_ = -1;
  std::thread drain_;  // reads the terminal until the child (the last holder of its side) ends
  std::mutex output_mutex_;  // the drain's appends against wait_for's looks
  std::string output_;
};

}  // namespace halo::test
