#!/usr/bin/env bash
# End to end (issue 8, experiment 3): the whole `halo filter` process against sox on the same
# 10-minute and 1-hour stereo 48 kHz float WAVs with a 255-tap mask: median wall time of
# several runs, peak resident memory, halo's own breakdown (--timings), and how far halo's
# output is from sox's (a check that both did the same filtering).
#   bench/end_to_end.sh HALO_BINARY [WORKDIR]        (LENGTHS="600 3600" ENGINES="cuda-fast cpu-fft" TAPS=255 SOX=1)
# SOX=0 leaves sox out (halo's engines against each other only: for masks where sox's fir
# would take minutes); the ratio column is then empty.
# Needs sox and python3 with numpy. WORKDIR (default /tmp/halo_e2e) receives ~5.5 GB.
set -euo pipefail
halo=${1:?usage: end_to_end.sh HALO_BINARY [WORKDIR]}
work=${2:-/tmp/halo_e2e}
lengths=${LENGTHS:-600 3600}
engines=${ENGINES:-cuda-fast cpu-fft}
taps=${TAPS:-255}
with_sox=${SOX:-1}
mkdir -p "$work"

# The mask: halo designs it (255-tap Hamming low-pass, 1 kHz at 48 kHz); sox's fir reads the
# same text file once the comment lines are gone.
"$halo" design --lowpass 1000 --rate 48000 --taps "$taps" -q 2>/dev/null | grep -v '^#' > "$work/m.txt"

# White noise (random, never silence), stereo float WAV.
for len in $lengths; do
  f="$work/in_${len}s.wav"
  [ -s "$f" ] || sox -R -n -r 48000 -c 2 -e floating-point -b 32 "$f" synth "$len" whitenoise vol 0.5
done

# Runs a command; prints "wall_s max_rss_kib" on stdout, its stderr into $work/stderr.txt.
measure() { python3 "$(dirname "$0")/measure.py" "$work/stderr.txt" "$@"; }

# Median wall and largest RSS of `runs` runs. The outputs are removed before each run, outside
# the timing: replacing a 1.4 GB file makes the file system free its pages (0.5 s and more),
# which is neither program's work (sox truncates, halo renames over it).
median_of() {
  local runs=$1; shift
  for _ in $(seq "$runs"); do rm -f "$work"/out_*.wav; measure "$@"; done | sort -n | awk '{w[NR] = $1; if ($2 > r) r = $2}
    END {printf "%s %d\n", w[int((NR + 1) / 2)], r}'
}

# Relative difference of two float WAVs' samples (RIFF chunks parsed by hand: no soundfile).
compare() {
  python3 - "$1" "$2" <<'PY'
import struct, sys, numpy as np
def samples(path):
    data = open(path, 'rb').read()
    pos, fmt = 12, None
    while pos + 8 <= len(data):
        tag, size = data[pos:pos + 4], struct.unpack('<I', data[pos + 4:pos + 8])[0]
        if tag == b'data':
            return np.frombuffer(data, dtype='<f4', count=min(size, len(data) - pos - 8) // 4, offset=pos + 8)
        pos += 8 + size + (size & 1)
a, b = samples(sys.argv[1]).astype(np.float64), samples(sys.argv[2]).astype(np.float64)
print(f"{len(a)} vs {len(b)} samples, ||halo - sox|| / ||sox|| = {np.linalg.norm(a - b) / np.linalg.norm(b):.2e}")
PY
}

echo "| file | program | median wall s | max RSS MiB | sox / program |"
echo "|---|---|---:|---:|---:|"
for len in $lengths; do
  in="$work/in_${len}s.wav"
  runs=$([ "$len" = 600 ] && echo 5 || echo 3)
  [ "$with_sox" = 1 ] && read -r sox_wall sox_rss < <(median_of "$runs" sox "$in" "$work/out_sox.wav" fir "$work/m.txt")
  for engine in $engines; do
    read -r wall rss < <(median_of "$runs" "$halo" filter "$in" "$work/out_halo.wav" --mask "$work/m.txt" \
                                  --engine "$engine" --timings)
    ratio=$([ "$with_sox" = 1 ] && python3 -c "print(f'{$sox_wall / $wall:.2f}x')" || echo "—")
    echo "| ${len} s | halo --engine $engine | $wall | $((rss / 1024)) | $ratio |"
    grep timings "$work/stderr.txt" | sed "s/^/    ${len} s $engine: /" >&2
    if [ "$with_sox" = 1 ] && [ "$engine" = "${engines%% *}" ]; then
      sox "$in" "$work/out_sox.wav" fir "$work/m.txt"
      compare "$work/out_halo.wav" "$work/out_sox.wav" | sed "s/^/    ${len} s: /" >&2
    fi
  done
  [ "$with_sox" = 1 ] && echo "| ${len} s | sox fir | $sox_wall | $((sox_rss / 1024)) | 1x |"
done
rm -f "$work/out_halo.wav" "$work/out_sox.wav"
