// C/C++ header masks read back (c_header_reader.hpp): the text as a compiler's early phases
// leave it, the one floating array in it (float, double or a filter tool's name for them), its
// sizes and its initialiser's numbers, each read as a compiler reads it or refused.
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
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "audio/error.hpp"

namespace halo::audio {

using filters::Mask;
using filters::MaskSet;

namespace {

using filters::max_mask_taps;

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

int line_at(const std::string& text, std::size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(std::min(offset, text.size())), '\n'));
}

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// `text` less the parentheses around all of it (`(0)`, `((48000))`), trimmed.
std::string without_parentheses(std::string text) {
  text = trimmed(text);
  while (text.size() > 1 && text.front() == '(' && text.back() == ')') text = trimmed(text.substr(1, text.size() - 2));
  return text;
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
  if (const std::optional<long long> integer = integer_literal(body)) {  // to float once, as the conversion does
    const float value = static_cast<float>(*integer);
    return negative ? -static_cast<double>(value) : static_cast<double>(value);
  }
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

// The header as a compiler's first phases see its lines: a UTF-8 byte-order mark as spaces (a
// Visual Studio file's first directive had been missed, a review), and a lone \r (classic Mac
// OS line ends) as \n, so that comments and directives end where its lines do. Offsets stay.
std::string with_newlines(const std::string& raw) {
  std::string text = raw;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.replace(0, 3, "   ");
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) text[i] = '\n';
  return text;
}

// Whether the line that ends at the newline `at` is continued by a backslash: the compiler
// splices it to the next, also where spaces or a \r follow the backslash (GCC and clang do).
bool continued(const std::string& text, std::size_t at, std::size_t line_start) {
  std::size_t last = at;
  while (last > line_start && (text[last - 1] == '\r' || text[last - 1] == ' ' || text[last - 1] == '\t')) --last;
  return last > line_start && text[last - 1] == '\\';
}

// Comments as spaces (newlines kept): /* */, and // to the end of its line and on past lines a
// backslash continues (an old array there had been read, a QA pass). A "//" inside a string or
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
      const std::size_t line_start = text.rfind('\n', i) == std::string::npos ? 0 : text.rfind('\n', i) + 1;
      for (; i < out.size(); ++i) {
        if (out[i] != '\n') {
          out[i] = ' ';
          continue;
        }
        if (!continued(text, i, line_start)) break;
      }
    }
  }
  return out;
}

// What halo reads of a header, and what it cannot be sure of. Comments and every preprocessor
// line are blanked, and so are the lines an `#if 0` (or `#elif 0`, or the `#else` of an `#if 1`)
// leaves out, which the compiler never sees (an array there had been read, a QA pass). Where a
// condition is one halo cannot evaluate (#ifdef, #if FOO), both branches are kept and marked
// uncertain: a directive of theirs inside the array's list, a #define made there or twice, or
// a constant given twice is refused, not guessed (a review: #ifdef EXTRA inside the list had
// been read as if EXTRA were defined).
struct Prepared {
  std::string lines;  // the header with its newlines normalised (with_newlines): for line numbers
  std::string text;   // what halo reads: lines less comments and directives
  std::set<std::string> defined;             // every name #defined (for #ifdef)
  std::map<std::string, long long> defines;  // #define NAME N, made for certain and once
  std::set<std::string> uncertain_defines;   // made under a condition halo cannot evaluate, or twice
  std::vector<std::pair<std::size_t, std::string>> directives;  // offset and keyword of each one kept
                                                                // whose effect halo cannot tell
};

