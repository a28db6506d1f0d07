//===- Kernels.cpp - the loops of each indexpool op on buffers ------------===//

#include "Kernels.h"

#include "indexpool/Dialect/ElementTypes.h"
#include "indexpool/Reference/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::indexpool::loops;

static MemRefType memrefType(Value v) { return cast<MemRefType>(v.getType()); }

//===----------------------------------------------------------------------===//
// pool
//===----------------------------------------------------------------------===//

/// Numerically stable softmax of `logits` (scalars or vectors, one per slot)
/// with the temperature: exp((x - max x) / T) / sum. The max of the raw
/// logits is subtracted BEFORE dividing by T: dividing first turns large
/// logits over a tiny T into inf, and inf - inf into NaN, even for equal
/// logits. NaN in the max (arith.maximumf) or +inf make every weight NaN.
SmallVector<Value> mlir::indexpool::loops::emitSoftmax(Emitter &e,
                                                      SmallVector<Value> x,
                                                      double temperature) {
  ImplicitLocOpBuilder &b = e.builder();
  Value max = x[0];
  for (Value v : ArrayRef(x).drop_front())
    max = arith::MaximumFOp::create(b, max, v);
  Value t;
  if (temperature != 1.0) {
    t = e.f32(temperature);
    if (isa<VectorType>(x[0].getType()))
      t = e.splat(t);
  }
  SmallVector<Value> w;
  Value sum;
  for (Value v : x) {
    Value shifted = arith::SubFOp::create(b, v, max);
    if (t)
      shifted = arith::DivFOp::create(b, shifted, t);
    w.push_back(e.expNonPositive(shifted));
    sum = sum ? arith::AddFOp::create(b, sum, w.back()) : w.back();
  }
  // One division per slot group, not per slot: the divider is the slowest
  // unit on the path (w is within 1.5 ulp of e / sum instead of 0.5).
  Value one = isa<VectorType>(sum.getType()) ? e.f32Splat(1.0) : e.f32(1.0);
  Value inverse = arith::DivFOp::create(b, one, sum);
  for (Value &v : w)
    v = arith::MulFOp::create(b, v, inverse);
  return w;
}

SmallVector<Value> mlir::indexpool::loops::emitSlotWeights(
    Emitter &e, const PoolBuffers &p, Value first,
    std::optional<Chunk> chunk) {
  ImplicitLocOpBuilder &b = e.builder();
  SmallVector<Value> x;
  for (int64_t s = 0; s < p.poolSize; ++s) {
    Value token = e.add(first, e.index(s));
    Value v, bias;
    if (chunk) {
      v = e.loadF32(p.scores, {token, chunk->offset}, chunk->mask);
      if (p.bias)
        bias = e.loadF32(p.bias, {e.index(s), chunk->offset}, chunk->mask);
    } else {
      v = e.loadScalarF32(p.scores, {token});
      if (p.bias)
        bias = e.loadScalarF32(p.bias, {e.index(s)});
    }
    x.push_back(bias ? Value(arith::AddFOp::create(b, v, bias)) : v);
  }
  return emitSoftmax(e, x, p.temperature);
}

Value mlir::indexpool::loops::emitWeightedSum(Emitter &e, const PoolBuffers &p,
                                              Value first, Chunk c,
                                              ArrayRef<Value> w) {
  ImplicitLocOpBuilder &b = e.builder();
  Value acc;
  for (int64_t s = 0; s < p.poolSize; ++s) {
    Value key = e.loadF32(p.keys, {e.add(first, e.index(s)), c.offset}, c.mask);
    acc = acc ? Value(math::FmaOp::create(b, w[s], key, acc))
              : Value(arith::MulFOp::create(b, w[s], key));
  }
  return acc;
}

void mlir::indexpool::loops::emitPoolGroup(
    Emitter &e, const PoolBuffers &p, Value g,
    function_ref<void(Chunk, Value)> sink) {
  ImplicitLocOpBuilder &b = e.builder();
  Value dimD = e.dim(p.keys, 1);
  Value first = e.mul(g, e.index(p.poolSize));
  if (memrefType(p.scores).getRank() == 1) {
    // One weight per slot: softmax on scalars, then broadcast over D.
    SmallVector<Value> w = emitSlotWeights(e, p, first, std::nullopt);
    SmallVector<Value> wv;
    for (int64_t s = 0; s < p.poolSize; ++s) {
      if (p.weights)
        memref::StoreOp::create(b, w[s], p.weights, ValueRange{g, e.index(s)});
      wv.push_back(e.splat(w[s]));
    }
    e.chunks(dimD, [&](Chunk c) { sink(c, emitWeightedSum(e, p, first, c, wv)); });
    return;
  }
  // One weight per slot and channel: the softmax runs across P vectors.
  e.chunks(dimD, [&](Chunk c) {
    SmallVector<Value> w = emitSlotWeights(e, p, first, c);
    for (int64_t s = 0; s < p.poolSize && p.weights; ++s)
      e.storeF32(w[s], p.weights, {g, e.index(s), c.offset}, c.mask);
    sink(c, emitWeightedSum(e, p, first, c, w));
  });
}

