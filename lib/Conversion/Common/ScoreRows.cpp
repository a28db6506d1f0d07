//===- ScoreRows.cpp - the score arithmetic of the CPU row loops ----------===//

#include "ScoreRows.h"

#include "indexpool/Reference/Numerics.h"
#include "indexpool/Target/CpuTargets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <array>
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

std::string mlir::indexpool::loops::dotIntrinsic(
    ScoreDot dot, const ::indexpool::target::CpuTarget *cpu, int64_t lanes) {
  bool pairs = dot == ScoreDot::Bf16Pairs;
  if (!cpu || dot == ScoreDot::Fma || !(pairs ? cpu->bf16Dot : cpu->int8Dot))
    return "";
  std::string perLane = std::to_string(pairs ? 2 * lanes : 4 * lanes);
  // The widths the instructions come in: xmm/ymm/zmm (AVX-512 with VL),
  // NEON's 64/128 bits.
  if (cpu->arch == "x86_64" && (lanes == 4 || lanes == 8 || lanes == 16))
    return std::string(pairs ? "llvm.x86.avx512bf16.dpbf16ps."
                             : "llvm.x86.avx512.vpdpbusd.") +
           std::to_string(32 * lanes);
  if (cpu->arch == "aarch64" && (lanes == 2 || lanes == 4))
    return (pairs ? "llvm.aarch64.neon.bfdot.v" : "llvm.aarch64.neon.sdot.v") +
           std::to_string(lanes) + (pairs ? "f32.v" : "i32.v") + perLane +
           (pairs ? "bf16" : "i8");
  return "";
}

std::string mlir::indexpool::loops::byteTableIntrinsic(
    const ::indexpool::target::CpuTarget *cpu, int64_t lanes) {
  // vpermi2b on zmm: 64 byte indices into two 64-byte table registers.
  if (cpu && cpu->byteTable128 && cpu->arch == "x86_64" && lanes == 16)
    return "llvm.x86.avx512.vpermi2var.qi.512";
  return "";
}

bool mlir::indexpool::loops::quadDotKeysUnsigned(
    const ::indexpool::target::CpuTarget *cpu) {
  // vpdpbusd multiplies unsigned bytes by signed ones; sdot signed by signed.
  return cpu && cpu->arch == "x86_64";
}

ScoreDot mlir::indexpool::loops::chooseScoreDot(
    const ::indexpool::target::CpuTarget *cpu, int64_t vectorWidth,
    Type queryElement, Type keyElement, bool int8Query) {
  auto keyInteger = dyn_cast<IntegerType>(keyElement);
  if (int8Query && keyInteger && keyInteger.getWidth() <= 8 &&
      isa<FloatType>(queryElement) &&
      !dotIntrinsic(ScoreDot::Int8Quads, cpu, vectorWidth).empty())
    return ScoreDot::Int8Quads;
  if (dotIntrinsic(ScoreDot::Bf16Pairs, cpu, vectorWidth).empty() ||
      !bf16HoldsEvery(queryElement) || !bf16HoldsEvery(keyElement))
    return ScoreDot::Fma;
  return ScoreDot::Bf16Pairs;
}

Type ScoreQuery::rowElement(MLIRContext *context) const {
  switch (dot) {
  case ScoreDot::Fma:
    return Float32Type::get(context);
  case ScoreDot::Bf16Pairs:
    return BFloat16Type::get(context);
  case ScoreDot::Int8Quads:
    return IntegerType::get(context, 8);
  }
  llvm_unreachable("every ScoreDot");
}

/// Elements of the query and of a key row one step of the loop over D takes
/// per head: 1 (FMA), 2 (pairs), 4 (quads).
static int64_t elementsPerStep(ScoreDot dot) {
  switch (dot) {
  case ScoreDot::Fma:
    return 1;
  case ScoreDot::Bf16Pairs:
    return 2;
  case ScoreDot::Int8Quads:
    return 4;
  }
  llvm_unreachable("every ScoreDot");
}

