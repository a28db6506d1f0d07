//===- CostModelOps.h - indexpool ops as the cost model sees them -*- C++ -*-===//
//
// The one translation of an op into the cost model's plain OpDesc, used by
// --indexpool-configure to choose launches and by the tuner to estimate
// (and so rank) candidate launches with the same description.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TRANSFORMS_COSTMODELOPS_H
#define INDEXPOOL_TRANSFORMS_COSTMODELOPS_H

#include "indexpool/Transforms/CostModel.h"

#include <optional>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::indexpool {

/// The cost model's description of `op`, or nullopt for an op it does not
/// configure (not an indexpool op, or one without a launch).
std::optional<::indexpool::cost::OpDesc> describeForCostModel(Operation *op);

} // namespace mlir::indexpool

#endif // INDEXPOOL_TRANSFORMS_COSTMODELOPS_H
