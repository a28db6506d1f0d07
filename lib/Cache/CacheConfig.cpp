//===- CacheConfig.cpp - What makes a cache configuration valid -----------===//
//
// The checks of a CacheConfig alone (PagedCache::create adds those of its
// kernels and page store): sizes, the code type and page layout, the bias,
// the token tier, the tiers' page budgets and their memory.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/CacheConfig.h"

#include "indexpool/Cache/PageAllocator.h"
#include "indexpool/Cache/PageStore.h"

#include <climits>
#include <cmath>

#include <unistd.h>

using namespace indexpool::cache;

std::string CacheConfig::verify() const {
  const CacheConfig &c = *this;
  if (c.layers < 1 || c.dim < 1 || c.poolSize < 1 || c.pageEntries < 1 ||
      c.heads < 1 || c.k < 0 || c.layers > 4096 || c.dim > 65536 ||
      c.poolSize > 4096 || c.pageEntries > 65536) {
    return "cache configuration: expected 1 to 4096 layers, D from 1 to "
           "65536, P from 1 to 4096, 1 to 65536 entries per page, H >= 1 and "
           "k >= 0";
  }
  // The pooled pages' layout: a paged code type, D a multiple of its codes
  // a byte (ElementTypes.def, PageLayout::check).
  if (int(c.codes) < 0 || int(c.codes) >= kNumElementTypes) {
    return "cache configuration: " +
           unknownElementTypeMessage(std::to_string(int(c.codes)),
                                     "code type", ElementUse::PagedCode);
  }
  if (std::string why = c.pooledLayout().check(); !why.empty()) {
    return "cache configuration: " + why;
  }
  if (c.biasCount() < 0 || std::int64_t(c.biasValues.size()) != c.biasCount() ||
      !(c.temperature > 0.0f) || !std::isfinite(c.temperature)) {
    return "cache configuration: bias is none, slot (" +
           std::to_string(c.poolSize) + " values) or channel (P x D = " +
           std::to_string(c.poolSize * c.dim) +
           " values) and the temperature finite and > 0; got bias '" +
           c.bias + "' with " + std::to_string(c.biasValues.size()) +
           " values, temperature " + std::to_string(c.temperature);
  }
  // The token tier: select_paged's row (C * k * P + P - 1 candidates) is
  // i32-indexed, and refine_paged keeps k * P + P - 1 >= 1 of it.
  if (c.refine < 0 || c.refine > 65536 ||
      (c.refine > 0 &&
       (c.k < 1 || (unsigned __int128)c.refine * std::uint64_t(c.k) *
                           std::uint64_t(c.poolSize) +
                       std::uint64_t(c.poolSize) - 1 >
                   (unsigned __int128)INT32_MAX))) {
    return "cache configuration: refine is 0 (off) or C from 1 to 65536 "
           "with k >= 1 and C * k * P + P - 1 candidates below 2^31; got "
           "refine " + std::to_string(c.refine) + ", k " +
           std::to_string(c.k) + ", P " + std::to_string(c.poolSize);
  }
  if (c.tokenTier != "device" && c.tokenTier != "host") {
    return "cache configuration: tokenTier is device or host, got '" +
           c.tokenTier + "'";
  }
  // Every tier's budget and their sum are page ids (i32).
  const std::uint64_t limit = PageAllocator::kMaxPages;
  if (c.pages == 0 || c.pages > limit || c.hostPages > limit ||
      c.filePages > limit || c.storePages > limit || c.totalPages() > limit) {
    return "cache configuration: the device tier needs 1 to 2^31 pages and "
           "all tiers together at most 2^31 (device " +
           std::to_string(c.pages) + ", host " + std::to_string(c.hostPages) +
           ", file " + std::to_string(c.filePages) + ", store " +
           std::to_string(c.storePages) + ")";
  }
  if (c.storeHeldPages != 0 &&
      (c.storeHeldPages < c.pages || c.storeHeldPages > limit)) {
    return "cache configuration: storeHeldPages is 0 (the device tier's " +
           std::to_string(c.pages) + " pages) or from " +
           std::to_string(c.pages) + " to 2^31, got " +
           std::to_string(c.storeHeldPages);
  }
  // The memory tiers (pages x the page bytes of every stored layer) and 16
  // bytes of bookkeeping a page per tier, all allocated now: checked
  // against the machine's memory (in 128 bits: the bounds above allow
  // ~2^89 bytes). The sum of the layers' page bytes fits 2^62 (4096 x 2
  // layers of at most 2^44 bytes).
  // The token tier on host takes a slot for every page id.
  const std::vector<std::int64_t> layerBytes = c.tieredLayerBytes();
  const std::vector<std::int64_t> tokenBytes(
      c.tokenTierOnHost() ? size_t(c.layers) : 0, c.tokenPageBytes());
  const std::int64_t allLayers = pageBytesInAllLayers(layerBytes);
  const unsigned __int128 total =
      (unsigned __int128)(c.pages + c.hostPages) *
          (unsigned __int128)std::uint64_t(allLayers) +
      (unsigned __int128)c.totalPages() *
          (unsigned __int128)(tokenBytes.size() *
                              std::uint64_t(c.tokenPageBytes())) +
      (unsigned __int128)c.totalPages() * 16 * 3;
  const long physical = sysconf(_SC_PHYS_PAGES), unit = sysconf(_SC_PAGE_SIZE);
  const std::uint64_t memory =
      physical > 0 && unit > 0 ? std::uint64_t(physical) * std::uint64_t(unit)
                               : ~std::uint64_t(0);
  if (allLayers < 0 || total > memory) {
    return "cache configuration: " + std::to_string(c.pages + c.hostPages) +
           " device and host pages of " + std::to_string(c.pageBytes()) +
           " bytes in " + std::to_string(c.layers) + " layers" +
           (c.refine > 0 ? " (and " + std::to_string(c.tokenPageBytes()) +
                               " bytes in each layer's token tier" +
                               (c.tokenTierOnHost()
                                    ? ", on host for all " +
                                          std::to_string(c.totalPages()) +
                                          " pages)"
                                    : ")")
                         : "") +
           " take more than this machine's " + std::to_string(memory) +
           " bytes of memory";
  }
  return "";
}