/// Quads: the int8 codes of head h of query row m into the panel, its scale
/// and offset sum (ScoreRows.h). `load(d)` is q[m, h, d] (0 past H).
static void emitQuantizedHead(Emitter &e, ScoreQuery &sq, Value m, Value h,
                              function_ref<Value(Value d)> load) {
  ImplicitLocOpBuilder &b = e.builder();
  Value maxAbs =
      e.forLoop(e.index(0), sq.dimD, e.index(1), {e.f32(0.0)},
                [&](Value d, ValueRange acc) -> SmallVector<Value> {
                  // maximumf: a NaN stays (the head then scores NaN).
                  return {arith::MaximumFOp::create(
                      b, acc.front(), math::AbsFOp::create(b, load(d)))};
                })
          .front();
  Value scale = arith::DivFOp::create(b, maxAbs, e.f32(127.0));
  memref::StoreOp::create(b, scale, sq.queryScales, ValueRange{m, h});
  // A head of zeros: 0 * inf is NaN, taken as code 0 below.
  Value inverse = arith::DivFOp::create(b, e.f32(127.0), maxAbs);
  Value four = e.index(4);
  Value sum =
      e.forLoop(
           e.index(0), sq.dimD, e.index(1), {e.i32(0)},
           [&](Value d, ValueRange acc) -> SmallVector<Value> {
             Value x = math::RoundEvenOp::create(
                 b, arith::MulFOp::create(b, load(d), inverse));
             x = arith::MinimumFOp::create(
                 b, arith::MaximumFOp::create(b, x, e.f32(-127.0)),
                 e.f32(127.0));
             Value isNaN =
                 arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, x, x);
             x = arith::SelectOp::create(b, isNaN, e.f32(0.0), x);
             Value code = arith::FPToSIOp::create(b, b.getI32Type(), x);
             Value column =
                 e.add(e.mul(h, four), arith::RemUIOp::create(b, d, four));
             memref::StoreOp::create(
                 b, arith::TruncIOp::create(b, b.getI8Type(), code), sq.panel,
                 ValueRange{m, arith::DivUIOp::create(b, d, four), column});
             return {arith::AddIOp::create(b, acc.front(), code)};
           })
          .front();
  if (sq.offsetSums)
    memref::StoreOp::create(b, arith::MulIOp::create(b, sum, e.i32(128)),
                            sq.offsetSums, ValueRange{m, h});
}

