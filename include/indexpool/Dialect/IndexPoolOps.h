//===- IndexPoolOps.h - indexpool operations --------------------*- C++ -*-===//
#ifndef INDEXPOOL_DIALECT_INDEXPOOLOPS_H
#define INDEXPOOL_DIALECT_INDEXPOOLOPS_H

#include "indexpool/Dialect/IndexPoolDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "indexpool/Dialect/IndexPoolOps.h.inc"

#endif // INDEXPOOL_DIALECT_INDEXPOOLOPS_H
