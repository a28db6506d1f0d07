//===- KernelBuilder.cpp - gpu.launch building blocks ---------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;

int64_t KernelLaunch::wave(int64_t threads) const {
  return smCount * std::min(maxThreadsPerSM / threads, maxBlocksPerSM);
}

Value mlir::indexpool::gpukernels::gridSize(ImplicitLocOpBuilder &b,
                                            Value tiles, bool gridStride,
                                            int64_t wave) {
  if (!gridStride)
    return tiles;
  return arith::MinUIOp::create(b, tiles,
                                arith::ConstantIndexOp::create(b, wave));
}

void mlir::indexpool::gpukernels::forEachTile(
    ImplicitLocOpBuilder &b, Value block, Value grid, Value tiles,
    bool gridStride, function_ref<void(Value)> body) {
  if (!gridStride)
    return body(block);
  auto loop = scf::ForOp::create(b, block, tiles, grid);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(loop.getInductionVar());
}

void mlir::indexpool::gpukernels::launchKernel(
    ImplicitLocOpBuilder &b, Value gridX, Value gridY, int64_t threads,
    TypeRange shared, function_ref<void(const KernelIds &)> body) {
  // Both grid sizes: a zero in either is an empty op (CUDA rejects it).
  Value zero = arith::ConstantIndexOp::create(b, 0);
  Value any = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, gridX, zero),
      arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, gridY, zero));
  auto guard = scf::IfOp::create(b, any, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard outer(b);
  b.setInsertionPointToStart(guard.thenBlock());
  Value one = arith::ConstantIndexOp::create(b, 1);
  Value block = arith::ConstantIndexOp::create(b, threads);
  auto launch = gpu::LaunchOp::create(b, gridX, gridY, one, block, one, one,
                                      /*dynamicSharedMemorySize=*/nullptr,
                                      /*asyncTokenType=*/nullptr,
                                      /*asyncDependencies=*/ValueRange{},
                                      /*workgroupAttributions=*/shared);
  Block &entry = launch.getBody().front();
  if (entry.empty() || !entry.back().hasTrait<OpTrait::IsTerminator>()) {
    b.setInsertionPointToEnd(&entry);
    gpu::TerminatorOp::create(b);
  }
  b.setInsertionPoint(entry.getTerminator());
  KernelIds ids{launch.getThreadIds().x, launch.getBlockIds().x,
                launch.getBlockIds().y, launch.getWorkgroupAttributions()};
  body(ids);
}

MemRefType mlir::indexpool::gpukernels::sharedBuffer(MLIRContext *ctx,
                                                     int64_t n, Type element) {
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  return MemRefType::get({n}, element, MemRefLayoutAttrInterface(), space);
}

Value mlir::indexpool::gpukernels::shuffleXor(ImplicitLocOpBuilder &b,
                                              Value v, int64_t mask) {
  auto shuffle = gpu::ShuffleOp::create(b, v, static_cast<int32_t>(mask),
                                        static_cast<int32_t>(kWarpSize),
                                        gpu::ShuffleMode::XOR);
  return shuffle.getShuffleResult();
}

Value mlir::indexpool::gpukernels::shuffleXorVector(ImplicitLocOpBuilder &b,
                                                    Value v, int64_t mask) {
  auto type = cast<VectorType>(v.getType());
  Value result = v;
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    Value lane = vector::ExtractOp::create(b, v, i);
    result = vector::InsertOp::create(b, shuffleXor(b, lane, mask), result, i);
  }
  return result;
}

void mlir::indexpool::gpukernels::barrier(ImplicitLocOpBuilder &b) {
  gpu::BarrierOp::create(b);
}
