#!/usr/bin/python3
# Golden values for `halo ir inspect` (tests/cli/cli_ir_test.cpp), computed with numpy on a
# synthetic room response of known decay: seeded Gaussian noise under an exponential envelope
# that falls 60 dB in T60 = 0.5 s, after 480 frames (10 ms) of silence, at 48 kHz, 1 s long,
# stereo (the second channel 6 dB quieter, peaks below full scale, 240 frames later). Written as float WAV
# (soundfile) with the figures, one "ch key value" a line, computed as ISO 3382-1 says:
# onset = first sample within 20 dB of the peak; Schroeder backward integration from the onset;
# T20 / T30 / EDT = -60 / slope of a least-squares line over -5..-25 / -5..-35 / 0..-10 dB.
# Run from this folder: /usr/bin/python3 make_ir_golden.py
import numpy as np
import soundfile

rate = 48000
t60 = 0.5
frames = rate
rng = np.random.default_rng(20261123)


def channel(delay, gain):
    h = np.zeros(frames)
    n = frames - delay
    t = np.arange(n) / rate
    h[delay:] = gain * rng.standard_normal(n) * np.exp(-3 * np.log(10) * t / t60)  # -60 dB at t60
    return h


h = np.stack([channel(480, 0.1), channel(720, 0.05)], axis=1).astype(np.float32)
soundfile.write("decay_t60_0.5.wav", h, rate, subtype="FLOAT")


def fit(edc, upper, lower):
    below = np.nonzero(edc <= upper)[0]
    above = np.nonzero(edc >= lower)[0]
    first, last = below[0], above[-1]
    i = np.arange(first, last + 1)
    slope, _ = np.polyfit(i / rate, edc[first:last + 1], 1)
    return -60.0 / slope


with open("decay_t60_0.5.txt", "w") as out:
    out.write("# made by make_ir_golden.py: the figures of decay_t60_0.5.wav (T60 %g s by construction)\n" % t60)
    for c in range(h.shape[1]):
        x = h[:, c].astype(np.float64)
        peak_index = int(np.argmax(np.abs(x)))
        peak = np.abs(x[peak_index])
        onset = int(np.nonzero(np.abs(x) >= peak * 10 ** (-20 / 20))[0][0])
        tail = x[onset:] ** 2
        edc = 10 * np.log10(np.cumsum(tail[::-1])[::-1] / np.sum(tail))
        figures = {
            "peak_index": peak_index,
            "peak_dbfs": 20 * np.log10(peak),
            "onset_index": onset,
            "energy": np.sum(x * x),
            "worst_case_gain": np.sum(np.abs(x)),
            "dc_gain": np.sum(x),
            "edt_s": fit(edc, 0, -10),
            "t20_s": fit(edc, -5, -25),
            "t30_s": fit(edc, -5, -35),
        }
        for key, value in figures.items():
            out.write("%d %s %.17g\n" % (c + 1, key, value))
