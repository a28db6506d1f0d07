//===- PagedOps.cpp - the paged serving layout on buffers -----------------===//
//
// compress_paged, select_paged, append_paged and refine_paged
// (docs/serving-layout.md) as
// loops over the bytes of the pages. Every group written is compressed by
// emitCompressGroup, the code path of compress, and every entry read is
// scored by emitScoreRows, the arithmetic of score: a paged op computes
// what its dense op computes, bit for bit. Page ids, slots and lengths come
// from the caller: those that would reach outside the pages are skipped or
// clamped here, never followed (indexpool-run refuses them before it runs
// the code, with the reference's message). The loops are emitted during
// one-shot bufferization (BufferizePaged.cpp) on the buffers it chose: the
// pages and append_paged's tails are updated in place.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Reference/Numerics.h"

#include "Common/Kernels.h"
#include "Common/PagedLayout.h"
#include "LowerOp.h"
#include "PagedOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::loops;

namespace {

/// The per-thread scratch of one group compressed into a page: the f32 row
/// of emitCompressGroup, its codes [1, D] (packed codes as i8 bits) and its
/// scale [1]. Allocated once per row of a parallel loop, inside its stack
/// scope: a stack scope must sit directly in a parallel loop's body when it
/// is lowered.
struct PageScratch {
  Value row, codes, scale;

  static PageScratch create(Emitter &e, Value keys, Value dimD,
                            const PageEntries &layout) {
    ImplicitLocOpBuilder &b = e.builder();
    int64_t d = cast<MemRefType>(keys.getType()).getDimSize(1);
    auto codesType = MemRefType::get({1, d}, layout.packed() ? b.getI8Type()
                                                             : layout.codeType);
    return {scratchRow(e, keys, dimD),
            memref::AllocaOp::create(
                b, codesType,
                codesType.isDynamicDim(1) ? ValueRange{dimD} : ValueRange{},
                b.getI64IntegerAttr(32)),
            memref::AllocaOp::create(b, MemRefType::get({1}, b.getF32Type()))};
  }
};

/// Compresses group `g` of `pool` (emitCompressGroup) and writes the bytes
/// of its codes and scale into entry `entry` of page `page`.
void emitCompressGroupIntoPage(Emitter &e, const PoolBuffers &pool, Value g,
                               bool rotate, const QuantizeParams &params,
                               const PageScratch &scratch,
                               const PageEntries &layout, Value pages,
                               Value page, Value entry) {
  ImplicitLocOpBuilder &b = e.builder();
  Value zero = e.index(0);
  QuantizeParams quantize = params;
  if (layout.packed()) // computed into an i8 row, as the code's bits
    quantize.packedCodes = layout.codeType;
  emitCompressGroup(e, pool, g, rotate, quantize, scratch.row, scratch.codes,
                    scratch.scale, zero);
  Value dimD = e.dim(scratch.row, 0);
  Value codesAt = layout.codesAt(e, entry, dimD);
  auto codeAt = [&](Value i) {
    return memref::LoadOp::create(b, scratch.codes, ValueRange{zero, i});
  };
  e.forLoop(zero, layout.codeBytes(e, dimD), [&](Value i) {
    Value byte;
    if (layout.packed()) {
      Value even = e.mul(i, e.index(2));
      byte = packNibbles(b, codeAt(even), codeAt(e.add(even, e.index(1))));
    } else {
      byte = codeBytes(b, codeAt(i));
    }
    memref::StoreOp::create(b, byte, pages,
                            ValueRange{page, e.add(codesAt, i)});
  });
  storeScale(e, memref::LoadOp::create(b, scratch.scale, ValueRange{zero}),
             pages, page, layout.scaleAt(e, entry, dimD));
}

/// The entry column c of query row m scores, and whether it is one (null:
/// always; where it is not, the logit is NaN and nothing is read).
using EntryOf = function_ref<std::pair<Value, Value>(Value m, Value c)>;

/// Asks the cache for the rows of the block of columns from `next` (when
/// there is one) while this block is scored. Its entries may lie in
/// another page, anywhere in memory (the block table's order), where the
/// hardware's stream prefetcher has not started: without this, the first
/// lines of every page arrive on demand (the paged selects ran 20-30%
/// slower than the dense one on the same keys).
static void prefetchNextBlock(Emitter &e, const PageEntries &layout,
                              Value pages, Value table, Value seq,
                              Value numPages, Value dimD, Value m, Value next,
                              Value n, EntryOf entryOf) {
  ImplicitLocOpBuilder &b = e.builder();
  constexpr int64_t kLineBytes = 64;
  e.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::ult, next, n), [&]() {
    Value lastColumn = arith::SubIOp::create(b, n, e.index(1));
    Value rowBytes = layout.codeBytes(e, dimD);
    for (int64_t r = 0; r < scoreRowsPerBlock(e); ++r) {
      Value c = arith::MinUIOp::create(b, e.add(next, e.index(r)), lastColumn);
      auto [j, isEntry] = entryOf(m, c);
      // Padding columns have no entry: entry 0 stands in (a prefetch never
      // faults, but the table is read).
      if (isEntry)
        j = arith::SelectOp::create(b, isEntry, j, e.index(0));
      auto [page, entry] = locateEntry(e, layout, table, seq, j, numPages);
      Value codesAt = layout.codesAt(e, entry, dimD);
      auto prefetch = [&](Value at) {
        memref::PrefetchOp::create(b, pages, ValueRange{page, at},
                                   /*isWrite=*/false, /*localityHint=*/3,
                                   /*isDataCache=*/true);
      };
      e.forLoop(e.index(0), rowBytes, e.index(kLineBytes),
                [&](Value line) { prefetch(e.add(codesAt, line)); });
      prefetch(layout.scaleAt(e, entry, dimD));
    }
  });
}

