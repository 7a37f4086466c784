#include "src/engine/fftw_wisdom.hpp"

#include <fftw3.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "src/engine/error.hpp"
#include "src/engine/fftw.hpp"

namespace halo::fftw {
namespace {

// Carried for the process: whether the wisdom was read, and why the file's was not used.
bool loaded = false;
std::string problem;

const char* environment(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

// Imports the wisdom in `file` into FFTW; empty when it did (or there is no file), else why not,
// to follow "FFTW wisdom in FILE". Only a regular file is read: FFTW reads a path to its end,
// and /dev/zero or a FIFO without a writer had hung every run (a QA pass).
std::string import_wisdom_file(const std::filesystem::path& file) {
  std::error_code error;
  if (file.empty() || !std::filesystem::exists(file, error)) return {};
  if (!std::filesystem::is_regular_file(file, error)) return " is not a regular file";
  if (access(file.c_str(), R_OK) != 0) return std::string(": ") + std::strerror(errno);
  if (!fftwf_import_wisdom_from_filename(file.c_str())) return " could not be read";
  return {};
}

}  // namespace

std::filesystem::path wisdom_path() {
  if (const char* set = std::getenv("HALO_FFTW_WISDOM")) return set;  // set but empty: none
  // A relative XDG_CACHE_HOME is ignored, as the XDG base directory spec says.
  if (const char* cache = environment("XDG_CACHE_HOME"); cache && cache[0] == '/')
    return std::filesystem::path(cache) / "halo" / "fftw-wisdom-float";
  if (const char* home = environment("HOME")) return std::filesystem::path(home) / ".cache" / "halo" / "fftw-wisdom-float";
  return {};
}

void load_wisdom_once() {
  if (loaded) return;
  loaded = true;
  fftwf_import_system_wisdom();  // 0 where the system keeps none: nothing to say
  const std::filesystem::path file = wisdom_path();
  if (const std::string why = import_wisdom_file(file); !why.empty())
    problem = "FFTW wisdom in " + file.string() + why +
              (why == " could not be read" ? " (run `halo wisdom` again)" : "") + "; plans are estimated";
}

std::string wisdom_problem() {
  std::lock_guard<std::recursive_mutex> lock(planner_mutex());
  return problem;
}

MeasuredWisdom measure_wisdom(const std::vector<WisdomLength>& lengths, bool patient, const std::filesystem::path& file,
                              const std::function<void(const WisdomLength&, double, bool)>& measured) {
  std::lock_guard<std::recursive_mutex> lock(planner_mutex());
  load_wisdom_once();
  MeasuredWisdom result;
  // What `file` holds already is kept, as the default place's is (`--file` had replaced it);
  // what cannot be read is said, and replaced. Another file than the default place holds its
  // own wisdom and this run's only: the default place's, loaded above, is forgotten first (it
  // had been merged into --file, and its lengths said "in the wisdom already" for a new file,
  // a QA pass). Nothing in this process plans from the wisdom after this.
  std::string why;
  if (file == wisdom_path()) {
    why = problem.empty() ? std::string() : " could not be used";
  } else {
    fftwf_forget_wisdom();
    why = import_wisdom_file(file);
  }
  if (!why.empty()) result.note = "FFTW wisdom in " + file.string() + why + ": replaced by what this run measures";
  const unsigned flags = patient ? FFTW_PATIENT : FFTW_MEASURE;
  for (const WisdomLength& length : lengths) {
    const int n = length.points;
    const auto start = std::chrono::steady_clock::now();
    // Measuring overwrites the arrays: scratch of their own, aligned as the engines' are.
    auto time = allocate<float>(static_cast<std::size_t>(n));
    auto spectrum = allocate<fftwf_complex>(static_cast<std::size_t>(n) / 2 + 1);
    if (!time || !spectrum) throw Error("wisdom: out of memory for an FFT of " + std::to_string(n));
    const auto plans = [&](unsigned plan_flags) {
      std::pair<Plan, Plan> pair;
      if (length.form == RealTransform::packed) {
        auto* packed = reinterpret_cast<fftwf_complex*>(time.get());
        pair.first.reset(fftwf_plan_dft_1d(n / 2, packed, spectrum.get(), FFTW_FORWARD, plan_flags));
        pair.second.reset(fftwf_plan_dft_1d(n / 2, spectrum.get(), packed, FFTW_BACKWARD, plan_flags));
      } else {
        pair.first.reset(fftwf_plan_dft_r2c_1d(n, time.get(), spectrum.get(), plan_flags));
        pair.second.reset(fftwf_plan_dft_c2r_1d(n, spectrum.get(), time.get(), plan_flags));
      }
      return pair;
    };
    // Already in the wisdom (a second run): planned from it at once, nothing measured, and said so
    // (a line "measured in 0.000 s" had claimed a measurement).
    const auto known = plans(flags | FFTW_WISDOM_ONLY);
    const bool was_known = known.first && known.second;
    const auto made = plans(flags);
    if (!made.first || !made.second) throw Error("wisdom: FFTW could not plan an FFT of " + std::to_string(n));
    measured(length, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), was_known);
  }
  const std::unique_ptr<char, decltype(&std::free)> text(fftwf_export_wisdom_to_string(), &std::free);
  if (!text) throw Error("wisdom: FFTW could not export its wisdom");
  result.text = text.get();
  return result;
}

}  // namespace halo::fftw
