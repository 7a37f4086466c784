#!/usr/bin/python3
"""Golden values for tests/filters/design_methods_test.cpp, computed with scipy.signal.

Run with Debian's python, which has numpy and scipy:  /usr/bin/python3 make_design_golden.py
It rewrites, beside itself, one file per case:
  firls_<case>.txt   scipy.signal.firls(taps, bands, desired, weight=, fs=rate), and
                     'solved_by': 'cholesky' where scipy's positive-definite solve took its
                     normal equations, 'lstsq' where it found them singular or ill-conditioned
                     and fell back to LAPACK's least squares (then many masks share the least
                     error, and they differ in the transitions only)
  kaiser_<case>.txt  scipy.signal.firwin(taps, cutoff, window=("kaiser", kaiser_beta(A)), fs=rate)
  remez_<case>.txt   scipy.signal.remez(taps, bands, desired, weight=, fs=rate), and what
                     scipy.signal.freqz measures of it on each band (64 points per tap, at
                     least 8192, edges included): 'ripple_db' (pass bands, peak to peak) and
                     'attenuation_db' (stop bands, -20 log10 of the largest |H|)
Each file: '# key value' lines (bands written as halo's --bands text, LO-HI:GAIN/w=WEIGHT),
then one coefficient a line (%.17g).
"""
import os
import warnings

import numpy as np
import scipy
from scipy import signal
from scipy.linalg import LinAlgError, LinAlgWarning, solve

HERE = os.path.dirname(os.path.abspath(__file__))


def g(x):
    return "%.17g" % x


def bands_text(bands, gains, weights):
    return ", ".join("%s-%s:%s/w=%s" % (g(lo), g(hi), g(d), g(w))
                     for (lo, hi), d, w in zip(bands, gains, weights))


def write(name, header, taps):
    with open(os.path.join(HERE, name), "w") as out:
        out.write("# made by make_design_golden.py with scipy %s, numpy %s\n"
                  % (scipy.__version__, np.__version__))
        for key, value in header:
            out.write("# %s %s\n" % (key, value))
        for tap in taps:
            out.write(g(tap) + "\n")


def measured(h, bands, gains, rate):
    """Worst pass-band ripple and stop-band attenuation of h on dense per-band grids."""
    ripple, attenuation = 0.0, np.inf
    points = max(8192, 64 * len(h))
    for (lo, hi), d in zip(bands, gains):
        _, H = signal.freqz(h, worN=np.linspace(lo, hi, points), fs=rate)
        m = np.abs(H)
        if d > 0:
            ripple = max(ripple, 20 * np.log10(m.max() / m.min()))
        else:
            attenuation = min(attenuation, -20 * np.log10(m.max()))
    return ripple, attenuation


# (case, taps, rate, [(lo, hi)...], gains, weights)
FIRLS = [
    ("lowpass_101", 101, 48000, [(0, 5500), (6500, 24000)], [1, 0], [1, 1]),
    ("lowpass_weighted_201", 201, 44100, [(0, 3000), (3600, 22050)], [1, 0], [1, 20]),
    ("bandpass_151", 151, 48000, [(0, 800), (1200, 4000), (4800, 24000)], [0, 1, 0], [3, 1, 3]),
    ("highpass_63", 63, 8000, [(0, 700), (1000, 4000)], [0, 1], [1, 1]),
    ("multiband_301", 301, 48000, [(0, 2000), (2500, 6000), (7000, 12000), (13000, 24000)],
     [1, 0, 0.5, 0], [1, 10, 1, 10]),
    # Longer than its bands need (they are met to 1e-7 from about 500 taps): singular normal
    # equations, solved by scipy's fallback.
    ("redundant_801", 801, 48000, [(0, 1000), (2000, 6000), (7000, 24000)], [1, 0, 1], [1, 5, 1]),
]

# (case, band, cutoff, taps, rate, attenuation)
KAISER = [
    ("lowpass_101_60dB", "lowpass", 6000, 101, 48000, 60),
    ("highpass_255_80dB", "highpass", 300, 255, 44100, 80),
    ("bandpass_128_45dB", "bandpass", [1000, 5000], 128, 48000, 45),
    ("bandstop_201_30dB", "bandstop", [2000, 3000], 201, 16000, 30),
    ("lowpass_63_20dB", "lowpass", 1000, 63, 8000, 20),
]