/// logits[m, c] for the first columnsOf(m) columns of query row m (sequence
/// m / S): entry entryOf(m, c) of the sequence scored as emitScore scores a
/// key row, a block of columns per parallel item decoded into a
/// scratch, then every head of the row's query over them. select_paged's
/// columns are its entries; refine_paged's its candidates' tokens.
void emitPagedScores(Emitter &e, const PageEntries &layout,
                     const ScoreQuery &sq, Value pages, Value table, Value dimS, Value logits,
                     function_ref<Value(Value m)> columnsOf,
                     EntryOf entryOf) {
  ImplicitLocOpBuilder &b = e.builder();
  Value dimD = sq.dimD, numPages = e.dim(pages, 0);
  Value perRow =
      arith::CeilDivUIOp::create(b, e.dim(logits, 1), e.index(scoreRowsPerBlock(e)));
  auto rowType = MemRefType::get({scoreRowsPerBlock(e), sq.staticD},
                                 sq.rowElement(b.getContext()));
  // Codes a step of the int8 dot's rows copies as bytes (0: decoded
  // through f32, a chunk of lanes at a time): whole quads of every lane.
  int64_t quadBytes = 4 * e.width();
  if (sq.dot != ScoreDot::Int8Quads || ShapedType::isDynamic(sq.staticD) ||
      sq.staticD % quadBytes != 0)
    quadBytes = 0;
  // FP8 codes the bf16 pairs' rows decode as bytes by the byte tables (0:
  // through f32).
  int64_t tableCodes = layout.packed() ? 0 : sq.keyTableCodes;
  e.parallelFor(e.mul(e.dim(logits, 0), perRow), [&](Value item) {
    Value m = arith::DivUIOp::create(b, item, perRow);
    Value first =
        e.mul(arith::RemUIOp::create(b, item, perRow), e.index(scoreRowsPerBlock(e)));
    Value n = columnsOf(m);
    Value any = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, first, n);
    e.stackScope([&]() {
      Value scratch = memref::AllocaOp::create(
          b, rowType, rowType.isDynamicDim(1) ? ValueRange{dimD} : ValueRange{},
          b.getI64IntegerAttr(32));
      e.ifThen(any, [&]() {
        Value seq = arith::DivUIOp::create(b, m, dimS);
        Value lastColumn = arith::SubIOp::create(b, n, e.index(1));
        prefetchNextBlock(e, layout, pages, table, seq, numPages, dimD, m,
                          e.add(first, e.index(scoreRowsPerBlock(e))), n,
                          entryOf);
        SmallVector<Value> scaleOf, present;
        for (int64_t r = 0; r < scoreRowsPerBlock(e); ++r) {
          // The block's last item clamps to the row's last column and
          // stores only the columns that exist.
          Value c =
              arith::MinUIOp::create(b, e.add(first, e.index(r)), lastColumn);
          auto [j, isEntry] = entryOf(m, c);
          present.push_back(isEntry);
          auto decode = [&, j = j]() -> SmallVector<Value> {
            Value page, entry;
            std::tie(page, entry) =
                locateEntry(e, layout, table, seq, j, numPages);
            Value codesAt = layout.codesAt(e, entry, dimD);
            if (quadBytes) {
              // The int8 dot's bytes straight from the page's (no f32).
              e.forLoop(e.index(0), dimD, e.index(quadBytes), [&](Value d) {
                emitStoreKeyBytes(e, sq,
                                  loadCodeBytes(e, layout, pages, page, codesAt,
                                                d, quadBytes),
                                  scratch, e.index(r), d);
              });
            } else if (tableCodes) {
              // FP8 codes to bf16 from the page's bytes (no f32).
              e.forLoop(e.index(0), dimD, e.index(tableCodes), [&](Value d) {
                emitStoreF8KeyCodes(e, sq,
                                    loadCodeBytes(e, layout, pages, page,
                                                  codesAt, d, tableCodes),
                                    scratch, e.index(r), d);
              });
            } else {
              e.chunks(dimD, [&](Chunk ch) {
                emitStoreKeyValues(
                    e, sq, loadCodes(e, layout, pages, page, codesAt, ch),
                    scratch, e.index(r), ch.offset, ch.mask);
              });
            }
            return {
                loadScale(e, pages, page, layout.scaleAt(e, entry, dimD))};
          };
          scaleOf.push_back(isEntry ? e.ifThen(isEntry, {e.f32(0.0)}, decode)
                                          .front()
                                    : decode().front());
        }
        SmallVector<Value> logit = emitScoreRows(e, sq, m, scratch, scaleOf);
        for (int64_t r = 0; r < scoreRowsPerBlock(e); ++r) {
          Value c = e.add(first, e.index(r));
          Value value =
              present[r]
                  ? arith::SelectOp::create(
                        b, present[r], logit[r],
                        e.f32(std::numeric_limits<double>::quiet_NaN()))
                  : logit[r];
          e.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::ult, c, n),
                   [&]() {
                     memref::StoreOp::create(b, value, logits,
                                             ValueRange{m, c});
                   });
        }
      });
    });
  });
}

