#pragma once
#include <sys/types.h>

#include <cstddef>
#include <string>

namespace halo::audio {

// Output that never leaves a half-written file under the name the user gave: the one
// implementation of that rule, for sound files (audio::Writer) and mask files alike.
//
// A regular file, or a name not yet taken, is written to an unnamed file in its folder
// (O_TMPFILE), which gets a temporary name ".NAME.halo-XXXXXX" beside it only once complete
// (same directory, so the rename is atomic; NAME shortened where the whole would not fit in a
// file name) and is renamed over the target by commit(); where the file system has no unnamed
// files, the temporary is named from the start. The name is resolved
// first: a symbolic link is written through (the temporary goes beside the file it points
// to, which is what gets replaced; the link stays a link). A file replaced keeps its mode and,
// where allowed (root), its owner and group; a new one gets the mode a plain create gives.
// Anything else that exists (a device such as /dev/null, a FIFO) cannot be renamed over and
// is written directly, and so is a descriptor of halo's named through /proc (/dev/stdout,
// /dev/fd/N) that leads to a file, as `-` is: from where the descriptor stands (`>> log`, or
// `{ echo x; halo IN /dev/stdout; } > log`), after what the file holds.
// Destroyed without commit() (an error, Ctrl-C), the temporary is removed and an existing
// target is left as it was. An empty name is refused, and so are names the file system cannot
// take and a file to replace in an append-only folder (chattr +a), before any work; a new file
// there is linked into place whole by commit(), unnamed until then.
//
// No fsync, for sound and mask files alike: the promise is that a failed or interrupted run
// never leaves a partial file under the target's name, which the rename alone keeps; like
// sox and cp, halo leaves durability across a power cut to the file system (ext4 and xfs
// flush a file renamed over another on their own). An fsync of a long output (1.4 GB for an
// hour of stereo float) would cost more than the whole filtering run.
// The temporaries of every AtomicFile alive, for a signal path that must not wait for the
// program to unwind (a read stalled on a pipe): unlinks each, using only async-signal-safe
// calls (a fixed table of paths; no allocation, no lock). The files are then gone and the
// caller _exit()s; a destructor that runs later finds nothing to remove.
void remove_live_temporaries() noexcept;

// Whether a descriptor is a regular file open for appending (`>> log`): every write lands at its
// end, so a header that libsndfile goes back to complete lands after the samples instead.
bool appends_to_a_file(int fd) noexcept;
// Whether a descriptor is open for reading only (`1< file`, `/dev/fd/0 < b.wav`): no output
// goes through it, which had been found only at the first write ("Bad file descriptor").
bool open_for_reading_only(int fd) noexcept;

// Whether `path` names this process's standard output through /proc (/dev/stdout, /dev/fd/1):
// what a command prints there would land in the file it writes (design's report after the taps
// of `-o /dev/stdout > m.txt`), so it prints to standard error instead, as for `-`.
bool names_standard_output(const std::string& path);
// Whether `path` names any descriptor of this process through /proc (/dev/stdout, /dev/fd/3):
// a name without an extension to choose a format by, as `-` has none.
bool names_a_descriptor(const std::string& path);

// Refuses, before any work, an OUT that names through /proc a descriptor the shell did not give
// halo (/dev/fd/3 without a 3>, /dev/stdout after >&-): it would lead to one of halo's own.
// Throws audio::Error naming OUT.
void check_output_descriptor(const std::string& path);

// Refuses, before any work, an OUT that AtomicFile would refuse when the work is done (a folder
// this user may not write, a read-only file system, a write-protected file, a name too long):
// one is made, its unnamed temporary with it, and dropped. A device, a FIFO, a descriptor
// named through /proc and `-` are left to their writing (opening a FIFO would wait for its
// reader). Throws audio::Error naming OUT.
void check_output_writable(const std::string& path);

class AtomicFile {
 public:
  // Opens the temporary or the target; throws audio::Error naming the target.
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  int fd() const { return fd_; }
  bool direct() const { return temporary_.empty() && !unnamed_; }

  // Writes every byte (retrying short writes and EINTR); throws audio::Error naming the target.
  void write_all(const char* data, std::size_t size);

  // Closes the descriptor, checking the close (a full disk or a quota may surface only there);
  // nothing is renamed yet. For files that go into place together: every one closed, then each
  // committed. Throws audio::Error naming the target.
  void close_checked();

  // close_checked(), then renames the temporary into place. Throws audio::Error naming the
  // target; the temporary is then removed by the destructor.
  void commit();

 private:
  std::string path_;       // the name the user gave (messages name it)
  std::string target_;     // the file it leads to, symbolic links followed: what commit() replaces
  std::string temporary_;  // the temporary's name until commit(); empty when writing directly or unnamed yet
  bool unnamed_ = false;   // an O_TMPFILE file that close_checked() has yet to name
  bool link_at_commit_ = false;  // in an append-only folder: unnamed until commit() links it as the target
  mode_t mode_ = 0;              // the mode the file goes into place with (a replaced file's, or a create's)
  bool replacing_ = false;       // whether a file of the target's name existed
  bool mode_given_ = false;
  void give_mode();
  void name_unnamed();
  int slot_ = -1;          // its entry in the table remove_live_temporaries() reads; -1 when none
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace halo::audio