//===----------------------------------------------------------------------===//
// hadamard
//===----------------------------------------------------------------------===//

// Rows up to this size are rotated in vector registers with shuffles; longer
// or dynamic rows with scalar butterflies in memory. Both apply the same
// butterflies in the same order, so they agree bit for bit.
static constexpr int64_t kMaxShuffleRow = 256;

/// One butterfly stage of the Walsh-Hadamard transform on a whole-row vector:
/// y[i] = x[i] + x[i+h] and y[i+h] = x[i] - x[i+h] for i with bit h clear.
Value mlir::indexpool::loops::emitButterfly(Emitter &e, Value x, int64_t h) {
  ImplicitLocOpBuilder &b = e.builder();
  int64_t d = cast<VectorType>(x.getType()).getNumElements();
  SmallVector<int64_t> low(d), high(d);
  SmallVector<float> sign(d);
  for (int64_t i = 0; i < d; ++i) {
    low[i] = i & ~h;
    high[i] = i | h;
    sign[i] = (i & h) ? -1.0f : 1.0f;
  }
  Value a = vector::ShuffleOp::create(b, x, x, low);
  Value c = vector::ShuffleOp::create(b, x, x, high);
  Value s = arith::ConstantOp::create(
      b, DenseElementsAttr::get(cast<ShapedType>(x.getType()),
                                ArrayRef<float>(sign)));
  return math::FmaOp::create(b, s, c, a);
}

void mlir::indexpool::loops::emitHadamardRow(Emitter &e, Value row,
                                             Type roundTo) {
  ImplicitLocOpBuilder &b = e.builder();
  MemRefType type = memrefType(row);
  int64_t d = type.getDimSize(0);
  if (!type.isDynamicDim(0) && d <= kMaxShuffleRow) {
    auto vec = VectorType::get({d}, b.getF32Type());
    Value x = vector::LoadOp::create(b, vec, row, ValueRange{e.index(0)});
    for (int64_t h = 1; h < d; h *= 2)
      x = emitButterfly(e, x, h);
    Value norm = arith::ConstantOp::create(
        b, DenseElementsAttr::get(vec, b.getF32FloatAttr(1.0 / std::sqrt(d))));
    x = e.roundTrip(arith::MulFOp::create(b, x, norm), roundTo);
    vector::StoreOp::create(b, x, row, ValueRange{e.index(0)});
    return;
  }

  // Scalar butterflies: for h = 1, 2, 4, ... < D, over blocks of 2h.
  Value dimD = e.dim(row, 0);
  Value one = e.index(1);
  auto stages = scf::WhileOp::create(
      b, TypeRange{b.getIndexType()}, ValueRange{one},
      [&](OpBuilder &, Location, ValueRange args) {
        Value more =
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, args[0], dimD);
        scf::ConditionOp::create(b, more, args);
      },
      [&](OpBuilder &, Location, ValueRange args) {
        Value h = args[0];
        Value twoH = e.add(h, h);
        e.forLoop(e.index(0), dimD, twoH, {}, [&](Value base, ValueRange) {
          e.forLoop(e.index(0), h, [&](Value j) {
            Value i = e.add(base, j), k = e.add(i, h);
            Value x = memref::LoadOp::create(b, row, ValueRange{i});
            Value y = memref::LoadOp::create(b, row, ValueRange{k});
            // The same arithmetic as the shuffle path: fma(+-1, y, x).
            Value sum = math::FmaOp::create(b, e.f32(1.0), y, x);
            Value diff = math::FmaOp::create(b, e.f32(-1.0), y, x);
            memref::StoreOp::create(b, sum, row, ValueRange{i});
            memref::StoreOp::create(b, diff, row, ValueRange{k});
          });
          return SmallVector<Value>();
        });
        scf::YieldOp::create(b, ValueRange{twoH});
      });
  (void)stages;
  Value dF32 = arith::UIToFPOp::create(
      b, b.getF32Type(),
      arith::IndexCastUIOp::create(b, b.getI64Type(), dimD));
  Value norm = e.splat(arith::DivFOp::create(b, e.f32(1.0),
                                             math::SqrtOp::create(b, dF32)));
  e.chunks(dimD, [&](Chunk c) {
    Value x = e.loadF32(row, {c.offset}, c.mask);
    x = e.roundTrip(arith::MulFOp::create(b, x, norm), roundTo);
    e.storeF32(x, row, {c.offset}, c.mask);
  });
}

