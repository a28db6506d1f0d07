//===- Emitter.cpp - loop and vector building blocks ----------------------===//

#include "Emitter.h"

#include "indexpool/Reference/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::indexpool::loops;

//===----------------------------------------------------------------------===//
// Types and constants
//===----------------------------------------------------------------------===//

VectorType Emitter::vecType(Type element) const {
  return VectorType::get({vl}, element);
}
VectorType Emitter::f32Vec() const { return vecType(b.getF32Type()); }

Value Emitter::index(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
Value Emitter::i32(int32_t v) { return arith::ConstantIntOp::create(b, v, 32); }
Value Emitter::f32(double v) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
}
Value Emitter::splat(Value v) {
  return vector::BroadcastOp::create(b, vecType(v.getType()), v);
}

/// `type` is a scalar or a vector of the element type of the constant.
Value Emitter::constantLike(Type type, double v) {
  Type element = getElementTypeOrSelf(type);
  auto attr = b.getFloatAttr(element, v);
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, DenseElementsAttr::get(vec, attr));
  return arith::ConstantOp::create(b, attr);
}

Value Emitter::intConstantLike(Type type, int64_t v) {
  Type element = getElementTypeOrSelf(type);
  auto attr = b.getIntegerAttr(element, v);
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, DenseElementsAttr::get(vec, attr));
  return arith::ConstantOp::create(b, attr);
}

/// The same shape as `like` (scalar or vector) with element type `element`.
static Type withElement(Type like, Type element) {
  if (auto vec = dyn_cast<VectorType>(like))
    return vec.clone(element);
  return element;
}

Value Emitter::add(Value a, Value c) { return arith::AddIOp::create(b, a, c); }
Value Emitter::mul(Value a, Value c) { return arith::MulIOp::create(b, a, c); }
Value Emitter::dim(Value memref, int64_t d) {
  // Static sizes as constants, so that loops over them specialize.
  auto type = cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(d))
    return index(type.getDimSize(d));
  return memref::DimOp::create(b, memref, d);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// Puts the builder at the end of `block`, before its terminator if any.
static void setInsertionBeforeTerminator(OpBuilder &b, Block *block) {
  if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
    b.setInsertionPoint(&block->back());
  else
    b.setInsertionPointToEnd(block);
}

SmallVector<Value> Emitter::forLoop(Value lb, Value ub, Value step,
                                    ValueRange inits, LoopBody body) {
  auto loop = scf::ForOp::create(b, lb, ub, step, inits);
  OpBuilder::InsertionGuard guard(b);
  setInsertionBeforeTerminator(b, loop.getBody());
  SmallVector<Value> next =
      body(loop.getInductionVar(), loop.getRegionIterArgs());
  if (!inits.empty())
    scf::YieldOp::create(b, next);
  return SmallVector<Value>(loop.getResults());
}

void Emitter::forLoop(Value lb, Value ub, function_ref<void(Value)> body) {
  forLoop(lb, ub, index(1), body);
}

void Emitter::forLoop(Value lb, Value ub, Value step,
                      function_ref<void(Value)> body) {
  forLoop(lb, ub, step, {}, [&](Value iv, ValueRange) {
    body(iv);
    return SmallVector<Value>();
  });
}

void Emitter::parallelFor(Value n, function_ref<void(Value)> body) {
  auto loop = scf::ParallelOp::create(b, ValueRange{index(0)}, ValueRange{n},
                                      ValueRange{index(1)});
  if (threadsPerBlock)
    loop->setAttr(kThreadsAttrName, b.getI64IntegerAttr(threadsPerBlock));
  if (itemsPerBlock)
    loop->setAttr(kItemsAttrName, b.getI64IntegerAttr(itemsPerBlock));
  if (gridStrideBlocksPerSM)
    loop->setAttr(kBlocksPerSMAttrName, b.getI64IntegerAttr(*gridStrideBlocksPerSM));
  OpBuilder::InsertionGuard guard(b);
  setInsertionBeforeTerminator(b, loop.getBody());
  body(loop.getInductionVars()[0]);
}

void Emitter::stackScope(function_ref<void()> body) {
  if (!scopes)
    return body();
  auto scope = memref::AllocaScopeOp::create(b, TypeRange{});
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&scope.getBodyRegion());
  body();
  memref::AllocaScopeReturnOp::create(b, ValueRange{});
}

void Emitter::ifThen(Value cond, function_ref<void()> then) {
  auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  setInsertionBeforeTerminator(b, ifOp.thenBlock());
  then();
}

