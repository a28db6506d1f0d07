//===- LoopStackScopes.h - scf.for iterations free their stack --*- C++ -*-===//
//
// Private to lib/Conversion/Pipelines (the CPU pipeline runs it before the
// memref lowering).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_PIPELINES_LOOPSTACKSCOPES_H
#define INDEXPOOL_LIB_CONVERSION_PIPELINES_LOOPSTACKSCOPES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::indexpool {

/// Every scf.for whose body allocates stack (memref.alloca, directly or in
/// memref.alloca_scope) saves the stack at the start of an iteration and
/// restores it before the yield (--indexpool-loop-stack-scopes).
std::unique_ptr<Pass> createLoopStackScopesPass();

} // namespace mlir::indexpool

#endif // INDEXPOOL_LIB_CONVERSION_PIPELINES_LOOPSTACKSCOPES_H
