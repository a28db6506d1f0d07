//===- MmaScoreKernel.cpp - indexpool.score on the tensor cores -----------===//
//
// logits[m, n] with mma.sync m16n8k16 (bf16 A and B, f32 accumulators;
// nvvm.mma.sync, since nvgpu.mma.sync does not lower bf16 in MLIR 22):
// per warp a tile of 8 key rows (the MMA's N) against all H heads (A: 16-row
// tiles of the query's heads) in k-steps of 16 channels. Block (x, m) takes
// query row m; its warps take consecutive tiles, grid-stride over the key
// rows (one wave).
//
// A lane holds (PTX ISA fragment layouts, g = lane / 4, t = lane % 4):
// query rows (heads) g and g + 8 of each head tile, channels 2t, 2t + 1,
// 2t + 8, 2t + 9 of the k-step, read from global memory (L1); key row g of
// the tile at the same channels, FP8 decoded to bf16 by the software decoder
// (exact: every e4m3 value is a bf16 value); and the accumulators of heads
// g, g + 8 x key rows 2t, 2t + 1. The epilogue (scale, ReLU, head weight)
// sums the lane's heads, then the 8 lanes of the same t by xor shuffles
// (4, 8, 16); lanes 0..3 store two logits each. Key rows beyond N read row
// N - 1 and are not stored.
//
// Sums are in another order than the CPU's (in-MMA k order, then heads by
// lanes), so the logits differ from the CPU's in the last bits: opt-in
// (--indexpool-to-gpu-kernels tensor-cores).
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"

#include "Common/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

// The MMA's shape: M (heads) x N (key rows) x K (channels).
static constexpr int64_t kTileM = 16, kTileN = 8, kTileK = 16;
// Accumulators: 4 f32 registers per head tile.
static constexpr int64_t kMaxHeads = 128;

bool mlir::indexpool::gpukernels::canScoreMma(MemRefType query,
                                              MemRefType keys,
                                              int computeCapability) {
  int64_t h = query.getDimSize(1), d = query.getDimSize(2);
  Type key = keys.getElementType();
  return computeCapability >= 80 && query.getElementType().isBF16() &&
         (isa<Float8E4M3FNType>(key) || key.isBF16()) &&
         !ShapedType::isDynamic(h) && !ShapedType::isDynamic(d) &&
         keys.getDimSize(1) == d && h > 0 && h <= kMaxHeads &&
         h % kTileM == 0 && d > 0 && d % kTileK == 0;
}

/// Two bf16 values of `memref` at `indices` (the last one even).
static Value loadPair(ImplicitLocOpBuilder &b, Value memref,
                      ValueRange indices) {
  auto pair = VectorType::get({2}, b.getBF16Type());
  return vector::LoadOp::create(b, pair, memref, indices,
                                /*nontemporal=*/false, llvm::Align(4));
}

/// Two f32 values that are bf16 values, as bf16 (their top halves).
static Value truncExact(ImplicitLocOpBuilder &b, Value v) {
  auto i32s = VectorType::get({2}, b.getI32Type());
  auto i16s = VectorType::get({2}, b.getI16Type());
  Value bits = arith::BitcastOp::create(b, i32s, v);
  Value shift = arith::ConstantOp::create(
      b, DenseElementsAttr::get(i32s, b.getI32IntegerAttr(16)));
  Value high =
      arith::TruncIOp::create(b, i16s, arith::ShRUIOp::create(b, bits, shift));
  return arith::BitcastOp::create(b, VectorType::get({2}, b.getBF16Type()),
                                  high);
}

/// A pair of bf16 as the 32-bit register mma.sync takes (element 0 in the
/// low half).
static Value packed(ImplicitLocOpBuilder &b, Value pair) {
  Value word = vector::BitCastOp::create(
      b, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, word, 0);
}

