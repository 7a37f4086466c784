#pragma once
#include <string>

namespace halo::audio {

// A scratch file for data halo reads back itself (a pipe spooled to be seekable, --norm's
// first pass): created in $TMPDIR (else /tmp) and unlinked at once, so it is gone with its
// descriptor whatever happens. Returns the descriptor (O_CLOEXEC), or -1 with errno set;
// `directory` gets where it was tried, for the caller's message.
int open_scratch_file(const std::string& prefix, std::string* directory);

}  // namespace halo::audio