Prepared prepared(const std::string& raw) {
  Prepared result;
  result.lines = with_newlines(raw);
  result.text = without_comments(result.lines);
  std::string& text = result.text;
  struct Open {
    std::optional<bool> taken;  // a branch before this one, or this one, was taken (where halo can tell)
    bool known;                 // this branch's condition is known
    bool skipping;              // its lines are left out now
  };
  std::vector<Open> open;
  // How many of them leave their lines out, and how many halo cannot evaluate: counted, not
  // searched line by line (200000 nested #ifdef lines had taken 8 s, a review).
  int skipping_count = 0, unknown_count = 0;
  const auto skipping = [&] { return skipping_count > 0; };
  const auto uncertain = [&] { return unknown_count > 0; };
  const auto change = [&](Open& o, std::optional<bool> taken, bool known, bool skip) {
    skipping_count += int(skip) - int(o.skipping);
    unknown_count += int(!known) - int(!o.known);
    o = {taken, known, skip};
  };
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
      if (!continued(result.lines, end, line)) break;
      ++end;
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
      const std::optional<long long> condition = integer_literal(without_parentheses(rest));  // `#if (0)` as `#if 0`
      const bool was_skipping = skipping();
      bool known = true;
      if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef") {
        // #ifdef and #ifndef of a name this file defines or not, as a compiler given no -D reads
        // them (an include guard, TFilter's among them, had made every size #defined under it
        // uncertain); not of a name the compiler or the system may define (__cplusplus, _WIN32).
        std::optional<bool> taken = keyword == "if" && condition.has_value() ? std::optional<bool>(*condition != 0) : std::nullopt;
        if (keyword != "if" && !rest.empty() && std::all_of(rest.begin(), rest.end(), identifier_char) &&
            rest.compare(0, 2, "__") != 0 && !(rest[0] == '_' && rest.size() > 1 && std::isupper(static_cast<unsigned char>(rest[1]))) &&
            !uncertain())
          taken = (result.defined.count(rest) > 0) == (keyword == "ifdef");
        known = taken.has_value();
        open.push_back({std::nullopt, true, false});
        change(open.back(), taken, known, known && !*taken);
      } else if (keyword == "elif" && !open.empty()) {
        Open& top = open.back();
        if (top.taken.has_value() && *top.taken)
          change(top, true, top.known, true);  // a branch before was taken: the rest is left out
        else if (top.taken.has_value() && condition.has_value())
          change(top, *condition != 0, true, *condition == 0);
        else
          change(top, std::nullopt, false, false);
        known = top.known;
      } else if (keyword == "else" && !open.empty()) {
        Open& top = open.back();
        change(top, top.taken, top.known, top.taken.has_value() && *top.taken);
        known = top.known;
      } else if (keyword == "endif" && !open.empty()) {
        known = open.back().known;
        change(open.back(), std::nullopt, true, false);
        open.pop_back();
      } else if (keyword == "undef" && !was_skipping) {
        result.defined.erase(rest);
        result.defines.erase(rest);
      } else if (keyword == "define" && !was_skipping) {
        std::istringstream definition(rest);
        std::string name, value;
        definition >> name;
        if (const std::size_t paren = name.find('('); paren != std::string::npos) name = name.substr(0, paren);
        result.defined.insert(name);
        std::getline(definition, value);
        const std::optional<long long> number = integer_literal(without_parentheses(value));
        if (!name.empty() && std::all_of(name.begin(), name.end(), identifier_char)) {
          if (uncertain() || (result.defines.count(name) && (!number || result.defines.at(name) != *number))) {
            result.uncertain_defines.insert(name);
            result.defines.erase(name);
          } else if (number && !result.uncertain_defines.count(name)) {
            result.defines[name] = *number;
          }
        }
      } else if (keyword != "pragma" && keyword != "undef" && keyword != "error" && keyword != "warning" &&
                 keyword != "line" && keyword != "define") {
        known = false;  // #include and what halo does not know
      }
      if (!was_skipping && !known) result.directives.push_back({first, "#" + keyword});
      blank(line, end);
    } else if (skipping()) {
      blank(line, end);
    }
    line = end + 1;
  }
  return result;
}

// A floating array's declaration: where its type (`float`, `double`, ...) and the `=` (or, for
// C++'s `float h[] {...}`, the `{`) of its initialiser are.
struct Declaration {
  std::size_t float_at;
  std::size_t equals;
};

// The `}` that closes the list opened at `open` (its inner lists' too); the text's end where
// none does.
std::size_t list_end(const std::string& text, std::size_t open) {
  int depth = 0;
  for (std::size_t at = open; at < text.size(); ++at) {
    if (text[at] == '{') ++depth;
    if (text[at] == '}' && --depth == 0) return at;
  }
  return text.size();
}

