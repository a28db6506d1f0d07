//===- TuningDb.h - Sizes a tuning-database shape class sees ----*- C++ -*-===//
//
// The tuning database (docs/design.md, "The tuning database") matches ops by
// shape class, conditions over named sizes. Tools that write databases (the
// tuner) name an op's shape with the same sizes the configure passes match.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TRANSFORMS_TUNINGDB_H
#define INDEXPOOL_TRANSFORMS_TUNINGDB_H

#include "indexpool/Target/Chips.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::indexpool {

/// The discardable attribute (i64) --indexpool-configure-cpu attaches: the
/// f32 lanes of the op's loops over D, in place of --indexpool-to-loops'
/// vector-width.
inline constexpr llvm::StringLiteral kVectorWidthAttrName =
    "indexpool.vector_width";

/// A CPU vector width a tuning database or the attribute may give
/// (Target/Chips.h's rule).
using ::indexpool::target::isValidVectorWidth;
using ::indexpool::target::kMaxVectorWidth;

/// The static sizes of `op` a shape class can name (T, G, D, P, N, M, H, K,
/// in docs/IndexPoolOps.md notation), in the order the op defines them;
/// dynamic sizes are left out. Empty for an op that is not an indexpool op
/// or has no such sizes.
std::vector<std::pair<std::string, int64_t>> tuningSizes(Operation *op);

} // namespace mlir::indexpool

#endif // INDEXPOOL_TRANSFORMS_TUNINGDB_H
