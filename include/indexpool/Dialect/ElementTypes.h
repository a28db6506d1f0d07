//===- ElementTypes.h - MLIR types of the vocabulary's types ------*- C++ -*-===//
//
// The bridge between ElementTypes.def and MLIR: a table row's Name is the
// type's MLIR spelling, so both directions go through it and no second
// list of types exists on the MLIR side.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_DIALECT_ELEMENTTYPES_H
#define INDEXPOOL_DIALECT_ELEMENTTYPES_H

#include "indexpool/Vocabulary/ElementTypes.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace mlir {
class MLIRContext;
namespace indexpool {

/// The table's row of `type` (std::nullopt for a type it has no row for).
std::optional<::indexpool::ElementType> toElementType(Type type);

/// The MLIR type of a row.
Type toMlirType(::indexpool::ElementType type, MLIRContext *context);

} // namespace indexpool
} // namespace mlir

#endif // INDEXPOOL_DIALECT_ELEMENTTYPES_H
