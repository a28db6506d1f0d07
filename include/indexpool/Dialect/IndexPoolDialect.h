//===- IndexPoolDialect.h - the indexpool dialect ---------------*- C++ -*-===//
#ifndef INDEXPOOL_DIALECT_INDEXPOOLDIALECT_H
#define INDEXPOOL_DIALECT_INDEXPOOLDIALECT_H

#include "mlir/IR/Dialect.h"

#include "indexpool/Dialect/IndexPoolDialect.h.inc"

#endif // INDEXPOOL_DIALECT_INDEXPOOLDIALECT_H
