//===- KernelBuilder.cpp - gpu.launch building blocks ---------------------===//

#include "KernelBuilder.h"

#include "GPU/DeviceSmCount.h"

#include "Common/Emitter.h"
#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::indexpool::gpukernels;

// Threads per block of the helper kernels at most.
static constexpr int64_t kItemThreads =
    ::indexpool::target::kMaxThreadsAtMaxRegisters;

void mlir::indexpool::gpukernels::forEachItem(
    loops::Emitter &e, const KernelLaunch &launch,
    function_ref<Value()> count, function_ref<void(Value item)> body) {
  ImplicitLocOpBuilder &b = e.builder();
  const int64_t threads = std::min(launch.threadsPerBlock, kItemThreads);
  Value tiles = arith::CeilDivUIOp::create(b, count(), e.index(threads));
  Value grid = gridSize(b, tiles, /*gridStride=*/false, /*blocksPerSM=*/1);
  launchKernel(b, grid, e.index(1), threads, {}, [&](const KernelIds &ids) {
    Value item = e.add(e.mul(ids.block, e.index(threads)), ids.thread);
    e.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::ult, item,
                                   count()),
             [&]() { body(item); });
  });
}

void mlir::indexpool::gpukernels::keepRolled(Value loopResult) {
  auto loop = loopResult.getDefiningOp<scf::ForOp>();
  assert(loop && "keepRolled takes a result of an scf.for");
  MLIRContext *ctx = loop.getContext();
  auto unroll = LLVM::LoopUnrollAttr::get(
      ctx, /*disable=*/BoolAttr::get(ctx, true), /*count=*/{},
      /*runtimeDisable=*/{}, /*full=*/{}, /*followupUnrolled=*/{},
      /*followupRemainder=*/{}, /*followupAll=*/{});
  // Lowered to the loop's latch branch (scf-to-cf), then to LLVM metadata.
  loop->setAttr(LLVM::LoopAnnotationAttr::getMnemonic(),
                LLVM::LoopAnnotationAttr::get(
                    ctx, /*disableNonforced=*/{}, /*vectorize=*/{},
                    /*interleave=*/{}, unroll, /*unrollAndJam=*/{},
                    /*licm=*/{}, /*distribute=*/{}, /*pipeline=*/{},
                    /*peeled=*/{}, /*unswitch=*/{}, /*mustProgress=*/{},
                    /*isVectorized=*/{}, /*startLoc=*/{}, /*endLoc=*/{},
                    /*parallelAccesses=*/{}));
}

int64_t KernelLaunch::blocksPerSM(int64_t threads) const {
  int64_t blocks = std::min(maxThreadsPerSM / threads, maxBlocksPerSM);
  if (threadRegisters > 0)
    blocks = std::min(blocks, registersPerSM / (threads * threadRegisters));
  return std::max<int64_t>(1, blocks);
}

int64_t KernelLaunch::registerResidency(int64_t threads) const {
  if (threadRegisters <= 0)
    return 0;
  // One block is not said: told one, ptxas takes every register a block
  // may have and schedules for them (compress_narrow spilled at 128 on
  // sm_100, and not left to itself).
  int64_t blocks = blocksPerSM(threads);
  return blocks > 1 ? blocks : 0;
}

Value mlir::indexpool::gpukernels::gridSize(ImplicitLocOpBuilder &b,
                                            Value tiles, bool gridStride,
                                            int64_t blocksPerSM) {
  if (!gridStride)
    return tiles;
  return arith::MinUIOp::create(
      b, tiles, mlir::indexpool::createDeviceWave(b, b.getLoc(), blocksPerSM));
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
    TypeRange shared, function_ref<void(const KernelIds &)> body,
    int64_t minBlocksPerSM) {
  OpBuilder::InsertionGuard outer(b);
  Value one = arith::ConstantIndexOp::create(b, 1);
  Value block = arith::ConstantIndexOp::create(b, threads);
  auto launch = gpu::LaunchOp::create(b, gridX, gridY, one, block, one, one,
                                      /*dynamicSharedMemorySize=*/nullptr,
                                      /*asyncTokenType=*/nullptr,
                                      /*asyncDependencies=*/ValueRange{},
                                      /*workgroupAttributions=*/shared);
  if (minBlocksPerSM > 0)
    launch->setAttr(mlir::indexpool::kMinBlocksPerSMAttrName,
                    b.getI64IntegerAttr(minBlocksPerSM));
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
