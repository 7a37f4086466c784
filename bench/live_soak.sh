#!/usr/bin/env bash
# The long soak of issue 14 on this machine: `halo live` (cpu-partitioned) with a stereo IR of
# TAPS taps at 64-frame periods on a JACK dummy server (-R), fed with looped noise by `halo
# play`, for SECONDS; jack_rec records live's input and output in the same cycles and
# bench/live_record_check.py checks the output against the float64 convolution of that input.
# Then, with --peer, jconvolver (zita-convolver) on the same server, IR and input for SECONDS:
# whether it stays up, and its load.
#   bash bench/live_soak.sh SECONDS TAPS [BUILD_DIR] [--peer]      (e.g. 600 65535 build)
# Prints live's summary, its CPU load (% of one core, /proc/PID/stat over the run), the
# recording check and, with --peer, jconvolver's load. Needs jackd2, jconvolver, sox, and
# /usr/bin/python3 with numpy, scipy and soundfile (setup.sh installs them).
set -euo pipefail
seconds=$1
taps=$2
build=${3:-build}
peer=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
halo=$(realpath "$build/halo")
work=$(mktemp -d /tmp/halo-live-soak-XXXXXX)
server=halo-live-soak
export JACK_DEFAULT_SERVER=$server JACK_NO_START_SERVER=1
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "${KEEP_WORK:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
wait_port() {  # PORT: up to 10 s
  for _ in $(seq 500); do jack_lsp 2>/dev/null | grep -qx "$1" && return 0; sleep 0.02; done
  echo "soak: port $1 did not appear" >&2; return 1
}
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

cd "$work"
sox -n -r 48000 -c 2 -b 32 -e float noise.wav synth 20 whitenoise vol 0.3
# The IR's level keeps live's output far below full scale (RMS about 0.09): jack_rec records
# 32-bit PCM, where a sample past +-1 comes back as -1, not clipped (at vol 0.02 the output's
# RMS was 0.36 and a third of the periods held such a sample).
sox -n -r 48000 -c 2 -b 32 -e float ir.wav synth "${taps}s" whitenoise vol 0.005 fade q 0 "${taps}s" "${taps}s"
echo 1 >unit.txt
jackd -n $server -R -P 70 -d dummy -r 48000 -p 64 >jackd.log 2>&1 &
pids+=($!)
wait_port system:playback_1
"$halo" play noise.wav --mask unit.txt --loop --engine cpu -q 2>play.log &
play_pid=$!
pids+=($play_pid)
"$halo" live --ir ir.wav -q 2>live.log </dev/null &
live_pid=$!
pids+=($live_pid)
wait_port halo-live:in_1
wait_port halo-play:out_1
jack_connect halo-play:out_0 halo-live:in_0
jack_connect halo-play:out_1 halo-live:in_1
sleep 1
t0=$(cpu_ticks $live_pid)
jack_rec -f rec.wav -d "$seconds" -b 32 halo-play:out_0 halo-play:out_1 halo-live:out_0 halo-live:out_1 >rec.log 2>&1
t1=$(cpu_ticks $live_pid)
kill -INT $live_pid
wait $live_pid || true
echo "machine: $(nproc) cores, $(sed -nE 's/^model name\s*:\s*(.*)/\1/p' /proc/cpuinfo | head -1); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "--- halo live --ir (stereo, $taps taps), 64-frame periods, ${seconds} s recorded:"
sed 's/^halo: //' live.log
awk -v a="$t0" -v b="$t1" -v hz="$ticks" -v s="$seconds" 'BEGIN { printf "halo live CPU: %.1f %% of one core\n", 100 * (b - a) / hz / s }'
[ -s rec.log ] && { echo "jack_rec said:"; cat rec.log; }
latency=$(sed -nE 's/.*halo adds ([0-9]+) frames.*/\1/p' live.log | head -1)
echo "--- recording against the float64 convolution of the recorded input:"
/usr/bin/python3 "$here/live_record_check.py" rec.wav noise.wav ir.wav "$latency" 64
[ -n "${KEEP_WORK:-}" ] || rm -f rec.wav

if [ "$peer" = "--peer" ]; then
  cat >jconv.conf <<CONF
/convolver/new 2 2 64 $taps 0.5
/input/name 1 in_1
/input/name 2 in_2
/output/name 1 out_1
/output/name 2 out_2
/impulse/read 1 1 1 0 0 0 1 $work/ir.wav
/impulse/read 2 2 1 0 0 0 2 $work/ir.wav
CONF
  jconvolver -N jconv -s $server jconv.conf >jconv.log 2>&1 &
  jconv_pid=$!
  pids+=($jconv_pid)
  wait_port jconv:in_1
  jack_connect halo-play:out_0 jconv:in_1
  jack_connect halo-play:out_1 jconv:in_2
  sleep 1
  t0=$(cpu_ticks $jconv_pid)
  sleep "$seconds"
  echo "--- jconvolver, same IR and input, ${seconds} s:"
  if kill -0 $jconv_pid 2>/dev/null; then
    t1=$(cpu_ticks $jconv_pid)
    awk -v a="$t0" -v b="$t1" -v hz="$ticks" -v s="$seconds" 'BEGIN { printf "jconvolver CPU: %.1f %% of one core; stayed up\n", 100 * (b - a) / hz / s }'
  else
    echo "jconvolver exited: $(tail -2 jconv.log)"
  fi
fi
kill -INT $play_pid 2>/dev/null || true
