//===- InputDistribution.h - how a random operand is drawn ------*- C++ -*-===//
//
// The kinds of random input (RandomInputs.h draws them). Each operand of
// each op names its kind once, in the op contract (Dialect/OpContract.h).
// Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_REFERENCE_INPUTDISTRIBUTION_H
#define INDEXPOOL_REFERENCE_INPUTDISTRIBUTION_H

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

} // namespace indexpool::ref

#endif // INDEXPOOL_REFERENCE_INPUTDISTRIBUTION_H
