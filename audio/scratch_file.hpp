#pragma once
#include <string>

namespace halo::audio {

// A scratch file for data halo reads back itself (a pipe spooled to be seekable, --norm's
// first pass): created in $TMPDIR (else /tmp) and unlinked at once, so it is gone with its
// descriptor whatever happens. Returns the descriptor (O_CLOEXEC), or -1 with errno set;
// `directory` gets where it was tried, for the caller's message.
int open_scratch_file(const std::string& prefix, std::string* directory);

// Why no file could be made in `directory` (open_scratch_file, AtomicFile), from the errno, in
// words for a message: ENOENT of a folder that is there (/proc) is its file system making no new
// files, not a missing folder.
std::string why_no_file_in(const std::string& directory, int error);

}  // namespace halo::audio
