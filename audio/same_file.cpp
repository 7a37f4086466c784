#include "audio/same_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "audio/error.hpp"

namespace halo::audio {
namespace {

// What a name is (symbolic links followed), or for "-" what the descriptor `fd` is open on.
bool identify(const std::string& path, int fd, struct stat& status) {
  return path == "-" ? fstat(fd, &status) == 0 : stat(path.c_str(), &status) == 0;
}

}  // namespace

bool is_same_file(const std::string& input, const std::string& output) {
  struct stat first {}, second {};
  if (!identify(input, STDIN_FILENO, first) || !identify(output, STDOUT_FILENO, second)) return false;
  // A block device too (`-t raw ... /dev/loop0 /dev/loop0` had written through what it read: a
  // review): the same device whatever its name.
  if (S_ISBLK(first.st_mode) && S_ISBLK(second.st_mode)) return first.st_rdev == second.st_rdev;
  return S_ISREG(first.st_mode) && first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

void refuse_overwriting_input(const std::string& input, const std::string& output, const std::string& role) {
  if (!is_same_file(input, output)) return;
  const std::string advice = ": choose another output (halo never overwrites its input)";
  if (input == "-" && output == "-") throw Error("standard input and standard output are one file" + advice);
  if (input == "-") throw Error(output + " is the file standard input reads" + advice);
  if (output == "-") throw Error("standard output goes to " + input + ", " + role + advice);
  throw Error(output + " is " + (output == input ? "" : input + ", ") + role + advice);
}

}  // namespace halo::audio
