//===- ScoreKernel.cpp - indexpool.score on the GPU -----------------------===//
//
// Block (x, m): the query row m (H x D, decoded to f32) and its head weights
// go to shared memory once; then the block's threads take the key rows of
// its tiles of items_per_block rows (by default grid-stride, one wave of one
// block per SM and row m: the query is loaded once per block, and a thread
// of 255 registers leaves room for one block of 256 per SM anyway; `tiled`:
// one block per tile); a thread streams its row in 16-byte (vector_bytes)
// loads and keeps one f32 accumulator per head, reading the query as
// broadcast 16-byte shared loads (every lane of a warp reads the same
// address). Heads beyond 64 are done
// in blocks of 64, re-reading the key row from L1.
//
// With M = 1 (decode) this moves N x D key bytes once; at H = 64 it does
// 64 FMAs per key byte, which is CUDA-core bound on every chip: a tensor
// core path (mma.sync / wgmma on tiles of 16 keys x 64 heads, keys as the
// B operand in FP8 on sm_89+, the per-key scale and relu in the epilogue)
// is what would make it memory-bound (docs/design.md).
//
// Where a key row is (and its scale) is the caller's (ScoreKeys): the rows
// of a [N, D] buffer for score, entries of pages through a block table for
// select_paged (PagedKernels.cpp), the rows refine's candidates name; the
// arithmetic is this one.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"

#include "Common/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

static constexpr int64_t kHeadBlock = 64;
static constexpr int64_t kMaxHeads = 2 * kHeadBlock;
static constexpr int64_t kSharedBytes = ::indexpool::target::kMaxStaticSharedBytes;
// One accumulator per head of a block of 64 plus the key chunk: ptxas uses
// up to 255 registers, so at most 65536 / 255 threads per block.
static constexpr int64_t kMaxThreads =
    ::indexpool::target::kMaxThreadsAtMaxRegisters;

/// Channels of a key row per 16-byte load.
static int64_t chunkOf(MemRefType keys) {
  return 16 / (keys.getElementTypeBitWidth() / 8);
}

bool mlir::indexpool::gpukernels::canScore(MemRefType query, MemRefType keys) {
  int64_t h = query.getDimSize(1), d = query.getDimSize(2);
  if (ShapedType::isDynamic(h) || ShapedType::isDynamic(d) ||
      keys.isDynamicDim(1) || h < 1 || h > kMaxHeads)
    return false;
  int64_t block = std::min(h, kHeadBlock);
  return d % chunkOf(keys) == 0 && h % block == 0 &&
         (h * d + h) * 4 <= kSharedBytes;
}

