#!/usr/bin/env bash
# One call on the GPU machine for cuda-fft and cuda-fft-fused (issue 15): build, the FFT
# engine tests and the engine contract suite's rows for both engines, compute-sanitizer
# memcheck over the FFT engine tests and racecheck over every FFT kernel once, then the
# benchmark rows (N = 2^26 on the device; 255 ... 2^20 taps). About 6-8 minutes.
#   bash bench/fft_device.sh [steps: build tests sanitizer bench baseline ncu profile]   (default: the first four)
# baseline: the benchmark of another commit in the same call (carry a `git archive COMMIT |
# gzip > base.tar.gz` from the repository root; HALO_BENCH_TAPS narrows both). ncu: Nsight
# Compute's launch statistics, occupancy, warp states and memory for one launch of the kernels
# matching NCU_KERNEL (a regex; default the fused kernels) at NCU_TAPS (default 4095), with the
# source lines where warps stall most (halo_cuda builds with -lineinfo).
# Needs .devdeps carried (../shared/device/README.md). Logs: $OUT/fft_logs.tar.gz (every log)
# and $OUT/summary.txt (what the reply's tail shows too).
set -uo pipefail
results=${OUT:-$PWD/device_out}; mkdir -p "$results"
out=/tmp/halo_fft_logs; rm -rf "$out"; mkdir -p "$out"
trap 'tar -czf "$results/fft_logs.tar.gz" -C "$out" . ; cp "$out/summary.txt" "$out/fft_bench.md" "$results/" 2>/dev/null' EXIT
steps=${*:-build tests sanitizer bench}
eval "$(bash .devdeps/deps.sh install .devdeps)"
build=/tmp/halo_build
say() { echo "$*" | tee -a "$out/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
for step in $steps; do
  case $step in
    build)
      start=$SECONDS
      cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHALO_BENCH=ON > "$out/configure.log" 2>&1
      cmake --build $build -j 16 --target halo_cuda_tests halo_bench > "$out/build.log" 2>&1
      [ -x $build/tests/halo_cuda_tests ] && [ -x $build/bench/halo_bench ] || { tail -40 "$out/build.log"; exit 1; }
      cmake --build $build -j 16 --target halo_tests >> "$out/build.log" 2>&1 || say "halo_tests did not build (contract rows skipped)"
      say "build: $((SECONDS - start)) s" ;;
    tests)
      start=$SECONDS
      timeout 300 $build/tests/halo_cuda_tests --gtest_filter='FftHost.*:CudaFft*' > "$out/fft_tests.log" 2>&1
      say "fft tests rc=$? ($((SECONDS - start)) s)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|error:|Expected|Which is|fft_engine_test" "$out/fft_tests.log" | head -40 | tee -a "$out/summary.txt"
      if [ -x $build/tests/halo_tests ]; then
        start=$SECONDS
        timeout 240 $build/tests/halo_tests --gtest_filter='Registered/*cuda_fft*' > "$out/contract.log" 2>&1
        say "contract rows (cuda-fft, cuda-fft-fused) rc=$? ($((SECONDS - start)) s)"
        grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" "$out/contract.log" | head -30 | tee -a "$out/summary.txt"
      fi ;;
    sanitizer)
      # memcheck over the GPU FFT tests but the 2^20-tap one (minutes under the tool); racecheck
      # (slower) over one run of every kernel (the fused kernel's shared-memory stages).
      start=$SECONDS
      timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $build/tests/halo_cuda_tests \
        --gtest_filter='CudaFft*:-CudaFft.MasksFromOneTapTo2To20' > "$out/sanitizer_memcheck.log" 2>&1
      say "memcheck rc=$? ($((SECONDS - start)) s)"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer_memcheck.log" | tee -a "$out/summary.txt"
      start=$SECONDS
      timeout 180 compute-sanitizer --tool racecheck --error-exitcode 9 $build/tests/halo_cuda_tests \
        --gtest_filter='CudaFftSanitizer.*' > "$out/sanitizer_racecheck.log" 2>&1
      say "racecheck rc=$? ($((SECONDS - start)) s)"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer_racecheck.log" | tee -a "$out/summary.txt" ;;
    bench)
      timeout 150 $build/bench/halo_bench fft > "$out/fft_bench.md" 2>&1; say "bench rc=$?"
      cat "$out/fft_bench.md" | tee -a "$out/summary.txt" ;;
    baseline)
      if [ -f base.tar.gz ]; then
        start=$SECONDS; rm -rf /tmp/halo_base_src; mkdir -p /tmp/halo_base_src; tar -xzf base.tar.gz -C /tmp/halo_base_src
        cmake -S /tmp/halo_base_src -B /tmp/halo_base -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHALO_BENCH=ON \
          > "$out/base_configure.log" 2>&1
        cmake --build /tmp/halo_base -j 16 --target halo_bench > "$out/base_build.log" 2>&1 || { tail -20 "$out/base_build.log"; }
        say "baseline build: $((SECONDS - start)) s"
        timeout 150 /tmp/halo_base/bench/halo_bench fft > "$out/baseline_bench.md" 2>&1; say "baseline bench rc=$?"
        grep "cuda-fft-fused" "$out/baseline_bench.md" | grep "^|" | tee -a "$out/summary.txt"
        cp "$out/baseline_bench.md" "$results/" 2>/dev/null
      else
        say "baseline: no base.tar.gz carried"
      fi ;;
    ncu)
      timeout 300 /usr/local/cuda/bin/ncu --kernel-name-base demangled -k "regex:${NCU_KERNEL:-fused_kernel|split_cluster}" \
        --launch-skip 3 -c 1 --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section SourceCounters \
        --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
        env HALO_BENCH_TAPS=${NCU_TAPS:-4095} HALO_BENCH_FUSED_ONLY=1 $build/bench/halo_bench fft > "$out/ncu.txt" 2>&1
      say "ncu rc=$?"; grep -vE "^\| fft|^fft:|^==PROF==" "$out/ncu.txt" | grep -E "[A-Za-z]" | head -120 | cut -c1-150 | tee -a "$out/summary.txt" ;;
    profile)
      # Where the time goes, kernel by kernel: Nsight Systems' per-kernel sums over the same
      # benchmark (every length, both engines; divide by the launches to compare lengths).
      if command -v nsys > /dev/null; then
        timeout 240 nsys profile -t cuda -o "$out/fft_profile" --force-overwrite true $build/bench/halo_bench fft \
          > "$out/profile_run.log" 2>&1
        nsys stats -r cuda_gpu_kern_sum "$out/fft_profile.nsys-rep" > "$out/kernel_sums.txt" 2>&1
        say "profile rc=$?"; head -30 "$out/kernel_sums.txt" | cut -c1-220 | tee -a "$out/summary.txt"
      else
        say "profile: no nsys on this machine"
      fi ;;
  esac
done
