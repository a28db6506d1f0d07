//===- TopKKernel.cpp - indexpool.topk on the GPU: radix select -----------===//
//
// One block per row at a time: a tile of items_per_block rows (default 1)
// per block, one block per tile or a wave of blocks striding over the
// tiles (grid_stride). Every column n < len gets a 64-bit key: the value's
// bits made order-preserving as the high word (NaN lowest, -0 as +0), and
// ~n as the low word, so that keys are distinct and "larger key" is exactly
// the order topk wants (larger value first, then smaller column). An exact
// radix select over the key finds the kk-th largest (kk = min(k, len)) in 8
// passes of 8 bits, each a shared-memory histogram of the columns that
// match the digits found so far (warp-aggregated atomics); the kk columns at or above it are
// gathered, then each finds its output slot by counting the winners ahead
// of it. Correct for any N and k; the counting is O(k^2 / threads).
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"

#include "Common/Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

static constexpr int64_t kRadixBits = 8;
static constexpr int64_t kBins = 1 << kRadixBits;

/// The 64-bit selection key of value `v` in column `n`.
static Value selectionKey(ImplicitLocOpBuilder &b, Value v, Value n) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c32 = [&](int64_t x) { return arith::ConstantIntOp::create(b, x, 32); };
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0));
  // -0 and +0 are equal values: the column decides between them.
  Value isZero = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, v, zero);
  v = arith::SelectOp::create(b, isZero, zero, v);
  Value bits = arith::BitcastOp::create(b, i32, v);
  Value negative =
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, bits, c32(0));
  Value ordered = arith::SelectOp::create(
      b, negative, arith::XOrIOp::create(b, bits, c32(-1)),
      arith::OrIOp::create(b, bits, c32(std::numeric_limits<int32_t>::min())));
  Value isNan = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, v, v);
  ordered = arith::SelectOp::create(b, isNan, c32(0), ordered);
  Value high = arith::ShLIOp::create(
      b, arith::ExtUIOp::create(b, i64, ordered),
      arith::ConstantIntOp::create(b, 32, 64));
  Value column = arith::IndexCastUIOp::create(b, i32, n);
  Value low =
      arith::ExtUIOp::create(b, i64, arith::XOrIOp::create(b, column, c32(-1)));
  return arith::OrIOp::create(b, high, low);
}

// The winners' keys are kept as two i32 words each (high, low) in an
// [M, 2k] i32 temporary: the manifest's runtimes know 32-bit integers.
static void storeCandidate(ImplicitLocOpBuilder &b, Emitter &e,
                           Value candidates, Value m, Value slot, Value key) {
  Type i32 = b.getI32Type();
  Value at = e.mul(slot, e.index(2));
  Value high = arith::TruncIOp::create(
      b, i32,
      arith::ShRUIOp::create(b, key, arith::ConstantIntOp::create(b, 32, 64)));
  memref::StoreOp::create(b, high, candidates, ValueRange{m, at});
  memref::StoreOp::create(b, arith::TruncIOp::create(b, i32, key), candidates,
                          ValueRange{m, e.add(at, e.index(1))});
}

static Value loadCandidate(ImplicitLocOpBuilder &b, Emitter &e,
                           Value candidates, Value m, Value slot) {
  Type i64 = b.getI64Type();
  Value at = e.mul(slot, e.index(2));
  Value high = memref::LoadOp::create(b, candidates, ValueRange{m, at});
  Value low = memref::LoadOp::create(b, candidates,
                                     ValueRange{m, e.add(at, e.index(1))});
  return arith::OrIOp::create(
      b,
      arith::ShLIOp::create(b, arith::ExtUIOp::create(b, i64, high),
                            arith::ConstantIntOp::create(b, 32, 64)),
      arith::ExtUIOp::create(b, i64, low));
}

