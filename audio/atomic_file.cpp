#include "audio/atomic_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

#include "audio/error.hpp"
#include "audio/standard_streams.hpp"
#include "audio/scratch_file.hpp"

namespace halo::audio {
namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The file a name leads to: symbolic links followed, dangling ones too (writing through a link
// to a name not yet taken creates that name, as sox and the shell's > do). Gives up after 40
// links, as the kernel does (ELOOP).
std::string resolve_links(const std::string& path) {
  std::string name = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat status {};
    if (lstat(name.c_str(), &status) != 0 || !S_ISLNK(status.st_mode)) return name;
    std::string link(static_cast<std::size_t>(PATH_MAX), '\0');
    const ssize_t size = readlink(name.c_str(), link.data(), link.size());
    if (size < 0) return name;
    link.resize(static_cast<std::size_t>(size));
    name = link.front() == '/' ? link : directory_of(name) + "/" + link;
  }
  errno = ELOOP;
  throw Error(path + ": " + std::strerror(errno));
}

// The process umask, read once without changing it: umask() can only be read by setting it,
// which races with any other thread creating a file meanwhile.
mode_t process_umask() {
  static const mode_t mask = [] {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
      if (key == "Umask:") {
        unsigned value = 022;
        if (status >> std::oct >> value) return static_cast<mode_t>(value & 0777);
        break;
      }
    }
    return static_cast<mode_t>(022);
  }();
  return mask;
}

// ".NAME.halo-XXXXXX" beside the target, NAME cut so that the whole stays a valid file name.
std::string temporary_pattern(const std::string& path) {
  const std::string prefix = ".";
  const std::string suffix = ".halo-XXXXXX";
  std::string name = base_name(path);
  const std::size_t room = NAME_MAX - prefix.size() - suffix.size();
  if (name.size() > room) name.resize(room);
  return directory_of(path) + "/" + prefix + name + suffix;
}

std::string reason() { return std::strerror(errno); }

// The table remove_live_temporaries() reads: fixed storage and lock-free states, so that a
// signal handler may read it. A slot is claimed (free -> claimed), its path copied, then
// published (-> live); forgetting frees it.
enum SlotState : int { slot_free, slot_claimed, slot_live };
struct LiveTemporary {
  std::atomic<int> state{slot_free};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "read from a signal handler");
constexpr int max_live_temporaries = 16;  // halo has one or two output files open at a time
LiveTemporary live_temporaries[max_live_temporaries];

// -1 when the table is full or the path too long: that temporary is then still removed by
// its AtomicFile, only not by the signal path.
int register_temporary(const std::string& path) noexcept {
  if (path.size() >= PATH_MAX) return -1;
  for (int slot = 0; slot < max_live_temporaries; ++slot) {
    int expected = slot_free;
    if (!live_temporaries[slot].state.compare_exchange_strong(expected, slot_claimed)) continue;
    std::memcpy(live_temporaries[slot].path, path.c_str(), path.size() + 1);
    live_temporaries[slot].state.store(slot_live, std::memory_order_release);
    return slot;
  }
  return -1;
}

void forget_temporary(int slot) noexcept {
  if (slot >= 0) live_temporaries[slot].state.store(slot_free, std::memory_order_release);
}

// The descriptor of this process a name leads to (/dev/stdout, /dev/fd/3, /proc/self/fd/3:
// symbolic links into /proc/PID/fd), -1 for any other name. Each link followed by hand, and the
// folder of each name made canonical, so that the descriptor's own link (to the file it has
// open) is not followed past.
int descriptor_named_by(std::string name) {
  // What /proc/self leads to: /proc/PID, where that /proc is this process's namespace's; in a
  // container whose /proc is another namespace's, getpid()'s number would name nothing there
  // and `>> log` would be replaced again (a review).
  char self[PATH_MAX];
  if (realpath("/proc/self", self) == nullptr) return -1;
  const std::string own = self;
  for (int hop = 0; hop < 40; ++hop) {
    const std::size_t slash = name.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : name.substr(0, slash);
    const std::string leaf = slash == std::string::npos ? name : name.substr(slash + 1);
    char canonical[PATH_MAX];
    if (realpath(folder.c_str(), canonical) == nullptr) return -1;
    const std::string place = canonical;
    const bool in_a_task = place.rfind(own + "/task/", 0) == 0 && place.size() > 3 &&
                           place.compare(place.size() - 3, 3, "/fd") == 0;  // /proc/thread-self/fd: PID/task/TID/fd
    const bool descriptors = place == own + "/fd" || in_a_task;
    if (descriptors) {
      if (leaf.empty() || leaf.size() > 9 || leaf.find_first_not_of("0123456789") != std::string::npos) return -1;
      return std::stoi(leaf);
    }
    char target[PATH_MAX];
    const ssize_t length = readlink(name.c_str(), target, sizeof target - 1);
    if (length < 0) return -1;  // no link: a name of its own
    target[length] = '\0';
    name = target[0] == '/' ? std::string(target) : place + "/" + target;
  }
  return -1;
}

