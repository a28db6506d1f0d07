//===- PagedOps.h - the paged ops, lowered in bufferization --*- C++ -*-===//
//
// Internal to IndexPoolToLoops. The paged ops update their pages (and
// append_paged its tails) in destination-passing style: their loops are
// emitted by one-shot bufferization (BufferizePaged.cpp), on the buffers it
// chose, so that the pages are written in place whenever nothing reads the
// old ones after the op, and copied only where something does.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOLOOPS_PAGEDOPS_H
#define INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOLOOPS_PAGEDOPS_H

#include "indexpool/Transforms/TuningDb.h"

#include "Common/Emitter.h"
#include "Common/PagedBuffers.h"

#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
class Operation;
} // namespace mlir

namespace mlir::indexpool::loops {

/// The loop options of --indexpool-to-loops, recorded on each paged op for
/// its bufferization (absent: vector width 8, stack scopes); the vector
/// width is the attribute --indexpool-configure-cpu writes.
using ::mlir::indexpool::kVectorWidthAttrName;
inline constexpr llvm::StringLiteral kStackScopesAttrName =
    "indexpool.stack_scopes";
/// The CPU target whose dot instructions score (absent: f32 FMAs).
inline constexpr llvm::StringLiteral kCpuTargetAttrName = "indexpool.cpu";
/// Present: i8 / i4 keys score with the int8 dot of a quantized query.
inline constexpr llvm::StringLiteral kInt8QueryAttrName =
    "indexpool.int8_query";

/// Emits the loops of compress_paged, select_paged or append_paged `op`.
void emitPagedOp(Operation *op, Emitter &e, PagedBuffers &buffers);

/// Attaches the BufferizableOpInterface models of the paged ops.
void registerPagedBufferization(DialectRegistry &registry);

} // namespace mlir::indexpool::loops

#endif // INDEXPOOL_LIB_CONVERSION_INDEXPOOLTOLOOPS_PAGEDOPS_H
