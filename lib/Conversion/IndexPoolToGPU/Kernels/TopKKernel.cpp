//===- TopKKernel.cpp - indexpool.topk on the GPU: prefilter + radix select ===//
//
// Four launches, so that a single query row (decode, M = 1) uses the whole
// GPU rather than one block:
//
//  1. zero: the per-row prefix histogram and candidate counter.
//  2. histogram: each row's columns are split into segments, one block per
//     (row, segment), enough of them for a wave at M = 1 (and one per row
//     when rows fill the GPU). A block counts the top 12 bits of each
//     value's order-preserving 32-bit key (NaN lowest, -0 as +0) in shared
//     memory (warp-aggregated atomics) and adds its non-zero bins to the
//     row's histogram in global memory.
//  3. filter: each block finds the row's threshold bin, the highest bin
//     with at least kk = min(k, len) columns at or above it (every warp
//     walks the histogram with warp scans; no block-wide step), and appends
//     the columns of its segment at or above that bin to the row's
//     candidate list (one atomic per warp).
//  4. select: one block per row (tiles of items_per_block rows, as before)
//     runs the exact radix select on the candidates only: a 64-bit key per
//     candidate, the order-preserving value bits as the high word and ~n as
//     the low word, so keys are distinct and "larger key" is exactly topk's
//     order (larger value first, then smaller column); 8 passes of 8 bits,
//     each a shared-memory histogram; the kk winners gathered (in shared
//     memory for k <= 2048), each finding its slot by counting the winners
//     ahead of it.
//
// The candidates are every column in the threshold bin or above: a few
// thousand for continuous logits, up to the whole row when the values tie
// (then stage 4 costs what the one-block kernel used to). Results are
// exact and identical to the CPU's.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"

#include "Common/Emitter.h"
#include "GPU/DeviceSmCount.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <limits>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

static constexpr int64_t kRadixBits = 8;
static constexpr int64_t kBins = 1 << kRadixBits;
// The prefix histogram: 4096 bins, the top 12 bits of the ordered value.
static constexpr int64_t kPrefixBins = kTopKPrefixBins;
static constexpr int64_t kPrefixShift = 32 - 12;
static_assert(kPrefixBins == 1 << 12);
// Columns per thread of a segment without an elements_per_thread (the cost
// model's choice too).
static constexpr int64_t kDefaultColumnsPerThread = 1;
// Winners' keys up to this k stay in shared memory (16 KiB).
static constexpr int64_t kSharedWinners = 2048;
// Stage 4's shared memory (the static limit of every chip), and the most
// candidate keys it caches there: the radix passes then read shared memory
// instead of gathering column and logit from global memory 8 times.
static constexpr int64_t kSelectSharedBytes =
    ::indexpool::target::kMaxStaticSharedBytes;
static constexpr int64_t kMaxCachedKeys = 4096;
// The winners' rank loop compares this many winners per step (independent
// shared loads in flight).
static constexpr int64_t kRankUnroll = 2;

/// The value bits of `v` made order-preserving as an unsigned i32: NaN
/// lowest (0), -0 as +0.
static Value orderedBits(ImplicitLocOpBuilder &b, Value v) {
  Type i32 = b.getI32Type();
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
  return arith::SelectOp::create(b, isNan, c32(0), ordered);
}

/// The prefix histogram's bin of value `v` (i32 in [0, kPrefixBins)).
static Value prefixBin(ImplicitLocOpBuilder &b, Value v) {
  return arith::ShRUIOp::create(
      b, orderedBits(b, v), arith::ConstantIntOp::create(b, kPrefixShift, 32));
}

/// The 64-bit selection key of value `v` in column `n`.
static Value selectionKey(ImplicitLocOpBuilder &b, Value v, Value n) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value high = arith::ShLIOp::create(
      b, arith::ExtUIOp::create(b, i64, orderedBits(b, v)),
      arith::ConstantIntOp::create(b, 32, 64));
  Value column = arith::IndexCastUIOp::create(b, i32, n);
  Value low = arith::ExtUIOp::create(
      b, i64,
      arith::XOrIOp::create(b, column, arith::ConstantIntOp::create(b, -1, 32)));
  return arith::OrIOp::create(b, high, low);
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

/// The lanes below `lane` (i32) as a mask.
static Value lanesBelow(ImplicitLocOpBuilder &b, Emitter &e, Value lane) {
  return arith::SubIOp::create(b, arith::ShLIOp::create(b, e.i32(1), lane),
                               e.i32(1));
}

