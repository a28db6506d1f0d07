//===- PagedCache.h - The pooled indexer caches of many sequences ---------===//
//
// L layers of paged pooled keys (docs/serving-layout.md) shared by many
// sequences within a page budget: pages and each sequence's tail;
// sequences are added, forked (sharing the parent's pages, copy-on-write)
// and freed (SequenceTable); a decode step appends every layer's new keys
// of a batch of sequences and selects each layer's tokens through the
// paged kernels. The kernels come from a CacheKernels backend: compiled
// for the CPU through the library API (include/indexpool/CacheCpu), and
// later the CUDA runtime. MLIR-free.
//
// Pages live in tiers (ResidentPages): the device tier holds the arrays
// the kernels read, and pages that do not fit wait in host memory or a
// file until a call needs them. Keys are f32; scores are f32 per token or
// per token and channel (CacheConfig::scoreWidth).
//
// With CacheConfig::refine = C >= 1 the cache also holds each layer's token
// tier (docs/serving-layout.md, "The token tier"): a second page array of
// P * E tokens a page under the same page ids, written by every append
// (append_paged, pool_size = 1), and a select runs in two stages:
// select_paged keeps C * k pooled entries (and the tail tokens), then
// refine_paged re-scores those candidates on the token tier and keeps the
// best k * P + P - 1, the shape of a select without refine. Every stored
// layer of a page (pooled and token) lives in the same tier and moves
// with it.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_PAGEDCACHE_H
#define INDEXPOOL_CACHE_PAGEDCACHE_H

#include "indexpool/Cache/CacheConfig.h"
#include "indexpool/Cache/ResidentPages.h"
#include "indexpool/Cache/SequenceTable.h"
#include "indexpool/Cache/SharedPages.h"

#include <memory>
#include <set>

namespace indexpool::cache {

/// One layer's operands of append_paged / select_paged (row-major arrays).
struct AppendCall {
  std::int64_t batch, newTokens, maxPages;
  const float *keys;   // [B, n, D]
  const float *scores; // [B, n, W] (W = scoreWidth)
  const float *bias;   // CacheConfig::biasValues, or null
  float *tailKeys;     // [B, P - 1, D], updated
  float *tailScores;   // [B, P - 1, W], updated
  const std::int32_t *lengths;    // [B], tokens before the append
  std::int8_t *pages;             // [device pages, page bytes], updated
  const std::int32_t *blockTable; // [B, maxPages]
};
struct SelectCall {
  std::int64_t batch, maxPages;
  const float *queries;           // [B, 1, H, D]
  const float *weights;           // [B, 1, H]
  const std::int8_t *pages;       // [device pages, page bytes]
  const std::int32_t *blockTable; // [B, maxPages]
  const std::int32_t *lengths;    // [B, 1]
  // [B, 1, K * P + P - 1] with K = CacheConfig::selectEntries() (C * k
  // with refine), written.
  std::int32_t *tokens;
};
/// One layer's token-tier append: append_paged {pool_size = 1,
/// page_entries = P * E, bias none}; its tails have no rows (every token
/// is a group of one), the lengths and block table are the pooled
/// append's.
struct TokenAppendCall {
  std::int64_t batch, newTokens, maxPages;
  const float *keys;              // [B, n, D]
  const float *scores;            // [B, n, W] (a group of one: weight 1)
  const std::int32_t *lengths;    // [B], tokens before the append
  std::int8_t *pages;             // [device pages, token page bytes], updated
  const std::int32_t *blockTable; // [B, maxPages]
};
/// One layer's second stage: refine_paged {k = k * P + P - 1, page_entries
/// = P * E} over the token tier.
struct RefineCall {
  std::int64_t batch, maxPages;
  const float *queries;           // [B, 1, H, D]
  const float *weights;           // [B, 1, H]
  const std::int32_t *candidates; // [B, 1, C * k * P + P - 1]
  const std::int8_t *pages;       // [device pages, token page bytes]
  const std::int32_t *blockTable; // [B, maxPages]
  const std::int32_t *lengths;    // [B, 1]
  std::int32_t *tokens;           // [B, 1, k * P + P - 1], written
};

/// The paged kernels of one cache configuration, and the memory they read
/// pages from.
class CacheKernels {
public:
  virtual ~CacheKernels();
  virtual bool append(const AppendCall &call, std::string &error) = 0;
  virtual bool select(const SelectCall &call, std::string &error) = 0;
  /// The token tier's kernels (CacheConfig::refine > 0): by default an
  /// error, for a backend without them.
  virtual bool appendTokens(const TokenAppendCall &call, std::string &error);
  virtual bool refine(const RefineCall &call, std::string &error);
  /// The device tier's store, one layer per entry of `layerBytes` (its page
  /// bytes; CacheConfig::storedLayerBytes): the calls' `pages` is its
  /// layerData(layer). Host memory by default; a GPU backend's is device
  /// memory.
  virtual std::unique_ptr<PageStore>
  makeDeviceStore(std::uint64_t slots,
                  const std::vector<std::int64_t> &layerBytes,
                  std::string &error);
  /// The host tier's store: host memory by default; pinned memory on a
  /// GPU backend, so pages move at the bus's speed.
  virtual std::unique_ptr<PageStore>
  makeHostStore(std::uint64_t slots,
                const std::vector<std::int64_t> &layerBytes,
                std::string &error);
};

class PagedCache {
public:
  /// Null with `error` set for a bad configuration. `store` is the bottom
  /// tier's PageStore of config.storePages slots (lib/CacheRedis
  /// makeCacheStore), required exactly when storePages > 0.
  static std::unique_ptr<PagedCache>
  create(const CacheConfig &config, std::unique_ptr<CacheKernels> kernels,
         std::string &error, std::unique_ptr<PageStore> store = nullptr);

