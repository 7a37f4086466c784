#!/usr/bin/python3
"""Golden data for tests/cli_filter_test.cpp: inputs, masks and expected outputs of
`halo filter`, computed with numpy.convolve and scipy.signal in float64, independent of halo.

Run with Debian's python, which has numpy, scipy and soundfile:
    /usr/bin/python3 tests/data/make_convolution_golden.py
It rewrites tests/data/convolution/:
  in_*.wav            seeded uniform noise (never zero): mono 48 kHz float, stereo 44.1 kHz
                      float, stereo 8 kHz pcm16, and a 20-frame mono input shorter than the masks
  lowpass63.txt       scipy.signal.firwin(63, 3000, fs=48000) (hamming), one tap a line
  random31.txt/.f32   31 seeded random taps as text and as raw little-endian float32
  cols17.txt          two columns of 17 random taps: one mask per channel
  ir2.wav             a 2-channel, 40-frame float impulse response at 44.1 kHz
  design_*.txt        firwin/kaiserord designs at 48 kHz; the first comment line after the
                      header names the `halo design` arguments that make them
  expected_*.f32      expected OUT samples, interleaved little-endian float32
  cases.txt           one case a line:  EXPECTED INPUT CHANNELS FRAMES -- halo filter arguments
                      ('@name' is a file in this folder)

Semantics, for a mask h of length M and an input of N frames, per channel:
  full   = numpy.convolve(x, h)                      N + M - 1 frames
  same   = full[(M-1)//2 : (M-1)//2 + N]             the default (linear-phase delay removed)
  causal = full[:N]                                  --ir, or --align causal
  --tail runs on to the end of full: full[(M-1)//2:] centred, full itself causal.
Integer inputs are read as libsndfile reads them (pcm16: v / 32768), which soundfile does too.
"""
import os

import numpy as np
import scipy
import soundfile as sf
from scipy import signal

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "convolution")


def path(name):
    return os.path.join(HERE, name)


def noise(rng, frames, channels, scale=0.5):
    x = rng.uniform(-1.0, 1.0, size=(frames, channels))
    x[x == 0] = 0.5
    return (x * scale).astype(np.float32)


SFC_SET_ADD_PEAK_CHUNK = 0x1050  # sndfile.h


def write_sound(name, x, rate, subtype):
    """soundfile.write, without the PEAK chunk whose time stamp would change every run."""
    with sf.SoundFile(path(name), "w", rate, x.shape[1], subtype) as out:
        sf._snd.sf_command(out._file, SFC_SET_ADD_PEAK_CHUNK, sf._ffi.NULL, 0)
        out.write(x)


def write_taps_text(name, columns, comment):
    columns = [np.asarray(c, dtype=np.float32) for c in columns]
    with open(path(name), "w") as out:
        out.write("# made by make_convolution_golden.py with scipy %s, numpy %s\n"
                  % (scipy.__version__, np.__version__))
        out.write("# %s\n" % comment)
        for k in range(len(columns[0])):
            # %.9g round-trips a float32 exactly: the taps halo reads are these float32 values.
            out.write(" ".join("%.9g" % c[k] for c in columns) + "\n")
    return columns


def convolve(x, masks, align, tail):
    """x: (N, C) float array; masks: one float32 array, or one per channel."""
    frames, channels = x.shape
    outputs = []
    for c in range(channels):
        h = np.asarray(masks[c if len(masks) > 1 else 0], dtype=np.float64)
        full = np.convolve(np.asarray(x[:, c], dtype=np.float64), h)
        m = max(len(mask) for mask in masks)  # shorter per-channel masks are zero-padded
        full = np.concatenate([full, np.zeros(frames + m - 1 - len(full))])
        start = (m - 1) // 2 if align == "same" else 0
        stop = len(full) if tail else start + frames
        outputs.append(full[start:stop])
    return np.stack(outputs, axis=1)


