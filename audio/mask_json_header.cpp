// JSON (nlohmann-json) and C-header mask files: writing with exact float round trips, reading
// with a message that names the file, and the line for a header.
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

constexpr std::size_t max_mask_taps = std::size_t{1} << 24;  // as mask_file.cpp

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

// The header without its comments (kept as spaces and newlines, so that line numbers stay).
std::string without_comments(const std::string& text) {
  std::string out = text;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 2, "/*") == 0) {
      const std::size_t end = out.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? out.size() : end + 2;
      for (std::size_t j = i; j < stop; ++j)
        if (out[j] != '\n') out[j] = ' ';
      i = stop - 1;
    } else if (out.compare(i, 2, "//") == 0) {
      for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
    }
  }
  return out;
}

int line_at(const std::string& text, std::size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(std::min(offset, text.size())), '\n'));
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
  static const char* const keywords[] = {"auto", "break", "case", "char", "const", "continue", "default", "do",
                                         "double", "else", "enum", "extern", "float", "for", "goto", "if", "int",
                                         "long", "register", "return", "short", "signed", "sizeof", "static",
                                         "struct", "switch", "typedef", "union", "unsigned", "void", "volatile",
                                         "while", "class", "new", "delete", "this", "template", "namespace"};
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
  if (masks.front().causal) {  // starts at its first tap (a minimum-phase design): filter aligns it so
    std::snprintf(line, sizeof line, "static const int %s_causal = 1;\n", name.c_str());
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
    throw Error(path + ": not JSON (" + reason + ")");
  }
  double rate_hz = 0;
  std::string provenance = "file " + path;
  bool causal = false;  // "align": "causal"
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
      if (document.contains(field) &&
          (!document[field].is_number() || document[field].get<double>() != static_cast<double>(holds)))
        throw Error(path + ": \"" + field + "\" says " + document[field].dump() + ", the coefficients are " +
                    (std::string(field) == "taps" ? std::to_string(holds) + " a channel"
                                                   : std::to_string(holds) + (holds == 1 ? " channel" : " channels")));
  for (Mask& mask : masks) {
    mask.rate_hz = rate_hz;
    mask.causal = causal;
  }
  return masks;
}

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The value of `IDENTIFIER = VALUE;` in a header's text (comments removed), the identifier
// whole (`x_causal` is not found inside `x_causal_rate_hz`); NaN where there is none.
double header_constant(const std::string& text, const std::string& identifier) {
  for (std::size_t at = text.find(identifier); at != std::string::npos; at = text.find(identifier, at + 1)) {
    const std::size_t end = at + identifier.size();
    if ((at > 0 && identifier_char(text[at - 1])) || (end < text.size() && identifier_char(text[end]))) continue;
    const std::size_t eq = text.find_first_not_of(" \t\r\n", end);
    if (eq == std::string::npos || text[eq] != '=') continue;
    const std::size_t semicolon = text.find(';', eq);
    if (semicolon == std::string::npos) return NAN;
    const std::string value = text.substr(eq + 1, semicolon - eq - 1);
    // One number and nothing else but its suffix: `2 * 2` or `N + 1` is an expression, and an
    // octal `0200` is 128 to a compiler; neither is read (a review: `2 * 2` had been read as 2).
    const std::size_t first = value.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || (value[first] == '0' && first + 1 < value.size() && std::isdigit(static_cast<unsigned char>(value[first + 1]))))
      return NAN;
    char* stop = nullptr;
    const double number = std::strtod(value.c_str(), &stop);
    if (stop == value.c_str()) return NAN;
    while (*stop != '\0' && std::strchr("uUlLfF", *stop) != nullptr) ++stop;
    while (*stop == ' ' || *stop == '\t' || *stop == '\r' || *stop == '\n') ++stop;
    return *stop == '\0' ? number : NAN;
  }
  return NAN;
}

// NAME of the `float NAME[...] = {` at `float_at` (the array parse_header_mask reads); empty
// where it is not one identifier.
std::string array_name(const std::string& text, std::size_t float_at) {
  std::size_t begin = text.find_first_not_of(" \t\r\n", float_at + 5);
  if (begin == std::string::npos) return "";
  std::size_t end = begin;
  while (end < text.size() && identifier_char(text[end])) ++end;
  return text.substr(begin, end - begin);
}