/// hist[digit] += 1 for the lanes where `counts`, one atomic per distinct
/// digit of the warp: `match.any` finds the lanes with the same digit and
/// the lowest of them adds their number. The histograms of the first bits
/// have few distinct digits (the exponents of similar logits), where lane
/// by lane atomics on one address would serialize 32-fold. `bins` is the
/// histogram's size. Every lane of the warp must call it.
static void countInWarp(ImplicitLocOpBuilder &b, Emitter &e, Value hist,
                        Value digit, Value counts, Value lane, int64_t bins) {
  // Lanes that count nothing share a value no digit has.
  Value value = arith::SelectOp::create(b, counts, digit, e.i32(bins));
  Value peers = NVVM::MatchSyncOp::create(
      b, b.getI32Type(), e.i32(-1), value, NVVM::MatchSyncKind::any);
  // The leader is the lowest lane of its peers: none below it.
  Value leads = arith::AndIOp::create(
      b, counts,
      arith::CmpIOp::create(
          b, arith::CmpIPredicate::eq,
          arith::AndIOp::create(b, peers, lanesBelow(b, e, lane)), e.i32(0)));
  e.ifThen(leads, [&]() {
    memref::AtomicRMWOp::create(
        b, arith::AtomicRMWKind::addi, popCount(b, e, peers), hist,
        ValueRange{arith::IndexCastUIOp::create(b, b.getIndexType(), digit)});
  });
}

/// The sum of an i32 over the warp, in every lane.
static Value warpSum(ImplicitLocOpBuilder &b, Value v) {
  for (int64_t mask = kWarpSize / 2; mask > 0; mask /= 2)
    v = arith::AddIOp::create(b, v, shuffleXor(b, v, mask));
  return v;
}

/// Lane counts `s` (i32) of consecutive bins, lane 31 the highest: the lane
/// holding the `need`-th largest item (need >= 1, at most the warp's total)
/// and the items of the lanes above it, in every lane.
static std::pair<Value, Value> findInWarp(ImplicitLocOpBuilder &b, Emitter &e,
                                          Value lane, Value s, Value need) {
  // Suffix sums with xor shuffles only: the partner of a lane whose `mask`
  // bit is clear covers bins above it.
  Value total = s, suffix = s;
  for (int64_t mask = 1; mask < kWarpSize; mask *= 2) {
    Value other = shuffleXor(b, total, mask);
    Value below = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        arith::AndIOp::create(b, lane, e.i32(mask)), e.i32(0));
    suffix = arith::SelectOp::create(
        b, below, arith::AddIOp::create(b, suffix, other), suffix);
    total = arith::AddIOp::create(b, total, other);
  }
  // Suffix sums fall with the lane: the lanes that reach `need` are 0 .. L.
  Value reaches = arith::ExtUIOp::create(
      b, b.getI32Type(),
      arith::CmpIOp::create(b, arith::CmpIPredicate::uge, suffix, need));
  Value found = arith::MaxSIOp::create(
      b, arith::SubIOp::create(b, warpSum(b, reaches), e.i32(1)), e.i32(0));
  Value isFound =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, found);
  Value above = warpSum(
      b, arith::SelectOp::create(b, isFound,
                                 arith::SubIOp::create(b, suffix, s), e.i32(0)));
  return {found, above};
}

