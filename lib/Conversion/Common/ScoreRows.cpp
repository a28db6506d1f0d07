//===- ScoreRows.cpp - the score arithmetic of the CPU row loops ----------===//

#include "ScoreRows.h"

#include "indexpool/Target/CpuTargets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

#include <cassert>
#include <string>

using namespace mlir;
using namespace mlir::indexpool::loops;

bool mlir::indexpool::loops::bf16HoldsEvery(Type element) {
  if (auto integer = dyn_cast<IntegerType>(element))
    return integer.getWidth() <= 8;
  auto type = dyn_cast<FloatType>(element);
  if (!type)
    return false;
  const llvm::fltSemantics &s = type.getFloatSemantics();
  const llvm::fltSemantics &bf16 = llvm::APFloat::BFloat();
  using llvm::APFloat;
  // Its significands and its exponent range fit: every value is a bf16
  // value (the dot instructions flush bf16 subnormals, below 2^-126, to 0).
  return APFloat::semanticsPrecision(s) <= APFloat::semanticsPrecision(bf16) &&
         APFloat::semanticsMaxExponent(s) <=
             APFloat::semanticsMaxExponent(bf16) &&
         APFloat::semanticsMinExponent(s) >=
             APFloat::semanticsMinExponent(bf16);
}

std::string mlir::indexpool::loops::pairDotIntrinsic(
    const ::indexpool::target::CpuTarget *cpu, int64_t lanes) {
  if (!cpu || !cpu->bf16Dot)
    return "";
  // The widths the instructions come in: xmm/ymm/zmm, NEON's 64/128 bits.
  if (cpu->arch == "x86_64" && (lanes == 4 || lanes == 8 || lanes == 16))
    return "llvm.x86.avx512bf16.dpbf16ps." + std::to_string(32 * lanes);
  if (cpu->arch == "aarch64" && (lanes == 2 || lanes == 4))
    return "llvm.aarch64.neon.bfdot.v" + std::to_string(lanes) + "f32.v" +
           std::to_string(2 * lanes) + "bf16";
  return "";
}

ScoreDot mlir::indexpool::loops::chooseScoreDot(
    const ::indexpool::target::CpuTarget *cpu, int64_t vectorWidth,
    Type queryElement, Type keyElement) {
  if (pairDotIntrinsic(cpu, vectorWidth).empty() ||
      !bf16HoldsEvery(queryElement) || !bf16HoldsEvery(keyElement))
    return ScoreDot::Fma;
  return ScoreDot::Bf16Pairs;
}

Type ScoreQuery::rowElement(MLIRContext *context) const {
  if (dot == ScoreDot::Fma)
    return Float32Type::get(context);
  return BFloat16Type::get(context);
}