/// compress_paged: each group as compress computes it, written at its slot
/// of the pages, in place. Negative and out-of-range slots are not written.
void lowerCompressPaged(CompressPagedOp op, Emitter &e, PagedBuffers &buffers) {
  ImplicitLocOpBuilder &b = e.builder();
  Value keys = buffers.in(op.getKeys());
  Value scores = buffers.in(op.getScores());
  Value bias = buffers.in(op.getBias());
  Value slots = buffers.in(op.getSlots());
  int64_t p = op.getPoolSize();
  PageEntries layout = PageEntries::of(op);
  Value pages = buffers.inPlace(op.getResult());
  PoolBuffers pool{keys, scores, bias, /*weights=*/Value(), p,
                   op.getTemperature().convertToDouble()};
  QuantizeParams params{op.getPow2Scale(), op.getMinAbsmax().convertToDouble()};
  Value capacity = e.mul(e.dim(pages, 0), e.index(layout.entries));
  Value dimD = e.dim(keys, 1);
  e.parallelFor(groups(e, keys, p), [&](Value row) {
    e.stackScope([&]() {
      auto scratch = PageScratch::create(e, keys, dimD, layout);
      Value slot =
          toIndex(b, memref::LoadOp::create(b, slots, ValueRange{row}));
      e.ifThen(inRange(e, slot, capacity), [&]() {
        Value entries = e.index(layout.entries);
        emitCompressGroupIntoPage(e, pool, row, op.getRotate(), params, scratch,
                                  layout, pages,
                                  arith::DivUIOp::create(b, slot, entries),
                                  arith::RemUIOp::create(b, slot, entries));
      });
    });
  });
}

