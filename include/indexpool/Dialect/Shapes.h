//===- Shapes.h - size relations shared by verifiers and runtimes -*- C++ -*-===//
//
// The size rules of SPEC.md §3 in one place, so that the verifiers (static
// shapes) and the runtimes (dynamic sizes) cannot disagree. Plain integers:
// no MLIR types, kShapeDynamic marks an unknown size.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_DIALECT_SHAPES_H
#define INDEXPOOL_DIALECT_SHAPES_H

#include <cstdint>
#include <limits>

namespace mlir::indexpool {

/// Same value as mlir::ShapedType::kDynamic.
constexpr int64_t kShapeDynamic = std::numeric_limits<int64_t>::min();

constexpr int64_t kMinPoolSize = 2;
constexpr int64_t kMaxPoolSize = 64;
constexpr int64_t kMaxHadamardDim = 1024;

inline bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// pool_size must be a power of two in [2, 64].
inline bool isValidPoolSize(int64_t p) {
  return isPowerOfTwo(p) && p >= kMinPoolSize && p <= kMaxPoolSize;
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

/// a * b, dynamic when either is.
inline int64_t mulDims(int64_t a, int64_t b) {
  if (a == kShapeDynamic || b == kShapeDynamic)
    return kShapeDynamic;
  return a * b;
}

} // namespace mlir::indexpool

#endif // INDEXPOOL_DIALECT_SHAPES_H
