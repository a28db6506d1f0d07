//===- Paged.h - float64 reference of the paged serving layout --*- C++ -*-===//
//
// The serving layout of docs/serving-layout.md: the pooled cache of one layer
// is an array of pages, each a row of bytes holding E pooled entries as
// E x D codes followed by E f32 scales (or the scales first). A sequence
// reaches its entries through a block table (its page ids in order); the
// newest T mod P tokens that do not fill a group live in a tail outside the
// pages and are always selected.
//
// Pages are HostTensors of element type I8 and shape [pages, page bytes]:
// each element is one byte as a signed value (the f8 code 0xC0 is -64), so
// the reference states the layout byte for byte. The arithmetic is that of
// Reference.h: a paged op equals its dense op followed by a scatter (compress)
// or preceded by a gather (score, select).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_REFERENCE_PAGED_H
#define INDEXPOOL_REFERENCE_PAGED_H

#include "indexpool/Reference/Reference.h"
#include "indexpool/Vocabulary/PageLayout.h"

namespace indexpool::ref {

/// Where the entries of a page are (Vocabulary/PageLayout.h).
using PageLayout = ::indexpool::vocab::PageLayout;

/// The layout's rules (PageLayout::check); "" when they hold.
inline std::string checkPageLayout(const PageLayout &layout) {
  return layout.check();
}

//===----------------------------------------------------------------------===//
// Entries in pages
//===----------------------------------------------------------------------===//

/// Writes entry `slot` (page slot / E, entry slot % E): the D codes of
/// `codes` row `row` (held as the values they denote) and `scale` (an f32
/// value). pages [pages, pageBytes], I8; the slot must be inside the pages.
void writeEntry(HostTensor &pages, const PageLayout &layout, int64_t slot,
                const HostTensor &codes, int64_t row, double scale);

struct Entries {
  HostTensor codes; // [n, D], layout.codes
  HostTensor scale; // [n], f32
};

/// The first `count` entries of one sequence, in order: entry j is at page
/// blockTable[row, j / E], entry j % E. The caller has checked the ids.
Entries gatherEntries(const HostTensor &pages, const PageLayout &layout,
                      const HostTensor &blockTable, int64_t row,
                      int64_t count);

//===----------------------------------------------------------------------===//
// indexpool.compress_paged
//===----------------------------------------------------------------------===//

/// checkCompress, plus pages [pages, pageBytes] I8, slots [G] (G =
/// floor(T / P)), every non-negative slot below pages * E, no slot twice,
/// and D = layout.dim.
std::string checkCompressPaged(const HostTensor &keys,
                               const HostTensor &scores,
                               const HostTensor *bias, const HostTensor &pages,
                               const HostTensor &slots,
                               const CompressOptions &options,
                               const PageLayout &layout);
/// compress, then group g's codes and scale written at slots[g] (skipped when
/// negative); every other byte of `pages` unchanged.
HostTensor compressPaged(const HostTensor &keys, const HostTensor &scores,
                         const HostTensor *bias, const HostTensor &pages,
                         const HostTensor &slots,
                         const CompressOptions &options,
                         const PageLayout &layout);

//===----------------------------------------------------------------------===//
// indexpool.select_paged
//===----------------------------------------------------------------------===//

/// q [B, S, H, D]; w [B, S, H]; pages [pages, pageBytes] I8; blockTable
/// [B, maxPages] I32; lengths [B, S] I32, the tokens query row (b, s) sees;
/// k >= 0; poolSize >= 1. Each length L >= 0 has floor(L / P) <= maxPages
/// * E pooled entries (the L mod P tail tokens live outside the pages), and
/// every page id a row uses (the first ceil(floor(L / P) / E) of its table)
/// is in [0, pages).
std::string checkSelectPaged(const HostTensor &q, const HostTensor &w,
                             const HostTensor &pages,
                             const HostTensor &blockTable,
                             const HostTensor &lengths, int64_t k,
                             int64_t poolSize, const PageLayout &layout);
/// For query row (b, s) of length L: n = floor(L / P) entries gathered
/// through block table row b, score -> topk (valid n) -> expand as select
/// does (tokens j*P .. j*P+P-1 of pool j), then the L mod P tail tokens n*P
/// .. L-1. tokens [B, S, k*P + P - 1], i32: the k*P expanded tokens (-1 for
/// empty top-k slots), then the tail tokens in order and -1 after them.
HostTensor selectPaged(const HostTensor &q, const HostTensor &w,
                       const HostTensor &pages, const HostTensor &blockTable,
                       const HostTensor &lengths, int64_t k, int64_t poolSize,
                       const PageLayout &layout);

/// The scores selectPaged ranks, for telling near ties from errors: query
/// row r = b * S + s has valid[r] = floor(L / P) entries, and logits[r, j]
/// is score's logit (f32-rounded) of its entry j, for j < valid[r] (0 after).
struct PagedLogits {
  HostTensor logits; // [B*S, max floor(L / P)], f32
  HostTensor valid;  // [B*S], i32
};
/// The same operands as selectPaged, checked by checkSelectPaged.
PagedLogits selectPagedLogits(const HostTensor &q, const HostTensor &w,
                              const HostTensor &pages,
                              const HostTensor &blockTable,
                              const HostTensor &lengths, int64_t poolSize,
                              const PageLayout &layout);

//===----------------------------------------------------------------------===//
// indexpool.append_paged
//===----------------------------------------------------------------------===//

struct AppendResult {
  HostTensor pages;      // [pages, pageBytes], I8
  HostTensor tailKeys;   // [B, P - 1, D], the keys' type
  HostTensor tailScores; // [B, P - 1] or [B, P - 1, D], the scores' type
};

/// keys [B, n, D] and scores [B, n] or [B, n, D]: n new tokens per sequence;
/// tailKeys [B, P - 1, D] and tailScores [B, P - 1] or [B, P - 1, D] of the
/// same types; lengths [B], the tokens each sequence held before (its tail
/// is the last L mod P of them); pages and blockTable as select_paged; bias
/// as compress. After the append every group a sequence completes must have
/// its page in the table: floor((L + n) / P) <= maxPages * E, with those
/// page ids in [0, pages).
std::string checkAppendPaged(const HostTensor &keys, const HostTensor &scores,
                             const HostTensor &tailKeys,
                             const HostTensor &tailScores,
                             const HostTensor &lengths, const HostTensor *bias,
                             const HostTensor &pages,
                             const HostTensor &blockTable,
                             const CompressOptions &options,
                             const PageLayout &layout);
/// Per sequence: the L mod P tail tokens and the n new ones, in order; each
/// group of P they complete (group g holds tokens g*P .. g*P+P-1 of the
/// sequence) is compressed as compress does and written at entry g of the
/// sequence (page blockTable[b, g / E], entry g % E); the (L + n) mod P
/// tokens left over become the new tail, at rows 0 .. of the tail tensors
/// (later rows keep their values). A prefill of T tokens followed by any
/// appends gives the pages one compress of the whole sequence gives.
AppendResult appendPaged(const HostTensor &keys, const HostTensor &scores,
                         const HostTensor &tailKeys,
                         const HostTensor &tailScores,
                         const HostTensor &lengths, const HostTensor *bias,
                         const HostTensor &pages, const HostTensor &blockTable,
                         const CompressOptions &options,
                         const PageLayout &layout);

//===----------------------------------------------------------------------===//
// indexpool.refine_paged
//===----------------------------------------------------------------------===//

/// q [B, S, H, D]; w [B, S, H]; candidates [B, S, C] I32; the token tier's
/// pages [pages, pageBytes] I8 (one entry per token); blockTable
/// [B, maxPages] I32; lengths [B, S] I32; 0 <= k <= C. Each length L >= 0
/// is at most maxPages * E, and every page id the row uses (the first
/// ceil(L / E) of its table) is in [0, pages).
std::string checkRefinePaged(const HostTensor &q, const HostTensor &w,
                             const HostTensor &candidates,
                             const HostTensor &pages,
                             const HostTensor &blockTable,
                             const HostTensor &lengths, int64_t k,
                             const PageLayout &layout);
/// logits[b * S + s, c]: select_paged's logit (f32-rounded) of token t =
/// candidates[b, s, c]'s entry when 0 <= t < L, NaN otherwise (padding).
HostTensor refinePagedLogits(const HostTensor &q, const HostTensor &w,
                             const HostTensor &candidates,
                             const HostTensor &pages,
                             const HostTensor &blockTable,
                             const HostTensor &lengths,
                             const PageLayout &layout);
/// refine on the token tier: per query row, topk (k) of refinePagedLogits,
/// each kept column's candidate, -1 where it is padding. tokens [B, S, k].
HostTensor refinePaged(const HostTensor &q, const HostTensor &w,
                       const HostTensor &candidates, const HostTensor &pages,
                       const HostTensor &blockTable, const HostTensor &lengths,
                       int64_t k, const PageLayout &layout);

} // namespace indexpool::ref

#endif // INDEXPOOL_REFERENCE_PAGED_H