SmallVector<Value> Emitter::ifThen(Value cond, ValueRange elseValues,
                                   function_ref<SmallVector<Value>()> then) {
  auto ifOp = scf::IfOp::create(b, TypeRange(elseValues), cond,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  setInsertionBeforeTerminator(b, ifOp.thenBlock());
  SmallVector<Value> thenValues = then();
  if (!elseValues.empty()) {
    scf::YieldOp::create(b, thenValues);
    b.setInsertionPointToEnd(ifOp.elseBlock());
    scf::YieldOp::create(b, elseValues);
  }
  return SmallVector<Value>(ifOp.getResults());
}

SmallVector<Value> Emitter::chunks(Value n, ValueRange inits, ChunkBody body) {
  std::optional<int64_t> staticN = getConstantIntValue(n);
  Value width = index(vl);
  Value mainEnd = arith::SubIOp::create(b, n, arith::RemUIOp::create(b, n, width));
  SmallVector<Value> values =
      forLoop(index(0), mainEnd, width, inits, [&](Value iv, ValueRange args) {
        return body(Chunk{iv, nullptr}, args);
      });
  if (staticN && *staticN % vl == 0)
    return values;
  Value hasTail =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, mainEnd, n);
  return ifThen(hasTail, values, [&]() {
    Value left = arith::SubIOp::create(b, n, mainEnd);
    Value mask = vector::CreateMaskOp::create(
        b, VectorType::get({vl}, b.getI1Type()), ValueRange{left});
    return body(Chunk{mainEnd, mask}, values);
  });
}

void Emitter::chunks(Value n, function_ref<void(Chunk)> body) {
  chunks(n, {}, [&](Chunk c, ValueRange) {
    body(c);
    return SmallVector<Value>();
  });
}

//===----------------------------------------------------------------------===//
// Element type conversions
//===----------------------------------------------------------------------===//

// f8E4M3FN: 1 sign, 4 exponent (bias 7), 3 mantissa bits, no infinities,
// 0x7F / 0xFF are NaN; its largest finite value, smallest normal and
// canonical NaN are the reference's (Numerics.h).
static constexpr int kF8Bias = 7, kF32Bias = 127;
using ::indexpool::ref::kF8E4M3FNMax;
using ::indexpool::ref::kF8E4M3FNMinNormal;
using ::indexpool::ref::kF8E4M3FNNaN;

Value Emitter::encodeF8E4M3FN(Value v) {
  Type type = v.getType();
  Type i32Type = withElement(type, b.getI32Type());
  auto ci = [&](int64_t c) { return intConstantLike(i32Type, c); };
  auto cf = [&](double c) { return constantLike(type, c); };

  Value bits = arith::BitcastOp::create(b, i32Type, v);
  Value sign = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, bits, ci(24)), ci(0x80));
  Value mag = math::AbsFOp::create(b, v);
  // Saturate like cvt.rn.satfinite: 448 is exact, so rounding stays finite.
  Value sat = arith::MinimumFOp::create(b, mag, cf(kF8E4M3FNMax));
  Value satBits = arith::BitcastOp::create(b, i32Type, sat);

  // Normal: drop 20 of the 23 mantissa bits, rounding to nearest even; a
  // carry out of the mantissa bumps the exponent, as it should.
  Value lsb = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, satBits, ci(20)), ci(1));
  Value rounded = arith::ShRUIOp::create(
      b,
      arith::AddIOp::create(b, satBits,
                            arith::AddIOp::create(b, ci(0x7FFFF), lsb)),
      ci(20));
  Value normal =
      arith::SubIOp::create(b, rounded, ci((kF32Bias - kF8Bias) << 3));

  // Subnormal: multiples of 2^-9, rounded to nearest even (8 becomes the
  // smallest normal, whose code is also 8).
  Value scaled = arith::MulFOp::create(b, sat, cf(512.0));
  Value sub = arith::FPToSIOp::create(b, i32Type,
                                      math::RoundEvenOp::create(b, scaled));

  Value isSub =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, sat, cf(kF8E4M3FNMinNormal));
  Value code = arith::OrIOp::create(
      b, arith::SelectOp::create(b, isSub, sub, normal), sign);
  // Every NaN, whatever its sign, is the canonical positive NaN 0x7F (what
  // cvt.rn.satfinite gives too), so the sign is applied before this select.
  Value isNan = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, v, v);
  code = arith::SelectOp::create(b, isNan, ci(kF8E4M3FNNaN), code);
  return arith::TruncIOp::create(b, withElement(type, b.getI8Type()), code);
}

