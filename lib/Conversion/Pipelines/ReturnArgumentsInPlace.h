//===- ReturnArgumentsInPlace.h - no clone of returned arguments -*- C++ -*-===//
//
// Private to lib/Conversion/Pipelines (the CPU pipeline runs it after the
// buffer deallocation pipeline when CPUPipelineOptions::returnArguments).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_PIPELINES_RETURNARGUMENTSINPLACE_H
#define INDEXPOOL_LIB_CONVERSION_PIPELINES_RETURNARGUMENTSINPLACE_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::indexpool {

/// A function that returns `bufferization.clone %arg` of one of its own
/// arguments returns %arg itself (the clone is erased when nothing else uses
/// it): the pages a function updated in place come back as the caller's
/// buffer, not as a copy the caller must free.
std::unique_ptr<Pass> createReturnArgumentsInPlacePass();

} // namespace mlir::indexpool

#endif // INDEXPOOL_LIB_CONVERSION_PIPELINES_RETURNARGUMENTSINPLACE_H
