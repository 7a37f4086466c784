// What a listener does to a running play or live, on the JACK test server (jack_fixture.hpp),
// checked on what jack_rec records: live reloading its mask file (on a change and on SIGHUP,
// and keeping the old mask when the new file is bad), play --loop running seamlessly on, a
// 44.1 kHz file resampled for the 48 kHz server, and the keys (b, n, p, +, -, q) pressed on a
// pseudo-terminal.
#include <locale.h>
#include <sys/stat.h>

#include <chrono>
#include <complex>
#include <cstdio>
#include <cwchar>
#include <fstream>
#include <limits>
#include <regex>
#include <thread>

#include "realtime/jack_fixture.hpp"

namespace halo::test {
namespace {

using Clock = std::chrono::steady_clock;

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// Coefficients in a fixed width, so that every mask file of the same length has the same
// size: a replacement that also keeps the modification time is invisible to live's watcher
// (which compares size and time) and only SIGHUP makes live read it.
std::string mask_text(const std::vector<float>& taps) {
  std::string text = "# test mask\n";
  char number[32];
  for (const float tap : taps) {
    std::snprintf(number, sizeof number, "%+.9e\n", static_cast<double>(tap));
    text += number;
  }
  return text;
}

// Replaces `path` as an editor that saves atomically does: a new file renamed over it. With
// `keep_stamp` the new file takes the old one's modification time.
void replace_file(const std::string& path, const std::string& text, bool keep_stamp) {
  const std::string temporary = path + ".new";
  write_bytes(temporary, text);
  if (keep_stamp) {
    struct stat old {};
    ASSERT_EQ(stat(path.c_str(), &old), 0);
    const timespec times[2] = {old.st_atim, old.st_mtim};
    ASSERT_EQ(utimensat(AT_FDCWD, temporary.c_str(), times, 0), 0);
  }
  ASSERT_EQ(rename(temporary.c_str(), path.c_str()), 0);
}

// A recording by one jack_rec of live's input (column 0) and output (column 1).
struct LiveRecording {
  std::vector<float> samples;  // interleaved, 2 columns
  long frames = 0;
  double in(long t) const { return samples[static_cast<std::size_t>(t) * 2]; }
  double out(long t) const { return samples[static_cast<std::size_t>(t) * 2 + 1]; }
};

// What live's output may be in a stretch of the recording: the recorded input through one
// mask (the causal float64 convolution, computed plainly), or the dry input `shift` frames
// later (bypass, delay-matched), before the device's delay.
struct Candidate {
  std::string name;
  std::vector<double> signal;  // signal[t]: the output at t, were the device to add no delay
};

Candidate through_mask(const std::string& name, const LiveRecording& recording, const std::vector<float>& taps) {
  return {name, reference_convolution(recording.samples, 2, 0, taps)};
}

Candidate dry(const LiveRecording& recording, long shift) {
  Candidate candidate{"dry", std::vector<double>(static_cast<std::size_t>(recording.frames), 0.0)};
  for (long t = shift; t < recording.frames; ++t) candidate.signal[t] = recording.in(t - shift);
  return candidate;
}

// One window of the recording: the candidate that explains it, at which gain and delay, or
// none (a crossfade, a gain ramp, a period the host broke).
struct WindowMatch {
  long start = 0;
  std::string name;      // empty: none within tolerance
  double gain_db = 0;    // the least-squares scale of the candidate, in dB
  double residual = 0;   // ||out - scale x candidate|| / ||out||
  long delay = 0;        // frames from the candidate to the output
};

// live's output is a candidate delayed by what the summary reports, or one period more where
// JACK's graph order runs live before the client feeding it; each window tries both.
// `tolerance` on the residual: float32 filtering leaves about 1e-7 of the output; another
// mask, a crossfade or a gain ramp inside the window leaves more than 1e-2.
std::vector<WindowMatch> classify(const LiveRecording& recording, const std::vector<Candidate>& candidates,
                                  const std::vector<long>& delays, long first, long window, double tolerance) {
  std::vector<WindowMatch> matches;
  for (long start = first; start + window <= recording.frames; start += window) {
    WindowMatch best;
    best.start = start;
    best.residual = INFINITY;
    double out_energy = 0;
    for (long t = start; t < start + window; ++t) out_energy += recording.out(t) * recording.out(t);
    for (const Candidate& candidate : candidates)
      for (const long delay : delays) {
        if (start - delay < 0) continue;
        double cross = 0, energy = 0;
        for (long t = start; t < start + window; ++t) {
          const double r = candidate.signal[t - delay];
          cross += r * recording.out(t);
          energy += r * r;
        }
        if (energy == 0 || out_energy == 0) continue;
        const double scale = cross / energy;
        double error = 0;
        for (long t = start; t < start + window; ++t) {
          const double e = recording.out(t) - scale * candidate.signal[t - delay];
          error += e * e;
        }
        const double residual = std::sqrt(error / out_energy);
        if (residual < best.residual && scale > 0) {
          best.residual = residual;
          best.gain_db = 20 * std::log10(scale);
          best.name = candidate.name;
          best.delay = delay;
        }
      }
    if (best.residual > tolerance) best.name.clear();
    matches.push_back(best);
  }
  return matches;
}

// Consecutive windows that the same candidate explains at the same whole-dB gain; windows
// that none explains are left out between them.
struct Stretch {
  std::string label;  // "a +1 dB"
  long first = 0, last = 0, windows = 0;
  double worst_gain_error_db = 0;  // against the whole dB of the label
};

std::vector<Stretch> stretches_of(const std::vector<WindowMatch>& matches, long window) {
  std::vector<Stretch> runs;
  for (const WindowMatch& match : matches) {
    if (match.name.empty()) continue;
    const long db = std::lround(match.gain_db);
    char label[64];
    std::snprintf(label, sizeof label, "%s %+ld dB", match.name.c_str(), db);
    if (runs.empty() || runs.back().label != label) runs.push_back({label, match.start, match.start, 0, 0});
    Stretch& run = runs.back();
    run.last = match.start + window - 1;
    ++run.windows;
    run.worst_gain_error_db = std::max(run.worst_gain_error_db, std::fabs(match.gain_db - static_cast<double>(db)));
  }
  return runs;
}

std::string describe_runs(const std::vector<Stretch>& runs) {
  std::string text;
  for (const Stretch& run : runs)
    text += "  " + run.label + ": frames " + std::to_string(run.first) + ".." + std::to_string(run.last) + " (" +
            std::to_string(run.windows) + " windows, gain off by up to " + std::to_string(run.worst_gain_error_db) +
            " dB)\n";
  return text;
}

std::vector<std::string> run_labels(const std::vector<Stretch>& runs) {
  std::vector<std::string> labels;
  for (const Stretch& run : runs) labels.push_back(run.label);
  return labels;
}

long unmatched(const std::vector<WindowMatch>& matches) {
  return static_cast<long>(std::count_if(matches.begin(), matches.end(), [](const WindowMatch& m) { return m.name.empty(); }));
}

std::vector<std::string> lines_containing(const std::string& text, const std::string& words) {
  std::vector<std::string> found;
  for (const auto& line : lines_of(text))
    if (line.find(words) != std::string::npos) found.push_back(line);
  return found;
}

// `halo play FILE --mask unit.txt -q` feeding live's input ports from a noise file of `seconds`.
std::unique_ptr<Process> feed_live(const std::string& dir, double seconds, int live_channels) {
  const std::string in = dir + "/feed.wav", unit = dir + "/unit.txt";
  write_mask_text(unit, {{1.0f}});
  write_sound(in, noise_with_lead(0, static_cast<std::size_t>(seconds * rate), 1, 21), 1, rate,
              SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  auto play = std::make_unique<Process>(halo_args({"play", in, "--mask", unit, "-q"}));
  if (!wait_for_port("halo-play:out_1", 10)) return nullptr;
  for (int c = 0; c < live_channels; ++c)
    if (!jack_connect("halo-play:out_" + std::to_string(c), "halo-live:in_" + std::to_string(c))) return nullptr;
  return play;
}

// jack_rec's command line recording live's input (what play feeds it) and output.
std::vector<std::string> record_live(const std::string& path, double seconds) {
  return {jack_program("jack_rec"), "-f", path, "-d", std::to_string(seconds), "-b", "32", "halo-play:out_0",
          "halo-live:out_0"};
}

LiveRecording read_live_recording(const std::string& path) {
  const Sound sound = read_sound(path);
  LiveRecording recording;
  recording.samples = sound.samples;
  recording.frames = static_cast<long>(sound.frames);
  return recording;
}

class JackControls : public Jack {};

// live reads its mask file again when it changes and on SIGHUP: after the switch (the new
// engine warmed up, then the 5 ms crossfade) the output is the float64 convolution with the new
// mask. A bad new file (a NaN, then garbage) leaves the old mask playing, and each says why in
// one line.
TEST_F(JackControls, LiveReloadsItsMaskOnChangeAndOnSighup) {
  const std::string mask = dir_ / "m.txt", rec = dir_ / "rec.wav";
  constexpr std::size_t taps = 160;
  const std::vector<float> a = random_signal(taps, 31, 0.1f), b = random_signal(taps, 32, 0.1f),
                           c = random_signal(taps, 33, 0.1f);
  write_bytes(mask, mask_text(a));
  std::string nan_text = mask_text(c), garbage_text = mask_text(c);
  // Same size as the good files: the garbage one goes in by SIGHUP alone.
  const std::size_t line = nan_text.find('\n', 20) + 1;
  nan_text.replace(line, 16, "nan             ");
  garbage_text.replace(line, 16, "garbage-garbage!");

  Live live({"live", "--mask", mask, "--channels", "1", "-q"});
  ASSERT_TRUE(wait_for_port("halo-live:in_0", 10));
  const std::unique_ptr<Process> play = feed_live(dir_.path(), 7.0, 1);
  ASSERT_NE(play, nullptr);
  const double seconds = 4.0;
  Process recorder(record_live(rec, seconds));
  const auto begun = Clock::now();
  auto at = [&](double s) { std::this_thread::sleep_until(begun + std::chrono::duration<double>(s)); };
  at(0.7);
  replace_file(mask, mask_text(b), false);
  const auto b_written = Clock::now();
  at(1.5);
  replace_file(mask, mask_text(c), true);
  kill(live.process->pid(), SIGHUP);
  const auto c_written = Clock::now();
  at(2.3);
  replace_file(mask, nan_text, false);
  at(3.0);
  replace_file(mask, garbage_text, true);
  kill(live.process->pid(), SIGHUP);
  const auto garbage_written = Clock::now();
  const double left = seconds + 30 - std::chrono::duration<double>(Clock::now() - begun).count();
  const Result recorded = recorder.wait_at_most(left);
  const auto recorded_end = Clock::now();
  ASSERT_EQ(recorded.signal, 0) << "jack_rec had not ended " << seconds + 30 << " s after it began: " << recorded.err;
  kill(play->pid(), SIGINT);
  const Result played = play->wait_at_most(30);
  EXPECT_EQ(played.exit_code, 130) << played.err;
  const Result result = live.stop();
  ASSERT_EQ(result.exit_code, 130) << result.err;

  // What live says: one line per reload and per refusal, each naming the reason.
  EXPECT_EQ(lines_containing(result.err, "halo: reloaded " + mask + " (changed)").size(), 1u) << result.err;
  EXPECT_EQ(lines_containing(result.err, "halo: reloaded " + mask + " (SIGHUP)").size(), 1u) << result.err;
  const auto refused = lines_containing(result.err, "keeping the old mask");
  ASSERT_EQ(refused.size(), 2u) << result.err;
  // The file, the line and the reason, once each.
  EXPECT_EQ(refused[0], "halo: " + mask + ":3: NaN or Inf coefficient; keeping the old mask");
  EXPECT_EQ(refused[1], "halo: " + mask + ":3: \"garbage-garbage!\" is not a number; keeping the old mask");
  EXPECT_NE(result.err.find("mask switches: 2"), std::string::npos) << result.err;

  const LiveRecording recording = read_live_recording(rec);
  const long latency = added_latency(result.err);
  ASSERT_GT(latency, 0) << result.err;
  const long window = 1024;
  const std::vector<Candidate> candidates = {through_mask("a", recording, a), through_mask("b", recording, b),
                                             through_mask("c", recording, c)};
  const auto matches = classify(recording, candidates, {latency, latency + period},
                                latency + period + static_cast<long>(taps), window, 1e-4);
  const std::vector<Stretch> runs = stretches_of(matches, window);
  const std::string context = describe_runs(runs) + result.err;
  RecordProperty("stretches", describe_runs(runs));
  RecordProperty("refusals", refused[0] + " / " + refused[1]);
  ASSERT_EQ(run_labels(runs), (std::vector<std::string>{"a +0 dB", "b +0 dB", "c +0 dB"})) << context;
  for (const Stretch& run : runs) EXPECT_LT(run.worst_gain_error_db, 1e-3) << context;
  // Windows no mask explains: a crossfade straddles at most two; a period the host flagged
  // (where the ring may also have run short) two more.
  const long flagged = std::max(0L, host_xruns(result.err));
  EXPECT_LE(unmatched(matches), 2 * 2 + 2 * flagged) << context;
  EXPECT_LE(unmatched(matches), static_cast<long>(matches.size()) / 4) << context;

  // When: the recording's last frame is when jack_rec ended. The watcher looks every ten
  // control passes (about 0.2 s); SIGHUP is seen within one pass; then the warm-up (160
  // frames) and the fade. Generous bounds, for a loaded machine.
  const long frames = recording.frames;
  auto frame_at = [&](Clock::time_point when) {
    return frames - static_cast<long>(std::chrono::duration<double>(recorded_end - when).count() * rate);
  };
  EXPECT_GT(runs[1].first, frame_at(b_written) - rate / 4) << context;
  EXPECT_LT(runs[1].first, frame_at(b_written) + rate) << context;
  EXPECT_GT(runs[2].first, frame_at(c_written) - rate / 4) << context;
  EXPECT_LT(runs[2].first, frame_at(c_written) + rate / 2) << context;
  // The old mask (c) still plays after both bad files, to the end of the recording.
  EXPECT_GT(runs[2].last, frame_at(garbage_written) + rate / 2) << context;
  EXPECT_GE(runs[2].last, frames - 2 * window) << context;
}

// A server that stalls (or dies) under live leaves PortAudio's JACK host waiting for a
// callback that never comes (up to ten minutes, in the stop's handshake): Ctrl-C still ends
// live within seconds, with exit 130, its summary and a line saying the stream was left open.
// On a server of its own, stopped (SIGSTOP) under live, then resumed and ended cleanly:
// killing jackd leaks its slot in JACK's shared-memory registry, and a few leaked slots keep
// any new server from starting.
TEST_F(JackControls, CtrlCEndsLiveWhoseServerStalled) {
  const OwnServer server("halo-stalled-" + std::to_string(getpid()), period);
  ASSERT_TRUE(server.started()) << "jackd -n halo-stalled-... did not start";
  const std::string mask = dir_ / "unit.txt";
  write_bytes(mask, "1\n");
  Live live({"live", "--mask", mask, "--channels", "1", "-q"});
  ASSERT_TRUE(wait_for_port("halo-live:in_0", 10));
  sleep_ms(500);
  kill(server.pid(), SIGSTOP);
  sleep_ms(300);
  const auto interrupted = Clock::now();
  kill(live.process->pid(), SIGINT);
  const Result result = live.process->wait_at_most(15);
  const double seconds = std::chrono::duration<double>(Clock::now() - interrupted).count();
  EXPECT_LT(seconds, 10.0) << "live took " << seconds << " s to stop\n" << result.err;
  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_NE(result.err.find("frames played"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("stopped calling back"), std::string::npos) << result.err;
}

// A signal delivered twice at once (`timeout` sends its signal to halo, then to halo's process
// group) is one signal: live ends with its summary (a QA pass: it had stopped at once, without
// it, saying filter's "nothing was written"). A second Ctrl-C a second later, while live waits
// on a stalled server, stops it at once and says what that means for live.
TEST_F(JackControls, ASignalDeliveredTwiceIsOneAndASecondCtrlCStopsAtOnce) {
  const std::string mask = dir_ / "unit.txt";
  write_bytes(mask, "1\n");
  {
    Live live({"live", "--mask", mask, "--channels", "1", "-q"});
    ASSERT_TRUE(wait_for_port("halo-live:in_0", 10));
    sleep_ms(300);
    kill(live.process->pid(), SIGINT);
    kill(live.process->pid(), SIGINT);
    const Result result = live.process->wait_at_most(15);
    EXPECT_EQ(result.exit_code, 130) << result.err;
    EXPECT_NE(result.err.find("frames played"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find("interrupted"), std::string::npos) << result.err;
  }
  const OwnServer server("halo-twice-" + std::to_string(getpid()), period);
  ASSERT_TRUE(server.started()) << "jackd -n halo-twice-... did not start";
  Live live({"live", "--mask", mask, "--channels", "1", "-q"});
  ASSERT_TRUE(wait_for_port("halo-live:in_0", 10));
  sleep_ms(500);
  kill(server.pid(), SIGSTOP);
  sleep_ms(300);
  kill(live.process->pid(), SIGINT);
  sleep_ms(1000);
  kill(live.process->pid(), SIGINT);
  const Result result = live.process->wait_at_most(15);
  kill(server.pid(), SIGCONT);
  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_NE(result.err.find("halo: interrupted; stopped at once, without the summary"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("nothing was written"), std::string::npos) << result.err;
}

// Without a Ctrl-C: a server that stalls (SIGSTOP) under live or play ends them by itself
// (they had waited for ever, and did the same for a server that ended): after two seconds
// without a callback, the line that says so, the summary and exit 1, within the stop's grace
// of two seconds more. Stopped, not ended: a server ended under a client leaves that client's
// semaphore in /dev/shm, and the test would leave one behind at every run.
TEST_F(JackControls, LiveAndPlayEndThemselvesWhenTheirServerStalls) {
  const std::string mask = dir_ / "unit.txt", long_file = dir_ / "long.wav";
  write_bytes(mask, "1\n");
  write_sound(long_file, random_signal(20 * rate * 2, 51, 0.3f), 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  for (const bool live_one : {true, false}) {
    OwnServer server("halo-gone-" + std::to_string(getpid()) + (live_one ? "-live" : "-play"), period);
    ASSERT_TRUE(server.started()) << "jackd -n halo-gone-... did not start";
    Process halo_run(live_one ? halo_args({"live", "--mask", mask, "--channels", "1", "-q"})
                              : halo_args({"play", long_file, "--mask", mask, "-q"}));
    ASSERT_TRUE(wait_for_port(live_one ? "halo-live:in_0" : "halo-play:out_0", 10));
    sleep_ms(500);
    kill(server.pid(), SIGSTOP);
    const auto gone = Clock::now();
    const Result result = halo_run.wait_at_most(20);
    const double seconds = std::chrono::duration<double>(Clock::now() - gone).count();
    const std::string what = live_one ? "live" : "play";
    EXPECT_LT(seconds, 10.0) << what << " took " << seconds << " s to end\n" << result.err;
    EXPECT_EQ(result.exit_code, 1) << what << "\n" << result.err;
    EXPECT_EQ(result.err.rfind("halo: the audio device made no callback for 2 s", 0), 0u) << what << "\n" << result.err;
    EXPECT_NE(result.err.find("frames played"), std::string::npos) << what << "\n" << result.err;
  }
}

// `play IN --mask MASK --loop`, `seconds` of its ports recorded into `rec` (`settle_ms` after
// they appear), then Ctrl-C: play's result (exit 130 when all went well; -1 when its ports
// never came or the recorder failed, said by a failed expectation).
Result record_a_loop(const std::string& in, const std::string& mask, const std::string& rec, const std::string& seconds,
                     int settle_ms) {
  Process play(halo_args({"play", in, "--mask", mask, "--loop", "-q"}));
  const bool started = wait_for_port("halo-play:out_1", 10);
  EXPECT_TRUE(started);
  std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
  const Result recorded = started ? run(bounded_jack_rec(rec, seconds, {"halo-play:out_0", "halo-play:out_1"})) : Result{};
  EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
  kill(play.pid(), SIGINT);
  Result played = play.wait_at_most(30);
  if (!started || recorded.exit_code != 0) played.exit_code = -1;
  return played;
}

// play --loop: the reader opens the file again at its end and goes on writing into the same
// ring; the engine is never reset, so the mask's halo runs on across the seam. The recording
// is `halo filter` of the file repeated (and the float64 convolution of it), not of each
// pass apart: seamless.
TEST_F(JackControls, PlayLoopRepeatsTheFilteredFileSeamlessly) {
  const std::string in = dir_ / "short.wav", tiled = dir_ / "tiled.wav", ref = dir_ / "ref.wav",
                    rec = dir_ / "rec.wav", mask = dir_ / "mask.txt";
  const std::size_t n = 9000;  // 0.19 s; neither a whole number of periods nor of the reader's 4096 frames
  const std::vector<float> x = random_signal(n * 2, 41, 0.4f);
  const std::vector<float> h = random_signal(255, 42, 0.1f);
  write_mask_text(mask, {h});
  write_sound(in, x, 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  std::vector<float> repeated;
  constexpr int passes = 16;
  for (int pass = 0; pass < passes; ++pass) repeated.insert(repeated.end(), x.begin(), x.end());
  write_sound(tiled, repeated, 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  ASSERT_EQ(halo({"filter", tiled, ref, "--mask", mask, "--subtype", "float", "-q"}).exit_code, 0);

  const Result played = record_a_loop(in, mask, rec, "2", 0);
  ASSERT_EQ(played.exit_code, 130) << played.err;
  EXPECT_EQ(underruns(played.err), 0) << played.err;

  const Sound recording = read_sound(rec);
  const std::vector<double> reference = expected_output(repeated, 2, {h}, Align::same, false);
  const Sound filtered = read_sound(ref);
  ASSERT_EQ(filtered.samples.size(), reference.size());
  const long stream_frames = static_cast<long>(reference.size() / 2);
  // Where the recording starts in the looped stream: jack_rec joined it somewhere in a pass.
  // Its first 128 sounding frames are found in the stream (which repeats with period n once
  // the mask has seen a whole pass, so the first n + 255 frames hold every phase).
  long first_rec = 0;
  while (first_rec < recording.frames && std::fabs(recording.samples[first_rec * 2]) < 1e-3) ++first_rec;
  ASSERT_LT(first_rec + 128, recording.frames) << "the recording is silent";
  long start = -1;
  for (long s = 0; s < static_cast<long>(n) + 512 && start < 0; ++s) {
    bool all = true;
    for (long g = 0; g < 128 && all; ++g)
      for (int c = 0; c < 2 && all; ++c)
        all = std::fabs(recording.samples[(first_rec + g) * 2 + c] - reference[(s + g) * 2 + c]) <= 1e-5;
    if (all) start = s;
  }
  ASSERT_GE(start, 0) << "the recording's start is nowhere in the filtered stream";
  // expected[f] = the stream from the frame the recording's first sounding frame holds, up to
  // the last frames the end of the repeated file would change.
  const long until = stream_frames - 255;
  ASSERT_GT(until - start, static_cast<long>(recording.frames)) << "repeat the file more";
  auto from = [&](const std::vector<double>& stream) {
    return std::vector<double>(stream.begin() + start * 2, stream.begin() + until * 2);
  };
  std::vector<double> by_filter(filtered.samples.begin(), filtered.samples.end());
  const std::size_t flagged = static_cast<std::size_t>(std::max(0L, host_xruns(played.err)));
  auto check = [&](const std::string& what, const std::vector<double>& expected, double tolerance) {
    const Comparison c = compare_pieces(recording.samples, 2, {0, 1}, expected, 2, tolerance);
    EXPECT_LE(c.bad, (2 * c.resyncs + flagged) * period)
        << what << ": " << c.matched << " of " << c.compared << " frames matched, " << c.resyncs << " resyncs\n"
        << played.err;
    // At least four seams recorded.
    EXPECT_GT(c.compared, 4 * n) << what;
    EXPECT_LE(c.resyncs, 10u) << what;
    RecordProperty(what, std::to_string(c.matched) + " of " + std::to_string(c.compared) + " frames matched, " +
                             std::to_string(c.resyncs) + " resyncs, " + std::to_string(c.bad) + " bad");
  };
  check("halo filter of the repeated file", from(by_filter), 1e-6);
  check("the float64 convolution of the repeated file", from(reference), 1e-5);

  // The seams themselves, where a lost, repeated or restarted frame would hide among the
  // resyncs allowed above: around each one (the 2 x 255 output frames that mix the end of one
  // pass with the start of the next, and as many again either side), the recording is the
  // stream under one offset.
  const std::vector<double> expected = from(reference);
  const Comparison whole = compare_pieces(recording.samples, 2, {0, 1}, expected, 2, 1e-5);
  const long rec_frames = static_cast<long>(recording.frames);
  long seams = 0, seamless = 0;
  for (long k = 1;; ++k) {
    const long first = k * static_cast<long>(n) - 2 * 255 - start, last = k * static_cast<long>(n) + 2 * 255 - start;
    if (first < 0) continue;
    if (last + whole.first_offset + 16 * period >= rec_frames) break;
    ++seams;
    for (long offset = whole.first_offset - 16 * period; offset <= whole.first_offset + 16 * period; ++offset) {
      bool all = offset + first >= 0;
      for (long f = first; f < last && all; ++f)
        for (int c = 0; c < 2 && all; ++c)
          all = std::fabs(recording.samples[(f + offset) * 2 + c] - expected[f * 2 + c]) <= 1e-5;
      if (all) {
        ++seamless;
        break;
      }
    }
  }
  RecordProperty("seams", std::to_string(seamless) + " of " + std::to_string(seams) + " seamless");
  EXPECT_GE(seams, 4);
  EXPECT_GE(seamless, seams - static_cast<long>(flagged)) << seamless << " of " << seams << " seams\n" << played.err;
}

// The edges of resampling (a QA pass): a file rate libsamplerate cannot reach from the device's
// (past 256 times) is one line naming the file and both rates, where libsamplerate's own words
// named neither; and a file shorter than the output ring is held ahead by as many frames as
// play sends of it (4097 frames at 44.1 kHz are 4459 at 48; the latency line had said 4460).
TEST_F(JackControls, PlaySaysAnUnreachableRateAndAShortFilesLength) {
  write_sound(dir_ / "r100.wav", random_signal(2 * 400, 81, 0.2f), 2, 100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  Process unreachable(halo_args({"play", dir_ / "r100.wav", "--lowpass", "20"}));
  const Result refused = unreachable.wait_at_most(20);
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_EQ(refused.err, "halo: " + dir_ / "r100.wav" + ": 100 Hz cannot be resampled to the device's 48000 Hz: "
                         "libsamplerate changes a rate by at most 256 times either way\n");
  write_sound(dir_ / "c4097.wav", random_signal(2 * 4097, 82, 0.2f), 2, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  Process short_file(halo_args({"play", dir_ / "c4097.wav", "--lowpass", "4k"}));
  const Result played = short_file.wait_at_most(20);
  ASSERT_EQ(played.exit_code, 0) << played.err;
  EXPECT_NE(played.err.find("4459 frames played"), std::string::npos) << played.err;
  EXPECT_NE(played.err.find("halo adds 4459 frames"), std::string::npos) << played.err;
}

// A 44.1 kHz file on the 48 kHz server: resampled (libsamplerate) before the filter. The
// resampler's bits are its own, so the recording is checked by what must hold whatever they
// are: tones land on their frequencies at 48 kHz, at the level the mask gives them, with
// nothing else above -60 dB, and the sound lasts 48000/44100 of the file's.
TEST_F(JackControls, PlayResamplesA44100FileFor48000) {
  const std::string in = dir_ / "tones44.wav", rec = dir_ / "rec.wav", mask = dir_ / "lowpass.txt";
  const int file_rate = 44100;
  constexpr double pi = 3.14159265358979323846;
  // 0.5 s silence (jack_rec joins late), 1 s of tones, 0.3 s silence. Left: 1 kHz at 0.4 and
  // 9 kHz at 0.3 (in the mask's stop band); right: 2 kHz at 0.2 and 11 kHz at 0.3.
  const long lead = file_rate / 2, sounding = file_rate, tail = file_rate * 3 / 10;
  std::vector<float> x;
  for (long f = 0; f < lead + sounding + tail; ++f) {
    const double t = static_cast<double>(f - lead) / file_rate;
    const bool on = f >= lead && f < lead + sounding;
    x.push_back(on ? static_cast<float>(0.4 * std::cos(2 * pi * 1000 * t) + 0.3 * std::cos(2 * pi * 9000 * t)) : 0.0f);
    x.push_back(on ? static_cast<float>(0.2 * std::cos(2 * pi * 2000 * t) + 0.3 * std::cos(2 * pi * 11000 * t)) : 0.0f);
  }
  // A NaN and an Inf in the closing silence: zeroed before the resampler, two samples counted.
  // Given to libsamplerate, each had spread over some 2 ms of output (cutting the sound out
  // where they fell) and been counted 100 times over (a QA pass).
  x[2 * (lead + sounding + tail / 2)] = std::numeric_limits<float>::quiet_NaN();
  x[2 * (lead + sounding + tail / 2 + 10) + 1] = std::numeric_limits<float>::infinity();
  write_sound(in, x, 2, file_rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  // A 4 kHz low-pass at 48 kHz: Hamming-windowed sinc, 255 taps, unit gain at DC.
  std::vector<float> h(255);
  {
    const double cutoff = 4000.0 / rate;
    std::vector<double> taps(h.size());
    double sum = 0;
    for (std::size_t k = 0; k < taps.size(); ++k) {
      const double m = static_cast<double>(k) - 127.0;
      const double sinc = m == 0 ? 2 * cutoff : std::sin(2 * pi * cutoff * m) / (pi * m);
      taps[k] = sinc * (0.54 - 0.46 * std::cos(2 * pi * static_cast<double>(k) / 254.0));
      sum += taps[k];
    }
    for (std::size_t k = 0; k < taps.size(); ++k) h[k] = static_cast<float>(taps[k] / sum);
  }
  write_mask_text(mask, {h});
  auto response = [&](double hz) {  // |H| of the mask as written, in float64
    std::complex<double> sum = 0;
    for (std::size_t k = 0; k < h.size(); ++k) sum += static_cast<double>(h[k]) * std::polar(1.0, -2 * pi * hz * k / rate);
    return std::abs(sum);
  };

  Process play(halo_args({"play", in, "--mask", mask, "-q"}));
  ASSERT_TRUE(wait_for_port("halo-play:out_1", 10));
  const Result recorded = run(bounded_jack_rec(rec, "2.4", {"halo-play:out_0", "halo-play:out_1"}));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const Result played = play.wait_at_most(30);
  ASSERT_EQ(played.exit_code, 0) << played.err;
  EXPECT_NE(played.err.find("resampled: 44100 -> 48000 Hz"), std::string::npos) << played.err;
  EXPECT_NE(played.err.find("halo: 2 input samples were NaN or Inf and were filtered as 0"), std::string::npos) << played.err;
  // Everything the file holds, at the device's rate: 1.8 s, exactly (79380 frames at 44.1 kHz
  // are 86400 at 48; libsamplerate had given a frame more, which a QA pass found).
  std::smatch match;
  ASSERT_TRUE(std::regex_search(played.err, match, std::regex("([0-9]+) frames played"))) << played.err;
  const long whole = (lead + sounding + tail) * rate / file_rate;
  EXPECT_EQ(std::stol(match[1]), whole) << played.err;

  const Sound recording = read_sound(rec);
  const long frames = static_cast<long>(recording.frames);
  auto left = [&](long t) { return static_cast<double>(recording.samples[t * 2]); };
  auto right = [&](long t) { return static_cast<double>(recording.samples[t * 2 + 1]); };
  // The sounding part's length: where the 1 kHz tone's envelope passes half its level at
  // either end (a centred linear-phase filter puts a gated tone's edge at half level). At
  // 48 kHz a quarter period of 1 kHz is 12 frames, so y[t]^2 + y[t-12]^2 is its level squared.
  const double level_1k = 0.4 * response(1000);
  long onset = -1, offset = -1;
  for (long t = 12; t < frames; ++t) {
    const double envelope = std::sqrt(left(t) * left(t) + left(t - 12) * left(t - 12));
    if (envelope > level_1k / 2) {
      if (onset < 0) onset = t;
      offset = t;
    }
  }
  ASSERT_GT(onset, period) << "jack_rec joined after the tones had begun";
  ASSERT_LT(offset, frames - period) << "the recording ended before the tones";
  const long flagged = std::max(0L, host_xruns(played.err));
  const double expected_span = static_cast<double>(sounding) * rate / file_rate;  // 48000
  EXPECT_NEAR(static_cast<double>(offset - onset), expected_span, 2 * period + period * flagged) << played.err;

  // Windows of 0.1 s inside the sounding part: every tone is a whole number of cycles there,
  // so projections onto them are exact. Levels: what the mask gives each tone, within
  // 0.02 dB (libsamplerate's medium sinc is flat to far better in its 90 % pass band, 0 to
  // 19.8 kHz here, and its noise is 97 dB down); above the mask's stop band edge, at least 50
  // dB down; what is left after the tones, below -60 dB of the tone.
  const long window = rate / 10;
  long windows = 0, bad_windows = 0;
  std::string report;
  for (long start = onset + window; start + window < offset - window / 2; start += window) {
    ++windows;
    auto tone = [&](bool left_channel, double hz, std::complex<double>* phasor) {
      std::complex<double> sum = 0;
      for (long t = start; t < start + window; ++t)
        sum += (left_channel ? left(t) : right(t)) * std::polar(1.0, -2 * pi * hz * static_cast<double>(t) / rate);
      *phasor = 2.0 / static_cast<double>(window) * sum;
      return std::abs(*phasor);
    };
    auto leftover = [&](bool left_channel, double hz, std::complex<double> phasor) {
      double error = 0;
      for (long t = start; t < start + window; ++t) {
        const double model = std::real(phasor * std::polar(1.0, 2 * pi * hz * static_cast<double>(t) / rate));
        const double e = (left_channel ? left(t) : right(t)) - model;
        error += e * e;
      }
      return std::sqrt(2 * error / static_cast<double>(window));  // as a sine's amplitude
    };
    std::complex<double> p1k, p9k, p2k, p11k;
    const double a1k = tone(true, 1000, &p1k), a9k = tone(true, 9000, &p9k);
    const double a2k = tone(false, 2000, &p2k), a11k = tone(false, 11000, &p11k);
    const double rest_left = leftover(true, 1000, p1k), rest_right = leftover(false, 2000, p2k);
    const bool good = std::fabs(20 * std::log10(a1k / level_1k)) < 0.02 &&
                      std::fabs(20 * std::log10(a2k / (0.2 * response(2000)))) < 0.02 &&
                      a9k < 0.3 * std::pow(10.0, -50 / 20.0) && a11k < 0.3 * std::pow(10.0, -50 / 20.0) &&
                      rest_left < level_1k * 1e-3 && rest_right < 0.2 * response(2000) * 1e-3;
    if (!good) ++bad_windows;
    char line[256];
    std::snprintf(line, sizeof line,
                  "%swindow at %ld: 1 kHz %.6f (want %.6f), 2 kHz %.6f (want %.6f), 9 kHz %.2e, 11 kHz %.2e, "
                  "rest %.2e / %.2e\n",
                  good ? "" : "BAD ", start, a1k, level_1k, a2k, 0.2 * response(2000), a9k, a11k, rest_left, rest_right);
    report += line;
  }
  char measured[160];
  std::snprintf(measured, sizeof measured, "frames played %ld (want %ld); sounding %ld frames (want %.0f)",
                std::stol(match[1]), whole, offset - onset, expected_span);
  RecordProperty("measured", measured);
  RecordProperty("windows", report);
  EXPECT_GE(windows, 7);
  // A window the host broke (a dropped or repeated period shifts the phase) may fail.
  EXPECT_LE(bad_windows, 2 * flagged) << report << played.err;
}

// The keys on live's terminal: n and p switch between the two masks, + and - step the gain
// by 1 dB (the recorded level against the mask's float64 convolution moves by 1 dB a step),
// b bypasses to the input delayed by the mask's alignment delay (sample for sample) and back,
// q quits with exit 0 and the summary. The status line shows each state.
TEST_F(JackControls, KeysSwitchBypassStepTheGainAndQuit) {
  const std::string rec = dir_ / "rec.wav", mask_a = dir_ / "a.txt", mask_b = dir_ / "b.txt";
  constexpr long taps = 64;
  const std::vector<float> a = random_signal(taps, 51, 0.15f), b = random_signal(taps, 52, 0.15f);
  write_mask_text(mask_a, {a});
  write_mask_text(mask_b, {b});
  Terminal live(halo_args({"live", "--mask", mask_a, "--mask", mask_b, "--channels", "1"}));
  ASSERT_TRUE(wait_for_port("halo-live:in_0", 10));
  const std::unique_ptr<Process> play = feed_live(dir_.path(), 7.5, 1);
  ASSERT_NE(play, nullptr);
  // 5 s of recording for keys 0.5 s apart from 0.5 to 4 s: the last state (a, after the
  // bypass) lasts about a second in it (a 4.6-s recording once ended that state's windows
  // early in a CI run, under 17 host xruns).
  Process recorder(record_live(rec, 5.0));
  const auto begun = Clock::now();
  const std::string keys = "np++--bb";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::this_thread::sleep_until(begun + std::chrono::milliseconds(500 * (i + 1)));
    ASSERT_TRUE(live.press(keys[i]));
  }
  recorder.wait_at_most(60);
  kill(play->pid(), SIGINT);
  play->wait_at_most(30);
  ASSERT_TRUE(live.press('q'));
  const int code = live.wait_exit();
  const std::string& output = live.output();
  ASSERT_EQ(code, 0) << output;
  // The counts below are the summary's, not the status line's of some moment before it.
  const std::size_t summary_at = output.find("frames played");
  ASSERT_NE(summary_at, std::string::npos) << output;
  const std::string summary = output.substr(summary_at);
  // The status line in each state, and the summary.
  for (const char* shown : {"mask 1/2", "mask 2/2", "| BYPASS |", "gain +1 dB", "gain +2 dB", "gain +0 dB"})
    EXPECT_NE(output.find(shown), std::string::npos) << shown << " never shown:\n" << output;
  EXPECT_NE(output.find("mask switches: 2"), std::string::npos) << output;

  const LiveRecording recording = read_live_recording(rec);
  const long latency = added_latency(summary);
  ASSERT_GT(latency, 0) << output;
  // The masks are centred (text files): what they pass comes (M-1)/2 frames after what halo
  // adds, as the bypass's dry path, checked below against the recording, is delayed; the
  // latency line says so (it had left it out), and calls these random taps centred, not linear
  // phase (it had, a QA pass).
  EXPECT_NE(summary.find("the mask's own delay " + std::to_string((taps - 1) / 2) + " frames more"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("centred on its middle tap"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("linear phase"), std::string::npos) << summary;
  const long window = 1024;
  // Bypass is the input delayed by the engine's latency (none) and the mask's centre.
  const std::vector<Candidate> candidates = {through_mask("a", recording, a), through_mask("b", recording, b),
                                             dry(recording, (taps - 1) / 2)};
  const auto matches = classify(recording, candidates, {latency, latency + period}, latency + period + taps, window, 1e-4);
  const std::vector<Stretch> runs = stretches_of(matches, window);
  const std::string context =
      "recording: " + std::to_string(recording.frames) + " frames\n" + describe_runs(runs) + output;
  RecordProperty("stretches", describe_runs(runs));
  ASSERT_EQ(run_labels(runs), (std::vector<std::string>{"a +0 dB", "b +0 dB", "a +0 dB", "a +1 dB", "a +2 dB",
                                                         "a +1 dB", "a +0 dB", "dry +0 dB", "a +0 dB"}))
      << context;
  // Each step is 1 dB: the level (RMS ratio of output to the mask's convolution over a
  // run's windows) within 0.01 dB of the run's whole dB.
  for (const Stretch& run : runs) EXPECT_LT(run.worst_gain_error_db, 0.01) << context;
  for (std::size_t i = 2; i < 7; ++i) {
    double out_energy = 0, reference_energy = 0;
    for (const WindowMatch& match : matches) {
      if (match.start < runs[i].first || match.start > runs[i].last || match.name.empty()) continue;
      for (long t = match.start; t < match.start + window; ++t) {
        const double want = candidates[0].signal[t - match.delay];
        out_energy += recording.out(t) * recording.out(t);
        reference_energy += want * want;
      }
    }
    const double db = 10 * std::log10(out_energy / reference_energy);
    const double want_db = std::vector<double>{0, 1, 2, 1, 0}[i - 2];
    EXPECT_NEAR(db, want_db, 0.01) << "run " << i << "\n" << context;
  }
  // Bypassed: the input, sample for sample (the dry path is a delay line and a gain of 1).
  long equal = 0, compared = 0;
  for (const WindowMatch& match : matches) {
    if (match.start < runs[7].first || match.start > runs[7].last || match.name.empty()) continue;
    for (long t = match.start; t < match.start + window; ++t, ++compared)
      if (std::fabs(recording.out(t) - recording.in(t - match.delay - (taps - 1) / 2)) <= 1e-7) ++equal;
  }
  EXPECT_GT(compared, rate / 4) << context;
  EXPECT_EQ(equal, compared) << context;
  // Windows no candidate explains: a switch, a gain step or a bypass straddles at most two; a
  // period the host flagged (where the ring may also have run short) two more.
  const long flagged = std::max(0L, host_xruns(summary));
  EXPECT_LE(unmatched(matches), 8 * 2 + 2 * flagged) << context;
  EXPECT_LE(unmatched(matches), static_cast<long>(matches.size()) / 4) << context;
}

// Keys that come back to the mask playing before the switch away from it is heard call the
// switch off: with a long mask in play's list (the voices warm up for its delay), n n p p had
// played the masks in between later, one after the other, while the status line named the
// first (a QA pass). Nothing changes, no switch is counted; and a selection still warming up
// at the end is said never to have been heard, the status line showing "switching" meanwhile.
TEST_F(JackControls, KeysBackToTheMaskPlayingCallTheSwitchOff) {
  const std::string in = dir_ / "in.wav", mask_a = dir_ / "a.txt", mask_long = dir_ / "long.txt", mask_b = dir_ / "b.txt";
  write_sound(in, random_signal(2 * 4 * rate, 66, 0.3f), 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_mask_text(mask_a, {random_signal(31, 67, 0.1f)});
  write_mask_text(mask_long, {random_signal(65535, 68, 0.001f)});
  write_mask_text(mask_b, {random_signal(31, 69, 0.1f)});
  {
    Terminal play(halo_args({"play", in, "--mask", mask_a, "--mask", mask_long, "--mask", mask_b, "--loop"}));
    ASSERT_TRUE(wait_for_port("halo-play:out_1", 10));
    ASSERT_TRUE(play.wait_for("| gain +0 dB |")) << "the status line, drawn once keys are read";
    ASSERT_TRUE(play.type("nnpp"));
    std::this_thread::sleep_for(std::chrono::seconds(3));  // past every warm-up the old code let run
    ASSERT_TRUE(play.press('q'));
    ASSERT_EQ(play.wait_exit(), 0) << play.output();
    const std::string& output = play.output();
    EXPECT_NE(output.find("mask switches: 0"), std::string::npos) << output;
    EXPECT_EQ(output.find("not heard"), std::string::npos) << output;
  }
  {
    // A quit right after a switch to a short mask: the worker has switched, but the output ring
    // (0.17 s) had not played it yet; it had been counted as heard, with no word (a QA pass).
    Terminal play(halo_args({"play", in, "--mask", mask_a, "--mask", mask_b, "--loop"}));
    ASSERT_TRUE(wait_for_port("halo-play:out_1", 10));
    ASSERT_TRUE(play.wait_for("| gain +0 dB |"));
    ASSERT_TRUE(play.type("nq"));
    ASSERT_EQ(play.wait_exit(), 0) << play.output();
    EXPECT_NE(play.output().find("mask switches: 0"), std::string::npos) << play.output();
    EXPECT_NE(play.output().find("the mask selected last (2/2, file " + mask_b + ") was not heard before the end"),
              std::string::npos)
        << play.output();
  }
  Terminal play(halo_args({"play", in, "--mask", mask_a, "--mask", mask_long, "--mask", mask_b, "--loop"}));
  ASSERT_TRUE(wait_for_port("halo-play:out_1", 10));
  ASSERT_TRUE(play.wait_for("| gain +0 dB |"));
  ASSERT_TRUE(play.press('n'));
  ASSERT_TRUE(play.wait_for("| switching |")) << "the long mask warming up";
  ASSERT_TRUE(play.press('q'));
  ASSERT_EQ(play.wait_exit(), 0) << play.output();
  EXPECT_NE(play.output().find("the mask selected last (2/3, file " + mask_long + ") was not heard before the end"),
            std::string::npos)
      << play.output();
}

// A key back to the mask playing calls off a switch away from it, but not a reload of that mask
// still warming up (`live`'s file rewritten): its new contents are read once, and calling the
// reload off had kept the old mask playing for good (a review). With one mask, n selects the
// mask playing; the reload is still heard.
TEST_F(JackControls, AKeyBackToTheMaskPlayingKeepsItsReload) {
  const std::string mask = dir_ / "m.txt";
  write_bytes(mask, mask_text(random_signal(65535, 71, 0.001f)));  // a warm-up of 1.4 s
  Terminal live(halo_args({"live", "--mask", mask, "--channels", "1"}));
  ASSERT_TRUE(wait_for_port("halo-live:in_0", 10));
  const std::unique_ptr<Process> play = feed_live(dir_.path(), 8.0, 1);
  ASSERT_NE(play, nullptr);
  ASSERT_TRUE(live.wait_for("| gain +0 dB |")) << "the status line, drawn once keys are read";
  replace_file(mask, mask_text(random_signal(65535, 72, 0.001f)), false);
  ASSERT_TRUE(live.wait_for("reloaded")) << live.output();
  ASSERT_TRUE(live.press('n'));
  std::this_thread::sleep_for(std::chrono::seconds(4));  // past the reload's warm-up
  ASSERT_TRUE(live.press('q'));
  kill(play->pid(), SIGINT);
  play->wait_at_most(30);
  ASSERT_EQ(live.wait_exit(), 0) << live.output();
  EXPECT_NE(live.output().find("mask switches: 1"), std::string::npos) << live.output();
}

// Arrow and function keys are escape sequences whose last letter is no key: the down arrow
// (ESC [ B) had toggled bypass and F1 (ESC O P) chosen the previous mask (a QA pass). After
// them, play is where it was (mask 1, filtered, no switch), and a + typed right after them is
// read (the whole burst had been drained with the first sequence).
TEST_F(JackControls, ArrowAndFunctionKeysAreNoCommands) {
  const std::string in = dir_ / "in.wav", mask_a = dir_ / "a.txt", mask_b = dir_ / "b.txt";
  write_sound(in, random_signal(2 * rate, 61, 0.3f), 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  write_mask_text(mask_a, {random_signal(31, 62, 0.1f)});
  write_mask_text(mask_b, {random_signal(31, 63, 0.1f)});
  Terminal play(halo_args({"play", in, "--mask", mask_a, "--mask", mask_b, "--loop"}));
  ASSERT_TRUE(wait_for_port("halo-play:out_1", 10));
  ASSERT_TRUE(play.wait_for("| gain +0 dB |")) << "the status line, drawn once keys are read";
  // The down arrow, F1, the up arrow, Ctrl+right, the Linux console's F2, rxvt's Alt+down and Alt+F1.
  for (const std::string keys : {"\033[B", "\033OP", "\033[A", "\033[1;5C", "\033[[B", "\033\033[B", "\033\033OP"})
    ASSERT_TRUE(play.type(keys));
  // A key after them, whose effect the status line shows: the sequences before it were read.
  ASSERT_TRUE(play.press('+'));
  ASSERT_TRUE(play.wait_for("| gain +1 dB |")) << "+ was read";
  ASSERT_TRUE(play.press('q'));
  ASSERT_EQ(play.wait_exit(), 0) << play.output();
  const std::string& output = play.output();
  EXPECT_EQ(output.find("BYPASS"), std::string::npos) << output;
  EXPECT_EQ(output.find("mask 2/2"), std::string::npos) << output;
  EXPECT_NE(output.find("mask switches: 0"), std::string::npos) << output;
}

// The status line fits the terminal: on 80 columns a line of some 110 characters had wrapped,
// and each redraw's "\r\033[K" cleared only the wrapped row, so the screen filled with copies
// of its first 80 (a QA pass). Every redraw is at most a column narrower than the terminal,
// and the names give way first: the mask's number and the underruns stay in sight.
TEST_F(JackControls, TheStatusLineFitsTheTerminal) {
  // Columns as a terminal counts them: libc's wcwidth in C.UTF-8 (2 for a CJK character).
  const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  ASSERT_NE(utf8, nullptr);
  const auto columns_of = [&](const std::string& line) {
    const locale_t previous = uselocale(utf8);
    std::mbstate_t state{};
    std::size_t columns = 0;
    for (std::size_t at = 0; at < line.size();) {
      wchar_t wide = 0;
      const std::size_t length = std::mbrtowc(&wide, line.data() + at, line.size() - at, &state);
      if (length == 0 || length > line.size() - at) {
        state = std::mbstate_t{};
        ++columns, ++at;
        continue;
      }
      columns += static_cast<std::size_t>(std::max(0, wcwidth(wide)));
      at += length;
    }
    uselocale(previous);
    return columns;
  };
  const std::string mask = dir_ / "a-mask-with-a-long-name-too.txt";
  write_mask_text(mask, {random_signal(31, 66, 0.1f)});
  // A long name at 80 columns and 40, where the figures themselves give way (the underruns
  // last, a review), and a Japanese one, two columns a character (it had still wrapped).
  for (const auto& [name, columns] : std::vector<std::pair<std::string, unsigned short>>{
           {"a-recording-with-a-rather-long-name-of-the-session.wav", 80},
           {"a-recording-with-a-rather-long-name-of-the-session.wav", 40},
           {"\u97f3\u697d\u30d5\u30a1\u30a4\u30eb\u306e\u540d\u524d\u304c\u3068\u3066\u3082\u9577\u3044\u3067\u3059.wav", 120}}) {
    const std::string in = dir_ / name;
    write_sound(in, random_signal(2 * rate, 65, 0.3f), 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
    Terminal play(halo_args({"play", in, "--mask", mask, "--loop"}), columns);
    ASSERT_TRUE(play.wait_for("| underruns 0")) << "the status line";
    ASSERT_TRUE(play.press('q'));
    ASSERT_EQ(play.wait_exit(), 0) << play.output();
    const std::string& output = play.output();
    std::size_t redraws = 0;
    for (std::size_t at = output.find("\r\033[K"); at != std::string::npos; at = output.find("\r\033[K", at + 1)) {
      const std::size_t begin = at + 4;
      const std::size_t end = output.find_first_of("\r\n", begin);
      const std::string line = output.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
      if (line.find("| underruns ") == std::string::npos) continue;  // a clear before a notice or the summary
      ++redraws;
      EXPECT_LE(columns_of(line), columns - 1u) << line;
      EXPECT_NE(line.find("mask 1/1"), std::string::npos) << line;
    }
    EXPECT_GE(redraws, 1u) << output;
  }
  freelocale(utf8);
}

// A reload's notice on live's terminal comes on a line of its own: the status line is cleared
// first (it had been glued onto the status line's end, "worst 0.03 mshalo: reloaded", a QA pass).
TEST_F(JackControls, ReloadNoticeClearsTheStatusLine) {
  const std::string mask = dir_ / "m.txt";
  write_mask_text(mask, {random_signal(32, 61, 0.1f)});
  Terminal live(halo_args({"live", "--mask", mask, "--channels", "1"}));
  ASSERT_TRUE(live.wait_for("| gain +0 dB |")) << "the status line";
  replace_file(mask, mask_text(random_signal(32, 62, 0.1f)), false);
  ASSERT_TRUE(live.wait_for("halo: reloaded")) << "the reload";
  ASSERT_TRUE(live.press('q'));
  live.wait_exit();
  const std::string& output = live.output();
  const std::size_t at = output.find("halo: reloaded " + mask + " (changed)");
  ASSERT_NE(at, std::string::npos) << output;
  ASSERT_GE(at, 4u);
  EXPECT_EQ(output.substr(at - 4, 4), "\r\033[K") << "the status line cleared before the notice:\n" << output;
}

// `cat f.wav | halo play -` on a terminal: standard input is the audio, so the keys come from
// the controlling terminal (/dev/tty); they had been off, echoed and ignored, with Ctrl-C the
// only way out (a QA pass).
TEST_F(JackControls, PlayFromAPipeTakesKeysFromTheTerminal) {
  const std::string in = dir_ / "in.wav";
  write_sound(in, random_signal(2 * 10 * rate, 64, 0.3f), 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  Terminal play({"/bin/sh", "-c", "cat '" + in + "' | " + std::string(HALO_BINARY) + " play - --lowpass 4k"});
  ASSERT_TRUE(wait_for_port("halo-play:out_1", 10));
  ASSERT_TRUE(play.wait_for("keys: b bypass")) << "keys are read";
  ASSERT_TRUE(play.press('b'));
  ASSERT_TRUE(play.wait_for("| BYPASS |")) << "b was read from the terminal";
  ASSERT_TRUE(play.press('q'));
  ASSERT_EQ(play.wait_exit(), 0) << play.output();
  EXPECT_NE(play.output().find("keys: b bypass"), std::string::npos) << play.output();
  EXPECT_NE(play.output().find("| BYPASS |"), std::string::npos) << play.output();
  // q ended it well before the file's 10 s.
  std::smatch played;
  ASSERT_TRUE(std::regex_search(play.output(), played, std::regex("([0-9]+) frames played"))) << play.output();
  EXPECT_LT(std::stol(played[1]), 5 * rate) << play.output();
}

// A looped file short enough to play from memory, whose header declares more than it holds,
// is said to be truncated as a longer one is (its pass never ends, where the check had been).
TEST_F(JackControls, ALoopOfAShortTruncatedFileSaysSo) {
  const std::string whole = dir_ / "whole.wav", cut = dir_ / "cut.wav";
  write_sound(whole, random_signal(2 * 1000, 65, 0.3f), 2, rate, SF_FORMAT_WAV | SF_FORMAT_PCM_16);
  const std::string bytes = read_bytes(whole);
  write_bytes(cut, bytes.substr(0, bytes.find("data") + 8 + 4 * 100));  // 100 frames of the 1000 declared
  Process play(halo_args({"play", cut, "--lowpass", "4k", "--loop", "-q"}));
  ASSERT_TRUE(wait_for_port("halo-play:out_1", 10));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(play.pid(), SIGINT);
  const Result played = play.wait_at_most(30);
  ASSERT_EQ(played.exit_code, 130) << played.err;
  EXPECT_NE(played.err.find("cut.wav is truncated: its header declares 1000 frames, 100 were read, and played each pass"),
            std::string::npos)
      << played.err;
}

// A loop of a file shorter than the reader's chunk plays from memory: a 1-frame file, opened
// again for every frame, had spent a core and left gaps in a DC output. The recording is that
// DC (the mask's sum times the frame) throughout, with no underrun.
TEST_F(JackControls, PlayLoopsAOneFrameFileWithoutAGap) {
  const std::string in = dir_ / "one.wav", mask = dir_ / "m.txt", rec = dir_ / "rec.wav";
  write_sound(in, {0.25f, -0.5f}, 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  const std::vector<float> h = {0.125f, 0.5f, 0.25f};
  write_mask_text(mask, {h});
  const Result played = record_a_loop(in, mask, rec, "1", 300);  // past the first frames' ramp-in
  ASSERT_EQ(played.exit_code, 130) << played.err;
  EXPECT_EQ(underruns(played.err), 0) << played.err;
  const Sound recording = read_sound(rec);
  ASSERT_GT(recording.frames, rate / 2);
  const double sum = 0.125 + 0.5 + 0.25;
  const long flagged = std::max(0L, host_xruns(played.err));
  long first = 0;  // jack_rec may begin before its connections carry sound
  while (first < recording.frames && recording.samples[2 * first] == 0) ++first;
  ASSERT_LT(first, rate / 10) << "the recording is silent";
  long off = 0;
  for (long f = first; f < recording.frames; ++f)
    off += std::fabs(recording.samples[2 * f] - 0.25 * sum) > 1e-6 || std::fabs(recording.samples[2 * f + 1] + 0.5 * sum) > 1e-6;
  EXPECT_LE(off, flagged * period) << off << " of " << recording.frames << " frames are not the DC\n" << played.err;
}

// Whether process `pid` has a handler for signal `number` (its SigCgt mask in /proc): before
// main installs them, a signal ends any program by its default action.
bool catches(pid_t pid, int number) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (number - 1)) & 1;
  return false;
}

// A signal in the first tens of milliseconds, while PortAudio opens its JACK client, its ports
// and its connections: JACK's socket calls failed with EINTR and PortAudio's clean-up asserted,
// so halo ended 134 with no word, or live stopped on "Unanticipated host error" for a SIGHUP,
// its reload signal (a QA pass saw it 25-45 ms after launch). Now every delay ends with the
// signal's code and the summary, and a SIGHUP is a reload.
TEST_F(JackControls, ASignalDuringStartUpEndsTheRunWithItsSummary) {
  const std::string mask = dir_ / "unit.txt", file = dir_ / "long.wav";
  write_bytes(mask, "1\n");
  write_sound(file, random_signal(5 * rate * 2, 53, 0.3f), 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  for (int delay_ms = 0; delay_ms <= 60; delay_ms += 5) {
    for (const int number : {SIGINT, SIGTERM, SIGHUP}) {
      const bool live_one = number != SIGINT;
      Process halo_run(live_one ? halo_args({"live", "--mask", mask, "-q"}) : halo_args({"play", file, "--mask", mask, "-q"}));
      for (int waited_ms = 0; waited_ms < 5000 && !catches(halo_run.pid(), number); ++waited_ms) sleep_ms(1);
      ASSERT_TRUE(catches(halo_run.pid(), number)) << "halo set no handler for signal " << number << " in 5 s";
      sleep_ms(delay_ms);  // after main set its handlers: the start-up's first 60 ms
      kill(halo_run.pid(), number);
      if (number == SIGHUP) {  // a reload, then a Ctrl-C that ends it
        sleep_ms(700);
        kill(halo_run.pid(), SIGINT);
      }
      const Result result = halo_run.wait_at_most(20);
      const std::string what = std::string(live_one ? "live" : "play") + ", signal " + std::to_string(number) + " at " +
                               std::to_string(delay_ms) + " ms\n" + result.err;
      EXPECT_EQ(result.exit_code, 128 + (number == SIGHUP ? SIGINT : number)) << what;
      EXPECT_NE(result.err.find("frames played"), std::string::npos) << what;
      EXPECT_EQ(result.err.find("ssertion"), std::string::npos) << what;
      EXPECT_EQ(result.err.find("host error"), std::string::npos) << what;
    }
  }
}

// The server gone between the stream's stop and its close (a Ctrl-C, then the server killed
// 0-5 ms later): PortAudio's clean-up asserts on the dead server's ports, and halo had said
// "aborted; stopped at once, without the summary" under its summary, exit 134 (a QA pass).
TEST_F(JackControls, AServerGoneAsTheStreamClosesLeavesTheSummaryAndItsCode) {
  const std::string mask = dir_ / "unit.txt", file = dir_ / "long.wav";
  write_bytes(mask, "1\n");
  write_sound(file, random_signal(10 * rate * 2, 54, 0.3f), 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  int caught = 0;  // runs whose server went in the window between the stop and the close
  // Up to three sweeps of the gaps: the window depends on the poll and on jackd's shutdown, and
  // one sweep had missed it in every run (a failure that says nothing of halo).
  for (int sweep = 0; sweep < 3 && caught == 0; ++sweep)
  for (const int gap_ms : {0, 1, 2, 3, 5}) {
    OwnServer server("halo-closing-" + std::to_string(getpid()) + "-" + std::to_string(sweep) + "-" + std::to_string(gap_ms), period);
    ASSERT_TRUE(server.started()) << "jackd -n halo-closing-... did not start";
    Process halo_run(halo_args({"play", file, "--mask", mask, "-q"}));
    ASSERT_TRUE(wait_for_port("halo-play:out_0", 10));
    sleep_ms(500);
    kill(halo_run.pid(), SIGINT);
    sleep_ms(gap_ms);
    kill(server.pid(), SIGTERM);
    const Result result = halo_run.wait_at_most(20);
    const std::string what = "gap " + std::to_string(gap_ms) + " ms\n" + result.err;
    EXPECT_EQ(result.exit_code, 130) << what;
    EXPECT_NE(result.err.find("frames played"), std::string::npos) << what;
    EXPECT_EQ(result.err.find("aborted"), std::string::npos) << what;
    EXPECT_EQ(result.err.find("ssertion"), std::string::npos) << what;
    if (result.err.find("halo: the audio server went away as its stream was closed; the summary above stands") !=
        std::string::npos)
      ++caught;
  }
  // Else the server went before the stop or after the close in every run: the test tested nothing.
  EXPECT_GT(caught, 0) << "no run's server went between the stream's stop and its close";
}

// play from a FIFO whose writer stalls: its reader is blocked in read(), and the stop that
// followed a Ctrl-C waited for it (for ever, here 15 s); the signal's grace now ends it, as it
// ends filter's (a QA pass).
TEST_F(JackControls, CtrlCEndsPlayWhoseFifoStalled) {
  const std::string file = dir_ / "in.wav", fifo = dir_ / "in.fifo";
  write_sound(file, random_signal(5 * rate * 2, 55, 0.3f), 2, rate, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Process writer({"/bin/sh", "-c", "{ head -c 400000 '" + file + "'; exec sleep 15; } > '" + fifo + "'"});
  Process halo_run(halo_args({"play", fifo, "--lowpass", "4k", "-q"}));
  sleep_ms(2000);
  const auto asked = Clock::now();
  kill(halo_run.pid(), SIGINT);
  const Result result = halo_run.wait_at_most(20);
  const double seconds = std::chrono::duration<double>(Clock::now() - asked).count();
  kill(writer.pid(), SIGKILL);
  writer.wait_at_most(5);
  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_LT(seconds, 6.0) << result.err;  // the stream's stop (at most 2 s) and 2 s of grace after it
  EXPECT_NE(result.err.find("halo: interrupted; stopped at once, without the summary"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace halo::test
