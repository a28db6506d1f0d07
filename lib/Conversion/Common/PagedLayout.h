//===- PagedLayout.h - the bytes of the paged ops' pages --------*- C++ -*-===//
//
// The byte layout of docs/serving-layout.md as the CPU loops
// (IndexPoolToLoops/PagedOps.cpp) and the GPU kernels
// (IndexPoolToGPU/Kernels/PagedKernels.cpp) both address it: an entry's
// codes and scale offsets, its page through a block table, codes read as
// f32 and scales read and written as 4 little-endian bytes.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_LIB_CONVERSION_COMMON_PAGEDLAYOUT_H
#define INDEXPOOL_LIB_CONVERSION_COMMON_PAGEDLAYOUT_H

#include "Emitter.h"
#include "indexpool/Dialect/ElementTypes.h"
#include "indexpool/Vocabulary/PageLayout.h"

#include <utility>

namespace mlir::indexpool::loops {

/// Where an entry's bytes are in its page: E entries of D code bytes (D / 2
/// for i4, two codes a byte), then their E little-endian f32 scales (or the
/// scales first).
struct PageEntries {
  int64_t entries;
  bool scalesFirst;
  Type codeType; // f8E4M3FN, i8 or i4

  /// The vocabulary's row of the code type (ElementTypes.def).
  const ::indexpool::ElementTypeInfo &codeInfo() const {
    return ::indexpool::elementTypeInfo(
        toElementType(codeType).value_or(::indexpool::ElementType::I8));
  }
  /// The layout of a page of `dim` codes (Vocabulary/PageLayout.h).
  ::indexpool::vocab::PageLayout vocabLayout(int64_t dim) const {
    return {entries, dim, codeInfo().type, scalesFirst};
  }
  /// Codes below a byte, packed (code 2i in the low nibble of byte i).
  bool packed() const { return codeInfo().bits < 8; }
  /// The bytes of one entry's codes: D, or D / 2 when packed.
  Value codeBytes(Emitter &e, Value dimD) const;

  template <typename Op>
  static PageEntries of(Op op) {
    return {static_cast<int64_t>(op.getPageEntries()), op.getScalesFirst(),
            op.getCodesType()};
  }
  /// The first byte of the codes of `entry` in its page.
  Value codesAt(Emitter &e, Value entry, Value dimD) const;
  /// The first of the 4 bytes of the scale of `entry` in its page.
  Value scaleAt(Emitter &e, Value entry, Value dimD) const;
};

/// An integer value as an index.
Value toIndex(ImplicitLocOpBuilder &b, Value v);

/// 0 <= v < bound, for index values.
Value inRange(Emitter &e, Value v, Value bound);

/// lengths[at] as an index, negative ones as 0.
Value loadLength(Emitter &e, Value lengths, ValueRange at);

/// The pooled entries select_paged scores for a query row of `length`
/// tokens: floor(length / P), no more than the table holds (`capacity`).
Value selectedEntries(Emitter &e, Value length, int64_t poolSize,
                      Value capacity);

/// select_paged's L mod P tail tokens n*P .. L-1 of query row `m` into
/// tokens[m, k*P .. k*P + P - 1), -1 after them.
void storeTailTokens(Emitter &e, Value length, int64_t poolSize, int64_t k,
                     Value tokens, Value m);

/// Entry `j` of sequence `seq`: its page (block_table[seq, j / E], clamped
/// into the pages so that a bad id reads a wrong entry, never outside) and
/// its entry in the page.
std::pair<Value, Value> locateEntry(Emitter &e, const PageEntries &layout,
                                    Value table, Value seq, Value j,
                                    Value numPages);

/// The D codes of an entry as f32, chunk `c` of them (`at`: the entry's
/// codesAt): the page bytes read as the code type (packed codes: each
/// lane's bits, decodePackedCode).
Value loadCodes(Emitter &e, const PageEntries &layout, Value pages, Value page,
                Value at, Chunk c);

/// `count` codes of the entry at `at` of page `page`, from code `offset`,
/// as bytes: codes of a byte (i8, f8E4M3FN) as they are, i4 (packed two a
/// byte) sign-extended; one load and a few byte operations, for the int8
/// dot's and the FP8 byte tables' key rows (loadCodes decodes to f32
/// lanes). `offset` and `count` are multiples of the codes a byte holds.
Value loadCodeBytes(Emitter &e, const PageEntries &layout, Value pages,
                    Value page, Value at, Value offset, int64_t count);

/// The f32 scale of an entry from its 4 little-endian bytes at `at`.
Value loadScale(Emitter &e, Value pages, Value page, Value at);

/// Codes (a scalar or a vector of the code type) as the i8 bytes a page
/// stores.
Value codeBytes(ImplicitLocOpBuilder &b, Value codes);

/// Two 4-bit codes (i8 lanes holding their bits low: encodePackedCode's,
/// scalars or vectors) as the byte that holds them: `low` in bits 3..0,
/// `high` in bits 7..4.
Value packNibbles(ImplicitLocOpBuilder &b, Value low, Value high);

/// A vector of 2n 4-bit codes (i8 lanes, as packNibbles) as the n bytes
/// that hold them.
Value packNibbleCodes(ImplicitLocOpBuilder &b, Value codes);

/// Writes the f32 `scale` as 4 little-endian bytes at pages[page, at ..].
void storeScale(Emitter &e, Value scale, Value pages, Value page, Value at);

/// Copies the element at `from[fromAt]` to `to[toAt]`, or with `rowOfD` the
/// D elements of the row there (D = dim 2 of `from`), as they are (no
/// conversion).
void copyRow(Emitter &e, Value from, SmallVector<Value> fromAt, Value to,
             SmallVector<Value> toAt, bool rowOfD);

/// The tokens of one sequence of append_paged in order: its `tail` (L mod
/// P) tail rows, then its new tokens.
struct TokenStream {
  Value seq, tail;
  Value tailKeys, tailScores, keys, scores;

  /// Token `t`'s key row and score(s) into `keysTo[at]` and `scoresTo[at]`.
  void copy(Emitter &e, Value t, Value keysTo, Value scoresTo,
            SmallVector<Value> at) const;
};

/// append_paged's rule for sequences that share a page (a shared prefix)
/// and complete the same entry in one step: the later sequence's write
/// wins, as the reference appends the sequences in order. True when a
/// sequence after `seq` completes a group at entry `entry` of page `page`
/// (a page id of the table, in range), so that `seq` must not write it:
/// the CPU loops and the GPU kernels run sequences in parallel, and this
/// makes the bytes the same on every schedule. `keys` is [B, n, D].
Value writtenLater(Emitter &e, const PageEntries &layout, int64_t poolSize,
                   Value keys, Value lengths, Value table, Value seq,
                   Value page, Value entry);

} // namespace mlir::indexpool::loops

#endif // INDEXPOOL_LIB_CONVERSION_COMMON_PAGEDLAYOUT_H
