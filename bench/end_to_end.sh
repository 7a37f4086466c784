#!/usr/bin/env bash
# End to end (issue 8, experiment 3): the whole `halo filter` process against sox on the same
# 10-minute and 1-hour stereo 48 kHz float WAVs with a 255-tap mask, wall time and peak RSS.
#   bench/end_to_end.sh HALO_BINARY [WORKDIR] [ENGINE]      (ENGINE default cuda-fast)
# Needs sox and python3 (for the mask and, where /usr/bin/time is missing, for the timing).
# WORKDIR (default /tmp/halo_e2e) receives the inputs (~1.6 GB) and outputs.
set -euo pipefail
halo=${1:?usage: end_to_end.sh HALO_BINARY [WORKDIR] [ENGINE]}
work=${2:-/tmp/halo_e2e}
engine=${3:-cuda-fast}
mkdir -p "$work"

# A 255-tap windowed-sinc low-pass (1 kHz at 48 kHz), one coefficient per line: a text mask
# halo reads and the coefficient file sox's `fir` reads.
python3 - "$work/m.txt" <<'PY'
import math, sys
n, fc = 255, 1000.0 / 48000.0
h = []
for i in range(n):
    t = i - (n - 1) / 2
    s = 2 * fc if t == 0 else math.sin(2 * math.pi * fc * t) / (math.pi * t)
    h.append(s * (0.54 - 0.46 * math.cos(2 * math.pi * i / (n - 1))))
g = sum(h)
open(sys.argv[1], 'w').write(''.join(f'{v / g:.9e}\n' for v in h))
PY

# White noise (random, never silence), stereo float WAV.
for len in 600 3600; do
  f="$work/in_${len}s.wav"
  [ -s "$f" ] || sox -n -r 48000 -c 2 -e floating-point -b 32 "$f" synth "$len" whitenoise vol 0.5
done

# Runs a command, prints "wall_s max_rss_kib".
measure() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$@" 2> "$work/time.txt" >/dev/null
    awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i]}
                /Maximum resident set size/ {r = $2} END {printf "%.2f %d\n", w, r}' "$work/time.txt"
  else
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(f"{time.monotonic() - t:.2f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
PY
  fi
}

echo "| file | program | wall s | max RSS MiB |"
echo "|---|---|---:|---:|"
for len in 600 3600; do
  in="$work/in_${len}s.wav"
  read -r wall rss < <(measure "$halo" filter "$in" "$work/out_halo_${len}s.wav" --mask "$work/m.txt" --engine "$engine")
  halo_wall=$wall
  echo "| ${len} s | halo --engine $engine | $wall | $((rss / 1024)) |"
  read -r wall rss < <(measure sox "$in" "$work/out_sox_${len}s.wav" fir "$work/m.txt")
  echo "| ${len} s | sox fir | $wall | $((rss / 1024)) |"
  python3 -c "import sys; print(f'| {sys.argv[1]} s | sox / halo | {float(sys.argv[2]) / max(float(sys.argv[3]), 1e-9):.1f}x | |')" \
    "$len" "$wall" "$halo_wall"
done
