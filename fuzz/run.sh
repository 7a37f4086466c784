#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (halo's layers under ASan and UBSan) and runs each for
# a bounded time, one after another:
#   bash fuzz/run.sh [SECONDS_PER_TARGET (default 60)] [TARGET ...]
# Targets: mask_file_fuzzer reader_fuzzer cli_fuzzer (all by default). Each starts from its
# committed seeds, fuzz/corpus/<target without _fuzzer>/, plus what earlier runs here found
# (kept in the build folder, never committed). Prints libFuzzer's start and end lines (cov: edges
# covered, ft: features, corp: inputs kept) and its final stats. A crash, a sanitizer report, a
# leak, an input slower than FUZZ_TIMEOUT_S or memory beyond FUZZ_RSS_LIMIT_MB prints the
# report, keeps the input as <build>/fuzz-artifacts/<target>-crash-* and makes the script exit
# non-zero; turn it into a regression test (tests/data/fuzz_regressions/, README "Fuzzing").
# The inputs kept there are replayed under the sanitizers first.
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_RSS_LIMIT_MB (2048), FUZZ_TIMEOUT_S (10).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(mask_file_fuzzer reader_fuzzer cli_fuzzer)
build=${FUZZ_BUILD_DIR:-build-fuzz}

cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHALO_CUDA=OFF \
  -DHALO_TESTS=OFF -DHALO_BENCH=OFF -DHALO_FUZZ=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=()
for target in "${targets[@]}"; do
  seeds=fuzz/corpus/${target%_fuzzer}
  found=$build/fuzz-corpus/$target
  artifacts=$build/fuzz-artifacts
  log=$build/fuzz-$target.log
  mkdir -p "$found" "$artifacts"
  regressions=(tests/data/fuzz_regressions/${target%_fuzzer}/*)
  if [ -e "${regressions[0]}" ] && ! "$build/fuzz/$target" "${regressions[@]}" >"$log" 2>&1; then
    echo "fuzz: $target fails on a kept regression input (tests/data/fuzz_regressions/):"
    tail -n 60 "$log"
    failed+=("$target")
    continue
  fi
  echo "fuzz: $target for ${seconds} s from $seeds"
  if "$build/fuzz/$target" "$found" "$seeds" -max_total_time="$seconds" -rss_limit_mb="${FUZZ_RSS_LIMIT_MB:-2048}" \
      -timeout="${FUZZ_TIMEOUT_S:-10}" -print_final_stats=1 -artifact_prefix="$artifacts/$target-" >"$log" 2>&1; then
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::|^Done' "$log" | sed 's/^/fuzz:   /'
  else
    echo "fuzz: $target FAILED; its report (full log: $log):"
    tail -n 60 "$log"
    failed+=("$target")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}; inputs under $build/fuzz-artifacts/"
  exit 1
fi
echo "fuzz: no findings"