Value Emitter::decodeF8E4M3FN(Value bits8) {
  Type type = bits8.getType();
  Type i32Type = withElement(type, b.getI32Type());
  Type f32Type = withElement(type, b.getF32Type());
  auto ci = [&](int64_t c) { return intConstantLike(i32Type, c); };

  Value x = arith::ExtUIOp::create(b, i32Type, bits8);
  Value sign = arith::ShLIOp::create(b, arith::AndIOp::create(b, x, ci(0x80)),
                                     ci(24));
  Value mag = arith::AndIOp::create(b, x, ci(0x7F));
  // Normal: exponent and mantissa moved up to f32's places and the
  // exponent rebiased, in one add (the exponent field cannot carry over).
  Value normalBits = arith::AddIOp::create(
      b, arith::ShLIOp::create(b, mag, ci(20)),
      ci((kF32Bias - kF8Bias) << 23));
  // Subnormal (exponent 0, so mag is the mantissa): mag * 2^-9, exactly.
  Value subBits = arith::BitcastOp::create(
      b, i32Type,
      arith::MulFOp::create(b, arith::UIToFPOp::create(b, f32Type, mag),
                            constantLike(f32Type, 1.0 / 512)));
  Value isSub = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, mag, ci(8));
  Value value = arith::BitcastOp::create(
      b, f32Type,
      arith::OrIOp::create(
          b, arith::SelectOp::create(b, isSub, subBits, normalBits), sign));
  Value isNan =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, mag, ci(kF8E4M3FNNaN));
  return arith::SelectOp::create(
      b, isNan, constantLike(f32Type, std::numeric_limits<double>::quiet_NaN()),
      value);
}

Value Emitter::toF32(Value v) {
  Type type = v.getType();
  Type element = getElementTypeOrSelf(type);
  Type f32Type = withElement(type, b.getF32Type());
  if (element.isF32())
    return v;
  if (element.isF16() || element.isBF16())
    return arith::ExtFOp::create(b, f32Type, v);
  if (isa<Float8E4M3FNType>(element))
    return decodeF8E4M3FN(
        arith::BitcastOp::create(b, withElement(type, b.getI8Type()), v));
  assert(isa<IntegerType>(element) && "unexpected element type");
  return arith::SIToFPOp::create(b, f32Type, v);
}

Value Emitter::fromF32(Value v, Type element) {
  Type type = v.getType();
  Type result = withElement(type, element);
  if (element.isF32())
    return v;
  if (element.isF16() || element.isBF16()) {
    // The truncation keeps a NaN's sign and payload on the CPU, and PTX's
    // cvt gives 0x7FFF: every NaN becomes the canonical positive quiet NaN
    // instead (bf16 0x7FC0, f16 0x7E00), as the reference encodes it.
    Type bitsType = withElement(type, b.getI16Type());
    Value bits = arith::BitcastOp::create(
        b, bitsType, arith::TruncFOp::create(b, result, v));
    Value isNan = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, v, v);
    Value nan = intConstantLike(bitsType, element.isF16() ? 0x7E00 : 0x7FC0);
    return arith::BitcastOp::create(
        b, result, arith::SelectOp::create(b, isNan, nan, bits));
  }
  if (isa<Float8E4M3FNType>(element))
    return arith::BitcastOp::create(b, result, encodeF8E4M3FN(v));
  assert(isa<IntegerType>(element) && "unexpected element type");
  unsigned width = element.getIntOrFloatBitWidth();
  double lo = -std::ldexp(1.0, width - 1), hi = std::ldexp(1.0, width - 1) - 1;
  Value isNan = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, v, v);
  Value clean = arith::SelectOp::create(b, isNan, constantLike(type, 0.0), v);
  Value clamped = arith::MaximumFOp::create(
      b, arith::MinimumFOp::create(b, clean, constantLike(type, hi)),
      constantLike(type, lo));
  return arith::FPToSIOp::create(b, result,
                                 math::RoundEvenOp::create(b, clamped));
}