//===----------------------------------------------------------------------===//
// quantize
//===----------------------------------------------------------------------===//

/// The smallest power of two s with s * qmax >= absmax, i.e.
/// 2^ceil(log2(absmax / qmax)) computed exactly: the exponent of the rounded
/// quotient, corrected with exact products (qmax has few significant bits).
Value mlir::indexpool::loops::emitPow2Scale(Emitter &e, Value absmax,
                                           Value qmax) {
  ImplicitLocOpBuilder &b = e.builder();
  Type i32 = b.getI32Type();
  Value r = arith::DivFOp::create(b, absmax, qmax);
  Value bits = arith::BitcastOp::create(b, i32, r);
  Value exp = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, bits, e.i32(23)), e.i32(0xFF));
  Value man = arith::AndIOp::create(b, bits, e.i32(0x7FFFFF));
  Value up = arith::ExtUIOp::create(
      b, i32, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, man, e.i32(0)));
  Value pow = arith::ShLIOp::create(b, arith::AddIOp::create(b, exp, up),
                                    e.i32(23));
  Value s = arith::BitcastOp::create(b, b.getF32Type(), pow);
  Value half = arith::MulFOp::create(b, s, e.f32(0.5));
  Value halfEnough = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OGE, arith::MulFOp::create(b, half, qmax), absmax);
  s = arith::SelectOp::create(b, halfEnough, half, s);
  Value tooSmall = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OLT, arith::MulFOp::create(b, s, qmax), absmax);
  return arith::SelectOp::create(
      b, tooSmall, arith::MulFOp::create(b, s, e.f32(2.0)), s);
}

Value mlir::indexpool::loops::emitRowScale(Emitter &e, Value absmax,
                                          double qmax, bool pow2Scale) {
  ImplicitLocOpBuilder &b = e.builder();
  Value q = e.f32(qmax);
  Value scale = pow2Scale ? emitPow2Scale(e, absmax, q)
                          : Value(arith::DivFOp::create(b, absmax, q));
  // absmax >= 0, so "< inf" is false exactly for NaN and +inf: such a row
  // gets scale NaN, and every code x / NaN becomes the NaN code.
  Value finite = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OLT, absmax,
      e.f32(std::numeric_limits<double>::infinity()));
  return arith::SelectOp::create(
      b, finite, scale, e.f32(std::numeric_limits<double>::quiet_NaN()));
}

void mlir::indexpool::loops::emitQuantizeRow(Emitter &e,
                                             function_ref<Value(Chunk)> load,
                                             Value dimD, Value codes,
                                             Value scales, Value n,
                                             const QuantizeParams &params) {
  ImplicitLocOpBuilder &b = e.builder();
  Type codeType = params.packedCodes ? params.packedCodes
                                     : memrefType(codes).getElementType();
  // The code type's qmax (ElementTypes.def).
  double qmaxValue =
      ::indexpool::elementTypeInfo(
          toElementType(codeType).value_or(::indexpool::ElementType::I8))
          .qmax;

  Value maxAbs = e.chunks(dimD, {e.f32Splat(0.0)},
                          [&](Chunk c, ValueRange acc) -> SmallVector<Value> {
                            Value a = math::AbsFOp::create(b, load(c));
                            return {arith::MaximumFOp::create(b, acc[0], a)};
                          })[0];
  Value absmax = arith::MaximumFOp::create(b, e.reduceMax(maxAbs),
                                           e.f32(params.minAbsmax));
  Value scale = emitRowScale(e, absmax, qmaxValue, params.pow2Scale);
  memref::StoreOp::create(b, scale, scales, ValueRange{n});

  // A power-of-two scale has an exact inverse: multiply. Otherwise divide,
  // as the definition does.
  Value scaleV = e.splat(scale);
  Value inverseV =
      params.pow2Scale
          ? e.splat(arith::DivFOp::create(b, e.f32(1.0), scale))
          : Value();
  Value hi = e.f32Splat(qmaxValue), lo = e.f32Splat(-qmaxValue);
  e.chunks(dimD, [&](Chunk c) {
    Value q = inverseV ? Value(arith::MulFOp::create(b, load(c), inverseV))
                       : Value(arith::DivFOp::create(b, load(c), scaleV));
    q = arith::MaximumFOp::create(b, arith::MinimumFOp::create(b, q, hi), lo);
    if (!params.packedCodes)
      return e.storeF32(q, codes, {n, c.offset}, c.mask);
    Value bits = e.encodePackedCode(q, params.packedCodes);
    SmallVector<Value, 2> at{n, c.offset};
    if (c.mask)
      vector::MaskedStoreOp::create(b, codes, at, c.mask, bits);
    else
      vector::StoreOp::create(b, bits, codes, at);
  });
}

