#pragma once
#include <sndfile.h>

#include <cstdint>
#include <string>

namespace halo::audio {

// What a sound file's header says of its length, against what libsndfile will read from it.
// libsndfile trims a data chunk that runs past the end of a file to what is there and says so,
// if at all, only in its log, so a truncated file looks whole; for SDS it does the opposite and
// counts frames that are not there (reading them gives the last block again).
struct HeaderLength {
  std::int64_t declared = -1;  // the frames the header declares; -1 where it declares none
  std::int64_t present = -1;   // the frames really there where libsndfile counts more; -1 else
};

// For a seekable file (`path`: its name, or empty; NIST's count is read from its text header,
// which libsndfile does not log). A pipe writer's stand-in for "unknown" (stand_in_size) is no
// count: what is there is.
HeaderLength header_length(SNDFILE* file, const SF_INFO& info, const std::string& path);

// On a pipe: what a WAV or AIFF header declares (libsndfile's info.frames, from the data chunk's
// size or the COMM count), where that is a length, not a stand-in; -1 else.
std::int64_t streamed_header_frames(const SF_INFO& info);

}  // namespace halo::audio
