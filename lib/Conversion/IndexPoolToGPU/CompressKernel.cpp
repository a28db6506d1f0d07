//===- CompressKernel.cpp - indexpool.compress as one GPU kernel ----------===//
//
// One pool group per `L` lanes of a warp. Lane l of a group holds, for each
// of its C chunks c, the E channels d = (c*L + l)*E + i (i < E) of the
// group's P keys: E*bytes = 16, so every key row is read with one 16-byte
// load per lane, and a warp reads whole 512-byte stretches.
//
// Bit j of d is an in-register element bit for j < log2 E, a lane bit next,
// then a chunk bit: the Hadamard butterflies h = 1, 2, 4, ... run in that
// order as vector shuffles, `gpu.shuffle xor` and register pairs, with the
// same fma(+-1, .., ..) as the CPU's rows, so the rotated values agree bit
// for bit. No thread keeps anything in local memory.
//
// All lanes of a warp run every shuffle: the last warp clamps its group
// index and only its stores are guarded.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"

#include "../IndexPoolToLoops/Emitter.h"
#include "../IndexPoolToLoops/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

namespace {
/// E channels per lane and chunk, L lanes per group, C chunks per lane.
struct Layout {
  int64_t elems, lanes, chunks;
};
} // namespace

// More chunks than this per lane would hold too many keys in registers.
static constexpr int64_t kMaxChunks = 8;
// The CPU rotates rows up to this size with a constant 1/sqrt(D) and longer
// ones with 1/sqrt(D) computed in f32 (loops::emitHadamardRow); so do we.
static constexpr int64_t kCPUShuffleRow = 256;

static std::optional<Layout> layoutFor(MemRefType keys) {
  int64_t d = keys.getDimSize(1);
  if (ShapedType::isDynamic(d) || d < 1)
    return std::nullopt;
  int64_t e = 16 / (keys.getElementTypeBitWidth() / 8);
  if (d < e) {
    if (!llvm::isPowerOf2_64(d))
      return std::nullopt;
    e = d;
  }
  if (d % e != 0)
    return std::nullopt;
  int64_t n = d / e;
  if (n <= kWarpSize)
    return llvm::isPowerOf2_64(n) ? std::optional<Layout>({e, n, 1})
                                  : std::nullopt;
  if (n % kWarpSize != 0 || n / kWarpSize > kMaxChunks)
    return std::nullopt;
  return Layout{e, kWarpSize, n / kWarpSize};
}

bool mlir::indexpool::gpukernels::canCompress(MemRefType keys) {
  return layoutFor(keys).has_value();
}

/// fma(sign, high, low) with sign = -1 where `bitSet`, choosing which of
/// `own` / `partner` is the low (bit clear) element: one butterfly.
static Value butterflyAcross(ImplicitLocOpBuilder &b, Emitter &e, Value own,
                             Value partner, Value bitSet) {
  Value low = arith::SelectOp::create(b, bitSet, partner, own);
  Value high = arith::SelectOp::create(b, bitSet, own, partner);
  Value sign = arith::SelectOp::create(b, bitSet, e.f32Splat(-1.0),
                                       e.f32Splat(1.0));
  return math::FmaOp::create(b, sign, high, low);
}

/// q (f32 lanes, already clamped to +-448) -> f8E4M3FN codes with
/// cvt.rn.satfinite.e4m3x2.f32, two at a time.
static Value hardwareFp8(ImplicitLocOpBuilder &b, Value q) {
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
  return arith::BitcastOp::create(b, type.clone(f8), codes);
}

