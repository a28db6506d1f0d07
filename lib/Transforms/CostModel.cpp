//===- CostModel.cpp - launch configurations for memory-bound kernels -----===//
//
// Every indexpool kernel is memory-bound: a pool of 4 bf16 keys with
// per-channel f32 scores is 3 KiB read for ~1 kFLOP, and the decode-time
// score (M = 1) reads each key once. So the model only asks how to move
// bytes at the chip's DRAM bandwidth, in four steps.
//
// 1. Vector width. 16-byte accesses (ld.global.v4.b32) move the most bytes
//    per instruction and per memory transaction slot:
//        vector_bytes = widest of {16, 8, 4} dividing D * elem_bytes
//    (16 when D is dynamic: the kernel checks alignment at run time), and
//    vec = vector_bytes / elem_bytes elements per access. D = 128 bf16:
//    16 B = 8 elements.
//
// 2. Threads per row and per block. A row of D elements is covered by
//        threads_per_row = min(32, next_pow2(ceil(D / vec)))
//    threads (a power of two within one warp, so that reductions, absmax and
//    the Hadamard butterflies are warp shuffles), each holding
//        elements_per_thread = vec * ceil(ceil(D / vec) / threads_per_row).
//    D = 128 bf16: 256 B per row = 16 threads x 16 B, 8 elements each.
//    A block has
//        threads_per_block = max_threads_per_SM / 4
//    threads: 512 where an SM holds 2048 threads (sm_80, sm_90, sm_100),
//    384 where it holds 1536 (sm_86, sm_89, sm_120). Both reach full
//    occupancy with 4 resident blocks (256 would too, on both, but 4 blocks
//    per SM keep 3/4 of the SM busy while one block drains and the next one
//    starts, and more, smaller blocks only repeat the per-block setup).
//
// 3. Bytes in flight (Little's law). To sustain its DRAM bandwidth B with
//    latency L, each SM must have
//        need = B / SMs x L                  (H100: 3350 GB/s / 132 x 600 ns
//                                             = 15.2 KB; B200: 32.4 KB)
//    bytes of loads outstanding. Assuming full occupancy (at most 32
//    registers per thread at 2048 threads/SM, 42 at 1536; a kernel that
//    needs more holds fewer threads, and a tuning-db entry corrects its
//    tile), an SM issues
//        have = resident_threads x bytes_per_item / threads_per_row
//    per row each thread group works on, so each group keeps
//        rows_in_flight = clamp(ceil(need / have), 1, 8)
//    rows loaded before it computes, and a block's tile is
//        items_per_block = (threads_per_block / threads_per_row) x rows_in_flight.
//    L = 600 ns: published pointer-chase measurements of A100/H100-class
//    parts put the unloaded DRAM latency at several hundred ns and it grows
//    under load; we use one figure for every chip rather than per-chip
//    numbers we could not source. Erring high costs registers, erring low
//    costs bandwidth. When the work is small (fewer tiles than SMs),
//    rows_in_flight is lowered first, to spread the rows over more SMs.
//
// 4. Grid. `tiled` launches one block per tile and lets the hardware
//    balance the blocks over the SMs; that is best up to a few waves, where
//    a static assignment would leave the slowest block's share as the tail.
//    Beyond kMaxTiledWaves = 8 waves (a wave = SMs x resident blocks) the
//    tail is small either way and `grid_stride` launches one wave of
//    persistent blocks that do their setup (bias, Hadamard, constants) once;
//    it is also the choice when the number of items is dynamic. `score`
//    and `select` are always grid_stride: every block loads the query
//    (M x H x D, 16 KiB for 64 bf16 heads) once and streams its share of
//    the key rows past it. `topk` (TopKKernel.cpp) builds a histogram of each row by
//    segments, one block per (row, segment), then selects exactly in one
//    block per row: blocks as wide as the chip allows while leaving room
//    for a second resident block, max_threads_per_SM / 2 (1024 or 768
//    threads), and segments of at least one column per thread
//    (elements_per_thread = 1, 4-byte loads), so that a single row (decode,
//    M = 1) of 2^18 columns is split over 256 blocks, more than an H200's
//    132 SMs: the histogram pass is latency-bound (1 MiB at 4.8 TB/s is
//    0.2 us), and a thread that loads one logit waits once. A short row
//    gets no more threads than it has columns, but at least
//    max_threads_per_SM / max_blocks_per_SM (rounded to a divisor of
//    max_threads_per_SM), so that the resident-block limit does not cap the
//    occupancy.
//
// Estimates. estimateMicroseconds turns the same reasoning into a time for
// any launch, so that the tuner can rank candidates before it compiles or
// measures them (docs/tuning.md). A launch sustains the fraction
//     share = min(1, resident_blocks x bytes_in_flight_per_block / need)
// of the chip's bandwidth on each SM that has work, where a block keeps
// min(groups, items_per_block) groups x min(rows per group, 8) rows in
// flight (topk: threads x elements_per_thread columns). The last round of
// tiles is uneven: with S slots (grid_stride: its blocks; tiled: the blocks
// resident at once) the time is stretched by ceil(tiles / S) / (tiles / S).
// Each round of block starts on an SM costs one DRAM latency (a new
// block's first loads have nothing of its own to overlap with), which is
// what makes many small tiled blocks lose to a grid-stride wave.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Transforms/CostModel.h"

