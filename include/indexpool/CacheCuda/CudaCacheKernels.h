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

/// The artifacts a cache needs, in memory: manifest JSON text and the
/// binary (PTX text or cubin bytes); with refine also the token tier's
/// append_paged and refine_paged (empty otherwise).
struct CudaCacheArtifacts {
  std::string appendManifest, appendBinary;
  std::string selectManifest, selectBinary;
  std::string tokenAppendManifest, tokenAppendBinary;
  std::string refineManifest, refineBinary;
};

/// Loads the artifacts on `device` (which must outlive the kernels and the
/// cache) and checks them against `config` (the operands' element types
/// and fixed sizes); null with `error` set otherwise. With refine the token
/// tier's append runs on the appends' stream after the pooled one, and
/// refine_paged on the selects' stream after select_paged.
std::unique_ptr<CacheKernels>
makeCudaCacheKernels(runtime::CudaDevice &device, const CacheConfig &config,
                     const CudaCacheArtifacts &artifacts, std::string &error);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHECUDA_CUDACACHEKERNELS_H
