#pragma once
#include <stdexcept>
#include <string>

namespace halo::audio {

// Everything audio/ cannot do with a file or stream; the message names the file.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace halo::audio
