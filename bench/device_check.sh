#!/usr/bin/env bash
# One call on the GPU machine for kernel work: build the GPU tests and the benchmark, run the
# GPU tests, the sanitizer subset, dump the fast kernels' SASS, the benchmark with the peers,
# the shape variants, or ncu. (bench/device_full.sh is the whole project's verification.)
#   bash bench/device_check.sh [tests] [sanitizer] [sass] [bench] [variants] [ncu]
#   (default: all but ncu)
# Needs .devdeps carried (GoogleTest); logs go to $OUT (or ./device_out).
set -uo pipefail
out=${OUT:-$PWD/device_out}; mkdir -p "$out"
steps=${*:-tests sanitizer sass bench variants}
eval "$(bash .devdeps/deps.sh install .devdeps)"
build=/tmp/halo_build
cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/configure.log" 2>&1 \
  && cmake --build $build -j 16 --target halo halo_cuda_tests halo_bench > "$out/build.log" 2>&1 \
  || { tail -40 "$out/configure.log" "$out/build.log"; exit 1; }
grep -i "spill\|warning" "$out/build.log" | head -20
for step in $steps; do
  case $step in
    tests)
      (time $build/tests/halo_cuda_tests --gtest_brief=1) > "$out/tests.log" 2>&1; echo "tests rc=$?"; tail -25 "$out/tests.log" ;;
    sanitizer)
      for tool in memcheck racecheck; do
        (time compute-sanitizer --tool $tool --error-exitcode 9 $build/tests/halo_cuda_tests \
          --gtest_filter='CudaSanitizerSubset.*') > "$out/sanitizer_$tool.log" 2>&1
        echo "sanitizer $tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|real" "$out/sanitizer_$tool.log"
      done ;;
    sass)
      cuobjdump -sass $build/bench/halo_bench > "$out/bench.sass" 2>&1
      python3 - "$out/bench.sass" <<'PY'
import re, sys, collections
text = open(sys.argv[1]).read()
for block in re.split(r'\n\s*Function : ', text)[1:]:
    name = block.split('\n', 1)[0]
    if 'fast_' not in name: continue
    ops = collections.Counter(re.findall(r'/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)', block))
    print(name[:90]); print('  ', ', '.join(f'{k} {v}' for k, v in ops.most_common(14)))
    ffma = [l.strip() for l in block.split('\n') if 'FFMA' in l][:3]
    print('  ', *ffma, sep='\n   ')
PY
      ;;
    bench) bash bench/run_gpu_bench.sh $build "$out" small blocks large stream ;;
    variants) $build/bench/halo_bench variants | tee "$out/variants.md" ;;
    ncu)
      ncu --kernel-name regex:fast_pipelined --launch-count 2 --section SpeedOfLight --section WarpStateStats \
        --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats \
        $build/bench/halo_bench profile > "$out/ncu.txt" 2>&1; echo "ncu rc=$?"
      grep -E "fast_pipelined|Throughput|Duration|Issue Slots|Issued Warp|Active Warps|Stall|Eligible|Achieved Occ|Theoretical Occ" "$out/ncu.txt" | head -60 ;;
  esac
done