REMEZ = [
    ("lowpass_101", 101, 48000, [(0, 5500), (6500, 24000)], [1, 0], [1, 1]),
    ("lowpass_even_100", 100, 48000, [(0, 5500), (6500, 24000)], [1, 0], [1, 1]),
    ("lowpass_weighted_151", 151, 44100, [(0, 4000), (4500, 22050)], [1, 0], [1, 50]),
    ("highpass_201", 201, 48000, [(0, 300), (500, 24000)], [0, 1], [10, 1]),
    ("bandpass_255", 255, 48000, [(0, 900), (1200, 3000), (3400, 24000)], [0, 1, 0], [5, 1, 5]),
    ("multiband_301", 301, 48000, [(0, 2000), (2500, 6000), (7000, 12000), (13000, 24000)],
     [1, 0, 0.5, 0], [1, 10, 1, 10]),
    # A start from evenly spread extremals levels rounding noise here (3e-17); scipy's default
    # 25 iterations stop short of equiripple (pass-band error 3.5 times the stop band's), its
    # 100 reach it.
    ("bandstop_255", 255, 48000, [(0, 1000), (2000, 6000), (7000, 24000)], [1, 0, 1], [1, 5, 1]),
    # Weighted for 60 dB and 0.01 dB at once: the exchange climbs slowly (|delta| up by 1e-4 of
    # itself a step for thirty steps) before it converges at the forty-third.
    ("bandpass_weighted_348", 348, 96000, [(0, 6081.5), (7041.5, 18991.3), (19951.3, 48000)], [0, 1, 0],
     [0.5756, 1, 0.5756]),
    ("lowpass_4097", 4097, 48000, [(0, 4776), (4824, 24000)], [1, 0], [1, 1]),
    # Type II at 4096 taps. scipy converges here; with a 100 Hz or 1 kHz transition it does not
    # ("Failure to converge"), so those lengths are checked by their measured response alone.
    ("lowpass_even_4096", 4096, 48000, [(0, 4776), (4824, 24000)], [1, 0], [1, 1]),
]



def firls_solved_by(taps, bands, gains, weights, rate):
    """Which solve scipy.signal.firls takes (scipy 1.10's test, repeated on its own Q): its
    normal equations built as firls builds them for piecewise-constant bands."""
    m = (taps - 1) // 2
    n = np.arange(m + 1)
    q_index = n[:, np.newaxis] + n[np.newaxis, :], np.abs(n[:, np.newaxis] - n[np.newaxis, :])
    edges = np.array(bands, dtype=float) / (rate / 2)
    q = np.zeros(2 * m + 1)
    for (f1, f2), w in zip(edges, weights):
        k = np.arange(2 * m + 1)
        q += w * (f2 * np.sinc(f2 * k) - f1 * np.sinc(f1 * k))
    big_q = q[q_index[0]] + q[q_index[1]]
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            solve(big_q, np.ones(m + 1), assume_a="pos", check_finite=False)
        if any(c.category == LinAlgWarning for c in caught):
            return "lstsq"
    except LinAlgError:
        return "lstsq"
    return "cholesky"


for case, taps, rate, bands, gains, weights in FIRLS:
    h = signal.firls(taps, np.array(bands, dtype=float).flatten(),
                     np.repeat(np.array(gains, dtype=float), 2), weight=weights, fs=rate)
    write("firls_%s.txt" % case, [("taps", taps), ("rate_hz", g(rate)),
                                  ("bands", bands_text(bands, gains, weights)),
                                  ("solved_by", firls_solved_by(taps, bands, gains, weights, rate))], h)

for case, band, cutoff, taps, rate, attenuation in KAISER:
    beta = signal.kaiser_beta(attenuation)
    pass_zero = band in ("lowpass", "bandstop")
    h = signal.firwin(taps, cutoff, window=("kaiser", beta), pass_zero=pass_zero, fs=rate)
    edges = cutoff if isinstance(cutoff, list) else [cutoff, 0]
    write("kaiser_%s.txt" % case, [("band", band), ("low_hz", g(edges[0])), ("high_hz", g(edges[1])),
                                   ("taps", taps), ("rate_hz", g(rate)),
                                   ("attenuation_db", g(attenuation)), ("kaiser_beta", g(beta))], h)

for case, taps, rate, bands, gains, weights in REMEZ:
    h = signal.remez(taps, np.array(bands, dtype=float).flatten(), gains, weight=weights, fs=rate,
                     maxiter=100)
    ripple, attenuation = measured(h, bands, gains, rate)
    write("remez_%s.txt" % case, [("taps", taps), ("rate_hz", g(rate)),
                                  ("bands", bands_text(bands, gains, weights)),
                                  ("ripple_db", g(ripple)), ("attenuation_db", g(attenuation))], h)
