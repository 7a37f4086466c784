#!/usr/bin/env bash
# The CPU FFT engine end to end (issue 15): the whole `halo filter` process on a stereo 48 kHz
# float WAV of LENGTH seconds (default 600) with a 65535-tap mask, against sox on the same files
# in the same run: cpu-fft on one thread (`--threads 1`: the single-thread engine as it was,
# with today's FFT length), cpu-fft on every core (the default), `auto` (no GPU: it takes
# cpu-fft), and `sox IN OUT fir COEFS`. Median wall time of RUNS rounds (default 3; a round
# runs every program once), the fastest and slowest run, peak resident memory (the largest of
# the runs), the load average before and after, and halo's --timings of each program's last run.
#   bench/cpu_end_to_end.sh HALO_BINARY [WORKDIR]     (RUNS=3 TAPS=65535 LENGTH=600 BEFORE= WISDOM= PREVIOUS=)
# BEFORE=OLD_HALO adds that binary's cpu-fft (the engine as issue 15 found it: build the commit
# before the thread pool, aa12699^) and the last column compares with it instead. WISDOM=FILE
# adds `auto` with FFTW's measured plans from FILE (made by `halo wisdom`); every other halo
# run has none (HALO_FFTW_WISDOM empty), whatever the user's cache holds. PREVIOUS=BINARY adds
# `auto` of another build of halo (a change's before, in the same rounds).
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
length=${LENGTH:-600}
in="$work/in_${length}s.wav"
[ -s "$in" ] || sox -R -n -r 48000 -c 2 -e floating-point -b 32 "$in" synth "$length" whitenoise vol 0.5

# One run: "wall_s max_rss_kib" on stdout; the program's stderr in $work/stderr_$1.txt.
# The output is removed before each run, outside the timing (freeing a replaced file's pages
# is neither program's work).
measure_one() {
  local name=$1; shift
  rm -f "$work/out.wav"
  python3 "$(dirname "$0")/measure.py" "$work/stderr_$name.txt" "$@"
}

# The programs, each a name and a command line; every round runs each once, so that a slow
# spell of this shared VM falls on all of them alike rather than on one program's block of
# runs (the medians of runs taken in blocks moved by 10 % between two calls).
export HALO_FFTW_WISDOM=
before=${BEFORE:-}
names=() ; declare -A commands labels
add() { names+=("$1"); labels[$1]=$2; commands[$1]=$3; }
add sox "sox fir" "sox $in $work/out.wav fir $work/mask.txt"
[ -n "$before" ] && add before "halo before issue 15, --engine cpu-fft ($before)" \
  "$before filter $in $work/out.wav --mask $work/mask.txt --engine cpu-fft --timings"
add one "halo --engine cpu-fft --threads 1" \
  "$halo filter $in $work/out.wav --mask $work/mask.txt --engine cpu-fft --threads 1 --timings"
add all "halo --engine cpu-fft ($(nproc) threads)" \
  "$halo filter $in $work/out.wav --mask $work/mask.txt --engine cpu-fft --timings"
add auto "halo (auto)" "$halo filter $in $work/out.wav --mask $work/mask.txt --timings"
[ -n "${PREVIOUS:-}" ] && add previous "halo (auto) built before this change ($PREVIOUS)" \
  "$PREVIOUS filter $in $work/out.wav --mask $work/mask.txt --timings"
[ -n "${WISDOM:-}" ] && add wise "halo (auto), FFTW wisdom from \`halo wisdom\`" \
  "env HALO_FFTW_WISDOM=$WISDOM $halo filter $in $work/out.wav --mask $work/mask.txt --timings"

echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
echo
for name in "${names[@]}"; do : > "$work/runs_$name.txt"; done
# Round r starts at program r (mod the count): what a run leaves behind (the page cache, the
# disk's write-back of the output just removed) falls on each program as often as on another.
count=${#names[@]}
for round in $(seq 0 $((runs - 1))); do
  for k in $(seq 0 $((count - 1))); do
    name=${names[$(((round + k) % count))]}
    # shellcheck disable=SC2086  # the command lines hold no spaces inside an argument
    measure_one "$name" ${commands[$name]} >> "$work/runs_$name.txt"
  done
done

# "median min max max_rss_kib" of a program's runs.
summary() {
  sort -n "$work/runs_$1.txt" | awk '{w[NR] = $1; if ($2 > r) r = $2}
    END {printf "%s %s %s %d\n", w[int((NR + 1) / 2)], w[1], w[NR], r}'
}
read -r sox_wall _ _ _ < <(summary sox)
if [ -n "$before" ]; then
  read -r base_wall _ _ _ < <(summary before)
  base_title="cpu-fft before issue 15 / program"
else
  read -r base_wall _ _ _ < <(summary one)
  base_title="cpu-fft 1 thread / program"
fi
for name in "${names[@]}"; do
  grep -hE "timings|engine " "$work/stderr_$name.txt" 2>/dev/null | sed "s/^/    $name (last run): /" >&2 || true
done
echo "| program | median wall s | fastest–slowest s | max RSS MiB | sox / program | $base_title |"
echo "|---|---:|---:|---:|---:|---:|"
for name in "${names[@]}"; do
  [ "$name" = sox ] && continue
  read -r wall fastest slowest rss < <(summary "$name")
  echo "| ${labels[$name]} | $wall | $fastest–$slowest | $((rss / 1024)) |" \
       "$(python3 -c "print(f'{$sox_wall / $wall:.2f}x')") | $(python3 -c "print(f'{$base_wall / $wall:.2f}x')") |"
done
read -r wall fastest slowest rss < <(summary sox)
echo "| sox fir | $wall | $fastest–$slowest | $((rss / 1024)) | 1.00x | $(python3 -c "print(f'{$base_wall / $wall:.2f}x')") |"
echo
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$work/out.wav"