// The array in `text` (comments removed): the first `float` declaration with an initialiser,
// where its `float` and its `=` are; npos for both where there is none.
struct ArrayAt {
  std::size_t float_at = std::string::npos;
  std::size_t equals = std::string::npos;
};
ArrayAt float_array(const std::string& text) {
  for (std::size_t at = text.find("float"); at != std::string::npos; at = text.find("float", at + 5)) {
    const std::size_t semicolon = text.find(';', at);
    const std::size_t eq = text.find('=', at);
    const std::size_t brace = text.find('{', at);
    if (eq != std::string::npos && brace != std::string::npos && eq < brace && (semicolon == std::string::npos || brace < semicolon))
      return {at, eq};
  }
  return {};
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// The sizes between NAME and `=` of the array at `array` (`[5]`, `[2][300]`), in order; 0 for
// an empty `[]` or one that is not a whole number written out (a macro, `2 * N`).
std::vector<std::size_t> declared_sizes(const std::string& text, ArrayAt array, const std::string& name) {
  std::vector<std::size_t> sizes;
  const std::size_t after_name = text.find(name, array.float_at + 5) + name.size();
  for (std::size_t open = text.find('[', after_name); open != std::string::npos && open < array.equals;
       open = text.find('[', open + 1)) {
    const std::size_t close = text.find(']', open);
    if (close == std::string::npos || close > array.equals) break;
    const std::string inside = text.substr(open + 1, close - open - 1);
    const std::size_t first = inside.find_first_not_of(" \t"), last = inside.find_last_not_of(" \t");
    const std::string digits = first == std::string::npos ? "" : inside.substr(first, last - first + 1);
    // (Not an octal 010, which is 8 to a compiler.)
    const bool whole = !digits.empty() && digits.size() < 10 && digits.find_first_not_of("0123456789") == std::string::npos &&
                       (digits[0] != '0' || digits.size() == 1);
    sizes.push_back(whole ? std::stoul(digits) : 0);
  }
  return sizes;
}

}  // namespace

bool holds_header_array(const std::string& raw) {
  std::string text = without_comments(raw);
  for (std::size_t line = 0; line < text.size();) {
    const std::size_t end = std::min(text.find('\n', line), text.size());
    const std::size_t first = text.find_first_not_of(" \t\r", line);
    if (first < end && text[first] == '#') std::fill(text.begin() + static_cast<std::ptrdiff_t>(first), text.begin() + static_cast<std::ptrdiff_t>(end), ' ');
    line = end + 1;
  }
  return float_array(text).equals != std::string::npos;
}