void mlir::indexpool::gpukernels::emitCompressKernel(
    ImplicitLocOpBuilder &b, const CompressBuffers &c,
    int64_t threadsPerBlock, bool useHardwareFp8) {
  auto keysType = cast<MemRefType>(c.keys.getType());
  Layout lay = *layoutFor(keysType);
  const int64_t E = lay.elems, L = lay.lanes, C = lay.chunks;
  const int64_t D = E * L * C, P = c.poolSize;
  Emitter e(b, E, /*stackScopes=*/false);
  int64_t groupsPerWarp = kWarpSize / L;
  int64_t groupsPerBlock = threadsPerBlock / kWarpSize * groupsPerWarp;
  Type keyType = keysType.getElementType();
  Type codeType = cast<MemRefType>(c.codes.getType()).getElementType();
  bool perChannel = cast<MemRefType>(c.scores.getType()).getRank() == 2;
  bool fp8 = isa<Float8E4M3FNType>(codeType);
  double qmaxValue = fp8 ? 448.0 : 127.0;

  Value groups = e.dim(c.codes, 0);
  Value grid = arith::CeilDivUIOp::create(b, groups, e.index(groupsPerBlock));
  launchKernel(b, grid, e.index(1), threadsPerBlock, {}, [&](const KernelIds &ids) {
    auto div = [&](Value v, int64_t n) {
      return arith::DivUIOp::create(b, v, e.index(n)).getResult();
    };
    auto rem = [&](Value v, int64_t n) {
      return arith::RemUIOp::create(b, v, e.index(n)).getResult();
    };
    Value lane = rem(ids.thread, kWarpSize), warp = div(ids.thread, kWarpSize);
    Value l = rem(lane, L);
    Value g = e.add(e.add(e.mul(ids.block, e.index(groupsPerBlock)),
                          e.mul(warp, e.index(groupsPerWarp))),
                    div(lane, L));
    Value groupsIn = e.dim(c.codes, 0);
    Value active =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, g, groupsIn);
    Value last = arith::SubIOp::create(b, groupsIn, e.index(1));
    Value gc = arith::MinUIOp::create(b, g, last);
    Value leader = arith::AndIOp::create(
        b, active,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, l, e.index(0)));
    Value first = e.mul(gc, e.index(P));
    auto row = [&](int64_t s) { return e.add(first, e.index(s)); };

    SmallVector<Value> offset;
    for (int64_t ch = 0; ch < C; ++ch)
      offset.push_back(e.mul(e.add(e.index(ch * L), l), e.index(E)));

    // pool: the same slot order and fma chain as loops::emitPoolGroup.
    auto weightedSum = [&](Value off, ArrayRef<Value> w) {
      Value acc;
      for (int64_t s = 0; s < P; ++s) {
        Value key = e.loadF32(c.keys, {row(s), off}, nullptr);
        acc = acc ? Value(math::FmaOp::create(b, w[s], key, acc))
                  : Value(arith::MulFOp::create(b, w[s], key));
      }
      return acc;
    };
    SmallVector<Value> x(C);
    if (!perChannel) {
      SmallVector<Value> logit;
      for (int64_t s = 0; s < P; ++s) {
        Value v = e.loadScalarF32(c.scores, {row(s)});
        if (c.bias)
          v = arith::AddFOp::create(b, v,
                                    e.loadScalarF32(c.bias, {e.index(s)}));
        logit.push_back(v);
      }
      SmallVector<Value> w = loops::emitSoftmax(e, logit, c.temperature);
      when(b, leader, [&]() {
        for (int64_t s = 0; s < P; ++s)
          memref::StoreOp::create(b, w[s], c.weights,
                                  ValueRange{g, e.index(s)});
      });
      SmallVector<Value> wv;
      for (Value ws : w)
        wv.push_back(e.splat(ws));
      for (int64_t ch = 0; ch < C; ++ch)
        x[ch] = weightedSum(offset[ch], wv);
    } else {
      for (int64_t ch = 0; ch < C; ++ch) {
        SmallVector<Value> logit;
        for (int64_t s = 0; s < P; ++s) {
          Value v = e.loadF32(c.scores, {row(s), offset[ch]}, nullptr);
          if (c.bias)
            v = arith::AddFOp::create(
                b, v, e.loadF32(c.bias, {e.index(s), offset[ch]}, nullptr));
          logit.push_back(v);
        }
        SmallVector<Value> w = loops::emitSoftmax(e, logit, c.temperature);
        when(b, active, [&]() {
          for (int64_t s = 0; s < P; ++s)
            e.storeF32(w[s], c.weights, {g, e.index(s), offset[ch]}, nullptr);
        });
        x[ch] = weightedSum(offset[ch], w);
      }
    }
    for (Value &v : x)
      v = e.roundTrip(v, keyType);

    if (c.rotate) {
      for (int64_t h = 1; h < E; h *= 2)
        for (Value &v : x)
          v = loops::emitButterfly(e, v, h);
      for (int64_t m = 1; m < L; m *= 2) {
        Value bitSet = arith::CmpIOp::create(
            b, arith::CmpIPredicate::ne,
            arith::AndIOp::create(b, l, e.index(m)), e.index(0));
        for (Value &v : x)
          v = butterflyAcross(b, e, v, shuffleXorVector(b, v, m), bitSet);
      }
      for (int64_t m = 1; m < C; m *= 2)
        for (int64_t ch = 0; ch < C; ++ch) {
          if (ch & m)
            continue;
          Value low = x[ch], high = x[ch | m];
          x[ch] = math::FmaOp::create(b, e.f32Splat(1.0), high, low);
          x[ch | m] = math::FmaOp::create(b, e.f32Splat(-1.0), high, low);
        }
      Value norm;
      if (D <= kCPUShuffleRow) {
        norm = e.f32Splat(static_cast<float>(1.0 / std::sqrt(double(D))));
      } else {
        Value root = math::SqrtOp::create(b, e.f32(static_cast<double>(D)));
        norm = e.splat(arith::DivFOp::create(b, e.f32(1.0), root));
      }
      for (Value &v : x)
        v = e.roundTrip(arith::MulFOp::create(b, v, norm), keyType);
    }

    // quantize: absmax over the lane's values, then across the group.
    Value maxAbs = e.f32(0.0);
    for (Value v : x)
      maxAbs = arith::MaximumFOp::create(
          b, maxAbs, e.reduceMax(math::AbsFOp::create(b, v)));
    for (int64_t m = 1; m < L; m *= 2)
      maxAbs = arith::MaximumFOp::create(b, maxAbs, shuffleXor(b, maxAbs, m));
    Value absmax = arith::MaximumFOp::create(b, maxAbs, e.f32(c.minAbsmax));
    Value qmax = e.f32(qmaxValue);
    Value scale = c.pow2Scale ? loops::emitPow2Scale(e, absmax, qmax)
                              : arith::DivFOp::create(b, absmax, qmax);
    when(b, leader, [&]() {
      memref::StoreOp::create(b, scale, c.scales, ValueRange{g});
    });
    Value inverse =
        c.pow2Scale ? e.splat(arith::DivFOp::create(b, e.f32(1.0), scale))
                    : Value();
    Value scaleV = e.splat(scale);
    Value hi = e.f32Splat(qmaxValue), lo = e.f32Splat(-qmaxValue);
    for (int64_t ch = 0; ch < C; ++ch) {
      Value q = inverse ? Value(arith::MulFOp::create(b, x[ch], inverse))
                        : Value(arith::DivFOp::create(b, x[ch], scaleV));
      q = arith::MaximumFOp::create(b, arith::MinimumFOp::create(b, q, hi), lo);
      Value codes = fp8 && useHardwareFp8 && E >= 2 ? hardwareFp8(b, q)
                                                    : e.fromF32(q, codeType);
      when(b, active, [&]() {
        vector::StoreOp::create(b, codes, c.codes, ValueRange{g, offset[ch]},
                                /*nontemporal=*/false, llvm::Align(E));
      });
    }
  });
}
