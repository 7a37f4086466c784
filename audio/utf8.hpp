#pragma once
#include <cstddef>
#include <string>

namespace halo::audio {

// The code points of UTF-8 `text`, each passed to f(code); false (f not called again) where
// `text` is not UTF-8.
template <typename F>
bool for_each_code_point(const std::string& text, F&& f) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const int length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || i + static_cast<std::size_t>(length) > text.size()) return false;
    unsigned code = length == 1 ? byte : byte & (0x7Fu >> length);
    for (int k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      if ((next >> 6) != 0x2) return false;
      code = (code << 6) | (next & 0x3Fu);
    }
    f(code);
    i += static_cast<std::size_t>(length);
  }
  return true;
}

}  // namespace halo::audio