MaskSet parse_header_mask(const std::string& path, const std::string& raw) {
  const std::string text = without_comments(raw);
  const ArrayAt array = float_array(text);
  const std::size_t equals = array.equals;
  if (equals == std::string::npos) throw Error(path + ": no `float NAME[] = {...}` array");
  const std::string name = array_name(text, array.float_at);  // its constants are NAME_rate_hz and NAME_causal

  MaskSet masks;
  std::vector<float> current;
  int depth = 0;
  bool nested = false;
  std::size_t i = text.find('{', equals);
  for (; i < text.size(); ++i) {
    const char c = text[i];
    // Counting lines is linear in the offset: only for a message.
    const auto where = [&] { return path + ":" + std::to_string(line_at(raw, i)) + ": "; };
    if (c == '{') {
      if (++depth > 2) throw Error(where() + "braces nested more than two deep");
      if (depth == 2 && !current.empty()) throw Error(where() + "a number outside the inner lists");
      if (depth == 2) nested = true;
      current.clear();
    } else if (c == '}') {
      if (depth == 2 || !nested) {
        if (current.empty()) throw Error(where() + "an empty list");
        if (!masks.empty() && current.size() != masks.front().taps.size())
          throw Error(where() + std::to_string(current.size()) + " coefficients, the first list has " +
                      std::to_string(masks.front().taps.size()));
        Mask mask;
        mask.taps = current;
        masks.push_back(std::move(mask));
        current.clear();
      }
      if (--depth == 0) break;
    } else if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      continue;
    } else {
      if (depth == 1 && nested) throw Error(where() + "a number outside the inner lists");
      std::size_t end = i;
      while (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != '{' &&
             !std::isspace(static_cast<unsigned char>(text[end])))
        ++end;
      std::string token = text.substr(i, end - i);
      if (!token.empty() && (token.back() == 'f' || token.back() == 'F')) token.pop_back();
      char* stop = nullptr;
      const double value = token.empty() ? 0 : std::strtod(token.c_str(), &stop);
      // strtod reads "nan", "inf" and hex; a C initialiser has none of them as a mask holds it.
      const bool number = !token.empty() && stop == token.c_str() + token.size() &&
                          token.find_first_of("xXnN") == std::string::npos && token.find("inf") == std::string::npos &&
                          token.find("INF") == std::string::npos;
      if (!number) throw Error(where() + "\"" + text.substr(i, std::min<std::size_t>(end - i, 24)) + "\" is not a number");
      if (!std::isfinite(value) || std::fabs(value) > FLT_MAX) current.push_back(checked_float(value, where()));
      else current.push_back(static_cast<float>(value));
      if (current.size() > max_mask_taps)
        throw Error(path + ": more than " + std::to_string(max_mask_taps) + " taps, the most a mask holds");
      i = end - 1;
    }
  }
  if (depth != 0) throw Error(path + ": the coefficient list is not closed");
  if (masks.empty()) throw Error(path + ": no coefficients");
  // What the compiler reads: `float h[5] = {4 values}` is 5 taps, the last 0, and halo had read 4,
  // centring the mask a frame early, without a word (a QA pass). A size declared, or a NAME_taps
  // or NAME_channels constant, that the lists do not fill is refused: a hand edit gone wrong.
  const std::vector<std::size_t> declared = name.empty() ? std::vector<std::size_t>{} : declared_sizes(text, array, name);
  const auto count = [](std::size_t n) { return std::to_string(n); };
  // `float h[2][3] = {six values}` is two masks of three to a compiler (braces may be left
  // out); halo had read one of six (a review).
  if (!nested && declared.size() == 2 && declared[0] > 0 && declared[1] > 0) {
    const std::vector<float> flat = masks.front().taps;
    if (declared[0] * declared[1] != flat.size())
      throw Error(path + ": " + name + "[" + count(declared[0]) + "][" + count(declared[1]) + "] declares " +
                  count(declared[0] * declared[1]) + " coefficients, the list holds " + count(flat.size()));
    masks.clear();
    for (std::size_t m = 0; m < declared[0]; ++m) {
      Mask mask;
      mask.taps.assign(flat.begin() + static_cast<std::ptrdiff_t>(m * declared[1]),
                       flat.begin() + static_cast<std::ptrdiff_t>((m + 1) * declared[1]));
      masks.push_back(std::move(mask));
    }
    nested = true;
  }
  const std::size_t taps = masks.front().taps.size(), lists = masks.size();
  if (!nested && declared.size() == 1 && declared[0] > 0 && declared[0] != taps)
    throw Error(path + ": " + name + "[" + count(declared[0]) + "] declares " + count(declared[0]) +
                " coefficients, the list holds " + count(taps));
  if (nested && declared.size() == 2) {
    const std::string declaration = name + "[" + (declared[0] > 0 ? count(declared[0]) : "") + "][" +
                                    (declared[1] > 0 ? count(declared[1]) : "") + "]";
    if (declared[0] > 0 && declared[0] != lists)
      throw Error(path + ": " + declaration + " declares " + count(declared[0]) + " lists, there are " + count(lists));
    if (declared[1] > 0 && declared[1] != taps)
      throw Error(path + ": " + declaration + " declares " + count(declared[1]) + " coefficients a list, the lists hold " +
                  count(taps));
  }
  for (const auto& [constant, holds] : {std::pair<std::string, std::size_t>{"_taps", taps}, {"_channels", lists}}) {
    const double says = name.empty() ? NAN : header_constant(text, name + constant);
    if (std::isfinite(says) && says != static_cast<double>(holds) && (nested || constant == "_taps"))
      throw Error(path + ": " + name + constant + " = " + number_text(says) + ", the list" + (nested ? "s hold " : " holds ") +
                  count(holds) + (constant == "_taps" ? " coefficients" + std::string(nested ? " each" : "") : " lists"));
  }

  // NAME_rate_hz = R; and NAME_causal = 1; as header_contents writes them.
  const double rate = name.empty() ? NAN : header_constant(text, name + "_rate_hz");
  const double rate_hz = std::isfinite(rate) && rate > 0 ? rate : 0;
  const bool causal = !name.empty() && header_constant(text, name + "_causal") == 1;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    masks[m].rate_hz = rate_hz;
    masks[m].causal = causal;
    masks[m].provenance = "file " + path + (masks.size() > 1 ? " ch " + std::to_string(m + 1) : "");
  }
  return masks;
}

}  // namespace halo::audio
