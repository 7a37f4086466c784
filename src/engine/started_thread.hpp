#pragma once
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "src/engine/error.hpp"

namespace halo {

// A thread started to run `body`, or halo::Error naming what it was for where the system
// refuses one (a process limit, no memory for its stack): std::thread's own std::system_error
// said only "Resource temporarily unavailable".
template <typename Body>
std::thread started_thread(const std::string& purpose, Body&& body) {
  try {
    return std::thread(std::forward<Body>(body));
  } catch (const std::system_error& error) {
    throw Error("cannot start a thread for " + purpose + ": " + error.what());
  }
}

}  // namespace halo
