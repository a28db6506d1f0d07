//===- MmaScoreKernel.cpp - indexpool.score on the tensor cores -----------===//
//
// logits[m, n] with mma.sync m16n8k16 (bf16 A and B, f32 accumulators;
// nvvm.mma.sync, since nvgpu.mma.sync does not lower bf16 in MLIR 22):
// per warp up to 4 tiles of 8 key rows (the MMA's N: each query fragment
// loaded serves them all) against all H heads of a tile
// of query rows (A: 16-row tiles of the heads) in k-steps of 16 channels.
// Block (x, y) takes query tile y; its warps take consecutive key tiles,
// grid-stride over the key rows (one wave). Each key fragment is loaded and
// decoded once per k-step and used by every query row of the tile, so the
// keys are read ceil(M / tile) times instead of M times.
//
// The dot products' channel order is free (the MMA sums in its own order
// anyway), so the MMA's k index is permuted to make each lane's channels
// contiguous: with S = D / 16 steps, lane t = lane % 4 takes channels
// [4 S t, 4 S t + 4 S), in k-step s the four at 4 S t + 4 s: one load of
// the launch's vector_bytes (16 by default: 4 k-steps of FP8, 2 of bf16,
// fewer where S does not divide) for several k-steps, and the query's
// channels of those steps per head row in one load. A lane holds (PTX ISA fragment layouts, g = lane / 4): query
// rows (heads) g and g + 8 of each head tile; key row g of the tile; the
// accumulators of heads g, g + 8 x key rows 2t, 2t + 1. FP8 keys become
// bf16 exactly (every e4m3 value is a bf16 value): cvt.rn.f16x2.e4m3x2 and
// integer moves of the exponent on sm_89+, the software decoder before.
// The epilogue (scale, ReLU, head weight) sums the lane's heads, then the 8
// lanes of the same t by xor shuffles (4, 8, 16); lanes 0..3 store two
// logits each. Key rows beyond N read row N - 1 and are not stored; query
// rows beyond M are skipped (a branch uniform over the block).
//
// Sums are in another order than the CPU's (in-MMA k order, then heads by
// lanes), so the logits differ from the CPU's in the last bits: opt-in
// (--indexpool-to-gpu-kernels tensor-cores).
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"

#include "Common/Emitter.h"
#include "Common/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

// The MMA's shape: M (heads) x N (key rows) x K (channels): K = 16 on
// bf16, 32 on e4m3.
static constexpr int64_t kTileM = 16, kTileN = 8, kTileK = 16;
static constexpr int64_t kTileKFp8 = 32;
// mma.sync m16n8k32 on e4m3 (nvvm.mma.sync has no e4m3 in MLIR 22; LLVM
// selects the intrinsic from PTX ISA 8.4 on sm_89+).
static constexpr llvm::StringLiteral kFp8Mma =
    "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32";
// Accumulators: 4 f32 registers per head tile.
static constexpr int64_t kMaxHeads = 128;
// Query rows x heads a warp accumulates at once: 32 f32 registers (at 64,
// ptxas spills on sm_80 and sm_90 under the launch's register cap).
static constexpr int64_t kMaxAccumulatorRows = 128;
// Threads per block at most (registers, below).
static constexpr int64_t kMaxThreads = 256;
// Key tiles per warp at most (registers for their B fragments).
static constexpr int64_t kMaxKeyTilesPerWarp = 4;

bool mlir::indexpool::gpukernels::canScoreMma(MemRefType query,
                                              MemRefType keys,
                                              int computeCapability) {
  int64_t h = query.getDimSize(1), d = query.getDimSize(2);
  Type key = keys.getElementType();
  bool fp8Query = isa<Float8E4M3FNType>(query.getElementType());
  bool types = fp8Query ? computeCapability >= 89 &&
                              isa<Float8E4M3FNType>(key)
                        : computeCapability >= 80 &&
                              query.getElementType().isBF16() &&
                              (isa<Float8E4M3FNType>(key) || key.isBF16());
  return types && !ShapedType::isDynamic(h) && !ShapedType::isDynamic(d) &&
         keys.getDimSize(1) == d && h > 0 && h <= kMaxHeads &&
         h % kTileM == 0 && d > 0 && d % (fp8Query ? kTileKFp8 : kTileK) == 0;
}

int64_t mlir::indexpool::gpukernels::mmaQueryTileRows(MemRefType query) {
  int64_t rows = std::max<int64_t>(1, kMaxAccumulatorRows /
                                          query.getDimSize(1));
  int64_t m = query.getDimSize(0);
  if (!ShapedType::isDynamic(m) && m > 0)
    rows = std::min(rows, m);
  return rows;
}

