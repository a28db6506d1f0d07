//===- Passes.h - indexpool transformation passes ---------------*- C++ -*-===//
#ifndef INDEXPOOL_TRANSFORMS_PASSES_H
#define INDEXPOOL_TRANSFORMS_PASSES_H

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::indexpool {

#define GEN_PASS_DECL
#include "indexpool/Dialect/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "indexpool/Dialect/Passes.h.inc"

} // namespace mlir::indexpool

#endif // INDEXPOOL_TRANSFORMS_PASSES_H
