//===- CudaCacheKernels.h - The cache's paged kernels on a CUDA GPU -------===//
//
// A CacheKernels backend on the runtime's GpuFunction: append_paged and
// select_paged loaded from GPU artifacts (manifest + PTX or cubin, as
// compileForGpu or indexpool-compile make them, for the configuration),
// the device tier's pages in device memory. Each call copies its small
// operands (keys, scores, tails, lengths, block tables, queries) to the
// device, launches on the backend's stream for that kind of call (appends
// and selects on two streams, so a BackgroundCompressor's worker and its
// selects overlap) and copies the results back before returning. Any
// thread may call: each call makes the device's context current and
// restores the caller's. MLIR-free, like the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHECUDA_CUDACACHEKERNELS_H
#define INDEXPOOL_CACHECUDA_CUDACACHEKERNELS_H

#include "indexpool/Cache/PagedCache.h"
#include "indexpool/Runtime/Cuda.h"

namespace indexpool::cache {

/// The two artifacts a cache needs, in memory: manifest JSON text and the
/// binary (PTX text or cubin bytes).
struct CudaCacheArtifacts {
  std::string appendManifest, appendBinary;
  std::string selectManifest, selectBinary;
};

/// Loads the artifacts on `device` (which must outlive the kernels and the
/// cache) and checks them against `config` (the operands' element types
/// and fixed sizes); null with `error` set otherwise, and for a
/// configuration with refine (no token tier on the GPU yet: the token
/// tier's append and refine_paged would be two more artifacts and lanes).
std::unique_ptr<CacheKernels>
makeCudaCacheKernels(runtime::CudaDevice &device, const CacheConfig &config,
                     const CudaCacheArtifacts &artifacts, std::string &error);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHECUDA_CUDACACHEKERNELS_H
