//===- CpuCacheKernels.h - The cache's paged kernels on the CPU -----------===//
//
// append_paged and select_paged built for a cache configuration and
// compiled for the CPU through the embedding API (libIndexPool), the pages
// and tails updated in place; or compiled for a GPU, as artifacts the CUDA
// backend (include/indexpool/CacheCuda) loads. Dynamic in the batch, the new tokens, the
// block tables' width and the page count: one compilation serves every
// decode step.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHECPU_CPUCACHEKERNELS_H
#define INDEXPOOL_CACHECPU_CPUCACHEKERNELS_H

#include "indexpool/API/Builders.h"
#include "indexpool/API/Module.h"
#include "indexpool/Cache/PagedCache.h"
#include "indexpool/CacheCuda/CudaCacheKernels.h"

namespace indexpool::cache {

/// append_paged and select_paged of a configuration: f32 keys, dynamic in
/// the batch, the new tokens, the block tables' width and the page count;
/// with refine (CacheConfig::refine > 0) also the token tier's append
/// (append_paged pool_size = 1, page_entries = P * E) and refine_paged
/// (null without).
struct CacheModules {
  AppendPagedSpec append;
  SelectPagedSpec select;
  AppendPagedSpec tokenAppend;
  RefinePagedSpec refine;
  std::unique_ptr<Module> appendModule, selectModule, tokenAppendModule,
      refineModule;
};
bool buildCacheModules(const CacheConfig &config, CacheModules &modules,
                       std::string &error);

/// Null with `error` set when a kernel does not compile (or the
/// configuration is one the ops refuse: D not a power of two, say).
/// `threads`: OpenMP threads per call (0: all cores).
std::unique_ptr<CacheKernels> makeCpuCacheKernels(const CacheConfig &config,
                                                  int threads,
                                                  std::string &error);

/// The same kernels compiled for `chip` (sm_80 ... sm_120), as
/// makeCudaCacheKernels loads them on a GPU (with refine, the token tier's
/// append_paged and refine_paged too).
bool compileCudaCacheArtifacts(const CacheConfig &config,
                               const std::string &chip,
                               CudaCacheArtifacts &artifacts,
                               std::string &error);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHECPU_CPUCACHEKERNELS_H
