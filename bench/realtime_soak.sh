#!/usr/bin/env bash
# Soak and load of the real-time path on a JACK server with the dummy driver (-R, 64-frame
# periods at 48 kHz), halo beside jconvolver (zita-convolver) on the same server and IRs.
#   bash bench/realtime_soak.sh [SECONDS] [BUILD_DIR]      (default 60 s per run, build/)
# Runs, each SECONDS long:
#   play  a 20 s stereo noise file (looped) through a 1023-tap low-pass
#   live  with stereo impulse responses of 65535, 262143 and 1048575 taps (cpu-partitioned)
#   jconvolver with the same IRs, 64-frame minimum partition
# and prints a markdown table: halo's own underruns, host xruns, the worker's p99 and worst
# period time (halo), and CPU load in % of one core from /proc/PID/stat (utime + stime over
# the run) for both. Needs jackd2, jconvolver, sox (setup.sh installs them).
set -euo pipefail
seconds=${1:-60}
build=${2:-build}
halo=$(realpath "$build/halo")
work=$(mktemp -d /tmp/halo-soak-XXXXXX)
server=halo-soak
export JACK_DEFAULT_SERVER=$server JACK_NO_START_SERVER=1
jackd_pid=""
cleanup() {
  [ -n "$jackd_pid" ] && kill "$jackd_pid" 2>/dev/null && wait "$jackd_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

wait_port() {  # PORT: up to 10 s
  for _ in $(seq 500); do jack_lsp 2>/dev/null | grep -qx "$1" && return 0; sleep 0.02; done
  echo "soak: port $1 did not appear" >&2; return 1
}
start_jack() {
  jackd -n $server -R -P 70 -d dummy -r 48000 -p 64 >"$work/jackd.log" 2>&1 &
  jackd_pid=$!
  if ! wait_port system:playback_1; then
    echo "soak: jackd -R failed; without -R (expect more host xruns)" >&2
    kill "$jackd_pid" 2>/dev/null || true
    jackd -n $server -d dummy -r 48000 -p 64 >"$work/jackd.log" 2>&1 &
    jackd_pid=$!
    wait_port system:playback_1
  fi
}
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# load PID SECONDS: % of one core over the run
measure() {
  local pid=$1 t0 t1
  t0=$(cpu_ticks "$pid")
  sleep "$2"
  t1=$(cpu_ticks "$pid")
  awk -v a="$t0" -v b="$t1" -v hz="$ticks" -v s="$2" 'BEGIN { printf "%.1f", 100 * (b - a) / hz / s }'
}
summary_field() {  # FILE REGEX -> first capture
  sed -nE "s/.*$2.*/\1/p" "$1" | head -1
}

cd "$work"
sox -n -r 48000 -c 2 -b 32 -e float noise20.wav synth 20 whitenoise vol 0.3
"$halo" design --lowpass 4k --taps 1023 --rate 48000 -o lp1023.txt >/dev/null 2>&1
for taps in 65535 262143 1048575; do
  # A decaying noise tail, as a room's response: stereo, float.
  sox -n -r 48000 -c 2 -b 32 -e float "ir$taps.wav" synth "${taps}s" whitenoise vol 0.02 fade q 0 "${taps}s" "${taps}s"
done
start_jack

row() { printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$@"; }
echo
echo "machine: $(nproc) cores, $(sed -nE 's/^model name\s*:\s*(.*)/\1/p' /proc/cpuinfo | head -1); $(uname -r); jackd -R dummy 48 kHz, 64-frame periods; $seconds s per run"
echo
row "run" "taps" "halo's underruns" "host xruns" "worker p99 / worst (ms), deadline 1.333" "halo CPU % of a core" "jconvolver CPU % of a core"
row "---" "---:" "---:" "---:" "---" "---:" "---:"

run_halo() {  # LABEL TAPS ARGS...: runs halo for $seconds, prints a row (jconvolver column filled later)
  local label=$1 taps=$2
  shift 2
  "$halo" "$@" -q 2>"$work/halo.log" &
  local pid=$!
  sleep 1
  local load
  load=$(measure "$pid" "$seconds")
  kill -INT "$pid"; wait "$pid" || true
  local under host p99 worst
  under=$(summary_field "$work/halo.log" "underruns ([0-9]+) \\(halo's own")
  host=$(summary_field "$work/halo.log" "host xruns ([0-9]+)")
  p99=$(summary_field "$work/halo.log" "p99 ([0-9.]+) ms")
  worst=$(summary_field "$work/halo.log" "worst ([0-9.]+) ms")
  echo "$label|$taps|$under|$host|$p99 / $worst|$load" >>"$work/rows"
}
run_jconvolver() {  # TAPS: prints its load
  local taps=$1
  cat >"jconv$taps.conf" <<CONF
/convolver/new 2 2 64 $taps 0.5
/input/name 1 in_1
/input/name 2 in_2
/output/name 1 out_1
/output/name 2 out_2
/impulse/read 1 1 1 0 0 0 1 $work/ir$taps.wav
/impulse/read 2 2 1 0 0 0 2 $work/ir$taps.wav
CONF
  jconvolver -N jconv -s $server "jconv$taps.conf" >"$work/jconv.log" 2>&1 &
  local pid=$!
  wait_port jconv:in_1 >/dev/null || { echo "-"; kill "$pid" 2>/dev/null; return; }
  jack_connect system:capture_1 jconv:in_1; jack_connect system:capture_2 jconv:in_2
  sleep 1
  local load
  if kill -0 "$pid" 2>/dev/null; then load=$(measure "$pid" "$seconds"); else load="exited"; fi
  kill -0 "$pid" 2>/dev/null || load="exited: $(tail -1 "$work/jconv.log")"
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
  echo "$load"
}

: >"$work/rows"
run_halo "play 20 s file (looped), lowpass" 1023 play noise20.wav --mask lp1023.txt --loop
for taps in 65535 262143 1048575; do
  run_halo "live, stereo IR" "$taps" live --ir "ir$taps.wav"
done
while IFS='|' read -r label taps under host times load; do
  jconv="-"
  [ "$label" != "${label#live}" ] && jconv=$(run_jconvolver "$taps")
  row "$label" "$taps" "$under" "$host" "$times" "$load" "$jconv"
done <"$work/rows"
echo
echo "command: bash bench/realtime_soak.sh $seconds $build"
