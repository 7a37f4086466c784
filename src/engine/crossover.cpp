#include "src/engine/crossover.hpp"

#include <cstdint>

namespace halo {

// Where the numbers come from (H100 machine: NVIDIA H100 80GB HBM3, 16 cores, driver 580,
// CUDA 13.0; bench/results/h100_end_to_end.md and issue 15's figures, 2026-11-23):
//   - starting the GPU engine (CUDA context, cuda-fast's prepare and taps) took 0.211 s on the
//     10-minute file and 0.193 s on the hour (`--timings` "engine start"); issue 15 saw
//     0.21-0.32 s. Taken as 0.2 s.
//   - cpu-fft, one thread, on that machine's CPU: 255 taps, 1.896 s of engine time for the
//     hour of stereo (345.6 M samples): 5.5 ns a sample; 65535 taps, 4.83 s for the hour:
//     14 ns a sample. The direct engine below 24 taps: 4.9 ns a sample at 7 taps (README, 60 s
//     of stereo on the 2-core development machine; not measured on the H100 machine), ~5 ns.
//   So the hand-over pays from 0.2 s / 5 ns = 4.0e7 samples up to 63 taps, 0.2 s / 5.5 ns =
//   3.6e7 up to 1023, and 0.2 s / 14 ns = 1.4e7 beyond (between 1023 and 65535 taps cpu-fft
//   costs between 5.5 and 14 ns a sample; the longer mask's rate hands over a little early).
//   These rest on the single-thread cpu-fft of issue 12: a faster CPU engine (issue 15's
//   threads) raises every threshold in proportion. Re-measure: `--timings` of `--engine cpu-fft`
//   (engine seconds / samples) and of a CUDA engine (engine start), on the machine itself.
//   Measured since (bench/auto_device.sh on the H100 machine, bench/results/h100_auto_end_to_end.md):
//   the threaded cpu-fft (16 threads) filters the 10-minute stereo file at 255 taps in 0.142 s
//   of whole process against 0.406 s for the hand-over to cuda-fast, and the hour in 0.957 s
//   against 0.769 s: up to 1023 taps the GPU pays from about 2e8 samples (between 5.8e7 and
//   3.5e8). At 65535 taps the GPU already wins on the 10-minute file (cuda-fft 0.499 s,
//   cpu-fft 0.582 s): 1.4e7 stays.
//   Measured again after cpu-fft got blocks that feed all 16 threads (the stream's
//   parallel_frames; bench/results/h100_auto_end_to_end.md, the third session of
//   2026-11-23), whole process, 10-minute (5.76e7 samples) and 1-hour (3.46e8) stereo files:
//     4095 taps:  cpu-fft 0.211 / 1.046 s, cuda-fft-fused 0.449 / 1.058 s
//     16383 taps: cpu-fft 0.239 / 1.106 s, cuda-fft 0.466 / 1.094 s, the hand-over - / 0.932 s
//     65535 taps: cpu-fft 0.320 / 1.467 s, cuda-fft 0.438 / 1.036 s
//   Every run that starts CUDA also spends 0.10-0.12 s after its last line in the driver's
//   release of the device (bench/exit_probe.py; _exit does not skip it), inside these times.
//   Through each pair a line: cpu-fft and the GPU engine alone cross at about 3.6e8 samples at
//   4095 taps (the hour: a tie), 3.4e8 at 16383 and 1.2e8 at 65535; the hand-over (the CPU
//   filters while the context starts) beat both on the hour at 16383 taps (0.932 against
//   1.094 and 1.106 s). So 2e8 up to 8192 taps and 1e8 beyond: the 10-minute file stays on
//   the CPU at every length (handed over from 1.4e7 samples, it took 0.403 s at 4095 taps
//   against cpu-fft's 0.211).
//   - Which GPU engine, from kernel times at N = 2^26 (bench/results/h100_fft_bench.md and
//     h100_crossover.md, the fourth session of 2026-11-23): cuda-fft-fused 0.268, 0.308 and
//     0.511 ms at 255, 1023 and 4095 taps, against cuda-fft's 2.18, 2.20, 1.95 and
//     cuda-fast's 0.636 and 2.42 ms at 255 and 1023: the fused engine wins from 255 taps to
//     its limit, 8192. Below, measured (`halo_bench crossover`): cuda-fast 0.198 / 0.258 /
//     0.258 / 0.331 / 0.331 ms at 63 / 79 / 95 / 111 / 127 taps (it steps with its tap
//     tiles), the fused kernel 0.26-0.28 ms throughout: they tied at 79 and 95 taps (within
//     2 %) and the fused kernel was 21 % faster at 111, so cuda-fast kept the masks up to 95.
//     Re-measured 2026-11-25 after the fused kernel's constant offsets (same command): the
//     fused kernel 0.244-0.247 ms from 79 to 255 taps (0.261 at 63), cuda-fast 0.198 / 0.258
//     / 0.258 / 0.328 ms at 63 / 79 / 95 / 111: the fused kernel now wins from 64 taps on
//     (5-6 % at 79 and 95), so cuda-fast keeps the masks up to 63.
//   - GPU engines by mask length, kernel times at N = 2^26 (README, bench/NOTES.md):
//     up to 63 taps cuda-fast runs at 1.07-1.11x the copy floor (0.191-0.198 ms), which no
//     FFT method beats; at 255 and 1023 taps cuda-fast (0.630, 2.42 ms) still beats CuPy's
//     overlap-add (2.81, 2.93 ms); from 4095 taps an FFT method wins (CuPy 3.70 ms against
//     9.54, 3.82 against 37.7 at 16383): cuda-fft-fused (masks it holds in shared memory),
//     then cuda-fft; past 16384 taps only cuda-fft takes the mask.
//   - Since 2026-11-24 cuda-fft-fused takes masks up to 131072 taps (transforms past one
//     block split over 16 rows): 0.835, 1.057 and 1.433 ms at 16383, 65535 and 131071 taps
//     against cuda-fft's 1.906, 2.108 and 2.254 (bench/results/h100_fft_bench.md); 0.720,
//     1.017 and 1.441 since the rows run in one cluster kernel (2026-11-25). So it keeps every
//     mask it takes; cuda-fft above.
//   - The sixth session (2026-11-24) made cpu-fft 1.5-3x faster on that machine's 16 cores:
//     its (de)interleaving runs on its pool, and the pool's threads spin briefly before they
//     sleep (a wake-up there took about a millisecond, three times a call). Whole process,
//     `SOX=0 E2E=... bash bench/auto_device.sh e2e` (bench/results/h100_auto_end_to_end.md),
//     10-minute (5.76e7 samples) and 1-hour (3.46e8) stereo files, s:
//       taps      cpu-fft 10 min / hour   GPU engine alone 10 min / hour   hand-over hour
//       255       0.129 / 0.592           -     / 0.945 (cuda-fft)         0.750
//       4095      0.145 / 0.570           -     / 0.976 (fused)            0.887
//       16383     -     / 1.013           -     / 0.960 (fused)            0.872
//       65535     0.228 / 0.728           0.511 / 0.872 (fused)            0.977
//       131071    0.325 / 1.128           0.543 / 0.854 (fused)            1.114
//       262143    0.597 / 1.853           0.488 / 0.846 (cuda-fft)         0.981
//     and at 262143 taps on a 2-minute file (1.15e7) cpu-fft 0.398 s against cuda-fft's 0.458,
//     at 1048575 taps 0.795 against 0.705 (10 minutes: 1.415 against 0.742). Up to 65535
//     taps the CPU engine keeps up with every GPU path at any length measured: both are held
//     by reading and writing the files (0.4-0.6 s each for the hour), and the GPU adds its
//     start, its staging copies and 0.1 s of teardown. So the rows up to 65535 taps hand over
//     only from 1e9 samples (about 2.9 hours of stereo, past anything measured; the
//     hand-over figures at 255-65535 taps are from runs before the pool's spin, whose CPU
//     side was slower). Past 65535 taps the CPU's rate falls with the FFT length: cpu-fft
//     and cuda-fft-fused alone cross at about 2e8 samples at 131071 taps, cpu-fft and
//     cuda-fft at about 3e7 at 262143 and below 1.2e7 at 1048575 (taken as 1e7 from 524289
//     taps). The hand-over there was 0.13-0.26 s slower than the GPU engine alone on the hour
//     (the CPU side plans FFTs of millions of points, 0.08-0.3 s, about as long as CUDA
//     starts, and then runs two tasks a block, one a channel, so it filtered little before
//     the GPU was ready) and far faster than the CPU alone: those rows run the GPU engine
//     alone (gpu_alone).
//   - Re-measured after the thirteenth session's faster cpu-fft (fourteenth session,
//     2026-11-25, halo at 8b3216a, `SOX=0 E2E=... bash bench/auto_device.sh build e2e`,
//     bench/results/h100_auto_end_to_end.md), whole process, stereo files of 2 minutes
//     (1.15e7 samples), 10 minutes (5.76e7) and an hour (3.46e8), s:
//       taps      cpu-fft 2 min / 10 min / hour   GPU engine alone 2 min / 10 min / hour
//       131071    -     / 0.174 / 0.599           -     / 0.457 / 0.723 (fused)
//       262143    0.142 / 0.208 / 0.792           0.439 / 0.458 / 0.805 (cuda-fft)
//       393215    0.245 / 0.291 / 1.094           0.432 / 0.514 / 0.778 (cuda-fft)
//       524287    0.499 / 0.779 / -               0.502 / 0.529 / -     (cuda-fft)
//       1048575   0.533 / -     / -               0.531 / -     / -     (cuda-fft)
//     Through each set a line (`python3 bench/crossover_from_e2e.py` over the runs' tables,
//     least squares): they cross at about 5.7e8 samples at 131071 taps, 3.6e8 at 262143,
//     1.6e8 at 393215 and 1.2e7 at 524287, and at 1048575 taps they tie on the 2-minute
//     file (from 524287 taps cpu-fft plans FFTs of millions of points, 0.1-0.2 s, as long as
//     the CUDA context takes to start). The sixth session's rows (2e8 up to 131072 taps, 3e7 up
//     to 524288) had sent the 10-minute file at 262143 taps to cuda-fft, 0.458 s against
//     cpu-fft's 0.208 now. Masks between two measured lengths take the longer one's row.
//     The rows up to 65535 taps, on a 3-hour file (1.04e9 samples, just past their 1e9):
//     the hand-over 1.072 / 1.172 / 1.298 s at 255 / 4095 / 65535 taps, cpu-fft 1.178 /
//     1.229 / 1.279, cuda-fft-fused alone 1.276 / 1.281 / 1.425: there the hand-over wins
//     by 9 % and 5 % and loses by 1.5 %, so 1e9 stays.
//
// The H200 machine (NVIDIA H200, 16 cores, the same host type; fourteenth session,
// 2026-11-25, halo at 660a468, the thirteenth session's cpu-fft; `SOX=0 E2E=... bash
// bench/auto_device.sh e2e`, bench/results/h100_auto_end_to_end.md), whole process, stereo
// files of 2 minutes (1.15e7 samples), 10 minutes (5.76e7) and an hour (3.46e8), s:
//       taps      cpu-fft 2 min / 10 min / hour   GPU engine alone 2 min / 10 min / hour
//       255       -     / 0.118 / 0.520           -     / 0.412 / 0.757 (fused)
//       65535     -     / 0.140 / 0.549           -     / 0.434 / 0.854 (fused)
//       131071    -     / 0.215 / 0.693           -     / 0.481 / 0.767 (fused)
//       262143    0.178 / 0.277 / 0.832           0.465 / 0.490 / 0.804 (cuda-fft)
//       524287    0.564 / 0.918 / 3.342           0.529 / 0.623 / 0.838 (cuda-fft)
//       1048575   0.676 / 0.953 / -               0.626 / 0.727 / -     (cuda-fft)
// The GPU's own start (0.21-0.25 s) is the H100's, so below 65536 taps the CPU keeps every job
// as there. Through each set a line (bench/crossover_from_e2e.py): cpu-fft and the GPU engine
// cross at about 4.6e8 samples at 131071 taps and 3.1e8 at 262143, a little earlier than on the
// H100 machine; from 524287 taps the GPU wins on every file measured (the CPU engine's FFT
// plans of millions of points take 0.15-0.2 s to make). 393215 taps was not measured here: its
// row is the H100's. The GPU engines are the H100's choices (the same GH100 chip, its memory
// faster): not re-measured.
namespace {

// Rows the H200's table takes from the H100's as they are, where it was not measured: the
// GPU engines by mask length (the same GH100 chip) and the 393216-tap row.
constexpr CrossoverRow short_masks_on_cuda_fast = {63, 1.0e9, {"cuda-fast", nullptr, nullptr}};
constexpr CrossoverRow middle_masks_on_fused = {1023, 1.0e9, {"cuda-fft-fused", "cuda-fast", "cuda-fft"}};
constexpr CrossoverRow long_masks_on_fused = {65535, 1.0e9, {"cuda-fft-fused", "cuda-fft", nullptr}};
constexpr CrossoverRow h100_to_393216 = {393216, 1.6e8, {"cuda-fft", nullptr, nullptr}, true};

}  // namespace

const std::vector<GpuCrossover>& crossover_tables() {
  static const std::vector<GpuCrossover> tables = {
      {"NVIDIA H100 80GB HBM3",
       {
           short_masks_on_cuda_fast,
           middle_masks_on_fused,
           long_masks_on_fused,
           {131072, 5.0e8, {"cuda-fft-fused", "cuda-fft", nullptr}, true},
           {262144, 3.5e8, {"cuda-fft", nullptr, nullptr}, true},
           h100_to_393216,
           {SIZE_MAX, 1.2e7, {"cuda-fft", nullptr, nullptr}, true},
       }},
      {"NVIDIA H200",
       {
           short_masks_on_cuda_fast,
           middle_masks_on_fused,
           long_masks_on_fused,  // 1e9 measured here too (255 and 65535 taps: the CPU kept every file)
           {131072, 4.5e8, {"cuda-fft-fused", "cuda-fft", nullptr}, true},
           {262144, 3.0e8, {"cuda-fft", nullptr, nullptr}, true},
           h100_to_393216,
           {SIZE_MAX, 1.0e7, {"cuda-fft", nullptr, nullptr}, true},
       }},
  };
  return tables;
}

CrossoverAnswer crossover_for(const std::string& model, std::size_t taps) {
  const auto& tables = crossover_tables();
  const GpuCrossover* table = &tables.front();
  bool listed = false;
  for (const auto& candidate : tables)
    if (!model.empty() && model == candidate.model) {
      table = &candidate;
      listed = true;
    }
  CrossoverAnswer answer{table->rows.back(), table->model};
  for (const auto& row : table->rows)
    if (taps <= row.up_to_taps) {
      answer.row = row;
      break;
    }
  if (!listed) {
    answer.row.handover_from_samples *= 2;  // the fallback rule
    answer.table = (model.empty() ? std::string("an unknown GPU") : model) + ": " + table->model + "'s table, sizes x 2";
  }
  return answer;
}

}  // namespace halo
