#!/usr/bin/env bash
# One call on the GPU machine for issue 15's `auto` (the CPU -> GPU hand-over): build, the
# GPU tests (all of halo_cuda_tests), the hand-over and auto rows of halo_tests, memcheck over
# the GPU hand-over tests, then the whole process against sox (bench/end_to_end.sh) with
# `auto`, `cuda-fft` and `cpu-fft` at 255 and 65535 taps on 10-minute and 1-hour stereo files.
#   bash bench/auto_device.sh [steps: build tests jack sanitizer e2e exit]   (default: all but jack and exit; ~9 minutes)
#   E2E="255:600,3600 4095:600:auto,cpu-fft,cuda-fft-fused" picks the e2e rows (taps:lengths[:engines]).
# Needs .devdeps carried (../shared/device/README.md). Logs under $OUT.
set -uo pipefail
out=${OUT:-$PWD/device_out}; mkdir -p "$out"
steps=${*:-build tests sanitizer e2e}
eval "$(bash .devdeps/deps.sh install .devdeps)"
build=/tmp/halo_build
for step in $steps; do
  case $step in
    build)
      start=$SECONDS
      cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHALO_BENCH=OFF > "$out/configure.log" 2>&1
      cmake --build $build -j 16 > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
      echo "build: $((SECONDS - start)) s" ;;
    tests)
      timeout 240 $build/tests/halo_cuda_tests > "$out/cuda_tests.log" 2>&1
      echo "halo_cuda_tests rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" "$out/cuda_tests.log" | head -20
      timeout 240 $build/tests/halo_tests --gtest_filter='Registered/*:CliAuto*:*Handover*:AutoChoice*:GpuProbe*:Crossover*' > "$out/auto_tests.log" 2>&1
      echo "contract + auto rows rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" "$out/auto_tests.log" | head -20 ;;
    jack)
      # The JACK suite against a dummy server (jackd without realtime priority there), with the
      # GPU live test (Jack.LiveOnTheGpuIsTheConvolutionOfItsInput); a stopped server hangs a
      # test, hence the timeout.
      timeout 300 $build/tests/halo_jack_tests > "$out/jack_tests.log" 2>&1
      echo "halo_jack_tests rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" "$out/jack_tests.log" | head -20 ;;
    sanitizer)
      timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $build/tests/halo_cuda_tests \
        --gtest_filter='GpuHandover*' > "$out/memcheck_handover.log" 2>&1
      echo "memcheck (hand-over) rc=$?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/memcheck_handover.log" ;;
    e2e)
      # E2E: TAPS:LENGTHS[:ENGINES] entries (lengths and engines comma-separated).
      for entry in ${E2E:-255:600,3600 65535:600,3600}; do
        IFS=: read -r taps lengths engines <<< "$entry"
        engines=${engines:-auto,cuda-fft,cpu-fft}
        TAPS=$taps LENGTHS="${lengths//,/ }" ENGINES="${engines//,/ }" timeout 280 bash bench/end_to_end.sh $build/halo \
          /tmp/halo_e2e > "$out/end_to_end_$taps.md" 2> "$out/end_to_end_$taps.err"
        echo "e2e $taps taps rc=$?"; grep "^|" "$out/end_to_end_$taps.md"
      done ;;
    exit)
      # How long a process lingers after its last line (the CUDA runtime's teardown).
      for engine in cuda-fft cpu-fft; do
        echo "exit probe, $engine:"; python3 bench/exit_probe.py $build/halo filter /tmp/halo_e2e/in_600s.wav \
          /tmp/halo_e2e/out_probe.wav --lowpass 1k --engine $engine --timings
      done ;;
  esac
done
