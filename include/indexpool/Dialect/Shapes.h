//===- Shapes.h - size relations shared by verifiers and runtimes -*- C++ -*-===//
//
// The size rules of the ops in one place, so that the verifiers (static
// shapes) and the runtimes (dynamic sizes) cannot disagree. Plain integers:
// no MLIR types, kShapeDynamic marks an unknown size. Every product of sizes
// is overflow-checked; the property bounds (temperature, min_absmax) and the
// i32 index limits are stated here with the one message each tool prints.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_DIALECT_SHAPES_H
#define INDEXPOOL_DIALECT_SHAPES_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

namespace mlir::indexpool {

/// Same value as mlir::ShapedType::kDynamic.
constexpr int64_t kShapeDynamic = std::numeric_limits<int64_t>::min();

constexpr int64_t kMinPoolSize = 2;
constexpr int64_t kMaxPoolSize = 64;
constexpr int64_t kMaxHadamardDim = 1024;

/// Column indices (topk, select's pools) are i32: at most 2^31 - 1 columns.
constexpr int64_t kMaxColumns = std::numeric_limits<int32_t>::max();
/// Token indices are i32 too: at most 2^31 distinct tokens (0 .. 2^31 - 1).
constexpr int64_t kMaxTokens = int64_t(1) << 31;

/// 2^-126, the smallest normal f32.
constexpr double kMinNormalF32 = 0x1p-126;

inline bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// pool_size must be a power of two in [2, 64].
inline bool isValidPoolSize(int64_t p) {
  return isPowerOfTwo(p) && p >= kMinPoolSize && p <= kMaxPoolSize;
}

/// The paged forms also take pool_size = 1: one entry per token (the token
/// tier of a two-stage selection, docs/serving-layout.md).
inline bool isValidPagedPoolSize(int64_t p) {
  return p == 1 || isValidPoolSize(p);
}

/// The Hadamard dimension must be a power of two no larger than 1024.
inline bool isValidHadamardDim(int64_t d) {
  return isPowerOfTwo(d) && d <= kMaxHadamardDim;
}

/// G = floor(T / P): the incomplete tail of T mod P tokens is not pooled.
inline int64_t numGroups(int64_t tokens, int64_t poolSize) {
  if (tokens == kShapeDynamic)
    return kShapeDynamic;
  return tokens / poolSize;
}

/// a * b for sizes (>= 0); std::nullopt when it overflows int64.
inline std::optional<int64_t> checkedMulSizes(int64_t a, int64_t b) {
  int64_t product;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

/// a * b, dynamic when either is -- or when the product overflows int64, so
/// that a caller comparing sizes never sees a wrapped value. Verifiers use
/// checkedMulSizes and reject the overflow; this is for code after them.
inline int64_t mulDims(int64_t a, int64_t b) {
  if (a == kShapeDynamic || b == kShapeDynamic)
    return kShapeDynamic;
  return checkedMulSizes(a, b).value_or(kShapeDynamic);
}

/// a + b, dynamic when either is or when the sum overflows int64.
inline int64_t addDims(int64_t a, int64_t b) {
  int64_t sum;
  if (a == kShapeDynamic || b == kShapeDynamic ||
      __builtin_add_overflow(a, b, &sum))
    return kShapeDynamic;
  return sum;
}

/// The number of elements of a shape (dynamic sizes skipped, so a lower
/// bound), times `elementBytes`; std::nullopt when either product overflows
/// int64.
template <typename Range>
std::optional<int64_t> staticByteSize(const Range &shape,
                                      int64_t elementBytes) {
  int64_t count = 1;
  for (int64_t size : shape) {
    if (size == kShapeDynamic)
      continue;
    std::optional<int64_t> next = checkedMulSizes(count, size);
    if (!next)
      return std::nullopt;
    count = *next;
  }
  return checkedMulSizes(count, elementBytes);
}

//===----------------------------------------------------------------------===//
// Rules with their messages: "" when the rule holds, else the one message
// every tool prints (the verifier after "'indexpool.op' op ", the runtimes
// after the op's name and location).
//===----------------------------------------------------------------------===//

/// A value as written in IR: the shortest text that reads back as the same
/// f32 (the properties are f32), else as the same double.
inline std::string formatValue(double v) {
  char text[64];
  bool isFloat = std::isfinite(v) && double(float(v)) == v;
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, v);
    double back = std::strtod(text, nullptr);
    if (isFloat ? float(back) == float(v) : back == v)
      break;
  }
  return text;
}