/// select_paged as select does it, on temporaries: every query row's
/// entries scored into a row of logits [B*S, max_pages*E] (a block
/// of entries per parallel item), the row's top k by emitTopK with valid =
/// floor(L / P) (capped at the table), expanded by emitExpand, then the
/// tail tokens.
void lowerSelectPaged(SelectPagedOp op, Emitter &e, PagedBuffers &buffers) {
  ImplicitLocOpBuilder &b = e.builder();
  Value query = buffers.in(op.getQuery());
  Value weights = buffers.in(op.getWeights());
  Value pages = buffers.in(op.getPages());
  Value table = buffers.in(op.getBlockTable());
  Value lengths = buffers.in(op.getLengths());
  int64_t p = op.getPoolSize(), k = op.getK();
  PageEntries layout = PageEntries::of(op);
  Value dimB = e.dim(query, 0), dimS = e.dim(query, 1);
  Value tokens3 =
      buffers.out(op.getTokens(), {dimB, dimS, e.index(k * p + p - 1)});
  // Query rows (b, s) flattened to m = b * S + s.
  auto rows = [&](Value buffer, ArrayRef<ReassociationIndices> groups) {
    return Value(memref::CollapseShapeOp::create(b, buffer, groups));
  };
  ScoreQuery sq = emitScoreQuery(e, rows(query, {{0, 1}, {2}, {3}}),
                                 rows(weights, {{0, 1}, {2}}),
                                 layout.codeType);
  Value len = rows(lengths, {{0, 1}});
  Value tokens = rows(tokens3, {{0, 1}, {2}});
  Value dimM = e.mul(dimB, dimS);
  Value capacity = e.mul(e.dim(table, 1), e.index(layout.entries));

  auto temp = [&](ArrayRef<int64_t> shape, Type element, ValueRange dynamic) {
    return memref::AllocOp::create(b, MemRefType::get(shape, element), dynamic,
                                   b.getI64IntegerAttr(64));
  };
  int64_t dyn = ShapedType::kDynamic;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value logits = temp({dyn, dyn}, f32, {dimM, capacity});
  Value valid = temp({dyn}, i32, {dimM});
  Value values = temp({dyn, k}, f32, {dimM});
  Value indices = temp({dyn, k}, i32, {dimM});

  // n = floor(L / P) entries per row, no more than the table holds.
  e.parallelFor(dimM, [&](Value m) {
    Value n = selectedEntries(e, loadLength(e, len, {m}), p, capacity);
    memref::StoreOp::create(b, arith::IndexCastOp::create(b, i32, n), valid,
                            ValueRange{m});
  });

  emitPagedScores(
      e, layout, sq, pages, table, dimS, logits,
      [&](Value m) {
        return toIndex(b, memref::LoadOp::create(b, valid, ValueRange{m}));
      },
      [](Value, Value j) { return std::pair<Value, Value>{j, Value()}; });
  emitTopK(e, logits, valid, values, indices);
  emitExpand(e, indices, tokens, p);

  // The L mod P tail tokens n*P .. L-1 after the k*P expanded ones.
  e.parallelFor(dimM, [&](Value m) {
    storeTailTokens(e, loadLength(e, len, {m}), p, k, tokens, m);
  });
}

