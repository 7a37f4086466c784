// libFuzzer target: the mask-file parsers. Every input is parsed five times, as a text mask, as
// raw float32, as a sound file, as JSON and as a C header (audio::parse_mask, the code read_mask
// runs on a file's bytes; the header reader follows a compiler's reading, and much can go wrong).
// Bad bytes must give an audio::Error; any other exception, a sanitizer report, or a mask that
// breaks what audio/mask_file.hpp promises (at least one mask, none empty, every tap finite,
// per-channel masks of one length) is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "audio/error.hpp"
#include "audio/mask_file.hpp"
#include "fuzz/fuzz_support.hpp"

using halo::fuzz::check;
using halo::fuzz::check_one_clean_line;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"fuzz.txt", "fuzz.f32", "fuzz.wav", "fuzz.json", "fuzz.h"}) {
    try {
      const halo::filters::MaskSet masks = halo::audio::parse_mask(name, bytes);
      check(!masks.empty());
      for (const auto& mask : masks) {
        check(!mask.taps.empty() && mask.taps.size() == masks.front().taps.size());
        check(std::isfinite(mask.rate_hz) && mask.rate_hz >= 0);
        for (float tap : mask.taps) check(std::isfinite(tap));
      }
    } catch (const halo::audio::Error& error) {  // the documented answer to a bad file
      check_one_clean_line(error);
    }
  }
  return 0;
}