ScoreQuery mlir::indexpool::loops::emitScoreQuery(Emitter &e, Value query,
                                                  Value weights,
                                                  Type keyElement) {
  ImplicitLocOpBuilder &b = e.builder();
  auto qType = cast<MemRefType>(query.getType());
  int64_t vl = e.width();
  int64_t staticH = qType.getDimSize(1), staticD = qType.getDimSize(2);
  ScoreQuery sq;
  sq.dot =
      chooseScoreDot(e.cpuTarget(), vl, qType.getElementType(), keyElement);
  // Pairs need an even D known here.
  if (ShapedType::isDynamic(staticD) || staticD % 2 != 0)
    sq.dot = ScoreDot::Fma;
  Value dimM = e.dim(query, 0), dimD = e.dim(query, 2);
  sq.heads = e.dim(query, 1);
  sq.dimD = dimD;
  sq.staticD = staticD;
  // Heads padded to whole vectors (zeros past H).
  Value vectors = arith::CeilDivUIOp::create(b, sq.heads, e.index(vl));
  sq.paddedHeads = e.mul(vectors, e.index(vl));
  sq.mayPad = ShapedType::isDynamic(staticH) || staticH % vl != 0;

  bool pairs = sq.dot != ScoreDot::Fma;
  Type element = sq.rowElement(b.getContext());
  int64_t dyn = ShapedType::kDynamic;
  auto panelType = pairs ? MemRefType::get({dyn, staticD / 2, dyn}, element)
                         : MemRefType::get({dyn, staticD, dyn}, element);
  SmallVector<Value> panelSizes{dimM};
  if (!pairs && ShapedType::isDynamic(staticD))
    panelSizes.push_back(dimD);
  panelSizes.push_back(pairs ? e.mul(sq.paddedHeads, e.index(2))
                             : sq.paddedHeads);
  sq.panel = memref::AllocOp::create(b, panelType, panelSizes,
                                     b.getI64IntegerAttr(64));
  sq.weights = memref::AllocOp::create(
      b, MemRefType::get({dyn, dyn}, b.getF32Type()),
      ValueRange{dimM, sq.paddedHeads}, b.getI64IntegerAttr(64));

  // Once per op (M x H x D elements, N times fewer than the score's):
  // scalar loops, heads past H written as zeros.
  Value lastHead = arith::SubIOp::create(b, sq.heads, e.index(1));
  e.parallelFor(dimM, [&](Value m) {
    e.forLoop(e.index(0), sq.paddedHeads, [&](Value h) {
      Value isHead =
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, h, sq.heads);
      Value hc = arith::MinUIOp::create(b, h, lastHead);
      Value zero = e.f32(0.0);
      Value w = e.ifThen(isHead, {zero}, [&]() -> SmallVector<Value> {
                   return {e.loadScalarF32(weights, {m, hc})};
                 }).front();
      memref::StoreOp::create(b, w, sq.weights, ValueRange{m, h});
      e.forLoop(e.index(0), dimD, [&](Value d) {
        Value q = e.ifThen(isHead, {zero}, [&]() -> SmallVector<Value> {
                     return {e.loadScalarF32(query, {m, hc, d})};
                   }).front();
        if (!pairs) {
          e.storeScalarF32(q, sq.panel, {m, d, h});
          return;
        }
        Value two = e.index(2);
        Value half = arith::DivUIOp::create(b, d, two);
        Value column = e.add(e.mul(h, two), arith::RemUIOp::create(b, d, two));
        e.storeScalarF32(q, sq.panel, {m, half, column});
      });
    });
  });
  return sq;
}

void mlir::indexpool::loops::emitStoreKeyValues(Emitter &e,
                                                const ScoreQuery &sq, Value v,
                                                Value rows, Value r,
                                                Value offset, Value mask) {
  if (sq.dot == ScoreDot::Fma)
    return e.storeF32(v, rows, {r, offset}, mask);
  ImplicitLocOpBuilder &b = e.builder();
  int64_t vl = e.width();
  auto i32s = VectorType::get({vl}, b.getI32Type());
  Value high = arith::ShRUIOp::create(
      b, arith::BitcastOp::create(b, i32s, v),
      arith::ConstantOp::create(
          b, DenseElementsAttr::get(i32s, b.getI32IntegerAttr(16))));
  Value bf16 = arith::BitcastOp::create(
      b, VectorType::get({vl}, b.getBF16Type()),
      arith::TruncIOp::create(b, VectorType::get({vl}, b.getI16Type()), high));
  if (mask)
    vector::MaskedStoreOp::create(b, rows, ValueRange{r, offset}, mask, bf16);
  else
    vector::StoreOp::create(b, bf16, rows, ValueRange{r, offset});
}

/// Key element `step` (or pair `step`) of row `r`, in every lane.
static Value broadcastKey(Emitter &e, const ScoreQuery &sq, Value rows,
                          int64_t r, Value step) {
  ImplicitLocOpBuilder &b = e.builder();
  int64_t vl = e.width();
  if (sq.dot == ScoreDot::Fma)
    return e.splat(
        memref::LoadOp::create(b, rows, ValueRange{e.index(r), step}));
  // The pair as one i32, broadcast, seen as 2 vl bf16 again.
  Value pair =
      vector::LoadOp::create(b, VectorType::get({2}, b.getBF16Type()), rows,
                             ValueRange{e.index(r), e.mul(step, e.index(2))});
  Value word =
      vector::BitCastOp::create(b, VectorType::get({1}, b.getI32Type()), pair);
  Value words = vector::BroadcastOp::create(
      b, VectorType::get({vl}, b.getI32Type()), word);
  return vector::BitCastOp::create(
      b, VectorType::get({2 * vl}, b.getBF16Type()), words);
}

