//===- PairDotInstructions.h - bf16 pair dots as the CPU's own ---*- C++
//-*-===//
//
// Private to lib/Conversion/Pipelines (the CPU pipeline runs it after the
// buffer deallocation, which refuses calls of unknown effects such as
// llvm.call_intrinsic, and before the vector lowering).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_PIPELINES_PAIRDOTINSTRUCTIONS_H
#define INDEXPOOL_LIB_CONVERSION_PIPELINES_PAIRDOTINSTRUCTIONS_H

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mlir::indexpool {

/// Every bf16 pair dot the score loops wrote (a vector.contract of
/// vector<Nx2xbf16> operands into vector<Nxf32>, ScoreRows.h) becomes the
/// dot instruction of CPU target `cpu` (vdpbf16ps, bfdot) as an LLVM
/// intrinsic call (--indexpool-pair-dot-instructions=cpu=NAME). Contracts
/// the target has no instruction for stay, for the generic lowering.
std::unique_ptr<Pass> createPairDotInstructionsPass(std::string cpu = "");

} // namespace mlir::indexpool

#endif // INDEXPOOL_LIB_CONVERSION_PIPELINES_PAIRDOTINSTRUCTIONS_H