ScoreQuery mlir::indexpool::loops::emitScoreQuery(Emitter &e, Value query,
                                                  Value weights,
                                                  Type keyElement) {
  ImplicitLocOpBuilder &b = e.builder();
  auto qType = cast<MemRefType>(query.getType());
  int64_t vl = e.width();
  int64_t staticH = qType.getDimSize(1), staticD = qType.getDimSize(2);
  ScoreQuery sq;
  sq.dot = chooseScoreDot(e.cpuTarget(), vl, qType.getElementType(), keyElement,
                          e.int8Query());
  // Pairs and quads need a D known here that is a multiple of theirs;
  // quads fall back to pairs, pairs to FMAs.
  auto fits = [&](ScoreDot dot) {
    return !ShapedType::isDynamic(staticD) &&
           staticD % elementsPerStep(dot) == 0;
  };
  if (sq.dot == ScoreDot::Int8Quads && !fits(sq.dot))
    sq.dot = chooseScoreDot(e.cpuTarget(), vl, qType.getElementType(),
                            keyElement);
  if (!fits(sq.dot))
    sq.dot = ScoreDot::Fma;
  int64_t perStep = elementsPerStep(sq.dot);
  // FP8 keys into bf16 pairs through the byte tables, in whole lookups
  // (pairs have a static D).
  if (sq.dot == ScoreDot::Bf16Pairs && isa<Float8E4M3FNType>(keyElement) &&
      !byteTableIntrinsic(e.cpuTarget(), vl).empty() && staticD % (4 * vl) == 0)
    sq.keyTableCodes = 4 * vl;
  Value dimM = e.dim(query, 0), dimD = e.dim(query, 2);
  sq.heads = e.dim(query, 1);
  sq.dimD = dimD;
  sq.staticD = staticD;
  // Heads padded to whole vectors (zeros past H).
  Value vectors = arith::CeilDivUIOp::create(b, sq.heads, e.index(vl));
  sq.paddedHeads = e.mul(vectors, e.index(vl));
  sq.mayPad = ShapedType::isDynamic(staticH) || staticH % vl != 0;

  Type element = sq.rowElement(b.getContext());
  int64_t dyn = ShapedType::kDynamic;
  // A dynamic D is FMA's (perStep 1).
  auto panelType = MemRefType::get(
      {dyn, ShapedType::isDynamic(staticD) ? dyn : staticD / perStep, dyn},
      element);
  SmallVector<Value> panelSizes{dimM};
  if (ShapedType::isDynamic(staticD))
    panelSizes.push_back(dimD);
  panelSizes.push_back(e.mul(sq.paddedHeads, e.index(perStep)));
  sq.panel = memref::AllocOp::create(b, panelType, panelSizes,
                                     b.getI64IntegerAttr(64));
  auto perHead = [&](Type type) -> Value {
    return memref::AllocOp::create(b, MemRefType::get({dyn, dyn}, type),
                                   ValueRange{dimM, sq.paddedHeads},
                                   b.getI64IntegerAttr(64));
  };
  sq.weights = perHead(b.getF32Type());
  if (sq.dot == ScoreDot::Int8Quads) {
    sq.queryScales = perHead(b.getF32Type());
    if (quadDotKeysUnsigned(e.cpuTarget()))
      sq.offsetSums = perHead(b.getI32Type());
  }

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
      auto load = [&](Value d) {
        return e
            .ifThen(isHead, {zero},
                    [&]() -> SmallVector<Value> {
                      return {e.loadScalarF32(query, {m, hc, d})};
                    })
            .front();
      };
      if (sq.dot == ScoreDot::Int8Quads)
        return emitQuantizedHead(e, sq, m, h, load);
      e.forLoop(e.index(0), dimD, [&](Value d) {
        Value q = load(d);
        if (perStep == 1) {
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

void mlir::indexpool::loops::emitStoreKeyBytes(Emitter &e, const ScoreQuery &sq,
                                               Value codes, Value rows, Value r,
                                               Value offset, Value mask) {
  ImplicitLocOpBuilder &b = e.builder();
  auto bytes = cast<VectorType>(codes.getType());
  if (sq.offsetSums)
    codes = arith::XOrIOp::create(
        b, codes,
        arith::ConstantOp::create(
            b, DenseElementsAttr::get(bytes, b.getI8IntegerAttr(-128))));
  if (mask)
    vector::MaskedStoreOp::create(b, rows, ValueRange{r, offset}, mask, codes);
  else
    vector::StoreOp::create(b, codes, rows, ValueRange{r, offset});
}

void mlir::indexpool::loops::emitStoreKeyValues(Emitter &e,
                                                const ScoreQuery &sq, Value v,
                                                Value rows, Value r,
                                                Value offset, Value mask) {
  if (sq.dot == ScoreDot::Fma)
    return e.storeF32(v, rows, {r, offset}, mask);
  ImplicitLocOpBuilder &b = e.builder();
  int64_t vl = e.width();
  auto store = [&](Value bytes) {
    if (mask)
      vector::MaskedStoreOp::create(b, rows, ValueRange{r, offset}, mask,
                                    bytes);
    else
      vector::StoreOp::create(b, bytes, rows, ValueRange{r, offset});
  };
  if (sq.dot == ScoreDot::Int8Quads)
    return emitStoreKeyBytes(
        e, sq,
        arith::FPToSIOp::create(b, VectorType::get({vl}, b.getI8Type()), v),
        rows, r, offset, mask);
  auto i32s = VectorType::get({vl}, b.getI32Type());
  Value high = arith::ShRUIOp::create(
      b, arith::BitcastOp::create(b, i32s, v),
      arith::ConstantOp::create(
          b, DenseElementsAttr::get(i32s, b.getI32IntegerAttr(16))));
  Value bf16 = arith::BitcastOp::create(
      b, VectorType::get({vl}, b.getBF16Type()),
      arith::TruncIOp::create(b, VectorType::get({vl}, b.getI16Type()), high));
  store(bf16);
}

namespace {
/// The high and low bytes of the bf16 bits of each f8E4M3FN code below
/// 0x80.
struct F8Bf16Tables {
  std::array<int8_t, 128> high, low;
};
} // namespace

/// The tables from the reference's FP8 decoder and bf16 encoder (every FP8
/// value is a bf16 value: exact; NaN the canonical 0x7FC0, -0 0x8000), and
/// the rule emitStoreF8KeyCodes applies to the codes from 0x80 checked
/// against them: the magnitude's bits with the sign bit, but for NaN.
static const F8Bf16Tables &f8Bf16Tables() {
  static const F8Bf16Tables tables = [] {
    namespace ref = ::indexpool::ref;
    auto bf16Of = [](int code) {
      return ref::encodeBF16(ref::decodeF8E4M3FN(uint8_t(code)));
    };
    F8Bf16Tables t;
    for (int x = 0; x < 128; ++x) {
      t.high[size_t(x)] = int8_t(bf16Of(x) >> 8);
      t.low[size_t(x)] = int8_t(bf16Of(x) & 0xFF);
    }
    assert(llvm::all_of(llvm::seq(0x80, 0x100),
                        [&](int x) {
                          size_t m = size_t(x & 0x7F);
                          int sign = m == ref::kF8E4M3FNNaN ? 0 : 0x8000;
                          return bf16Of(x) ==
                                 ((uint8_t(t.high[m]) << 8 | sign) |
                                  uint8_t(t.low[m]));
                        }) &&
           "a negative FP8 code is its magnitude's bf16 with the sign");
    return t;
  }();
  return tables;
}

/// table[i] for each byte i (< 128) of `index`: a gather from the constant
/// global `name` (made on first use), which --indexpool-dot-instructions
/// makes the target's byte-table lookup (ScoreRows.h).
static Value emitByteTableLookup(Emitter &e, StringRef name,
                                 ArrayRef<int8_t> table, Value index) {
  ImplicitLocOpBuilder &b = e.builder();
  auto tableType = MemRefType::get({int64_t(table.size())}, b.getI8Type());
  Operation *symbols =
      SymbolTable::getNearestSymbolTable(b.getInsertionBlock()->getParentOp());
  assert(symbols && "the loops are in a module");
  if (!SymbolTable::lookupSymbolIn(symbols, name)) {
    // Through the emitter's builder, so that a rewriter driving it hears of
    // the new op.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&symbols->getRegion(0).front());
    memref::GlobalOp::create(
        b, name, b.getStringAttr("private"), tableType,
        DenseElementsAttr::get(
            RankedTensorType::get(tableType.getShape(), b.getI8Type()), table),
        /*constant=*/true, b.getI64IntegerAttr(64));
  }
  auto lanes = cast<VectorType>(index.getType());
  Value base = memref::GetGlobalOp::create(b, tableType, name);
  Value indices = arith::ExtUIOp::create(b, lanes.clone(b.getI32Type()), index);
  Value all = arith::ConstantOp::create(
      b, DenseElementsAttr::get(lanes.clone(b.getI1Type()), true));
  Value none = arith::ConstantOp::create(
      b, DenseElementsAttr::get(lanes, b.getI8IntegerAttr(0)));
  return vector::GatherOp::create(b, lanes, base, ValueRange{e.index(0)},
                                  indices, all, none);
}

void mlir::indexpool::loops::emitStoreF8KeyCodes(Emitter &e,
                                                 const ScoreQuery &sq,
                                                 Value codes, Value rows,
                                                 Value r, Value offset) {
  ImplicitLocOpBuilder &b = e.builder();
  auto bytes = cast<VectorType>(codes.getType());
  int64_t n = sq.keyTableCodes;
  assert(bytes.getNumElements() == n && "one step of the byte tables");
  auto splat = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(bytes, b.getI8IntegerAttr(int8_t(v))));
  };
  const F8Bf16Tables &tables = f8Bf16Tables();
  Value magnitude = arith::AndIOp::create(b, codes, splat(0x7F));
  Value high = emitByteTableLookup(e, "__indexpool_f8E4M3FN_bf16_high",
                                   tables.high, magnitude);
  Value low = emitByteTableLookup(e, "__indexpool_f8E4M3FN_bf16_low",
                                  tables.low, magnitude);
  // The sign bit, but on NaN: both NaN codes store the canonical 0x7FC0.
  Value isNaN = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, magnitude,
                                      splat(::indexpool::ref::kF8E4M3FNNaN));
  Value sign = arith::AndIOp::create(b, codes, splat(0x80));
  high = arith::SelectOp::create(b, isNaN, high,
                                 arith::OrIOp::create(b, high, sign));
  // Little-endian bf16: the low byte first. Each half is one two-source
  // byte shuffle (vpermt2b) of n / 2 values.
  auto halfType = VectorType::get({n / 2}, b.getBF16Type());
  for (int64_t half = 0; half < 2; ++half) {
    SmallVector<int64_t> interleave;
    for (int64_t i = half * n / 2; i < (half + 1) * n / 2; ++i)
      interleave.append({i, n + i});
    Value pairs = vector::ShuffleOp::create(b, low, high, interleave);
    vector::StoreOp::create(
        b, vector::BitCastOp::create(b, halfType, pairs), rows,
        ValueRange{r, e.add(offset, e.index(half * n / 2))});
  }
}

/// Key element `step` (or pair or quad `step`) of row `r`, in every lane.
static Value broadcastKey(Emitter &e, const ScoreQuery &sq, Value rows,
                          int64_t r, Value step) {
  ImplicitLocOpBuilder &b = e.builder();
  int64_t vl = e.width();
  if (sq.dot == ScoreDot::Fma)
    return e.splat(
        memref::LoadOp::create(b, rows, ValueRange{e.index(r), step}));
  // The pair or quad as one i32, broadcast, seen as elements again.
  int64_t perStep = elementsPerStep(sq.dot);
  Type element = sq.rowElement(b.getContext());
  Value group = vector::LoadOp::create(
      b, VectorType::get({perStep}, element), rows,
      ValueRange{e.index(r), e.mul(step, e.index(perStep))});
  Value word =
      vector::BitCastOp::create(b, VectorType::get({1}, b.getI32Type()), group);
  Value words = vector::BroadcastOp::create(
      b, VectorType::get({vl}, b.getI32Type()), word);
  return vector::BitCastOp::create(b, VectorType::get({perStep * vl}, element),
                                   words);
}

/// acc + the products of `a` (the query) and `k` (the key): one FMA, or
/// one pair or quad dot (acc[i] + sum_j a[2i+j] k[2i+j], a vector.contract
/// of the key first; quads: the codes extended to i32, the key's unsigned
/// where sq.offsetSums says so).
static Value emitDot(Emitter &e, const ScoreQuery &sq, Value acc, Value a,
                     Value k) {
  ImplicitLocOpBuilder &b = e.builder();
  if (sq.dot == ScoreDot::Fma)
    return math::FmaOp::create(b, a, k, acc);
  MLIRContext *context = b.getContext();
  int64_t perStep = elementsPerStep(sq.dot);
  auto groups = VectorType::get({e.width(), perStep}, sq.rowElement(context));
  Value lhs = vector::ShapeCastOp::create(b, groups, k);
  Value rhs = vector::ShapeCastOp::create(b, groups, a);
  if (sq.dot == ScoreDot::Int8Quads) {
    auto wide = VectorType::get({e.width(), perStep}, b.getI32Type());
    lhs = sq.offsetSums ? Value(arith::ExtUIOp::create(b, wide, lhs))
                        : Value(arith::ExtSIOp::create(b, wide, lhs));
    rhs = arith::ExtSIOp::create(b, wide, rhs);
  }
  AffineExpr i = getAffineDimExpr(0, context), j = getAffineDimExpr(1, context);
  AffineMap both = AffineMap::get(2, 0, {i, j}, context);
  AffineMap lane = AffineMap::get(2, 0, {i}, context);
  return vector::ContractionOp::create(
      b, lhs, rhs, acc, b.getAffineMapArrayAttr({both, both, lane}),
      b.getArrayAttr({vector::IteratorTypeAttr::get(
                          context, vector::IteratorType::parallel),
                      vector::IteratorTypeAttr::get(
                          context, vector::IteratorType::reduction)}));
}

/// The columns of the square block whose rows are `rows` (vl vectors of vl
/// f32). At 16 lanes, four stages of two-source shuffles within and across
/// 128-bit lanes (unpcklps/unpckhps, unpcklpd/unpckhpd, shuff32x4 twice:
/// 64 instructions); vector.transpose's lowering of a 16x16 block left
/// LLVM gathering each column with permutes (about 6 times as many).
static SmallVector<Value> transposeBlock(Emitter &e, ArrayRef<Value> rows) {
  ImplicitLocOpBuilder &b = e.builder();
  int64_t vl = e.width();
  if (vl != 16) {
    auto square = VectorType::get({vl, vl}, b.getF32Type());
    Value block = ub::PoisonOp::create(b, square);
    for (int64_t r = 0; r < vl; ++r)
      block = vector::InsertOp::create(b, rows[r], block, r);
    Value columns = vector::TransposeOp::create(b, block, {1, 0});
    SmallVector<Value> result;
    for (int64_t j = 0; j < vl; ++j)
      result.push_back(vector::ExtractOp::create(b, columns, j));
    return result;
  }
  // Masks over the 32 elements of (a, b), per 128-bit lane L.
  SmallVector<int64_t> lowPairs, highPairs, lowQuads, highQuads, evenLanes,
      oddLanes;
  for (int64_t lane = 0; lane < 4; ++lane) {
    int64_t at = 4 * lane;
    lowPairs.append({at, 16 + at, at + 1, 17 + at});
    highPairs.append({at + 2, 18 + at, at + 3, 19 + at});
    lowQuads.append({at, at + 1, 16 + at, 17 + at});
    highQuads.append({at + 2, at + 3, 18 + at, 19 + at});
  }
  for (int64_t half = 0; half < 2; ++half)
    for (int64_t lane : {0, 2})
      for (int64_t i = 0; i < 4; ++i) {
        evenLanes.push_back(16 * half + 4 * lane + i);
        oddLanes.push_back(16 * half + 4 * (lane + 1) + i);
      }
  auto shuffle = [&](Value x, Value y, ArrayRef<int64_t> mask) -> Value {
    return vector::ShuffleOp::create(b, x, y, mask);
  };
  SmallVector<Value> t(16), u(16), out(16);
  for (int64_t i = 0; i < 8; ++i) {
    t[2 * i] = shuffle(rows[2 * i], rows[2 * i + 1], lowPairs);
    t[2 * i + 1] = shuffle(rows[2 * i], rows[2 * i + 1], highPairs);
  }
  for (int64_t i = 0; i < 4; ++i) {
    u[4 * i] = shuffle(t[4 * i], t[4 * i + 2], lowQuads);
    u[4 * i + 1] = shuffle(t[4 * i], t[4 * i + 2], highQuads);
    u[4 * i + 2] = shuffle(t[4 * i + 1], t[4 * i + 3], lowQuads);
    u[4 * i + 3] = shuffle(t[4 * i + 1], t[4 * i + 3], highQuads);
  }
  for (int64_t i = 0; i < 4; ++i) {
    t[i] = shuffle(u[i], u[4 + i], evenLanes);
    t[4 + i] = shuffle(u[i], u[4 + i], oddLanes);
    t[8 + i] = shuffle(u[8 + i], u[12 + i], evenLanes);
    t[12 + i] = shuffle(u[8 + i], u[12 + i], oddLanes);
  }
  for (int64_t i = 0; i < 8; ++i) {
    out[i] = shuffle(t[i], t[8 + i], evenLanes);
    out[8 + i] = shuffle(t[i], t[8 + i], oddLanes);
  }
  return out;
}

SmallVector<Value>
mlir::indexpool::loops::emitScoreRows(Emitter &e, const ScoreQuery &sq, Value m,
                                      Value rows, ArrayRef<Value> scaleOf) {
  ImplicitLocOpBuilder &b = e.builder();
  int64_t vl = e.width();
  assert(cast<MemRefType>(rows.getType()).getDimSize(0) == vl &&
         "a block of key rows is one row per lane");
  int64_t perStep = elementsPerStep(sq.dot);
  bool quads = sq.dot == ScoreDot::Int8Quads;
  Value steps = e.dim(rows, 1);
  if (perStep > 1)
    steps = arith::DivUIOp::create(b, steps, e.index(perStep));
  auto panelVector =
      VectorType::get({perStep * vl}, sq.rowElement(b.getContext()));
  Value tiles = arith::DivUIOp::create(b, sq.paddedHeads, e.index(vl));
  Value zero = e.f32Splat(0.0);
  auto i32s = VectorType::get({vl}, b.getI32Type());
  Value dotZero =
      quads ? arith::ConstantOp::create(
                  b, DenseElementsAttr::get(i32s, b.getI32IntegerAttr(0)))
            : zero;
  Value scales;
  if (!scaleOf.empty() && !quads)
    scales = vector::FromElementsOp::create(b, e.f32Vec(), scaleOf);

  // Quads: per row, the head sums so far, one head per lane.
  SmallVector<Value> scaleSplats;
  Value lanes;
  if (quads) {
    for (Value scale : scaleOf)
      scaleSplats.push_back(e.splat(scale));
    SmallVector<int64_t> iota(vl);
    for (int64_t i = 0; i < vl; ++i)
      iota[i] = i;
    lanes = arith::ConstantOp::create(b, b.getIndexVectorAttr(iota));
  }

  // Heads h0 .. h0 + vl of every row: dots[r] has them in its lanes.
  SmallVector<Value> sums = e.forLoop(
      e.index(0), tiles, e.index(1),
      SmallVector<Value>(quads ? vl : 1, zero),
      [&](Value t, ValueRange acc) -> SmallVector<Value> {
        Value h0 = e.mul(t, e.index(vl));
        Value column = e.mul(h0, e.index(perStep));
        SmallVector<Value> dots = e.forLoop(
            e.index(0), steps, e.index(1), SmallVector<Value>(vl, dotZero),
            [&](Value step, ValueRange dot) -> SmallVector<Value> {
              Value q = vector::LoadOp::create(b, panelVector, sq.panel,
                                               ValueRange{m, step, column});
              SmallVector<Value> next;
              for (int64_t r = 0; r < vl; ++r)
                next.push_back(emitDot(e, sq, dot[r], q,
                                       broadcastKey(e, sq, rows, r, step)));
              return next;
            });
        if (quads) {
          // The integer dots of the heads' codes back to f32 (the keys'
          // offset taken off, times each head's scale), then weighted and
          // summed per lane: an approximate score needs no head order, and
          // so no transpose per tile.
          Value offsets = sq.offsetSums
                              ? vector::LoadOp::create(b, i32s, sq.offsetSums,
                                                       ValueRange{m, h0})
                              : Value();
          Value scalesOfHeads = vector::LoadOp::create(
              b, e.f32Vec(), sq.queryScales, ValueRange{m, h0});
          Value weights = vector::LoadOp::create(b, e.f32Vec(), sq.weights,
                                                 ValueRange{m, h0});
          Value isHead;
          if (sq.mayPad)
            isHead = arith::CmpIOp::create(
                b, arith::CmpIPredicate::ult,
                arith::AddIOp::create(b, e.splat(h0), lanes),
                e.splat(sq.heads));
          SmallVector<Value> next;
          for (int64_t r = 0; r < vl; ++r) {
            Value dot = dots[r];
            if (offsets)
              dot = arith::SubIOp::create(b, dot, offsets);
            Value d = arith::MulFOp::create(
                b, scalesOfHeads, arith::SIToFPOp::create(b, e.f32Vec(), dot));
            if (!scaleSplats.empty())
              d = arith::MulFOp::create(b, scaleSplats[r], d);
            Value relu = arith::MaximumFOp::create(b, d, zero);
            Value sum = math::FmaOp::create(b, weights, relu, acc[r]);
            // A padding head adds nothing (0 * relu(inf * 0) would be NaN).
            if (isHead)
              sum = arith::SelectOp::create(b, isHead, sum, acc[r]);
            next.push_back(sum);
          }
          return next;
        }
        // Transposed, a vector per head with the rows in its lanes: the
        // heads are summed in order, each with one fma, as score does.
        SmallVector<Value> byHead = transposeBlock(e, dots);
        Value sum = acc.front();
        for (int64_t j = 0; j < vl; ++j) {
          Value h = e.add(h0, e.index(j));
          Value d = byHead[j];
          if (scales)
            d = arith::MulFOp::create(b, scales, d);
          Value relu = arith::MaximumFOp::create(b, d, zero);
          Value w = e.splat(
              memref::LoadOp::create(b, sq.weights, ValueRange{m, h}));
          Value next = math::FmaOp::create(b, w, relu, sum);
          if (sq.mayPad) {
            // A padding head adds nothing (0 * relu(inf * 0) would be NaN).
            Value isHead = arith::CmpIOp::create(
                b, arith::CmpIPredicate::ult, h, sq.heads);
            next = arith::SelectOp::create(b, isHead, next, sum);
          }
          sum = next;
        }
        return {sum};
      });
  Value logits = sums.front();
  if (quads) {
    // Each row's lanes summed in lane order: transposed, lane j of every
    // row is one vector.
    SmallVector<Value> byLane = transposeBlock(e, sums);
    logits = byLane.front();
    for (int64_t j = 1; j < vl; ++j)
      logits = arith::AddFOp::create(b, logits, byLane[j]);
  }
  SmallVector<Value> result;
  for (int64_t r = 0; r < vl; ++r)
    result.push_back(vector::ExtractOp::create(b, logits, r));
  return result;
}
