//===- Json.h - a small, strict JSON reader ---------------------*- C++ -*-===//
//
// Reads the manifests that indexpool-compile writes (docs/manifest.md) on a
// machine without LLVM: RFC 8259 JSON, nothing more -- no comments, no
// trailing commas, no NaN, no duplicate keys, valid UTF-8 only. Every value
// remembers where it starts, so that a consumer can point at the field it
// rejects. Errors read "LINE:COLUMN: what" (1-based, columns in bytes).
// No exceptions, no third-party code.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_JSON_H
#define INDEXPOOL_RUNTIME_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace indexpool::runtime::json {

enum class Kind { Null, Bool, Number, String, Array, Object };

/// "null", "a boolean", "a number", "a string", "an array", "an object".
const char *kindName(Kind kind);

/// One JSON value.
struct Value {
  Kind kind = Kind::Null;
  bool boolean = false;
  /// Numbers: the value, rounded to the nearest double.
  double number = 0;
  /// Numbers written without fraction or exponent that fit in int64 (e.g.
  /// 65536, -1, but not 1.0 or 1e3): `integer` is exact.
  bool isInteger = false;
  int64_t integer = 0;
  /// Strings: the decoded text (UTF-8).
  std::string string;
  /// Arrays: the elements. Objects: the member values, in file order, with
  /// their keys in `keys` (same positions).
  std::vector<Value> elements;
  std::vector<std::string> keys;
  /// Where the value starts in the text (1-based; columns count bytes).
  int line = 0;
  int column = 0;

  bool isObject() const { return kind == Kind::Object; }
  bool isArray() const { return kind == Kind::Array; }
  bool isString() const { return kind == Kind::String; }
  bool isNumber() const { return kind == Kind::Number; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isNull() const { return kind == Kind::Null; }

  /// Objects: the value of member `key`, or nullptr.
  const Value *find(std::string_view key) const;
  /// "LINE:COLUMN".
  std::string location() const;
};

/// The deepest nesting of arrays and objects accepted: the parsers recurse
/// once per level, and 256 levels are far more than any manifest or tuning
/// database has, and far less than the stack allows.
constexpr int kMaxNestingDepth = 256;

/// Parses `text`, which must hold exactly one JSON value (with whitespace
/// around it), into `out`. On failure returns false and sets `error` to one
/// line, e.g. "3:14: expected ',' or '}' after an object member".
/// Nesting deeper than kMaxNestingDepth arrays/objects is rejected.
bool parse(std::string_view text, Value &out, std::string &error);

/// Checks, without parsing, that the arrays and objects of `text` nest at
/// most kMaxNestingDepth deep (brackets inside strings do not count), so
/// that a recursive parser such as llvm::json::parse can be given `text`
/// without overflowing the stack. On failure sets `error` to
/// "LINE:COLUMN: nesting deeper than 256 levels". Inline: the compiler's
/// libraries use it without linking the runtime.
inline bool checkNestingDepth(std::string_view text, std::string &error) {
  int depth = 0, line = 1;
  size_t lineStart = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character cannot end the string
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNestingDepth) {
        error = std::to_string(line) + ":" + std::to_string(i - lineStart + 1) +
                ": nesting deeper than " + std::to_string(kMaxNestingDepth) +
                " levels";
        return false;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

} // namespace indexpool::runtime::json

#endif // INDEXPOOL_RUNTIME_JSON_H
