//===- Evaluator.h - the float64 reference evaluator over the IR -*- C++
//-*-===//
//
// Walks a func.func made of indexpool ops and calls the MLIR-free reference
// (indexpool/Reference) for each op: the oracle that `indexpool-run --verify`
// and the tests compare compiled code against. Sizes that are only known at
// run time are checked here, op by op, with the reference's check functions
// and the size rules of Shapes.h, so that a dynamic size breaking a relation
// ends in one message naming the op, its location and the problem.
//
// Also here: how to draw realistic random inputs for a function (from how
// each argument is used), and the per-type tolerances of --verify.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_EVALUATOR_EVALUATOR_H
#define INDEXPOOL_EVALUATOR_EVALUATOR_H

#include "indexpool/Reference/HostTensor.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Operation;
class RankedTensorType;
class Type;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlir::indexpool {

namespace ref = ::indexpool::ref;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// The reference element type of an MLIR element type (f32, f16, bf16,
/// f8E4M3FN, i8, i32); std::nullopt for any other type.
std::optional<ref::ElementType> toElementType(Type type);

/// "op-name at file:line:col" (or just the op name without a file location):
/// how every message of the evaluator names the op it is about.
std::string describeOp(Operation *op);

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// Evaluates `func` on `inputs` (one per argument) with the reference.
///
/// Supported ops: every indexpool op, func.return, arith.constant (dense
/// tensors of the supported element types, integer and index scalars),
/// elementwise arith ops on tensors (addf, subf, mulf, divf, maximumf,
/// minimumf, negf, addi, subi, muli), tensor.empty, tensor.cast and
/// tensor.dim. Anything else fails with a message naming the op.
///
/// Inputs are checked against the argument types (rank, static sizes,
/// element type), every op's operands with the reference check function and
/// every result against the static sizes of its type. On failure returns
/// failure() and sets `error` to one line, e.g.
///   "indexpool.pool at f.mlir:3:5: scores must be [T] = [1024] or ..."
///
/// With `shapesOnly`, only result shapes are computed (their data is empty):
/// cheap, for validating dynamic sizes before running compiled code and for
/// knowing the shapes of its results. Inputs may then hold no data.
FailureOr<std::vector<ref::HostTensor>>
evaluateFunction(func::FuncOp func, ArrayRef<ref::HostTensor> inputs,
                 std::string &error, bool shapesOnly = false);

/// Whether `shape` has the rank of `type` and its static sizes.
bool fitsType(ArrayRef<int64_t> shape, RankedTensorType type);

//===----------------------------------------------------------------------===//
// Verification against the reference
//===----------------------------------------------------------------------===//

/// What an i32 index result needs so that near ties may be told apart from
/// errors: the reference logits `[M, N]` the indices were selected from,
/// the valid lengths (empty when the selection had none) and the pool size
/// the indices were expanded with (1 when they were not).
struct SelectionContext {
  ref::HostTensor logits;
  std::optional<ref::HostTensor> valid;
  int64_t poolSize = 1;
};

/// The reference results of a function, plus, for every result that is a
/// selection of computed logits -- the indices of a `topk` whose logits come
/// from a `score` of the same function, an `expand` of those, or the tokens
/// of a `select` -- the context for the near-tie rule.
struct ReferenceRun {
  std::vector<ref::HostTensor> results;
  std::vector<std::optional<SelectionContext>> selections;
};

/// evaluateFunction (full, not shapes-only) that also collects the
/// selection contexts.
FailureOr<ReferenceRun> evaluateReference(func::FuncOp func,
                                          ArrayRef<ref::HostTensor> inputs,
                                          std::string &error);

/// How one result compares with the reference.
struct Comparison {
  int64_t elements = 0;
  /// Elements that are not bit-identical (NaN == NaN, -inf == -inf).
  int64_t differing = 0;
  double maxAbsError = 0;
  /// max |a - r| / |r| over the elements (inf where r == 0 != a).
  double maxRelError = 0;
  /// f32: max |a - r| / max |r| (finite values).
  double normwiseRelError = 0;
  /// f16 / bf16: max |a - r| / ulp(r).
  double maxUlpError = 0;
  /// f16 / bf16: elements more than one ulp away, within the normwise part.
  int64_t beyondOneUlp = 0;
  /// i8 / f8E4M3FN: elements exactly one code away from the reference.
  int64_t offByOne = 0;
  /// i8 / f8E4M3FN: elements further away, within the input's resolution.
  int64_t beyondOneCode = 0;
  /// i32 selections: positions whose index differs from the reference's only
  /// because their logits are within 1e-5 relative (near ties).
  int64_t nearTieSwaps = 0;
  bool ok = true;
  /// Why not ok (empty when ok).
  std::string reason;
};

/// Tolerances by element type (SPEC §2, --verify):
///  - f32: normwise relative error max|a-r| / max|r| <= 1e-5, non-finite
///    values equal;
///  - f16, bf16: every element within one ulp of the reference value plus
///    one ulp of the tensor's largest magnitude, |a-r| <= ulp(r) +
///    ulp(max|r|). The second term is what f32 accumulation is allowed
///    (f32 error ~1e-7 of the largest term, far below one ulp of it): where
///    a sum cancels to a value much smaller than its terms, the elementwise
///    ulp is tiny and a correct kernel can be many of them off;
///  - i8, f8E4M3FN codes: equal, except at most 0.1% of the elements, each
///    one code away (one step in the format's ordering, same sign) or, for
///    codes near zero, within 2^-8 * qmax of the reference (the resolution of
///    a bf16 input at its row's absmax: a one-ulp difference upstream, e.g.
///    in the pooled keys before a rotation, moves small codes by that much);
///  - i32: equal, except near-tie swaps when `selection` is given: a position
///    may hold another index whose reference logit differs from the one the
///    reference picked by at most 1e-5 relative (the index must still be a
///    valid, distinct column of its row).
Comparison compareWithReference(const ref::HostTensor &actual,
                                const ref::HostTensor &expected,
                                const SelectionContext *selection = nullptr);

/// One line: "max_abs_err=... max_rel_err=... [normwise_rel_err=...]
/// [max_ulp_err=... beyond_one_ulp=...] differing=D/N (P%) [off_by_one=O
/// beyond_one_code=B] [near_tie_swaps=S]
/// -> ok" or "-> FAILED: why".
std::string formatComparison(const Comparison &comparison,
                             ref::ElementType type);

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

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
  /// Anything else: floats N(0, 1), i8 uniform in [-127, 127], i32 uniform in
  /// [0, 100].
  Default,
};

struct InputDescription {
  InputDistribution distribution = InputDistribution::Default;
  /// For ValidLengths: the op whose column count N bounds the lengths.
  Operation *lengthsOf = nullptr;
  /// e.g. "valid of indexpool.topk at f.mlir:7:3", for messages and --help.
  std::string use;
};

/// One description per argument of `func`.
std::vector<InputDescription> describeInputs(func::FuncOp func);

/// Draws one input per argument of `func`, with the given shapes (one per
/// argument, matching the argument types), from one mt19937_64 seeded with
/// `seed`, in argument order. Never all zeros (unless a tensor is empty or
/// N = 0 for lengths). Fails with `error` when the shapes break a relation of
/// the function (valid lengths need the column count from the shapes).
FailureOr<std::vector<ref::HostTensor>>
generateRandomInputs(func::FuncOp func, ArrayRef<std::vector<int64_t>> shapes,
                     uint64_t seed, std::string &error);

} // namespace mlir::indexpool

#endif // INDEXPOOL_EVALUATOR_EVALUATOR_H
