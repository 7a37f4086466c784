#pragma once
#include <string>

namespace halo::audio {

// Whether writing `output` would replace the regular file `input` is read from, whatever the
// names (symbolic and hard links, "./"): "-" stands for standard input as an input and for
// standard output as an output, so `halo filter - in.wav < in.wav` names one file twice.
// Pipes, terminals and /dev/null hold nothing to lose, and a name that does not exist yet is
// no input.
bool is_same_file(const std::string& input, const std::string& output);

// Throws Error ("OUT is the input file: choose another output (halo never overwrites its
// input)") where is_same_file: every command that reads a file and writes one asks before it
// opens its output, for the audio and for the masks and impulse responses it reads. `role`
// names what `input` is ("the mask file (--mask)"): OUT the mask had been called "the input
// file", sending the user to look at IN.
void refuse_overwriting_input(const std::string& input, const std::string& output,
                              const std::string& role = "the input file");

}  // namespace halo::audio
