// C/C++ header masks read back (c_header_reader.hpp): the text as a compiler's early phases
// leave it, the one float array in it, its sizes and its initialiser's numbers, each read as a
// compiler reads it or refused.
#include "audio/c_header_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "audio/error.hpp"

namespace halo::audio {

using filters::Mask;
using filters::MaskSet;

namespace {

constexpr std::size_t max_mask_taps = std::size_t{1} << 24;  // as mask_file.cpp

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

int line_at(const std::string& text, std::size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(std::min(offset, text.size())), '\n'));
}

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// A C integer literal, whole: decimal, 0x hex or 0 octal (010 is 8), u/l suffixes; nothing for
// anything else (an expression, a name, a floating literal).
std::optional<long long> integer_literal(std::string token) {
  token = trimmed(token);
  while (!token.empty() && std::string("uUlL").find(token.back()) != std::string::npos) token.pop_back();
  if (token.empty() || !std::isdigit(static_cast<unsigned char>(token[0]))) return std::nullopt;
  int base = 10;
  std::string digits = token;
  if (token.size() > 2 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X')) {
    base = 16;
    digits = token.substr(2);
  } else if (token.size() > 1 && token[0] == '0') {
    base = 8;
  }
  const char* allowed = base == 16 ? "0123456789abcdefABCDEF" : base == 8 ? "01234567" : "0123456789";
  if (digits.find_first_not_of(allowed) != std::string::npos) return std::nullopt;
  errno = 0;
  const long long value = std::strtoll(digits.c_str(), nullptr, base);
  if (errno != 0) return std::nullopt;
  return value;
}

// One number of an initialiser as a compiler reads it: an integer literal, or a decimal or hex
// floating literal, with its sign. A literal with f/F is a float, read as one (read as a double
// first, it had been a float step off where the double fell between two, a QA pass); without, a
// double (l/L: a long double), then rounded to float, as the conversion does. Nothing for any
// other token (a name, an expression, "nan").
std::optional<double> c_number(const std::string& token) {
  if (token.empty()) return std::nullopt;
  const bool negative = token[0] == '-';
  const std::string body = token[0] == '-' || token[0] == '+' ? token.substr(1) : token;
  if (body.empty()) return std::nullopt;
  if (const std::optional<long long> integer = integer_literal(body))
    return negative ? -static_cast<double>(*integer) : static_cast<double>(*integer);
  std::string literal = body;
  const char suffix = literal.back();
  if (std::string("fFlL").find(suffix) != std::string::npos) literal.pop_back();
  const bool hex = literal.size() > 2 && literal[0] == '0' && (literal[1] == 'x' || literal[1] == 'X');
  const char* allowed = hex ? "0123456789abcdefABCDEFxXpP.+-" : "0123456789.eE+-";
  if (literal.empty() || literal.find_first_not_of(allowed) != std::string::npos ||
      !(std::isdigit(static_cast<unsigned char>(literal[0])) || literal[0] == '.'))
    return std::nullopt;
  char* stop = nullptr;
  const std::string signed_literal = (negative ? "-" : "") + literal;
  double value = 0;
  if (suffix == 'f' || suffix == 'F') value = std::strtof(signed_literal.c_str(), &stop);
  else if (suffix == 'l' || suffix == 'L') value = static_cast<double>(static_cast<float>(std::strtold(signed_literal.c_str(), &stop)));
  else value = std::strtod(signed_literal.c_str(), &stop);
  if (stop != signed_literal.c_str() + signed_literal.size()) return std::nullopt;
  return value;
}

// Comments as spaces (newlines kept, so that line numbers stay): /* */, and // to the end of
// its line and on past lines a backslash continues (a compiler splices those before it sees
// the comment: an old array there had been read, a QA pass). A "//" inside a string or
// character literal is none.
std::string without_comments(const std::string& text) {
  std::string out = text;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (c == '"' || c == '\'') {
      for (++i; i < out.size() && out[i] != c && out[i] != '\n'; ++i)
        if (out[i] == '\\') ++i;
    } else if (out.compare(i, 2, "/*") == 0) {
      const std::size_t end = out.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? out.size() : end + 2;
      for (std::size_t j = i; j < stop; ++j)
        if (out[j] != '\n') out[j] = ' ';
      i = stop - 1;
    } else if (out.compare(i, 2, "//") == 0) {
      for (; i < out.size(); ++i) {
        if (out[i] != '\n') {
          out[i] = ' ';
          continue;
        }
        std::size_t last = i;  // the line's end before its newline (and a \r)
        while (last > 0 && text[last - 1] == '\r') --last;
        if (last == 0 || text[last - 1] != '\\') break;
      }
    }
  }
  return out;
}

