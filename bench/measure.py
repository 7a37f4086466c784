# One timed run for the end-to-end scripts (end_to_end.sh, cpu_end_to_end.sh,
# cpu_threads_probe.sh): runs COMMAND with its standard output discarded and its standard
# error into ERR_FILE, and prints "wall_s max_rss_kib" (the wall time of the whole process and
# the largest resident set of the children so far). Fails when the command fails.
#   python3 bench/measure.py ERR_FILE COMMAND [ARGS...]
import resource
import subprocess
import sys
import time

start = time.monotonic()
with open(sys.argv[1], 'w') as err:
    subprocess.run(sys.argv[2:], check=True, stdout=subprocess.DEVNULL, stderr=err)
print(f"{time.monotonic() - start:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
