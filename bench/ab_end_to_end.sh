#!/usr/bin/env bash
# Two builds of halo against each other, whole process (`halo filter` on stereo 48 kHz float
# white noise, a Hamming low-pass of TAPS taps), in alternating rounds: each round runs A then
# B on every file, so a slow spell of a shared machine falls on both. Prints, per mask length
# and file, both medians, the fastest and slowest run of each and B's speed-up over A, and
# checks that the two outputs are the same bits (a change meant to keep the result).
#   bench/ab_end_to_end.sh HALO_A HALO_B [WORKDIR]   (TAPS="255 65535" LENGTHS="600 3600" ENGINE=cpu-fft RUNS=5)
# Needs sox and python3. WORKDIR (default /tmp/halo_ab) receives ~1.5 GB an hour of audio.
set -euo pipefail
a=${1:?usage: ab_end_to_end.sh HALO_A HALO_B [WORKDIR]}
b=${2:?usage: ab_end_to_end.sh HALO_A HALO_B [WORKDIR]}
work=${3:-/tmp/halo_ab}
runs=${RUNS:-5}
engine=${ENGINE:-cpu-fft}
mkdir -p "$work"
export HALO_FFTW_WISDOM=  # estimated plans in both, whatever the user's cache holds

for len in ${LENGTHS:-600 3600}; do
  f="$work/in_${len}s.wav"
  [ -s "$f" ] || sox -R -n -r 48000 -c 2 -e floating-point -b 32 "$f" synth "$len" whitenoise vol 0.5
done

# One run of BINARY on FILE with MASK: prints its wall seconds; the output stays as $work/out_$4.wav.
one() {
  rm -f "$work/out_$4.wav"
  python3 "$(dirname "$0")/measure.py" "$work/stderr_$4.txt" "$1" filter "$2" "$work/out_$4.wav" \
    --mask "$3" --engine "$engine" | cut -d' ' -f1
}
stats() { sort -n | awk '{v[NR] = $1} END {printf "%.3f %.3f %.3f\n", v[int((NR + 1) / 2)], v[1], v[NR]}'; }

echo "engine $engine, $runs alternating rounds; A = $a, B = $b; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| taps | file | A median s | A fastest–slowest | B median s | B fastest–slowest | A / B | same bits |"
echo "|---:|---|---:|---|---:|---|---:|---|"
for taps in ${TAPS:-255 65535}; do
  mask="$work/mask_$taps.txt"
  "$b" design --lowpass 4000 --rate 48000 --taps "$taps" -q 2>/dev/null | grep -v '^#' > "$mask"
  for len in ${LENGTHS:-600 3600}; do
    in="$work/in_${len}s.wav"; : > "$work/times_a"; : > "$work/times_b"
    for ((r = 0; r < runs; ++r)); do
      one "$a" "$in" "$mask" a >> "$work/times_a"
      one "$b" "$in" "$mask" b >> "$work/times_b"
    done
    read -r ma fa sa < <(stats < "$work/times_a")
    read -r mb fb sb < <(stats < "$work/times_b")
    same=$(cmp -s "$work/out_a.wav" "$work/out_b.wav" && echo yes || echo NO)
    echo "| $taps | ${len} s | $ma | $fa–$sa | $mb | $fb–$sb | $(awk -v x="$ma" -v y="$mb" 'BEGIN {printf "%.2fx", x / y}') | $same |"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
