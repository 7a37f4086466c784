#include "audio/streamed_output.hpp"

#include <atomic>

namespace halo::audio {
namespace {

std::atomic<bool> streamed{false};
static_assert(std::atomic<bool>::is_always_lock_free, "read from a signal handler");

}  // namespace

void mark_output_streamed() noexcept { streamed.store(true); }
bool output_streamed() noexcept { return streamed.load(); }

const char* failed_output_note() noexcept {
  return output_streamed() ? "the output streamed so far is incomplete" : "nothing was written";
}

}  // namespace halo::audio