void mlir::indexpool::gpukernels::emitMmaScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value keys,
    Value scales, Value logits, const KernelLaunch &launch) {
  auto queryType = cast<MemRefType>(query.getType());
  auto keysType = cast<MemRefType>(keys.getType());
  const int64_t H = queryType.getDimSize(1), D = queryType.getDimSize(2);
  const int64_t headTiles = H / kTileM;
  const bool bf16Keys = keysType.getElementType().isBF16();
  Emitter e(b, 2, /*stackScopes=*/false);
  const int64_t threadsPerBlock = launch.threadsPerBlock;
  const int64_t warps = threadsPerBlock / kWarpSize;
  Type f32 = b.getF32Type();
  auto accType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  {f32, f32, f32, f32});

  // A block's tile: 8 key rows per warp.
  const int64_t rowsPerTile = warps * kTileN;
  Value dimN = e.dim(keys, 0);
  Value tiles = arith::CeilDivUIOp::create(b, dimN, e.index(rowsPerTile));
  const bool gridStride = launch.gridStride.value_or(true);
  Value grid = gridSize(b, tiles, gridStride,
                        launch.blocksPerSM(threadsPerBlock));
  launchKernel(b, grid, e.dim(query, 0), threadsPerBlock, {},
               [&](const KernelIds &ids) {
    Value m = ids.blockY;
    Value lane = arith::RemUIOp::create(b, ids.thread, e.index(kWarpSize));
    Value warp = arith::DivUIOp::create(b, ids.thread, e.index(kWarpSize));
    Value g = arith::DivUIOp::create(b, lane, e.index(4));
    Value t = arith::RemUIOp::create(b, lane, e.index(4));
    Value twoT = e.mul(t, e.index(2));
    Value last = arith::SubIOp::create(b, dimN, e.index(1));
    forEachTile(b, ids.block, grid, tiles, gridStride, [&](Value tile) {
      Value first = e.add(e.mul(tile, e.index(rowsPerTile)),
                          e.mul(warp, e.index(kTileN)));
      // This lane's key row of the B fragment; rows beyond N read the last.
      Value row = arith::MinUIOp::create(b, e.add(first, g), last);
      // The accumulators, 4 per head tile ([r][j]: head g + 8 r, key row
      // 2t + j).
      SmallVector<Value> zeros(4 * headTiles, e.f32(0.0));
      SmallVector<Value> acc = e.forLoop(
          e.index(0), e.index(D), e.index(kTileK), zeros,
          [&](Value k0, ValueRange accs) -> SmallVector<Value> {
            Value d0 = e.add(k0, twoT);
            Value d1 = e.add(d0, e.index(8));
            auto keyPair = [&](Value d) {
              if (bf16Keys)
                return packed(b, loadPair(b, keys, {row, d}));
              return packed(b,
                            truncExact(b, e.loadF32(keys, {row, d}, nullptr)));
            };
            SmallVector<Value> bFrag{keyPair(d0), keyPair(d1)};
            SmallVector<Value> next;
            for (int64_t ht = 0; ht < headTiles; ++ht) {
              Value h0 = e.add(e.index(ht * kTileM), g);
              Value h1 = e.add(h0, e.index(8));
              SmallVector<Value> aFrag{
                  packed(b, loadPair(b, query, {m, h0, d0})),
                  packed(b, loadPair(b, query, {m, h1, d0})),
                  packed(b, loadPair(b, query, {m, h0, d1})),
                  packed(b, loadPair(b, query, {m, h1, d1}))};
              auto mma = NVVM::MmaOp::create(
                  b, accType, aFrag, bFrag, accs.slice(4 * ht, 4),
                  ArrayRef<int64_t>{kTileM, kTileN, kTileK},
                  /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
                  std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                                NVVM::MMATypes::bf16},
                  std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                 NVVM::MMALayout::col});
              for (int64_t i = 0; i < 4; ++i)
                next.push_back(LLVM::ExtractValueOp::create(b, mma, i));
            }
            return next;
          });

      // Key rows 2t and 2t + 1 of the tile: the lane's heads, then the
      // warp's (lanes of the same t).
      for (int64_t j = 0; j < 2; ++j) {
        Value n = e.add(first, e.add(twoT, e.index(j)));
        Value scale;
        if (scales)
          scale = e.loadScalarF32(scales, {arith::MinUIOp::create(b, n, last)});
        Value sum = e.f32(0.0);
        for (int64_t ht = 0; ht < headTiles; ++ht)
          for (int64_t r = 0; r < 2; ++r) {
            Value v = acc[4 * ht + 2 * r + j];
            if (scale)
              v = arith::MulFOp::create(b, scale, v);
            Value relu = arith::MaximumFOp::create(b, v, e.f32(0.0));
            Value h = e.add(e.index(ht * kTileM + 8 * r), g);
            Value w = e.loadScalarF32(weights, {m, h});
            sum = math::FmaOp::create(b, w, relu, sum);
          }
        for (int64_t mask : {4, 8, 16})
          sum = arith::AddFOp::create(b, sum, shuffleXor(b, sum, mask));
        Value store = arith::AndIOp::create(
            b,
            arith::CmpIOp::create(b, arith::CmpIPredicate::eq, g, e.index(0)),
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, n, dimN));
        e.ifThen(store, [&]() {
          memref::StoreOp::create(b, sum, logits, ValueRange{m, n});
        });
      }
    });
  });
}
