#pragma once
#include <stdexcept>
#include <string>

namespace halo::filters {

// Everything filters/ rejects: a spec out of range, a mask file that cannot be used.
// The message names the option or file and says what is wrong; the CLI prints it as is.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace halo::filters
