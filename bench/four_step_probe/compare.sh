#!/usr/bin/env bash
# One thread, estimated plans, microseconds a transform: FFTW's plan of the whole length against
# the four steps with 64, 128 and 256 points down the columns, at the lengths cpu-fft's packed
# transforms take from 16384 points on. Needs gcc and FFTW's headers (libfftw3-dev).
#   bash bench/four_step_probe/compare.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
gcc -O2 "$here/plain.c" -o "$work/plain" -lfftw3f -lm
gcc -O3 -march=native "$here/four_step.c" -o "$work/four_step" -lfftw3f -lm
for n in 16384 20480 32768 40960 49152 65536 81920 98304 131072 163840 245760 262144 327680 491520 655360; do
  line="$n plain $("$work/plain" "$n" 0 | sed 's/.*exec \([0-9.]*\).*/\1/')"
  for m1 in 64 128 256; do
    [ $((n % m1)) -eq 0 ] && line="$line | $m1: $("$work/four_step" "$m1" $((n / m1)) | sed -n 2p | sed 's/.*exec \([0-9.]*\).*/\1/')"
  done
  echo "$line"
done
rm -rf "$work"
