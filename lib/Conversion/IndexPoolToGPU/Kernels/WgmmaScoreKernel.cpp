//===- WgmmaScoreKernel.cpp - indexpool.score on sm_90a's warpgroup MMA ---===//
//
// logits[m, n] with wgmma.mma_async (sm_90a only: sm_100's counterpart is
// tcgen05, and sm_100 / sm_120 keep mma.sync). A warpgroup (4 warps, 128
// threads) multiplies 64 key rows (the MMA's M) by the H heads of a query
// row (N = H) over D channels (K: 16 per instruction on bf16, 32 on e4m3),
// into H / 2 f32 accumulators per thread. Both operands are read from
// shared memory in the canonical K-major layout without swizzle: core
// matrices of 8 rows x 16 bytes (128 contiguous bytes), those of a row
// group side by side along K (leading byte offset 128), row groups
// 8 x rowBytes apart (stride byte offset). Where wgmma replaces a lane's
// 32 mma.sync and their fragment loads per 16 keys, it issues one
// instruction per 64 keys x H heads x K channels.
//
// A block of W warpgroups (2, or 1 where two would not fit 48 KiB of static
// shared memory) copies a tile of 64 W key rows into shared memory (FP8
// keys decoded to bf16 on the way for a bf16 query, as the mma.sync kernel
// decodes them) and the query row's H x D; each warpgroup then issues D / K
// MMAs on its 64 rows and waits for them. Each thread's accumulators are
// laid out as mma.sync's, per 8 heads (rows g and g + 8 of its warp's 16 x
// heads 2t, 2t + 1), so the epilogue is the mma.sync kernel's, in the same
// order (MmaScoreParts.h). The query row is copied once per block where the
// rows depend on the query row (refine, select_paged: one query row per
// block) or M = 1; otherwise once per tile and query row, the key tile
// staying in shared memory for every query row.
//
// Shared-memory stores are generic-proxy writes and wgmma reads through the
// async proxy: every thread fences (fence.proxy.async.shared::cta) before
// the barrier that publishes its writes.
//
// Every score of a compilation for sm_90a (score, refine, select_paged)
// takes this kernel for a given query type and shape, so refine over every
// token still equals topk(score) bit for bit.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"
#include "MmaScoreParts.h"

#include "Common/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

// wgmma's M and the threads that issue it.
static constexpr int64_t kGroupRows = 64, kGroupThreads = 128;
// A core matrix: 8 rows of 16 bytes.
static constexpr int64_t kChunk = 16, kCoreBytes = 8 * kChunk;
// Warpgroups per block at most: 256 threads, as the mma.sync kernel.
static constexpr int64_t kMaxGroups = 2;
static constexpr int64_t kStaticSharedBytes =
    ::indexpool::target::kMaxStaticSharedBytes;
// What the driver reserves of an SM's shared memory per block.
static constexpr int64_t kReservedPerBlock = 1024;
// Registers per thread as ptxas allocates them for this kernel (76-79 at
// the benchmark shapes, in units of 8): with the chip's shared memory and
// registers per SM (KernelLaunch), the grid-stride wave is the blocks that
// fit, so that no block waits for a second wave.
static constexpr int64_t kRegistersPerThread = 80;

namespace {
/// The shared-memory tiles of a launch.
struct WgmmaTiles {
  int64_t elementBytes; ///< of both operands: 2 (bf16) or 1 (e4m3)
  int64_t kPerMma;      ///< channels per instruction: 16 or 32 (32 bytes)
  int64_t rowBytes;     ///< one key row or head: D x elementBytes
  int64_t groups;       ///< warpgroups per block
  int64_t queryBytes;   ///< H rows
  int64_t tileRows() const { return kGroupRows * groups; }
  int64_t keyBytes() const { return tileRows() * rowBytes; }
  int64_t sharedBytes() const { return keyBytes() + queryBytes; }
};
} // namespace

static std::optional<WgmmaTiles> wgmmaTiles(MemRefType query,
                                            int64_t threadsPerBlock) {
  WgmmaTiles tiles;
  bool fp8 = isa<Float8E4M3FNType>(query.getElementType());
  tiles.elementBytes = fp8 ? 1 : 2;
  tiles.kPerMma = fp8 ? 32 : 16;
  tiles.rowBytes = query.getDimSize(2) * tiles.elementBytes;
  tiles.queryBytes = query.getDimSize(1) * tiles.rowBytes;
  tiles.groups = std::clamp<int64_t>(threadsPerBlock / kGroupThreads, 1,
                                     kMaxGroups);
  while (tiles.groups > 1 && tiles.sharedBytes() > kStaticSharedBytes)
    --tiles.groups;
  if (tiles.sharedBytes() > kStaticSharedBytes)
    return std::nullopt;
  return tiles;
}

