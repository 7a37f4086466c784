// JSON (nlohmann-json) and C-header mask files: writing with exact float round trips, and JSON
// read back with a message that names the file (headers: c_header_reader.cpp).
#include "audio/mask_json_header.hpp"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "audio/error.hpp"
#include "audio/json_text.hpp"
#include "audio/mask_export.hpp"

namespace halo::audio {

using filters::Mask;
using filters::MaskSet;

namespace {

using filters::max_mask_taps;

// The double whose shortest decimal reads back to `value`: nlohmann-json writes a double with
// the fewest digits that give the same double, so this one prints as "0.1", not as the 17
// digits of (double)0.1f.
double printable(float value) { return std::strtod(shortest_float(value).c_str(), nullptr); }

nlohmann::ordered_json taps_json(const Mask& mask) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (float tap : mask.taps) list.push_back(printable(tap));
  return list;
}

float checked_float(double value, const std::string& where) {
  if (!std::isfinite(value)) throw Error(where + "NaN or Inf coefficient");
  if (std::fabs(value) > FLT_MAX) throw Error(where + "a coefficient does not fit in a float");
  return static_cast<float>(value);
}

std::vector<float> json_list(const nlohmann::json& list, const std::string& path) {
  std::vector<float> taps;
  if (list.size() > max_mask_taps)
    throw Error(path + ": more than " + std::to_string(max_mask_taps) + " taps, the most a mask holds");
  taps.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_number())
      throw Error(path + ": coefficient " + std::to_string(i) + " is not a number");
    const double value = list[i].get<double>();
    taps.push_back(std::isfinite(value) && std::fabs(value) <= FLT_MAX
                       ? static_cast<float>(value)
                       : checked_float(value, path + ": coefficient " + std::to_string(i) + ": "));
  }
  return taps;
}

std::string comment_safe(std::string text) {
  for (std::size_t at = text.find("*/"); at != std::string::npos; at = text.find("*/", at)) text.replace(at, 2, "* /");
  return text;
}

// %.9g with a decimal point or exponent, then f: a float literal that rounds to `value`.
std::string float_literal(float value) {
  std::string text = shortest_float(value);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text + "f";
}

}  // namespace

std::string c_identifier(const std::string& stem) {
  // Other characters (a UTF-8 letter's bytes too) become one '_'; no run of two, and none to
  // start with: C and C++ reserve names with "__" or a leading '_' (ünï.h had made "__n__").
  std::string name;
  for (char c : stem) {
    const char kept = std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 128 ? c : '_';
    if (kept == '_' && (name.empty() || name.back() == '_')) continue;
    name += kept;
  }
  if (name.empty()) return "mask";
  // C11's and C++20's keywords, C++'s alternative tokens, main, which a program defines, and
  // the standard headers' macros (inline.h, bool.h and main.h had made headers no compiler
  // took, a QA pass; errno.h after <errno.h>, a review).
  static const char* const keywords[] = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
      "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "const_cast", "consteval", "constexpr", "constinit", "co_await",
      "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "false", "friend",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this",
      "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq",
      "main", "errno", "stdin", "stdout", "stderr", "assert", "complex", "imaginary", "I", "NULL", "EOF",
      "INFINITY", "NAN"};
  const bool keyword = std::find_if(std::begin(keywords), std::end(keywords),
                                    [&](const char* k) { return name == k; }) != std::end(keywords);
  if (keyword || std::isdigit(static_cast<unsigned char>(name[0]))) name = "mask_" + name;
  return name;
}

std::string json_contents(const MaskSet& masks, const nlohmann::json& spec, const nlohmann::json& measured) {
  // In this order (not sorted): what it is first, the long coefficient list last.
  nlohmann::ordered_json document;
  document["format"] = "halo-mask";
  document["version"] = 1;
  // A mask read from text with no rate has none (0): left out, as the readers take its absence,
  // rather than a "rate_hz": 0 that reads as a rate.
  if (masks.front().rate_hz > 0) document["rate_hz"] = masks.front().rate_hz;
  document["provenance"] = filters::mask_set_source(masks);  // the set's, not its first channel's
  // "causal": the mask starts at its first tap (a minimum-phase design), and filter aligns it so.
  document["align"] = masks.front().causal ? "causal" : "same";
  document["taps"] = masks.front().taps.size();
  document["channels"] = masks.size();
  document["spec"] = nlohmann::ordered_json::parse(json_text(spec));
  document["measured"] = nlohmann::ordered_json::parse(json_text(measured));
  if (masks.size() == 1) {
    document["coefficients"] = taps_json(masks.front());
  } else {
    nlohmann::ordered_json lists = nlohmann::ordered_json::array();
    for (const Mask& mask : masks) lists.push_back(taps_json(mask));
    document["coefficients"] = lists;
  }
  return json_text(document, 1) + "\n";
}

