#pragma once
#include <string>

namespace halo::audio {

// Standard input, output and error as halo was started with them. One closed at the start
// (`halo ... >&-`) is put back at once, before halo opens anything, so that no file of halo's
// takes its number: a file opened as descriptor 1 would receive whatever is printed, and IN
// opened there was taken for standard output ("standard output goes to in.wav", a QA pass).
// Input and error go to /dev/null; output to an anonymous file in memory, so that main can tell
// whether anything was printed to it (a closed output that nothing needed is no error: filter
// to a file had exited 1, "standard output: write failed: Bad file descriptor").
void guard_standard_streams() noexcept;

bool closed_at_start(int fd) noexcept;  // 0, 1 or 2

// Whether descriptor `fd` was open when halo started (recorded by guard_standard_streams, for
// descriptors below 1024; any other, or where it never ran, counts as open): a name such as
// /dev/fd/3 or /dev/stdout leads to whatever halo itself opened under that number where the
// shell gave none (a spool of standard input had taken OUT's bytes, a QA pass).
bool open_when_halo_started(int fd) noexcept;

// Bytes printed to a standard output that was closed at the start (0 where it was open).
long long bytes_printed_to_closed_output() noexcept;

// Text for standard output, written at once (fwrite) and its failure's reason kept: a write
// that fails inside stdio leaves errno to whatever runs next, and main, which reports standard
// output's failures once at the end, had said "write failed" with no reason, even for a reader
// that went away (`design | head`, which is no failure at all: exit 141 quietly).
void print_to_standard_output(const std::string& text) noexcept;
// The errno of the first such write that failed; 0 where none did.
int standard_output_error() noexcept;

}  // namespace halo::audio
