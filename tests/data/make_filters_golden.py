#!/usr/bin/python3
"""Golden values for tests/filters_design_test.cpp, computed with scipy.signal.

Run with Debian's python, which has numpy and scipy:  /usr/bin/python3 make_filters_golden.py
It rewrites, beside itself:
  firwin_<band>_<window>_<rate>_<taps>.txt   a '#' header with the spec, then one coefficient
                                             a line (%.17g) from scipy.signal.firwin
  firwin_<band>_kaiserord_<rate>_<A>dB.txt   the same for a length/beta from kaiserord
  kaiserord.txt                              attenuation_db transition_hz rate_hz -> numtaps beta
  windows_<name>.txt                         per line: N, then get_window(name, N, fftbins=False)
  freqz_<case>.txt                           'h <tap>' lines (float32 values), then
                                             'r <freq_hz> <|H|> <unwrapped phase> <group delay>'
"""
import os

import numpy as np
import scipy
from scipy import signal

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, header, lines):
    with open(os.path.join(HERE, name), "w") as out:
        out.write("# made by make_filters_golden.py with scipy %s, numpy %s\n"
                  % (scipy.__version__, np.__version__))
        for key, value in header:
            out.write("# %s %s\n" % (key, value))
        for line in lines:
            out.write(line + "\n")


def g(x):
    return "%.17g" % x


def scipy_window(name, beta):
    return ("kaiser", beta) if name == "kaiser" else {"rect": "boxcar"}.get(name, name)


def cutoff_of(band, low, high):
    return [low, high] if band in ("bandpass", "bandstop") else low


def spec_header(band, low, high, rate, taps, window, beta, transition=0, attenuation=0):
    return [("band", band), ("low_hz", g(low)), ("high_hz", g(high)), ("rate_hz", g(rate)),
            ("taps", taps), ("window", window), ("kaiser_beta", g(beta)),
            ("transition_hz", g(transition)), ("attenuation_db", g(attenuation))]


# Edges as fractions of the rate, so every case is valid at every rate.
EDGES = {
    "lowpass": (0.1, 0.0),
    "highpass": (0.3, 0.0),
    "bandpass": (0.05, 0.2),
    "bandstop": (0.12, 0.31),
}
RATES = [8000, 44100, 48000, 96000]
WINDOWS = [("hann", 0), ("hamming", 0), ("blackman", 0), ("kaiser", 0.5), ("kaiser", 5.0),
           ("kaiser", 8.6), ("kaiser", 14.0), ("rect", 0)]


def firwin_cases():
    cases = []
    for w, (window, beta) in enumerate(WINDOWS):
        for b, band in enumerate(EDGES):
            rate = RATES[(w + b) % len(RATES)]
            odd = [1, 7, 31, 101, 255][(w + 2 * b) % 5]
            cases.append((band, rate, odd, window, beta))
            if band in ("lowpass", "bandpass"):  # even lengths have a zero at Nyquist
                even = [2, 8, 64, 128][(w + b) % 4]
                if window == "hann" and even == 2:
                    even = 4  # a 2-tap hann window is all zeros: firwin divides 0 by 0
                cases.append((band, rate, even, window, beta))
    for band in EDGES:
        cases.append((band, 48000, 1, "hamming", 0))  # one tap: firwin's scale only
    return cases


def write_firwin():
    for band, rate, taps, window, beta in firwin_cases():
        low, high = (f * rate for f in EDGES[band])
        h = signal.firwin(taps, cutoff_of(band, low, high), window=scipy_window(window, beta),
                          pass_zero=band, scale=True, fs=rate)
        name = "firwin_%s_%s%s_%d_%d.txt" % (band, window, "%g" % beta if window == "kaiser" else "",
                                              rate, taps)
        write(name, spec_header(band, low, high, rate, taps, window, beta), [g(x) for x in h])