// What halo reads of a header: comments and every preprocessor line blanked, and the lines a
// `#if 0` (or the `#else` of an `#if 1`) leaves out, which the compiler never sees (an array
// there had been read, a QA pass). A condition halo cannot evaluate keeps both branches: two
// arrays are then refused. `#define NAME N` (a whole number) is kept for sizes.
struct Prepared {
  std::string text;
  std::map<std::string, long long> defines;
};

Prepared prepared(const std::string& raw) {
  Prepared result{without_comments(raw), {}};
  std::string& text = result.text;
  struct Open {
    std::optional<bool> taken;  // the branch's condition, where halo can tell it
    bool skipping;              // its lines are left out now
  };
  std::vector<Open> open;
  const auto skipping = [&] { return std::any_of(open.begin(), open.end(), [](const Open& o) { return o.skipping; }); };
  const auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t j = from; j < to; ++j)
      if (text[j] != '\n') text[j] = ' ';
  };
  for (std::size_t line = 0; line < text.size();) {
    std::size_t end = line;  // the logical line: to a newline no backslash continues
    while (true) {
      end = text.find('\n', end);
      if (end == std::string::npos) {
        end = text.size();
        break;
      }
      std::size_t last = end;
      while (last > line && raw[last - 1] == '\r') --last;
      if (last > line && raw[last - 1] == '\\') {
        ++end;
        continue;
      }
      break;
    }
    const std::size_t first = text.find_first_not_of(" \t\r", line);
    if (first < end && text[first] == '#') {
      std::string words = text.substr(first + 1, end - first - 1);
      std::replace(words.begin(), words.end(), '\\', ' ');
      std::istringstream in(words);
      std::string keyword, rest;
      in >> keyword;
      std::getline(in, rest);
      rest = trimmed(rest);
      const std::optional<long long> condition = integer_literal(rest);
      if (keyword == "if") {
        const std::optional<bool> taken = condition ? std::optional<bool>(*condition != 0) : std::nullopt;
        open.push_back({taken, taken.has_value() && !*taken});
      } else if (keyword == "ifdef" || keyword == "ifndef") {
        open.push_back({std::nullopt, false});
      } else if (keyword == "elif" && !open.empty()) {
        Open& top = open.back();
        if (top.taken.has_value() && *top.taken) {
          top.skipping = true;  // a branch before was taken: the rest is left out
        } else {
          top.taken = std::nullopt;
          top.skipping = false;
        }
      } else if (keyword == "else" && !open.empty()) {
        Open& top = open.back();
        top.skipping = top.taken.has_value() && *top.taken;
      } else if (keyword == "endif" && !open.empty()) {
        open.pop_back();
      } else if (keyword == "define" && !skipping()) {
        std::istringstream definition(rest);
        std::string name, value;
        definition >> name;
        std::getline(definition, value);
        if (const std::optional<long long> number = integer_literal(value);
            number && !name.empty() && std::all_of(name.begin(), name.end(), identifier_char))
          result.defines[name] = *number;
      }
      blank(line, end);
    } else if (skipping()) {
      blank(line, end);
    }
    line = end + 1;
  }
  return result;
}

// The float arrays with an initialiser: where each `float` and its `=` are.
struct Declaration {
  std::size_t float_at;
  std::size_t equals;
};

std::vector<Declaration> float_arrays(const std::string& text) {
  std::vector<Declaration> found;
  for (std::size_t at = text.find("float"); at != std::string::npos; at = text.find("float", at + 5)) {
    if ((at > 0 && identifier_char(text[at - 1])) || (at + 5 < text.size() && identifier_char(text[at + 5]))) continue;
    const std::size_t semicolon = text.find(';', at);
    const std::size_t eq = text.find('=', at);
    const std::size_t brace = text.find('{', at);
    if (eq != std::string::npos && brace != std::string::npos && eq < brace && (semicolon == std::string::npos || brace < semicolon))
      found.push_back({at, eq});
  }
  return found;
}

// NAME and its sizes, from the declaration's text: the identifier just before the first `[`
// (so that `float const h[]` and attributes name `h`, not `const`: a QA pass), then each
// `[...]`: 0 for an empty one, else a whole number, written out or #defined.
struct Array {
  std::string name;
  std::vector<std::size_t> sizes;
};

