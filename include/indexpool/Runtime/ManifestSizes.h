//===- ManifestSizes.h - a manifest's sizes, known at launch ----*- C++ -*-===//
//
// One compiled artifact serves every size: a format_version 3 manifest
// (docs/manifest.md) lists `sizes`, each an expression of the inputs'
// dimensions and the device's SM count, and writes buffer shapes, launch
// grids, integer parameters and kernel parameters' extents as size operands
// (an integer or {"size": i}). The runtime evaluates the sizes when it knows
// the inputs and the device, in exact 64-bit arithmetic: a result outside
// [0, 2^62] or a division by zero is an error naming the entry, never a
// wrapped value. MLIR-free; no exceptions.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_MANIFESTSIZES_H
#define INDEXPOOL_RUNTIME_MANIFESTSIZES_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::runtime {

/// The largest value a size may take (2^62): products of two sizes that
/// pass this check are caught by the next one instead of wrapping.
constexpr int64_t kMaxSizeValue = int64_t(1) << 62;

/// A field written as an integer or as {"size": i}.
struct SizeOperand {
  /// The integer; for a size, its value once bound (0 before).
  int64_t value = 0;
  /// The index into Manifest::sizes, or -1 for an integer.
  int64_t size = -1;

  static SizeOperand literal(int64_t value) { return {value, -1}; }
  static SizeOperand ofSize(int64_t index) { return {0, index}; }
  bool isSize() const { return size >= 0; }
  bool operator==(const SizeOperand &other) const {
    return isSize() ? size == other.size
                    : !other.isSize() && value == other.value;
  }
  bool operator!=(const SizeOperand &other) const { return !(*this == other); }
};

/// One entry of `sizes`.
struct SizeExpr {
  enum class Op {
    Dim,
    SmCount,
    Add,
    Sub,
    Mul,
    DivU,
    CeilDivU,
    RemU,
    MinU,
    MaxU
  };
  Op op = Op::Dim;
  /// Dim: the input buffer's id, its position among the inputs, and the
  /// dimension.
  int64_t buffer = -1;
  int64_t input = -1;
  int64_t dim = -1;
  /// The binary ops: the operands (sizes only of earlier entries).
  std::array<SizeOperand, 2> args;
};

/// "dim", "sm_count", "add", "sub", "mul", "divu", "ceildivu", "remu",
/// "minu", "maxu".
const char *sizeOpName(SizeExpr::Op op);
/// The op named `name`; false for an unknown name.
bool parseSizeOp(const std::string &name, SizeExpr::Op &op);
/// "dim, sm_count, add, ... or maxu", for messages.
std::string sizeOpNames();

/// Evaluates a binary op on two values in [0, 2^62]; false with `why`
/// ("mul overflows: 4611686018427387904 * 4", "sub is negative: 3 - 5",
/// "divu by 0: 7 / 0") when the exact result is not in [0, 2^62].
bool applySizeOp(SizeExpr::Op op, int64_t a, int64_t b, int64_t &result,
                 std::string &why);

/// Evaluates `sizes` in order: `inputShapes` holds the shape of each input
/// (by input position; the caller checked their ranks), `smCount` the
/// device's multiprocessor count. On failure returns false with `entry` the
/// failing entry's index and `why` the problem.
bool evaluateSizes(const std::vector<SizeExpr> &sizes,
                   const std::vector<std::vector<int64_t>> &inputShapes,
                   int64_t smCount, std::vector<int64_t> &values,
                   size_t &entry, std::string &why);

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_MANIFESTSIZES_H