/// refine_paged as refine does it, on temporaries: every query row's
/// candidates scored into logits [B*S, C] (emitPagedScores), the
/// row's top k by emitTopK, then each kept column's candidate, -1 where it
/// is padding.
void lowerRefinePaged(RefinePagedOp op, Emitter &e, PagedBuffers &buffers) {
  ImplicitLocOpBuilder &b = e.builder();
  Value query = buffers.in(op.getQuery());
  Value weights = buffers.in(op.getWeights());
  Value candidates3 = buffers.in(op.getCandidates());
  Value pages = buffers.in(op.getPages());
  Value table = buffers.in(op.getBlockTable());
  Value lengths = buffers.in(op.getLengths());
  int64_t k = op.getK();
  PageEntries layout = PageEntries::of(op);
  Value dimB = e.dim(query, 0), dimS = e.dim(query, 1);
  Value tokens3 = buffers.out(op.getTokens(), {dimB, dimS, e.index(k)});
  auto rows = [&](Value buffer, ArrayRef<ReassociationIndices> groups) {
    return Value(memref::CollapseShapeOp::create(b, buffer, groups));
  };
  ScoreQuery sq = emitScoreQuery(e, rows(query, {{0, 1}, {2}, {3}}),
                                 rows(weights, {{0, 1}, {2}}),
                                 layout.codeType);
  Value len = rows(lengths, {{0, 1}});
  Value candidates = rows(candidates3, {{0, 1}, {2}});
  Value tokens = rows(tokens3, {{0, 1}, {2}});
  Value dimM = e.mul(dimB, dimS), dimC = e.dim(candidates, 1);
  auto temp = [&](ArrayRef<int64_t> shape, Type element, ValueRange dynamic) {
    return memref::AllocOp::create(b, MemRefType::get(shape, element), dynamic,
                                   b.getI64IntegerAttr(64));
  };
  int64_t dyn = ShapedType::kDynamic;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value logits = temp({dyn, dyn}, f32, {dimM, dimC});
  Value values = temp({dyn, k}, f32, {dimM});
  Value indices = temp({dyn, k}, i32, {dimM});
  // Column c of row m: token t = candidates[m, c] when 0 <= t < L, its
  // entry of the tier; padding otherwise (negative ids wrap above any
  // length as an index).
  emitPagedScores(
      e, layout, sq, pages, table, dimS, logits,
      [&](Value) { return dimC; },
      [&](Value m, Value c) {
        Value id = memref::LoadOp::create(b, candidates, ValueRange{m, c});
        Value t = arith::IndexCastOp::create(b, b.getIndexType(), id);
        Value token = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, t,
                                            loadLength(e, len, {m}));
        return std::pair<Value, Value>{t, token};
      });
  emitTopK(e, logits, /*valid=*/nullptr, values, indices);
  // tokens[m, j]: the candidate of the j-th kept column when it is a token
  // of the row, else -1 (padding: its logit was NaN).
  e.parallelFor(dimM, [&](Value m) {
    e.forLoop(e.index(0), e.index(k), [&](Value j) {
      emitTakeTokenEntry(e, candidates, len, indices, tokens, m, j);
    });
  });
}

