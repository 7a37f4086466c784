#!/usr/bin/python3
"""MAT-files as MATLAB, Octave and scipy users save them, for tests/cli/cli_mat_file_test.cpp.

Run with Debian's python3 (numpy, scipy): /usr/bin/python3 make_mat_files.py
- vector_no_rate.mat: scipy.io.savemat({'b': h}), what `save b.mat b` gives: no rate variable.
- rate_samples_more.mat: the layout libsndfile reads (a 1x1 rate, then the samples, a row a
  channel) with one more variable saved after them.
- taps.txt: h, one tap a line (%.9g), the taps both files hold.
"""
import numpy as np
import scipy.io as sio
import scipy.signal as ss

h = ss.firwin(31, 3000, fs=48000)
sio.savemat('vector_no_rate.mat', {'b': h})
sio.savemat('rate_samples_more.mat',
            {'samplerate': np.array([[48000.0]]), 'wavedata': h[None, :], 'notes': np.full(7, 1000.0)})
np.savetxt('taps.txt', h, fmt='%.9g')