/// The highest bin of `hist` (`bins` i32 counts in shared memory, a power of
/// two, at most 32^3) at or above which lie at least `need` (i32) items,
/// bin 0 when none is, and the items in the bins above it (both i32, in
/// every lane of the calling warp): a walk of at most three levels, each lane
/// first summing a run of bins, then the found run split among the lanes.
/// Lanes read their runs rotated (bin (j + lane) % run at step j) so that a
/// warp's loads hit distinct banks.
static std::pair<Value, Value> highestBinReaching(ImplicitLocOpBuilder &b,
                                                  Emitter &e, Value hist,
                                                  Value lane, Value need,
                                                  int64_t bins) {
  Type index = b.getIndexType(), i32 = b.getI32Type();
  Value start = e.i32(0), above = e.i32(0);
  for (int64_t size = bins; size > 1;) {
    const int64_t run = std::max<int64_t>(size / kWarpSize, 1);
    const int64_t lanes = size / run;
    Value first = arith::AddIOp::create(
        b, start, arith::MulIOp::create(b, lane, e.i32(run)));
    Value sum = e.forLoop(
        e.index(0), e.index(run), e.index(1), {e.i32(0)},
        [&](Value j, ValueRange acc) -> SmallVector<Value> {
          Value rotated = arith::AndIOp::create(
              b, arith::AddIOp::create(b, arith::IndexCastUIOp::create(b, i32, j),
                                       lane),
              e.i32(run - 1));
          Value at = arith::AddIOp::create(b, first, rotated);
          // Lanes past the level's runs read a bin in range, counted as 0.
          at = arith::MinUIOp::create(b, at, e.i32(bins - 1));
          Value c = memref::LoadOp::create(
              b, hist, ValueRange{arith::IndexCastUIOp::create(b, index, at)});
          return {arith::AddIOp::create(b, acc[0], c)};
        })[0];
    if (lanes < kWarpSize)
      sum = arith::SelectOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, lane,
                                   e.i32(lanes)),
          sum, e.i32(0));
    auto [found, aboveRun] = findInWarp(b, e, lane, sum, need);
    // need <= 0 reaches every lane: the highest run that exists.
    found = arith::MinUIOp::create(b, found, e.i32(lanes - 1));
    need = arith::SubIOp::create(b, need, aboveRun);
    above = arith::AddIOp::create(b, above, aboveRun);
    start = arith::AddIOp::create(b, start,
                                  arith::MulIOp::create(b, found, e.i32(run)));
    size = run;
  }
  return {start, above};
}

/// The row's threshold bin (i32) from its histogram `hist` (kPrefixBins
/// i32 in shared memory): the highest bin with at least `kk` (i32) items at
/// or above it, or kPrefixBins when kk = 0. Every lane of the calling warp
/// gets it.
static Value thresholdBin(ImplicitLocOpBuilder &b, Emitter &e, Value hist,
                          Value lane, Value kk) {
  Value found = highestBinReaching(b, e, hist, lane, kk, kPrefixBins).first;
  Value none = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, kk, e.i32(0));
  return arith::SelectOp::create(b, none, e.i32(kPrefixBins), found);
}

/// Appends column `n` (index) to `list` row `m` where `passes`, the list's
/// length being `counter` [m, at]: one atomic per warp, each passing lane
/// at its rank among the warp's passing lanes. Every lane must call it.
static void appendInWarp(ImplicitLocOpBuilder &b, Emitter &e, Value list,
                         Value counter, Value m, Value at, Value passes,
                         Value n, Value lane) {
  Type i32 = b.getI32Type();
  Value peers = NVVM::MatchSyncOp::create(
      b, i32, e.i32(-1), arith::ExtUIOp::create(b, i32, passes),
      NVVM::MatchSyncKind::any);
  Value ahead =
      popCount(b, e, arith::AndIOp::create(b, peers, lanesBelow(b, e, lane)));
  Value leads = arith::AndIOp::create(
      b, passes,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, ahead, e.i32(0)));
  Value base = e.ifThen(leads, {e.i32(0)}, [&]() -> SmallVector<Value> {
    return {memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi,
                                        popCount(b, e, peers), counter,
                                        ValueRange{m, at})};
  })[0];
  // Only the leader holds a base: the warp's sum gives it to every lane.
  Value slot = arith::AddIOp::create(b, warpSum(b, base), ahead);
  e.ifThen(passes, [&]() {
    memref::StoreOp::create(
        b, arith::IndexCastUIOp::create(b, i32, n), list,
        ValueRange{m, arith::IndexCastUIOp::create(b, b.getIndexType(), slot)});
  });
}

std::optional<int64_t>
mlir::indexpool::gpukernels::topKTemporaryBytes(int64_t m, int64_t n,
                                                int64_t k) {
  // Per row: the histogram and counter, N candidate columns, 2k words.
  std::optional<int64_t> row = llvm::checkedAdd<int64_t>(kPrefixBins + 1, n);
  if (row && k > kSharedWinners)
    row = llvm::checkedAdd<int64_t>(*row, 2 * k);
  if (row)
    row = llvm::checkedMul<int64_t>(*row, 4);
  return row ? llvm::checkedMul<int64_t>(*row, m) : std::nullopt;
}

KernelLaunch
mlir::indexpool::gpukernels::partTopKLaunch(const KernelLaunch &launch) {
  KernelLaunch topk = launch;
  topk.elementsPerThread = 0;
  return topk;
}