  SequenceId add() { return table.add(); }
  /// A sequence sharing `parent`'s pages and tails.
  bool fork(SequenceId parent, SequenceId &child, std::string &error);
  bool free(SequenceId sequence, std::string &error);

  /// One decode step: `newTokens` tokens for each sequence of `batch`
  /// (distinct, live), keys[l] [B, n, D] and scores[l] [B, n, W] for every
  /// layer l. On an error (an unknown or repeated sequence, the budget)
  /// no length changes; pages reserved before the error stay with their
  /// sequences for their next append.
  bool append(const std::vector<SequenceId> &batch, std::int64_t newTokens,
              const std::vector<const float *> &keys,
              const std::vector<const float *> &scores, std::string &error);

  /// Layer `layer`'s tokens for one query row per sequence of `batch`:
  /// queries [B, H, D], weights [B, H]; tokens [B, k * P + P - 1] (the
  /// selected tokens, -1 for empty slots, then the tail tokens). With
  /// refine, the best k * P + P - 1 of the C * k pools' tokens and the tail
  /// tokens by their token-tier scores (the tail tokens compete with the
  /// others instead of being always kept), -1 for empty slots.
  bool select(const std::vector<SequenceId> &batch, std::int64_t layer,
              const float *queries, const float *weights,
              std::vector<std::int32_t> &tokens, std::string &error);

