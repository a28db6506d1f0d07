//===- ExpandKernel.cpp - indexpool.expand on the GPU ---------------------===//
//
// One thread per selected pool (m, j): its P token indices in one store,
// computed by the CPU's emitExpandEntry, so that both give -1 for negative
// indices and for those whose tokens would not fit in i32.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "KernelBuilder.h"

#include "Common/Emitter.h"
#include "Common/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::indexpool::gpukernels;
using mlir::indexpool::loops::Emitter;

void mlir::indexpool::gpukernels::emitExpandKernel(ImplicitLocOpBuilder &b,
                                                   Value indices, Value tokens,
                                                   int64_t poolSize,
                                                   int64_t threadsPerBlock) {
  Emitter e(b, 1, /*stackScopes=*/false);
  Value dimK = e.dim(indices, 1);
  Value threads = e.index(threadsPerBlock);
  Value grid = arith::CeilDivUIOp::create(b, dimK, threads);
  launchKernel(b, grid, e.dim(indices, 0), threadsPerBlock, {},
               [&](const KernelIds &ids) {
    Value j = e.add(e.mul(ids.block, threads), ids.thread);
    Value exists = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, j, dimK);
    e.ifThen(exists, [&]() {
      loops::emitExpandEntry(e, indices, tokens, poolSize, ids.blockY, j);
    });
  });
}
