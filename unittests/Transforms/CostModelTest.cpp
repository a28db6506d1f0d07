//===- CostModelTest.cpp - the launch cost model --------------------------===//
#include "indexpool/Transforms/CostModel.h"

#include <gtest/gtest.h>

#include <string>

using namespace indexpool::cost;
using indexpool::target::allChips;
using indexpool::target::ChipInfo;
using indexpool::target::lookupChip;

namespace {

const ChipInfo &chip(const char *name) {
  const ChipInfo *info = lookupChip(name);
  EXPECT_NE(info, nullptr) << name;
  return *info;
}

/// GLM-5.3's kpool compress: T = 65536 bf16 keys, D = 128, per-channel f32
/// scores, P = 4: G = 16384 pools of 4 x (256 + 512) bytes.
OpDesc glmCompress(int64_t tokens = 65536) {
  OpDesc op;
  op.kind = OpKind::Rows;
  op.items = tokens / 4;
  op.rowElems = 128;
  op.elemBytes = 2;
  op.bytesPerItem = 4 * (128 * 2 + 128 * 4);
  return op;
}

/// Bytes an SM has in flight with `launch` at full occupancy: every item of
/// a resident block's tile is loaded before the block computes.
int64_t bytesInFlight(const ChipInfo &c, const Launch &launch,
                      int64_t bytesPerItem) {
  int64_t residentBlocks = c.maxThreadsPerSM / launch.threadsPerBlock;
  return residentBlocks * launch.itemsPerBlock * bytesPerItem;
}

} // namespace

TEST(CostModel, LittlesLaw) {
  // 3350 GB/s over 132 SMs for 600 ns.
  EXPECT_EQ(bytesInFlightPerSM(chip("sm_90")), 15228);
  // B200 needs twice as much per SM as H100.
  EXPECT_GT(bytesInFlightPerSM(chip("sm_100")),
            2 * bytesInFlightPerSM(chip("sm_90")));
  EXPECT_LT(bytesInFlightPerSM(chip("sm_89")), 4096);
}

TEST(CostModel, VectorWidth) {
  EXPECT_EQ(vectorBytesFor(128, 2), 16); // bf16 keys: 256 B rows
  EXPECT_EQ(vectorBytesFor(128, 1), 16); // fp8 keys
  EXPECT_EQ(vectorBytesFor(4, 2), 8);    // a row shorter than 16 B
  EXPECT_EQ(vectorBytesFor(6, 4), 8);    // 24 B rows
  EXPECT_EQ(vectorBytesFor(2, 2), 4);
  EXPECT_EQ(vectorBytesFor(3, 2), 4);    // nothing divides 6 B: narrowest
  EXPECT_EQ(vectorBytesFor(kDynamic, 2), 16);
}

TEST(CostModel, CompressOnH100) {
  // 16 threads x 16 B cover a 256 B key row; 512 threads are 32 such
  // groups, one pool each; 512 tiles fit in one wave of 132 x 4 blocks.
  Launch launch = chooseLaunch(chip("sm_90"), glmCompress());
  EXPECT_EQ(launch.threadsPerBlock, 512);
  EXPECT_EQ(launch.itemsPerBlock, 32);
  EXPECT_EQ(launch.elementsPerThread, 8);
  EXPECT_EQ(launch.vectorBytes, 16);
  EXPECT_EQ(launch.grid, Grid::Tiled);
}

TEST(CostModel, CompressOn1536ThreadChips) {
  for (const char *name : {"sm_86", "sm_89", "sm_120"}) {
    Launch launch = chooseLaunch(chip(name), glmCompress());
    EXPECT_EQ(launch.threadsPerBlock, 384) << name;
    EXPECT_EQ(launch.itemsPerBlock, 24) << name;
    EXPECT_EQ(launch.elementsPerThread, 8) << name;
  }
}

TEST(CostModel, BlocksFillEverySM) {
  for (const ChipInfo &c : allChips()) {
    for (OpKind kind : {OpKind::Rows, OpKind::KeyStream, OpKind::RowSelect}) {
      OpDesc op = glmCompress();
      op.kind = kind;
      Launch launch = chooseLaunch(c, op);
      SCOPED_TRACE(std::string(c.name));
      EXPECT_EQ(launch.threadsPerBlock % 32, 0);
      EXPECT_LE(launch.threadsPerBlock, c.maxThreadsPerBlock);
      // Full occupancy: whole blocks fill the SM's threads.
      EXPECT_EQ(c.maxThreadsPerSM % launch.threadsPerBlock, 0);
      EXPECT_LE(c.maxThreadsPerSM / launch.threadsPerBlock, c.maxBlocksPerSM);
    }
  }
}