//===----------------------------------------------------------------------===//
// compress
//===----------------------------------------------------------------------===//

void mlir::indexpool::loops::emitCompressGroup(
    Emitter &e, const PoolBuffers &pool, Value g, bool rotate,
    const QuantizeParams &params, Value row, Value codes, Value scales,
    Value n) {
  Type keyType = memrefType(pool.keys).getElementType();
  emitPoolGroup(e, pool, g, [&](Chunk c, Value v) {
    e.storeF32(e.roundTrip(v, keyType), row, {c.offset}, c.mask);
  });
  if (rotate)
    emitHadamardRow(e, row, keyType);
  emitQuantizeRow(
      e, [&](Chunk c) { return e.loadF32(row, {c.offset}, c.mask); },
      e.dim(row, 0), codes, scales, n, params);
}

//===----------------------------------------------------------------------===//
// score
//===----------------------------------------------------------------------===//

/// Key row `n` of `keys` ([N, D]) into row `r` of the score loops' scratch
/// `rows`, as sq.rowElement(): a chunk of lanes at a time through f32, or
/// FP8 codes by the byte tables (sq.keyTableCodes), bit for bit the same.
static void emitStoreKeyRow(Emitter &e, const ScoreQuery &sq, Value keys,
                            Value n, Value dimD, Value rows, Value r) {
  ImplicitLocOpBuilder &b = e.builder();
  if (!sq.keyTableCodes)
    return e.chunks(dimD, [&](Chunk c) {
      emitStoreKeyValues(e, sq, e.loadF32(keys, {n, c.offset}, c.mask), rows, r,
                         c.offset, c.mask);
    });
  auto codesType =
      VectorType::get({sq.keyTableCodes}, memrefType(keys).getElementType());
  e.forLoop(e.index(0), dimD, e.index(sq.keyTableCodes), [&](Value d) {
    Value codes = vector::LoadOp::create(b, codesType, keys, ValueRange{n, d});
    emitStoreF8KeyCodes(
        e, sq,
        arith::BitcastOp::create(b, codesType.clone(b.getI8Type()), codes),
        rows, r, d);
  });
}

void mlir::indexpool::loops::emitScore(Emitter &e, Value query, Value weights,
                                       Value keys, Value scales,
                                       Value logits) {
  ImplicitLocOpBuilder &b = e.builder();
  Value dimM = e.dim(query, 0), dimD = e.dim(query, 2);
  Value dimN = e.dim(keys, 0);

  // The query is small and read N times: laid out for the score loops once
  // (the buffer-deallocation pipeline frees it).
  ScoreQuery sq = emitScoreQuery(e, query, weights,
                                 memrefType(keys).getElementType());

  // Key rows are taken a block at a time (scoreRowsPerBlock): each query vector loaded from
  // L1 feeds that many dots, and the per-row arithmetic (and so every bit of
  // the result) is the same as one row at a time. The last block clamps its
  // row indices and stores only the rows that exist.
  int64_t staticD = memrefType(keys).getDimSize(1);
  auto rowType =
      MemRefType::get({scoreRowsPerBlock(e), staticD}, sq.rowElement(b.getContext()));
  Value rowsPerBlock = e.index(scoreRowsPerBlock(e));
  Value blocks = arith::CeilDivUIOp::create(b, dimN, rowsPerBlock);
  Value lastRow = arith::SubIOp::create(b, dimN, e.index(1));
  e.parallelFor(blocks, [&](Value blk) {
    e.stackScope([&]() {
      Value first = e.mul(blk, rowsPerBlock);
      SmallVector<Value> rowOf, scaleOf;
      Value rows = memref::AllocaOp::create(
          b, rowType,
          rowType.isDynamicDim(1) ? ValueRange{dimD} : ValueRange{},
          b.getI64IntegerAttr(32));
      for (int64_t r = 0; r < scoreRowsPerBlock(e); ++r) {
        Value n = arith::MinUIOp::create(b, e.add(first, e.index(r)), lastRow);
        rowOf.push_back(n);
        // Decode each key row once; every (m, h) reads it from L1.
        emitStoreKeyRow(e, sq, keys, n, dimD, rows, e.index(r));
        if (scales)
          scaleOf.push_back(e.loadScalarF32(scales, {n}));
      }
      e.forLoop(e.index(0), dimM, [&](Value m) {
        SmallVector<Value> logit = emitScoreRows(e, sq, m, rows, scaleOf);
        for (int64_t r = 0; r < scoreRowsPerBlock(e); ++r) {
          Value exists = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                               e.add(first, e.index(r)), dimN);
          e.ifThen(exists, {}, [&]() -> SmallVector<Value> {
            memref::StoreOp::create(b, logit[r], logits,
                                    ValueRange{m, rowOf[r]});
            return {};
          });
        }
      });
    });
  });
}

