#pragma once
#include <stdexcept>
#include <string>

namespace halo {

// Errors of the engine layer and everything above it (sizes, masks, devices, the pipeline).
// Messages name what is wrong in the library's words (a field, an engine, a limit), never a
// command-line flag: the CLI adds the flag where one applies. CUDA errors derive from it.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace halo
