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

// Text in a narrower set, built a code point at a time: one byte each up to `last`, '?' past it
// (counted, for the note that says how many).
struct Narrowed {
  explicit Narrowed(unsigned last) : last(last) {}
  void operator()(unsigned code) {
    text += code <= last ? static_cast<char>(code) : '?';
    missing += code > last;
  }
  unsigned last;
  std::string text;
  std::size_t missing = 0;
};

}  // namespace

std::string latin1_for_id3(const std::string& text, std::size_t& lost) {
  Narrowed latin1(0xFF);
  if (!for_each_code_point(text, latin1)) return text;  // 8-bit already
  lost += latin1.missing;
  return latin1.text;
}

std::string ascii_for_tags(const std::string& text, std::size_t& lost) {
  Narrowed ascii(0x7F);
  if (!for_each_code_point(text, ascii)) {  // 8-bit text: each byte a character
    ascii = Narrowed(0x7F);
    for (const char c : text) ascii(static_cast<unsigned char>(c));
  }
  lost += ascii.missing;
  return ascii.text;
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
