#!/usr/bin/env bash
# The H100 target of issue 14: `halo live --engine cuda-fast` with a stereo 16383-tap mask at
# 64-frame periods on a JACK dummy server (-R where the system allows it), for SECONDS, fed
# with noise by `halo play` (a unit mask, on the CPU) so it never filters zeros; live's summary
# (halo's underruns, host xruns, the worker's period times) is the result. An empty PortAudio
# client (play of silence) on the same server gives the host's own xruns as the baseline.
#   bash bench/live_gpu_soak.sh [SECONDS] [BUILD_DIR]      (default 300 s, build/)
#   WORKER_CPU=any|own runs live with --worker-cpu any or own (default callback: the worker on the callback's CPU;
#   own: polling on a CPU of its own).
set -uo pipefail
seconds=${1:-300}
build=${2:-build}
halo=$(realpath "$build/halo")
work=$(mktemp -d /tmp/halo-gpu-soak-XXXXXX)
export JACK_DEFAULT_SERVER=halo-gpu-soak JACK_NO_START_SERVER=1
jackd -n halo-gpu-soak -R -P 70 -d dummy -r 48000 -p 64 >"$work/jackd.log" 2>&1 &
jackd_pid=$!
# On any exit (a timeout included) the logs go to $OUT where it is set (the device tool's
# folder), so that a run that stops early still says why.
# The server's log can grow past what the device tool brings back: its first and last lines.
trap 'kill $jackd_pid 2>/dev/null; wait $jackd_pid 2>/dev/null
      { head -60 "$work/jackd.log"; echo "[... $(wc -l < "$work/jackd.log") lines in all ...]"; tail -60 "$work/jackd.log"
        echo "--- every kind of line, with counts (numbers as N):"; sed "s/[0-9]\+/N/g" "$work/jackd.log" | sort | uniq -c | sort -rn | head -40
      } > "$work/jackd_ends.txt"
      [ -n "${OUT:-}" ] && cp "$work"/{live,play,baseline}.log "$work/jackd_ends.txt" "$OUT"/ 2>/dev/null' EXIT
for _ in $(seq 250); do jack_lsp 2>/dev/null | grep -qx system:playback_1 && break; sleep 0.02; done
jack_lsp >/dev/null 2>&1 || { echo "soak: jackd did not start: $(tail -2 "$work/jackd.log")"; exit 1; }
cd "$work"
"$halo" design --lowpass 8k --taps 16383 --rate 48000 -o lp16383.txt >/dev/null
echo 1 >unit.txt
sox -n -r 48000 -c 2 -b 32 -e float noise.wav synth 20 whitenoise vol 0.3
"$halo" play noise.wav --mask unit.txt --loop --engine cpu -q 2>play.log &
play_pid=$!
"$halo" live --mask lp16383.txt --engine cuda-fast --frames 64 --worker-cpu "${WORKER_CPU:-callback}" 2>live.log </dev/null &
live_pid=$!
for _ in $(seq 500); do jack_lsp 2>/dev/null | grep -qx halo-live:in_1 && break; sleep 0.02; done
jack_connect halo-play:out_0 halo-live:in_0; jack_connect halo-play:out_1 halo-live:in_1
sleep "$seconds"
echo "soak: $seconds s done, stopping live ($(date +%T))"
kill -INT "$live_pid"; wait "$live_pid"; echo "live exit $?"
kill -INT "$play_pid"; wait "$play_pid"
echo "--- halo live --engine cuda-fast --worker-cpu ${WORKER_CPU:-callback}, stereo 16383 taps, ${seconds} s:"; cat live.log
# Baseline: an empty client (play of silence through a unit mask) for a tenth of the time.
sox -n -r 48000 -c 2 -b 32 -e float silence.wav trim 0 "$((seconds / 10 + 1))"
"$halo" play silence.wav --mask unit.txt --engine cpu 2>baseline.log
echo "--- baseline, play of silence, $((seconds / 10 + 1)) s:"; cat baseline.log
