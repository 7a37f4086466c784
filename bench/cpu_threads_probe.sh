#!/usr/bin/env bash
# How cpu-fft's whole process scales with its thread count on this machine (issue 15): the
# 10-minute stereo float file of bench/end_to_end.sh, a TAPS-tap mask, `--threads N` for each
# N of THREADS (default: 4 8 12 14 16 24 32, capped at 4x the cores), median of RUNS (3), with
# and without FFTW wisdom (`halo wisdom --taps TAPS`, saved under the work folder), and the
# --timings line of the last run of each.
#   bench/cpu_threads_probe.sh HALO_BINARY [WORKDIR]        (TAPS=65535 THREADS="..." RUNS=3)
# Needs sox and python3. WORKDIR (default /tmp/halo_e2e) is shared with end_to_end.sh.
set -euo pipefail
halo=${1:?usage: cpu_threads_probe.sh HALO_BINARY [WORKDIR]}
work=${2:-/tmp/halo_e2e}
taps=${TAPS:-65535}
runs=${RUNS:-3}
threads=${THREADS:-4 8 12 14 16 24 32}
mkdir -p "$work"
in="$work/in_600s.wav"
[ -s "$in" ] || sox -R -n -r 48000 -c 2 -e floating-point -b 32 "$in" synth 600 whitenoise vol 0.5
"$halo" design --lowpass 1000 --rate 48000 --taps "$taps" -q 2>/dev/null | grep -v '^#' > "$work/threads_mask.txt"
wisdom="$work/threads_wisdom"
start=$SECONDS
HALO_FFTW_WISDOM="$wisdom" "$halo" wisdom --taps "$taps" -q
echo "halo wisdom --taps $taps: $((SECONDS - start)) s; $(nproc) cores"
one() { python3 "$(dirname "$0")/measure.py" "$work/threads_err.txt" "$@" | cut -d' ' -f1; }  # wall seconds
echo "| threads | wisdom | median wall s | timings (last run) |"
echo "|---:|---|---:|---|"
for n in $threads; do
  for w in none "$wisdom"; do
    [ "$w" = none ] && export HALO_FFTW_WISDOM= || export HALO_FFTW_WISDOM="$w"
    wall=$(for _ in $(seq "$runs"); do rm -f "$work/threads_out.wav"; one "$halo" filter "$in" "$work/threads_out.wav" \
             --mask "$work/threads_mask.txt" --engine cpu-fft --threads "$n" --timings; done | sort -n | sed -n "$(((runs + 1) / 2))p")
    echo "| $n | $([ "$w" = none ] && echo no || echo yes) | $wall | $(grep timings "$work/threads_err.txt" | sed 's/^halo: timings: //') |"
  done
done
