#include "audio/id3_text.hpp"

namespace halo::audio {
namespace {

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

}  // namespace

std::string latin1_for_id3(const std::string& text, std::size_t& lost) {
  std::string out;
  std::size_t missing = 0;
  const bool utf8 = for_each_code_point(text, [&](unsigned code) {
    out += code <= 0xFF ? static_cast<char>(code) : '?';
    missing += code > 0xFF;
  });
  if (!utf8) return text;
  lost += missing;
  return out;
}

std::string utf8_from_id3(const std::string& text) {
  if (for_each_code_point(text, [](unsigned) {})) return text;
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      out += c;
    } else {
      out += static_cast<char>(0xC0 | (byte >> 6));
      out += static_cast<char>(0x80 | (byte & 0x3F));
    }
  }
  return out;
}

}  // namespace halo::audio