void mlir::indexpool::gpukernels::emitScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value logits,
    const ScoreKeys &keys, const KernelLaunch &launch) {
  auto queryType = cast<MemRefType>(query.getType());
  const int64_t H = queryType.getDimSize(1), D = queryType.getDimSize(2);
  // vector_bytes narrows the key loads: canScore's whole 16-byte chunks
  // are whole chunks of any narrower width too.
  int64_t E = 16 / keys.elementBytes;
  int64_t width = launch.vectorBytes / keys.elementBytes;
  if (width >= 1 && width < E)
    E = width;
  // Query values per shared-memory load: 4 (16 bytes) or the whole chunk.
  const int64_t QE = std::min<int64_t>(E, 4);
  const int64_t HB = std::min(H, kHeadBlock);
  Emitter e(b, E, /*stackScopes=*/false);
  const int64_t threadsPerBlock =
      std::min(launch.threadsPerBlock, kMaxThreads);
  Type f32 = b.getF32Type();
  MLIRContext *ctx = b.getContext();

  // Tiles of key rows (default one row per thread); by default one wave of
  // blocks strides over them: one block per SM (registers, see above).
  const int64_t items =
      launch.itemsPerBlock ? launch.itemsPerBlock : threadsPerBlock;
  const bool gridStride = launch.gridStride.value_or(true);
  Value tiles =
      arith::CeilDivUIOp::create(b, keys.count(e), e.index(items));
  // ptxas is told the same (minBlocksPerSM below), so that it does not
  // trade registers for blocks the grid never has.
  Value grid = gridSize(b, tiles, gridStride, /*blocksPerSM=*/1);
  SmallVector<Type> shared{sharedBuffer(ctx, H * D, f32),
                           sharedBuffer(ctx, H, f32)};
  launchKernel(b, grid, e.dim(query, 0), threadsPerBlock, shared,
               [&](const KernelIds &ids) {
    Value qs = ids.shared[0], ws = ids.shared[1];
    Value m = ids.blockY, tid = ids.thread;
    Value step = e.index(threadsPerBlock);
    e.forLoop(tid, e.index(H * D), step, [&](Value i) {
      Value h = arith::DivUIOp::create(b, i, e.index(D));
      Value d = arith::RemUIOp::create(b, i, e.index(D));
      memref::StoreOp::create(b, e.loadScalarF32(query, {m, h, d}), qs,
                              ValueRange{i});
    });
    e.forLoop(tid, e.index(H), step, [&](Value h) {
      memref::StoreOp::create(b, e.loadScalarF32(weights, {m, h}), ws,
                              ValueRange{h});
    });
    barrier(b);

    // The rows scored: all N, or the first rowLength(m) of them.
    Value dimN = keys.count(e);
    if (keys.rowLength)
      dimN = arith::MinUIOp::create(b, dimN, keys.rowLength(e, m));
    auto quad = VectorType::get({QE}, f32);
    forEachTile(b, ids.block, grid, tiles, gridStride, [&](Value tile) {
    Value first = e.mul(tile, e.index(items));
    Value end = arith::MinUIOp::create(b, e.add(first, e.index(items)), dimN);
    e.forLoop(e.add(first, tid), end, step, [&](Value n) {
      KeyRow key = keys.row(e, m, n);
      auto scoreRow = [&]() -> SmallVector<Value> {
        Value logit = e.f32(0.0);
        for (int64_t h0 = 0; h0 < H; h0 += HB) {
          SmallVector<Value> zeros(HB, e.f32(0.0));
          SmallVector<Value> dot = e.forLoop(
              e.index(0), e.index(D / E), e.index(1), zeros,
              [&](Value chunk, ValueRange acc) -> SmallVector<Value> {
                Value d0 = e.mul(chunk, e.index(E));
                Value chunkValues = key.load(d0);
                SmallVector<Value> k;
                for (int64_t i = 0; i < E; ++i)
                  k.push_back(vector::ExtractOp::create(b, chunkValues, i));
                SmallVector<Value> next(acc.begin(), acc.end());
                for (int64_t h = 0; h < HB; ++h) {
                  Value base = e.add(e.index((h0 + h) * D), d0);
                  for (int64_t i = 0; i < E; i += QE) {
                    Value q = vector::LoadOp::create(
                        b, quad, qs, ValueRange{e.add(base, e.index(i))},
                        /*nontemporal=*/false, llvm::Align(4 * QE));
                    for (int64_t t = 0; t < QE; ++t)
                      next[h] = math::FmaOp::create(
                          b, vector::ExtractOp::create(b, q, t), k[i + t],
                          next[h]);
                  }
                }
                return next;
              });
          // The same epilogue as the CPU rows: scale, relu, weight, in h order.
          for (int64_t h = 0; h < HB; ++h) {
            Value v = dot[h];
            if (key.scale)
              v = arith::MulFOp::create(b, key.scale, v);
            Value relu = arith::MaximumFOp::create(b, v, e.f32(0.0));
            Value w =
                memref::LoadOp::create(b, ws, ValueRange{e.index(h0 + h)});
            logit = math::FmaOp::create(b, w, relu, logit);
          }
        }
        return {logit};
      };
      // A row that is not there (refine's padding) is NaN, never read.
      Value logit =
          key.present
              ? e.ifThen(key.present,
                         {e.f32(std::numeric_limits<double>::quiet_NaN())},
                         scoreRow)
                    .front()
              : scoreRow().front();
      memref::StoreOp::create(b, logit, logits, ValueRange{m, n});
    });
    });
  }, /*minBlocksPerSM=*/1);
}

void mlir::indexpool::gpukernels::emitScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value keys,
    Value scales, Value logits, const KernelLaunch &launch) {
  auto keysType = cast<MemRefType>(keys.getType());
  ScoreKeys source;
  source.elementBytes = keysType.getElementTypeBitWidth() / 8;
  source.count = [&](Emitter &e) { return e.dim(keys, 0); };
  source.row = [&](Emitter &e, Value, Value n) {
    KeyRow row;
    row.scale = scales ? e.loadScalarF32(scales, {n}) : Value();
    row.load = [&e, keys, n](Value d0) {
      return e.loadF32(keys, {n, d0}, nullptr);
    };
    return row;
  };
  emitScoreKernel(b, query, weights, logits, source, launch);
}

void mlir::indexpool::gpukernels::emitRefineScoreKernel(
    ImplicitLocOpBuilder &b, Value query, Value weights, Value candidates,
    Value keys, Value scales, Value logits, const KernelLaunch &launch) {
  auto keysType = cast<MemRefType>(keys.getType());
  ScoreKeys source;
  source.elementBytes = keysType.getElementTypeBitWidth() / 8;
  source.count = [&](Emitter &e) { return e.dim(candidates, 1); };
  // Column c of row m is key row candidates[m, c] when that is a row; its
  // scale is read only then.
  source.row = [&](Emitter &e, Value m, Value c) {
    ImplicitLocOpBuilder &kb = e.builder();
    Value t = memref::LoadOp::create(kb, candidates, ValueRange{m, c});
    Value n = arith::IndexCastOp::create(kb, kb.getIndexType(), t);
    KeyRow row;
    row.present = loops::emitIsKeyRow(e, t, keys);
    if (scales)
      row.scale =
          e.ifThen(row.present, {e.f32(0.0)}, [&]() -> SmallVector<Value> {
             return {e.loadScalarF32(scales, {n})};
           }).front();
    row.load = [&e, keys, n](Value d0) {
      return e.loadF32(keys, {n, d0}, nullptr);
    };
    return row;
  };
  emitScoreKernel(b, query, weights, logits, source, launch);
}