//===----------------------------------------------------------------------===//
// refine
//===----------------------------------------------------------------------===//

Value mlir::indexpool::loops::emitIsKeyRow(Emitter &e, Value t, Value keys) {
  ImplicitLocOpBuilder &b = e.builder();
  // Sign-extended, a negative id is beyond every row as an unsigned index.
  Value row = arith::IndexCastOp::create(b, b.getIndexType(), t);
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row,
                               e.dim(keys, 0));
}

void mlir::indexpool::loops::emitRefineScore(Emitter &e, Value query,
                                             Value weights, Value candidates,
                                             Value keys, Value scales,
                                             Value logits) {
  ImplicitLocOpBuilder &b = e.builder();
  Value dimM = e.dim(query, 0), dimD = e.dim(query, 2);
  Value dimC = e.dim(candidates, 1);
  ScoreQuery sq = emitScoreQuery(e, query, weights,
                                 memrefType(keys).getElementType());

  // As emitScore: a block of candidates at a time, each key row decoded once
  // into an L1 scratch, so that every logit is score's bit for bit. Rows of
  // one query row only (each row has its own candidates); a padding row's
  // scratch is zeroed and its logit replaced by NaN.
  int64_t staticD = memrefType(keys).getDimSize(1);
  auto rowType =
      MemRefType::get({scoreRowsPerBlock(e), staticD}, sq.rowElement(b.getContext()));
  Value rowsPerBlock = e.index(scoreRowsPerBlock(e));
  Value blocks = arith::CeilDivUIOp::create(b, dimC, rowsPerBlock);
  Value lastColumn = arith::SubIOp::create(b, dimC, e.index(1));
  Value nan = e.f32(std::numeric_limits<double>::quiet_NaN());
  e.parallelFor(e.mul(dimM, blocks), [&](Value item) {
    Value m = arith::DivUIOp::create(b, item, blocks);
    Value first = e.mul(arith::RemUIOp::create(b, item, blocks), rowsPerBlock);
    e.stackScope([&]() {
      Value rows = memref::AllocaOp::create(
          b, rowType, rowType.isDynamicDim(1) ? ValueRange{dimD} : ValueRange{},
          b.getI64IntegerAttr(32));
      SmallVector<Value> columnOf, isRow, scaleOf;
      for (int64_t r = 0; r < scoreRowsPerBlock(e); ++r) {
        Value c =
            arith::MinUIOp::create(b, e.add(first, e.index(r)), lastColumn);
        columnOf.push_back(c);
        Value t = memref::LoadOp::create(b, candidates, ValueRange{m, c});
        Value present = emitIsKeyRow(e, t, keys);
        isRow.push_back(present);
        Value n = arith::IndexCastOp::create(b, b.getIndexType(), t);
        e.ifThen(present, [&]() {
          emitStoreKeyRow(e, sq, keys, n, dimD, rows, e.index(r));
        });
        e.ifThen(arith::XOrIOp::create(b, present,
                                       arith::ConstantIntOp::create(b, 1, 1)),
                 [&]() {
                   e.chunks(dimD, [&](Chunk ch) {
                     emitStoreKeyValues(e, sq, e.f32Splat(0.0), rows,
                                        e.index(r), ch.offset, ch.mask);
                   });
                 });
        if (scales)
          scaleOf.push_back(
              e.ifThen(present, {e.f32(0.0)}, [&]() -> SmallVector<Value> {
                 return {e.loadScalarF32(scales, {n})};
               }).front());
      }
      SmallVector<Value> logit = emitScoreRows(e, sq, m, rows, scaleOf);
      for (int64_t r = 0; r < scoreRowsPerBlock(e); ++r) {
        Value exists = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                             e.add(first, e.index(r)), dimC);
        e.ifThen(exists, [&]() {
          memref::StoreOp::create(
              b, arith::SelectOp::create(b, isRow[r], logit[r], nan), logits,
              ValueRange{m, columnOf[r]});
        });
      }
    });
  });
}

