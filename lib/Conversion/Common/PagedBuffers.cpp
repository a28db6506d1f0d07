//===- PagedBuffers.cpp - the GPU kernels' entry for bufferization --------===//

#include "PagedBuffers.h"

#include <atomic>

using namespace mlir::indexpool::loops;

// One emitter for the process (the GPU kernels' library sets it; passes may
// run on several threads, hence atomic).
static std::atomic<PagedKernelEmitter> pagedKernelEmitter{nullptr};

void mlir::indexpool::loops::setPagedKernelEmitter(
    PagedKernelEmitter emitter) {
  pagedKernelEmitter.store(emitter);
}

PagedKernelEmitter mlir::indexpool::loops::getPagedKernelEmitter() {
  return pagedKernelEmitter.load();
}
