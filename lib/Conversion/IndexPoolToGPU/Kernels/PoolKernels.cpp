//===- PoolKernels.cpp - compress and pool as warp-row kernels ------------===//
//
// One pool group per row of lanes (WarpRows.h): the P keys of the group are
// read chunk by chunk with the layout's loads (per-channel scores too), the
// softmax over the slots runs in registers, and the weighted sum follows
// loops::emitPoolGroup's slot order and fma chain. compress then rounds to
// the key type, rotates and quantizes in the same kernel: ONE kernel, no
// stack frame; pool stores the pooled row.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "WarpRows.h"

#include "Common/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;
using mlir::indexpool::loops::PoolBuffers;
namespace loops = mlir::indexpool::loops;

// A row kernel's registers beside its values: indices, addresses, the
// row's flags.
static constexpr int64_t kRowRegisters = 16;

/// The pooled chunks of the thread's group (f32, unrounded), with the CPU's
/// softmax and slot order; the weights are stored on the way.
static SmallVector<Value> poolGroup(Emitter &e, const WarpRow &row,
                                    const PoolBuffers &p) {
  ImplicitLocOpBuilder &b = e.builder();
  Value first = e.mul(row.clamped, e.index(p.poolSize));
  SmallVector<Value> x;
  if (cast<MemRefType>(p.scores.getType()).getRank() == 1) {
    // One weight per slot: a scalar softmax, the same in every lane.
    SmallVector<Value> w = loops::emitSlotWeights(e, p, first, std::nullopt);
    if (p.weights)
      e.ifThen(row.leader, [&]() {
        for (int64_t s = 0; s < p.poolSize; ++s)
          memref::StoreOp::create(b, w[s], p.weights,
                                  ValueRange{row.index, e.index(s)});
      });
    SmallVector<Value> wv;
    for (Value ws : w)
      wv.push_back(e.splat(ws));
    for (Value offset : row.offsets)
      x.push_back(loops::emitWeightedSum(e, p, first, {offset, nullptr}, wv));
    return x;
  }
  // One weight per slot and channel: the softmax runs across P vectors.
  for (Value offset : row.offsets) {
    loops::Chunk chunk{offset, nullptr};
    SmallVector<Value> w = loops::emitSlotWeights(e, p, first, chunk);
    if (p.weights)
      e.ifThen(row.active, [&]() {
        for (int64_t s = 0; s < p.poolSize; ++s)
          e.storeF32(w[s], p.weights, {row.index, e.index(s), offset},
                     nullptr);
      });
    x.push_back(loops::emitWeightedSum(e, p, first, chunk, w));
  }
  return x;
}

SmallVector<Value> mlir::indexpool::gpukernels::compressedRow(
    Emitter &e, const WarpLayout &lay, const WarpRow &row,
    const PoolBuffers &pool, bool rotate) {
  Type keyType = cast<MemRefType>(pool.keys.getType()).getElementType();
  SmallVector<Value> x = poolGroup(e, row, pool);
  for (Value &v : x)
    v = e.roundTrip(v, keyType);
  if (rotate)
    rotateRow(e, lay, row, x, keyType);
  return x;
}

void mlir::indexpool::gpukernels::emitCompressKernel(
    ImplicitLocOpBuilder &b, const CompressBuffers &c,
    const KernelLaunch &launch, bool hardwareFp8) {
  WarpLayout lay = warpLayoutOf(c.pool.keys, launch);
  Emitter e(b, lay.elems, /*stackScopes=*/false);
  // Registers: the P keys of the thread's channels (and P scores each,
  // per-channel scores) live through the softmax, beside the row's
  // indices. Counted, they set the residency ptxas is told and the
  // grid-stride wave: left to itself ptxas may aim one block higher and
  // spill (compress_1m on sm_120: 80 registers, 4 bytes).
  const bool perChannel =
      cast<MemRefType>(c.pool.scores.getType()).getRank() == 2;
  const int64_t values =
      lay.elems * lay.chunks * c.pool.poolSize * (perChannel ? 2 : 1);
  KernelLaunch rows = launch;
  rows.threadRegisters = kRowRegisters + values;
  forEachRow(e, lay, rows, c.codes, [&](const WarpRow &row) {
    SmallVector<Value> x = compressedRow(e, lay, row, c.pool, c.rotate);
    quantizeRow(e, lay, row, x,
                {c.codes, c.scales, c.pow2Scale, c.minAbsmax, hardwareFp8});
  });
}

void mlir::indexpool::gpukernels::emitPoolKernel(ImplicitLocOpBuilder &b,
                                                 const PoolBuffers &p,
                                                 Value pooled,
                                                 const KernelLaunch &launch) {
  WarpLayout lay = warpLayoutOf(p.keys, launch);
  Emitter e(b, lay.elems, /*stackScopes=*/false);
  forEachRow(e, lay, launch, pooled, [&](const WarpRow &row) {
    storeRow(e, poolGroup(e, row, p), pooled, row);
  });
}
