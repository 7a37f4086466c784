# When does halo print its last line, and when does its process end? What lies between is
# teardown. On the H100 machine a process that started CUDA ends 0.10-0.12 s after its last
# line, and ending it with _exit (no atexit handlers, no static destructors) saves nothing: a
# bare cudaMalloc + cuFFT plan program takes the same 0.1 s with exit or _exit, freed or not,
# so it is the driver's release of the device files, which no user-space exit skips. Three
# runs of the command given:
#   python3 bench/exit_probe.py build/halo filter IN OUT --lowpass 1k --engine cuda-fft
import subprocess, sys, time
for run in range(3):
    t0 = time.monotonic()
    p = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    last = t0; lines = []
    for line in p.stderr:
        last = time.monotonic(); lines.append(line.strip())
    p.wait(); t1 = time.monotonic()
    print(f"run {run}: last line at {last - t0:.3f} s, exit at {t1 - t0:.3f} s: {t1 - last:.3f} s after the last line")
print(lines[-1] if lines else "")