// Why no rename may replace an existing file, in words for a message; empty where one may.
// Found before any work, as the shell's `>` finds it: halo had filtered a whole file and only
// then said "cannot rename the finished file into place: Operation not permitted" (a QA pass).
std::string unreplaceable(const std::string& target, const struct stat& existing) {
  const int fd = open(target.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  int flags = 0;
  const bool flagged = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  if (fd >= 0) close(fd);
  if (flagged && (flags & FS_IMMUTABLE_FL)) return "immutable (chattr +i): no rename may replace it";
  if (flagged && (flags & FS_APPEND_FL)) return "append-only (chattr +a): no rename may replace it";
  struct stat folder {};
  const uid_t user = geteuid();
  if (user != 0 && stat(directory_of(target).c_str(), &folder) == 0 && (folder.st_mode & S_ISVTX) &&
      existing.st_uid != user && folder.st_uid != user)
    return "another user's file in a sticky folder (as /tmp), which lets only its owner replace it";
  return {};
}

// Whether a folder is append-only (chattr +a): a name may be added to it, none replaced or
// removed, so a temporary renamed into place there had failed after the whole run and stayed
// behind, undeletable (a QA pass).
bool append_only_folder(const std::string& folder) {
  const int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  int flags = 0;
  const bool flagged = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  if (fd >= 0) close(fd);
  return flagged && (flags & FS_APPEND_FL);
}

// Gives the unnamed file open as fd the name `name` (which must not exist): through
// /proc/self/fd (no privilege needed), else AT_EMPTY_PATH (which needs one). False with errno.
bool link_unnamed(int fd, const std::string& name) {
  char proc[64];
  std::snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, proc, AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0 ||
         (errno != EEXIST && linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0);
}

bool leads_to_a_file(int fd) noexcept {
  struct stat status {};
  return fstat(fd, &status) == 0 && S_ISREG(status.st_mode);
}

}  // namespace

bool appends_to_a_file(int fd) noexcept {
  const int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && (flags & O_APPEND) != 0 && leads_to_a_file(fd);
}

bool open_for_reading_only(int fd) noexcept {
  const int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && (flags & O_ACCMODE) == O_RDONLY;
}

bool names_standard_output(const std::string& path) { return descriptor_named_by(path) == STDOUT_FILENO; }
bool names_a_descriptor(const std::string& path) { return descriptor_named_by(path) >= 0; }

void check_output_descriptor(const std::string& path) {
  if (path == "-") return;  // (the Writer says so of a closed standard output)
  const int named = descriptor_named_by(path);
  if (named < 0 || open_when_halo_started(named)) return;
  if (named == STDOUT_FILENO) throw Error(path + ": standard output was closed when halo started (>&-); name a file");
  const std::string number = std::to_string(named);
  throw Error(path + ": descriptor " + number + " was not open when halo started (give it one with " + number +
              "> FILE, or name a file)");
}

void check_output_writable(const std::string& path) {
  if (path == "-" || names_a_descriptor(path)) return;
  struct stat status {};
  if (stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) return;
  const AtomicFile probe(path);
}

