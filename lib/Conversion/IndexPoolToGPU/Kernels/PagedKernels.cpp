//===- PagedKernels.cpp - the paged ops as GPU kernels --------------------===//
//
// compress_paged, select_paged and append_paged (docs/serving-layout.md) as
// short fixed sequences of kernels, for runtime sizes (every size but D and
// H may be dynamic). Groups are compressed by the compress warp-row kernel's
// row code (compressedRow, quantizedRow) and stored into their entries;
// entries are scored by the score kernel reading key rows through the block
// table; then the topk and expand kernels. The page bytes are addressed by
// Common/PagedLayout.h, as the CPU loops address them, so both write and
// read the same bytes. Page ids, slots and lengths that would reach outside
// the pages are skipped or clamped here, never followed, as on the CPU
// (indexpool-run refuses them before it runs the code).
//
// compress_paged and append_paged write the pages in place: one-shot
// bufferization calls them on the buffers it chose (the input's pages
// unless something reads those after the op; IndexPoolToGPUKernels.cpp,
// emitMarkedPagedKernels); only if given a distinct result buffer do they
// copy the pages into it first.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"
#include "WarpRows.h"

#include "Common/Emitter.h"
#include "Common/PagedLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;
using mlir::indexpool::loops::PageEntries;
namespace loops = mlir::indexpool::loops;

static Value ult(ImplicitLocOpBuilder &b, Value x, Value y) {
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y);
}

/// Copies the bytes of `from` [pages, page_bytes] into `to` (same sizes).
static void emitCopyPagesKernel(ImplicitLocOpBuilder &b, Value from, Value to,
                                const KernelLaunch &launch) {
  Emitter e(b, 1, /*stackScopes=*/false);
  forEachItem(
      e, launch, [&]() { return e.mul(e.dim(from, 0), e.dim(from, 1)); },
      [&](Value i) {
        Value width = e.dim(from, 1);
        SmallVector<Value> at{arith::DivUIOp::create(b, i, width),
                              arith::RemUIOp::create(b, i, width)};
        memref::StoreOp::create(b, memref::LoadOp::create(b, from, at), to,
                                at);
      });
}

/// Stores a quantized row into entry `entry` of page `page` of `pages`
/// when `write` (the lanes' codes as bytes, the leader's scale as 4
/// little-endian bytes).
static void storeIntoPage(Emitter &e, const WarpRow &row,
                          const QuantizedRow &q, Value write,
                          const PageEntries &layout, Value pages, Value page,
                          Value entry, int64_t d) {
  ImplicitLocOpBuilder &b = e.builder();
  Value dimD = e.index(d);
  Value active = arith::AndIOp::create(b, row.active, write);
  Value leader = arith::AndIOp::create(b, row.leader, write);
  e.ifThen(leader, [&]() {
    loops::storeScale(e, q.scale, pages, page, layout.scaleAt(e, entry, dimD));
  });
  Value codesAt = layout.codesAt(e, entry, dimD);
  for (auto [chunkCodes, chunkOffset] : llvm::zip(q.codes, row.offsets)) {
    Value codes = chunkCodes, offset = chunkOffset;
    e.ifThen(active, [&]() {
      // Byte-aligned only: page_bytes may be dynamic. Packed codes: the
      // lane's (even count of) codes two a byte, at half its offset.
      Value bytes = layout.packed() ? loops::packNibbleCodes(b, codes)
                                    : loops::codeBytes(b, codes);
      Value at = layout.packed()
                     ? Value(arith::DivUIOp::create(
                           b, offset,
                           e.index(layout.codeInfo().codesPerByte())))
                     : offset;
      vector::StoreOp::create(b, bytes, pages,
                              ValueRange{page, e.add(codesAt, at)});
    });
  }
}