bool mlir::indexpool::gpukernels::canScoreWgmma(MemRefType query) {
  return wgmmaTiles(query, kGroupThreads).has_value();
}

/// The byte of (row r, byte c of the row) in the K-major layout: row group
/// r / 8, then the core matrix of c / 16 along K, its row r % 8, byte
/// c % 16.
static Value sharedOffset(Emitter &e, Value r, Value c, int64_t rowBytes) {
  ImplicitLocOpBuilder &b = e.builder();
  auto split = [&](Value v, int64_t n, int64_t highScale, int64_t lowScale) {
    return e.add(e.mul(arith::DivUIOp::create(b, v, e.index(n)),
                       e.index(highScale)),
                 e.mul(arith::RemUIOp::create(b, v, e.index(n)),
                       e.index(lowScale)));
  };
  return e.add(split(r, 8, 8 * rowBytes, kChunk),
               split(c, kChunk, kCoreBytes, 1));
}

/// Integer bits of a vector of bf16 or e4m3 values.
static Value bitsOf(ImplicitLocOpBuilder &b, Value v) {
  auto type = cast<VectorType>(v.getType());
  Type integer = b.getIntegerType(type.getElementTypeBitWidth());
  return arith::BitcastOp::create(
      b, VectorType::get(type.getShape(), integer), v);
}

/// Query row m's H x D into the shared buffer `shared`, 16 bytes per
/// thread and step.
static void copyQueryRow(Emitter &e, Value query, Value m, Value shared,
                         Value thread, int64_t threads,
                         const WgmmaTiles &tiles) {
  ImplicitLocOpBuilder &b = e.builder();
  auto type = cast<MemRefType>(query.getType());
  const int64_t H = type.getDimSize(1);
  const int64_t perChunk = kChunk / tiles.elementBytes;
  const int64_t chunks = tiles.rowBytes / kChunk;
  if (threads % H == 0 && (H * chunks) % threads == 0) {
    // Each thread copies head thread % H, every (threads / H)-th chunk:
    // constant offsets from one address each side (a prefill chunk copies
    // a query row per tile and row).
    const int64_t step = threads / H;
    Value h = arith::RemUIOp::create(b, thread, e.index(H));
    Value first = arith::DivUIOp::create(b, thread, e.index(H));
    Value at = sharedOffset(e, h, e.mul(first, e.index(kChunk)),
                            tiles.rowBytes);
    SmallVector<Value> loaded;
    for (int64_t j = 0; j < H * chunks / threads; ++j)
      loaded.push_back(vector::LoadOp::create(
          b, VectorType::get({perChunk}, type.getElementType()), query,
          ValueRange{m, h,
                     e.mul(e.add(first, e.index(j * step)),
                           e.index(perChunk))},
          /*nontemporal=*/false, llvm::Align(kChunk)));
    for (auto [j, v] : llvm::enumerate(loaded)) {
      Value asBytes = vector::BitCastOp::create(
          b, VectorType::get({kChunk}, b.getI8Type()), bitsOf(b, v));
      vector::StoreOp::create(
          b, asBytes, shared,
          ValueRange{e.add(at, e.index(static_cast<int64_t>(j) * step *
                                       kCoreBytes))},
          /*nontemporal=*/false, llvm::Align(kChunk));
    }
    return;
  }
  e.forLoop(thread, e.index(H * chunks), e.index(threads), [&](Value i) {
    Value h = arith::RemUIOp::create(b, i, e.index(H));
    Value chunk = arith::DivUIOp::create(b, i, e.index(H));
    Value v = vector::LoadOp::create(
        b, VectorType::get({perChunk}, type.getElementType()), query,
        ValueRange{m, h, e.mul(chunk, e.index(perChunk))},
        /*nontemporal=*/false, llvm::Align(kChunk));
    Value asBytes = vector::BitCastOp::create(
        b, VectorType::get({kChunk}, b.getI8Type()), bitsOf(b, v));
    Value at = sharedOffset(e, h, e.mul(chunk, e.index(kChunk)),
                            tiles.rowBytes);
    vector::StoreOp::create(b, asBytes, shared, ValueRange{at},
                            /*nontemporal=*/false, llvm::Align(kChunk));
  });
}

