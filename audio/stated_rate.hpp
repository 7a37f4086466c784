#pragma once
#include <sndfile.h>

namespace halo::audio {

// Whether a sound file says its sample rate. libsndfile gives every file one, but a MAT5 file
// whose first variable is not the 1x1 rate it expects there (`save b.mat b` in MATLAB or
// Octave, scipy's savemat of a vector) is read with 44100 Hz that the file never held. False
// only there: every other container's header holds a rate.
bool states_its_rate(SNDFILE* file, const SF_INFO& info);

}  // namespace halo::audio
