//===- IndexPoolOps.h - indexpool operations --------------------*- C++ -*-===//
#ifndef INDEXPOOL_DIALECT_INDEXPOOLOPS_H
#define INDEXPOOL_DIALECT_INDEXPOOLOPS_H

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/OpContract.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "indexpool/Dialect/IndexPoolOps.h.inc"

namespace mlir::indexpool {

/// The contract (OpContract.h) of `op`, an op of the indexpool dialect.
const OpContract &getOpContract(Operation *op);

/// The operands of `op` (an indexpool op) in the order of its contract: one
/// per contract operand, null where an optional one is absent.
SmallVector<Value> getContractOperands(Operation *op);

} // namespace mlir::indexpool

#endif // INDEXPOOL_DIALECT_INDEXPOOLOPS_H