  // The phases of append and select, for a caller that runs the kernels
  // outside its lock (BackgroundCompressor): prepare and commit change the
  // cache's metadata; run only reads it, and writes page bytes no select
  // of committed tokens reads (entries past the committed lengths, in
  // pages that prepare made private). Prepare pins the pages the kernels
  // touch in the device tier (`tables` hold their device slots); commit, or
  // unpin() after a failed run, lets them move again.
  struct PreparedAppend {
    std::vector<SequenceId> batch;
    std::int64_t newTokens = 0, maxPages = 0;
    // tokenTables: the token tier's (page ids when it stays on host).
    std::vector<std::int32_t> tables, tokenTables, lengths;
    std::vector<std::vector<float>> tailKeys, tailScores; // per layer
    std::vector<PageIndex> pinned;
  };
  bool prepareAppend(const std::vector<SequenceId> &batch,
                     std::int64_t newTokens, PreparedAppend &prepared,
                     std::string &error);
  /// keys[l] and scores[l] for every layer (checked by the caller).
  bool runAppend(PreparedAppend &prepared,
                 const std::vector<const float *> &keys,
                 const std::vector<const float *> &scores, std::string &error);
  /// The tails and lengths (of the batch's sequences still live).
  void commitAppend(PreparedAppend &prepared);
  struct PreparedSelect {
    std::vector<SequenceId> batch;
    std::int64_t maxPages = 0;
    std::vector<std::int32_t> tables, tokenTables, lengths;
    std::vector<PageIndex> pinned;
  };
  bool prepareSelect(const std::vector<SequenceId> &batch,
                     PreparedSelect &prepared, std::string &error);
  bool runSelect(const PreparedSelect &prepared, std::int64_t layer,
                 const float *queries, const float *weights,
                 std::vector<std::int32_t> &tokens, std::string &error);
  /// Lets a prepared call's pages move again (after its run); clears
  /// `pinned`.
  void unpin(std::vector<PageIndex> &pinned);
  /// Whether a call's pages fit the device tier beside the pages running
  /// calls pin now (Now), only once they finish (Later), or never (a batch
  /// that is not valid says Now: its prepare reports why).
  enum class Fit { Now, Later, Never };
  Fit selectFit(const std::vector<SequenceId> &batch) const;
  Fit appendFit(const std::vector<SequenceId> &batch,
                std::int64_t newTokens) const;

  const CacheConfig &config() const { return cfg; }
  const SequenceTable &sequences() const { return table; }
  const PageAllocator &allocator() const { return *pageIds; }
  /// Stored layer `layer`'s bytes of `page` (a block table's id; layer L +
  /// l is layer l's token tier, CacheConfig::storedLayers), wherever the
  /// page lives; zeros for a free page.
  bool readPage(PageIndex page, std::int64_t layer, std::int8_t *bytes,
                std::string &error) const;
  /// Stored layer `layer`'s pages by id, [total pages, its page bytes] (a
  /// copy; for checks and small caches).
  std::vector<std::int8_t> logicalPages(std::int64_t layer) const;
  /// Hits, misses and bytes moved per tier.
  ResidencyStats residency() const { return resident->stats(); }
  /// The index (in residency().tiers) of the tier holding `page`, or
  /// TieredPages::kNowhere.
  std::size_t pageTier(PageIndex page) const { return resident->tierOf(page); }
  /// A live sequence's tail in `layer`: keys [P - 1, D] and scores
  /// [P - 1, W] (rows past length mod P hold no token), or null before its
  /// first append.
  const std::pair<std::vector<float>, std::vector<float>> *
  tail(SequenceId sequence, std::int64_t layer) const;

  /// Sharing a sequence between processes through the store tier's
  /// SharedPages (a cache made with a store that has one): publish writes
  /// every page of `sequence` in every stored layer by content (its digest
  /// when the store tier holds it already, else its bytes) and a manifest
  /// `name` (a format version, the configuration, the length, each layer's
  /// tail, the digests); adopt makes a new sequence from a manifest, its
  /// pages read and hash-checked from the store, except those this cache
  /// holds already (published or adopted here, unchanged since), which it
  /// shares (copy-on-write, as a fork). All or nothing: on an error no
  /// sequence is added. A manifest keeps its pages on the server until it
  /// is replaced or unpublished (the store deletes pages nothing refers to).
  bool publish(SequenceId sequence, const std::string &name,
               std::string &error);
  bool adopt(const std::string &name, SequenceId &sequence,
             std::string &error);
  bool unpublish(const std::string &name, std::string &error);
  struct SharingStats {
    std::uint64_t published = 0, adopted = 0; // sequences
    // Pages (every stored layer) published by digest alone and with their
    // bytes; pages adopted (read from the store).
    std::uint64_t pagesByDigest = 0, pagesSent = 0, pagesAdopted = 0;
    // Of the pages adopted, those shared with a page already in the cache.
    std::uint64_t pagesShared = 0;
    double adoptSeconds = 0; // all adopts together
  };
  const SharingStats &sharing() const { return sharingStats; }