void remove_live_temporaries() noexcept {
  for (LiveTemporary& entry : live_temporaries)
    if (entry.state.load(std::memory_order_acquire) == slot_live) unlink(entry.path);
}

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  if (path.empty()) throw Error("an empty output name: give a file name, or - for standard output");
  check_output_descriptor(path);
  // OUT /dev/stdout (or /dev/fd/N) redirected to a file is written through that descriptor, as
  // `-` is, from where it stands. Followed to the file and a new one renamed over it, the file
  // had lost all it held under `>> log` (exit 0, a QA pass), the x of `{ echo x; halo IN
  // /dev/stdout; } > log`, and in `{ halo A /dev/stdout; halo B /dev/stdout; } > log` A's output:
  // the group's descriptor still led to the file replaced.
  if (const int named = descriptor_named_by(path); named >= 0 && leads_to_a_file(named)) {
    if (open_for_reading_only(named))
      throw Error(path + ": descriptor " + std::to_string(named) + " is open for reading only; name a file");
    target_ = path;
    fd_ = fcntl(named, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) throw Error(path + ": " + reason());
    return;
  }
  // A device, a FIFO or a pipe: written through, never replaced. Asked of the name itself, which
  // the kernel follows: /dev/stdout and /dev/fd/N lead through /proc to "pipe:[N]", no name
  // resolve_links could follow (halo had tried to make a temporary in /proc/self/fd).
  struct stat existing {};
  if (stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode) && !S_ISDIR(existing.st_mode)) {
    target_ = path;
    fd_ = open(path.c_str(), O_WRONLY | O_CLOEXEC);  // no O_TRUNC: not a regular file, and if the
    if (fd_ < 0) throw Error(path + ": " + reason());  // name was swapped for one meanwhile, not truncated
    struct stat opened {};
    if (fstat(fd_, &opened) != 0 || S_ISREG(opened.st_mode)) {
      close(fd_);
      fd_ = -1;
      throw Error(path + ": it changed from a device or pipe to a file while halo opened it");
    }
    return;
  }
  target_ = resolve_links(path);
  const bool exists = stat(target_.c_str(), &existing) == 0;
  if (exists && !S_ISREG(existing.st_mode)) {  // a device, a FIFO: written through, never replaced
    fd_ = open(target_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd_ < 0) throw Error(path + ": " + reason());
    return;
  }
  // A file its mode keeps this user from writing stays as it is, as the shell's `>` leaves it:
  // a temporary renamed over it had replaced a write-protected file of someone else's in a
  // folder the user may write, and taken it over (a QA pass). Root writes it, as `>` does.
  if (exists && access(target_.c_str(), W_OK) != 0 && errno == EACCES)
    throw Error(path + ": write-protected (" + reason() + "); halo replaces no file this user may not write");
  if (exists)
    if (const std::string why = unreplaceable(target_, existing); !why.empty()) throw Error(path + ": " + why);
  // Names the file system cannot take, refused before any work as the shell's `>` refuses them:
  // halo had filtered to the end and then failed to rename (a QA pass). The temporary beside the
  // target is up to 13 bytes longer than its path.
  const long name_max = pathconf(directory_of(target_).c_str(), _PC_NAME_MAX);
  if (base_name(target_).size() > static_cast<std::size_t>(name_max > 0 ? name_max : NAME_MAX))
    throw Error(path + ": " + std::strerror(ENAMETOOLONG));
  if (target_.size() + 13 >= PATH_MAX)
    throw Error(path + ": a path of " + std::to_string(target_.size()) + " bytes leaves no room for halo's temporary "
                "beside it (at most " + std::to_string(PATH_MAX - 14) + ")");
  const bool append_only = append_only_folder(directory_of(target_));
  if (append_only && exists)
    throw Error(path + ": in an append-only folder (chattr +a), where no rename may replace a file");
  // First an unnamed file in the target's folder (O_TMPFILE), named only as it goes into place:
  // a kill no handler sees (SIGKILL, the OOM killer, a power cut) had left the named temporary
  // behind, a hidden ".NAME.halo-XXXXXX" as large as the output so far (a QA pass). Where the
  // file system or kernel has none, the named temporary as before (it gives the errors too).
  fd_ = open(directory_of(target_).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd_ >= 0) {
    unnamed_ = true;
    link_at_commit_ = append_only;  // a new name may be added there: the whole file's, at commit()
  } else if (append_only) {
    throw Error(path + ": in an append-only folder (chattr +a), which takes a new file only whole, from an unnamed "
                "one that this file system cannot make");
  } else {
    std::string pattern = temporary_pattern(target_);
    fd_ = mkostemp(pattern.data(), O_CLOEXEC);
    if (fd_ < 0)  // ENOENT worded as design's checks word it, and a folder that makes no files (/proc) as such
      throw Error(path + ": cannot create a file in " + directory_of(target_) + ": " +
                  why_no_file_in(directory_of(target_), errno));
    temporary_ = pattern;
    slot_ = register_temporary(temporary_);
  }
  // mkstemp makes 0600. A file replaced keeps its owner where we may set it (root), and its mode
  // (less set-id bits when the owner could not be kept); a new file gets what a plain create gives.
  mode_ = 0666 & ~process_umask();
  replacing_ = exists;
  if (exists) {
    mode_ = existing.st_mode & 07777;
    if (fchown(fd_, existing.st_uid, existing.st_gid) != 0 && fchown(fd_, static_cast<uid_t>(-1), existing.st_gid) != 0)
      mode_ &= ~static_cast<mode_t>(S_ISUID | S_ISGID);
  }
}