/// Generic-proxy shared-memory writes made visible to wgmma (async proxy).
static void fenceForWgmma(ImplicitLocOpBuilder &b) {
  MLIRContext *ctx = b.getContext();
  NVVM::FenceProxyOp::create(
      b, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}

/// A shared-memory matrix descriptor for the operand at byte `offset` of a
/// buffer at shared address `base` (i64): K-major, no swizzle.
static Value descriptor(Emitter &e, Value base, int64_t offset,
                        int64_t rowBytes) {
  ImplicitLocOpBuilder &b = e.builder();
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, v, 64);
  };
  // Bits 0-13: the start address / 16; 16-29: leading byte offset / 16
  // (between core matrices along K); 32-45: stride byte offset / 16
  // (between 8-row groups); swizzle (62-63) and base offset (49-51): 0.
  Value address = arith::ShRUIOp::create(
      b,
      arith::AndIOp::create(b, arith::AddIOp::create(b, base, i64(offset)),
                            i64(0x3FFFF)),
      i64(4));
  int64_t fields = ((kCoreBytes >> 4) << 16) |
                   (static_cast<int64_t>((8 * rowBytes) >> 4) << 32);
  return arith::OrIOp::create(b, address, i64(fields));
}

namespace {
/// How a thread copies its part of each key tile into shared memory: row
/// `copyRow` of the tile, loads firstLoad, firstLoad + 2, ... of the row's
/// `loadsPerRow` loads of `perLoad` codes (`loadBytes` bytes) each, FP8
/// decoded to bf16 bits on the way where `decode`.
struct KeyTileCopy {
  const MmaKeys &keys;
  const WgmmaTiles &tiles;
  Value keyTile, copyRow, firstLoad, last, blockY;
  int64_t codeBytes, loadBytes, perLoad, loadsPerRow;
  bool decode, hardwareFp8;
};
} // namespace

/// Copies this thread's part of the key tile whose first row is key row
/// `first` (rows past the last repeat it; absent rows are zeros).
static void copyKeyTile(Emitter &e, const KeyTileCopy &c, Value first) {
  ImplicitLocOpBuilder &b = e.builder();
  Type i8 = b.getI8Type();
  Value n = e.add(first, c.copyRow);
  MmaKeyRow row =
      c.keys.row(e, c.blockY, arith::MinUIOp::create(b, n, c.last));
  Type stored = cast<MemRefType>(row.memref.getType()).getElementType();
  auto load = [&](Value j) -> Value {
    SmallVector<Value> indices(row.lead);
    indices.push_back(e.add(row.offset, e.mul(j, e.index(c.perLoad))));
    Value raw = vector::LoadOp::create(
        b, VectorType::get({c.perLoad}, stored), row.memref, indices,
        /*nontemporal=*/false, llvm::Align(c.loadBytes));
    return bitsOf(b, raw);
  };
  auto zeros = [&]() -> Value {
    auto type = VectorType::get({c.perLoad}, b.getIntegerType(8 * c.codeBytes));
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(type, b.getIntegerAttr(
                                            type.getElementType(), 0)));
  };
  // Every load first, then the decodes and stores. With an odd number
  // of loads per row, the last one is the lower half's only.
  const int64_t perThread = (c.loadsPerRow + 1) / 2;
  auto loadAt = [&](int64_t i) { return e.add(c.firstLoad, e.index(2 * i)); };
  Value lastInRow =
      c.loadsPerRow % 2 != 0
          ? arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                  loadAt(perThread - 1),
                                  e.index(c.loadsPerRow))
          : Value();
  auto inRow = [&](int64_t i) {
    return i == perThread - 1 ? lastInRow : Value();
  };
  SmallVector<Value> loaded;
  for (int64_t i = 0; i < perThread; ++i) {
    Value j = loadAt(i);
    Value present = row.present;
    if (Value guard = inRow(i))
      present = present ? arith::AndIOp::create(b, present, guard) : guard;
    loaded.push_back(present ? e.ifThen(present, {zeros()},
                                        [&]() -> SmallVector<Value> {
                                          return {load(j)};
                                        })
                                   .front()
                             : load(j));
  }
  for (int64_t i = 0; i < perThread; ++i) {
    Value j = loadAt(i);
    Value bits = c.decode ? fp8ToBf16Bits(b, loaded[i], c.hardwareFp8)
                        : loaded[i];
    const int64_t storedBytes = c.perLoad * c.tiles.elementBytes;
    // At byte j x storedBytes of the row, 16 bytes (one core-matrix
    // row) at most per store: storedBytes divides 16 or is 32.
    auto store = [&]() {
      Value column = e.mul(j, e.index(storedBytes));
      auto asBytes = vector::BitCastOp::create(
          b, VectorType::get({storedBytes}, i8), bits);
      for (int64_t part = 0; part < storedBytes; part += kChunk) {
        int64_t width = std::min<int64_t>(kChunk, storedBytes - part);
        Value piece = asBytes;
        if (width != storedBytes) {
          SmallVector<int64_t> mask(width);
          for (int64_t i = 0; i < width; ++i)
            mask[i] = part + i;
          piece = vector::ShuffleOp::create(b, asBytes, asBytes, mask);
        }
        Value at = sharedOffset(e, c.copyRow, e.add(column, e.index(part)),
                                c.tiles.rowBytes);
        vector::StoreOp::create(b, piece, c.keyTile, ValueRange{at},
                                /*nontemporal=*/false, llvm::Align(width));
      }
    };
    if (Value guard = inRow(i))
      e.ifThen(guard, store);
    else
      store();
  }
}