/// The 32-bit registers of a vector of 16- or 8-bit values (the lowest
/// element in the lowest bits, as mma.sync takes them).
static SmallVector<Value> words(ImplicitLocOpBuilder &b, Value v) {
  auto type = cast<VectorType>(v.getType());
  int64_t n = type.getNumElements() * type.getElementTypeBitWidth() / 32;
  if (!type.getElementType().isIntOrIndex() &&
      type.getElementTypeBitWidth() == 8)
    v = arith::BitcastOp::create(
        b, VectorType::get(type.getShape(), b.getI8Type()), v);
  Value packed =
      vector::BitCastOp::create(b, VectorType::get({n}, b.getI32Type()), v);
  SmallVector<Value> result;
  for (int64_t i = 0; i < n; ++i)
    result.push_back(vector::ExtractOp::create(b, packed, i));
  return result;
}

/// f32 values that are bf16 values, as bf16 (their top halves).
static Value truncExact(ImplicitLocOpBuilder &b, Value v) {
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
static Value hardwareFp8ToBf16(ImplicitLocOpBuilder &b, Value codes) {
  auto halves = VectorType::get({2}, b.getF16Type());
  Value f16 = NVVM::ConvertF8x2ToF16x2Op::create(
      b, halves, codes, /*relu=*/false, b.getType<Float8E4M3FNType>());
  Value f32 = arith::ExtFOp::create(b, VectorType::get({2}, b.getF32Type()),
                                    f16);
  return arith::BitcastOp::create(b, VectorType::get({2}, b.getI16Type()),
                                  truncExact(b, f32));
}

/// The B fragments of `units` k-steps of key row `row`, channels
/// [c, c + n): two registers per k-step, from one load of the row's stored
/// elements (page bytes read as `keys.codeType`); zeros for a row that is
/// not there.
static SmallVector<Value> keyFragments(ImplicitLocOpBuilder &b, Emitter &e,
                                       const MmaKeys &keys,
                                       const MmaKeyRow &row, Value c,
                                       int64_t units, bool hardwareFp8,
                                       bool fp8Mma) {
  Type element = keys.codeType;
  const int64_t n = (fp8Mma ? 8 : 4) * units;
  const int64_t bytes = n * (element.isBF16() ? 2 : 1);
  auto load = [&]() -> Value {
    Type stored = cast<MemRefType>(row.memref.getType()).getElementType();
    SmallVector<Value> indices(row.lead);
    indices.push_back(e.add(row.offset, c));
    Value raw = vector::LoadOp::create(
        b, VectorType::get({n}, stored), row.memref, indices,
        /*nontemporal=*/false,
        llvm::Align(std::min<int64_t>({bytes, 16, keys.alignBytes})));
    if (stored != element)
      raw = arith::BitcastOp::create(b, VectorType::get({n}, element), raw);
    return raw;
  };
  auto fragments = [&]() -> SmallVector<Value> {
    // e4m3 codes as they are for the FP8 MMA.
    if (element.isBF16() || fp8Mma)
      return words(b, load());
    if (!hardwareFp8)
      return words(b, truncExact(b, e.toF32(load())));
    Value codes =
        arith::BitcastOp::create(b, VectorType::get({n}, b.getI8Type()), load());
    SmallVector<Value> result;
    for (int64_t pair = 0; pair < n / 2; ++pair) {
      Value two = vector::ShuffleOp::create(
          b, codes, codes, ArrayRef<int64_t>{2 * pair, 2 * pair + 1});
      Value word = vector::BitCastOp::create(
          b, VectorType::get({1}, b.getI32Type()), hardwareFp8ToBf16(b, two));
      result.push_back(vector::ExtractOp::create(b, word, 0));
    }
    return result;
  };
  if (!row.present)
    return fragments();
  SmallVector<Value> zeros(2 * units, e.i32(0));
  return e.ifThen(row.present, zeros, fragments);
}

/// k-steps per key load: as many as `vectorBytes` of the lane's channels
/// hold (16 when the launch does not say; at most 8 for FP8 keys decoded in
/// software, whose f32 values would otherwise make ptxas spill on sm_86), a
/// power of two dividing the steps.
static int64_t stepsPerLoad(Type keyElement, int64_t steps,
                            int64_t vectorBytes, bool fp8Mma,
                            bool hardwareFp8) {
  int64_t bytesPerStep = keyElement.isBF16() || fp8Mma ? 8 : 4;
  int64_t bytes = vectorBytes > 0 ? vectorBytes : 16;
  if (!keyElement.isBF16() && !fp8Mma && !hardwareFp8)
    bytes = std::min<int64_t>(bytes, 8);
  int64_t units = std::max<int64_t>(1, bytes / bytesPerStep);
  while (units > 1 && steps % units != 0)
    units /= 2;
  return units;
}

void mlir::indexpool::gpukernels::emitMmaScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value logits,
    const MmaKeys &keys, const KernelLaunch &launch, bool hardwareFp8) {
  auto queryType = cast<MemRefType>(query.getType());
  const int64_t H = queryType.getDimSize(1), D = queryType.getDimSize(2);
  // FP8 query (and keys): m16n8k32 on e4m3, 8 channels per lane and step.
  const bool fp8Mma = isa<Float8E4M3FNType>(queryType.getElementType());
  const int64_t tileK = fp8Mma ? kTileKFp8 : kTileK;
  const int64_t laneStep = tileK / 4;
  const int64_t headTiles = H / kTileM, steps = D / tileK;
  // Rows that depend on the query row (pages, candidates): one per block.
  const int64_t queryRows = keys.perQuery ? 1 : mmaQueryTileRows(queryType);
  // Key tiles of 8 rows per warp: each query fragment loaded serves that
  // many MMAs, within the same accumulator budget as the query tile.
  const int64_t keyTiles = std::clamp<int64_t>(
      kMaxAccumulatorRows / (queryRows * H), 1, kMaxKeyTilesPerWarp);
  const int64_t units = stepsPerLoad(keys.codeType, steps,
                                    launch.vectorBytes, fp8Mma, hardwareFp8);
  Emitter e(b, 4, /*stackScopes=*/false);
  // The software decoder's width: the channels of one key load.
  Emitter eLoad(b, laneStep * units, /*stackScopes=*/false);
  // Up to 256 threads: ptxas may then use up to 255 registers (at 512 it
  // caps them at 128 and spilled at M = 64); at the 80-130 registers this
  // kernel takes, two blocks of 256 hold as many warps as one of 512.
  const int64_t threadsPerBlock =
      std::min(launch.threadsPerBlock, kMaxThreads);
  const int64_t warps = threadsPerBlock / kWarpSize;
  Type f32 = b.getF32Type();
  auto accType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  {f32, f32, f32, f32});
  // The query channels of one key load, per head row.
  auto queryUnit =
      VectorType::get({laneStep * units}, queryType.getElementType());
  const int64_t queryUnitBytes =
      laneStep * units * queryType.getElementTypeBitWidth() / 8;

  // A block's tile: 8 key rows per warp and key tile.
  const int64_t warpRows = kTileN * keyTiles;
  const int64_t rowsPerTile = warps * warpRows;
  Value count = keys.count(e), dimM = e.dim(query, 0);
  Value tiles = arith::CeilDivUIOp::create(b, count, e.index(rowsPerTile));
  const bool gridStride = launch.gridStride.value_or(true);
  Value grid = gridSize(b, tiles, gridStride,
                        launch.blocksPerSM(threadsPerBlock));
  Value queryTiles = arith::CeilDivUIOp::create(b, dimM, e.index(queryRows));
  launchKernel(b, grid, queryTiles, threadsPerBlock, {},
               [&](const KernelIds &ids) {
    Value firstQuery = e.mul(ids.blockY, e.index(queryRows));
    // Query row firstQuery + q exists (the same for every thread).
    auto present = [&](int64_t q) {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                   e.add(firstQuery, e.index(q)), dimM);
    };
    // The rows scored: all, or (one query row per block) the first
    // rowLength(m), whose tiles alone are visited.
    Value dimN = count;
    if (keys.rowLength) {
      assert(keys.perQuery && "a row length needs one query row per block");
      dimN = arith::MinUIOp::create(b, count, keys.rowLength(e, firstQuery));
    }
    Value blockTiles =
        arith::CeilDivUIOp::create(b, dimN, e.index(rowsPerTile));
    Value lane = arith::RemUIOp::create(b, ids.thread, e.index(kWarpSize));
    Value warp = arith::DivUIOp::create(b, ids.thread, e.index(kWarpSize));
    Value g = arith::DivUIOp::create(b, lane, e.index(4));
    Value t = arith::RemUIOp::create(b, lane, e.index(4));
    Value twoT = e.mul(t, e.index(2));
    // The lane's channels: [(K / 4) S t, (K / 4) S (t + 1)).
    Value laneChannels = e.mul(t, e.index(laneStep * steps));
    Value last = arith::SubIOp::create(b, dimN, e.index(1));
    forEachTile(b, ids.block, grid, blockTiles, gridStride, [&](Value tile) {
      Value warpFirst = e.add(e.mul(tile, e.index(rowsPerTile)),
                              e.mul(warp, e.index(warpRows)));
      // Key tile nt: rows [tileFirst(nt), + 8).
      auto tileFirst = [&](int64_t nt) {
        return e.add(warpFirst, e.index(kTileN * nt));
      };
      // This lane's key row of each B fragment; rows beyond N read the last.
      SmallVector<MmaKeyRow> bRows;
      for (int64_t nt = 0; nt < keyTiles; ++nt)
        bRows.push_back(keys.row(
            e, firstQuery,
            arith::MinUIOp::create(b, e.add(tileFirst(nt), g), last)));
      // The accumulators, 4 per query row, head tile and key tile
      // ([q][ht][nt][r][j]: query row q, head g + 8 r, key row 2t + j of
      // key tile nt).
      const int64_t perHeadTile = 4 * keyTiles;
      const int64_t perQuery = perHeadTile * headTiles;
      SmallVector<Value> zeros(queryRows * perQuery, e.f32(0.0));
      SmallVector<Value> acc = e.forLoop(
          e.index(0), e.index(steps / units), e.index(1), zeros,
          [&](Value su, ValueRange accs) -> SmallVector<Value> {
            Value c =
                e.add(laneChannels, e.mul(su, e.index(laneStep * units)));
            SmallVector<SmallVector<Value>> bWords;
            for (int64_t nt = 0; nt < keyTiles; ++nt)
              bWords.push_back(keyFragments(b, eLoad, keys, bRows[nt], c,
                                            units, hardwareFp8, fp8Mma));
            SmallVector<Value> next;
            for (int64_t q = 0; q < queryRows; ++q) {
              ValueRange mine = accs.slice(q * perQuery, perQuery);
              auto mmas = [&]() {
                Value m = e.add(firstQuery, e.index(q));
                SmallVector<Value> out;
                for (int64_t ht = 0; ht < headTiles; ++ht) {
                  Value h0 = e.add(e.index(ht * kTileM), g);
                  Value h1 = e.add(h0, e.index(8));
                  auto load = [&](Value h) {
                    return words(b, vector::LoadOp::create(
                                        b, queryUnit, query,
                                        ValueRange{m, h, c},
                                        /*nontemporal=*/false,
                                        llvm::Align(std::min<int64_t>(
                                            queryUnitBytes, 16))));
                  };
                  SmallVector<Value> r0 = load(h0), r1 = load(h1);
                  for (int64_t nt = 0; nt < keyTiles; ++nt) {
                  SmallVector<Value> d(
                      mine.slice(perHeadTile * ht + 4 * nt, 4));
                  for (int64_t u = 0; u < units; ++u) {
                    SmallVector<Value> aFrag{r0[2 * u], r1[2 * u],
                                             r0[2 * u + 1], r1[2 * u + 1]};
                    SmallVector<Value> bFrag{bWords[nt][2 * u],
                                             bWords[nt][2 * u + 1]};
                    Value mma;
                    if (fp8Mma) {
                      SmallVector<Value> operands(aFrag);
                      operands.append(bFrag);
                      operands.append(d);
                      mma = LLVM::CallIntrinsicOp::create(
                                b, accType, b.getStringAttr(kFp8Mma),
                                operands)
                                .getResult(0);
                    } else {
                      mma = NVVM::MmaOp::create(
                          b, accType, aFrag, bFrag, d,
                          ArrayRef<int64_t>{kTileM, kTileN, kTileK},
                          /*b1Op=*/std::nullopt,
                          /*intOverflow=*/std::nullopt,
                          std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                                        NVVM::MMATypes::bf16},
                          std::array<NVVM::MMALayout, 2>{
                              NVVM::MMALayout::row, NVVM::MMALayout::col});
                    }
                    for (int64_t i = 0; i < 4; ++i)
                      d[i] = LLVM::ExtractValueOp::create(b, mma, i);
                  }
                  out.append(d.begin(), d.end());
                  }
                }
                return out;
              };
              // Query row 0 of a tile always exists.
              SmallVector<Value> updated =
                  q == 0 ? mmas() : e.ifThen(present(q), mine, mmas);
              next.append(updated.begin(), updated.end());
            }
            return next;
          });

      // Key rows 2t and 2t + 1 of each key tile (their scales; a row that
      // is not there is NaN), then per query row the lane's heads and the
      // warp's (lanes of the same t).
      SmallVector<Value> outN;
      SmallVector<MmaKeyRow> outRows;
      for (int64_t nt = 0; nt < keyTiles; ++nt)
        for (int64_t j = 0; j < 2; ++j) {
          Value n = e.add(tileFirst(nt), e.add(twoT, e.index(j)));
          outN.push_back(n);
          outRows.push_back(
              keys.row(e, firstQuery, arith::MinUIOp::create(b, n, last)));
        }
      for (int64_t q = 0; q < queryRows; ++q) {
        auto epilogue = [&]() {
          Value m = e.add(firstQuery, e.index(q));
          for (int64_t nt = 0; nt < keyTiles; ++nt)
          for (int64_t j = 0; j < 2; ++j) {
            Value n = outN[2 * nt + j];
            const MmaKeyRow &row = outRows[2 * nt + j];
            Value sum = e.f32(0.0);
            for (int64_t ht = 0; ht < headTiles; ++ht)
              for (int64_t r = 0; r < 2; ++r) {
                Value v = acc[q * perQuery + perHeadTile * ht + 4 * nt +
                              2 * r + j];
                if (row.scale)
                  v = arith::MulFOp::create(b, row.scale, v);
                Value relu = arith::MaximumFOp::create(b, v, e.f32(0.0));
                Value h = e.add(e.index(ht * kTileM + 8 * r), g);
                Value w = e.loadScalarF32(weights, {m, h});
                sum = math::FmaOp::create(b, w, relu, sum);
              }
            for (int64_t mask : {4, 8, 16})
              sum = arith::AddFOp::create(b, sum, shuffleXor(b, sum, mask));
            if (row.present)
              sum = arith::SelectOp::create(
                  b, row.present, sum,
                  e.f32(std::numeric_limits<double>::quiet_NaN()));
            Value store = arith::AndIOp::create(
                b,
                arith::CmpIOp::create(b, arith::CmpIPredicate::eq, g,
                                      e.index(0)),
                arith::CmpIOp::create(b, arith::CmpIPredicate::ult, n, dimN));
            e.ifThen(store, [&]() {
              memref::StoreOp::create(b, sum, logits, ValueRange{m, n});
            });
          }
        };
        if (q == 0)
          epilogue();
        else
          e.ifThen(present(q), epilogue);
      }
    });
  });
}