// The mode the file goes into place with, given once it is written and read back: a replaced
// file's (0200, its owner's write-only, had made the read-back of the temporary fail: a review).
// A file system that keeps no modes (vfat, some FUSE mounts) refuses the change; a new file there
// takes what it gives, as `>` does, and only a replaced file's mode is worth an error.
void AtomicFile::give_mode() {
  if (mode_given_ || fd_ < 0) return;
  mode_given_ = true;
  if (fchmod(fd_, mode_) != 0 && (replacing_ || (errno != EPERM && errno != EOPNOTSUPP)))
    throw Error(path_ + ": " + reason());
}

// The unnamed file gets its temporary name beside the target, the descriptor still open: linkat
// cannot replace a name, so commit() renames it over the target as it does a named temporary.
void AtomicFile::name_unnamed() {
  if (!unnamed_ || link_at_commit_) return;
  std::random_device entropy;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = temporary_pattern(target_);
    static constexpr char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (std::size_t i = name.size() - 6; i < name.size(); ++i) name[i] = letters[entropy() % (sizeof letters - 1)];
    if (!link_unnamed(fd_, name)) {
      if (errno == EEXIST) continue;
      throw Error(path_ + ": cannot name the finished file: " + reason());
    }
    temporary_ = name;
    slot_ = register_temporary(temporary_);
    unnamed_ = false;
    return;
  }
  throw Error(path_ + ": cannot name the finished file: every name tried was taken");
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_ && !temporary_.empty()) unlink(temporary_.c_str());
  forget_temporary(slot_);
}

void AtomicFile::write_all(const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t written = write(fd_, data + done, size - done);
    if (written < 0 && errno == EINTR) continue;
    // Standard output's reader gone (`design -o /dev/stdout | head`): quietly, as for -.
    if (written < 0 && errno == EPIPE && names_standard_output(path_)) throw ReaderGone();
    if (written < 0) throw Error(path_ + ": write failed: " + reason());
    done += static_cast<std::size_t>(written);
  }
}

void AtomicFile::close_checked() {
  if (fd_ < 0) return;
  if (!direct()) give_mode();
  // Kept open and unnamed until commit() links it into place: the errors a close surfaces (a
  // network file system's) are asked of the close of a duplicate, with no flush to disk.
  if (link_at_commit_) {
    const int duplicate = dup(fd_);
    if (duplicate < 0 || close(duplicate) != 0) throw Error(path_ + ": closing failed: " + reason());
    return;
  }
  name_unnamed();
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) throw Error(path_ + ": closing failed: " + reason());
}

void AtomicFile::commit() {
  // The descriptor closed without error, then the rename: in that order, so that the target
  // name only ever holds a complete file (a full disk or a quota can surface only at close).
  close_checked();
  if (link_at_commit_) {  // the new name, given to the whole file at once
    if (!link_unnamed(fd_, target_)) throw Error(path_ + ": cannot name the finished file: " + reason());
    close(fd_);
    fd_ = -1;
    committed_ = true;
    return;
  }
  if (!temporary_.empty() && std::rename(temporary_.c_str(), target_.c_str()) != 0)
    throw Error(path_ + ": cannot rename the finished file into place: " + reason());
  committed_ = true;
  forget_temporary(slot_);
  slot_ = -1;
}

}  // namespace halo::audio