/// The number of set bits of an i32, with shifts and masks (math.ctpop has
/// no NVVM lowering in MLIR 22; LLVM turns this idiom into popc).
static Value popCount(ImplicitLocOpBuilder &b, Emitter &e, Value x) {
  auto shr = [&](Value v, int32_t n) {
    return arith::ShRUIOp::create(b, v, e.i32(n)).getResult();
  };
  auto mask = [&](Value v, int32_t m) {
    return arith::AndIOp::create(b, v, e.i32(m)).getResult();
  };
  x = arith::SubIOp::create(b, x, mask(shr(x, 1), 0x55555555));
  x = arith::AddIOp::create(b, mask(x, 0x33333333), mask(shr(x, 2), 0x33333333));
  x = mask(arith::AddIOp::create(b, x, shr(x, 4)), 0x0F0F0F0F);
  return shr(arith::MulIOp::create(b, x, e.i32(0x01010101)), 24);
}

/// hist[digit] += 1 for the lanes where `counts`, one atomic per distinct
/// digit of the warp: `match.any` finds the lanes with the same digit and
/// the lowest of them adds their number. The histogram of the first pass
/// has few distinct digits (the exponents of similar logits), where lane by
/// lane atomics on one address would serialize 32-fold. Every lane of the
/// warp must call it.
static void countInWarp(ImplicitLocOpBuilder &b, Emitter &e, Value hist,
                        Value digit, Value counts, Value lane) {
  // Lanes that count nothing share a value no digit has.
  Value value = arith::SelectOp::create(b, counts, digit, e.i32(kBins));
  Value peers = NVVM::MatchSyncOp::create(
      b, b.getI32Type(), e.i32(-1), value, NVVM::MatchSyncKind::any);
  // The leader is the lowest lane of its peers: none below it.
  Value below = arith::SubIOp::create(
      b, arith::ShLIOp::create(b, e.i32(1), lane), e.i32(1));
  Value leads = arith::AndIOp::create(
      b, counts,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                            arith::AndIOp::create(b, peers, below), e.i32(0)));
  e.ifThen(leads, [&]() {
    memref::AtomicRMWOp::create(
        b, arith::AtomicRMWKind::addi, popCount(b, e, peers), hist,
        ValueRange{arith::IndexCastUIOp::create(b, b.getIndexType(), digit)});
  });
}

