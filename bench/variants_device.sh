#!/usr/bin/env bash
# One call on the GPU machine that times variants of the fused kernels side by side: each
# argument NAME:FLAGS builds halo_bench with CMAKE_CUDA_FLAGS=FLAGS (all builds at once), then
# the fused rows are timed build after build, round after round, so that every variant sees the
# same machine state. For experiments written behind a macro (#if HALO_VARIANT_X ...):
#   bash bench/variants_device.sh "base:" "x:-DHALO_VARIANT_X=1"
# ROUNDS (default "1 2") and TAPS (default 255,1023,4095,65535) narrow it. Rows go to
# $OUT/variants.txt as "NAME rROUND ENGINE TAPS MS", every build's and run's log into
# $OUT/variant_logs.tar.gz (the device returns at most 8 files). Needs .devdeps carried
# (../shared/device/README.md). The fifteenth session's cache-policy, twiddle-table and
# interleaved-turn experiments ran this way (bench/results/h100_fft_bench.md).
set -uo pipefail
results=${OUT:-$PWD/device_out}; mkdir -p "$results"
logs=/tmp/halo_variant_logs; rm -rf "$logs"; mkdir -p "$logs"
trap 'tar -czf "$results/variant_logs.tar.gz" -C "$logs" .' EXIT
eval "$(bash .devdeps/deps.sh install .devdeps)" > /dev/null
nvidia-smi --query-gpu=name --format=csv,noheader
for variant in "$@"; do
  name=${variant%%:*}; flags=${variant#*:}
  ( cmake -S . -B "/tmp/halo_variant_$name" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHALO_BENCH=ON \
      -DCMAKE_CUDA_FLAGS="$flags" > "$logs/configure_$name.log" 2>&1 &&
    cmake --build "/tmp/halo_variant_$name" -j 6 --target halo_bench > "$logs/build_$name.log" 2>&1 ||
    echo "variant $name did not build (build_$name.log)" ) &
done
wait
for round in ${ROUNDS:-1 2}; do
  for variant in "$@"; do
    name=${variant%%:*}
    # A variant that fails (a refused block, a launch error) says so in a row of its own
    # rather than leaving only a gap; its output is in run_NAME_rROUND.log.
    log="$logs/run_${name}_r$round.log"
    HALO_BENCH_FUSED_ONLY=1 HALO_BENCH_TAPS=${TAPS:-255,1023,4095,65535} timeout 100 "/tmp/halo_variant_$name/bench/halo_bench" fft > "$log" 2>&1 ||
      echo "$name r$round failed (rc $?): $(grep -m1 -E 'halo_bench:|error' "$log")"
    grep -E "^\| fft \| cuda-fft-fused (\||stereo)" "$log" |
      awk -F'|' -v n="$name" -v r="$round" '{ printf "%s r%s %s %s %s\n", n, r, $3, $4, $7 }'
  done
done | tee "$results/variants.txt"
