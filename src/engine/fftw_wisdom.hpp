#pragma once
// FFTW's wisdom for halo's CPU engines: measured plans, made once by `halo wisdom` and reused
// by every later run.
//
// Why: an estimated plan (FFTW_ESTIMATE) is made in microseconds but runs slower than a
// measured one at the lengths long masks take (327680 points, cpu-fft's length for 65535
// taps: r2c + c2r in 1.23 ms estimated against 0.96 ms measured on the development machine),
// while measuring takes seconds a length (10.7 s there): too long for every run, and a
// measured plan depends on the timing, so two runs could differ in the last bit. Wisdom saved
// once gives every run the measured plan at once, and the same plan each time.
//
// The file: $HALO_FFTW_WISDOM when set (empty: no file at all), else
// $XDG_CACHE_HOME/halo/fftw-wisdom-float (an absolute XDG_CACHE_HOME only), else
// $HOME/.cache/halo/fftw-wisdom-float. Only a regular file is read. FFTW's
// system wisdom (/etc/fftw/wisdomf) is read first, where a system keeps one.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace halo::fftw {

// Where the wisdom lives (see above); empty when there is no such place.
std::filesystem::path wisdom_path();

// Reads the system's and the file's wisdom into FFTW, once per process (later calls return at
// once). Call with planner_mutex() held. A missing file is no error; an unreadable or broken
// one is skipped and said once by wisdom_problem().
void load_wisdom_once();

// Why the file's wisdom was not used, empty when it was or when there is none.
std::string wisdom_problem();

// How an engine transforms n real points: FFTW's r2c and c2r (cpu-partitioned), or the pair
// of complex transforms of n / 2 points that carries them packed (cpu-fft: packed_real_fft.hpp).
enum class RealTransform { r2c, packed };
struct WisdomLength {
  int points;
  RealTransform form;
  bool operator<(const WisdomLength& other) const {
    return points != other.points ? points < other.points : form < other.form;
  }
};

// `halo wisdom`: measures the forward and inverse plans of each length in its form
// (FFTW_MEASURE, or FFTW_PATIENT: slower to make, sometimes faster to run), after loading what
// there is (the default place's and `file`'s, where it exists), and returns all of FFTW's
// wisdom, old and new, as the text `file` is to hold (the caller writes it whole), and where
// `file` held what could not be read, a note saying it is replaced. `measured(length, seconds,
// known)` after each length, `known` where the wisdom held its plans already (nothing was
// measured). Throws halo::Error where FFTW cannot plan one.
struct MeasuredWisdom {
  std::string text;
  std::string note;  // empty, or why the file's old wisdom is not in `text`
};
MeasuredWisdom measure_wisdom(const std::vector<WisdomLength>& lengths, bool patient, const std::filesystem::path& file,
                              const std::function<void(const WisdomLength&, double, bool)>& measured);

}  // namespace halo::fftw