void mlir::indexpool::gpukernels::emitTopKKernel(
    ImplicitLocOpBuilder &b, Value logits, Value valid, Value values,
    Value indices, Value candidates, const KernelLaunch &launch) {
  Emitter e(b, 1, /*stackScopes=*/false);
  const int64_t threadsPerBlock = launch.threadsPerBlock;
  const int64_t items = launch.itemsPerBlock ? launch.itemsPerBlock : 1;
  const bool gridStride = launch.gridStride.value_or(false);
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c64 = [&](int64_t x) { return arith::ConstantIntOp::create(b, x, 64); };
  SmallVector<Type> shared{sharedBuffer(ctx, kBins, i32),
                           sharedBuffer(ctx, 3, i64),
                           sharedBuffer(ctx, 1, i32)};
  Value tiles =
      arith::CeilDivUIOp::create(b, e.dim(logits, 0), e.index(items));
  Value grid = gridSize(b, tiles, gridStride, launch.blocksPerSM(threadsPerBlock));
  launchKernel(b, grid, e.index(1), threadsPerBlock, shared,
               [&](const KernelIds &ids) {
    Value hist = ids.shared[0], state = ids.shared[1], counter = ids.shared[2];
    Value tid = ids.thread;
    // The rows of the block's tiles, one at a time.
    auto eachRow = [&](function_ref<void(Value)> body) {
      forEachTile(b, ids.block, grid, tiles, gridStride, [&](Value tile) {
        if (items == 1 && !gridStride)
          return body(tile);
        e.forLoop(e.index(0), e.index(items), [&](Value r) {
          Value m = e.add(e.mul(tile, e.index(items)), r);
          Value exists = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                               m, e.dim(logits, 0));
          e.ifThen(exists, [&]() {
            // The previous row's threads may still read the shared state.
            barrier(b);
            body(m);
          });
        });
      });
    };
    eachRow([&](Value m) {
    Value step = e.index(threadsPerBlock);
    Value zero = e.index(0), one = e.index(1);
    Value dimN = e.dim(logits, 1), k = e.dim(values, 1);
    Value len = dimN;
    if (valid) {
      Value v = arith::IndexCastOp::create(
          b, b.getIndexType(), memref::LoadOp::create(b, valid, ValueRange{m}));
      len = arith::MinSIOp::create(b, arith::MaxSIOp::create(b, v, zero), dimN);
    }
    Value kk = arith::MinUIOp::create(b, k, len);
    Value roundedLen = e.mul(arith::CeilDivUIOp::create(b, len, step), step);
    Value lastColumn = arith::SubIOp::create(
        b, arith::MaxUIOp::create(b, len, one), one);
    Value lane = arith::IndexCastUIOp::create(
        b, i32, arith::RemUIOp::create(b, tid, e.index(kWarpSize)));
    Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, zero);
    auto keyOf = [&](Value n) {
      return selectionKey(
          b, memref::LoadOp::create(b, logits, ValueRange{m, n}), n);
    };

    // state = {digits found so far, how many still to find below them,
    // whether the rest are known}.
    Value two = e.index(2);
    e.ifThen(first, [&]() {
      memref::StoreOp::create(b, c64(0), state, ValueRange{zero});
      memref::StoreOp::create(b, c64(0), state, ValueRange{two});
      memref::StoreOp::create(b, arith::IndexCastUIOp::create(b, i64, kk),
                              state, ValueRange{one});
      memref::StoreOp::create(b, e.i32(0), counter, ValueRange{zero});
    });
    barrier(b);

    for (int64_t pass = 0; pass < 64 / kRadixBits; ++pass) {
      int64_t shift = 64 - kRadixBits * (pass + 1);
      // Once a bin holds exactly the winners still missing, all of it wins
      // and the digits below do not matter (distinct values: after the 32
      // value bits at the latest). The flag is the same for the whole
      // block, so the barriers inside stay uniform.
      Value open = arith::CmpIOp::create(
          b, arith::CmpIPredicate::eq,
          memref::LoadOp::create(b, state, ValueRange{two}), c64(0));
      auto passIf = scf::IfOp::create(b, open, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard inPass(b);
      b.setInsertionPointToStart(passIf.thenBlock());
      e.forLoop(tid, e.index(kBins), step, [&](Value i) {
        memref::StoreOp::create(b, e.i32(0), hist, ValueRange{i});
      });
      barrier(b);
      Value prefix = memref::LoadOp::create(b, state, ValueRange{zero});
      // Every lane of a warp takes part in every iteration (the match
      // below needs the whole warp): the loop runs to len rounded up to
      // the block, lanes past len count nothing.
      e.forLoop(tid, roundedLen, step, [&](Value n) {
        Value inRange =
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, n, len);
        Value key = keyOf(arith::MinUIOp::create(b, n, lastColumn));
        Value counts = inRange;
        if (pass != 0) {
          Value differs = arith::ShRUIOp::create(
              b, arith::XOrIOp::create(b, key, prefix),
              c64(shift + kRadixBits));
          counts = arith::AndIOp::create(
              b, counts,
              arith::CmpIOp::create(b, arith::CmpIPredicate::eq, differs,
                                    c64(0)));
        }
        Value digit = arith::TruncIOp::create(
            b, i32,
            arith::AndIOp::create(
                b, arith::ShRUIOp::create(b, key, c64(shift)), c64(kBins - 1)));
        countInWarp(b, e, hist, digit, counts, lane);
      });
      barrier(b);
      // One thread walks the bins from the top to the one holding the
      // still-missing winner.
      e.ifThen(first, [&]() {
        Value remaining = memref::LoadOp::create(b, state, ValueRange{one});
        auto binCount = [&](Value d) {
          return arith::ExtUIOp::create(
              b, i64, memref::LoadOp::create(b, hist, ValueRange{d}));
        };
        auto walk = scf::WhileOp::create(
            b, TypeRange{b.getIndexType(), i64},
            ValueRange{e.index(kBins - 1), c64(0)},
            [&](OpBuilder &, Location, ValueRange a) {
              Value above = arith::AddIOp::create(b, a[1], binCount(a[0]));
              Value short_ = arith::CmpIOp::create(
                  b, arith::CmpIPredicate::slt, above, remaining);
              Value more = arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                                 a[0], zero);
              scf::ConditionOp::create(
                  b, arith::AndIOp::create(b, short_, more), a);
            },
            [&](OpBuilder &, Location, ValueRange a) {
              Value below = arith::SubIOp::create(b, a[0], one);
              Value cum = arith::AddIOp::create(b, a[1], binCount(a[0]));
              scf::YieldOp::create(b, ValueRange{below, cum});
            });
        Value digit =
            arith::IndexCastUIOp::create(b, i64, walk.getResult(0));
        Value found = arith::OrIOp::create(
            b, prefix, arith::ShLIOp::create(b, digit, c64(shift)));
        memref::StoreOp::create(b, found, state, ValueRange{zero});
        Value missing = arith::SubIOp::create(b, remaining, walk.getResult(1));
        memref::StoreOp::create(b, missing, state, ValueRange{one});
        Value whole = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                            binCount(walk.getResult(0)),
                                            missing);
        memref::StoreOp::create(b, arith::ExtUIOp::create(b, i64, whole),
                                state, ValueRange{two});
      });
      barrier(b);
    }

    // The kk winners: every key at or above the kk-th largest.
    Value threshold = memref::LoadOp::create(b, state, ValueRange{zero});
    e.forLoop(tid, len, step, [&](Value n) {
      Value key = keyOf(n);
      Value wins =
          arith::CmpIOp::create(b, arith::CmpIPredicate::uge, key, threshold);
      e.ifThen(wins,
           [&]() {
             Value slot = memref::AtomicRMWOp::create(
                 b, arith::AtomicRMWKind::addi, e.i32(1), counter,
                 ValueRange{zero});
             storeCandidate(b, e, candidates, m,
                            arith::IndexCastUIOp::create(
                                b, b.getIndexType(), slot),
                            key);
           });
    });
    barrier(b);
    e.forLoop(tid, kk, step, [&](Value i) {
      Value key = loadCandidate(b, e, candidates, m, i);
      Value rank = e.forLoop(
          zero, kk, one, {zero}, [&](Value j, ValueRange acc) -> SmallVector<Value> {
            Value other = loadCandidate(b, e, candidates, m, j);
            Value ahead = arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                                other, key);
            return {arith::AddIOp::create(
                b, acc[0], arith::SelectOp::create(b, ahead, one, zero))};
          })[0];
      Value column = arith::XOrIOp::create(
          b, arith::TruncIOp::create(b, i32, key), e.i32(-1));
      Value n = arith::IndexCastUIOp::create(b, b.getIndexType(), column);
      memref::StoreOp::create(b,
                              memref::LoadOp::create(b, logits, ValueRange{m, n}),
                              values, ValueRange{m, rank});
      memref::StoreOp::create(b, column, indices, ValueRange{m, rank});
    });
    // Slots no column filled.
    e.forLoop(e.add(kk, tid), k, step, [&](Value j) {
      memref::StoreOp::create(b, e.f32(-std::numeric_limits<double>::infinity()),
                              values, ValueRange{m, j});
      memref::StoreOp::create(b, e.i32(-1), indices, ValueRange{m, j});
    });
    });
  });
}
