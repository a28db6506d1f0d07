//===- IndexPoolAttrs.h - indexpool attributes ------------------*- C++ -*-===//
#ifndef INDEXPOOL_DIALECT_INDEXPOOLATTRS_H
#define INDEXPOOL_DIALECT_INDEXPOOLATTRS_H

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Operation.h"

#include "indexpool/Dialect/IndexPoolEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "indexpool/Dialect/IndexPoolAttrs.h.inc"

namespace mlir::indexpool {

/// The discardable attribute that holds an op's #indexpool.launch.
constexpr llvm::StringLiteral kLaunchAttrName = "indexpool.launch";

/// Whether any op nested in `root` carries an #indexpool.launch (then the
/// tools leave the configuration alone instead of running the cost model).
inline bool hasLaunchConfiguration(Operation *root) {
  return root
      ->walk([](Operation *op) {
        return op->hasAttr(kLaunchAttrName) ? WalkResult::interrupt()
                                            : WalkResult::advance();
      })
      .wasInterrupted();
}

} // namespace mlir::indexpool

#endif // INDEXPOOL_DIALECT_INDEXPOOLATTRS_H
