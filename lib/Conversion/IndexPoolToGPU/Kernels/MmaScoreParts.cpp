//===- MmaScoreParts.cpp - what the two tensor-core scores share ----------===//
//
// The FP8 decoders and the epilogue of MmaScoreParts.h, in a file of their
// own: the mma.sync kernel (MmaScoreKernel.cpp) and the wgmma kernel
// (WgmmaScoreKernel.cpp) both use them, and neither defines what the other
// uses.
//
//===----------------------------------------------------------------------===//

#include "MmaScoreParts.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

/// f32 values that are bf16 values, as bf16 (their top halves).
Value mlir::indexpool::gpukernels::truncExact(ImplicitLocOpBuilder &b,
                                              Value v) {
  int64_t n = cast<VectorType>(v.getType()).getNumElements();
  auto i32s = VectorType::get({n}, b.getI32Type());
  auto i16s = VectorType::get({n}, b.getI16Type());
  Value bits = arith::BitcastOp::create(b, i32s, v);
  Value shift = arith::ConstantOp::create(
      b, DenseElementsAttr::get(i32s, b.getI32IntegerAttr(16)));
  Value high =
      arith::TruncIOp::create(b, i16s, arith::ShRUIOp::create(b, bits, shift));
  return arith::BitcastOp::create(b, VectorType::get({n}, b.getBF16Type()),
                                  high);
}

/// Two e4m3 codes (vector<2xi8>) as bf16 bits (vector<2xi16>) through the
/// hardware's e4m3 -> f16 conversion, then f16 -> f32 (both exact: every
/// e4m3 value is a normal f16 value or zero, NaN stays NaN) and the f32
/// values' top halves (exact: at most 4 significant bits). Four
/// instructions per pair on sm_90 (F2FP, two HADD2.F32, PRMT) where
/// rebasing the f16 exponent with integer operations took eleven.
Value mlir::indexpool::gpukernels::hardwareFp8ToBf16(ImplicitLocOpBuilder &b,
                                                     Value codes) {
  auto halves = VectorType::get({2}, b.getF16Type());
  Value f16 = NVVM::ConvertF8x2ToF16x2Op::create(
      b, halves, codes, /*relu=*/false, b.getType<Float8E4M3FNType>());
  Value f32 = arith::ExtFOp::create(b, VectorType::get({2}, b.getF32Type()),
                                    f16);
  return arith::BitcastOp::create(b, VectorType::get({2}, b.getI16Type()),
                                  truncExact(b, f32));
}

/// e4m3 codes (vector<n x i8>) as f32 with integer operations and one
/// multiply (chips without cvt.rn.f16x2.e4m3x2): the code's 7 magnitude
/// bits at the top of an f32's exponent and mantissa make the value times
/// 2^-120, a normal f32 or, for e4m3's subnormals, a subnormal one; times
/// 2^120 it is exact. S.1111.111 (which would read 480) is NaN. About 6
/// instructions per code where the generic decoder took 17.
Value mlir::indexpool::gpukernels::softwareFp8ToF32(ImplicitLocOpBuilder &b,
                                                    Value codes) {
  int64_t n = cast<VectorType>(codes.getType()).getNumElements();
  auto i32s = VectorType::get({n}, b.getI32Type());
  auto splat = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(i32s, b.getI32IntegerAttr(v)));
  };
  Value wide = arith::ExtUIOp::create(b, i32s, codes);
  // Sign to bit 31, magnitude to bits 26..20 (the shift replicates the
  // sign into bits 30..27, which the mask clears).
  Value top = arith::ShLIOp::create(b, wide, splat(24));
  Value bits = arith::AndIOp::create(
      b, arith::ShRSIOp::create(b, top, splat(4)),
      splat(static_cast<int32_t>(0x87f00000u)));
  auto f32s = VectorType::get({n}, b.getF32Type());
  Value scaled = arith::MulFOp::create(
      b, arith::BitcastOp::create(b, f32s, bits),
      arith::ConstantOp::create(
          b, DenseElementsAttr::get(f32s, b.getF32FloatAttr(0x1p120f))));
  Value nan = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq, arith::AndIOp::create(b, wide, splat(0x7f)),
      splat(0x7f));
  return arith::SelectOp::create(
      b, nan,
      arith::ConstantOp::create(
          b, DenseElementsAttr::get(
                 f32s, b.getF32FloatAttr(
                           std::numeric_limits<float>::quiet_NaN()))),
      scaled);
}

Value mlir::indexpool::gpukernels::fp8ToBf16Bits(ImplicitLocOpBuilder &b,
                                                 Value codes,
                                                 bool hardwareFp8) {
  int64_t n = cast<VectorType>(codes.getType()).getNumElements();
  auto i16s = VectorType::get({n}, b.getI16Type());
  if (!hardwareFp8)
    return arith::BitcastOp::create(b, i16s,
                                    truncExact(b, softwareFp8ToF32(b, codes)));
  SmallVector<Value> elements;
  for (int64_t pair = 0; pair < n / 2; ++pair) {
    Value two = vector::ShuffleOp::create(
        b, codes, codes, ArrayRef<int64_t>{2 * pair, 2 * pair + 1});
    Value bits = hardwareFp8ToBf16(b, two);
    for (int64_t i = 0; i < 2; ++i)
      elements.push_back(vector::ExtractOp::create(b, bits, i));
  }
  return vector::FromElementsOp::create(b, i16s, elements);
}

std::array<Value, 2> mlir::indexpool::gpukernels::headWeightPair(
    ImplicitLocOpBuilder &b, Emitter &e, Value weights, Value m, Value h) {
  Type weightType = cast<MemRefType>(weights.getType()).getElementType();
  const int64_t pairAlign = 2 * weightType.getIntOrFloatBitWidth() / 8;
  Value pair = e.toF32(vector::LoadOp::create(
      b, VectorType::get({2}, weightType), weights, ValueRange{m, h},
      /*nontemporal=*/false, llvm::Align(pairAlign)));
  return {vector::ExtractOp::create(b, pair, 0),
          vector::ExtractOp::create(b, pair, 1)};
}

void mlir::indexpool::gpukernels::addHeadTile(
    ImplicitLocOpBuilder &b, Emitter &e, ArrayRef<Value> acc,
    ArrayRef<Value> w, ArrayRef<Value> scales, MutableArrayRef<Value> sums) {
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      Value v = acc[2 * i + j];
      if (Value scale = scales[i])
        v = arith::MulFOp::create(b, scale, v);
      Value relu = arith::MaximumFOp::create(b, v, e.f32(0.0));
      sums[i] = math::FmaOp::create(b, w[j], relu, sums[i]);
    }
}

void mlir::indexpool::gpukernels::storeKeyRowLogit(
    ImplicitLocOpBuilder &b, Emitter &e, Value sum, Value present, Value n,
    int64_t half, Value t, Value dimN, Value logits, Value m) {
  // The 4 lanes of the same g hold the other heads.
  for (int64_t mask : {1, 2})
    sum = arith::AddFOp::create(b, sum, shuffleXor(b, sum, mask));
  if (present)
    sum = arith::SelectOp::create(
        b, present, sum, e.f32(std::numeric_limits<double>::quiet_NaN()));
  Value store = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, t, e.index(half)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, n, dimN));
  e.ifThen(store, [&]() {
    memref::StoreOp::create(b, sum, logits, ValueRange{m, n});
  });
}