void mlir::indexpool::gpukernels::emitCopyKernel(ImplicitLocOpBuilder &b,
                                                 Value from, Value to,
                                                 const KernelLaunch &launch) {
  // A statically empty buffer (append_paged's tails with pool_size = 1:
  // [B, 0, D]) has nothing to copy, and no 1-d view (collapsing a static 0
  // with a dynamic size is not a valid collapse_shape).
  if (llvm::is_contained(cast<MemRefType>(from.getType()).getShape(), 0))
    return;
  // Both row-major and contiguous: copied as 1-d arrays.
  auto flat = [&](Value m) -> Value {
    auto type = cast<MemRefType>(m.getType());
    if (type.getRank() == 1)
      return m;
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      all[0].push_back(d);
    return memref::CollapseShapeOp::create(b, m, all);
  };
  Value src = flat(from), dst = flat(to);
  Emitter e(b, 1, /*stackScopes=*/false);
  forEachItem(
      e, launch, [&]() { return e.dim(src, 0); },
      [&](Value i) {
        memref::StoreOp::create(b, memref::LoadOp::create(b, src, i), dst, i);
      });
}

void mlir::indexpool::gpukernels::emitCompressPagedKernels(
    ImplicitLocOpBuilder &b, const PagedCompressBuffers &c,
    const KernelLaunch &launch, bool hardwareFp8) {
  // Written in place (the result is the input's buffer): no copy.
  if (c.pagesIn != c.pages)
    emitCopyPagesKernel(b, c.pagesIn, c.pages, launch);
  WarpLayout lay = warpLayoutOf(c.pool.keys, launch);
  Emitter e(b, lay.elems, /*stackScopes=*/false);
  int64_t d = cast<MemRefType>(c.pool.keys.getType()).getDimSize(1);
  // One row per group: G = floor(T / P) = the slots.
  forEachRow(e, lay, launch, c.slots, [&](const WarpRow &row) {
    SmallVector<Value> x = compressedRow(e, lay, row, c.pool, c.rotate);
    QuantizedRow q = quantizedRow(e, lay, x, c.layout.codeType, c.pow2Scale,
                                  c.minAbsmax, hardwareFp8);
    Value slot = loops::toIndex(
        b, memref::LoadOp::create(b, c.slots, ValueRange{row.clamped}));
    Value entries = e.index(c.layout.entries);
    // Negative slots skip their group; slots beyond the pages are not
    // followed.
    Value write =
        loops::inRange(e, slot, e.mul(e.dim(c.pages, 0), entries));
    storeIntoPage(e, row, q, write, c.layout, c.pages,
                  arith::DivUIOp::create(b, slot, entries),
                  arith::RemUIOp::create(b, slot, entries), d);
  });
}

bool mlir::indexpool::gpukernels::canSelectPaged(MemRefType query) {
  if (query.getRank() != 4 || query.isDynamicDim(2) || query.isDynamicDim(3) ||
      query.getDimSize(3) == 0)
    return false;
  auto rows = MemRefType::get(
      {ShapedType::kDynamic, query.getDimSize(2), query.getDimSize(3)},
      query.getElementType());
  auto codes = MemRefType::get({ShapedType::kDynamic, query.getDimSize(3)},
                               IntegerType::get(query.getContext(), 8));
  return canScore(rows, codes);
}

bool mlir::indexpool::gpukernels::canSelectPagedMma(MemRefType query,
                                                    Type codeType,
                                                    const MmaChip &chip) {
  // Packed entries (codes below a byte) are decoded on the CUDA cores (the
  // tensor-core loads read whole code bytes as elements).
  if (codeType.getIntOrFloatBitWidth() < 8)
    return false;
  if (query.getRank() != 4 || query.isDynamicDim(2) || query.isDynamicDim(3))
    return false;
  auto rows = MemRefType::get(
      {ShapedType::kDynamic, query.getDimSize(2), query.getDimSize(3)},
      query.getElementType());
  auto codes = MemRefType::get({ShapedType::kDynamic, query.getDimSize(3)},
                               codeType);
  return canScoreMma(rows, codes, chip);
}

namespace {
/// The rows a paged score kernel scores for query row m: `count` columns,
/// the first `rowLength(m)` (null: all) of them, column c being entry
/// `entryOf(m, c).first` of row m's sequence, present where
/// `entryOf(m, c).second` holds (null: always; where it does not, the logit
/// is NaN and nothing of the entry, its block table slot included, is read).
struct PagedScoreRows {
  std::function<Value(Emitter &)> count;
  std::function<Value(Emitter &, Value m)> rowLength;
  std::function<std::pair<Value, Value>(Emitter &, Value m, Value c)> entryOf;
};
} // namespace