namespace {
/// What the four launches share, emitted once before them: the operands,
/// the launch's shape, the temporaries and the segments of each row.
struct TopKPlan {
  TopKPlan(ImplicitLocOpBuilder &b, Emitter &e, Value logits, Value valid,
           Value values, Value indices)
      : b(b), e(e), logits(logits), valid(valid), values(values),
        indices(indices) {}

  ImplicitLocOpBuilder &b;
  Emitter &e;
  Value logits, valid, values, indices;
  int64_t threads = 0, items = 0, k = 0;
  bool gridStride = false, sharedWinners = false;
  Value zero, one, step, dimM, dimN;
  // Per row the prefix histogram and, after it (at counterAt), the
  // candidate count; the candidate columns; the winners' keys beyond
  // shared memory (null when they stay there).
  Value prefix, columns, globalWinners, counterAt;
  // A wave of blocks; the segments of a row, their length, and the blocks
  // of the histogram and filter kernels.
  Value wave, segments, segmentLength, segmentBlocks;

  /// An i64 constant.
  Value c64(int64_t x) { return arith::ConstantIntOp::create(b, x, 64); }
  /// Emits the sizes, the temporaries and the segments of `launch`.
  void emitSetup(const KernelLaunch &launch);
  /// Inside a kernel: the columns of row m that count (valid[m] clamped to
  /// [0, N]).
  Value rowLength(Value m);
  /// Inside a kernel: the lane (i32) of thread `tid`.
  Value laneOf(Value tid);
  /// Every column [begin, end) of `ids.block`'s segment, with every lane of
  /// a warp in every step (the warp operations need the whole warp): `body`
  /// gets the row, the column (clamped into the segment) and whether it is
  /// one.
  void eachSegmentColumn(const KernelIds &ids,
                         function_ref<void(Value m)> atRow,
                         function_ref<void(Value m, Value n, Value in)> body);
  /// 1. Zeroes the histograms and counters, one element per thread.
  void emitZeroKernel();
  /// 2. The prefix histograms.
  void emitHistogramKernel();
  /// 3. The candidates: every column at or above the row's threshold bin.
  void emitFilterKernel();
  /// 4. The exact selection among each row's candidates.
  void emitSelectKernel();
};

/// A block of stage 4: its shared buffers, the thread and its lane,
/// whether it is thread 0, and the candidate keys the cache holds.
struct SelectBlock {
  Value hist, state, counter, cache, winners;
  Value tid, lane, first;
  int64_t cachedKeys;
};

/// Stage 4 for row `m` in one block: the plan, the block, and (set by
/// emit) the row's candidates.
struct SelectRow : TopKPlan, SelectBlock {
  SelectRow(const TopKPlan &plan, const SelectBlock &block, Value m)
      : TopKPlan(plan), SelectBlock(block), m(m) {}

  Value m;
  // kk = min(k, len); the candidates, their count rounded up to the block
  // and the last one; whether their keys are cached; index 2 of `state`.
  Value kk, count, roundedCount, lastCandidate, cached, two;

  /// The whole row: the candidates' keys, the radix passes, the winners.
  void emit();
  /// Candidate i's column (index).
  Value columnOf(Value i);
  /// Column n's selection key.
  Value keyOf(Value n);
  /// Candidate i's key: from the cache when the row's candidates fit it
  /// (the same for the whole block), else gathered.
  Value candidateKey(Value i);
  /// Winner `slot`'s key, in shared memory or in the global temporary (as
  /// two i32 words: the manifest's runtimes know 32-bit integers).
  void storeWinner(Value slot, Value key);
  Value loadWinner(Value slot);
  /// One radix pass: the histogram of the digits at `pass`, then the bin
  /// holding the still-missing winner recorded in `state`.
  void radixPass(int64_t pass);
  /// The kk winners: every candidate key at or above the kk-th largest.
  void gatherWinners();
  /// Each winner at its rank in values and indices.
  void rankWinners();
};
} // namespace

