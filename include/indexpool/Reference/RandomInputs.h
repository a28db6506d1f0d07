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

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

namespace indexpool::ref {

/// How a random input is drawn, decided by how the argument is used.
enum class InputDistribution {
  /// N(0, 1) rounded to the type: keys, queries, scores, bias, weights.
  Normal,
  /// Uniform in [1e-3, 1e-2]: the `scales` of score/select/dequantize.
  PositiveScales,
  /// Valid codes: i8 uniform in [-127, 127], f8E4M3FN N(0, 64^2) encoded
  /// (saturating at +-448). Quantized keys and codes.
  QuantizedCodes,
  /// Uniform integers in [0, N], at least one row == N, N the columns the
  /// lengths bound: `valid` of topk/select.
  ValidLengths,
  /// Uniform integers in [-1, 1000]: `indices` of expand.
  PoolIndices,
  /// Token ids uniform in [0, N), N the key rows, one in eight -1 (padding),
  /// duplicates by chance: `candidates` of refine.
  CandidateTokens,
  /// Distinct slots in [0, N), N the entries of the pages, one in eight -1
  /// (skipped), -1 once the slots run out: `slots` of compress_paged.
  PageSlots,
  /// Page ids in [0, N), N the pages: a shuffled run of every id, repeated
  /// when the table is larger: `block_table` of select_paged / append_paged.
  PageIds,
  /// Anything else: floats N(0, 1), i8 uniform in [-127, 127], i32 uniform in
  /// [0, 100].
  Default,
};

/// The distribution of operand `operand` of op `op` (both as docs/IndexPoolOps.md and
/// dialect/IndexPoolOps.td name them, e.g. "score" / "keys", without the
/// "indexpool." prefix), `operandType` the operand's element type (keys of
/// score and select are codes when quantized). Default for an op or operand
/// that is not an indexpool one.
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
