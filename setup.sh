#!/usr/bin/env bash
# One command from a fresh Debian 12 checkout to a filtered example:
#   installs the packages (apt-get; as root or through sudo), configures, builds into build/,
#   measures FFTW's plans for this machine once (halo wisdom) and filters the bundled speech
#   clip with a 4 kHz low-pass.
# Options: --no-example (CI: install and build only); BUILD_DIR and CMAKE_ARGS from the environment.
set -euo pipefail
cd "$(dirname "$0")"
build=${BUILD_DIR:-build}

# sox: the peer that bench/end_to_end.sh times halo against. clang and its runtime (libFuzzer,
# ASan, UBSan): fuzz/run.sh.
# portaudio19-dev, libsamplerate0-dev: play and live (devices; a file at another rate). jackd2: the
# JACK server (dummy driver) and clients the real-time tests run against; jconvolver: the peer
# bench/realtime_soak.sh measures live against.
# python3-numpy, -scipy, -soundfile and strace: the tests' independent oracles (golden values,
# decoded outputs, system-call counts), run with /usr/bin/python3.
# libyaml-cpp-dev, nlohmann-json3-dev: design's exports (CamillaDSP's YAML, JSON) and the tests
# that parse them.
packages=(build-essential cmake pkg-config libsndfile1-dev libfftw3-dev libcxxopts-dev libgtest-dev sox
  clang libclang-rt-14-dev portaudio19-dev libsamplerate0-dev jackd2 jconvolver
  python3-numpy python3-scipy python3-soundfile strace libyaml-cpp-dev nlohmann-json3-dev)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# CUDA engines build when nvcc is found (also at /usr/local/cuda); without it halo is CPU-only.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"

if [ "${1:-}" != "--no-example" ]; then
  # FFTW's measured plans for cpu-fft's FFTs, once per machine (about 20 s on two cores): later
  # runs plan from this wisdom at once, and its transforms run 20-25 % faster than the estimated
  # plans halo falls back to (README, "Without a GPU"). halo saves it where it reads it
  # (wisdom_path()); the line below only mirrors that path, to skip a machine measured before.
  cache=${XDG_CACHE_HOME:-}
  case $cache in /*) ;; *) cache=$HOME/.cache ;; esac  # a relative XDG_CACHE_HOME is ignored, as halo ignores it
  wisdom=${HALO_FFTW_WISDOM-$cache/halo/fftw-wisdom-float}
  if [ -n "$wisdom" ] && [ ! -s "$wisdom" ]; then
    echo "setup: measuring FFTW's plans for this machine (halo wisdom, once):"
    "$build/halo" wisdom -q || echo "setup: no wisdom saved; halo plans by estimate, as before"
  fi
  echo
  echo "setup: filtering examples/speech-hiss.flac with a 4 kHz low-pass:"
  "$build/halo" info examples/speech-hiss.flac
  "$build/halo" filter examples/speech-hiss.flac "$build/speech-lowpass.flac" --lowpass 4k --taps 255
  "$build/halo" info "$build/speech-lowpass.flac"
  echo "setup: done. Listen: play $build/speech-lowpass.flac   Tests: ctest --test-dir $build --output-on-failure"
fi