def write_firwin_kaiserord():
    for band in EDGES:
        for rate, attenuation, transition_fraction in [(48000, 60, 0.02), (44100, 80, 0.03),
                                                       (8000, 40, 0.05)]:
            low, high = (f * rate for f in EDGES[band])
            transition = transition_fraction * rate
            numtaps, beta = signal.kaiserord(attenuation, transition / (0.5 * rate))
            if band in ("highpass", "bandstop"):
                numtaps |= 1  # what a scipy user does: a Nyquist pass band needs odd length
            h = signal.firwin(numtaps, cutoff_of(band, low, high), window=("kaiser", beta),
                              pass_zero=band, scale=True, fs=rate)
            header = spec_header(band, low, high, rate, 0, "kaiser", beta, transition, attenuation)
            write("firwin_%s_kaiserord_%d_%gdB.txt" % (band, rate, attenuation), header,
                  [g(x) for x in h])


def write_kaiserord():
    lines = []
    for attenuation in [8, 10, 20.5, 21, 21.5, 30, 40, 50, 50.5, 60, 72.3, 80, 100, 120, 150]:
        for rate in RATES:
            for transition in [10, 50, 123.4, 500, 1000, 0.2 * rate]:
                numtaps, beta = signal.kaiserord(attenuation, transition / (0.5 * rate))
                lines.append("%s %s %s %d %s" % (g(attenuation), g(transition), g(rate), numtaps, g(beta)))
    write("kaiserord.txt", [("columns", "attenuation_db transition_hz rate_hz numtaps beta")], lines)


def write_windows():
    lengths = [1, 2, 3, 4, 7, 16, 51, 256]
    for window, beta in WINDOWS:
        lines = []
        for n in lengths:
            w = signal.get_window(scipy_window(window, beta), n, fftbins=False)
            lines.append(" ".join([str(n)] + [g(x) for x in w]))
        name = "windows_%s%s.txt" % (window, "%g" % beta if window == "kaiser" else "")
        write(name, [("window", window), ("kaiser_beta", g(beta))], lines)


def write_freqz():
    points = 257
    cases = {
        "lowpass_hamming_63_48000": (48000, signal.firwin(63, 6000, fs=48000)),
        "bandpass_kaiser_101_44100": (44100, signal.firwin(101, [2000, 9000], window=("kaiser", 8.6),
                                                           pass_zero="bandpass", fs=44100)),
        # Not linear phase: a group delay that changes with frequency. Rate unknown (0):
        # frequencies in cycles per sample.
        "minimum_phase_5": (0, np.array([0.9, -0.4, 0.25, 0.1, -0.05])),
        # Longer than the grid's period (2 * (points - 1) = 512): response() folds the taps
        # onto it before its FFT, which this case checks.
        "lowpass_hamming_1001_48000": (48000, signal.firwin(1001, 3000, fs=48000)),
    }
    for name, (rate, h) in cases.items():
        h = h.astype(np.float32).astype(np.float64)  # a Mask holds float taps
        fs = rate if rate > 0 else 1.0
        freq = np.linspace(0, fs / 2, points)
        _, response = signal.freqz(h, worN=freq, fs=fs)
        _, delay = signal.group_delay((h, [1.0]), w=freq, fs=fs)
        phase = np.unwrap(np.angle(response))
        lines = ["h %.9g" % x for x in h]
        lines += ["r %s %s %s %s" % (g(f), g(abs(r)), g(p), g(d))
                  for f, r, p, d in zip(freq, response, phase, delay)]
        write("freqz_%s.txt" % name, [("rate_hz", g(rate)), ("points", points)], lines)


if __name__ == "__main__":
    for stale in os.listdir(HERE):
        if stale.startswith(("firwin_", "windows_", "freqz_")) or stale == "kaiserord.txt":
            os.remove(os.path.join(HERE, stale))
    write_firwin()
    write_firwin_kaiserord()
    write_kaiserord()
    write_windows()
    write_freqz()
