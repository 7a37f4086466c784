#!/usr/bin/python3
"""Checks a recording of `halo live` against the float64 convolution of what it was fed.

    /usr/bin/python3 bench/live_record_check.py REC.wav SOURCE.wav IR.wav LATENCY PERIOD

live is fed SOURCE.wav, looped, by `halo play --mask unit.txt --loop` (a unit mask passes every
sample unchanged). REC.wav holds four channels recorded by jack_rec: play's two outputs (what
went into live) and live's two outputs, in the same JACK cycles.

On this dummy server the recorder's view of the graph slips whenever the host is late: periods
of play's output appear twice or not at all in the recording (150 slips in 30 s on the 2-core
development VM), so the recorded input is not what live saw around them, and with a 65535-tap
IR no stretch of the recording is long enough to convolve. So each recorded period is located
in the looped source (its first samples are exact), and live's output in that period is
compared with the float64 convolution (scipy.signal.oaconvolve) of the looped source, at the
delay live reports (or one period more, where JACK runs live a cycle after the recorder).
Periods within an IR's length of the recording's start are skipped (their input is older than
the recording). Prints the frames compared, the periods whose output differs by more than 1e-4
of the output's RMS, and the largest error in the others. Exit 0 whatever it finds: the
numbers are the result.
"""
import sys

import numpy as np
import soundfile
from scipy.signal import oaconvolve


def main():
    rec_path, source_path, ir_path = sys.argv[1:4]
    latency, period = int(sys.argv[4]), int(sys.argv[5])
    rec, rate = soundfile.read(rec_path, dtype="float32", always_2d=True)
    source, _ = soundfile.read(source_path, dtype="float32", always_2d=True)
    ir, _ = soundfile.read(ir_path, dtype="float64", always_2d=True)
    taps, length = ir.shape[0], source.shape[0]
    periods = rec.shape[0] // period

    # Where each recorded period of play's output starts in the source (-1: not found, e.g. a
    # period of silence where play itself ran short), from its first four samples.
    first_index = {}
    for i in range(length - 4):
        first_index.setdefault(source[i:i + 4, 0].tobytes(), i)
    where = np.array([first_index.get(rec[p * period:p * period + 4, 0].tobytes(), -1) for p in range(periods)])
    found = where >= 0
    # Unwrapped positions in the looped source: steps of 0 (a period recorded twice) and 2
    # periods (one not recorded) are the recorder's slips; live's input runs on regardless.
    unwrapped = np.full(periods, -1, dtype=np.int64)
    last = None
    for p in range(periods):
        if not found[p]:
            continue
        unwrapped[p] = where[p] if last is None else unwrapped[last] + (where[p] - where[last]) % length
        last = p
    slips = int(np.sum(np.diff(unwrapped[found]) != period))

    loops = int(unwrapped.max() + period + length - 1) // length + 1
    looped = np.tile(source.astype(np.float64), (loops, 1))
    expected = np.stack([oaconvolve(looped[:, c], ir[:, c % ir.shape[1]])[: looped.shape[0]] for c in range(2)], axis=1)
    rms = float(np.sqrt(np.mean(expected[taps:] ** 2)))

    usable = [p for p in range(periods) if found[p] and unwrapped[p] - unwrapped[found.argmax()] >= taps + 2 * period]

    def error(p, delay):
        start = unwrapped[p] - delay
        want = expected[start:start + period]
        got = rec[p * period:(p + 1) * period, 2:4]
        return float(np.max(np.abs(want - got))) / rms

    middle = usable[len(usable) // 2:len(usable) // 2 + 64]
    delays = [latency, latency + period]
    delay = min(delays, key=lambda d: sum(error(p, d) for p in middle))
    errors = np.array([min(error(p, d) for d in delays) for p in usable])
    bad = errors > 1e-4
    print(f"recording: {rec.shape[0]} frames ({rec.shape[0] / rate:.1f} s); IR {taps} taps; source {length} frames, looped")
    print(f"recorder slips (periods recorded twice or not at all): {slips}; periods not in the source: {int(np.sum(~found))}")
    print(f"compared: {len(usable)} periods ({len(usable) * period / rate:.1f} s) at delay {delay} frames "
          f"(reported latency {latency}; a period more allowed); output RMS {rms:.4g}")
    print(f"periods differing by more than 1e-4 of the RMS: {int(np.sum(bad))}")
    # jack_rec's 32-bit PCM turns a sample past full scale into -1: such periods differ for the
    # recorder's sake, not live's, and say the IR is too loud for this check.
    print(f"recorded output samples at full scale (the recorder's PCM wraps past it): {int(np.sum(np.abs(rec[:, 2:4]) >= 1))}")
    print(f"largest error in the other periods: {float(errors[~bad].max()) if np.any(~bad) else float('nan'):.3g} of the RMS")


if __name__ == "__main__":
    main()
