#!/usr/bin/env bash
# The whole verification on the GPU machine in one call: build the project, run every test
# (CPU, CLI and GPU), compute-sanitizer memcheck and racecheck on the GPU subset, the kernel
# benchmark with the peers, and the end-to-end run against sox. Logs under $OUT.
#   bash bench/device_full.sh [tests] [sanitizer] [bench] [e2e]     (default: all)
# Needs .devdeps carried (../shared/device/README.md). Results: $OUT/logs.tar.gz, bench_stdout.log
# (kernels and peers), end_to_end.md.
set -uo pipefail
results=${OUT:-$PWD/device_out}
out=/tmp/halo_logs; rm -rf "$out"; mkdir -p "$out"
# Only a few files come back from the device machine: every log goes into one archive, and
# the two tables beside it.
trap 'tar -czf "$results/logs.tar.gz" -C "$out" . ; cp "$out"/bench_stdout.log "$out"/end_to_end.md "$results"/ 2>/dev/null' EXIT
steps=${*:-tests sanitizer bench e2e}
eval "$(bash .devdeps/deps.sh install .devdeps)"
build=/tmp/halo_build
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
(cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $build -j 16) \
  > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
for step in $steps; do
  case $step in
    tests)
      (time ctest --test-dir $build --output-on-failure -j 8) > "$out/ctest.log" 2>&1; echo "ctest rc=$?"
      grep -E "tests passed|tests failed|FAILED|Failed|real" "$out/ctest.log" | head -20
      $build/tests/halo_cuda_tests --gtest_brief=1 > "$out/cuda_tests.log" 2>&1; echo "cuda tests rc=$?"
      tail -3 "$out/cuda_tests.log" ;;
    sanitizer)
      # memcheck over every engine test (seconds); racecheck, which is slower (3 min for all),
      # over the subset that runs every kernel shape. The CLI tests' GPU work runs in child
      # processes: add --target-processes all and CliCuda.* to cover them too (2 min).
      compute-sanitizer --tool memcheck --error-exitcode 9 $build/tests/halo_cuda_tests \
        --gtest_filter='-CliCuda.*' > "$out/sanitizer_memcheck.log" 2>&1
      echo "sanitizer memcheck rc=$?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer_memcheck.log"
      compute-sanitizer --tool racecheck --error-exitcode 9 $build/tests/halo_cuda_tests \
        --gtest_filter='CudaSanitizerSubset.*:CudaFftSanitizer.*' > "$out/sanitizer_racecheck.log" 2>&1
      echo "sanitizer racecheck rc=$?"; grep -E "RACECHECK SUMMARY|PASSED|FAILED" "$out/sanitizer_racecheck.log" ;;
    bench) bash bench/run_gpu_bench.sh $build "$out" small blocks large short stream fft > "$out/bench_stdout.log" 2>&1
      echo "bench rc=$?" ;;
    e2e) bash bench/end_to_end.sh $build/halo /tmp/halo_e2e 2>&1 | tee "$out/end_to_end.md" ;;
  esac
done
