//===- ReferenceRun.h - a manifest's computes on the reference --*- C++ -*-===//
//
// Runs the "computes" of a manifest (docs/manifest.md) with the float64
// reference (lib/Reference): the oracle of indexpool-launch --verify, with
// the same selection contexts (near ties) as the evaluator over the IR. Also
// draws random inputs by use, with the distributions the evaluator uses
// (Reference/RandomInputs.h): for a manifest whose inputs are the function's
// arguments in order, indexpool-launch --random-inputs=S and indexpool-run
// --random-inputs=S draw the same tensors. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_REFERENCERUN_H
#define INDEXPOOL_RUNTIME_REFERENCERUN_H

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Reference/RandomInputs.h"
#include "indexpool/Runtime/Compare.h"
#include "indexpool/Runtime/Manifest.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace indexpool::runtime {

/// Evaluates one compute. `operands` follow `compute.operands` (same order);
/// `resultTypes` are the element types of its results (from their buffers).
/// Checks the operands' and results' element types (the dialect's rules)
/// and every relation the reference checks (e.g. "scores must be [T] = ...")
/// and, where the dialect is stricter than the reference, its rules too
/// (pool_size a power of two in [2, 64], 0 < k <= N, Hadamard D <= 1024).
/// With `shapesOnly` the operands may hold no data and the results get
/// their shapes only. On failure returns false and sets `error` (one line,
/// without the op's name).
bool evaluateCompute(const Compute &compute,
                     const std::vector<const ref::HostTensor *> &operands,
                     const std::vector<ref::ElementType> &resultTypes,
                     bool shapesOnly, std::vector<ref::HostTensor> &results,
                     std::string &error);

/// Every value of the reference computation, by id.
using ReferenceValues = std::map<int64_t, ref::HostTensor>;

/// Checks `inputs` (one per input buffer, in index order) against the
/// manifest: count, element type, shape, data.
bool checkInputs(const Manifest &manifest,
                 const std::vector<ref::HostTensor> &inputs,
                 std::string &error);

/// Runs the computes on `inputs` (checked with checkInputs; moved in, as
/// they can be large). On success `values` holds every id: the inputs and
/// every compute's results. A manifest without computes gives the inputs
/// only.
bool runReference(const Manifest &manifest, std::vector<ref::HostTensor> inputs,
                  ReferenceValues &values, std::string &error);

/// The context of the near-tie rule when buffer `id` is a selection of
/// computed logits: the indices of a topk whose logits come from a score,
/// an expand of those, or the tokens of a select, a select_paged or a
/// refine (the same cases as the evaluator's). `values` comes from
/// runReference.
std::optional<SelectionContext>
selectionContextOf(const Manifest &manifest, const ReferenceValues &values,
                   int64_t id);

/// The page layout when buffer `id` is the updated pages of a
/// compress_paged or append_paged (compared as entries, comparePages), else
/// std::nullopt.
std::optional<ref::PageLayout> pageLayoutOf(const Manifest &manifest,
                                            int64_t id);

/// `actual` (the device's buffer `id`) against the reference's value, as
/// indexpool-run --verify compares a result: pages by entries
/// (comparePages), selections with the near-tie rule, anything else by its
/// element type's tolerance.
Comparison compareResult(const Manifest &manifest,
                         const ReferenceValues &values, int64_t id,
                         const ref::HostTensor &actual);

/// How one input is drawn, decided by its uses in the computes.
struct InputDescription {
  ref::InputDistribution distribution = ref::InputDistribution::Default;
  /// For ValidLengths, PageSlots, PageIds and CandidateTokens: N, the
  /// columns the lengths bound, the entries of the pages, the pages, the
  /// key rows (drawRandomInput's N).
  int64_t lengthBound = 0;
  /// e.g. "keys of computes[0] (pool)", or "not used by a compute".
  std::string use;
};

/// One description per input buffer, in index order.
std::vector<InputDescription> describeInputs(const Manifest &manifest);

/// One tensor per input buffer, in index order, drawn from one mt19937_64
/// seeded with `seed`.
std::vector<ref::HostTensor> generateRandomInputs(const Manifest &manifest,
                                                  uint64_t seed);

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_REFERENCERUN_H
