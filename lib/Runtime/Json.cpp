//===- Json.cpp - a small, strict JSON reader -----------------------------===//
//
// A recursive-descent parser over the RFC 8259 grammar. Line and column are
// tracked as whitespace is skipped (the only place a newline may appear
// outside an error), so every value knows where it starts for free.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/Json.h"
#include "indexpool/Runtime/Printable.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace indexpool::runtime::json {

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Number:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "?";
}

const Value *Value::find(std::string_view key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key)
      return &elements[i];
  return nullptr;
}

std::string Value::location() const {
  return std::to_string(line) + ":" + std::to_string(column);
}

namespace {

class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  bool parseDocument(Value &out) {
    if (!parseValue(out, 0))
      return false;
    skipWhitespace();
    if (pos < text.size())
      return fail("unexpected " + describe(pos) + " after the JSON value");
    return true;
  }

  std::string error;

private:
  bool atEnd() const { return pos >= text.size(); }
  unsigned char peek() const { return static_cast<unsigned char>(text[pos]); }

  /// The character at `at`, for messages: 'x', or a byte as \xNN.
  std::string describe(size_t at) const {
    if (at >= text.size())
      return "end of input";
    unsigned char c = static_cast<unsigned char>(text[at]);
    char buffer[16];
    if (c >= 0x20 && c < 0x7F)
      std::snprintf(buffer, sizeof(buffer), "character '%c'", c);
    else
      std::snprintf(buffer, sizeof(buffer), "byte \\x%02X", c);
    return buffer;
  }

  bool fail(const std::string &message) { return failAt(pos, message); }
  bool failAt(size_t at, const std::string &message) {
    if (error.empty())
      error = std::to_string(line) + ":" + std::to_string(at - lineStart + 1) +
              ": " + message;
    return false;
  }