def main():
    os.makedirs(HERE, exist_ok=True)
    for name in os.listdir(HERE):
        os.remove(path(name))
    rng = np.random.default_rng(20240601)

    # Inputs. soundfile writes them; reading them back gives exactly what halo's reader sees.
    inputs = {
        "in_mono_48k_float.wav": (noise(rng, 2000, 1), 48000, "FLOAT"),
        "in_stereo_44k_float.wav": (noise(rng, 1500, 2), 44100, "FLOAT"),
        "in_stereo_8k_pcm16.wav": (noise(rng, 1200, 2, 0.4), 8000, "PCM_16"),
        "in_short_48k_float.wav": (noise(rng, 20, 1), 48000, "FLOAT"),
    }
    samples = {}
    for name, (x, rate, subtype) in inputs.items():
        write_sound(name, x, rate, subtype)
        samples[name], _ = sf.read(path(name), dtype="float64", always_2d=True)

    # Masks.
    lowpass63 = write_taps_text("lowpass63.txt", [signal.firwin(63, 3000, fs=48000)],
                                "scipy.signal.firwin(63, 3000, fs=48000), hamming window")[0]
    random31 = write_taps_text("random31.txt", [rng.uniform(-0.3, 0.3, 31)], "31 random taps")[0]
    random31.astype("<f4").tofile(path("random31.f32"))
    cols17 = write_taps_text("cols17.txt", [rng.uniform(-0.3, 0.3, 17), rng.uniform(-0.3, 0.3, 17)],
                             "two columns: one mask per channel")
    decay = np.exp(-np.arange(40) / 8.0)
    ir2 = np.stack([rng.uniform(-0.5, 0.5, 40) * decay, rng.uniform(-0.5, 0.5, 40) * decay], axis=1)
    ir2 = ir2.astype(np.float32)
    write_sound("ir2.wav", ir2, 44100, "FLOAT")
    ir2 = [ir2[:, 0], ir2[:, 1]]

    # Designs halo makes itself, from the same specs (scipy.signal.firwin / kaiserord).
    designs = {
        "design_lowpass": (["--lowpass", "3000", "--taps", "63"], signal.firwin(63, 3000, fs=48000)),
        "design_highpass": (["--highpass", "5000", "--taps", "63", "--window", "hann"],
                            signal.firwin(63, 5000, pass_zero=False, window="hann", fs=48000)),
        "design_bandpass": (["--bandpass", "1000:4000", "--taps", "64", "--window", "blackman"],
                            signal.firwin(64, [1000, 4000], pass_zero=False, window="blackman", fs=48000)),
        "design_bandstop": (["--bandstop", "2000:6000", "--taps", "101", "--window", "kaiser:5"],
                            signal.firwin(101, [2000, 6000], window=("kaiser", 5.0), fs=48000)),
    }
    numtaps, beta = signal.kaiserord(60, 1000 / (0.5 * 48000))
    designs["design_kaiserord"] = (["--lowpass", "4000", "--transition", "1000", "--attenuation", "60"],
                                   signal.firwin(numtaps, 4000, window=("kaiser", beta), fs=48000))

    # The designs' taps, for `halo design` (float32, as halo writes them).
    for name, (args, taps) in designs.items():
        write_taps_text(name + ".txt", [taps], "halo design " + " ".join(args) + " --rate 48000")

    cases = []

    def case(expected, input_name, masks, align, tail, args):
        x = samples[input_name]
        y = convolve(x, masks, align, tail)
        y.astype("<f4").tofile(path(expected))
        cases.append("%s %s %d %d -- %s" % (expected, input_name, y.shape[1], y.shape[0], " ".join(args)))

    mono, stereo, pcm16, short = ("in_mono_48k_float.wav", "in_stereo_44k_float.wav",
                                  "in_stereo_8k_pcm16.wav", "in_short_48k_float.wav")
    case("expected_mono_lowpass63_same.f32", mono, [lowpass63], "same", False, ["--mask", "@lowpass63.txt"])
    case("expected_mono_lowpass63_causal.f32", mono, [lowpass63], "causal", False,
         ["--mask", "@lowpass63.txt", "--align", "causal"])
    case("expected_mono_lowpass63_same_tail.f32", mono, [lowpass63], "same", True,
         ["--mask", "@lowpass63.txt", "--tail"])
    case("expected_mono_lowpass63_causal_tail.f32", mono, [lowpass63], "causal", True,
         ["--mask", "@lowpass63.txt", "--align", "causal", "--tail"])
    case("expected_mono_random31_f32.f32", mono, [random31], "same", False, ["--mask", "@random31.f32"])
    for name, (args, taps) in designs.items():
        # The taps halo uses are float32: round scipy's design the same way.
        case("expected_mono_%s.f32" % name, mono, [np.float32(taps)], "same", False, args)
    case("expected_stereo_random31_same.f32", stereo, [random31], "same", False, ["--mask", "@random31.txt"])
    case("expected_stereo_cols17_same.f32", stereo, cols17, "same", False, ["--mask", "@cols17.txt"])
    case("expected_stereo_ir2_causal.f32", stereo, ir2, "causal", False, ["--ir", "@ir2.wav"])
    case("expected_stereo_ir2_causal_tail.f32", stereo, ir2, "causal", True, ["--ir", "@ir2.wav", "--tail"])
    case("expected_stereo_ir2_same.f32", stereo, ir2, "same", False, ["--ir", "@ir2.wav", "--align", "same"])
    case("expected_stereo_ir2_same_tail.f32", stereo, ir2, "same", True,
         ["--ir", "@ir2.wav", "--align", "same", "--tail"])
    # pcm16 in, pcm16 out: the test scales by 32768, rounds and clips (within 1 LSB).
    case("expected_pcm16_lowpass63_same.f32", pcm16, [lowpass63], "same", False, ["--mask", "@lowpass63.txt"])
    case("expected_pcm16_ir2_causal_tail.f32", pcm16, ir2, "causal", True,
         ["--ir", "@ir2.wav", "--ir-rate", "keep", "--tail", "--subtype", "float"])  # 44.1 kHz taps at 8 kHz, as they are
    # A mask longer than the input: still just convolution.
    case("expected_short_lowpass63_same.f32", short, [lowpass63], "same", False, ["--mask", "@lowpass63.txt"])
    case("expected_short_lowpass63_same_tail.f32", short, [lowpass63], "same", True,
         ["--mask", "@lowpass63.txt", "--tail"])
    case("expected_short_lowpass63_causal_tail.f32", short, [lowpass63], "causal", True,
         ["--mask", "@lowpass63.txt", "--align", "causal", "--tail"])

    with open(path("cases.txt"), "w") as out:
        out.write("# made by ../make_convolution_golden.py with scipy %s, numpy %s, soundfile %s\n"
                  % (scipy.__version__, np.__version__, sf.__version__))
        out.write("# EXPECTED INPUT CHANNELS FRAMES -- halo filter arguments ('@name': a file here)\n")
        for line in cases:
            out.write(line + "\n")


if __name__ == "__main__":
    main()