  /// The state a snapshot holds, for restore().
  struct State {
    SequenceId nextId = 0;
    std::vector<SequenceTable::Restored> sequences;
    // Per stored layer: the page bytes by id ([total pages, its page
    // bytes]); per layer: the tails (keys, scores) by sequence.
    std::vector<std::vector<std::int8_t>> pages;
    std::vector<std::map<SequenceId,
                         std::pair<std::vector<float>, std::vector<float>>>>
        tails;
  };
  /// A cache with `state`, checked (SequenceTable::restore's rules, one
  /// page array of the total pages per stored layer, tails of P - 1 rows,
  /// tails only of live sequences); null with `error` set otherwise.
  static std::unique_ptr<PagedCache>
  restore(const CacheConfig &config, std::unique_ptr<CacheKernels> kernels,
          State state, std::string &error,
          std::unique_ptr<PageStore> store = nullptr);

private:
  // Per sequence: the tail keys [P - 1, D] and scores [P - 1, W].
  using Tails =
      std::map<SequenceId, std::pair<std::vector<float>, std::vector<float>>>;
  PagedCache(const CacheConfig &config, std::unique_ptr<PageAllocator> ids,
             std::unique_ptr<ResidentPages> resident,
             std::unique_ptr<CacheKernels> kernels);
  /// The batch's block tables, [B, maxPages] (at least
  /// ceil(selectEntries() / E) columns, as select_paged wants): the
  /// device slots of each sequence's pages `used[b]` (first, end), which
  /// must be pinned, and 0 (never read) elsewhere.
  std::vector<std::int32_t>
  deviceTables(const std::vector<SequenceId> &batch,
               const std::vector<std::pair<std::int64_t, std::int64_t>> &used,
               std::int64_t &maxPages) const;
  /// The token tier's block tables for `tables` of `batch`: the same
  /// when it moves with the pools, else every page's id (its slot on host).
  std::vector<std::int32_t>
  tokenTables(const std::vector<SequenceId> &batch,
              const std::vector<std::int32_t> &tables,
              std::int64_t maxPages) const;
  /// Stored layer `layer` of `page` wherever it lives, and into a page
  /// pinned in the device tier (the token tier on host: its own slot).
  bool readStored(PageIndex page, std::int64_t layer, std::int8_t *bytes,
                  std::string &error) const;
  bool writePinned(PageIndex page, std::int64_t layer,
                   const std::int8_t *bytes, std::string &error);
  /// The array layer `layer`'s token tier is in, as the kernels take it.
  std::int8_t *tokenLayer(std::int64_t layer);
  /// Fit of a call touching `pages` (distinct ids) and `fresh` more pages
  /// no call pins yet.
  Fit fit(const std::set<PageIndex> &pages, std::uint64_t fresh) const;
  /// `batch` has distinct live sequences; else false with `error` set.
  bool checkBatch(const std::vector<SequenceId> &batch, std::string &error);
  /// A page no sequence holds any more leaves its tier.
  void releaseIfFree(PageIndex page);
  /// Page `page`'s digests in a manifest's list (every stored layer's).
  std::string pageDigests(const std::vector<std::string> &digests,
                          std::int64_t page) const;
  /// The pages adopt may share: a page and its digests, known from a
  /// publish or an adopt, until it is written or freed.
  void rememberDigests(PageIndex page, const std::string &key);
  void forgetDigests(PageIndex page);

  CacheConfig cfg;
  std::unique_ptr<PageAllocator> pageIds;
  SequenceTable table;
  std::unique_ptr<ResidentPages> resident;
  // The token tier when it stays on host (CacheConfig::tokenTierOnHost):
  // every page id's slot, L layers; else null.
  std::unique_ptr<PageStore> tokenStore;
  std::unique_ptr<CacheKernels> kernels;
  std::vector<Tails> tails; // per layer
  // References kept for freed sequences' pages that a running call pins.
  std::map<PageIndex, std::uint32_t> held;
  // The store tier's content-level API, or null.
  SharedPages *shared = nullptr;
  SharingStats sharingStats;
  std::map<std::string, PageIndex> pagesByDigests;
  std::map<PageIndex, std::string> digestsOfPage;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_PAGEDCACHE_H
