#pragma once
#include <stdexcept>
#include <string>

namespace halo::audio {

// Everything audio/ cannot do with a file or stream; the message names the file.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Standard output's reader went away (EPIPE: `halo filter in.wav - | head -c 100`). Its choice,
// not a failure: main ends quietly with 128 + SIGPIPE, as the signal halo ignores would have.
class ReaderGone : public Error {
 public:
  ReaderGone() : Error("standard output: its reader went away") {}
};

}  // namespace halo::audio
