#include "audio/id3_text.hpp"

#include "audio/utf8.hpp"

namespace halo::audio {
namespace {

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
