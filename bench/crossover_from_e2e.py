#!/usr/bin/env python3
"""Where cpu-fft and a GPU engine cross, from bench/end_to_end.sh's tables: the job size in
samples past which the GPU engine alone finishes the whole process first (auto's
handover_from_samples, src/engine/crossover.cpp).

    python3 bench/crossover_from_e2e.py OUT/end_to_end_131071.md OUT/end_to_end_262143.md ...

Each file is one mask length (its name ends in _TAPS.md, as bench/auto_device.sh names them)
with rows for `halo --engine cpu-fft` and a GPU engine (cuda-fft-fused or cuda-fft) on
stereo 48 kHz files of several lengths (end_to_end.sh's files: `| 600 s | halo --engine
cpu-fft | 0.174 | ...`). For each length the script takes the difference of the two medians
and fits a line through the differences against the job size (least squares; two lengths
give the line through them), then prints where it crosses zero: extrapolated where the GPU
already wins on the shortest file or the CPU still wins on the longest (say so when you
quote it). Needs python3 alone.
"""
import re
import sys

RATE, CHANNELS = 48000, 2  # end_to_end.sh's files
ROW = re.compile(r"^\|\s*(\d+) s\s*\|\s*halo --engine (\S+)\s*\|\s*([0-9.]+)\s*\|")
GPU_ENGINES = ("cuda-fft-fused", "cuda-fft")


def medians(path):
    """{engine: {samples: median wall s}} of one end_to_end.sh table."""
    found = {}
    with open(path) as table:
        for line in table:
            match = ROW.match(line)
            if match:
                seconds, engine, wall = int(match.group(1)), match.group(2), float(match.group(3))
                found.setdefault(engine, {})[seconds * RATE * CHANNELS] = wall
    return found


def crossing(cpu, gpu):
    """(samples where cpu - gpu = 0 on the fitted line, shared sizes) or (None, sizes)."""
    sizes = sorted(set(cpu) & set(gpu))
    if len(sizes) < 2:
        return None, sizes
    xs = [float(n) for n in sizes]
    ds = [cpu[n] - gpu[n] for n in sizes]
    mean_x, mean_d = sum(xs) / len(xs), sum(ds) / len(ds)
    spread = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (d - mean_d) for x, d in zip(xs, ds)) / spread
    if slope <= 0:  # the CPU's lead does not shrink with the job: no crossing ahead
        return None, sizes
    return mean_x - mean_d / slope, sizes


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for path in paths:
        taps = re.search(r"_(\d+)\.md$", path)
        found = medians(path)
        gpu_engine = next((e for e in GPU_ENGINES if e in found), None)
        if not taps or "cpu-fft" not in found or gpu_engine is None:
            print(f"{path}: needs cpu-fft and {' or '.join(GPU_ENGINES)} rows, and a name ending in _TAPS.md")
            continue
        cpu, gpu = found["cpu-fft"], found[gpu_engine]
        at, sizes = crossing(cpu, gpu)
        pairs = ", ".join(f"{n:.3g}: {cpu[n]:.3f} / {gpu[n]:.3f}" for n in sizes)
        if at is None:
            verdict = "no crossing: the CPU's lead does not shrink" if len(sizes) >= 2 else "needs two file lengths"
        else:
            note = ""
            if at <= 0:
                verdict = "the GPU wins at any size on this line (it crosses below zero)"
                print(f"{taps.group(1)} taps, cpu-fft / {gpu_engine} s by samples ({pairs}): {verdict}")
                continue
            if at < sizes[0]:
                note = " (extrapolated: the GPU wins on every file)"
            elif at > sizes[-1]:
                note = " (extrapolated: the CPU wins on every file)"
            verdict = f"cross at {at:.2g} samples{note}"
        print(f"{taps.group(1)} taps, cpu-fft / {gpu_engine} s by samples ({pairs}): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