#include <algorithm>
#include <cmath>

using indexpool::target::ChipInfo;

namespace indexpool::cost {

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t nextPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p < v)
    p *= 2;
  return p;
}

int64_t bytesInFlightPerSM(const ChipInfo &chip) {
  // GB/s is bytes per ns.
  double perSM = static_cast<double>(chip.dramGBps) / chip.smCount;
  return static_cast<int64_t>(std::ceil(perSM * kDramLatencyNs));
}

int64_t vectorBytesFor(int64_t rowElems, int elemBytes) {
  if (rowElems == kDynamic)
    return 16;
  int64_t rowBytes = rowElems * elemBytes;
  for (int64_t width : {16, 8, 4})
    if (rowBytes % width == 0)
      return width;
  return 4;
}

/// Threads per block for the row kernels: kBlocksPerSM resident blocks,
/// whole warps, within the block limit and the resident-block limit.
static int64_t rowBlockThreads(const ChipInfo &chip) {
  int64_t threads = chip.maxThreadsPerSM / kBlocksPerSM / 32 * 32;
  threads = std::min<int64_t>(std::max<int64_t>(threads, 32),
                              chip.maxThreadsPerBlock);
  while (chip.maxThreadsPerSM / threads > chip.maxBlocksPerSM)
    threads += 32;
  return threads;
}

/// Rows (or steps) a thread keeps in flight so that an SM at full occupancy
/// has bytesInFlightPerSM outstanding, issuing `bytesPerThread` per row.
static int64_t inFlight(const ChipInfo &chip, int64_t threadsPerBlock,
                        int64_t bytesPerThread) {
  int64_t resident = chip.maxThreadsPerSM / threadsPerBlock * threadsPerBlock;
  int64_t have = resident * std::max<int64_t>(bytesPerThread, 1);
  return std::clamp<int64_t>(ceilDiv(bytesInFlightPerSM(chip), have), 1,
                             kMaxRowsInFlight);
}

static Launch chooseRowSelect(const ChipInfo &chip, const OpDesc &op) {
  Launch launch;
  launch.vectorBytes = 4;
  int64_t threads =
      std::min<int64_t>(chip.maxThreadsPerBlock, chip.maxThreadsPerSM / 2);
  // A short row needs no more threads than it has columns, but enough that
  // the resident-block limit does not cap the occupancy, and whole blocks
  // must fill the SM.
  if (op.rowElems != kDynamic)
    threads = std::min(threads, ceilDiv(op.rowElems, 32) * 32);
  threads = std::max<int64_t>(
      threads, ceilDiv(ceilDiv(chip.maxThreadsPerSM, chip.maxBlocksPerSM), 32) * 32);
  while (chip.maxThreadsPerSM % threads != 0)
    threads += 32;
  launch.threadsPerBlock = threads;
  launch.elementsPerThread = 1;
  launch.itemsPerBlock = 1;
  launch.grid = Grid::Tiled;
  return launch;
}

