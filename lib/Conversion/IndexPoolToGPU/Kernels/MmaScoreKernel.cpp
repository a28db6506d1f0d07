//===- MmaScoreKernel.cpp - indexpool.score on the tensor cores -----------===//
//
// logits[m, n] with mma.sync m16n8k16 (bf16 A and B, f32 accumulators;
// nvvm.mma.sync, since nvgpu.mma.sync does not lower bf16 in MLIR 22), or
// m16n8k32 on e4m3 for an FP8 query. The keys are the A operand (16 key
// rows per tile, the MMA's M), the query the B operand (8 heads per head
// tile, the MMA's N), the channels k.
//
// Each warp takes up to 4 key tiles and loads and decodes their A
// fragments ONCE, into registers, for every query row: then per query row
// and head tile one 16-byte query load serves the MMAs of all its key
// tiles, and the epilogue (scale, ReLU, head weight, the lane's part of the
// sum over heads) runs per head tile, so 4 accumulators per key tile
// suffice whatever M and H are. The keys are read from memory once for all
// query rows. A block's warps take consecutive key tiles, grid-stride over
// the key rows (one wave), and score every query row in turn; rows that
// depend on the query row (pages, candidates: MmaKeys::perQuery) take one
// query row per block (grid y).
//
// The dot products' channel order is free (the MMA sums in its own order
// anyway), so the MMA's k index is permuted to make each lane's channels
// contiguous: with S k-steps, lane t = lane % 4 takes channels
// [(K / 4) S t, (K / 4) S (t + 1)), in step s the K / 4 at (K / 4)(S t + s):
// one key load of the launch's vector_bytes (16 by default: 4 k-steps of
// FP8 decoded to bf16, 2 of bf16) for several steps, one query load for
// two. A lane holds (PTX ISA fragment layouts, g = lane / 4): key rows g
// and g + 8 of each key tile (A: {row g, row g + 8} x {first, second half
// of its step channels}, in that register order); head g of each head
// tile (B: its step channels, as loaded); the accumulators of key rows
// g, g + 8 x heads 2t, 2t + 1. FP8 keys become bf16 exactly (every e4m3
// value is a bf16 value): cvt.rn.f16x2.e4m3x2 on sm_89+, the software
// decoder before. The lane sums its heads head tile by head tile, then the
// 4 lanes of the same g by xor shuffles (1, 2); lane t = 0 stores key row
// g's logits, t = 1 row g + 8's. Key rows beyond N read row N - 1 and are
// not stored.
//
// Every logit goes through the same operations in the same order whatever
// M is and wherever its rows are, so refine over every token equals
// topk(score) bit for bit; sums are in another order than the CPU's
// (in-MMA k order, then heads by lanes): the logits differ from the CPU's
// in the last bits.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"
#include "MmaScoreParts.h"

#include "Common/Emitter.h"
#include "Common/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

// The MMA's shape: M (key rows) x N (heads) x K (channels): K = 16 on
// bf16, 32 on e4m3.
static constexpr int64_t kTileM = 16, kTileN = 8, kTileK = 16;
static constexpr int64_t kTileKFp8 = 32;
// mma.sync m16n8k32 on e4m3 (nvvm.mma.sync has no e4m3 in MLIR 22; LLVM
// selects the intrinsic from PTX ISA 8.4 on sm_89+).
static constexpr llvm::StringLiteral kFp8Mma =
    "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32";
static constexpr int64_t kMaxHeads = 128;
// A-fragment registers a lane holds for its key tiles (4 per k-step and
// tile): with the accumulators, sums and addresses 50-80 registers, three
// or four blocks of 256 threads per SM. Also the bound on D: one key tile's
// k-steps must fit (D <= 256 on bf16, 512 with an FP8 query).
static constexpr int64_t kKeyRegisters = 32;
// Threads per block at most (registers, above).
static constexpr int64_t kMaxThreads =
    ::indexpool::target::kMaxThreadsAtMaxRegisters;