// f4E2M1FN (ElementTypes.def): 1 sign, 2 exponent (bias 1), 1 mantissa
// bit; the magnitudes 0, 0.5, 1, 1.5 | 2, 3 | 4, 6 are codes 0 .. 7, no
// infinities, no NaN.
Value Emitter::encodePackedCode(Value q, Type codeType) {
  if (codeType.isInteger()) // two's complement: the i8's low bits
    return fromF32(q, b.getI8Type());
  assert(isa<Float4E2M1FNType>(codeType) && "a code type packed below a byte");
  Type type = q.getType();
  Type i32Type = withElement(type, b.getI32Type());
  auto cf = [&](double c) { return constantLike(type, c); };
  auto ci = [&](int64_t c) { return intConstantLike(i32Type, c); };
  auto roundEven = [&](Value x) { return math::RoundEvenOp::create(b, x); };
  // A NaN code is +0 (the format has none); the sign is that of q.
  Value isNan = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, q, q);
  Value clean = arith::SelectOp::create(b, isNan, cf(0.0), q);
  Value r = math::AbsFOp::create(b, clean); // <= 6: q is clamped to qmax
  // The code of r is its index on the grid, whose step is 1/2 below 2, 1
  // below 4 and 2 up to 6: r * 2, r + 2 or r / 2 + 4 rounded half to even
  // (an even index is an even mantissa, as round-to-nearest-even wants;
  // 1.75 and 3.5 round up to the next binade's first code).
  Value index = arith::SelectOp::create(
      b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, r, cf(2.0)),
      roundEven(arith::MulFOp::create(b, r, cf(2.0))),
      arith::SelectOp::create(
          b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, r, cf(4.0)),
          arith::AddFOp::create(b, roundEven(r), cf(2.0)),
          arith::AddFOp::create(
              b, roundEven(arith::MulFOp::create(b, r, cf(0.5))), cf(4.0))));
  Value sign = arith::ShLIOp::create(
      b,
      arith::ShRUIOp::create(b, arith::BitcastOp::create(b, i32Type, clean),
                             ci(31)),
      ci(3));
  Value code = arith::OrIOp::create(
      b, arith::FPToSIOp::create(b, i32Type, index), sign);
  return arith::TruncIOp::create(b, withElement(type, b.getI8Type()), code);
}

Value Emitter::decodePackedCode(Value bits, Type codeType) {
  Type type = bits.getType();
  Type f32Type = withElement(type, b.getF32Type());
  if (codeType.isInteger()) {
    // Sign-extended: to the byte's top, back with an arithmetic shift.
    Value up = intConstantLike(type, 8 - codeType.getIntOrFloatBitWidth());
    return arith::SIToFPOp::create(
        b, f32Type,
        arith::ShRSIOp::create(b, arith::ShLIOp::create(b, bits, up), up));
  }
  assert(isa<Float4E2M1FNType>(codeType) && "a code type packed below a byte");
  Type i32Type = withElement(type, b.getI32Type());
  auto ci = [&](int64_t c) { return intConstantLike(i32Type, c); };
  Value x = arith::ExtUIOp::create(b, i32Type, bits);
  Value exp = arith::AndIOp::create(b, arith::ShRUIOp::create(b, x, ci(1)),
                                    ci(3));
  Value man = arith::AndIOp::create(b, x, ci(1));
  // As f32 bits: 2^(exp - 1) * (1 + man / 2), or man * 0.5 when exp is 0.
  Value normal = arith::OrIOp::create(
      b,
      arith::ShLIOp::create(b, arith::AddIOp::create(b, exp, ci(kF32Bias - 1)),
                            ci(23)),
      arith::ShLIOp::create(b, man, ci(22)));
  Value subnormal = arith::MulIOp::create(b, man, ci(0x3F000000)); // 0.5
  Value isSub = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, exp, ci(0));
  Value sign = arith::ShLIOp::create(b, arith::AndIOp::create(b, x, ci(8)),
                                     ci(28));
  return arith::BitcastOp::create(
      b, f32Type,
      arith::OrIOp::create(
          b, arith::SelectOp::create(b, isSub, subnormal, normal), sign));
}

Value Emitter::roundTrip(Value v, Type element) {
  if (element.isF32())
    return v;
  return toF32(fromF32(v, element));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// f8 memrefs are read and written through i8 vectors so that no f8
/// constant is ever needed (the CPU lowering has none).
static Value zeroOf(ImplicitLocOpBuilder &b, VectorType type) {
  Type element = type.getElementType();
  if (isa<FloatType>(element) && !isa<Float8E4M3FNType>(element))
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(type, b.getFloatAttr(element, 0.0)));
  Type intType = type.clone(b.getIntegerType(element.getIntOrFloatBitWidth()));
  Value zero = arith::ConstantOp::create(
      b, DenseElementsAttr::get(cast<ShapedType>(intType),
                                b.getIntegerAttr(getElementTypeOrSelf(intType), 0)));
  if (intType == type)
    return zero;
  return arith::BitcastOp::create(b, type, zero);
}

