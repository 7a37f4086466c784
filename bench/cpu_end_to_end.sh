#!/usr/bin/env bash
# The CPU FFT engine end to end (issue 15): the whole `halo filter` process on a 10-minute
# stereo 48 kHz float WAV with a 65535-tap mask, against sox on the same files in the same run:
# cpu-fft on one thread (`--threads 1`: the single-thread engine as it was, with today's FFT
# length), cpu-fft on every core (the default), `auto` (no GPU: it takes cpu-fft), and
# `sox IN OUT fir COEFS`. Median wall time of RUNS runs (default 3), peak resident memory
# (the largest of the runs), the load average before the runs, and halo's --timings.
#   bench/cpu_end_to_end.sh HALO_BINARY [WORKDIR]     (RUNS=3 TAPS=65535 BEFORE= WISDOM=)
# BEFORE=OLD_HALO adds that binary's cpu-fft (the engine as issue 15 found it: build the commit
# before the thread pool, aa12699^) and the last column compares with it instead. WISDOM=FILE
# adds `auto` with FFTW's measured plans from FILE (made by `halo wisdom`); every other halo
# run has none (HALO_FFTW_WISDOM empty), whatever the user's cache holds.
# Needs sox and python3. WORKDIR (default /tmp/halo_cpu_e2e) receives ~0.7 GB.
set -euo pipefail
halo=${1:?usage: cpu_end_to_end.sh HALO_BINARY [WORKDIR]}
work=${2:-/tmp/halo_cpu_e2e}
runs=${RUNS:-3}
taps=${TAPS:-65535}
mkdir -p "$work"

# The mask: a 65535-tap Hamming low-pass at 4 kHz, designed by halo; sox's fir reads the same
# text once the comment lines are gone.
"$halo" design --lowpass 4000 --rate 48000 --taps "$taps" 2>/dev/null | grep -v '^#' > "$work/mask.txt"
in="$work/in_600s.wav"
[ -s "$in" ] || sox -R -n -r 48000 -c 2 -e floating-point -b 32 "$in" synth 600 whitenoise vol 0.5

# One run: "wall_s max_rss_kib" on stdout; the program's stderr in $work/stderr.txt.
measure() { python3 "$(dirname "$0")/measure.py" "$work/stderr.txt" "$@"; }

# Median wall and largest RSS of $runs runs; the output is removed before each run, outside
# the timing (freeing a replaced file's pages is neither program's work).
median_of() {
  for _ in $(seq "$runs"); do rm -f "$work/out.wav"; measure "$@"; done | sort -n |
    awk '{w[NR] = $1; if ($2 > r) r = $2} END {printf "%s %d\n", w[int((NR + 1) / 2)], r}'
}

echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
echo
export HALO_FFTW_WISDOM=
before=${BEFORE:-}
read -r sox_wall sox_rss < <(median_of sox "$in" "$work/out.wav" fir "$work/mask.txt")
read -r one_wall one_rss < <(median_of "$halo" filter "$in" "$work/out.wav" --mask "$work/mask.txt" \
                                       --engine cpu-fft --threads 1 --timings)
grep timings "$work/stderr.txt" | sed 's/^/    cpu-fft --threads 1: /' >&2 || true
base_wall=$one_wall
if [ -n "$before" ]; then
  read -r before_wall before_rss < <(median_of "$before" filter "$in" "$work/out.wav" --mask "$work/mask.txt" \
                                             --engine cpu-fft --timings)
  grep timings "$work/stderr.txt" | sed 's/^/    cpu-fft before issue 15: /' >&2 || true
  base_wall=$before_wall
  echo "| program | median wall s | max RSS MiB | sox / program | cpu-fft before issue 15 / program |"
else
  echo "| program | median wall s | max RSS MiB | sox / program | cpu-fft 1 thread / program |"
fi
echo "|---|---:|---:|---:|---:|"
row() {
  echo "| $1 | $2 | $(($3 / 1024)) | $(python3 -c "print(f'{$sox_wall / $2:.2f}x')") |" \
       "$(python3 -c "print(f'{$base_wall / $2:.2f}x')") |"
}
[ -n "$before" ] && row "halo before issue 15, --engine cpu-fft ($before)" "$before_wall" "$before_rss"
row "halo --engine cpu-fft --threads 1" "$one_wall" "$one_rss"
read -r all_wall all_rss < <(median_of "$halo" filter "$in" "$work/out.wav" --mask "$work/mask.txt" \
                                       --engine cpu-fft --timings)
grep timings "$work/stderr.txt" | sed 's/^/    cpu-fft: /' >&2 || true
row "halo --engine cpu-fft ($(nproc) threads)" "$all_wall" "$all_rss"
read -r auto_wall auto_rss < <(median_of "$halo" filter "$in" "$work/out.wav" --mask "$work/mask.txt" --timings)
grep -E "timings|engine" "$work/stderr.txt" | sed 's/^/    auto: /' >&2 || true
row "halo (auto)" "$auto_wall" "$auto_rss"
if [ -n "${WISDOM:-}" ]; then
  read -r wise_wall wise_rss < <(HALO_FFTW_WISDOM=$WISDOM median_of "$halo" filter "$in" "$work/out.wav" \
                                   --mask "$work/mask.txt" --timings)
  grep -E "timings" "$work/stderr.txt" | sed 's/^/    auto with wisdom: /' >&2 || true
  row "halo (auto), FFTW wisdom from \`halo wisdom\`" "$wise_wall" "$wise_rss"
fi
row "sox fir" "$sox_wall" "$sox_rss"
echo
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$work/out.wav"
