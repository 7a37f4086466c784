#!/usr/bin/env bash
# How examples/speech-hiss.flac was made: espeak-ng speech with white-noise hiss mixed in,
# 22050 Hz mono pcm16, so a low-pass has something audible to remove.
# Needs: apt-get install espeak-ng sox
set -euo pipefail
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
espeak-ng -v en-us -s 150 -w "$work/speech.wav" "halo filters audio with F I R masks on the GPU. \
Every sample is exactly what the convolution says, whatever the chunk size. This clip is bundled \
with halo so that you can hear a low pass filter take the hiss out of it."
sox "$work/speech.wav" -r 22050 -b 16 -c 1 "$work/speech22.wav"
sox -n -r 22050 -c 1 -b 16 "$work/hiss.wav" synth "$(soxi -D "$work/speech22.wav")" whitenoise vol 0.04
sox -m "$work/speech22.wav" "$work/hiss.wav" -b 16 "$(dirname "$0")/speech-hiss.flac"