/// tokens[m, j] = candidates[m, indices[m, j]] where `isToken` holds for
/// it, else -1.
static void takeEntry(Emitter &e, Value candidates,
                      function_ref<Value(Value t)> isToken, Value indices,
                      Value tokens, Value m, Value j) {
  ImplicitLocOpBuilder &b = e.builder();
  Value minusOne = e.i32(-1);
  Value idx = memref::LoadOp::create(b, indices, ValueRange{m, j});
  // An empty slot (-1) takes nothing; the column is below C otherwise.
  Value taken =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sge, idx, e.i32(0));
  Value token =
      e.ifThen(taken, {minusOne}, [&]() -> SmallVector<Value> {
         Value c = arith::IndexCastOp::create(b, b.getIndexType(), idx);
         Value t = memref::LoadOp::create(b, candidates, ValueRange{m, c});
         return {arith::SelectOp::create(b, isToken(t), t, minusOne)};
       }).front();
  memref::StoreOp::create(b, token, tokens, ValueRange{m, j});
}

void mlir::indexpool::loops::emitTakeEntry(Emitter &e, Value candidates,
                                           Value keys, Value indices,
                                           Value tokens, Value m, Value j) {
  takeEntry(
      e, candidates, [&](Value t) { return emitIsKeyRow(e, t, keys); },
      indices, tokens, m, j);
}

void mlir::indexpool::loops::emitTakeTokenEntry(Emitter &e, Value candidates,
                                                Value lengths, Value indices,
                                                Value tokens, Value m,
                                                Value j) {
  ImplicitLocOpBuilder &b = e.builder();
  takeEntry(
      e, candidates,
      [&](Value t) -> Value {
        // Negative ids wrap above every length as an index.
        Value at = arith::IndexCastOp::create(b, b.getIndexType(), t);
        Value length = memref::LoadOp::create(b, lengths, ValueRange{m});
        Value bound = arith::MaxSIOp::create(b, length, e.i32(0));
        return arith::CmpIOp::create(
            b, arith::CmpIPredicate::ult, at,
            arith::IndexCastOp::create(b, b.getIndexType(), bound));
      },
      indices, tokens, m, j);
}

void mlir::indexpool::loops::emitTake(Emitter &e, Value candidates, Value keys,
                                      Value indices, Value tokens) {
  Value dimM = e.dim(indices, 0), dimK = e.dim(indices, 1);
  e.parallelFor(dimM, [&](Value m) {
    e.forLoop(e.index(0), dimK, [&](Value j) {
      emitTakeEntry(e, candidates, keys, indices, tokens, m, j);
    });
  });
}

//===----------------------------------------------------------------------===//
// topk
//===----------------------------------------------------------------------===//

/// x ranks before y (x came later in the scan): x is a number and either y
/// is NaN or x > y. Equal values keep the earlier index first.
static Value beats(ImplicitLocOpBuilder &b, Value x, Value y) {
  Value xIsNumber = arith::CmpFOp::create(b, arith::CmpFPredicate::ORD, x, x);
  Value greaterOrYNan =
      arith::CmpFOp::create(b, arith::CmpFPredicate::UGT, x, y);
  return arith::AndIOp::create(b, xIsNumber, greaterOrYNan);
}

/// Entry (va, ia) ranks after entry (vb, ib) in the total order of topk:
/// vb beats va, or neither beats the other (equal, -0 == +0, or both NaN)
/// and the index of a is the larger.
static Value ranksAfter(ImplicitLocOpBuilder &b, Value va, Value ia, Value vb,
                        Value ib) {
  Value tieBroken = arith::AndIOp::create(
      b,
      arith::XOrIOp::create(b, beats(b, va, vb),
                            arith::ConstantIntOp::create(b, 1, 1)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, ia, ib));
  return arith::OrIOp::create(b, beats(b, vb, va), tieBroken);
}