/// The score kernel (tensor cores or CUDA cores) over paged entries:
/// logits[m, c] for entry entryOf(m, c) of sequence m / S (S = lengths'
/// dim 1) at page block_table[seq, j / E], entry j % E, its codes and
/// scale as the CPU reads them.
static void emitPagedScoreKernel(ImplicitLocOpBuilder &b, Value pages,
                                 Value table, Value lengths,
                                 const PageEntries &layout, Value q, Value w,
                                 Value logits, const PagedScoreRows &rows,
                                 const KernelLaunch &launch, bool tensorCores,
                                 const MmaChip &chip) {
  int64_t d = cast<MemRefType>(q.getType()).getDimSize(2);
  struct Entry {
    Value page, codesAt, scale, present;
  };
  auto locate = [&](Emitter &em, Value m, Value c) {
    ImplicitLocOpBuilder &kb = em.builder();
    // Named values, not structured bindings: the lambdas below capture j.
    std::pair<Value, Value> entryOf = rows.entryOf(em, m, c);
    Value j = entryOf.first, present = entryOf.second;
    Value seq = arith::DivUIOp::create(kb, m, em.dim(lengths, 1));
    Value dimD = em.index(d);
    auto where = [&]() -> SmallVector<Value> {
      auto [page, entry] =
          loops::locateEntry(em, layout, table, seq, j, em.dim(pages, 0));
      return {page, layout.codesAt(em, entry, dimD),
              loops::loadScale(em, pages, page,
                               layout.scaleAt(em, entry, dimD))};
    };
    SmallVector<Value> at =
        present ? em.ifThen(present, {em.index(0), em.index(0), em.f32(0.0)},
                            where)
                : where();
    return Entry{at[0], at[1], at[2], present};
  };
  if (tensorCores) {
    // The tensor-core score: one query row (one sequence) per block, the
    // entry's codes read straight from its page.
    MmaKeys keys;
    keys.codeType = layout.codeType;
    // An entry's codes start at page * pageBytes + codesOffset(entry).
    ::indexpool::vocab::PageLayout bytes = layout.vocabLayout(d);
    int64_t start = std::gcd(bytes.pageBytes(), bytes.codeBytes());
    if (layout.scalesFirst)
      start = std::gcd(start, bytes.codesOffset(0));
    keys.alignBytes = std::min<int64_t>(16, start & -start);
    keys.perQuery = true;
    keys.count = rows.count;
    keys.rowLength = rows.rowLength;
    keys.row = [&](Emitter &em, Value m, Value c) {
      Entry at = locate(em, m, c);
      return MmaKeyRow{pages, {at.page}, at.codesAt, at.scale, at.present};
    };
    emitMmaScoreKernel(b, q, w, logits, keys, launch, chip);
    return;
  }
  ScoreKeys keys;
  keys.elementBytes = 1;
  keys.count = rows.count;
  keys.rowLength = rows.rowLength;
  keys.row = [&](Emitter &em, Value m, Value c) {
    Entry at = locate(em, m, c);
    KeyRow row;
    row.scale = at.scale;
    row.present = at.present;
    PageEntries rowLayout = layout;
    row.load = [&em, rowLayout, pages, at](Value d0) {
      return loops::loadCodes(em, rowLayout, pages, at.page, at.codesAt,
                              {d0, nullptr});
    };
    return row;
  };
  emitScoreKernel(b, q, w, logits, keys, launch);
}