void TopKPlan::emitSetup(const KernelLaunch &launch) {
  threads = launch.threadsPerBlock;
  items = launch.itemsPerBlock ? launch.itemsPerBlock : 1;
  gridStride = launch.gridStride.value_or(false);
  const int64_t perThread = launch.elementsPerThread
                                ? launch.elementsPerThread
                                : kDefaultColumnsPerThread;
  k = cast<MemRefType>(values.getType()).getDimSize(1);
  Type i32 = b.getI32Type();
  zero = e.index(0);
  one = e.index(1);
  step = e.index(threads);
  dimM = e.dim(logits, 0);
  dimN = e.dim(logits, 1);

  // Temporaries: per row the prefix histogram and, after it, the candidate
  // count; the candidate columns; the winners' keys beyond shared memory.
  auto temp = [&](int64_t cols, Type element, ValueRange dynamic) {
    auto type = MemRefType::get({ShapedType::kDynamic, cols}, element);
    return Value(memref::AllocOp::create(b, type, dynamic,
                                         b.getI64IntegerAttr(64)));
  };
  prefix = temp(kPrefixBins + 1, i32, {dimM});
  columns = temp(ShapedType::kDynamic, i32, {dimM, dimN});
  sharedWinners = k <= kSharedWinners;
  globalWinners = sharedWinners ? Value() : temp(2 * k, i32, {dimM});
  counterAt = e.index(kPrefixBins);

  // Segments per row: a wave of blocks over all rows, no segment shorter
  // than threads x perThread columns, at least one.
  wave = mlir::indexpool::createDeviceWave(b, b.getLoc(),
                                           launch.blocksPerSM(threads));
  Value byLength =
      arith::CeilDivUIOp::create(b, dimN, e.index(threads * perThread));
  Value byWave =
      arith::CeilDivUIOp::create(b, wave, arith::MaxUIOp::create(b, dimM, one));
  segments = arith::MaxUIOp::create(
      b, arith::MinUIOp::create(b, byLength, byWave), one);
  segmentLength = arith::CeilDivUIOp::create(b, dimN, segments);
  segmentBlocks = e.mul(dimM, segments);
}

Value TopKPlan::rowLength(Value m) {
  if (!valid)
    return dimN;
  Value v = arith::IndexCastOp::create(
      b, b.getIndexType(), memref::LoadOp::create(b, valid, ValueRange{m}));
  return Value(
      arith::MinSIOp::create(b, arith::MaxSIOp::create(b, v, zero), dimN));
}

Value TopKPlan::laneOf(Value tid) {
  return Value(arith::IndexCastUIOp::create(
      b, b.getI32Type(), arith::RemUIOp::create(b, tid, e.index(kWarpSize))));
}

void TopKPlan::eachSegmentColumn(
    const KernelIds &ids, function_ref<void(Value m)> atRow,
    function_ref<void(Value m, Value n, Value in)> body) {
  Value m = arith::DivUIOp::create(b, ids.block, segments);
  Value s = arith::RemUIOp::create(b, ids.block, segments);
  Value len = rowLength(m);
  Value begin = arith::MinUIOp::create(b, e.mul(s, segmentLength), len);
  Value end = arith::MinUIOp::create(b, e.add(begin, segmentLength), len);
  Value count = arith::SubIOp::create(b, end, begin);
  Value rounded = e.mul(arith::CeilDivUIOp::create(b, count, step), step);
  Value last = arith::SubIOp::create(b, arith::MaxUIOp::create(b, end, one),
                                     one);
  atRow(m);
  e.forLoop(ids.thread, rounded, step, [&](Value j) {
    Value n = e.add(begin, j);
    Value in = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, n, end);
    body(m, arith::MinUIOp::create(b, n, last), in);
  });
}

void TopKPlan::emitZeroKernel() {
  Value prefixElements = e.mul(dimM, e.index(kPrefixBins + 1));
  launchKernel(b, arith::CeilDivUIOp::create(b, prefixElements, step), one,
               threads, TypeRange{}, [&](const KernelIds &ids) {
    Value i = e.add(e.mul(ids.block, step), ids.thread);
    e.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::ult, i,
                                   prefixElements),
             [&]() {
      Value row = arith::DivUIOp::create(b, i, e.index(kPrefixBins + 1));
      Value col = arith::RemUIOp::create(b, i, e.index(kPrefixBins + 1));
      memref::StoreOp::create(b, e.i32(0), prefix, ValueRange{row, col});
    });
  });
}

void TopKPlan::emitHistogramKernel() {
  Type i32 = b.getI32Type();
  launchKernel(b, segmentBlocks, one, threads,
               {sharedBuffer(b.getContext(), kPrefixBins, i32)},
               [&](const KernelIds &ids) {
    Value hist = ids.shared[0];
    Value lane = laneOf(ids.thread);
    e.forLoop(ids.thread, e.index(kPrefixBins), step, [&](Value i) {
      memref::StoreOp::create(b, e.i32(0), hist, ValueRange{i});
    });
    barrier(b);
    Value row;
    eachSegmentColumn(
        ids, [&](Value m) { row = m; },
        [&](Value m, Value n, Value in) {
          Value v = memref::LoadOp::create(b, logits, ValueRange{m, n});
          countInWarp(b, e, hist, prefixBin(b, v), in, lane, kPrefixBins);
        });
    barrier(b);
    e.forLoop(ids.thread, e.index(kPrefixBins), step, [&](Value i) {
      Value c = memref::LoadOp::create(b, hist, ValueRange{i});
      e.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::ne, c, e.i32(0)),
               [&]() {
        memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, c, prefix,
                                    ValueRange{row, i});
      });
    });
  });
}

