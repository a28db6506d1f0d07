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
#include <vector>

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

  // How groups are pooled (docs/IndexPoolOps.md, compress): gate scores
  // per token ([n]) or per token and channel ([n, D]); a learned bias added
  // to them, none, "slot" (biasValues [P]) or "channel" ([P, D]); the
  // softmax temperature. Keys rotate, scales are not rounded to powers of
  // two.
  bool perChannelScores = false;
  std::string bias = "none";
  std::vector<float> biasValues;
  float temperature = 1.0f;

  /// Scores per token: 1 or D.
  std::int64_t scoreWidth() const { return perChannelScores ? dim : 1; }
  /// The values `bias` needs: 0, P or P * D (-1 for an unknown kind).
  std::int64_t biasCount() const {
    return bias == "none"    ? 0
           : bias == "slot"  ? poolSize
           : bias == "channel" ? poolSize * dim
                               : -1;
  }
  /// E * (D + 4): FP8 codes then f32 scales.
  std::int64_t pageBytes() const { return pageEntries * (dim + 4); }
  /// The pages the sequences may hold, every tier together.
  std::uint64_t totalPages() const { return pages + hostPages + filePages; }
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_CACHECONFIG_H
