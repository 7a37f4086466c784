#!/usr/bin/env bash
# Runs halo's GPU benchmark and the peers (cuDNN conv1d, CuPy, torchaudio) in the same run,
# on the same device, and keeps both outputs.
#   bench/run_gpu_bench.sh BUILD_DIR [RESULTS_DIR] [halo_bench experiments...]
# BUILD_DIR is the project's build (it holds bench/halo_bench). RESULTS_DIR
# (default: .) receives halo_bench.md, peers.txt and peers.json.
set -euo pipefail
build=${1:?usage: run_gpu_bench.sh BUILD_DIR [RESULTS_DIR] [experiments...]}
results=${2:-.}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$results"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv \
  | tee "$results/gpu_state.txt" || true
"$build/bench/halo_bench" "$@" | tee "$results/halo_bench.md"
PYTHONUNBUFFERED=1 python3 "$here/peers.py" $((1 << 26)) "$results/peers.json" | tee "$results/peers.txt"
