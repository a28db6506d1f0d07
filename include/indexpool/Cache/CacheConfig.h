//===- CacheConfig.h - The shape and budgets of a paged cache -------------===//
//
// What a PagedCache is: L layers of pooled keys in the serving layout
// (docs/serving-layout.md), optionally their token tier (one entry per
// token, for the two-stage selection), and the page budgets of its memory
// tiers. The
// device tier holds the page arrays the kernels read; pages that do not
// fit there wait in a host tier, then in a file tier, and come back when a
// call needs them (docs/cache.md, "Tiers").
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_CACHECONFIG_H
#define INDEXPOOL_CACHE_CACHECONFIG_H

#include "indexpool/Vocabulary/PageLayout.h"

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
  // The pooled entries' code type: a row of ElementTypes.def with the
  // PagedCode use (f8E4M3FN, i8, i4). The token tier keeps FP8 codes.
  ElementType codes = ElementType::F8E4M3FN;

  // Lower tiers (0 pages: no such tier). Pages a call needs are moved to
  // the device tier first; the policy picks which pages make room.
  std::uint64_t hostPages = 0; // host memory (pinned on a GPU)
  std::uint64_t filePages = 0; // a file, created at filePath and unlinked
  std::string filePath;        // at once (nothing is left after a crash)
  std::string policy = "lru-k"; // parsePolicy's names
  // The bottom tier: a shared page store (a Redis or Valkey server,
  // lib/CacheRedis makeCacheStore) of storePages pages, below the file
  // tier. Its namespace hashes storeModel with everything that decides a
  // page's bytes, so caches of other models or formats never share pages.
  std::string storeUrl;        // empty: none ("redis://127.0.0.1:6379/0")
  std::uint64_t storePages = 0;
  std::string storeModel;
  // While the server cannot take writes, the store tier's pages wait in
  // host memory, at most this many (0: as many as the device tier holds,
  // `pages`; else at least that many, so that any one call fits): past it
  // a call that would move pages there is refused before anything moves.
  std::uint64_t storeHeldPages = 0;

  // How groups are pooled (docs/IndexPoolOps.md, compress): gate scores
  // per token ([n]) or per token and channel ([n, D]); a learned bias added
  // to them, none, "slot" (biasValues [P]) or "channel" ([P, D]); the
  // softmax temperature. Keys rotate, scales are not rounded to powers of
  // two.
  bool perChannelScores = false;
  std::string bias = "none";
  std::vector<float> biasValues;
  float temperature = 1.0f;

  // The token tier (docs/serving-layout.md, "The token tier"): 0, off; C
  // >= 1 keeps every token's key too (a second page array per layer, the
  // same page ids) and selects in two stages: select_paged keeps C * k
  // pooled entries, refine_paged the best k * P + P - 1 of their tokens
  // and the tail's.
  std::int64_t refine = 0;
  // Where the token tier lives: "device" (a page's token layers move with
  // its pools through every tier) or "host": host memory (pinned on a GPU,
  // where refine_paged and the token append reach it over the bus), every
  // page id in its own slot, never moving. The tiers then hold the pooled
  // layers only: a device page costs L E (D + 4) bytes instead of (1 + P)
  // times that.
  std::string tokenTier = "device";

  /// Scores per token: 1 or D.
  std::int64_t scoreWidth() const { return perChannelScores ? dim : 1; }
  /// The values `bias` needs: 0, P or P * D (-1 for an unknown kind).
  std::int64_t biasCount() const {
    return bias == "none"    ? 0
           : bias == "slot"  ? poolSize
           : bias == "channel" ? poolSize * dim
                               : -1;
  }
  /// The pooled layers' pages: E entries of D `codes`, codes first.
  vocab::PageLayout pooledLayout() const {
    return {pageEntries, dim, codes, /*scalesFirst=*/false};
  }
  /// A token tier's page: P * E tokens, one FP8 entry each.
  vocab::PageLayout tokenLayout() const {
    return {poolSize * pageEntries, dim, ElementType::F8E4M3FN,
            /*scalesFirst=*/false};
  }
  /// E * (D + 4) for one-byte codes (-1 on overflow; verify refuses it).
  std::int64_t pageBytes() const { return pooledLayout().pageBytes(); }
  /// P * E * (D + 4).
  std::int64_t tokenPageBytes() const { return tokenLayout().pageBytes(); }
  /// The arrays a page id has bytes in ("stored layers"): the L pooled
  /// layers, then with refine the L token-tier layers (stored layer L + l
  /// is layer l's token tier).
  std::int64_t storedLayers() const { return refine > 0 ? 2 * layers : layers; }
  /// Each stored layer's page bytes.
  std::vector<std::int64_t> storedLayerBytes() const {
    std::vector<std::int64_t> bytes(size_t(layers), pageBytes());
    if (refine > 0)
      bytes.resize(size_t(2 * layers), tokenPageBytes());
    return bytes;
  }
  /// Whether the token tier stays in host memory (refine > 0 and
  /// tokenTier "host").
  bool tokenTierOnHost() const { return refine > 0 && tokenTier == "host"; }
  /// Rows of the array a token-tier call gets: the device tier's slots,
  /// or a slot for every page id when the token tier stays on host.
  std::uint64_t tokenTierSlots() const {
    return tokenTierOnHost() ? totalPages() : pages;
  }
  /// The page bytes of the stored layers the tiers move: all of them, or
  /// the L pooled ones when the token tier stays on host.
  std::vector<std::int64_t> tieredLayerBytes() const {
    std::vector<std::int64_t> bytes = storedLayerBytes();
    if (tokenTierOnHost())
      bytes.resize(size_t(layers));
    return bytes;
  }
  /// Pooled entries select_paged keeps: k, or C * k with refine.
  std::int64_t selectEntries() const { return refine > 0 ? refine * k : k; }
  /// The pages the sequences may hold, every tier together.
  std::uint64_t totalPages() const {
    return pages + hostPages + filePages + storePages;
  }

  /// "" when a cache can have this configuration, else why not ("cache
  /// configuration: ..."): the sizes, the code type, the bias, the token
  /// tier, the tiers' page budgets and their bytes against this machine's
  /// memory (PagedCache::create checks its kernels and page store too).
  std::string verify() const;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_CACHECONFIG_H
