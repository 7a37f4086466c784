"""(Copied from the shared device notes; mask lengths cut to halo's, fewer cuDNN repeats for long masks.)
GPU peers of halo for FIR filtering, timed with CUDA events in one run.

Usage: python3 peers.py [N] [results.json]

Measures, for N float32 samples and M taps, the median time of:
  copy (bandwidth floor), torch conv1d (cuDNN), torchaudio fftconvolve,
  cupyx.scipy.signal oaconvolve / fftconvolve, and pinned H2D/D2H transfers.
Prints one table row per (peer, taps): ms and Gsamples/s.
"""
import sys, time, json
import torch, torch.nn.functional as F
import torchaudio.functional as taf
import cupy as cp
import cupyx.scipy.signal as cps
import numpy as np

def timeit(fn, reps=20, warm=3):
    for _ in range(warm): fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort(); return ts[len(ts)//2]

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 26
dev = torch.device('cuda')
print('device', torch.cuda.get_device_name(0), 'N', N)
x = torch.randn(N, device=dev)
rows = []
t = timeit(lambda: x.clone())
rows.append(('copy', 0, t))
xh = torch.randn(N).pin_memory(); xd = torch.empty(N, device=dev)
rows.append(('h2d_pinned', 0, timeit(lambda: xd.copy_(xh, non_blocking=True))))
rows.append(('d2h_pinned', 0, timeit(lambda: xh.copy_(xd, non_blocking=True))))
xc = cp.asarray(x)
for M in (15, 63, 255, 1023, 4095, 16383):  # halo's mask lengths (65535 dropped: 4 min of conv1d)
    h = torch.randn(M, device=dev) / M
    w = h.flip(0).view(1, 1, M)
    xx = x.view(1, 1, N)
    try:
        rows.append(('torch_conv1d_cudnn', M, timeit(lambda: F.conv1d(xx, w, padding=M // 2), reps=10 if M < 4095 else 3, warm=3 if M < 4095 else 1)))
    except Exception as ex:
        print('conv1d fail', M, ex)
    rows.append(('torchaudio_fftconvolve', M, timeit(lambda: taf.fftconvolve(x, h), reps=10)))
    hc = cp.asarray(h)
    def oa(): cps.oaconvolve(xc, hc)
    def ff(): cps.fftconvolve(xc, hc)
    rows.append(('cupy_oaconvolve', M, timeit(oa, reps=10)))
    rows.append(('cupy_fftconvolve', M, timeit(ff, reps=10)))
    if M <= 255:
        def dc(): cps.convolve(xc, hc, method='direct')
        rows.append(('cupy_convolve_direct', M, timeit(dc, reps=5)))
print(f"{'peer':28s} {'taps':>6s} {'ms':>9s} {'GS/s':>8s} {'GFLOP/s(direct-eq)':>18s}")
for name, M, ms in rows:
    gs = N / (ms * 1e-3) / 1e9
    print(f"{name:28s} {M:6d} {ms:9.3f} {gs:8.2f} {2*N*M/(ms*1e-3)/1e9:18.0f}")
json.dump([dict(peer=a, taps=b, ms=c, N=N) for a, b, c in rows], open(sys.argv[2] if len(sys.argv) > 2 else '/dev/null', 'w'))