  void skipWhitespace() {
    while (!atEnd()) {
      char c = text[pos];
      if (c == '\n') {
        ++line;
        lineStart = pos + 1;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++pos;
    }
  }

  bool parseValue(Value &out, int depth) {
    skipWhitespace();
    out = Value();
    out.line = line;
    out.column = int(pos - lineStart + 1);
    if (atEnd())
      return fail("unexpected end of input, expected a value");
    switch (text[pos]) {
    case '{':
      return parseObject(out, depth + 1);
    case '[':
      return parseArray(out, depth + 1);
    case '"':
      out.kind = Kind::String;
      return parseString(out.string);
    case 't':
    case 'f':
    case 'n':
      return parseLiteral(out);
    default:
      if (text[pos] == '-' || (text[pos] >= '0' && text[pos] <= '9'))
        return parseNumber(out);
      return fail("unexpected " + describe(pos) + ", expected a value");
    }
  }

  bool parseObject(Value &out, int depth) {
    if (depth > kMaxNestingDepth)
      return fail("nesting deeper than " + std::to_string(kMaxNestingDepth) +
                  " levels");
    out.kind = Kind::Object;
    ++pos; // '{'
    skipWhitespace();
    if (!atEnd() && text[pos] == '}') {
      ++pos;
      return true;
    }
    std::set<std::string> seen;
    while (true) {
      skipWhitespace();
      if (atEnd() || text[pos] != '"')
        return fail(out.keys.empty()
                        ? "expected a string key or '}', got " + describe(pos)
                        : "expected a string key after ',', got " +
                              describe(pos));
      size_t keyStart = pos;
      std::string key;
      if (!parseString(key))
        return false;
      if (!seen.insert(key).second)
        return failAt(keyStart, "duplicate key \"" + printable(key) + "\"");
      skipWhitespace();
      if (atEnd() || text[pos] != ':')
        return fail("expected ':' after the key \"" + printable(key) + "\", got " +
                    describe(pos));
      ++pos;
      out.keys.push_back(std::move(key));
      out.elements.emplace_back();
      if (!parseValue(out.elements.back(), depth))
        return false;
      skipWhitespace();
      if (!atEnd() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (!atEnd() && text[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}' after an object member, got " +
                  describe(pos));
    }
  }

  bool parseArray(Value &out, int depth) {
    if (depth > kMaxNestingDepth)
      return fail("nesting deeper than " + std::to_string(kMaxNestingDepth) +
                  " levels");
    out.kind = Kind::Array;
    ++pos; // '['
    skipWhitespace();
    if (!atEnd() && text[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipWhitespace();
      if (!atEnd() && text[pos] == ']')
        return fail("expected a value after ',', got ']'");
      out.elements.emplace_back();
      if (!parseValue(out.elements.back(), depth))
        return false;
      skipWhitespace();
      if (!atEnd() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (!atEnd() && text[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']' after an array element, got " +
                  describe(pos));
    }
  }

  bool parseLiteral(Value &out) {
    auto matches = [&](std::string_view word) {
      return text.substr(pos, word.size()) == word;
    };
    if (matches("true")) {
      out.kind = Kind::Bool;
      out.boolean = true;
      pos += 4;
    } else if (matches("false")) {
      out.kind = Kind::Bool;
      pos += 5;
    } else if (matches("null")) {
      out.kind = Kind::Null;
      pos += 4;
    } else {
      return fail("invalid literal (expected true, false or null)");
    }
    // "truex", "null1": a literal runs into something else.
    if (!atEnd() && (std::isalnum(peek()) || peek() == '_'))
      return fail("invalid literal (expected true, false or null)");
    return true;
  }

  bool isDigit(size_t at) const {
    return at < text.size() && text[at] >= '0' && text[at] <= '9';
  }

  bool parseNumber(Value &out) {
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    if (!isDigit(pos))
      return fail("invalid number: expected a digit, got " + describe(pos));
    if (text[pos] == '0') {
      ++pos;
      if (isDigit(pos))
        return fail("invalid number: leading zeros are not allowed");
    } else {
      while (isDigit(pos))
        ++pos;
    }
    bool integral = true;
    if (pos < text.size() && text[pos] == '.') {
      integral = false;
      ++pos;
      if (!isDigit(pos))
        return fail("invalid number: expected a digit after '.', got " +
                    describe(pos));
      while (isDigit(pos))
        ++pos;
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      integral = false;
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (!isDigit(pos))
        return fail("invalid number: expected a digit in the exponent, got " +
                    describe(pos));
      while (isDigit(pos))
        ++pos;
    }
    if (!atEnd() && (std::isalpha(peek()) || peek() == '_' || peek() == '.'))
      return fail("invalid number: unexpected " + describe(pos));
    // The grammar is checked above, so strtod (in the "C" locale the tools
    // never change) reads exactly these characters.
    std::string literal(text.substr(start, pos - start));
    out.kind = Kind::Number;
    out.number = std::strtod(literal.c_str(), nullptr);
    if (std::isinf(out.number))
      return failAt(start, "number " + literal + " is out of range");
    if (integral) {
      int64_t value = 0;
      auto [end, ec] = std::from_chars(literal.data(),
                                       literal.data() + literal.size(), value);
      if (ec == std::errc() && end == literal.data() + literal.size()) {
        out.isInteger = true;
        out.integer = value;
      }
    }
    return true;
  }

  bool parseHex4(unsigned &value) {
    value = 0;
    for (int i = 0; i < 4; ++i, ++pos) {
      if (atEnd())
        return fail("unterminated \\u escape");
      char c = text[pos];
      unsigned digit;
      if (c >= '0' && c <= '9')
        digit = unsigned(c - '0');
      else if (c >= 'a' && c <= 'f')
        digit = unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        digit = unsigned(c - 'A' + 10);
      else
        return fail("invalid \\u escape: expected a hex digit, got " +
                    describe(pos));
      value = value * 16 + digit;
    }
    return true;
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xC0 | (code >> 6));
      out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += char(0xE0 | (code >> 12));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    } else {
      out += char(0xF0 | (code >> 18));
      out += char(0x80 | ((code >> 12) & 0x3F));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    }
  }

  /// The length of the valid UTF-8 sequence at `pos` (a byte >= 0x80), or 0.
  size_t utf8Length() const {
    auto byte = [&](size_t i) -> unsigned {
      return pos + i < text.size() ? static_cast<unsigned char>(text[pos + i])
                                   : 0u;
    };
    auto continuation = [&](size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) {
      return byte(i) >= lo && byte(i) <= hi;
    };
    unsigned lead = byte(0);
    if (lead >= 0xC2 && lead <= 0xDF)
      return continuation(1) ? 2 : 0;
    if (lead == 0xE0)
      return continuation(1, 0xA0) && continuation(2) ? 3 : 0;
    if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF)
      return continuation(1) && continuation(2) ? 3 : 0;
    if (lead == 0xED) // no UTF-16 surrogates
      return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0;
    if (lead == 0xF0)
      return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4
                                                                         : 0;
    if (lead >= 0xF1 && lead <= 0xF3)
      return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
    if (lead == 0xF4)
      return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3)
                 ? 4
                 : 0;
    return 0;
  }

  bool parseString(std::string &out) {
    size_t start = pos;
    ++pos; // '"'
    while (true) {
      if (atEnd())
        return failAt(start, "unterminated string");
      unsigned char c = peek();
      if (c == '"') {
        ++pos;
        return true;
      }
      if (c < 0x20)
        return fail("control character " + describe(pos) +
                    " in a string (write it as an escape)");
      if (c >= 0x80) {
        size_t length = utf8Length();
        if (!length)
          return fail("invalid UTF-8 in a string");
        out.append(text.substr(pos, length));
        pos += length;
        continue;
      }
      if (c != '\\') {
        out += char(c);
        ++pos;
        continue;
      }
      size_t escape = pos;
      ++pos;
      if (atEnd())
        return failAt(start, "unterminated string");
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        unsigned code;
        if (!parseHex4(code))
          return false;
        if (code >= 0xDC00 && code <= 0xDFFF)
          return failAt(escape, "unpaired low surrogate in a \\u escape");
        if (code >= 0xD800 && code <= 0xDBFF) {
          if (text.substr(pos, 2) != "\\u")
            return failAt(escape, "unpaired high surrogate in a \\u escape");
          pos += 2;
          unsigned low;
          if (!parseHex4(low))
            return false;
          if (low < 0xDC00 || low > 0xDFFF)
            return failAt(escape, "unpaired high surrogate in a \\u escape");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, code);
        break;
      }
      default:
        return failAt(escape, "invalid escape: backslash followed by " +
                                  describe(pos - 1) + " in a string");
      }
    }
  }

  std::string_view text;
  size_t pos = 0;
  int line = 1;
  size_t lineStart = 0;
};

} // namespace

bool parse(std::string_view text, Value &out, std::string &error) {
  Parser parser(text);
  if (parser.parseDocument(out))
    return true;
  error = parser.error;
  out = Value();
  return false;
}

} // namespace indexpool::runtime::json