Array array_of(const std::string& path, const std::string& raw, const Prepared& header, Declaration declaration) {
  const std::string& text = header.text;
  const std::string where = path + ":" + std::to_string(line_at(raw, declaration.float_at)) + ": ";
  const std::size_t open = text.find('[', declaration.float_at);
  if (open == std::string::npos || open > declaration.equals)
    throw Error(where + "the float given a list is not an array: halo reads `float NAME[] = {...}`");
  Array array;
  std::size_t begin = open;
  while (begin > declaration.float_at && std::isspace(static_cast<unsigned char>(text[begin - 1]))) --begin;
  std::size_t name_end = begin;
  while (begin > declaration.float_at && identifier_char(text[begin - 1])) --begin;
  array.name = text.substr(begin, name_end - begin);
  if (array.name.empty()) throw Error(where + "an array without a name before its `[`");
  for (std::size_t at = open; at < declaration.equals && text[at] == '[';) {
    const std::size_t close = text.find(']', at);
    if (close == std::string::npos || close > declaration.equals) throw Error(where + array.name + ": a `[` without its `]`");
    const std::string inside = trimmed(text.substr(at + 1, close - at - 1));
    std::optional<long long> size = inside.empty() ? std::optional<long long>(0) : integer_literal(inside);
    if (!size && header.defines.count(inside)) size = header.defines.at(inside);
    if (!size || *size < 0)
      throw Error(where + array.name + "[" + inside + "]: halo cannot tell this size; write it as a number, or []");
    array.sizes.push_back(static_cast<std::size_t>(*size));
    at = text.find_first_not_of(" \t\r\n", close + 1);
    if (at == std::string::npos) break;
  }
  if (array.sizes.size() > 2)
    throw Error(where + array.name + " has " + std::to_string(array.sizes.size()) +
                " sizes: halo reads one mask, NAME[M], or one per channel, NAME[C][M]");
  if (array.sizes.size() == 2 && array.sizes[1] == 0)
    throw Error(where + array.name + "[" + (array.sizes[0] ? std::to_string(array.sizes[0]) : "") +
                "][]: the second size must be given");
  return array;
}

// The value of `IDENTIFIER = VALUE;` in the prepared text, the identifier whole (`x_causal` is
// not found inside `x_causal_rate_hz`), where VALUE is one number and nothing else but its
// suffix: `2 * 2` or `N + 1` is an expression (`2 * 2` had been read as 2, a review); NaN where
// there is none.
double header_constant(const std::string& text, const std::string& identifier) {
  for (std::size_t at = text.find(identifier); at != std::string::npos; at = text.find(identifier, at + 1)) {
    const std::size_t end = at + identifier.size();
    if ((at > 0 && identifier_char(text[at - 1])) || (end < text.size() && identifier_char(text[end]))) continue;
    const std::size_t eq = text.find_first_not_of(" \t\r\n", end);
    if (eq == std::string::npos || text[eq] != '=') continue;
    const std::size_t semicolon = text.find(';', eq);
    if (semicolon == std::string::npos) return NAN;
    const std::optional<double> value = c_number(trimmed(text.substr(eq + 1, semicolon - eq - 1)));
    return value ? *value : NAN;
  }
  return NAN;
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// The initialiser's lists from the `{` after `equals`: one per inner list, or one of the flat
// list; `nested` says which.
MaskSet initialiser_lists(const std::string& path, const std::string& raw, const std::string& text, std::size_t equals,
                          bool& nested) {
  MaskSet masks;
  std::vector<float> current;
  int depth = 0;
  nested = false;
  for (std::size_t i = text.find('{', equals); i < text.size(); ++i) {
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
      if (--depth == 0) return masks;
    } else if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      continue;
    } else {
      if (depth == 1 && nested) throw Error(where() + "a number outside the inner lists");
      std::size_t end = i;
      while (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != '{' &&
             !std::isspace(static_cast<unsigned char>(text[end])))
        ++end;
      const std::string token = text.substr(i, end - i);
      const std::optional<double> value = c_number(token);
      if (!value) throw Error(where() + "\"" + token.substr(0, 24) + "\" is not a number");
      if (!std::isfinite(*value)) throw Error(where() + "NaN or Inf coefficient");
      if (std::fabs(*value) > FLT_MAX) throw Error(where() + "a coefficient does not fit in a float");
      current.push_back(static_cast<float>(*value));
      if (current.size() > max_mask_taps)
        throw Error(path + ": more than " + std::to_string(max_mask_taps) + " taps, the most a mask holds");
      i = end - 1;
    }
  }
  throw Error(path + ": the coefficient list is not closed");
}