void mlir::indexpool::gpukernels::emitWgmmaScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value logits,
    const MmaKeys &keys, const KernelLaunch &launch, bool hardwareFp8) {
  auto queryType = cast<MemRefType>(query.getType());
  const int64_t H = queryType.getDimSize(1), D = queryType.getDimSize(2);
  const WgmmaTiles tiles =
      *wgmmaTiles(queryType, std::max(launch.threadsPerBlock, kGroupThreads));
  const bool fp8Mma = tiles.elementBytes == 1;
  const int64_t threads = kGroupThreads * tiles.groups;
  const int64_t tileRows = tiles.tileRows();
  // Key loads: 16 bytes, or what the rows' alignment allows.
  const int64_t codeBytes = keys.codeType.isBF16() ? 2 : 1;
  const int64_t loadBytes = std::min<int64_t>(kChunk, keys.alignBytes);
  const int64_t perLoad = loadBytes / codeBytes;
  const int64_t loadsPerRow = D / perLoad;
  const bool decode = !keys.codeType.isBF16() && !fp8Mma;
  MLIRContext *ctx = b.getContext();
  Type i8 = b.getI8Type();
  SmallVector<Type> shared = {sharedBuffer(ctx, tiles.keyBytes(), i8),
                              sharedBuffer(ctx, tiles.queryBytes, i8)};
  Emitter e(b, 4, /*stackScopes=*/false);
  Value count = keys.count(e), dimM = e.dim(query, 0);
  Value tileCount = arith::CeilDivUIOp::create(b, count, e.index(tileRows));
  const bool gridStride = launch.gridStride.value_or(true);
  KernelLaunch counted = launch;
  counted.threadRegisters = kRegistersPerThread;
  const int64_t resident = std::max<int64_t>(
      1, std::min(counted.blocksPerSM(threads),
                  launch.sharedBytesPerSM /
                      (tiles.sharedBytes() + kReservedPerBlock)));
  Value grid = gridSize(b, tileCount, gridStride, resident);
  Value gridY = keys.perQuery ? dimM : e.index(1);
  // One copy of the query row per block: one query row per block, or M = 1.
  const bool queryOnce = keys.perQuery || queryType.getDimSize(0) == 1;
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(H / 2, b.getF32Type()));
  const NVVM::WGMMATypes operand =
      fp8Mma ? NVVM::WGMMATypes::e4m3 : NVVM::WGMMATypes::bf16;
  launchKernel(b, grid, gridY, threads, shared, [&](const KernelIds &ids) {
    Value keyTile = ids.shared[0], queryTile = ids.shared[1];
    Value dimN = count;
    if (keys.rowLength) {
      assert(keys.perQuery && "a row length needs one query row per block");
      dimN = arith::MinUIOp::create(b, count, keys.rowLength(e, ids.blockY));
    }
    Value blockTiles = arith::CeilDivUIOp::create(b, dimN, e.index(tileRows));
    Value last = arith::SubIOp::create(b, dimN, e.index(1));
    Value lane = arith::RemUIOp::create(b, ids.thread, e.index(kWarpSize));
    Value warp = arith::DivUIOp::create(b, ids.thread, e.index(kWarpSize));
    Value g = arith::DivUIOp::create(b, lane, e.index(4));
    Value t = arith::RemUIOp::create(b, lane, e.index(4));
    Value group = arith::DivUIOp::create(b, warp, e.index(4));
    Value warpInGroup = arith::RemUIOp::create(b, warp, e.index(4));
    auto address = [&](Value buffer) -> Value {
      return arith::IndexCastUIOp::create(
          b, b.getI64Type(),
          memref::ExtractAlignedPointerAsIndexOp::create(b, buffer));
    };
    Value keyBase = address(keyTile), queryBase = address(queryTile);
    // This warpgroup's 64 rows start 8 row groups per warpgroup in.
    Value groupBase = arith::AddIOp::create(
        b, keyBase,
        arith::IndexCastUIOp::create(
            b, b.getI64Type(),
            e.mul(group, e.index(kGroupRows * tiles.rowBytes))));
    if (queryOnce)
      copyQueryRow(e, query, keys.perQuery ? ids.blockY : e.index(0),
                   queryTile, ids.thread, threads, tiles);
    // The thread copies row thread % tileRows, loads j, j + 2, ... from
    // j = thread / tileRows (threads = 2 tileRows).
    Value copyRow = arith::RemUIOp::create(b, ids.thread, e.index(tileRows));
    Value firstLoad = arith::DivUIOp::create(b, ids.thread, e.index(tileRows));
    const KeyTileCopy copy{keys,        tiles,     keyTile,  copyRow,
                           firstLoad,   last,      ids.blockY, codeBytes,
                           loadBytes,   perLoad,   loadsPerRow, decode,
                           hardwareFp8};
    forEachTile(b, ids.block, grid, blockTiles, gridStride, [&](Value tile) {
      Value first = e.mul(tile, e.index(tileRows));
      // Everyone is done with the previous tile's shared memory.
      barrier(b);
      copyKeyTile(e, copy, first);
      fenceForWgmma(b);
      // The epilogue's rows: g and g + 8 of the warp's 16.
      Value warpFirst =
          e.add(first, e.add(e.mul(group, e.index(kGroupRows)),
                             e.mul(warpInGroup, e.index(16))));
      SmallVector<Value> outN;
      SmallVector<MmaKeyRow> rows;
      for (int64_t i = 0; i < 2; ++i) {
        outN.push_back(e.add(warpFirst, e.add(g, e.index(8 * i))));
        rows.push_back(keys.row(e, ids.blockY,
                                arith::MinUIOp::create(b, outN[i], last)));
      }
      auto scoreRow = [&](Value m) {
        if (!queryOnce) {
          barrier(b);
          copyQueryRow(e, query, m, queryTile, ids.thread, threads, tiles);
          fenceForWgmma(b);
        }
        barrier(b);
        Value acc = LLVM::ZeroOp::create(b, accType);
        NVVM::WgmmaFenceAlignedOp::create(b);
        for (int64_t s = 0; s < D / tiles.kPerMma; ++s) {
          int64_t k = s * tiles.kPerMma * tiles.elementBytes;
          acc = NVVM::WgmmaMmaAsyncOp::create(
              b, accType, acc,
              descriptor(e, groupBase, (k / kChunk) * kCoreBytes,
                         tiles.rowBytes),
              descriptor(e, queryBase, (k / kChunk) * kCoreBytes,
                         tiles.rowBytes),
              NVVM::MMAShapeAttr::get(ctx, kGroupRows, H, tiles.kPerMma),
              operand, operand, NVVM::WGMMATypes::f32,
              NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
              NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
              NVVM::MMALayout::col, /*satfinite=*/nullptr);
        }
        NVVM::WgmmaGroupSyncAlignedOp::create(b);
        NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
        SmallVector<Value> sums(2, e.f32(0.0));
        for (int64_t tile8 = 0; tile8 < H / 8; ++tile8) {
          SmallVector<Value> four;
          for (int64_t i = 0; i < 4; ++i)
            four.push_back(LLVM::ExtractValueOp::create(b, acc, 4 * tile8 + i));
          std::array<Value, 2> w = headWeightPair(
              b, e, weights, m,
              e.add(e.index(8 * tile8), e.mul(t, e.index(2))));
          addHeadTile(b, e, four, w, {rows[0].scale, rows[1].scale}, sums);
        }
        for (int64_t i = 0; i < 2; ++i)
          storeKeyRowLogit(b, e, sums[i], rows[i].present, outN[i], i, t,
                           dimN, logits, m);
      };
      if (keys.perQuery)
        scoreRow(ids.blockY);
      else
        e.forLoop(e.index(0), dimM, scoreRow);
    });
  });
}