// The element types whose arrays hold a mask: C's own, and the names filter tools' headers give
// them: CMSIS-DSP's float32_t and float64_t, MATLAB's filter designer's real32_T, real64_T and
// real_T, <math.h>'s float_t and double_t. Their arrays had been refused ("change its type to
// float"), TFilter's `double` too. Each tap is the literal as the compiler reads it, then a
// float, as any mask's is.
bool floating_type(const std::string& word) {
  static const std::set<std::string> types = {"float",    "double",   "float32_t", "float64_t", "real32_T",
                                              "real64_T", "real_T",   "float_t",   "double_t"};
  return types.count(word) > 0;
}

// The floating arrays with an initialiser, in one pass. A type inside parentheses is no
// declaration's (`alignas(float)` had been counted as a second array, a review), nor one in a
// string, and a scan that searched ahead from each `float` had taken minutes on a file of them.
std::vector<Declaration> float_arrays(const std::string& text) {
  std::vector<Declaration> found;
  std::size_t float_at = std::string::npos;  // the declaration's `float`, since the last ; { or }
  bool bracket = false;                      // a `[` since it
  int parentheses = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {  // a string's "float h[] = {" is no declaration (a review)
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (c == '(') ++parentheses;
    else if (c == ')') parentheses = std::max(0, parentheses - 1);
    else if (c == ';' || c == '}') float_at = std::string::npos, bracket = false;
    else if (c == '[' && float_at != std::string::npos) bracket = true;
    else if (identifier_char(c) && (i == 0 || !identifier_char(text[i - 1]))) {  // a word, whole
      std::size_t end = i;
      while (end < text.size() && identifier_char(text[end])) ++end;
      if (parentheses == 0 && float_at == std::string::npos && floating_type(text.substr(i, end - i))) float_at = i;
      i = end - 1;
    }
    else if ((c == '=' || (c == '{' && bracket)) && float_at != std::string::npos && parentheses == 0) {
      const std::size_t next = c == '{' ? i : text.find_first_not_of(" \t\r\n", i + 1);
      if (next != std::string::npos && text[next] == '{') {
        found.push_back({float_at, i});
        i = list_end(text, next);  // on past its list
      }
      float_at = std::string::npos;
      bracket = false;
    } else if (c == '{') {
      float_at = std::string::npos, bracket = false;
    }
  }
  return found;
}