// The lists shaped as the declaration says a compiler lays them out, or refused where they do
// not fill it: `float h[5] = {four values}` is five taps to a compiler, the last 0, and halo had
// read four, centring the mask a frame early (a QA pass); `float h[2][3] = {six values}` is two
// masks of three, braces left out (a review), and `float h[] = {{0.5f}, {0.25f}}` one of two.
MaskSet shaped(const std::string& path, const Array& array, MaskSet masks, bool nested) {
  const auto count = [](std::size_t n) { return std::to_string(n); };
  const auto declaration = [&] {
    std::string text = array.name;
    for (std::size_t size : array.sizes) text += "[" + (size > 0 ? count(size) : "") + "]";
    return text;
  };
  if (array.sizes.size() == 1 && nested) {
    if (masks.front().taps.size() != 1)
      throw Error(path + ": " + declaration() + " has one size, and its list holds lists: give " + array.name +
                  "[C][M] for one mask per channel");
    Mask flat;
    for (const Mask& scalar : masks) flat.taps.push_back(scalar.taps.front());
    masks = {flat};
    nested = false;
  }
  if (array.sizes.size() == 2 && !nested) {
    const std::vector<float> flat = masks.front().taps;
    const std::size_t each = array.sizes[1], lists = array.sizes[0] > 0 ? array.sizes[0] : flat.size() / each;
    if (lists * each != flat.size())
      throw Error(path + ": " + declaration() + " declares " + (array.sizes[0] > 0 ? count(lists * each) : "lists of " + count(each)) +
                  " coefficients, the list holds " + count(flat.size()));
    masks.clear();
    for (std::size_t m = 0; m < lists; ++m) {
      Mask mask;
      mask.taps.assign(flat.begin() + static_cast<std::ptrdiff_t>(m * each), flat.begin() + static_cast<std::ptrdiff_t>((m + 1) * each));
      masks.push_back(std::move(mask));
    }
  }
  const std::size_t taps = masks.front().taps.size(), lists = masks.size();
  if (array.sizes.size() == 1 && array.sizes[0] > 0 && array.sizes[0] != taps)
    throw Error(path + ": " + declaration() + " declares " + count(array.sizes[0]) + " coefficients, the list holds " + count(taps));
  if (array.sizes.size() == 2 && array.sizes[0] > 0 && array.sizes[0] != lists)
    throw Error(path + ": " + declaration() + " declares " + count(array.sizes[0]) + " lists, there are " + count(lists));
  if (array.sizes.size() == 2 && array.sizes[1] != taps)
    throw Error(path + ": " + declaration() + " declares " + count(array.sizes[1]) + " coefficients a list, the lists hold " +
                count(taps));
  return masks;
}

}  // namespace

bool holds_header_array(const std::string& raw) { return !float_arrays(prepared(raw).text).empty(); }

MaskSet parse_header_mask(const std::string& path, const std::string& raw) {
  const Prepared header = prepared(raw);
  const std::vector<Declaration> arrays = float_arrays(header.text);
  if (arrays.empty()) throw Error(path + ": no `float NAME[] = {...}` array");
  if (arrays.size() > 1) {  // a helper table before the mask had been read as the mask (a QA pass)
    std::string names;
    for (const Declaration& declaration : arrays)
      names += (names.empty() ? "" : ", ") + array_of(path, raw, header, declaration).name;
    throw Error(path + ": " + std::to_string(arrays.size()) + " float arrays (" + names +
                "): halo reads a header of one, the mask");
  }
  const Array array = array_of(path, raw, header, arrays.front());
  bool braced = false;  // the initialiser's lists are inner lists
  MaskSet read = initialiser_lists(path, raw, header.text, arrays.front().equals, braced);
  MaskSet masks = shaped(path, array, std::move(read), braced);
  const bool nested = masks.size() > 1 || array.sizes.size() == 2;

  // NAME_taps and NAME_channels, as header_contents writes them, checked against the lists;
  // NAME_rate_hz = R and NAME_causal = 1 read.
  const std::size_t taps = masks.front().taps.size(), lists = masks.size();
  for (const auto& [constant, holds] : {std::pair<std::string, std::size_t>{"_taps", taps}, {"_channels", lists}}) {
    const double says = header_constant(header.text, array.name + constant);
    if (std::isfinite(says) && says != static_cast<double>(holds) && (nested || constant == "_taps"))
      throw Error(path + ": " + array.name + constant + " = " + number_text(says) + ", the list" +
                  (nested ? "s hold " : " holds ") + std::to_string(holds) +
                  (constant == "_taps" ? " coefficients" + std::string(nested ? " each" : "") : " lists"));
  }
  const double rate = header_constant(header.text, array.name + "_rate_hz");
  const double rate_hz = std::isfinite(rate) && rate > 0 ? rate : 0;
  const bool causal = header_constant(header.text, array.name + "_causal") == 1;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    masks[m].rate_hz = rate_hz;
    masks[m].causal = causal;
    masks[m].provenance = "file " + path + (masks.size() > 1 ? " ch " + std::to_string(m + 1) : "");
  }
  return masks;
}

}  // namespace halo::audio