/// Sifts the entry at `start` of the heap values/indices[m, 0:size) down to
/// its place. The heap keeps the entry that ranks last at its root, so that
/// a new column is compared with the worst kept one.
static void emitSiftDown(Emitter &e, Value values, Value indices, Value m,
                         Value start, Value size) {
  ImplicitLocOpBuilder &b = e.builder();
  Value one = e.index(1), two = e.index(2);
  Value x = memref::LoadOp::create(b, values, ValueRange{m, start});
  Value ix = memref::LoadOp::create(b, indices, ValueRange{m, start});
  Type f32 = b.getF32Type(), i32 = b.getI32Type(), idx = b.getIndexType();
  // Before: pick the child that ranks last; go on while it ranks after x.
  // After: move that child up into the hole at pos.
  auto loop = scf::WhileOp::create(
      b, TypeRange{idx, idx, f32, i32}, ValueRange{start},
      [&](OpBuilder &, Location, ValueRange a) {
        Value pos = a[0];
        Value left = e.add(e.mul(pos, two), one);
        Value hasLeft =
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, left, size);
        SmallVector<Value> r = e.ifThen(
            hasLeft,
            {arith::ConstantIntOp::create(b, 0, 1), pos, x, ix},
            [&]() -> SmallVector<Value> {
              Value right = e.add(left, one);
              Value vl = memref::LoadOp::create(b, values, ValueRange{m, left});
              Value il =
                  memref::LoadOp::create(b, indices, ValueRange{m, left});
              Value hasRight = arith::CmpIOp::create(
                  b, arith::CmpIPredicate::ult, right, size);
              SmallVector<Value> c = e.ifThen(
                  hasRight, {left, vl, il}, [&]() -> SmallVector<Value> {
                    Value vr =
                        memref::LoadOp::create(b, values, ValueRange{m, right});
                    Value ir = memref::LoadOp::create(b, indices,
                                                      ValueRange{m, right});
                    Value rightWorse = ranksAfter(b, vr, ir, vl, il);
                    return {arith::SelectOp::create(b, rightWorse, right, left),
                            arith::SelectOp::create(b, rightWorse, vr, vl),
                            arith::SelectOp::create(b, rightWorse, ir, il)};
                  });
              return {ranksAfter(b, c[1], c[2], x, ix), c[0], c[1], c[2]};
            });
        scf::ConditionOp::create(b, r[0], ValueRange{pos, r[1], r[2], r[3]});
      },
      [&](OpBuilder &, Location, ValueRange a) {
        memref::StoreOp::create(b, a[2], values, ValueRange{m, a[0]});
        memref::StoreOp::create(b, a[3], indices, ValueRange{m, a[0]});
        scf::YieldOp::create(b, ValueRange{a[1]});
      });
  Value pos = loop.getResult(0);
  memref::StoreOp::create(b, x, values, ValueRange{m, pos});
  memref::StoreOp::create(b, ix, indices, ValueRange{m, pos});
}

