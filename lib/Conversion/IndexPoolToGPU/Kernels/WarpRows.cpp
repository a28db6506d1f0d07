//===- WarpRows.cpp - rows of D values spread over the lanes of a warp ----===//

#include "WarpRows.h"
#include "GPUKernels.h"

#include "indexpool/Dialect/ElementTypes.h"
#include "indexpool/Reference/Numerics.h"

#include "Common/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

// More chunks than this per lane would hold too many values in registers.
static constexpr int64_t kMaxChunks = 8;
// The CPU rotates rows up to this size with a constant 1/sqrt(D) and longer
// ones with 1/sqrt(D) computed in f32 (loops::emitHadamardRow); so do we.
static constexpr int64_t kCPUShuffleRow = 256;

std::optional<WarpLayout>
mlir::indexpool::gpukernels::warpLayoutFor(int64_t d, int64_t elementBytes) {
  if (ShapedType::isDynamic(d) || d < 1 || elementBytes < 1)
    return std::nullopt;
  int64_t e = 16 / elementBytes;
  if (d < e) {
    if (!llvm::isPowerOf2_64(d))
      return std::nullopt;
    e = d;
  }
  if (d % e != 0)
    return std::nullopt;
  int64_t n = d / e;
  if (n <= kWarpSize)
    return llvm::isPowerOf2_64(n) ? std::optional<WarpLayout>({e, n, 1})
                                  : std::nullopt;
  if (n % kWarpSize != 0 || n / kWarpSize > kMaxChunks)
    return std::nullopt;
  return WarpLayout{e, kWarpSize, n / kWarpSize};
}

std::optional<WarpLayout>
mlir::indexpool::gpukernels::warpLayoutFor(int64_t d, int64_t elementBytes,
                                           const KernelLaunch &launch) {
  int64_t bytes = launch.vectorBytes, share = launch.elementsPerThread;
  if (ShapedType::isDynamic(d) || d < 1 || elementBytes < 1 || bytes < 1 ||
      share < 1 || bytes % elementBytes != 0)
    return warpLayoutFor(d, elementBytes);
  int64_t e = bytes / elementBytes;
  if (share % e != 0 || !llvm::isPowerOf2_64(e))
    return warpLayoutFor(d, elementBytes);
  int64_t c = share / e;
  if (c > kMaxChunks || d % share != 0)
    return warpLayoutFor(d, elementBytes);
  int64_t l = d / share;
  if (!llvm::isPowerOf2_64(l) || l > kWarpSize)
    return warpLayoutFor(d, elementBytes);
  return WarpLayout{e, l, c};
}

bool mlir::indexpool::gpukernels::canRowKernel(MemRefType rows,
                                               const KernelLaunch &launch) {
  return rows.getRank() == 2 &&
         warpLayoutFor(rows.getDimSize(1), rows.getElementTypeBitWidth() / 8,
                       launch)
             .has_value();
}

WarpLayout mlir::indexpool::gpukernels::warpLayoutOf(
    Value rows, const KernelLaunch &launch) {
  auto type = cast<MemRefType>(rows.getType());
  return *warpLayoutFor(type.getDimSize(1), type.getElementTypeBitWidth() / 8,
                        launch);
}

/// The row of group `group`'s step `step` in tile `tile` of `items` rows.
static WarpRow warpRow(Emitter &e, const WarpLayout &lay, Value thread,
                       Value tile, Value step, int64_t groups, int64_t items,
                       Value rows) {
  ImplicitLocOpBuilder &b = e.builder();
  auto ult = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y)
        .getResult();
  };
  WarpRow row;
  row.lane = arith::RemUIOp::create(b, thread, e.index(lay.lanes));
  // Groups are consecutive lanes: group g is thread / L.
  Value slot = arith::DivUIOp::create(b, thread, e.index(lay.lanes));
  if (step)
    slot = e.add(e.mul(step, e.index(groups)), slot);
  row.index = e.add(e.mul(tile, e.index(items)), slot);
  row.active = ult(row.index, rows);
  // A tile that is not a whole number of steps leaves groups idle in its
  // last step.
  if (items % groups != 0)
    row.active =
        arith::AndIOp::create(b, row.active, ult(slot, e.index(items)));
  row.clamped = arith::MinUIOp::create(
      b, row.index, arith::SubIOp::create(b, rows, e.index(1)));
  row.leader = arith::AndIOp::create(
      b, row.active,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, row.lane,
                            e.index(0)));
  for (int64_t c = 0; c < lay.chunks; ++c)
    row.offsets.push_back(e.mul(e.add(e.index(c * lay.lanes), row.lane),
                                e.index(lay.elems)));
  return row;
}

void mlir::indexpool::gpukernels::forEachRow(
    Emitter &e, const WarpLayout &lay, const KernelLaunch &launch,
    Value rowsOf, function_ref<void(const WarpRow &)> body) {
  forEachRow(e, lay, launch, [&]() { return e.dim(rowsOf, 0); }, body);
}

