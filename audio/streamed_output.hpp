#pragma once

namespace halo::audio {

// Whether an output has begun to go where it cannot be taken back (standard output, a pipe, a
// FIFO): a run that fails after that has sent part of its result, so its message says the
// output is incomplete rather than "nothing was written" (true of a file, whose temporary is
// removed). Set by the Writer when it opens such an output; lock-free, read on the signal path.
void mark_output_streamed() noexcept;
bool output_streamed() noexcept;

// What a failed or interrupted run leaves behind, for its message: "nothing was written", or
// that the streamed output is incomplete. A string literal: safe on the signal path.
const char* failed_output_note() noexcept;

}  // namespace halo::audio
