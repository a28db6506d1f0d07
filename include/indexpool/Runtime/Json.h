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

/// Parses `text`, which must hold exactly one JSON value (with whitespace
/// around it), into `out`. On failure returns false and sets `error` to one
/// line, e.g. "3:14: expected ',' or '}' after an object member".
/// Nesting deeper than 256 arrays/objects is rejected.
bool parse(std::string_view text, Value &out, std::string &error);

} // namespace indexpool::runtime::json

#endif // INDEXPOOL_RUNTIME_JSON_H