inline std::string formatBound(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", v);
  return text;
}

/// temperature is finite and at least 2^-126: the softmax divides by it.
inline std::string temperatureRule(double temperature) {
  if (!std::isfinite(temperature))
    return "temperature must be finite, got " + formatValue(temperature);
  if (temperature < kMinNormalF32)
    return "temperature must be at least " + formatBound(kMinNormalF32) +
           " (2^-126, so that 1 / temperature is a finite f32), got " +
           formatValue(temperature);
  return "";
}

/// min_absmax is finite and at least qmax * 2^-126, so that every scale
/// absmax / qmax is a normal f32. `qmax` is 127 (i8) or 448 (f8E4M3FN).
inline std::string minAbsmaxRule(double minAbsmax, double qmax,
                                 const char *codesType) {
  if (!std::isfinite(minAbsmax))
    return "min_absmax must be finite, got " + formatValue(minAbsmax);
  double bound = qmax * kMinNormalF32;
  if (minAbsmax < bound)
    return "min_absmax must be at least " + formatBound(bound) + " (" +
           std::to_string(int64_t(qmax)) + " * 2^-126, so that every " +
           codesType + " scale is a normal f32), got " +
           formatValue(minAbsmax);
  return "";
}

/// k <= N always: N is the row capacity (shorter rows use `valid`).
inline std::string topkColumnsRule(int64_t k, int64_t columns) {
  if (columns == kShapeDynamic || k <= columns)
    return "";
  return "k must be at most N = " + std::to_string(columns) +
         " (the number of columns), got " + std::to_string(k);
}

/// Column indices are i32: N <= 2^31 - 1.
inline std::string columnIndexRule(int64_t columns) {
  if (columns == kShapeDynamic || columns <= kMaxColumns)
    return "";
  return "N = " + std::to_string(columns) +
         " columns do not fit the i32 column indices (at most 2^31 - 1)";
}

/// refine keeps k of the C candidates of a row: k <= C, also when C is
/// known only at run time; a row's candidates are ranked by i32 positions,
/// as topk's columns: C <= 2^31 - 1.
inline std::string refineCandidatesRule(int64_t k, int64_t candidates) {
  if (candidates != kShapeDynamic && candidates > kMaxColumns)
    return "C = " + std::to_string(candidates) +
           " candidates of a row do not fit the i32 positions of a row (at "
           "most 2^31 - 1)";
  if (candidates == kShapeDynamic || k <= candidates)
    return "";
  return "k must be at most C = " + std::to_string(candidates) +
         " (the candidates of a row), got " + std::to_string(k);
}

/// refine's token ids are i32 rows of its keys: T <= 2^31 - 1.
inline std::string refineTokensRule(int64_t tokens) {
  if (tokens == kShapeDynamic || tokens <= kMaxColumns)
    return "";
  return "T = " + std::to_string(tokens) +
         " keys do not fit the i32 token ids (at most 2^31 - 1)";
}

/// `what` (e.g. "K * P") = a * b tokens of i32 indices: at most 2^31.
inline std::string tokenCountRule(const char *what, int64_t a, int64_t b) {
  if (a == kShapeDynamic || b == kShapeDynamic)
    return "";
  std::optional<int64_t> tokens = checkedMulSizes(a, b);
  if (tokens && *tokens <= kMaxTokens)
    return "";
  return std::string(what) + " = " + std::to_string(a) + " * " +
         std::to_string(b) +
         (tokens ? " = " + std::to_string(*tokens) : " (overflows int64)") +
         " tokens do not fit the i32 token indices (at most 2^31)";
}

} // namespace mlir::indexpool

#endif // INDEXPOOL_DIALECT_SHAPES_H