void mlir::indexpool::gpukernels::forEachRow(
    Emitter &e, const WarpLayout &lay, const KernelLaunch &launch,
    function_ref<Value()> rowCount, function_ref<void(const WarpRow &)> body) {
  ImplicitLocOpBuilder &b = e.builder();
  const int64_t threads = launch.threadsPerBlock;
  const int64_t groups = threads / lay.lanes;
  const int64_t items = launch.itemsPerBlock ? launch.itemsPerBlock : groups;
  const int64_t steps = llvm::divideCeil(items, groups);
  const bool gridStride = launch.gridStride.value_or(false);
  Value tiles = arith::CeilDivUIOp::create(b, rowCount(), e.index(items));
  Value grid = gridSize(b, tiles, gridStride, launch.blocksPerSM(threads));
  launchKernel(b, grid, e.index(1), threads, {}, [&](const KernelIds &ids) {
    Value rows = rowCount();
    forEachTile(b, ids.block, grid, tiles, gridStride, [&](Value tile) {
      if (steps == 1)
        return body(warpRow(e, lay, ids.thread, tile, nullptr, groups, items,
                            rows));
      e.forLoop(e.index(0), e.index(steps), [&](Value step) {
        body(warpRow(e, lay, ids.thread, tile, step, groups, items, rows));
      });
    });
  }, launch.registerResidency(threads));
}

SmallVector<Value> mlir::indexpool::gpukernels::loadRow(Emitter &e,
                                                        Value memref,
                                                        const WarpRow &row) {
  SmallVector<Value> x;
  for (Value offset : row.offsets)
    x.push_back(e.loadF32(memref, {row.clamped, offset}, nullptr));
  return x;
}

void mlir::indexpool::gpukernels::storeRow(Emitter &e, ArrayRef<Value> x,
                                           Value memref, const WarpRow &row) {
  e.ifThen(row.active, [&]() {
    for (auto [v, offset] : llvm::zip(x, row.offsets))
      e.storeF32(v, memref, {row.index, offset}, nullptr);
  });
}

/// One butterfly across lanes, bit-identical to the CPU's fma(sign, high,
/// low): where the lane's bit is clear it holds the low element and
/// fma(1, own, partner) = low + high; where it is set it holds the high one
/// and fma(-1, own, partner) = low - high. `sign` is the lane's +-1, so the
/// step costs one fma per element, no selects.
static Value butterflyAcross(ImplicitLocOpBuilder &b, Value own, Value partner,
                             Value sign) {
  return math::FmaOp::create(b, sign, own, partner);
}

void mlir::indexpool::gpukernels::rotateRow(Emitter &e, const WarpLayout &lay,
                                            const WarpRow &row,
                                            SmallVector<Value> &x,
                                            Type roundTo) {
  ImplicitLocOpBuilder &b = e.builder();
  const int64_t E = lay.elems, L = lay.lanes, C = lay.chunks;
  for (int64_t h = 1; h < E; h *= 2)
    for (Value &v : x)
      v = loops::emitButterfly(e, v, h);
  for (int64_t m = 1; m < L; m *= 2) {
    Value bitSet = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, row.lane, e.index(m)), e.index(0));
    Value sign = arith::SelectOp::create(b, bitSet, e.f32Splat(-1.0),
                                         e.f32Splat(1.0));
    for (Value &v : x)
      v = butterflyAcross(b, v, shuffleXorVector(b, v, m), sign);
  }
  for (int64_t m = 1; m < C; m *= 2)
    for (int64_t c = 0; c < C; ++c) {
      if (c & m)
        continue;
      Value low = x[c], high = x[c | m];
      x[c] = math::FmaOp::create(b, e.f32Splat(1.0), high, low);
      x[c | m] = math::FmaOp::create(b, e.f32Splat(-1.0), high, low);
    }
  int64_t d = lay.rowLength();
  Value norm;
  if (d <= kCPUShuffleRow) {
    norm = e.f32Splat(static_cast<float>(1.0 / std::sqrt(double(d))));
  } else {
    Value root = math::SqrtOp::create(b, e.f32(static_cast<double>(d)));
    norm = e.splat(arith::DivFOp::create(b, e.f32(1.0), root));
  }
  for (Value &v : x)
    v = e.roundTrip(arith::MulFOp::create(b, v, norm), roundTo);
}

