//===- CpuCacheKernels.h - The cache's paged kernels on the CPU -----------===//
//
// append_paged and select_paged built for a cache configuration and
// compiled for the CPU through the embedding API (libIndexPool), the pages
// and tails updated in place. Dynamic in the batch, the new tokens, the
// block tables' width and the page count: one compilation serves every
// decode step.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHECPU_CPUCACHEKERNELS_H
#define INDEXPOOL_CACHECPU_CPUCACHEKERNELS_H

#include "indexpool/Cache/PagedCache.h"

namespace indexpool::cache {

/// Null with `error` set when a kernel does not compile (or the
/// configuration is one the ops refuse: D not a power of two, say).
/// `threads`: OpenMP threads per call (0: all cores).
std::unique_ptr<CacheKernels> makeCpuCacheKernels(const CacheConfig &config,
                                                  int threads,
                                                  std::string &error);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHECPU_CPUCACHEKERNELS_H