void mlir::indexpool::gpukernels::emitSelectPagedKernels(
    ImplicitLocOpBuilder &b, const PagedSelectBuffers &s,
    const KernelLaunch &launch) {
  Emitter e(b, 1, /*stackScopes=*/false);
  const int64_t p = s.poolSize, k = s.k;
  const PageEntries &layout = s.layout;
  // Query rows (b, s) flattened to m = b * S + s: views.
  auto rows = [&](Value buffer, ArrayRef<ReassociationIndices> groups) {
    return Value(memref::CollapseShapeOp::create(b, buffer, groups));
  };
  Value q = rows(s.query, {{0, 1}, {2}, {3}});
  Value w = rows(s.weights, {{0, 1}, {2}});
  Value len = rows(s.lengths, {{0, 1}});
  Value tokens = rows(s.tokens, {{0, 1}, {2}});
  auto capacityOf = [&](Emitter &em) {
    return em.mul(em.dim(s.table, 1), em.index(layout.entries));
  };

  // Temporaries: the scores of every entry a table holds, the entries each
  // row scores and the top k.
  Value dimM = e.dim(len, 0);
  auto temp = [&](ArrayRef<int64_t> shape, Type element, ValueRange dynamic) {
    return Value(memref::AllocOp::create(b, MemRefType::get(shape, element),
                                         dynamic, b.getI64IntegerAttr(64)));
  };
  int64_t dyn = ShapedType::kDynamic;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value logits = temp({dyn, dyn}, f32, {dimM, capacityOf(e)});
  Value valid = temp({dyn}, i32, {dimM});
  Value values = temp({dyn, k}, f32, {dimM});
  Value indices = temp({dyn, k}, i32, {dimM});

  // Per query row: n = floor(L / P) entries (no more than the table
  // holds), and the L mod P tail tokens after the k*P expanded ones.
  forEachItem(
      e, launch, [&]() { return e.dim(len, 0); },
      [&](Value m) {
        Value l = loops::loadLength(e, len, {m});
        Value n = loops::selectedEntries(e, l, p, capacityOf(e));
        memref::StoreOp::create(b, arith::IndexCastOp::create(b, i32, n),
                                valid, ValueRange{m});
        loops::storeTailTokens(e, l, p, k, tokens, m);
      });

  // Both score kernels: every entry a table holds, the first valid[m] of
  // them for row m.
  PagedScoreRows source;
  source.count = [&](Emitter &em) { return em.dim(logits, 1); };
  source.rowLength = [&](Emitter &em, Value m) {
    ImplicitLocOpBuilder &kb = em.builder();
    return loops::toIndex(kb,
                          memref::LoadOp::create(kb, valid, ValueRange{m}));
  };
  source.entryOf = [](Emitter &, Value, Value j) {
    return std::pair<Value, Value>{j, Value()};
  };
  emitPagedScoreKernel(b, s.pages, s.table, s.lengths, layout, q, w, logits,
                       source, launch, s.tensorCores, s.chip);
  emitTopKKernel(b, logits, valid, values, indices, partTopKLaunch(launch));
  // Expand writes tokens[m, 0 .. k*P), before the tail slots.
  emitExpandKernel(b, indices, tokens, p, launch);
}


void mlir::indexpool::gpukernels::emitRefinePagedKernels(
    ImplicitLocOpBuilder &b, const PagedRefineBuffers &s,
    const KernelLaunch &launch) {
  Emitter e(b, 1, /*stackScopes=*/false);
  const int64_t k = s.k;
  auto rows = [&](Value buffer, ArrayRef<ReassociationIndices> groups) {
    return Value(memref::CollapseShapeOp::create(b, buffer, groups));
  };
  Value q = rows(s.query, {{0, 1}, {2}, {3}});
  Value w = rows(s.weights, {{0, 1}, {2}});
  Value len = rows(s.lengths, {{0, 1}});
  Value candidates = rows(s.candidates, {{0, 1}, {2}});
  Value tokens = rows(s.tokens, {{0, 1}, {2}});
  auto temp = [&](ArrayRef<int64_t> shape, Type element, ValueRange dynamic) {
    return Value(memref::AllocOp::create(b, MemRefType::get(shape, element),
                                         dynamic, b.getI64IntegerAttr(64)));
  };
  int64_t dyn = ShapedType::kDynamic;
  Value dimM = e.dim(len, 0);
  Value logits =
      temp({dyn, dyn}, b.getF32Type(), {dimM, e.dim(candidates, 1)});
  Value values = temp({dyn, k}, b.getF32Type(), {dimM});
  Value indices = temp({dyn, k}, b.getI32Type(), {dimM});
  // Column c of row m: token t = candidates[m, c] when 0 <= t < L (its
  // entry, token t of the tier), padding otherwise.
  PagedScoreRows source;
  source.count = [&](Emitter &em) { return em.dim(logits, 1); };
  source.entryOf = [&](Emitter &em, Value m, Value c) {
    ImplicitLocOpBuilder &kb = em.builder();
    Value id = memref::LoadOp::create(kb, candidates, ValueRange{m, c});
    Value t = arith::IndexCastOp::create(kb, kb.getIndexType(), id);
    Value present = arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, t,
                                          loops::loadLength(em, len, {m}));
    return std::pair<Value, Value>{t, present};
  };
  emitPagedScoreKernel(b, s.pages, s.table, s.lengths, s.layout, q, w, logits,
                       source, launch, s.tensorCores, s.chip);
  emitTopKKernel(b, logits, /*valid=*/nullptr, values, indices,
                 partTopKLaunch(launch));
  forEachItem(
      e, launch, [&]() { return e.mul(e.dim(indices, 0), e.index(k)); },
      [&](Value item) {
        loops::emitTakeTokenEntry(
            e, candidates, len, indices, tokens,
            arith::DivUIOp::create(b, item, e.index(k)),
            arith::RemUIOp::create(b, item, e.index(k)));
      });
}