TEST(CostModel, EnoughBytesInFlight) {
  // Rows of 4 f16 (8 B): one thread per row, 8 B per thread, so an SM at
  // 2048 threads has 16 KiB in flight per row: enough for H100's 15.2 KB,
  // not for B200's 32.4 KB, which gets two rows in flight per thread.
  OpDesc tiny;
  tiny.items = 1 << 24;
  tiny.rowElems = 4;
  tiny.elemBytes = 2;
  tiny.bytesPerItem = 8;
  for (const ChipInfo &c : allChips()) {
    Launch launch = chooseLaunch(c, tiny);
    EXPECT_GE(bytesInFlight(c, launch, tiny.bytesPerItem),
              bytesInFlightPerSM(c))
        << c.name;
  }
  EXPECT_EQ(chooseLaunch(chip("sm_90"), tiny).itemsPerBlock, 512);
  EXPECT_EQ(chooseLaunch(chip("sm_100"), tiny).itemsPerBlock, 1024);
}

TEST(CostModel, SmallWorkSpreadsOverSMs) {
  // The same tiny rows, but only 20000: two rows per thread would leave
  // B200 with 20 of 148 SMs busy; one row per thread gives 40.
  OpDesc tiny;
  tiny.items = 20000;
  tiny.rowElems = 4;
  tiny.elemBytes = 2;
  tiny.bytesPerItem = 8;
  EXPECT_EQ(chooseLaunch(chip("sm_100"), tiny).itemsPerBlock, 512);
}

TEST(CostModel, GridPolicy) {
  // Dynamic sizes and the key streams are grid-stride loops.
  OpDesc dynamic = glmCompress();
  dynamic.items = kDynamic;
  EXPECT_EQ(chooseLaunch(chip("sm_90"), dynamic).grid, Grid::GridStride);
  OpDesc score = glmCompress();
  score.kind = OpKind::KeyStream;
  EXPECT_EQ(chooseLaunch(chip("sm_90"), score).grid, Grid::GridStride);
  // A million-token compress is far more than 8 waves everywhere.
  for (const ChipInfo &c : allChips())
    EXPECT_EQ(chooseLaunch(c, glmCompress(1 << 21)).grid, Grid::GridStride)
        << c.name;
  // 65536 pools: 2048 tiles are < 8 waves of 132 x 4 blocks on H100 but
  // 2731 tiles are > 8 waves of 58 x 4 on L4: the SM count decides.
  EXPECT_EQ(chooseLaunch(chip("sm_90"), glmCompress(1 << 18)).grid,
            Grid::Tiled);
  EXPECT_EQ(chooseLaunch(chip("sm_89"), glmCompress(1 << 18)).grid,
            Grid::GridStride);
}

TEST(CostModel, TopKIsWideBlocksOfOneColumnPerThread) {
  OpDesc topk;
  topk.kind = OpKind::RowSelect;
  topk.items = 4;
  topk.rowElems = 16384;
  topk.elemBytes = 4;
  topk.bytesPerItem = 16384 * 4;
  Launch h100 = chooseLaunch(chip("sm_90"), topk);
  EXPECT_EQ(h100.threadsPerBlock, 1024);
  EXPECT_EQ(h100.itemsPerBlock, 1);
  EXPECT_EQ(h100.elementsPerThread, 1);
  EXPECT_EQ(h100.vectorBytes, 4);
  EXPECT_EQ(h100.grid, Grid::Tiled);
  EXPECT_EQ(chooseLaunch(chip("sm_89"), topk).threadsPerBlock, 768);
  // A short row gets few threads, but enough for full occupancy within
  // the resident-block limit (2048 / 32 blocks; 1536 / 16 on sm_86).
  topk.rowElems = 64;
  EXPECT_EQ(chooseLaunch(chip("sm_90"), topk).threadsPerBlock, 64);
  EXPECT_EQ(chooseLaunch(chip("sm_86"), topk).threadsPerBlock, 96);
}