std::string header_contents(const MaskSet& masks, const std::string& name, const std::string& comment) {
  const std::size_t taps = masks.front().taps.size();
  std::string out = "/* " + comment_safe(comment) + "\n */\n";
  std::string guard = "HALO_MASK_" + name;
  std::transform(guard.begin(), guard.end(), guard.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  out += "#ifndef " + guard + "_H\n#define " + guard + "_H\n\n";
  char line[160];
  if (masks.front().rate_hz > 0) {  // none for a mask with no rate (text read without --rate): no "= 0"
    std::snprintf(line, sizeof line, "static const double %s_rate_hz = %.10g;\n", name.c_str(), masks.front().rate_hz);
    out += line;
  }
  std::snprintf(line, sizeof line, "static const unsigned %s_taps = %zu;\n", name.c_str(), taps);
  out += line;
  if (masks.front().causal || masks.front().alignment_stated) {  // 1: starts at its first tap, filter aligns it so
    std::snprintf(line, sizeof line, "static const int %s_causal = %d;\n", name.c_str(), masks.front().causal ? 1 : 0);
    out += line;
  }
  if (masks.size() > 1) {
    std::snprintf(line, sizeof line, "static const unsigned %s_channels = %zu;\n", name.c_str(), masks.size());
    out += line;
    std::snprintf(line, sizeof line, "static const float %s[%zu][%zu] = {\n", name.c_str(), masks.size(), taps);
  } else {
    std::snprintf(line, sizeof line, "static const float %s[%zu] = {\n", name.c_str(), taps);
  }
  out += line;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    const std::string indent = masks.size() > 1 ? "    " : "  ";
    if (masks.size() > 1) out += "  {\n";
    for (std::size_t k = 0; k < taps; ++k) {
      if (k % 6 == 0) out += indent;
      out += float_literal(masks[m].taps[k]);
      out += k + 1 < taps ? (k % 6 == 5 ? ",\n" : ", ") : "\n";
    }
    if (masks.size() > 1) out += m + 1 < masks.size() ? "  },\n" : "  }\n";
  }
  out += "};\n\n#endif\n";
  return out;
}

MaskSet parse_json_mask(const std::string& path, const std::string& text) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    std::string reason = error.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." without the tag.
    if (const std::size_t bracket = reason.find("] "); bracket != std::string::npos) reason = reason.substr(bracket + 2);
    // nlohmann-json quotes the last byte it read as it is: a DEL or an escape sequence there
    // would reach the terminal (the fuzzer's find).
    throw Error(path + ": not JSON (" + excerpt(reason, 200) + ")");
  }
  double rate_hz = 0;
  std::string provenance = "file " + path;
  bool causal = false;  // "align": "causal"
  bool stated = false;  // "align" given
  nlohmann::json coefficients;
  if (document.is_array()) {
    coefficients = document;
  } else if (document.is_object() && document.contains("coefficients")) {
    coefficients = document["coefficients"];
    if (document.contains("rate_hz")) {
      if (!document["rate_hz"].is_number() || !(document["rate_hz"].get<double>() >= 0))
        throw Error(path + ": \"rate_hz\" is not a rate in Hz");
      rate_hz = document["rate_hz"].get<double>();
    }
    if (document.contains("align")) {
      const nlohmann::json& align = document["align"];
      if (!align.is_string() || (align != "causal" && align != "same"))
        throw Error(path + ": \"align\" is neither \"same\" nor \"causal\"");
      causal = align == "causal";
      stated = true;
    }
  } else {
    throw Error(path + ": no \"coefficients\" list");
  }
  if (!coefficients.is_array() || coefficients.empty()) throw Error(path + ": no coefficients");

  MaskSet masks;
  if (coefficients.front().is_array()) {
    for (std::size_t c = 0; c < coefficients.size(); ++c) {
      if (!coefficients[c].is_array()) throw Error(path + ": coefficients: mixed lists and numbers");
      Mask mask;
      mask.taps = json_list(coefficients[c], path);
      if (mask.taps.empty()) throw Error(path + ": channel " + std::to_string(c + 1) + " has no coefficients");
      if (!masks.empty() && mask.taps.size() != masks.front().taps.size())
        throw Error(path + ": channel " + std::to_string(c + 1) + " has " + std::to_string(mask.taps.size()) +
                    " coefficients, channel 1 has " + std::to_string(masks.front().taps.size()));
      mask.provenance = provenance + " ch " + std::to_string(c + 1);
      masks.push_back(std::move(mask));
    }
  } else {
    Mask mask;
    mask.taps = json_list(coefficients, path);
    mask.provenance = provenance;
    masks.push_back(std::move(mask));
  }
  // "taps" and "channels", as json_contents writes them, say what the lists hold; a file where
  // they disagree (a hand edit) is refused, not read as the lists alone (a QA pass).
  if (document.is_object())
    for (const auto& [field, holds] : {std::pair<const char*, std::size_t>{"taps", masks.front().taps.size()},
                                       {"channels", masks.size()}})
      if (document.contains(field)) {
        // Not the value itself, which may be anything (a list nested 70000 deep had crashed its
        // printing, a QA pass): the number it says, or that it is none.
        const nlohmann::json& value = document[field];
        if (!value.is_number()) throw Error(path + ": \"" + field + "\" is not a number");
        if (value.get<double>() != static_cast<double>(holds))
          throw Error(path + ": \"" + field + "\" says " + value.dump() + ", the coefficients are " +
                      (std::string(field) == "taps" ? std::to_string(holds) + " a channel"
                                                     : std::to_string(holds) + (holds == 1 ? " channel" : " channels")));
      }
  for (Mask& mask : masks) {
    mask.rate_hz = rate_hz;
    mask.causal = causal;
    mask.alignment_stated = stated;
  }
  return masks;
}

}  // namespace halo::audio
