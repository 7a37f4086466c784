#include "src/cli/realtime_options.hpp"

#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cwchar>
#include <memory>

#include "audio/error.hpp"
#include "audio/portaudio_device.hpp"
#include "audio/standard_streams.hpp"
#include "src/cli/command.hpp"
#include "src/cli/interrupt.hpp"
#include "src/cli/number_parser.hpp"
#include "src/cli/raw_input_options.hpp"
#include "src/engine/registry.hpp"
#include "src/realtime/callback.hpp"

namespace halo::cli {

const char* const mask_group = "Mask (one kind; play and live take --mask again, to switch)";

void add_realtime_options(cxxopts::Options& options, bool live) {
  add_mask_options(options, mask_group);
  std::string engines;
  for (const auto& name : engine_names()) engines += (engines.empty() ? "" : "|") + name;
  options.add_options("Device")
      ("device", "output device: a name (or a unique part of one) or an index from halo devices; default: the "
                 "default output", cxxopts::value<std::string>(), "NAME|INDEX")
      ("frames", "frames per period (the device's buffer and the worker's block)",
       cxxopts::value<std::string>()->default_value("64"), "N")
      ("engine", std::string(live ? "default cpu-partitioned (low latency at any mask length); " : "default auto (as filter); ") +
                     engines, cxxopts::value<std::string>(), "E")
      ("no-realtime", "do not ask for realtime (SCHED_FIFO) priority for the worker")
      ("worker-cpu", "callback: run the worker on the audio callback's CPU (steadiest on small or virtual "
                     "machines); any: wherever the scheduler puts it; own: a CPU of its own, polling instead of "
                     "sleeping (for machines with cores to spare and no realtime priority; keeps that CPU busy)",
       cxxopts::value<std::string>()->default_value("callback"), "callback|any|own")
      ("q,quiet", "no status line, only the summary and errors")
      ("h,help", "this help");
  if (live) {
    options.add_options("Device")
        ("input-device", "input device (default: the output device, or the default input)", cxxopts::value<std::string>(),
         "NAME|INDEX")
        ("channels", "channels to filter (default: 2, or fewer where the devices have fewer)",
         cxxopts::value<std::string>(), "C")
        ("rate", "sample rate in Hz (default: the output device's)", cxxopts::value<std::string>(), "HZ");
  } else {
    options.add_options("Device")
        ("loop", "play the file again and again until q or Ctrl-C")
        ("files", "", cxxopts::value<std::vector<std::string>>());
    add_raw_input_options(options, "FILE");  // bare samples from a pipe, as filter takes them
    options.parse_positional({"files"});
  }
}

RealtimeArguments parse_realtime_arguments(const cxxopts::ParseResult& parsed, bool live) {
  refuse_misplaced_values(parsed);  // first: `--lowpass --taps 5` leaves a stray '5'
  if (live && !parsed.unmatched().empty()) throw UsageError("live takes no file (it filters the input device)");
  refuse_repeats(parsed, {"files", "quiet", "help", "mask", "loop", "no-realtime", "minimum-phase"});
  RealtimeArguments arguments;
  MaskSource first = parse_mask_options(parsed);
  first.rate_from = MaskSource::RateFrom::device;  // the masks are made at the device's rate
  if (parsed.count("mask") > 1) {
    for (const auto& argument : parsed.arguments())
      if (argument.key() == "mask") {
        MaskSource source = first;
        source.path = argument.value();
        arguments.masks.push_back(source);
      }
  } else {
    arguments.masks.push_back(first);
  }
  realtime::SessionOptions& session = arguments.session;
  session.live = live;
  session.mask_count = static_cast<int>(arguments.masks.size());
  if (parsed.count("device")) {
    session.output_device = parsed["device"].as<std::string>();
    if (session.output_device.empty()) throw UsageError("--device: an empty name: give a name or an index (halo devices)");
  }
  session.period_frames = static_cast<std::size_t>(parse_count("--frames", parsed["frames"].as<std::string>(), 16, 8192));
  if (parsed.count("engine")) {
    session.engine = parsed["engine"].as<std::string>();
    try {
      check_engine_name(session.engine);
    } catch (const std::exception& error) {
      throw UsageError(std::string("--engine: ") + error.what());
    }
  }
  if (parsed.count("no-realtime")) session.realtime_priority = 0;
  const std::string worker_cpu = parsed["worker-cpu"].as<std::string>();
  if (worker_cpu == "callback")
    session.worker_cpu = realtime::WorkerCpu::callback;
  else if (worker_cpu == "any")
    session.worker_cpu = realtime::WorkerCpu::any;
  else if (worker_cpu == "own")
    session.worker_cpu = realtime::WorkerCpu::own;
  else
    throw UsageError("--worker-cpu: '" + worker_cpu + "': give callback, any or own");
  arguments.quiet = parsed.count("quiet") > 0;
  if (live) {
    session.client_name = "halo-live";
    if (parsed.count("input-device")) {
      session.input_device = parsed["input-device"].as<std::string>();
      if (session.input_device.empty())
        throw UsageError("--input-device: an empty name: give a name or an index (halo devices)");
    }
    if (parsed.count("channels"))
      session.channels = static_cast<int>(parse_count("--channels", parsed["channels"].as<std::string>(), 1, 64));
    if (parsed.count("rate"))
      session.rate_hz = static_cast<double>(parse_whole_rate_hz("--rate", parsed["rate"].as<std::string>(), 1000, 768000));
  } else {
    session.client_name = "halo-play";
    const auto files = parsed.count("files") ? parsed["files"].as<std::vector<std::string>>() : std::vector<std::string>{};
    if (files.size() > 1) throw UsageError("play takes one FILE: '" + files[1] + "' is a second file name");  // as filter says
    if (files.size() != 1) throw UsageError("play needs one FILE (see halo play --help)");
    session.file = files.front();
    session.raw = parse_raw_input(parsed);
    session.loop = parsed.count("loop") > 0;
    if (session.file == "-" && std::any_of(arguments.masks.begin(), arguments.masks.end(), reads_standard_input))
      throw UsageError(std::string("FILE and ") + (first.kind == MaskSource::Kind::impulse_response ? "--ir" : "--mask") +
                       " both read standard input: give one of them a file");
    // A loop opens FILE again for each pass: standard input and a FIFO cannot be read twice
    // (play - --loop had said "empty", and a FIFO's second pass waited in silence for a writer).
    struct stat info {};
    if (session.loop && (session.file == "-" || (::stat(session.file.c_str(), &info) == 0 && !S_ISREG(info.st_mode))))
      throw UsageError("--loop reads FILE again for each pass: " +
                       (session.file == "-" ? std::string("standard input") : session.file + ", not a regular file,") +
                       " can be read only once; give a file");
  }
  return arguments;
}

bool parse_realtime_command(cxxopts::Options& options, int argc, char** argv, bool live, RealtimeArguments& arguments) {
  add_realtime_options(options, live);
  cxxopts::ParseResult parsed;
  try {
    parsed = parse_strictly(options, argc, argv);
  } catch (const cxxopts::exceptions::exception& error) {
    throw UsageError(option_error(live ? "live" : "play", error.what()));
  }
  if (parsed.count("help")) {
    audio::print_to_standard_output(options.help(live ? std::vector<std::string>{mask_group, "Design", "Device"}
                                           : std::vector<std::string>{mask_group, "Design", "Device", "Raw input"}) + "\n");
    return false;
  }
  arguments = parse_realtime_arguments(parsed, live);
  // A mask file that cannot be read is named before any device is looked for: with no server
  // "no output device" had hidden it (a QA pass). Its contents are read at the device's rate.
  for (const MaskSource& source : arguments.masks)
    if (source.kind != MaskSource::Kind::designed && source.path != "-" && access(source.path.c_str(), R_OK) != 0)
      throw audio::Error(source.path + ": " + std::strerror(errno));
  return true;
}

realtime::MaskSource mask_source_for(const std::vector<MaskSource>& masks) {
  // Called on the control thread only (the session's start, n/p, live's reloads).
  auto warned = std::make_shared<std::vector<bool>>(masks.size(), false);
  return [masks, warned](int index, double rate_hz) {
    const MaskSource& source = masks.at(static_cast<std::size_t>(index));
    realtime::MaskEntry entry;
    entry.masks = masks_for(source, rate_hz);
    // play and live had used such a mask silently; said once a mask, not at every n/p or reload.
    if (!(*warned)[static_cast<std::size_t>(index)]) {
      warn_of_another_rate(entry.masks, rate_hz, rate_words(source.rate_from).wanted, source);
      (*warned)[static_cast<std::size_t>(index)] = true;
    }
    entry.label = describe_masks(entry.masks);
    entry.centred = centred_by_default(source, entry.masks);
    return entry;
  };
}

void print_session_report(const realtime::SessionReport& r, const std::string& what) {
  char line[768];
  const bool live = !r.input_device.empty();
  std::snprintf(line, sizeof line, "%s: %llu %s played (%.3f s) at %.0f Hz, %d ch%s; engine %s (%s)", what.c_str(),
                static_cast<unsigned long long>(r.frames_played), r.frames_played == 1 ? "frame" : "frames",
                static_cast<double>(r.frames_played) / r.rate_hz,
                r.rate_hz, r.channels, r.device_channels != r.channels ? " (mono to two device channels)" : "",
                r.engine.name.c_str(), r.engine.reason.c_str());
  notice(line);
  std::snprintf(line, sizeof line,
                "underruns %llu (halo's own: %s), overruns %llu; host xruns %llu (flagged by the "
                "device or server); %llu %s short on the host's account (flagged, %llu of them 1-%d periods "
                "late%s); %llu frames short in all; %llu callbacks",
                static_cast<unsigned long long>(r.underruns), live ? "the worker was late" : "the worker, or play's reader, was late",
                static_cast<unsigned long long>(r.overruns),
                static_cast<unsigned long long>(r.host_xruns), static_cast<unsigned long long>(r.host_underruns),
                r.host_underruns == 1 ? "period" : "periods",
                static_cast<unsigned long long>(r.host_underruns_flagged_later), realtime::CallbackState::flag_delay_periods,
                live ? ", or run back to back by the host" : "",
                static_cast<unsigned long long>(r.underrun_frames), static_cast<unsigned long long>(r.callbacks));
  notice(line);
  // play opens no input: its "input 0.00 ms" had read as a measurement.
  char input[64] = "";
  if (!r.input_device.empty()) std::snprintf(input, sizeof input, ", input %.2f ms", r.input_latency_s * 1e3);
  // live: a centred mask delays what it passes by (M-1)/2 frames on top of what halo adds (a
  // 16383-tap mask 170 ms, where the line had said 1.33 ms: a QA pass measured the round trip).
  // Centred, not "linear phase": a measured or hand-made mask is centred without being symmetric.
  char mask_delay[160] = "";
  if (r.mask_delay_frames > 0)
    std::snprintf(mask_delay, sizeof mask_delay, "; the mask's own delay %zu frames more (%.2f ms: centred on its "
                  "middle tap; a minimum-phase mask has little)", r.mask_delay_frames,
                  1e3 * static_cast<double>(r.mask_delay_frames) / r.rate_hz);
  char silent_start[160] = "";
  if (r.silent_start_frames > 0)
    std::snprintf(silent_start, sizeof silent_start, "; output began after %.2f ms of silence (%s)",
                  1e3 * static_cast<double>(r.silent_start_frames) / r.rate_hz, r.silent_start_note.c_str());
  std::snprintf(line, sizeof line, "latency: PortAudio reports output %.2f ms%s; halo adds %zu frames (%.2f ms: %s)%s%s",
                r.output_latency_s * 1e3, input, r.added_latency_frames,
                1e3 * static_cast<double>(r.added_latency_frames) / r.rate_hz, r.added_latency_note.c_str(), mask_delay,
                silent_start);
  notice(line);
  // live on JACK with --frames above the server's buffer: the worker's blocks are the server's.
  char blocks[96] = "";
  if (r.mean_block_frames + 0.5 < static_cast<double>(r.period_frames))
    std::snprintf(blocks, sizeof blocks, ", a block's time: %.0f frames on average, as the server brings them",
                  r.mean_block_frames);
  std::snprintf(line, sizeof line,
                "worker period: p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, worst %.3f ms against a %.3f ms deadline%s "
                "(%llu of %llu late); realtime priority: %s; memory locked: %s; CPU: %s",
                r.p50_us / 1e3, r.p99_us / 1e3, r.p999_us / 1e3, r.worst_us / 1e3, r.deadline_us / 1e3, blocks,
                static_cast<unsigned long long>(r.late_periods), static_cast<unsigned long long>(r.periods),
                r.realtime.c_str(), r.memory_locked.c_str(), r.worker_cpu.c_str());
  notice(line);
  // As filter says them (play had been silent about both).
  if (r.nonfinite_input_samples > 0)
    notice(std::to_string(r.nonfinite_input_samples) + " input samples were NaN or Inf and were filtered as 0");
  if (r.over_full_scale_samples > 0)
    notice("warning: " + std::to_string(r.over_full_scale_samples) +
           " output samples were past full scale: the device clips them (lower the gain with -)");
  // live filters at the devices' rate: nothing is resampled, and "resampled: no" said nothing.
  notice((live ? std::string() : "resampled: " + r.resampled + "; ") +
         "mask switches: " + std::to_string(r.switches > 0 ? r.switches - 1 : 0));
  if (!r.speaker_note.empty()) notice(r.speaker_note);
  if (!r.warning.empty()) notice("warning: " + r.warning);
}

Keyboard::Keyboard(bool stdin_is_the_audio) {
  static_assert(sizeof(termios) <= sizeof termios_, "termios fits");
  if (isatty(STDIN_FILENO)) {
    fd_ = STDIN_FILENO;
  } else if (stdin_is_the_audio) {
    // `play -`: keys from the controlling terminal (they had been off, echoed and ignored).
    const int tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (tty >= 0 && isatty(tty)) {
      fd_ = tty;
      owned_ = true;
    } else if (tty >= 0) {
      close(tty);
    }
  }
  if (fd_ >= 0 && in_foreground()) raw_mode();
}

bool Keyboard::in_foreground() const { return fd_ >= 0 && tcgetpgrp(fd_) == getpgrp(); }

bool Keyboard::raw_mode() {
  termios current{};
  if (tcgetattr(fd_, &current) != 0) return false;
  if (!saved_) {
    std::memcpy(termios_, &current, sizeof current);
    saved_ = true;
  }
  if ((current.c_lflag & (ICANON | ECHO)) == 0) return true;  // raw already
  current.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
  current.c_cc[VMIN] = 0;
  current.c_cc[VTIME] = 0;
  return tcsetattr(fd_, TCSANOW, &current) == 0;
}

Keyboard::~Keyboard() {
  // Only from the foreground: a job leaves it only by being stopped, when the shell puts its
  // own mode back, and a restore from the background would change the mode under whatever
  // runs in the foreground now (an editor's screen garbled: a review).
  if (saved_ && in_foreground()) {
    termios saved{};
    std::memcpy(&saved, termios_, sizeof saved);
    tcsetattr(fd_, TCSANOW, &saved);
  }
  if (owned_) close(fd_);
}

char Keyboard::poll(int timeout_ms) {
  // No terminal, or not the foreground job (a read would stop the job by SIGTTIN): no keys.
  // Brought back to the foreground (fg), the terminal is put in raw mode again: the shell had
  // restored its mode at the stop, and the keys had been echoed and ignored (a QA pass).
  if (!in_foreground() || !raw_mode()) {
    if (timeout_ms > 0) usleep(static_cast<useconds_t>(timeout_ms) * 1000);
    return 0;
  }
  pollfd descriptor{fd_, POLLIN, 0};
  if (::poll(&descriptor, 1, timeout_ms) <= 0) return 0;
  char key = 0;
  if (read(fd_, &key, 1) != 1) return 0;
  // An arrow or function key is an escape sequence (ESC [ B, ESC O P): the whole of it is no
  // key (its last letter had acted: the down arrow toggled bypass, F1 chose the previous mask).
  // Read to its end and no further (ECMA-48: a CSI's final byte is 0x40-0x7E, SS3 takes one
  // byte, Alt+key is ESC and the key): a key typed right after it is a key (everything waiting
  // had been drained with it, a + pressed after an arrow lost).
  // Two forms beyond ECMA-48's (a review): the Linux console's F1-F5 are ESC [ [ A-E, and rxvt
  // sends Alt+arrow as ESC and the arrow's own sequence.
  if (key == '\033') {
    const auto next = [this](char& byte) {
      pollfd more{fd_, POLLIN, 0};
      return ::poll(&more, 1, 5) > 0 && read(fd_, &byte, 1) == 1;
    };
    char byte = 0;
    if (!next(byte)) return 0;               // Esc alone
    if (byte == '\033' && !next(byte)) return 0;  // ESC ESC: the sequence that follows, once
    if (byte == 'O') {
      next(byte);
    } else if (byte == '[') {
      for (int i = 0; i < 16; ++i) {  // parameters, then the final byte
        if (!next(byte)) break;
        if (byte == '[' && i == 0) {  // ESC [ [ X: one byte more
          next(byte);
          break;
        }
        if (byte >= 0x40 && byte <= 0x7e) break;
      }
    }
    return 0;
  }
  return key;
}

namespace {

// The terminal's rules for how wide a character is: libc's wcwidth in the user's locale, or in
// C.UTF-8 where that is not UTF-8; null where neither exists, and then a byte a column.
locale_t utf8_ctype() {
  static const locale_t chosen = [] {
    const locale_t user = newlocale(LC_CTYPE_MASK, "", static_cast<locale_t>(nullptr));
    if (user != nullptr && std::strcmp(nl_langinfo_l(CODESET, user), "UTF-8") == 0) return user;
    if (user != nullptr) freelocale(user);
    return newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  }();
  return chosen;
}

// Each character of `text`: its bytes and the columns a terminal gives it (2 for a CJK
// character, 0 for a combining accent: counted as one column each, a name in Japanese had
// still wrapped the line, and a cut had parted an accent from its letter, a QA pass).
struct Glyph {
  std::size_t bytes;
  std::size_t columns;
};
std::vector<Glyph> glyphs_of(const std::string& text) {
  std::vector<Glyph> glyphs;
  const locale_t utf8 = utf8_ctype();
  const locale_t previous = utf8 != nullptr ? uselocale(utf8) : nullptr;
  std::mbstate_t state{};
  for (std::size_t at = 0; at < text.size();) {
    wchar_t wide = 0;
    const std::size_t length = utf8 != nullptr ? std::mbrtowc(&wide, text.data() + at, text.size() - at, &state) : 1;
    if (utf8 == nullptr || length == 0 || length > text.size() - at) {  // no locale, or not UTF-8 here: a byte
      glyphs.push_back({1, 1});
      state = std::mbstate_t{};
      ++at;
      continue;
    }
    const int width = wcwidth(wide);
    glyphs.push_back({length, width < 0 ? 1u : static_cast<std::size_t>(width)});
    at += length;
  }
  if (utf8 != nullptr) uselocale(previous);
  return glyphs;
}

std::size_t columns_of(const std::string& text) {
  std::size_t columns = 0;
  for (const Glyph& glyph : glyphs_of(text)) columns += glyph.columns;
  return columns;
}

// `text` cut to at most `columns`, between characters (a combining accent stays with its letter).
std::string first_columns(const std::string& text, std::size_t columns) {
  std::size_t used = 0, bytes = 0;
  for (const Glyph& glyph : glyphs_of(text)) {
    if (used + glyph.columns > columns) break;
    used += glyph.columns;
    bytes += glyph.bytes;
  }
  return text.substr(0, bytes);
}

// One of the status line's figures, and how long it stays as the line is cut: the higher, the
// longer (the underruns longest).
struct StatusFigure {
  std::string text;
  int keep;
};

// The status line in the terminal's width, less one column: a longer line wraps, and the next
// redraw's "\r\033[K" clears only its last row, so an 80-column terminal had filled with
// copies of the line's first 80 characters (a QA pass). The line is `what | mask label |
// figures...`; the mask's label gives way first, then `what` (the file), then the figures that
// keep least: the mask's number and the underruns stay longest. Asked at each redraw: the
// window may be resized.
std::string fitted_to_terminal(const std::string& what, const std::string& mask, const std::string& label,
                               std::vector<StatusFigure> figures) {
  const std::string separator = " | ";
  const auto core = [&](bool with_label) {
    std::string line = mask + (with_label ? " " + label : "");
    for (const StatusFigure& figure : figures) line += separator + figure.text;
    return line;
  };
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col < 2) return what + separator + core(true);
  const std::size_t width = size.ws_col - 1u;
  for (const bool with_label : {true, false})
    if (columns_of(what) + separator.size() + columns_of(core(with_label)) <= width) return what + separator + core(with_label);
  // The file's name, cut, while every figure fits beside it; then the figures alone.
  if (const std::size_t all = columns_of(core(false)) + separator.size(); all + 8 <= width)
    return first_columns(what, width - all - 1) + "\u2026" + separator + core(false);
  while (columns_of(core(false)) > width && !figures.empty()) {
    auto least = figures.begin();  // the last of those that keep least
    for (auto figure = figures.begin(); figure != figures.end(); ++figure)
      if (figure->keep <= least->keep) least = figure;
    figures.erase(least);
  }
  return first_columns(core(false), width);
}

}  // namespace

}  // namespace halo::cli