/// append_paged, one sequence per parallel item: each group of P its token
/// stream completes is copied into a [P, D] scratch (keys and scores in
/// their own types) and compressed there as group 0, the code path of
/// compress_paged; the tokens left over become the new tail, in place
/// (the rows it reads are at or after those it writes). Groups whose page
/// is outside the table or the pages are not written, nor those a later
/// sequence completes too (writtenLater): sequences run in parallel.
void lowerAppendPaged(AppendPagedOp op, Emitter &e, PagedBuffers &buffers) {
  ImplicitLocOpBuilder &b = e.builder();
  Value keys = buffers.in(op.getKeys());
  Value scores = buffers.in(op.getScores());
  Value bias = buffers.in(op.getBias());
  // The tails are read and rewritten in place.
  Value tailKeys = buffers.inPlace(op.getNewTailKeys());
  Value tailScores = buffers.inPlace(op.getNewTailScores());
  Value lengths = buffers.in(op.getLengths());
  Value table = buffers.in(op.getBlockTable());
  int64_t p = op.getPoolSize();
  PageEntries layout = PageEntries::of(op);
  Value pages = buffers.inPlace(op.getResult());
  QuantizeParams params{op.getPow2Scale(), op.getMinAbsmax().convertToDouble()};
  Value dimD = e.dim(keys, 2);
  Value capacity = e.mul(e.dim(table, 1), e.index(layout.entries));
  Value numPages = e.dim(pages, 0);
  Value zero = e.index(0), pIndex = e.index(p);
  Value entries = e.index(layout.entries);

  // The group's scratch: [P, D] keys, [P] or [P, D] scores.
  auto scratchOf = [&](Value like) {
    auto type = cast<MemRefType>(like.getType());
    SmallVector<int64_t> shape{p};
    SmallVector<Value> dynamic;
    if (type.getRank() == 3) {
      shape.push_back(type.getDimSize(2));
      if (type.isDynamicDim(2))
        dynamic.push_back(dimD);
    }
    return memref::AllocaOp::create(
        b, MemRefType::get(shape, type.getElementType()), dynamic,
        b.getI64IntegerAttr(32));
  };

  e.parallelFor(e.dim(keys, 0), [&](Value seq) {
    e.stackScope([&]() {
      Value groupKeys = scratchOf(keys), groupScores = scratchOf(scores);
      auto scratch = PageScratch::create(e, groupKeys, dimD, layout);
      PoolBuffers pool{groupKeys, groupScores, bias, /*weights=*/Value(), p,
                       op.getTemperature().convertToDouble()};
      Value l = loadLength(e, lengths, {seq});
      TokenStream stream{seq,      arith::RemUIOp::create(b, l, pIndex),
                         tailKeys, tailScores,
                         keys,     scores};
      Value firstGroup = arith::DivUIOp::create(b, l, pIndex);
      Value size = e.add(stream.tail, e.dim(keys, 1));
      Value complete = arith::DivUIOp::create(b, size, pIndex);
      e.forLoop(zero, complete, [&](Value i) {
        Value g = e.add(firstGroup, i);
        Value inTable =
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, g, capacity);
        e.ifThen(inTable, [&]() {
          Value page = toIndex(
              b, memref::LoadOp::create(
                     b, table,
                     ValueRange{seq, arith::DivUIOp::create(b, g, entries)}));
          e.ifThen(inRange(e, page, numPages), [&]() {
            Value entry = arith::RemUIOp::create(b, g, entries);
            Value later = writtenLater(e, layout, p, keys, lengths, table, seq,
                                       page, entry);
            e.ifThen(arith::XOrIOp::create(
                         b, later, arith::ConstantIntOp::create(b, 1, 1)),
                     [&]() {
                       for (int64_t s = 0; s < p; ++s)
                         stream.copy(e, e.add(e.mul(i, pIndex), e.index(s)),
                                     groupKeys, groupScores, {e.index(s)});
                       emitCompressGroupIntoPage(e, pool, zero, op.getRotate(),
                                                 params, scratch, layout, pages,
                                                 page, entry);
                     });
          });
        });
      });
      // The last (L + n) mod P tokens, at rows 0.. of the tail.
      Value done = e.mul(complete, pIndex);
      e.forLoop(zero, arith::SubIOp::create(b, size, done), [&](Value r) {
        stream.copy(e, e.add(done, r), tailKeys, tailScores, {seq, r});
      });
    });
  });
}

} // namespace

void mlir::indexpool::loops::emitPagedOp(Operation *op, Emitter &e,
                                         PagedBuffers &buffers) {
  if (auto launch = op->getAttrOfType<LaunchAttr>(kLaunchAttrName))
    configure(e, launch);
  if (auto compress = dyn_cast<CompressPagedOp>(op))
    return lowerCompressPaged(compress, e, buffers);
  if (auto select = dyn_cast<SelectPagedOp>(op))
    return lowerSelectPaged(select, e, buffers);
  if (auto refine = dyn_cast<RefinePagedOp>(op))
    return lowerRefinePaged(refine, e, buffers);
  lowerAppendPaged(cast<AppendPagedOp>(op), e, buffers);
}
