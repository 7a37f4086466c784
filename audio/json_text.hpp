#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace halo::audio {

// A JSON document as text, its strings' bytes that are not UTF-8 replaced by U+FFFD. File
// names and titles come from the user and need not be UTF-8 (a Latin-1 `caf\xe9.wav`);
// nlohmann-json's plain dump() threw on them, and `halo info --json` printed its exception
// instead of the file's figures (a QA pass). `indent` as dump()'s: -1 for one line.
template <class Json>
std::string json_text(const Json& document, int indent = -1) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace halo::audio