void mlir::indexpool::loops::emitTopK(Emitter &e, Value logits, Value valid,
                                      Value values, Value indices) {
  ImplicitLocOpBuilder &b = e.builder();
  Value dimM = e.dim(logits, 0), dimN = e.dim(logits, 1);
  Value k = e.dim(values, 1);
  Value zero = e.index(0), one = e.index(1);
  Type i32 = b.getI32Type();

  // O(N log k) per row: a binary heap of the k best columns so far lives in
  // values/indices[m, 0:count), worst at the root; heapsort orders it at the
  // end. The order is total (ties by index), so the result is unique.
  e.parallelFor(dimM, [&](Value m) {
    Value len = dimN;
    if (valid) {
      Value v = arith::IndexCastOp::create(
          b, b.getIndexType(), memref::LoadOp::create(b, valid, ValueRange{m}));
      len = arith::MinSIOp::create(b, arith::MaxSIOp::create(b, v, zero), dimN);
    }
    Value count = arith::MinUIOp::create(b, len, k);
    e.forLoop(zero, count, [&](Value n) {
      memref::StoreOp::create(
          b, memref::LoadOp::create(b, logits, ValueRange{m, n}), values,
          ValueRange{m, n});
      memref::StoreOp::create(b, arith::IndexCastOp::create(b, i32, n),
                              indices, ValueRange{m, n});
    });
    Value half = arith::DivUIOp::create(b, count, e.index(2));
    e.forLoop(zero, half, [&](Value t) {
      Value start = arith::SubIOp::create(
          b, arith::SubIOp::create(b, half, t), one);
      emitSiftDown(e, values, indices, m, start, count);
    });
    // The remaining columns [count, len) (none when count < k, as then
    // count == len; none when k == 0, which has no root): a column enters
    // when it ranks before the root. It came later than every kept column,
    // so it must beat the root's value; a tie keeps the root.
    Value end = arith::SelectOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, k, zero), count,
        len);
    auto offer = [&](Value n) {
      Value x = memref::LoadOp::create(b, logits, ValueRange{m, n});
      Value root = memref::LoadOp::create(b, values, ValueRange{m, zero});
      e.ifThen(beats(b, x, root), [&]() {
        memref::StoreOp::create(b, x, values, ValueRange{m, zero});
        memref::StoreOp::create(b, arith::IndexCastOp::create(b, i32, n),
                                indices, ValueRange{m, zero});
        emitSiftDown(e, values, indices, m, zero, count);
      });
    };
    // A vector of columns at a time is compared with the root first: once
    // the heap holds good columns few enter, and the scan of N logits (one
    // thread per row, the select's other cores idle) would otherwise cost a
    // fifth of a decode step's select. The columns of a vector that has a
    // candidate are offered one by one, in order, as before.
    Value vl = e.index(e.width());
    Value whole = e.add(
        count, e.mul(arith::DivUIOp::create(
                         b, arith::SubIOp::create(b, end, count), vl),
                     vl));
    e.forLoop(count, whole, vl, [&](Value n0) {
      Value xs = vector::LoadOp::create(b, e.f32Vec(), logits,
                                        ValueRange{m, n0});
      Value root = memref::LoadOp::create(b, values, ValueRange{m, zero});
      Value any = vector::ReductionOp::create(b, vector::CombiningKind::OR,
                                              beats(b, xs, e.splat(root)));
      e.ifThen(any, [&]() { e.forLoop(n0, e.add(n0, vl), offer); });
    });
    e.forLoop(whole, end, offer);
    // Heapsort: the worst entry goes to the end of the shrinking heap.
    Value last = arith::SubIOp::create(b, arith::MaxUIOp::create(b, count, one),
                                       one);
    e.forLoop(zero, last, [&](Value t) {
      Value tail = arith::SubIOp::create(b, last, t);
      Value v0 = memref::LoadOp::create(b, values, ValueRange{m, zero});
      Value i0 = memref::LoadOp::create(b, indices, ValueRange{m, zero});
      memref::StoreOp::create(
          b, memref::LoadOp::create(b, values, ValueRange{m, tail}), values,
          ValueRange{m, zero});
      memref::StoreOp::create(
          b, memref::LoadOp::create(b, indices, ValueRange{m, tail}), indices,
          ValueRange{m, zero});
      memref::StoreOp::create(b, v0, values, ValueRange{m, tail});
      memref::StoreOp::create(b, i0, indices, ValueRange{m, tail});
      emitSiftDown(e, values, indices, m, zero, tail);
    });
    // Slots no column filled.
    Value negInf = e.f32(-std::numeric_limits<double>::infinity());
    Value minusOne = e.i32(-1);
    e.forLoop(count, k, [&](Value j) {
      memref::StoreOp::create(b, negInf, values, ValueRange{m, j});
      memref::StoreOp::create(b, minusOne, indices, ValueRange{m, j});
    });
  });
}

//===----------------------------------------------------------------------===//
// expand
//===----------------------------------------------------------------------===//

void mlir::indexpool::loops::emitExpandEntry(Emitter &e, Value indices,
                                             Value tokens, int64_t poolSize,
                                             Value m, Value j) {
  ImplicitLocOpBuilder &b = e.builder();
  auto vec = VectorType::get({poolSize}, b.getI32Type());
  SmallVector<int32_t> slots;
  for (int64_t s = 0; s < poolSize; ++s)
    slots.push_back(static_cast<int32_t>(s));
  Value slotV = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vec, ArrayRef<int32_t>(slots)));
  Value minusOne = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vec, b.getI32IntegerAttr(-1)));
  Value p = e.i32(static_cast<int32_t>(poolSize));
  Value idx = memref::LoadOp::create(b, indices, ValueRange{m, j});
  Value first =
      vector::BroadcastOp::create(b, vec, arith::MulIOp::create(b, idx, p));
  Value tok = arith::AddIOp::create(b, first, slotV);
  // Negative indices, and those whose last token would not fit in i32,
  // expand to -1: one unsigned comparison catches both.
  constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
  int64_t limit = (kI32Max - (poolSize - 1)) / poolSize;
  Value outside = arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, idx,
                                        e.i32(static_cast<int32_t>(limit)));
  tok = arith::SelectOp::create(b, outside, minusOne, tok);
  vector::StoreOp::create(b, tok, tokens,
                          ValueRange{m, e.mul(j, e.index(poolSize))});
}

void mlir::indexpool::loops::emitExpand(Emitter &e, Value indices,
                                        Value tokens, int64_t poolSize) {
  Value dimM = e.dim(indices, 0), dimK = e.dim(indices, 1);
  e.parallelFor(dimM, [&](Value m) {
    e.forLoop(e.index(0), dimK, [&](Value j) {
      emitExpandEntry(e, indices, tokens, poolSize, m, j);
    });
  });
}
