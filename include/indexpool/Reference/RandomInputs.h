//===- RandomInputs.h - realistic random operands, by use -------*- C++ -*-===//
//
// How a random input is drawn depends on how it is used: keys and scores are
// normal, scales small and positive, quantized keys valid codes, valid lengths
// bounded by the columns they select from. Both front ends draw through here
// -- the evaluator over the IR (indexpool-run --random-inputs) and the runtime
// over a manifest (indexpool-launch --random-inputs) -- so one seed gives the
// same inputs to both. Plain C++17, no LLVM/MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_REFERENCE_RANDOMINPUTS_H
#define INDEXPOOL_REFERENCE_RANDOMINPUTS_H

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Reference/InputDistribution.h"

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

namespace indexpool::ref {

/// The distribution of operand `operand` of op `op` (both as
/// docs/IndexPoolOps.md and dialect/IndexPoolOps.td name them, e.g. "score"
/// / "keys", without the "indexpool." prefix): the operand's `draw` in the
/// op contract (Dialect/OpContract.h); a QuantizedCodes draw on an
/// `operandType` that is not a code type (f32 keys) is Normal. Default for
/// an op or operand that is not an indexpool one.
InputDistribution distributionOfOperand(std::string_view op,
                                        std::string_view operand,
                                        ElementType operandType);

/// When an input has several uses, the more specific distribution wins
/// (PageSlots > PageIds > CandidateTokens > ValidLengths > PoolIndices >
/// QuantizedCodes > PositiveScales > Normal > Default).
int distributionSpecificity(InputDistribution distribution);

/// Draws one tensor of `type` and `shape` from `rng`. `lengthBound` is the N
/// of ValidLengths, PageSlots, PageIds and CandidateTokens (ignored
/// otherwise; clamped to int32). Never all zeros
/// (unless the tensor is empty or N = 0 for lengths). The draws depend only
/// on the engine's raw output, so a seed gives the same tensor everywhere.
HostTensor drawRandomInput(InputDistribution distribution, ElementType type,
                           const std::vector<int64_t> &shape,
                           std::mt19937_64 &rng, int64_t lengthBound = 0);

} // namespace indexpool::ref

#endif // INDEXPOOL_REFERENCE_RANDOMINPUTS_H
