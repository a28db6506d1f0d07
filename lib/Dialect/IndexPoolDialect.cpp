//===- IndexPoolDialect.cpp - the indexpool dialect -----------------------===//
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Dialect/IndexPoolOps.h"

using namespace mlir;
using namespace mlir::indexpool;

#include "indexpool/Dialect/IndexPoolDialect.cpp.inc"

void IndexPoolDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "indexpool/Dialect/IndexPoolOps.cpp.inc"
      >();
}