/// Full chunks start at multiples of vl elements; when every row does too
/// (static innermost size, a multiple of vl, identity layout) and buffers are
/// 16-byte aligned (our allocations, cudaMalloc), a chunk is aligned to its
/// size up to 16 bytes. Saying so is what makes the GPU backend emit
/// ld.global.v4 instead of scalar loads.
llvm::MaybeAlign Emitter::vectorAlignment(Value memref) const {
  auto type = cast<MemRefType>(memref.getType());
  int64_t inner = type.getShape().back();
  if (!type.getLayout().isIdentity() || ShapedType::isDynamic(inner) ||
      inner % vl != 0)
    return {};
  int64_t bytes = vl * type.getElementTypeBitWidth() / 8;
  return llvm::Align(std::min<int64_t>(16, llvm::PowerOf2Ceil(bytes)));
}

Value Emitter::loadF32(Value memref, ValueRange indices, Value mask,
                       double padding) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  VectorType type = vecType(element);
  Value raw;
  if (mask)
    raw = vector::MaskedLoadOp::create(b, type, memref, indices, mask,
                                       zeroOf(b, type));
  else
    raw = vector::LoadOp::create(b, type, memref, indices,
                                 /*nontemporal=*/false,
                                 vectorAlignment(memref));
  Value v = toF32(raw);
  if (mask && padding != 0.0)
    v = arith::SelectOp::create(b, mask, v, f32Splat(padding));
  return v;
}

void Emitter::storeF32(Value v, Value memref, ValueRange indices, Value mask) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  Value converted = fromF32(v, element);
  if (mask)
    vector::MaskedStoreOp::create(b, memref, indices, mask, converted);
  else
    vector::StoreOp::create(b, converted, memref, indices,
                            /*nontemporal=*/false, vectorAlignment(memref));
}

Value Emitter::loadScalarF32(Value memref, ValueRange indices) {
  return toF32(memref::LoadOp::create(b, memref, indices));
}

void Emitter::storeScalarF32(Value v, Value memref, ValueRange indices) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  memref::StoreOp::create(b, fromF32(v, element), memref, indices);
}

Value Emitter::expNonPositive(Value x) {
  Type type = x.getType();
  Type i32Type = withElement(type, b.getI32Type());
  auto cf = [&](double c) { return constantLike(type, c); };
  // x = n ln2 + r with |r| <= ln2 / 2 (+ half an ulp of x / ln2; Cody-Waite:
  // ln2 split in a part exact in f32 products and a correction),
  // e^x = 2^n e^r. n without conversion instructions (cvt.rni / cvt.rzi
  // issue at a quarter of the FMA rate on the GPU): adding 1.5 * 2^23 in
  // the FMA rounds x / ln2 to an integer (nearest even) in the low
  // mantissa bits, exact for |n| < 2^22 (here |n| <= 126; below -87.3 the
  // result is 0 anyway), and those bits are n as an integer.
  const double magic = 12582912.0; // 1.5 * 2^23, bits 0x4B400000
  Value shifted =
      math::FmaOp::create(b, x, cf(1.4426950408889634), cf(magic));
  Value n = arith::SubFOp::create(b, shifted, cf(magic));
  Value r = math::FmaOp::create(b, n, cf(-0.693145751953125), x);
  r = math::FmaOp::create(b, n, cf(-1.4286068203094173e-06), r);
  // Taylor to r^7: truncation error < 2^-26 relative on |r| <= ln2 / 2.
  const double coefficients[] = {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
                                 1.0 / 6,    0.5,       1.0,       1.0};
  Value p = cf(coefficients[0]);
  for (double c : ArrayRef(coefficients).drop_front())
    p = math::FmaOp::create(b, p, r, cf(c));
  // 2^n by adding n to the exponent field; n >= -126 keeps p * 2^n normal.
  Value nBits = arith::SubIOp::create(
      b, arith::BitcastOp::create(b, i32Type, shifted),
      intConstantLike(i32Type, 0x4B400000));
  Value shift =
      arith::ShLIOp::create(b, nBits, intConstantLike(i32Type, 23));
  Value scaled = arith::BitcastOp::create(
      b, type,
      arith::AddIOp::create(b, arith::BitcastOp::create(b, i32Type, p), shift));
  Value tiny = arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x, cf(-87.3));
  Value result = arith::SelectOp::create(b, tiny, cf(0.0), scaled);
  Value isNan = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(b, isNan, x, result);
}

Value Emitter::reduceAdd(Value v) {
  return vector::ReductionOp::create(b, vector::CombiningKind::ADD, v);
}
Value Emitter::reduceMax(Value v) {
  return vector::ReductionOp::create(b, vector::CombiningKind::MAXIMUMF, v);
}
