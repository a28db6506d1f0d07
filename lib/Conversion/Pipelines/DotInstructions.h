//===- DotInstructions.h - the score loops' dots as the CPU's own -*- C++
//-*-===//
//
// Private to lib/Conversion/Pipelines (the CPU pipeline runs it after the
// buffer deallocation, which refuses calls of unknown effects such as
// llvm.call_intrinsic, and before the vector lowering).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_PIPELINES_DOTINSTRUCTIONS_H
#define INDEXPOOL_LIB_CONVERSION_PIPELINES_DOTINSTRUCTIONS_H

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mlir::indexpool {

/// Every dot the score loops wrote as a vector.contract (ScoreRows.h)
/// becomes the dot instruction of CPU target `cpu` as an LLVM intrinsic
/// call (--indexpool-dot-instructions=cpu=NAME): bf16 pairs (vector<Nx2xbf16>
/// operands into vector<Nxf32>) vdpbf16ps / bfdot; int8 quads (extended
/// vector<Nx4xi8> operands into vector<Nxi32>) vpdpbusd (first operand
/// zero-extended, second sign-extended) / sdot (both sign-extended).
/// The FP8 keys' byte-table lookups (vector.gather of bytes from a
/// constant 128-byte global, ScoreRows.h) become its vpermi2b with the
/// table as two constant vectors. Contracts and gathers the target has no
/// instruction for stay, for the generic lowering.
std::unique_ptr<Pass> createDotInstructionsPass(std::string cpu = "");

} // namespace mlir::indexpool

#endif // INDEXPOOL_LIB_CONVERSION_PIPELINES_DOTINSTRUCTIONS_H