/// The alignment of rows of `d` elements of `elementBytes` from a 16-byte
/// aligned base: the largest power of two dividing the row's bytes, <= 16.
static int64_t rowAlignment(int64_t bytes) {
  int64_t align = 16;
  while (align > 1 && bytes % align != 0)
    align /= 2;
  return align;
}

/// The key rows of a [N, D] buffer, without their row mapping.
static MmaKeys denseRows(Value keys) {
  auto type = cast<MemRefType>(keys.getType());
  MmaKeys source;
  source.codeType = type.getElementType();
  source.alignBytes =
      rowAlignment(type.getDimSize(1) * type.getElementTypeBitWidth() / 8);
  return source;
}

void mlir::indexpool::gpukernels::emitMmaScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value keys,
    Value scales, Value logits, const KernelLaunch &launch,
    bool hardwareFp8) {
  MmaKeys source = denseRows(keys);
  source.count = [&](Emitter &e) { return e.dim(keys, 0); };
  source.row = [&](Emitter &e, Value, Value n) {
    MmaKeyRow row{keys, {n}, e.index(0), Value(), Value()};
    if (scales)
      row.scale = e.loadScalarF32(scales, {n});
    return row;
  };
  emitMmaScoreKernel(b, query, weights, logits, source, launch, hardwareFp8);
}

