//===- Compare.h - results against the float64 reference --------*- C++ -*-===//
//
// The tolerances of --verify (docs/IndexPoolOps.md, docs/design.md "Verification"), shared
// by indexpool-run (through the evaluator over the IR) and indexpool-launch
// (through a manifest's computes). MLIR-free: it builds on a GPU machine
// that has only a C++ compiler.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_COMPARE_H
#define INDEXPOOL_RUNTIME_COMPARE_H

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Reference/Paged.h"

#include <cstdint>
#include <optional>
#include <string>

namespace indexpool::runtime {

/// What an i32 index result needs so that near ties may be told apart from
/// errors: the reference logits `[M, N]` the indices were selected from (M
/// the result's rows: all its dimensions but the last), the valid lengths
/// (empty when the selection had none), the pool size the indices were
/// expanded with (1 when they were not) and the columns at the end of each
/// row that are not ranked (select_paged's P - 1 tail tokens, always
/// selected: they must equal the reference's). With `candidates` (`[M, C]`,
/// refine's), a result holds candidates[m, column] instead of the column: a
/// token stands for the first column of its row holding it that an earlier
/// slot did not take (duplicates have equal logits), -1 for -1.
struct SelectionContext {
  ref::HostTensor logits;
  std::optional<ref::HostTensor> valid;
  int64_t poolSize = 1;
  int64_t tailColumns = 0;
  std::optional<ref::HostTensor> candidates;
};

/// The context of select_paged's tokens [B, S, k*P + P - 1], from its
/// operands (checked by ref::checkSelectPaged): the reference's logits of
/// each query row's floor(L / P) entries, P, and P - 1 tail columns.
SelectionContext selectPagedContext(const ref::HostTensor &q,
                                    const ref::HostTensor &w,
                                    const ref::HostTensor &pages,
                                    const ref::HostTensor &blockTable,
                                    const ref::HostTensor &lengths,
                                    int64_t poolSize,
                                    const ref::PageLayout &layout);

/// The context of refine_paged's tokens [B, S, k], from its operands
/// (checked by ref::checkRefinePaged): the reference's logits of each query
/// row's candidates and the candidates as [B*S, C], so that tokens compare
/// as refine's do.
SelectionContext refinePagedContext(const ref::HostTensor &q,
                                    const ref::HostTensor &w,
                                    const ref::HostTensor &candidates,
                                    const ref::HostTensor &pages,
                                    const ref::HostTensor &blockTable,
                                    const ref::HostTensor &lengths,
                                    const ref::PageLayout &layout);

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

/// Special values must match exactly: NaN where the reference is NaN, the
/// same infinity where it is infinite, and a bf16 / f16 / f8E4M3FN NaN must
/// be the canonical positive one (a quantized row with a NaN scale is all
/// 0x7F codes). Beyond that, tolerances by element type (docs/IndexPoolOps.md, --verify):
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
///    reference picked by at most 1e-5 relative, f32's tolerance (the index
///    must still be a valid, distinct column of its row); the tail columns
///    equal. refine's tokens are compared as the candidate columns they
///    stand for.
Comparison compareWithReference(const ref::HostTensor &actual,
                                const ref::HostTensor &expected,
                                const SelectionContext *selection = nullptr);

/// Pages of the paged layout (docs/serving-layout.md), compared as what they
/// hold rather than as bytes: every entry's codes by the codes rule above and
/// its f32 scale within 1e-5 relative (bytes no kernel writes are copied
/// unchanged, so they compare equal, NaN patterns included).
Comparison comparePages(const ref::HostTensor &actual,
                        const ref::HostTensor &expected,
                        const ref::PageLayout &layout);

/// One line: "max_abs_err=... max_rel_err=... [normwise_rel_err=...]
/// [max_ulp_err=... beyond_one_ulp=...] differing=D/N (P%) [off_by_one=O
/// beyond_one_code=B] [near_tie_swaps=S]
/// -> ok" or "-> FAILED: why".
std::string formatComparison(const Comparison &comparison,
                             ref::ElementType type);

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_COMPARE_H