Launch chooseLaunch(const ChipInfo &chip, const OpDesc &op) {
  int64_t vectorBytes = vectorBytesFor(op.rowElems, op.elemBytes);
  int64_t vec = std::max<int64_t>(1, vectorBytes / op.elemBytes);
  if (op.kind == OpKind::RowSelect)
    return chooseRowSelect(chip, op);

  Launch launch;
  launch.vectorBytes = vectorBytes;

  // Step 2: a group of threads per row, whole rows per warp.
  int64_t vectorsPerRow =
      op.rowElems == kDynamic ? 32 : std::max<int64_t>(1, ceilDiv(op.rowElems, vec));
  int64_t threadsPerRow = std::min<int64_t>(32, nextPowerOfTwo(vectorsPerRow));
  launch.elementsPerThread = vec * ceilDiv(vectorsPerRow, threadsPerRow);
  launch.threadsPerBlock = rowBlockThreads(chip);
  int64_t groups = launch.threadsPerBlock / threadsPerRow;

  // Step 3: rows in flight per group.
  int64_t itemBytes = op.bytesPerItem;
  if (itemBytes == kDynamic)
    itemBytes = op.rowElems == kDynamic ? threadsPerRow * vectorBytes
                                        : op.rowElems * op.elemBytes;
  int64_t rows = inFlight(chip, launch.threadsPerBlock,
                          ceilDiv(itemBytes, threadsPerRow));
  if (op.items != kDynamic)
    while (rows > 1 && ceilDiv(op.items, groups * rows) < chip.smCount)
      --rows;
  launch.itemsPerBlock = groups * rows;

  // Step 4: grid.
  if (op.kind == OpKind::KeyStream || op.items == kDynamic) {
    launch.grid = Grid::GridStride;
  } else {
    int64_t tiles = ceilDiv(op.items, launch.itemsPerBlock);
    int64_t wave = static_cast<int64_t>(chip.smCount) *
                   (chip.maxThreadsPerSM / launch.threadsPerBlock);
    launch.grid =
        tiles > kMaxTiledWaves * wave ? Grid::GridStride : Grid::Tiled;
  }
  return launch;
}

double estimateMicroseconds(const ChipInfo &chip, const OpDesc &op,
                            const Launch &launch) {
  if (op.items == kDynamic || op.rowElems == kDynamic || op.items <= 0 ||
      launch.threadsPerBlock <= 0 || launch.itemsPerBlock <= 0)
    return -1;
  int64_t itemBytes = op.bytesPerItem != kDynamic
                          ? op.bytesPerItem
                          : op.rowElems * op.elemBytes;
  double bytes = static_cast<double>(op.items) * itemBytes;
  int64_t threads = launch.threadsPerBlock;
  int64_t ept = std::max<int64_t>(1, launch.elementsPerThread);
  int64_t resident = std::clamp<int64_t>(chip.maxThreadsPerSM / threads, 1,
                                         chip.maxBlocksPerSM);

  int64_t tiles = 0;
  double inFlightPerBlock = 0;
  if (op.kind == OpKind::RowSelect) {
    // A block per (row, segment of threads x ept columns); each thread
    // loads its columns at once.
    int64_t segment = threads * ept;
    tiles = op.items * ceilDiv(op.rowElems, segment);
    inFlightPerBlock =
        static_cast<double>(std::min(segment, op.rowElems)) * op.elemBytes;
  } else {
    int64_t lanes = std::min<int64_t>(
        32, nextPowerOfTwo(std::max<int64_t>(1, ceilDiv(op.rowElems, ept))));
    int64_t groups = std::max<int64_t>(1, threads / lanes);
    int64_t rows = std::min<int64_t>(ceilDiv(launch.itemsPerBlock, groups),
                                     kMaxRowsInFlight);
    tiles = ceilDiv(op.items, launch.itemsPerBlock);
    inFlightPerBlock = static_cast<double>(
                           std::min(groups, launch.itemsPerBlock)) *
                       rows * itemBytes;
  }

  int64_t wave = static_cast<int64_t>(chip.smCount) * resident;
  int64_t blocks =
      launch.grid == Grid::GridStride ? std::min(tiles, wave) : tiles;
  int64_t activeSMs = std::min<int64_t>(chip.smCount, blocks);
  int64_t residentNow = std::min(resident, ceilDiv(blocks, chip.smCount));
  double share = std::min(1.0, residentNow * inFlightPerBlock /
                                   bytesInFlightPerSM(chip));
  // GB/s is 10^3 bytes per us.
  double bandwidth = chip.dramGBps * 1e3 * share * activeSMs / chip.smCount;
  int64_t slots =
      launch.grid == Grid::GridStride ? blocks : activeSMs * residentNow;
  double perSlot = static_cast<double>(tiles) / slots;
  double stretch = std::ceil(perSlot) / perSlot;
  double startRounds =
      std::ceil(std::ceil(static_cast<double>(blocks) / activeSMs) /
                residentNow);
  return kLaunchOverheadUs + bytes / bandwidth * stretch +
         startRounds * kDramLatencyNs / 1000.0;
}

} // namespace indexpool::cost
