//===- CacheConfig.h - The shape and budgets of a paged cache -------------===//
//
// What a PagedCache is: L layers of pooled keys in the serving layout
// (docs/serving-layout.md), and the page budgets of its memory tiers. The
// device tier holds the page arrays the kernels read; pages that do not
// fit there wait in a host tier, then in a file tier, and come back when a
// call needs them (docs/cache.md, "Tiers").
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_CACHECONFIG_H
#define INDEXPOOL_CACHE_CACHECONFIG_H

#include <cstdint>
#include <string>

namespace indexpool::cache {

struct CacheConfig {
  std::int64_t layers = 1;
  std::int64_t dim = 128;        // D
  std::int64_t poolSize = 4;     // P
  std::int64_t pageEntries = 64; // E
  std::uint64_t pages = 1024;    // the device tier's pages
  std::int64_t heads = 64;       // H of the queries
  std::int64_t k = 512;          // pooled entries a select keeps

  // Lower tiers (0 pages: no such tier). Pages a call needs are moved to
  // the device tier first; the policy picks which pages make room.
  std::uint64_t hostPages = 0; // host memory (pinned on a GPU)
  std::uint64_t filePages = 0; // a file, created at filePath and unlinked
  std::string filePath;        // at once (nothing is left after a crash)
  std::string policy = "lru-k"; // parsePolicy's names

  /// E * (D + 4): FP8 codes then f32 scales.
  std::int64_t pageBytes() const { return pageEntries * (dim + 4); }
  /// The pages the sequences may hold, every tier together.
  std::uint64_t totalPages() const { return pages + hostPages + filePages; }
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_CACHECONFIG_H