void mlir::indexpool::gpukernels::emitMmaRefineScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value candidates,
    Value keys, Value scales, Value logits, const KernelLaunch &launch,
    bool hardwareFp8) {
  MmaKeys source = denseRows(keys);
  source.perQuery = true;
  source.count = [&](Emitter &e) { return e.dim(candidates, 1); };
  // Column c of row m is key row candidates[m, c] when that is a row; it
  // and its scale are read only then.
  source.row = [&](Emitter &e, Value m, Value c) {
    ImplicitLocOpBuilder &kb = e.builder();
    Value id = memref::LoadOp::create(kb, candidates, ValueRange{m, c});
    MmaKeyRow row;
    row.present = loops::emitIsKeyRow(e, id, keys);
    Value n = arith::SelectOp::create(
        kb, row.present, arith::IndexCastOp::create(kb, kb.getIndexType(), id),
        e.index(0));
    row.memref = keys;
    row.lead = {n};
    row.offset = e.index(0);
    if (scales)
      row.scale =
          e.ifThen(row.present, {e.f32(0.0)}, [&]() -> SmallVector<Value> {
             return {e.loadScalarF32(scales, {n})};
           }).front();
    return row;
  };
  emitMmaScoreKernel(b, query, weights, logits, source, launch, hardwareFp8);
}