void TopKPlan::emitFilterKernel() {
  Type i32 = b.getI32Type();
  launchKernel(b, segmentBlocks, one, threads,
               {sharedBuffer(b.getContext(), kPrefixBins, i32)},
               [&](const KernelIds &ids) {
    Value hist = ids.shared[0];
    Value lane = laneOf(ids.thread);
    Value threshold;
    eachSegmentColumn(
        ids,
        [&](Value m) {
          e.forLoop(ids.thread, e.index(kPrefixBins), step, [&](Value i) {
            memref::StoreOp::create(
                b, memref::LoadOp::create(b, prefix, ValueRange{m, i}), hist,
                ValueRange{i});
          });
          barrier(b);
          Value kk = arith::IndexCastUIOp::create(
              b, i32, arith::MinUIOp::create(b, e.index(k), rowLength(m)));
          // Every warp walks the histogram (warp operations are uniform over
          // the block in the GPU emulator; the walk's loads are conflict-free).
          threshold = thresholdBin(b, e, hist, lane, kk);
        },
        [&](Value m, Value n, Value in) {
          Value v = memref::LoadOp::create(b, logits, ValueRange{m, n});
          Value passes = arith::AndIOp::create(
              b, in,
              arith::CmpIOp::create(b, arith::CmpIPredicate::uge,
                                    prefixBin(b, v), threshold));
          appendInWarp(b, e, columns, prefix, m, counterAt, passes, n, lane);
        });
  });
}

void TopKPlan::emitSelectKernel() {
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  SmallVector<Type> shared{sharedBuffer(ctx, kBins, i32),
                           sharedBuffer(ctx, 3, i64),
                           sharedBuffer(ctx, 1, i32)};
  int64_t cacheBytes = kSelectSharedBytes - kBins * 4 - 3 * 8 - 4;
  if (sharedWinners)
    cacheBytes -= std::max<int64_t>(k, 1) * 8;
  const int64_t cachedKeys =
      std::min<int64_t>(kMaxCachedKeys, cacheBytes / 8 / kWarpSize * kWarpSize);
  shared.push_back(sharedBuffer(ctx, cachedKeys, i64));
  if (sharedWinners)
    shared.push_back(sharedBuffer(ctx, std::max<int64_t>(k, 1), i64));
  Value tiles = arith::CeilDivUIOp::create(b, dimM, e.index(items));
  Value grid =
      gridStride ? Value(arith::MinUIOp::create(b, tiles, wave)) : tiles;
  // One block per row of a few rows (a decode step's queries): ptxas must
  // not trade registers for a second resident block.
  launchKernel(b, grid, one, threads, shared, [&](const KernelIds &ids) {
    Value hist = ids.shared[0], state = ids.shared[1], counter = ids.shared[2];
    Value cache = ids.shared[3];
    Value winners = sharedWinners ? Value(ids.shared[4]) : Value();
    Value tid = ids.thread;
    Value lane = laneOf(tid);
    Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, zero);
    // The rows of the block's tiles, one at a time.
    auto eachRow = [&](function_ref<void(Value)> body) {
      forEachTile(b, ids.block, grid, tiles, gridStride, [&](Value tile) {
        if (items == 1 && !gridStride)
          return body(tile);
        e.forLoop(zero, e.index(items), [&](Value r) {
          Value m = e.add(e.mul(tile, e.index(items)), r);
          Value exists = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                               m, dimM);
          e.ifThen(exists, [&]() {
            // The previous row's threads may still read the shared state.
            barrier(b);
            body(m);
          });
        });
      });
    };
    SelectBlock block{hist, state, counter, cache,
                      winners, tid, lane, first, cachedKeys};
    eachRow([&](Value m) { SelectRow(*this, block, m).emit(); });
  }, /*minBlocksPerSM=*/1);
}