namespace {
/// Where sequence `seq` of append_paged stands: its length L, its tail
/// (L mod P tokens), the groups its tail and n new tokens complete and the
/// tokens left over.
struct SequenceState {
  Value length, tail, firstGroup, complete, leftOver;

  static SequenceState of(Emitter &e, Value lengths, Value seq, Value newTokens,
                          int64_t p) {
    ImplicitLocOpBuilder &b = e.builder();
    SequenceState st;
    st.length = loops::loadLength(e, lengths, {seq});
    st.tail = arith::RemUIOp::create(b, st.length, e.index(p));
    st.firstGroup = arith::DivUIOp::create(b, st.length, e.index(p));
    Value size = e.add(st.tail, newTokens);
    st.complete = arith::DivUIOp::create(b, size, e.index(p));
    st.leftOver = arith::RemUIOp::create(b, size, e.index(p));
    return st;
  }
};
} // namespace

void mlir::indexpool::gpukernels::emitAppendPagedKernels(
    ImplicitLocOpBuilder &b, const PagedAppendBuffers &a,
    const KernelLaunch &launch, bool hardwareFp8) {
  Emitter e(b, 1, /*stackScopes=*/false);
  const int64_t p = a.poolSize;
  const PageEntries &layout = a.layout;
  auto keysType = cast<MemRefType>(a.keys.getType());
  auto scoresType = cast<MemRefType>(a.scores.getType());
  const int64_t d = keysType.getDimSize(2);
  const bool perChannel = scoresType.getRank() == 3;
  // At most ceil((P - 1 + n) / P) groups per sequence; R = B of them rows
  // of the group scratch, P tokens each.
  auto groupsPerSeq = [&](Emitter &em) {
    return arith::DivUIOp::create(em.builder(),
                                  em.add(em.dim(a.keys, 1), em.index(p - 1)),
                                  em.index(p))
        .getResult();
  };
  auto groupRows = [&](Emitter &em) {
    return em.mul(em.dim(a.keys, 0), groupsPerSeq(em));
  };
  auto streamOf = [&](Value seq, Value tail) {
    return loops::TokenStream{seq, tail, a.tailKeys, a.tailScores, a.keys,
                              a.scores};
  };

  // The tokens of every group completed, in their own types: [R*P, D] keys,
  // [R*P] or [R*P, D] scores.
  int64_t dyn = ShapedType::kDynamic;
  Value scratchTokens = e.mul(groupRows(e), e.index(p));
  Value groupKeys = memref::AllocOp::create(
      b, MemRefType::get({dyn, d}, keysType.getElementType()),
      ValueRange{scratchTokens}, b.getI64IntegerAttr(64));
  Value groupScores = memref::AllocOp::create(
      b,
      perChannel ? MemRefType::get({dyn, d}, scoresType.getElementType())
                 : MemRefType::get({dyn}, scoresType.getElementType()),
      ValueRange{scratchTokens}, b.getI64IntegerAttr(64));

  if (a.pagesIn != a.pages)
    emitCopyPagesKernel(b, a.pagesIn, a.pages, launch);

  // One thread per token of the group scratch, then one per row of the new
  // tails: rows left over take their stream token, the others keep theirs.
  const int64_t tailRows = p - 1;
  forEachItem(
      e, launch,
      [&]() {
        return e.add(e.mul(groupRows(e), e.index(p)),
                     e.mul(e.dim(a.keys, 0), e.index(tailRows)));
      },
      [&](Value item) {
        Value gathered = e.mul(groupRows(e), e.index(p));
        Value newTokens = e.dim(a.keys, 1);
        Value isGroup = ult(b, item, gathered);
        e.ifThen(isGroup, [&]() {
          Value r = arith::DivUIOp::create(b, item, e.index(p));
          Value slot = arith::RemUIOp::create(b, item, e.index(p));
          Value perSeq = groupsPerSeq(e);
          Value seq = arith::DivUIOp::create(b, r, perSeq);
          Value i = arith::RemUIOp::create(b, r, perSeq);
          SequenceState st = SequenceState::of(e, a.lengths, seq, newTokens, p);
          e.ifThen(ult(b, i, st.complete), [&]() {
            streamOf(seq, st.tail)
                .copy(e, e.add(e.mul(i, e.index(p)), slot), groupKeys,
                      groupScores, {item});
          });
        });
        if (tailRows == 0)
          return;
        e.ifThen(arith::XOrIOp::create(b, isGroup,
                                       arith::ConstantIntOp::create(b, 1, 1)),
                 [&]() {
          Value j = arith::SubIOp::create(b, item, gathered);
          Value seq = arith::DivUIOp::create(b, j, e.index(tailRows));
          Value r = arith::RemUIOp::create(b, j, e.index(tailRows));
          SequenceState st = SequenceState::of(e, a.lengths, seq, newTokens, p);
          Value leftOver = ult(b, r, st.leftOver);
          e.ifThen(leftOver, [&]() {
            Value done = e.mul(st.complete, e.index(p));
            streamOf(seq, st.tail)
                .copy(e, e.add(done, r), a.newTailKeys, a.newTailScores,
                      {seq, r});
          });
          e.ifThen(arith::XOrIOp::create(b, leftOver,
                                         arith::ConstantIntOp::create(b, 1, 1)),
                   [&]() {
            loops::copyRow(e, a.tailKeys, {seq, r}, a.newTailKeys, {seq, r},
                           /*rowOfD=*/true);
            loops::copyRow(e, a.tailScores, {seq, r}, a.newTailScores,
                           {seq, r}, perChannel);
          });
        });
      });

  // The groups, compressed as compress's warp rows do, into entry g of
  // their sequence: skipped where g is beyond the table or its page id
  // outside the pages.
  loops::PoolBuffers pool{groupKeys, groupScores, a.bias, /*weights=*/Value(),
                          p, a.temperature};
  WarpLayout lay = warpLayoutOf(groupKeys, launch);
  Emitter we(b, lay.elems, /*stackScopes=*/false);
  forEachRow(
      we, lay, launch, [&]() { return groupRows(we); },
      [&](const WarpRow &row) {
        SmallVector<Value> x = compressedRow(we, lay, row, pool, a.rotate);
        QuantizedRow q = quantizedRow(we, lay, x, layout.codeType,
                                      a.pow2Scale, a.minAbsmax, hardwareFp8);
        Value perSeq = groupsPerSeq(we);
        Value seq = arith::DivUIOp::create(b, row.clamped, perSeq);
        Value i = arith::RemUIOp::create(b, row.clamped, perSeq);
        SequenceState st =
            SequenceState::of(we, a.lengths, seq, we.dim(a.keys, 1), p);
        Value g = we.add(st.firstGroup, i);
        Value entries = we.index(layout.entries);
        Value inTable = arith::AndIOp::create(
            b, ult(b, i, st.complete),
            ult(b, g, we.mul(we.dim(a.table, 1), entries)));
        // The table is read only where the group is in it.
        Value page = we.ifThen(inTable, {we.index(-1)}, [&]() {
          Value column = arith::DivUIOp::create(b, g, entries);
          return SmallVector<Value>{loops::toIndex(
              b, memref::LoadOp::create(b, a.table,
                                        ValueRange{seq, column}))};
        })[0];
        Value entry = arith::RemUIOp::create(b, g, entries);
        Value write = arith::AndIOp::create(
            b, inTable, loops::inRange(we, page, we.dim(a.pages, 0)));
        // Sequences that share a page may complete the same entry: the
        // last of them writes it, as the sequences are appended in order.
        write = we.ifThen(write, {write}, [&]() {
          Value later = loops::writtenLater(we, layout, p, a.keys, a.lengths,
                                            a.table, seq, page, entry);
          return SmallVector<Value>{arith::XOrIOp::create(
              b, later, arith::ConstantIntOp::create(b, 1, 1))};
        })[0];
        storeIntoPage(we, row, q, write, layout, a.pages, page, entry, d);
      });
}