static constexpr int64_t kMaxKeyTilesPerWarp = 4;

bool mlir::indexpool::gpukernels::scoresFp8QueryAsIs(MemRefType query,
                                                     Type keyElement,
                                                     const MmaChip &chip) {
  if (!isa<Float8E4M3FNType>(keyElement) || !chip.nativeFp8Mma())
    return false;
  // sm_90a's mma.sync is 9.0's: e4m3 natively only through wgmma.
  return chip.computeCapability != 90 || canScoreWgmma(query);
}

bool mlir::indexpool::gpukernels::canScoreMma(MemRefType query,
                                              MemRefType keys,
                                              const MmaChip &chip) {
  int64_t h = query.getDimSize(1), d = query.getDimSize(2);
  if (ShapedType::isDynamic(h) || ShapedType::isDynamic(d))
    return false;
  Type key = keys.getElementType();
  bool fp8Query = isa<Float8E4M3FNType>(query.getElementType());
  // An FP8 query the MMA takes as it is, or a bf16 one (an FP8 query
  // decoded once).
  bool fp8Mma = fp8Query && scoresFp8QueryAsIs(query, key, chip);
  bool types = chip.computeCapability >= 80 &&
               (fp8Mma || ((fp8Query || query.getElementType().isBF16()) &&
                           (isa<Float8E4M3FNType>(key) || key.isBF16())));
  return types && keys.getDimSize(1) == d && h > 0 && h <= kMaxHeads &&
         h % kTileM == 0 && d > 0 && d % (fp8Mma ? kTileKFp8 : kTileK) == 0 &&
         4 * (d / (fp8Mma ? kTileKFp8 : kTileK)) <= kKeyRegisters;
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

/// Key row `row`'s registers of `units` k-steps, channels [c, c + n): two
/// per k-step (the first and second half of the lane's channels of the
/// step, an A fragment's registers of this row), from one load of the
/// row's stored elements (page bytes read as `keys.codeType`); zeros for a
/// row that is not there.
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
    Value codes =
        arith::BitcastOp::create(b, VectorType::get({n}, b.getI8Type()), load());
    if (!hardwareFp8)
      return words(b, truncExact(b, softwareFp8ToF32(b, codes)));
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
/// software, whose f32 values took 86 registers at 16 on sm_80: two blocks
/// per SM instead of three), a power of two dividing the steps.
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

/// One MMA: d + a x b (m16n8k16 bf16, or m16n8k32 e4m3 with `fp8Mma`), f32
/// accumulators in and out (4 per lane).
static SmallVector<Value> mmaAccumulate(ImplicitLocOpBuilder &b, bool fp8Mma,
                                        ArrayRef<Value> a,
                                        ArrayRef<Value> bFrag,
                                        ArrayRef<Value> d) {
  Type f32 = b.getF32Type();
  auto accType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  {f32, f32, f32, f32});
  Value mma;
  if (fp8Mma) {
    SmallVector<Value> operands(a);
    operands.append(bFrag.begin(), bFrag.end());
    operands.append(d.begin(), d.end());
    mma = LLVM::CallIntrinsicOp::create(b, accType, b.getStringAttr(kFp8Mma),
                                        operands)
              .getResult(0);
  } else {
    mma = NVVM::MmaOp::create(
        b, accType, a, bFrag, d, ArrayRef<int64_t>{kTileM, kTileN, kTileK},
        /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
  }
  SmallVector<Value> result;
  for (int64_t i = 0; i < 4; ++i)
    result.push_back(LLVM::ExtractValueOp::create(b, mma, i));
  return result;
}

/// Key tiles (16 rows) per warp: as many as kKeyRegisters A registers
/// hold, at most kMaxKeyTilesPerWarp.
static int64_t keyTilesPerWarp(int64_t steps) {
  return std::clamp<int64_t>(kKeyRegisters / (4 * steps), 1,
                             kMaxKeyTilesPerWarp);
}

/// The FP8 e4m3 query [M, H, D] as bf16 in a new buffer (exact), one
/// thread per 8 channels: a kernel of its own, so that the score decodes
/// every query value once rather than once per key tile.
static Value decodeQueryToBf16(ImplicitLocOpBuilder &b, Value query,
                               const KernelLaunch &launch, bool hardwareFp8) {
  auto type = cast<MemRefType>(query.getType());
  const int64_t H = type.getDimSize(1), D = type.getDimSize(2);
  constexpr int64_t kChannels = 8;
  assert(D % kChannels == 0 && "the bf16 MMA's D is a multiple of 16");
  Emitter e(b, 1, /*stackScopes=*/false);
  Value dimM = e.dim(query, 0);
  Value decoded = memref::AllocOp::create(
      b, MemRefType::get({ShapedType::kDynamic, H, D}, b.getBF16Type()),
      ValueRange{dimM}, b.getI64IntegerAttr(64));
  const int64_t chunks = H * (D / kChannels);
  forEachItem(
      e, launch, [&]() { return e.mul(e.dim(query, 0), e.index(chunks)); },
      [&](Value item) {
        Value m = arith::DivUIOp::create(b, item, e.index(chunks));
        Value rest = arith::RemUIOp::create(b, item, e.index(chunks));
        Value h = arith::DivUIOp::create(b, rest, e.index(D / kChannels));
        Value c = e.mul(arith::RemUIOp::create(b, rest, e.index(D / kChannels)),
                        e.index(kChannels));
        Value codes = vector::LoadOp::create(
            b, VectorType::get({kChannels}, type.getElementType()), query,
            ValueRange{m, h, c}, /*nontemporal=*/false, llvm::Align(8));
        codes = arith::BitcastOp::create(
            b, VectorType::get({kChannels}, b.getI8Type()), codes);
        Value bf16 = arith::BitcastOp::create(
            b, VectorType::get({kChannels}, b.getBF16Type()),
            fp8ToBf16Bits(b, codes, hardwareFp8));
        vector::StoreOp::create(b, bf16, decoded, ValueRange{m, h, c},
                                /*nontemporal=*/false, llvm::Align(16));
      });
  return decoded;
}

void mlir::indexpool::gpukernels::emitMmaScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value logits,
    const MmaKeys &keys, const KernelLaunch &launch, const MmaChip &chip) {
  const bool hardwareFp8 = chip.hardwareFp8;
  if (isa<Float8E4M3FNType>(
          cast<MemRefType>(query.getType()).getElementType()) &&
      !scoresFp8QueryAsIs(cast<MemRefType>(query.getType()), keys.codeType,
                          chip))
    query = decodeQueryToBf16(b, query, launch, hardwareFp8);
  auto queryType = cast<MemRefType>(query.getType());
  if (chip.warpgroupMma && canScoreWgmma(queryType))
    return emitWgmmaScoreKernel(b, query, weights, logits, keys, launch,
                                hardwareFp8);
  const int64_t H = queryType.getDimSize(1), D = queryType.getDimSize(2);
  // FP8 query (and keys): m16n8k32 on e4m3, 8 channels per lane and step.
  const bool fp8Mma = isa<Float8E4M3FNType>(queryType.getElementType());
  const int64_t laneStep = (fp8Mma ? kTileKFp8 : kTileK) / 4;
  const int64_t headTiles = H / kTileN, steps = D / (4 * laneStep);
  // An FP8 query: one key tile (two spilled on sm_90 under ptxas's
  // 80-register target).
  const int64_t keyTiles = fp8Mma ? 1 : keyTilesPerWarp(steps);
  const int64_t units = stepsPerLoad(keys.codeType, steps,
                                    launch.vectorBytes, fp8Mma, hardwareFp8);
  // Query loads of 16 bytes (8 bytes per head and k-step) where the steps
  // pair up.
  const int64_t queryUnits = steps % 2 == 0 ? 2 : 1;
  auto queryUnit = VectorType::get({laneStep * queryUnits},
                                   queryType.getElementType());
  Emitter e(b, 4, /*stackScopes=*/false);
  // The key loads' index arithmetic, at their width.
  Emitter eLoad(b, laneStep * units, /*stackScopes=*/false);
  // Up to 256 threads: at 512 ptxas caps registers at 128; at the 50-80
  // registers this kernel takes, three or four blocks of 256 fit an SM.
  const int64_t threadsPerBlock =
      std::min(launch.threadsPerBlock, kMaxThreads);
  const int64_t warps = threadsPerBlock / kWarpSize;
  const int64_t warpRows = kTileM * keyTiles;
  const int64_t rowsPerTile = warps * warpRows;
  Value count = keys.count(e), dimM = e.dim(query, 0);
  Value tiles = arith::CeilDivUIOp::create(b, count, e.index(rowsPerTile));
  const bool gridStride = launch.gridStride.value_or(true);
  Value grid = gridSize(b, tiles, gridStride,
                        launch.blocksPerSM(threadsPerBlock));
  // Rows that depend on the query row (pages, candidates): grid y is the
  // query row; otherwise every block scores all query rows.
  Value gridY = keys.perQuery ? dimM : e.index(1);
  launchKernel(b, grid, gridY, threadsPerBlock, {}, [&](const KernelIds &ids) {
    // The rows scored: all, or (one query row per block) the first
    // rowLength(m), whose tiles alone are visited.
    Value dimN = count;
    if (keys.rowLength) {
      assert(keys.perQuery && "a row length needs one query row per block");
      dimN = arith::MinUIOp::create(b, count, keys.rowLength(e, ids.blockY));
    }
    Value blockTiles =
        arith::CeilDivUIOp::create(b, dimN, e.index(rowsPerTile));
    Value lane = arith::RemUIOp::create(b, ids.thread, e.index(kWarpSize));
    Value warp = arith::DivUIOp::create(b, ids.thread, e.index(kWarpSize));
    Value g = arith::DivUIOp::create(b, lane, e.index(4));
    Value t = arith::RemUIOp::create(b, lane, e.index(4));
    // The lane's channels: [(K / 4) S t, (K / 4) S (t + 1)).
    Value laneChannels = e.mul(t, e.index(laneStep * steps));
    Value last = arith::SubIOp::create(b, dimN, e.index(1));
    forEachTile(b, ids.block, grid, blockTiles, gridStride, [&](Value tile) {
      Value warpFirst = e.add(e.mul(tile, e.index(rowsPerTile)),
                              e.mul(warp, e.index(warpRows)));
      // This lane's key rows: g and g + 8 of each key tile (rows[2 nt + i]:
      // row g + 8 i of tile nt); rows beyond N read the last, not stored.
      SmallVector<Value> outN;
      SmallVector<MmaKeyRow> rows;
      for (int64_t nt = 0; nt < keyTiles; ++nt)
        for (int64_t i = 0; i < 2; ++i) {
          Value n = e.add(warpFirst, e.add(g, e.index(kTileM * nt + 8 * i)));
          outN.push_back(n);
          rows.push_back(
              keys.row(e, ids.blockY, arith::MinUIOp::create(b, n, last)));
        }
      // Every k-step's A fragment of each key tile, loaded and decoded once
      // for all query rows: a[nt][s] = {row g lo, row g + 8 lo, row g hi,
      // row g + 8 hi} (lo / hi: the lane's first / second half of the
      // step's channels).
      SmallVector<SmallVector<SmallVector<Value>>> a(keyTiles);
      for (int64_t nt = 0; nt < keyTiles; ++nt)
        for (int64_t su = 0; su < steps / units; ++su) {
          Value c = e.add(laneChannels, e.index(su * laneStep * units));
          SmallVector<Value> r0 = keyFragments(b, eLoad, keys, rows[2 * nt],
                                               c, units, hardwareFp8, fp8Mma);
          SmallVector<Value> r1 =
              keyFragments(b, eLoad, keys, rows[2 * nt + 1], c, units,
                           hardwareFp8, fp8Mma);
          for (int64_t u = 0; u < units; ++u)
            a[nt].push_back(
                {r0[2 * u], r1[2 * u], r0[2 * u + 1], r1[2 * u + 1]});
        }

      auto scoreRow = [&](Value m) {
        // sums[2 nt + i]: the lane's heads' part of logit (m, outN[...]).
        // The head tiles are a loop, kept rolled: unrolled (LLVM does,
        // fully at 2-4 tiles), ptxas hoists the next tiles' query loads
        // and spills under its 64-80 register target.
        SmallVector<Value> zeros(2 * keyTiles, e.f32(0.0));
        SmallVector<Value> sums = e.forLoop(
            e.index(0), e.index(headTiles), e.index(1), zeros,
            [&](Value ht, ValueRange partial) -> SmallVector<Value> {
          SmallVector<Value> next(partial);
          Value firstHead = e.mul(ht, e.index(kTileN));
          // B: head 8 ht + g's channels of each step, 16 bytes a load.
          Value head = e.add(firstHead, g);
          SmallVector<SmallVector<Value>> acc(
              keyTiles, SmallVector<Value>(4, e.f32(0.0)));
          for (int64_t qs = 0; qs < steps / queryUnits; ++qs) {
            Value c =
                e.add(laneChannels, e.index(qs * laneStep * queryUnits));
            SmallVector<Value> q = words(
                b, vector::LoadOp::create(b, queryUnit, query,
                                          ValueRange{m, head, c},
                                          /*nontemporal=*/false,
                                          llvm::Align(8 * queryUnits)));
            for (int64_t u = 0; u < queryUnits; ++u) {
              int64_t s = qs * queryUnits + u;
              for (int64_t nt = 0; nt < keyTiles; ++nt)
                acc[nt] = mmaAccumulate(b, fp8Mma, a[nt][s],
                                        {q[2 * u], q[2 * u + 1]}, acc[nt]);
            }
          }
          // acc[nt][2 i + j]: key row g + 8 i of tile nt, head 8 ht + 2t + j.
          std::array<Value, 2> w = headWeightPair(
              b, e, weights, m, e.add(firstHead, e.mul(t, e.index(2))));
          for (int64_t nt = 0; nt < keyTiles; ++nt)
            addHeadTile(b, e, acc[nt], w,
                        {rows[2 * nt].scale, rows[2 * nt + 1].scale},
                        MutableArrayRef<Value>(next).slice(2 * nt, 2));
          return next;
        });
        keepRolled(sums.front());
        for (int64_t r = 0; r < 2 * keyTiles; ++r)
          storeKeyRowLogit(b, e, sums[r], rows[r].present, outN[r],
                           r % 2, t, dimN, logits, m);
      };
      if (keys.perQuery)
        scoreRow(ids.blockY);
      else
        e.forLoop(e.index(0), dimM, scoreRow);
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
    const MmaChip &chip) {
  MmaKeys source = denseRows(keys);
  source.count = [&](Emitter &e) { return e.dim(keys, 0); };
  source.row = [&](Emitter &e, Value, Value n) {
    MmaKeyRow row{keys, {n}, e.index(0), Value(), Value()};
    if (scales)
      row.scale = e.loadScalarF32(scales, {n});
    return row;
  };
  emitMmaScoreKernel(b, query, weights, logits, source, launch, chip);
}

void mlir::indexpool::gpukernels::emitMmaRefineScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value candidates,
    Value keys, Value scales, Value logits, const KernelLaunch &launch,
    const MmaChip &chip) {
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
  emitMmaScoreKernel(b, query, weights, logits, source, launch, chip);
}