TEST(CostModel, LongRowsStayInOneWarp) {
  // D = 1024 f32: 256 vectors of 16 B, 32 threads per row, 8 each.
  OpDesc wide;
  wide.items = 4096;
  wide.rowElems = 1024;
  wide.elemBytes = 4;
  Launch launch = chooseLaunch(chip("sm_90"), wide);
  EXPECT_EQ(launch.elementsPerThread, 32);
  EXPECT_EQ(launch.itemsPerBlock, 512 / 32);
  // Dynamic D: a warp per row, one vector per step.
  wide.rowElems = kDynamic;
  wide.bytesPerItem = kDynamic;
  launch = chooseLaunch(chip("sm_90"), wide);
  EXPECT_EQ(launch.vectorBytes, 16);
  EXPECT_EQ(launch.elementsPerThread, 4);
  EXPECT_EQ(launch.itemsPerBlock, 16);
}

TEST(CostModel, EstimateOfTheModelsLaunchIsNearTheBandwidthFloor) {
  // A million-token compress: 805 MB read. The model's launch keeps enough
  // bytes in flight, so only the uneven last round and the fixed costs
  // separate its estimate from bytes / bandwidth.
  OpDesc op = glmCompress(1 << 20);
  for (const ChipInfo &c : allChips()) {
    double floorUs = double(op.items) * op.bytesPerItem / (c.dramGBps * 1e3);
    double us = estimateMicroseconds(c, op, chooseLaunch(c, op));
    EXPECT_GE(us, floorUs + kLaunchOverheadUs) << c.name;
    EXPECT_LE(us, 1.1 * floorUs + kLaunchOverheadUs + 1.0) << c.name;
  }
}

TEST(CostModel, EstimateRanksStarvedAndTinyLaunchesBehindTheModels) {
  const ChipInfo &h100 = chip("sm_90");
  OpDesc op = glmCompress(1 << 20);
  Launch model = chooseLaunch(h100, op);
  double modelUs = estimateMicroseconds(h100, op, model);
  // One pool per 512-thread block: 4 blocks x 3 KiB in flight per SM are
  // less than H100's 15.2 KB, and 2^18 tiled blocks start 512 rounds.
  Launch starved = model;
  starved.itemsPerBlock = 1;
  starved.grid = Grid::Tiled;
  EXPECT_GT(estimateMicroseconds(h100, op, starved), 1.2 * modelUs);
  // The same tile, tiled instead of grid-stride: 16 rounds of block starts.
  Launch tiled = model;
  tiled.grid = Grid::Tiled;
  EXPECT_GT(estimateMicroseconds(h100, op, tiled),
            estimateMicroseconds(h100, op, model));
  // A small job on few SMs: 64 pools in one block use one SM of 132.
  OpDesc small = glmCompress(256);
  Launch oneBlock = chooseLaunch(h100, small);
  oneBlock.itemsPerBlock = 64;
  EXPECT_GT(estimateMicroseconds(h100, small, oneBlock),
            estimateMicroseconds(h100, small, chooseLaunch(h100, small)));
}

TEST(CostModel, EstimateOfTopKSegments) {
  // One row of 2^18 logits: 1024-thread segments of one column each are 256
  // blocks; 16 columns per thread leave 16 blocks on 132 SMs.
  OpDesc topk;
  topk.kind = OpKind::RowSelect;
  topk.items = 1;
  topk.rowElems = 1 << 18;
  topk.elemBytes = 4;
  topk.bytesPerItem = (1 << 18) * 4;
  const ChipInfo &h100 = chip("sm_90");
  Launch model = chooseLaunch(h100, topk);
  Launch wide = model;
  wide.elementsPerThread = 16;
  EXPECT_GT(estimateMicroseconds(h100, topk, wide),
            estimateMicroseconds(h100, topk, model));
}

TEST(CostModel, NoEstimateForDynamicSizes) {
  OpDesc op = glmCompress();
  Launch launch = chooseLaunch(chip("sm_90"), op);
  op.items = kDynamic;
  EXPECT_EQ(estimateMicroseconds(chip("sm_90"), op, launch), -1);
  op = glmCompress();
  op.rowElems = kDynamic;
  EXPECT_EQ(estimateMicroseconds(chip("sm_90"), op, launch), -1);
}
