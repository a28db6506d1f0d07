//===- VerifyingCacheKernels.h - Every cache call checked by the reference ===//
//
// A CacheKernels backend that runs another one and checks each call
// against the float64 reference of the artifacts' computes
// (Runtime/ReferenceRun.h), as indexpool-launch --verify checks a launch:
// an append's pages by entries and its tails by their type's tolerance,
// a select's tokens with the near-tie rule; with refine also the token
// tier's two calls, its append (pages by entries) and refine_paged (tokens
// with the near-tie rule, the first stage's actual tokens as candidates).
// The inputs are the call's own, the pages read back from the inner
// backend's device store (the call's stored layer, pooled or token tier)
// before and after the call, so this works on any backend, the CUDA one
// included, and needs no compiler (MLIR-free). A call whose results differ
// fails with the comparison's line. For tests and GPU checks: it reads the
// whole device tier of a layer per call.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHECUDA_VERIFYINGCACHEKERNELS_H
#define INDEXPOOL_CACHECUDA_VERIFYINGCACHEKERNELS_H

#include "indexpool/CacheCuda/CudaCacheKernels.h"

#include <atomic>

namespace indexpool::cache {

struct VerifiedCalls {
  std::atomic<std::uint64_t> appends{0}, selects{0};
  /// The token tier's calls (refine only): its appends and refine_paged.
  std::atomic<std::uint64_t> tokenAppends{0}, refines{0};
  /// Near-tie swaps the selects' and refines' comparisons allowed, page
  /// entries one code away (both tiers).
  std::atomic<std::uint64_t> nearTieSwaps{0}, offByOneCodes{0};
};

/// `inner` checked against the computes of `artifacts` (manifests of the
/// configuration's append_paged and select_paged, with refine also the
/// token tier's append_paged and refine_paged; their binaries are not
/// used). `calls` (optional, must outlive the kernels) counts what passed.
std::unique_ptr<CacheKernels>
makeVerifyingCacheKernels(std::unique_ptr<CacheKernels> inner,
                          const CacheConfig &config,
                          const CudaCacheArtifacts &artifacts,
                          VerifiedCalls *calls, std::string &error);

/// The configuration artifacts were compiled for (shapes, bias kind,
/// scores per channel and temperature, from their manifests; refine from
/// the token tier's artifacts: refine_paged keeps k * P + P - 1 tokens of
/// select_paged's C * k pools, 0 without them); the page budgets and tiers
/// are left as they are in `config`.
bool configFromArtifacts(const CudaCacheArtifacts &artifacts,
                         CacheConfig &config, std::string &error);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHECUDA_VERIFYINGCACHEKERNELS_H
