// libFuzzer target: the sound-file reader path. Each input is written to a file and read to the
// end through audio::Reader in chunks, as halo filter and halo info do, and the output format
// for it is chosen as halo filter chooses one. Bad bytes must give an audio::Error; any other
// exception, a sanitizer report, a format that breaks Reader's promises (channels and rate
// at least 1) or a read that returns more frames than asked is a finding.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "audio/error.hpp"
#include "audio/format.hpp"
#include "audio/reader.hpp"
#include "fuzz/fuzz_support.hpp"

namespace {

using halo::fuzz::check;
using halo::fuzz::check_one_clean_line;

// libsndfile is not instrumented, so libFuzzer cannot see which of its decoders an input reached.
// These extra counters (a libFuzzer feature) can: one per container x subtype, one per power of
// two of channels and of frames read. An input that reaches a new decoder or size is kept.
constexpr std::size_t containers = 64, subtypes = 256, size_classes = 64;
__attribute__((used, section("__libfuzzer_extra_counters")))
std::uint8_t decoder_counters[containers * subtypes + 2 * size_classes];

void count(std::size_t index) {
  std::uint8_t& counter = decoder_counters[index % sizeof decoder_counters];
  if (counter < 255) ++counter;
}

std::size_t size_class(std::uint64_t value) {
  std::size_t bits = 0;
  while (value >>= 1) ++bits;
  return bits;
}

// One file per fuzzing process, in memory where /dev/shm exists; removed at exit.
const std::string& input_path() {
  static const std::string path = [] {
    std::string pattern = access("/dev/shm", W_OK) == 0 ? "/dev/shm/halo-fuzz-XXXXXX" : "/tmp/halo-fuzz-XXXXXX";
    const int fd = mkstemp(pattern.data());
    check(fd >= 0);
    close(fd);
    static std::string removed_at_exit = pattern;
    std::atexit([] { unlink(removed_at_exit.c_str()); });
    return pattern;
  }();
  return path;
}

void write_input(const std::uint8_t* data, std::size_t size) {
  const int fd = open(input_path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  check(fd >= 0);
  for (std::size_t done = 0; done < size;) {
    const ssize_t wrote = write(fd, data + done, size - done);
    check(wrote > 0);
    done += static_cast<std::size_t>(wrote);
  }
  check(close(fd) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  write_input(data, size);
  try {
    halo::audio::Reader reader(input_path());
    const halo::audio::Format& format = reader.format();
    check(format.channels >= 1 && format.rate_hz >= 1);
    count(((static_cast<unsigned>(format.container) >> 16) % containers) * subtypes +
          static_cast<unsigned>(format.subtype) % subtypes);
    count(containers * subtypes + size_class(static_cast<std::uint64_t>(format.channels)));
    std::uint64_t frames_read = 0;
    constexpr std::size_t chunk_frames = 4096;
    std::vector<float> chunk(chunk_frames * static_cast<std::size_t>(format.channels));
    for (;;) {
      const std::size_t got = reader.read(chunk.data(), chunk_frames);
      check(got <= chunk_frames);
      if (got == 0) break;
      frames_read += got;
    }
    count(containers * subtypes + size_classes + size_class(frames_read));
    for (const char* output : {"out.wav", "out.flac", "-"}) {
      try {
        halo::audio::output_format(format, output, 0);
      } catch (const halo::audio::Error&) {
        // no container of that kind holds this input: said in one line
      }
    }
  } catch (const halo::audio::Error& error) {  // the documented answer to a bad file
    check_one_clean_line(error);
  }
  return 0;
}
