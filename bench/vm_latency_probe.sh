#!/usr/bin/env bash
# What the machine itself does to a real-time thread, with no halo and no JACK: cyclictest
# (Debian's rt-tests, the standard probe) runs one SCHED_FIFO 60 thread per CPU (halo's
# worker priority), each woken every 1333 us (a 64-frame period at 48 kHz) for SECONDS, and
# counts wakeups later than that deadline. A wakeup past the deadline is a period that no
# worker on that CPU could have met, whatever it computes; it bounds what the soaks
# (live_soak.sh) can show on this machine.
#   bash bench/vm_latency_probe.sh [SECONDS]          (default 600; needs rt-tests: apt-get install rt-tests)
set -euo pipefail
seconds=${1:-600}
command -v cyclictest > /dev/null || { echo "vm_latency_probe: no cyclictest (apt-get install rt-tests)"; exit 1; }
cpus=$(nproc)
log=$(mktemp /tmp/halo-cyclictest-XXXXXX.txt)
# -m: memory locked, as halo's play and live; -h: a histogram in us up to 20 ms.
cyclictest -m -p 60 -t "$cpus" -a "0-$((cpus - 1))" -i 1333 -D "$seconds" -q -h 20000 > "$log" 2>&1
echo "cyclictest, $cpus threads at SCHED_FIFO 60, one per CPU, every 1333 us, $seconds s ($(date -u +%F), $(uname -r)):"
grep -E "^# (Total|Min Latencies|Avg Latencies|Max Latencies|Histogram Overflows)" "$log"
# Histogram rows are "us count-per-CPU..."; wakeups past 20 ms are the overflows, late too.
awk '/^[0-9]/ { for (c = 2; c <= NF; ++c) { if ($1 >= 1333) late[c] += $c; if ($1 >= 500) slow[c] += $c } }
     /^# Histogram Overflows:/ { for (c = 4; c <= NF; ++c) { late[c - 2] += $c; slow[c - 2] += $c } }
     END { printf "wakeups later than 1333 us, per CPU:"; for (c = 2; c in late; ++c) printf " %d", late[c]; print "";
           printf "wakeups later than 500 us, per CPU:"; for (c = 2; c in slow; ++c) printf " %d", slow[c]; print "" }' "$log"
rm -f "$log"