void SelectRow::emit() {
  Type i64 = b.getI64Type(), index = b.getIndexType();
  kk = arith::MinUIOp::create(b, e.index(k), rowLength(m));
  count = arith::IndexCastUIOp::create(
      b, index, memref::LoadOp::create(b, prefix, ValueRange{m, counterAt}));
  roundedCount = e.mul(arith::CeilDivUIOp::create(b, count, step), step);
  lastCandidate = arith::SubIOp::create(
      b, arith::MaxUIOp::create(b, count, one), one);
  cached = arith::CmpIOp::create(b, arith::CmpIPredicate::ule, count,
                                 e.index(cachedKeys));
  e.ifThen(cached, [&]() {
    e.forLoop(tid, count, step, [&](Value i) {
      memref::StoreOp::create(b, keyOf(columnOf(i)), cache, ValueRange{i});
    });
  });

  // state = {digits found so far, how many still to find below them,
  // whether the rest are known}.
  two = e.index(2);
  e.ifThen(first, [&]() {
    memref::StoreOp::create(b, c64(0), state, ValueRange{zero});
    memref::StoreOp::create(b, c64(0), state, ValueRange{two});
    memref::StoreOp::create(b, arith::IndexCastUIOp::create(b, i64, kk),
                            state, ValueRange{one});
    memref::StoreOp::create(b, e.i32(0), counter, ValueRange{zero});
  });
  barrier(b);

  for (int64_t pass = 0; pass < 64 / kRadixBits; ++pass)
    radixPass(pass);

  gatherWinners();
  rankWinners();
  // Slots no column filled.
  e.forLoop(e.add(kk, tid), e.index(k), step, [&](Value j) {
    memref::StoreOp::create(b, e.f32(-std::numeric_limits<double>::infinity()),
                            values, ValueRange{m, j});
    memref::StoreOp::create(b, e.i32(-1), indices, ValueRange{m, j});
  });
}

Value SelectRow::columnOf(Value i) {
  return Value(arith::IndexCastUIOp::create(
      b, b.getIndexType(),
      memref::LoadOp::create(b, columns, ValueRange{m, i})));
}

Value SelectRow::keyOf(Value n) {
  return selectionKey(
      b, memref::LoadOp::create(b, logits, ValueRange{m, n}), n);
}

Value SelectRow::candidateKey(Value i) {
  Type i64 = b.getI64Type();
  auto pick = scf::IfOp::create(b, TypeRange{i64}, cached,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(pick.thenBlock());
  scf::YieldOp::create(
      b, ValueRange{memref::LoadOp::create(b, cache, ValueRange{i})});
  b.setInsertionPointToStart(pick.elseBlock());
  scf::YieldOp::create(b, ValueRange{keyOf(columnOf(i))});
  return pick.getResult(0);
}

void SelectRow::storeWinner(Value slot, Value key) {
  Type i32 = b.getI32Type();
  if (sharedWinners) {
    memref::StoreOp::create(b, key, winners, ValueRange{slot});
    return;
  }
  Value at = e.mul(slot, e.index(2));
  Value high = arith::TruncIOp::create(
      b, i32, arith::ShRUIOp::create(b, key, c64(32)));
  memref::StoreOp::create(b, high, globalWinners, ValueRange{m, at});
  memref::StoreOp::create(b, arith::TruncIOp::create(b, i32, key),
                          globalWinners, ValueRange{m, e.add(at, one)});
}

Value SelectRow::loadWinner(Value slot) {
  Type i64 = b.getI64Type();
  if (sharedWinners)
    return memref::LoadOp::create(b, winners, ValueRange{slot});
  Value at = e.mul(slot, e.index(2));
  Value high = memref::LoadOp::create(b, globalWinners, ValueRange{m, at});
  Value low = memref::LoadOp::create(b, globalWinners,
                                     ValueRange{m, e.add(at, one)});
  return arith::OrIOp::create(
      b, arith::ShLIOp::create(b, arith::ExtUIOp::create(b, i64, high),
                               c64(32)),
      arith::ExtUIOp::create(b, i64, low));
}

void SelectRow::radixPass(int64_t pass) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), index = b.getIndexType();
  int64_t shift = 64 - kRadixBits * (pass + 1);
  // Once a bin holds exactly the winners still missing, all of it wins
  // and the digits below do not matter (distinct keys: after the 32
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
  Value found = memref::LoadOp::create(b, state, ValueRange{zero});
  e.forLoop(tid, roundedCount, step, [&](Value i) {
    Value inRange =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, i, count);
    Value key = candidateKey(arith::MinUIOp::create(b, i, lastCandidate));
    Value counts = inRange;
    if (pass != 0) {
      Value differs = arith::ShRUIOp::create(
          b, arith::XOrIOp::create(b, key, found),
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
    countInWarp(b, e, hist, digit, counts, lane, kBins);
  });
  barrier(b);
  // Every warp finds the bin holding the still-missing winner (the
  // highest with at least that many items at or above it; warp
  // operations are uniform over the block), thread 0 records it.
  {
    Value remaining = memref::LoadOp::create(b, state, ValueRange{one});
    auto [bin, above] = highestBinReaching(
        b, e, hist, lane, arith::TruncIOp::create(b, i32, remaining), kBins);
    Value binIndex = arith::IndexCastUIOp::create(b, index, bin);
    Value digit = arith::ExtUIOp::create(b, i64, bin);
    Value next = arith::OrIOp::create(
        b, found, arith::ShLIOp::create(b, digit, c64(shift)));
    Value missing = arith::SubIOp::create(
        b, remaining, arith::ExtUIOp::create(b, i64, above));
    Value whole = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        arith::ExtUIOp::create(
            b, i64, memref::LoadOp::create(b, hist, ValueRange{binIndex})),
        missing);
    // Every warp has read the state before thread 0 updates it.
    barrier(b);
    e.ifThen(first, [&]() {
      memref::StoreOp::create(b, next, state, ValueRange{zero});
      memref::StoreOp::create(b, missing, state, ValueRange{one});
      memref::StoreOp::create(b, arith::ExtUIOp::create(b, i64, whole),
                              state, ValueRange{two});
    });
  }
  barrier(b);
}