/// q (f32 lanes, already clamped to +-448) -> f8E4M3FN codes with
/// cvt.rn.satfinite.e4m3x2.f32, two at a time. q holds NaN exactly when the
/// row's scale does (`scaleIsNaN`); the codes are then all 0x7F, the
/// canonical NaN the software encoder gives, whatever sign the hardware
/// would give a NaN.
static Value hardwareFp8(ImplicitLocOpBuilder &b, Value q, Value scaleIsNaN) {
  auto type = cast<VectorType>(q.getType());
  int64_t n = type.getNumElements();
  auto bytes = VectorType::get({n}, b.getI8Type());
  auto pair = VectorType::get({2}, b.getI8Type());
  Type f8 = b.getType<Float8E4M3FNType>();
  Value codes = arith::ConstantOp::create(
      b, DenseElementsAttr::get(bytes, b.getI8IntegerAttr(0)));
  for (int64_t i = 0; i < n; i += 2) {
    Value lo = vector::ExtractOp::create(b, q, i);
    Value hi = vector::ExtractOp::create(b, q, i + 1);
    // The pair's element 0 comes from the second operand.
    Value two = NVVM::ConvertF32x2ToF8x2Op::create(
        b, pair, hi, lo,
        NVVM::FPRoundingModeAttr::get(b.getContext(), NVVM::FPRoundingMode::RN),
        NVVM::SaturationModeAttr::get(b.getContext(),
                                      NVVM::SaturationMode::SATFINITE),
        b.getBoolAttr(false), TypeAttr::get(f8));
    for (int64_t j = 0; j < 2; ++j)
      codes = vector::InsertOp::create(
          b, vector::ExtractOp::create(b, two, j), codes, i + j);
  }
  Value nan = arith::ConstantOp::create(
      b, DenseElementsAttr::get(
             bytes, b.getI8IntegerAttr(::indexpool::ref::kF8E4M3FNNaN)));
  codes = arith::SelectOp::create(b, scaleIsNaN, nan, codes);
  return arith::BitcastOp::create(b, type.clone(f8), codes);
}

QuantizedRow mlir::indexpool::gpukernels::quantizedRow(
    Emitter &e, const WarpLayout &lay, ArrayRef<Value> x, Type codeType,
    bool pow2Scale, double minAbsmax, bool useHardwareFp8) {
  ImplicitLocOpBuilder &b = e.builder();
  bool fp8 = isa<Float8E4M3FNType>(codeType);
  // Codes packed below a byte (the paged layout's) are computed as their
  // bits in i8 lanes (Emitter::encodePackedCode).
  bool packed = codeType.getIntOrFloatBitWidth() < 8;
  // The code type's qmax (ElementTypes.def).
  double qmaxValue =
      ::indexpool::elementTypeInfo(
          toElementType(codeType).value_or(::indexpool::ElementType::I8))
          .qmax;
  // absmax over the lane's values, then across the row's lanes.
  Value maxAbs = e.f32(0.0);
  for (Value v : x)
    maxAbs = arith::MaximumFOp::create(
        b, maxAbs, e.reduceMax(math::AbsFOp::create(b, v)));
  for (int64_t m = 1; m < lay.lanes; m *= 2)
    maxAbs = arith::MaximumFOp::create(b, maxAbs, shuffleXor(b, maxAbs, m));
  Value absmax = arith::MaximumFOp::create(b, maxAbs, e.f32(minAbsmax));
  QuantizedRow result;
  result.scale = loops::emitRowScale(e, absmax, qmaxValue, pow2Scale);
  Value scale = result.scale;
  // A power-of-two scale has an exact inverse: multiply. Otherwise divide,
  // as the definition does.
  Value inverse =
      pow2Scale ? e.splat(arith::DivFOp::create(b, e.f32(1.0), scale))
                : Value();
  Value scaleV = e.splat(scale);
  Value hi = e.f32Splat(qmaxValue), lo = e.f32Splat(-qmaxValue);
  Value scaleIsNaN =
      arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, scale, scale);
  for (Value v : x) {
    Value q = inverse ? Value(arith::MulFOp::create(b, v, inverse))
                      : Value(arith::DivFOp::create(b, v, scaleV));
    q = arith::MaximumFOp::create(b, arith::MinimumFOp::create(b, q, hi), lo);
    result.codes.push_back(fp8 && useHardwareFp8 && lay.elems >= 2
                               ? hardwareFp8(b, q, scaleIsNaN)
                               : packed ? e.encodePackedCode(q, codeType)
                                        : e.fromF32(q, codeType));
  }
  return result;
}

void mlir::indexpool::gpukernels::quantizeRow(Emitter &e,
                                              const WarpLayout &lay,
                                              const WarpRow &row,
                                              ArrayRef<Value> x,
                                              const QuantizeSink &sink) {
  ImplicitLocOpBuilder &b = e.builder();
  Type codeType = cast<MemRefType>(sink.codes.getType()).getElementType();
  QuantizedRow q = quantizedRow(e, lay, x, codeType, sink.pow2Scale,
                                sink.minAbsmax, sink.hardwareFp8);
  e.ifThen(row.leader, [&]() {
    memref::StoreOp::create(b, q.scale, sink.scales, ValueRange{row.index});
  });
  for (auto [chunkCodes, chunkOffset] : llvm::zip(q.codes, row.offsets)) {
    Value codes = chunkCodes, offset = chunkOffset;
    e.ifThen(row.active, [&]() {
      vector::StoreOp::create(b, codes, sink.codes,
                              ValueRange{row.index, offset},
                              /*nontemporal=*/false, llvm::Align(lay.elems));
    });
  }
}
