//===- Evaluator.h - the float64 reference evaluator over the IR -*- C++
//-*-===//
//
// Walks a func.func made of indexpool ops and calls the MLIR-free reference
// (indexpool/Reference) for each op: the oracle that `indexpool-run --verify`
// and the tests compare compiled code against. Sizes that are only known at
// run time are checked here, op by op, with the reference's check functions
// and then the op's own verifier on its operands' concrete shapes (the rules
// of Shapes.h: k <= N, the i32 index limits, overflow-checked products), so
// that a dynamic size breaking a relation ends in one message naming the op,
// its location and the problem -- the message the verifier gives for the
// same static sizes.
//
// Also here: how to draw realistic random inputs for a function (from how
// each argument is used, with the distributions of Reference/RandomInputs.h).
// The per-type tolerances of --verify are in Runtime/Compare.h (MLIR-free,
// shared with indexpool-launch) and re-exported here.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_EVALUATOR_EVALUATOR_H
#define INDEXPOOL_EVALUATOR_EVALUATOR_H

#include "indexpool/Dialect/ElementTypes.h"
#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Reference/RandomInputs.h"
#include "indexpool/Runtime/Compare.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <map>
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

// The tolerances of --verify live in the MLIR-free runtime
// (indexpool/Runtime/Compare.h), shared with indexpool-launch.
using ::indexpool::runtime::Comparison;
using ::indexpool::runtime::compareWithReference;
using ::indexpool::runtime::formatComparison;
using ::indexpool::runtime::SelectionContext;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// toElementType (Dialect/ElementTypes.h): the reference element type of an
// MLIR element type.

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
/// minimumf, negf, addi, subi, muli), arith.index_cast(ui), divsi / divui /
/// remsi / remui on scalars,
/// tensor.empty, tensor.cast, tensor.dim, extract_slice / insert_slice,
/// collapse_shape / expand_shape, bufferization.materialize_in_destination
/// on tensors (the source) and scf.for with known integer bounds and
/// tensor or integer iter_args (every iteration evaluated, the induction
/// variable a known integer in its body), scf.execute_region of one block.
/// Anything else fails with a message
/// naming the op.
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

/// Parses a command line's "I:AxBxC" (argument I has shape AxBxC) into
/// `shapes`, for a function of `numArgs` arguments; the error names the
/// option `--input-shape`.
LogicalResult parseInputShape(StringRef text, unsigned numArgs,
                              std::map<unsigned, std::vector<int64_t>> &shapes,
                              std::string &error);

/// Rewrites `func` in place for arguments of these shapes (one per
/// argument): every tensor value gets the static type that shape-only
/// evaluation computes, which checks every size relation first. A function
/// with dynamic shapes becomes one a manifest can describe.
LogicalResult specializeShapes(func::FuncOp func,
                               ArrayRef<std::vector<int64_t>> shapes,
                               std::string &error);

//===----------------------------------------------------------------------===//
// Verification against the reference
//===----------------------------------------------------------------------===//

/// The reference results of a function, plus, for every result that is a
/// selection of computed logits -- the indices of a `topk` whose logits come
/// from a `score` of the same function, an `expand` of those, or the tokens
/// of a `select`, a `select_paged` or a `refine` -- the context for the
/// near-tie rule.
struct ReferenceRun {
  std::vector<ref::HostTensor> results;
  std::vector<std::optional<SelectionContext>> selections;
  /// The page layout of every result that is pages of the paged layout
  /// (compared with runtime::comparePages).
  std::vector<std::optional<ref::PageLayout>> pageLayouts;
};

/// evaluateFunction (full, not shapes-only) that also collects the
/// selection contexts.
FailureOr<ReferenceRun> evaluateReference(func::FuncOp func,
                                          ArrayRef<ref::HostTensor> inputs,
                                          std::string &error);

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

/// How a random input is drawn (shared with the runtime's manifests).
using InputDistribution = ref::InputDistribution;

struct InputDescription {
  InputDistribution distribution = InputDistribution::Default;
  /// For ValidLengths, PageSlots, PageIds and CandidateTokens: the op whose
  /// sizes bound the values (drawRandomInput's N).
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
