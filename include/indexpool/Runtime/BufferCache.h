//===- BufferCache.h - reuse of large buffers across calls ------*- C++ -*-===//
//
// Compiled functions allocate their results with malloc. Called in a loop
// (a benchmark, a decode step), each call would map fresh pages and fault
// them in, which costs more than the kernel itself for GB-sized outputs. The
// JIT binds the compiled code's malloc / free to these functions instead:
// freed blocks are kept per size and handed out again, as a serving engine
// would keep its buffers. Thread-safe; no LLVM or MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_BUFFERCACHE_H
#define INDEXPOOL_RUNTIME_BUFFERCACHE_H

#include <cstddef>

extern "C" {
/// malloc that reuses a block of exactly `size` bytes freed earlier.
void *indexpool_cached_malloc(size_t size);
/// free that keeps the block for reuse (up to a few per size, then frees).
void indexpool_cached_free(void *pointer);
}

namespace indexpool::runtime {
/// Returns every cached block to the system.
void releaseCachedBuffers();
} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_BUFFERCACHE_H