void SelectRow::gatherWinners() {
  Type index = b.getIndexType();
  Value threshold = memref::LoadOp::create(b, state, ValueRange{zero});
  e.forLoop(tid, count, step, [&](Value i) {
    Value key = candidateKey(i);
    Value wins =
        arith::CmpIOp::create(b, arith::CmpIPredicate::uge, key, threshold);
    e.ifThen(wins, [&]() {
      Value slot = memref::AtomicRMWOp::create(
          b, arith::AtomicRMWKind::addi, e.i32(1), counter, ValueRange{zero});
      storeWinner(arith::IndexCastUIOp::create(b, index, slot), key);
    });
  });
  barrier(b);
}

void SelectRow::rankWinners() {
  Type i32 = b.getI32Type(), index = b.getIndexType();
  e.forLoop(tid, kk, step, [&](Value i) {
    Value key = loadWinner(i);
    // Its rank: the winners with a larger key, kRankUnroll at a time,
    // then the rest.
    auto countAhead = [&](Value from, Value to, Value stride, int64_t width,
                          Value rank) {
      return e.forLoop(
          from, to, stride, {rank},
          [&](Value j, ValueRange acc) -> SmallVector<Value> {
            Value sum = acc[0];
            for (int64_t u = 0; u < width; ++u) {
              Value ahead = arith::CmpIOp::create(
                  b, arith::CmpIPredicate::ugt,
                  loadWinner(e.add(j, e.index(u))), key);
              sum = arith::AddIOp::create(
                  b, sum, arith::SelectOp::create(b, ahead, one, zero));
            }
            return {sum};
          })[0];
    };
    Value unrolled = e.mul(
        arith::DivUIOp::create(b, kk, e.index(kRankUnroll)), e.index(kRankUnroll));
    Value rank = countAhead(zero, unrolled, e.index(kRankUnroll), kRankUnroll, zero);
    rank = countAhead(unrolled, kk, one, 1, rank);
    Value column = arith::XOrIOp::create(
        b, arith::TruncIOp::create(b, i32, key), e.i32(-1));
    Value n = arith::IndexCastUIOp::create(b, index, column);
    memref::StoreOp::create(b,
                            memref::LoadOp::create(b, logits, ValueRange{m, n}),
                            values, ValueRange{m, rank});
    memref::StoreOp::create(b, column, indices, ValueRange{m, rank});
  });
}

void mlir::indexpool::gpukernels::emitTopKKernel(ImplicitLocOpBuilder &b,
                                                 Value logits, Value valid,
                                                 Value values, Value indices,
                                                 const KernelLaunch &launch) {
  Emitter e(b, 1, /*stackScopes=*/false);
  TopKPlan plan(b, e, logits, valid, values, indices);
  plan.emitSetup(launch);
  plan.emitZeroKernel();
  plan.emitHistogramKernel();
  plan.emitFilterKernel();
  plan.emitSelectKernel();
}
