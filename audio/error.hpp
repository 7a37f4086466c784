#pragma once
#include <cstdio>
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

// A token as a message may quote it: at most `shown` characters, bytes that are not printable
// ASCII as \xNN, so that a binary file never reaches the terminal raw.
inline std::string excerpt(const std::string& token, std::size_t shown = 24) {
  std::string out;
  for (std::size_t i = 0; i < token.size() && i < shown; ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", c);
      out += escaped;
    }
  }
  if (token.size() > shown) out += "...";
  return out;
}

}  // namespace halo::audio