namespace halo::cli {

int run_session(realtime::Session& session, const RealtimeArguments& arguments, const std::string& what,
                const std::function<std::string(realtime::Session&)>& tick) {
  Keyboard keys(!arguments.session.live && arguments.session.file == "-");
  // The status line, on a terminal, while this is its foreground job: a job in the background
  // (`&`, or Ctrl-Z then bg) leaves the shell's terminal alone (it had drawn over the prompt).
  const bool terminal = !arguments.quiet && isatty(STDERR_FILENO);
  const auto status_now = [&] { return terminal && tcgetpgrp(STDERR_FILENO) == getpgrp(); };
  const bool status = status_now();
  // Polling spends a whole CPU: on a small machine that is a share the server and the
  // callback need (measured on 2 cores: a polling live worker starved under load).
  if (arguments.session.worker_cpu == realtime::WorkerCpu::own) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) < 4)
      notice("warning: --worker-cpu own keeps one of this machine's " + std::to_string(CPU_COUNT(&allowed)) +
             " CPUs busy polling; expect underruns (it is meant for machines with cores to spare)");
  }
  if (status && keys.available() && keys.in_foreground())
    notice("keys: b bypass, n/p next/previous mask, +/- gain 1 dB, q quit");
  session.start();
  int code = 0;
  int passes = 0;
  bool stalled = false;
  for (;;) {
    if (interrupted()) break;  // the grace stays armed until the stop below returns
    if (session.finished()) break;
    if (session.device_stalled()) {  // the server died or stalled: nothing will end the stream
      stalled = true;
      code = 1;
      break;
    }
    const char key = keys.poll(20);
    try {
      if (key == 'q' || key == 'Q') break;
      if (key == 'b' || key == 'B') session.toggle_bypass();
      if (key == '+' || key == '=') session.change_gain_db(+1);
      if (key == '-' || key == '_') session.change_gain_db(-1);
      if (key == 'n' || key == 'N') session.select_mask(session.mask_index() + 1);
      if (key == 'p' || key == 'P') session.select_mask(session.mask_index() - 1);
    } catch (const std::exception& error) {
      if (status_now()) std::fputs("\r\033[K", stderr);
      notice(std::string("cannot switch: ") + error.what());
    }
    if (const std::string said = tick(session); !said.empty()) {
      if (status_now()) std::fputs("\r\033[K", stderr);
      notice(said);
    }
    session.poll();
    if (++passes % 10 == 0 && status_now()) {
      const auto& counters = session.counters();
      // The summary's split: halo's own underruns apart from the periods short on the host's
      // account (the line had shown both as "underruns").
      const unsigned long long host_short = counters.host_underruns.load();
      const unsigned long long all_short = counters.underruns.load();
      char worst[32], gain[32];
      std::snprintf(worst, sizeof worst, "worst %.2f ms", session.stats().worst_us() / 1e3);
      std::snprintf(gain, sizeof gain, "gain %+d dB", session.gain_db());
      const std::vector<StatusFigure> figures = {
          // "switching" until the mask selected is heard: in play the read-ahead and a warm-up as
          // long as the longest mask's delay (seconds with a 2^18-tap mask listed), which the
          // status line had shown as "filtered" by the mask not yet heard (a QA pass).
          {session.bypass() ? "BYPASS" : session.switching() ? "switching" : "filtered", 2},
          {gain, 2},
          {"underruns " + std::to_string(all_short > host_short ? all_short - host_short : 0), 3},
          {"host xruns " + std::to_string(counters.host_xruns.load()) + ", " + std::to_string(host_short) + " short", 1},
          {worst, 0}};
      const std::string mask = "mask " + std::to_string(session.mask_index() + 1) + "/" + std::to_string(arguments.session.mask_count);
      std::fprintf(stderr, "\r\033[K%s", fitted_to_terminal(one_line(what), mask, one_line(session.mask_label()), figures).c_str());
      std::fflush(stderr);
    }
  }
  // The stream's stop is bounded (a stalled server's stream is abandoned after its grace), a
  // reader stalled on a pipe or FIFO is not: it had held a Ctrl-C's stop until the writer
  // moved (a QA pass). The signal's grace is re-armed to cover the first and 2 s of the
  // second; past it the signal path ends the run, as it ends filter's.
  if (interrupted()) allow_seconds_to_stop(audio::DeviceStream::stop_grace_seconds + 2);
  session.stop();
  if (interrupted()) code = interrupted_exit_code();
  if (status_now()) std::fputs("\r\033[K", stderr);
  char seconds[16];
  std::snprintf(seconds, sizeof seconds, "%g", realtime::Session::stall_seconds);
  if (stalled)
    notice(std::string("the audio device made no callback for ") + seconds + " s (its server died or stalled)" +
           (session.stream_abandoned() ? "; its stream was left open" : ""));
  else if (session.stream_abandoned())
    notice("the audio device stopped calling back (its server died or stalled); its stream was left open");
  print_session_report(session.report(), what);
  closing_device_after_summary(code);
  return code;
}

}  // namespace halo::cli