// The identifier just before the first `[` of a declaration (so that `float const h[]` and
// attributes name `h`, not `const`: a QA pass); empty where there is none.
std::string array_name(const std::string& text, Declaration declaration) {
  const std::size_t open = text.find('[', declaration.float_at);
  if (open == std::string::npos || open > declaration.equals) return "";
  std::size_t end = open;
  while (end > declaration.float_at && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  std::size_t begin = end;
  while (begin > declaration.float_at && identifier_char(text[begin - 1])) --begin;
  return text.substr(begin, end - begin);
}

// NAME and its sizes: each `[...]` 0 when empty, else a whole number written out or #defined
// for certain; anything else refused, and so are sizes past what a mask holds (a size near
// 2^62 had wrapped the product of two and read past the list, a review).
struct Array {
  std::string name;
  std::vector<std::size_t> sizes;
};

Array array_of(const std::string& path, const Prepared& header, Declaration declaration) {
  const std::string& text = header.text;
  const auto where = [&](std::size_t at) { return path + ":" + std::to_string(line_at(header.lines, at)) + ": "; };
  Array array;
  array.name = array_name(text, declaration);
  const std::size_t open = text.find('[', declaration.float_at);
  if (array.name.empty() || open == std::string::npos || open > declaration.equals)
    throw Error(where(declaration.float_at) + "the number given a list is not an array halo reads: `float NAME[] = {...}`");
  for (std::size_t at = open; at < declaration.equals && text[at] == '[';) {
    const std::size_t close = text.find(']', at);
    if (close == std::string::npos || close > declaration.equals) throw Error(where(at) + array.name + ": a `[` without its `]`");
    const std::string inside = trimmed(text.substr(at + 1, close - at - 1));
    std::optional<long long> size = inside.empty() ? std::optional<long long>(0) : integer_literal(inside);
    if (!size && header.uncertain_defines.count(inside))
      throw Error(where(at) + array.name + "[" + excerpt(inside) + "]: " + excerpt(inside) +
                  " is defined under a condition halo cannot evaluate, or twice; write the size as a number");
    if (!size && header.defines.count(inside)) size = header.defines.at(inside);
    if (!size || *size < 0)
      throw Error(where(at) + array.name + "[" + excerpt(inside) + "]: halo cannot tell this size; write it as a number, or []");
    if (static_cast<unsigned long long>(*size) > max_mask_taps)
      throw Error(where(at) + array.name + "[" + excerpt(inside) + "]: more than the " + std::to_string(max_mask_taps) +
                  " taps a mask holds");
    array.sizes.push_back(static_cast<std::size_t>(*size));
    at = text.find_first_not_of(" \t\r\n", close + 1);
    if (at == std::string::npos) break;
  }
  if (array.sizes.size() > 2)
    throw Error(where(open) + excerpt(array.name) + " has " + std::to_string(array.sizes.size()) +
                " sizes: halo reads one mask, NAME[M], or one per channel, NAME[C][M]");
  if (array.sizes.size() == 2 && array.sizes[1] == 0)
    throw Error(where(open) + array.name + "[" + (array.sizes[0] ? std::to_string(array.sizes[0]) : "") +
                "][]: the second size must be given");
  return array;
}

// `IDENTIFIER = VALUE;` (or `IDENTIFIER{VALUE}`) in the prepared text, the identifier whole
// (`x_causal` is not found inside `x_causal_rate_hz`): absent; a number (a C literal, true or
// false, a name #defined for certain, in parentheses or not); or given in a form halo cannot
// read, or twice with two values, which the caller refuses (`h_causal = true` and `h_rate_hz =
// SR` had been passed over, the mask's alignment and rate lost without a word; `2 * 2` read as
// 2: a review).
struct Constant {
  enum class Kind { absent, number, unreadable, conflicting } kind = Kind::absent;
  double value = NAN;
  std::string text;  // as written, for the message
};

Constant header_constant(const Prepared& header, const std::string& identifier) {
  const std::string& text = header.text;
  Constant constant;
  for (std::size_t at = text.find(identifier); at != std::string::npos; at = text.find(identifier, at + 1)) {
    const std::size_t end = at + identifier.size();
    if ((at > 0 && identifier_char(text[at - 1])) || (end < text.size() && identifier_char(text[end]))) continue;
    const std::size_t eq = text.find_first_not_of(" \t\r\n", end);
    if (eq == std::string::npos || (text[eq] != '=' && text[eq] != '{') || text.compare(eq, 2, "==") == 0) continue;
    const std::size_t stop = text.find(text[eq] == '=' ? ';' : '}', eq);
    if (stop == std::string::npos) return {Constant::Kind::unreadable, NAN, trimmed(text.substr(eq + 1))};
    const std::string written = trimmed(text.substr(eq + 1, stop - eq - 1));
    const std::string value = without_parentheses(written);
    std::optional<double> number = c_number(value);
    if (!number && (value == "true" || value == "false")) number = value == "true" ? 1 : 0;
    if (!number && header.defines.count(value)) number = static_cast<double>(header.defines.at(value));
    if (!number) return {Constant::Kind::unreadable, NAN, written};
    if (constant.kind == Constant::Kind::number && constant.value != *number)
      return {Constant::Kind::conflicting, NAN, constant.text + " and " + written};
    constant = {Constant::Kind::number, *number, written};
  }
  return constant;
}

// The number a constant says, or NaN where it is absent; refused where it is given but halo
// cannot read it, or given twice with two values.
double constant_value(const std::string& path, const Prepared& header, const std::string& identifier) {
  const Constant constant = header_constant(header, identifier);
  if (constant.kind == Constant::Kind::unreadable)
    throw Error(path + ": " + identifier + " = " + excerpt(constant.text, 40) +
                ": halo cannot read this value; write it as a number");
  if (constant.kind == Constant::Kind::conflicting)
    throw Error(path + ": " + identifier + " is given twice (" + excerpt(constant.text, 60) +
                "), under conditions halo cannot evaluate: keep one");
  return constant.value;
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

std::string coefficients(std::size_t n) { return std::to_string(n) + (n == 1 ? " coefficient" : " coefficients"); }

// The initialiser's lists from the `{` after `equals`: one per inner list, or one of the flat
// list; `nested` says which. Items are separated by exactly one comma (a trailing one allowed):
// `0.5f -0.25f`, a comma left out, is one expression to a compiler, which halo had read as two
// taps (a review). A sign may stand apart from its number (`- 0.5f`).
MaskSet initialiser_lists(const std::string& path, const Prepared& header, std::size_t equals, bool& nested) {
  const std::string& text = header.text;
  MaskSet masks;
  std::vector<float> current;
  int depth = 0;
  nested = false;
  bool item_ends = false;  // an item (a number or an inner list) was read: a comma or a } comes next
  for (std::size_t i = text.find('{', equals); i < text.size(); ++i) {
    const char c = text[i];
    // Counting lines is linear in the offset: only for a message.
    const auto where = [&] { return path + ":" + std::to_string(line_at(header.lines, i)) + ": "; };
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == '{') {
      if (item_ends) throw Error(where() + "a comma is missing before this list");
      if (++depth > 2) throw Error(where() + "braces nested more than two deep");
      if (depth == 2 && !current.empty()) throw Error(where() + "a number outside the inner lists");
      if (depth == 2) nested = true;
      current.clear();
    } else if (c == '}') {
      if (depth == 2 || !nested) {
        if (current.empty()) throw Error(where() + "an empty list");
        if (!masks.empty() && current.size() != masks.front().taps.size())
          throw Error(where() + coefficients(current.size()) + ", the first list has " + std::to_string(masks.front().taps.size()));
        Mask mask;
        mask.taps = current;
        masks.push_back(std::move(mask));
        current.clear();
      }
      item_ends = true;
      if (--depth == 0) return masks;
    } else if (c == ',') {
      if (!item_ends) throw Error(where() + "a comma with no number before it");
      item_ends = false;
    } else {
      if (item_ends) {
        const std::string next = text.substr(i, 24);
        throw Error(where() + "a comma is missing before \"" + excerpt(next.substr(0, next.find_first_of(",} \t\r\n"))) +
                    "\" (two numbers with none between are one expression to a compiler)");
      }
      if (depth == 1 && nested) throw Error(where() + "a number outside the inner lists");
      std::size_t start = i;
      std::string sign;
      if (c == '-' || c == '+') {  // its number may stand apart
        sign = c;
        start = text.find_first_not_of(" \t\r\n", i + 1);
        if (start == std::string::npos) start = text.size();
      }
      std::size_t end = start;
      while (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != '{' &&
             !std::isspace(static_cast<unsigned char>(text[end])))
        ++end;
      const std::string token = sign + text.substr(start, end - start);
      const std::optional<double> value = c_number(token);
      if (!value) throw Error(where() + "\"" + excerpt(token) + "\" is not a number");
      // (A double within half a step of FLT_MAX rounds to it, as the conversion does.)
      if (!std::isfinite(static_cast<float>(*value))) throw Error(where() + "a coefficient does not fit in a float");
      current.push_back(static_cast<float>(*value));
      if (current.size() > max_mask_taps)
        throw Error(path + ": more than " + std::to_string(max_mask_taps) + " taps, the most a mask holds");
      item_ends = true;
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

// Where no floating array is found, what the file holds instead, for the message: an array of
// another type (CMSIS's fixed-point `q15_t`, an `int` table) is named with its declaration.
std::string what_else(const std::string& text) {
  for (std::size_t open = text.find('['); open != std::string::npos; open = text.find('[', open + 1)) {
    const std::size_t eq = text.find_first_of("=;{", open);
    if (eq == std::string::npos || text[eq] == ';') continue;
    const std::size_t brace = text.find_first_not_of(" \t\r\n", text[eq] == '=' ? eq + 1 : eq);
    if (brace == std::string::npos || text[brace] != '{') continue;
    const std::size_t start = text.find_last_of(";}", open) == std::string::npos ? 0 : text.find_last_of(";}", open) + 1;
    std::string declaration = trimmed(text.substr(start, eq - start));
    std::replace_if(declaration.begin(), declaration.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }, ' ');
    return ": the array here is `" + excerpt(declaration, 80) +
           "`, and halo reads arrays of float or double (float32_t, real64_T and their kin too)";
  }
  return "";
}

}  // namespace

bool holds_header_array(const std::string& raw) { return !float_arrays(prepared(raw).text).empty(); }

MaskSet parse_header_mask(const std::string& path, const std::string& raw) {
  const Prepared header = prepared(raw);
  const std::vector<Declaration> arrays = float_arrays(header.text);
  if (arrays.empty()) throw Error(path + ": no `float NAME[] = {...}` array (nor double)" + what_else(header.text));
  if (arrays.size() > 1) {  // a helper table before the mask had been read as the mask (a QA pass)
    std::string names;
    for (std::size_t a = 0; a < arrays.size() && a < 4; ++a) {
      const std::string name = array_name(header.text, arrays[a]);
      names += (a == 0 ? "" : ", ") + (name.empty() ? std::string("?") : name);
    }
    if (arrays.size() > 4) names += ", ...";
    throw Error(path + ": " + std::to_string(arrays.size()) + " floating arrays (" + names +
                "): halo reads a header of one, the mask");
  }
  const Declaration declaration = arrays.front();
  const Array array = array_of(path, header, declaration);
  // A directive halo cannot evaluate inside the list (#include, #ifdef of a system's name) may
  // change what the compiler reads there (a review: an #include's taps had been left out, an
  // #ifdef's kept).
  const std::size_t end = list_end(header.text, header.text.find('{', declaration.equals));
  for (const auto& [at, keyword] : header.directives)
    if (at > declaration.equals && at < end)
      throw Error(path + ":" + std::to_string(line_at(header.lines, at)) + ": " + excerpt(keyword) +
                  " inside the list: halo cannot tell what the compiler reads there");
  bool braced = false;  // the initialiser's lists are inner lists
  MaskSet read = initialiser_lists(path, header, declaration.equals, braced);
  MaskSet masks = shaped(path, array, std::move(read), braced);
  const bool nested = masks.size() > 1 || array.sizes.size() == 2;

  // NAME_taps and NAME_channels, as header_contents writes them, checked against the lists
  // where halo can read them (they change nothing it reads: `2 * 2` is passed over); NAME_rate_hz
  // = R and NAME_causal = 1 read, or refused where given in a form halo cannot read.
  const std::size_t taps = masks.front().taps.size(), lists = masks.size();
  for (const auto& [constant, holds] : {std::pair<std::string, std::size_t>{"_taps", taps}, {"_channels", lists}}) {
    const Constant given = header_constant(header, array.name + constant);
    const double says = given.kind == Constant::Kind::number ? given.value : NAN;
    if (std::isfinite(says) && says != static_cast<double>(holds) && (nested || constant == "_taps"))
      throw Error(path + ": " + array.name + constant + " = " + number_text(says) + ", the list" +
                  (nested ? "s hold " : " holds ") + std::to_string(holds) +
                  (constant == "_taps" ? " coefficients" + std::string(nested ? " each" : "") : " lists"));
  }
  const double rate = constant_value(path, header, array.name + "_rate_hz");
  const double rate_hz = std::isfinite(rate) && rate > 0 ? rate : 0;
  const double causal_given = constant_value(path, header, array.name + "_causal");
  const bool causal = causal_given == 1;
  for (std::size_t m = 0; m < masks.size(); ++m) {
    masks[m].rate_hz = rate_hz;
    masks[m].causal = causal;
    masks[m].alignment_stated = causal_given == 0 || causal;
    masks[m].provenance = "file " + path + (masks.size() > 1 ? " ch " + std::to_string(m + 1) : "");
  }
  return masks;
}

}  // namespace halo::audio