/// acc + the products of `a` and `k`: one FMA, or one pair dot
/// (acc[i] + a[2i] k[2i] + a[2i+1] k[2i+1], a vector.contract).
static Value emitDot(Emitter &e, ScoreDot dot, Value acc, Value a, Value k) {
  ImplicitLocOpBuilder &b = e.builder();
  if (dot == ScoreDot::Fma)
    return math::FmaOp::create(b, a, k, acc);
  MLIRContext *context = b.getContext();
  auto pairs = VectorType::get({e.width(), 2}, b.getBF16Type());
  AffineExpr i = getAffineDimExpr(0, context), j = getAffineDimExpr(1, context);
  AffineMap both = AffineMap::get(2, 0, {i, j}, context);
  AffineMap lane = AffineMap::get(2, 0, {i}, context);
  return vector::ContractionOp::create(
      b, vector::ShapeCastOp::create(b, pairs, a),
      vector::ShapeCastOp::create(b, pairs, k), acc,
      b.getAffineMapArrayAttr({both, both, lane}),
      b.getArrayAttr({vector::IteratorTypeAttr::get(
                          context, vector::IteratorType::parallel),
                      vector::IteratorTypeAttr::get(
                          context, vector::IteratorType::reduction)}));
}

SmallVector<Value>
mlir::indexpool::loops::emitScoreRows(Emitter &e, const ScoreQuery &sq, Value m,
                                      Value rows, ArrayRef<Value> scaleOf) {
  ImplicitLocOpBuilder &b = e.builder();
  int64_t vl = e.width();
  assert(cast<MemRefType>(rows.getType()).getDimSize(0) == vl &&
         "a block of key rows is one row per lane");
  bool pairs = sq.dot != ScoreDot::Fma;
  Value steps = e.dim(rows, 1);
  if (pairs)
    steps = arith::DivUIOp::create(b, steps, e.index(2));
  auto panelVector =
      VectorType::get({pairs ? 2 * vl : vl}, sq.rowElement(b.getContext()));
  Value tiles = arith::DivUIOp::create(b, sq.paddedHeads, e.index(vl));
  Value zero = e.f32Splat(0.0);
  Value scales;
  if (!scaleOf.empty())
    scales = vector::FromElementsOp::create(b, e.f32Vec(), scaleOf);
  auto square = VectorType::get({vl, vl}, b.getF32Type());

  // Heads h0 .. h0 + vl of every row: dots[r] has them in its lanes.
  Value logits =
      e.forLoop(e.index(0), tiles, e.index(1), {zero},
                [&](Value t, ValueRange acc) -> SmallVector<Value> {
                  Value h0 = e.mul(t, e.index(vl));
                  Value column = pairs ? e.mul(h0, e.index(2)) : h0;
                  SmallVector<Value> dots = e.forLoop(
                      e.index(0), steps, e.index(1),
                      SmallVector<Value>(vl, zero),
                      [&](Value step, ValueRange dot) -> SmallVector<Value> {
                        Value q =
                            vector::LoadOp::create(b, panelVector, sq.panel,
                                                   ValueRange{m, step, column});
                        SmallVector<Value> next;
                        for (int64_t r = 0; r < vl; ++r)
                          next.push_back(
                              emitDot(e, sq.dot, dot[r], q,
                                      broadcastKey(e, sq, rows, r, step)));
                        return next;
                      });
                  // Transposed, a vector per head with the rows in its lanes:
                  // the heads are summed in order, each with one fma, as score
                  // does.
                  Value block = ub::PoisonOp::create(b, square);
                  for (int64_t r = 0; r < vl; ++r)
                    block = vector::InsertOp::create(b, dots[r], block, r);
                  Value byHead = vector::TransposeOp::create(b, block, {1, 0});
                  Value sum = acc.front();
                  for (int64_t j = 0; j < vl; ++j) {
                    Value h = e.add(h0, e.index(j));
                    Value d = vector::ExtractOp::create(b, byHead, j);
                    if (scales)
                      d = arith::MulFOp::create(b, scales, d);
                    Value relu = arith::MaximumFOp::create(b, d, zero);
                    Value w = e.splat(memref::LoadOp::create(b, sq.weights,
                                                             ValueRange{m, h}));
                    Value next = math::FmaOp::create(b, w, relu, sum);
                    if (sq.mayPad) {
                      // A padding head adds nothing (0 * relu(inf * 0) would be
                      // NaN).
                      Value isHead = arith::CmpIOp::create(
                          b, arith::CmpIPredicate::ult, h, sq.heads);
                      next = arith::SelectOp::create(b, isHead, next, sum);
                    }
                    sum = next;
                  }
                  return {sum};
                })
          .front();
  SmallVector<Value> result;
  for (int64_t r = 0; r < vl; ++r)
    result.push_back(vector::ExtractOp::create(b, logits, r));
  return result;
}
