//===- ResidentPages.h - Where each page of a cache lives, and its bytes --===//
//
// The tiers of a PagedCache with their bytes: the device tier (the arrays
// the kernels read, indexed by slot), then optionally host memory and a
// file, then a shared page store (a Redis server). TieredPages decides
// which page goes where; this moves the bytes to follow, and maps each page
// (the id in a block table) to its slot in the device tier, which is what
// the kernels get. A call pins the pages it reads or writes: they are made
// resident first (a miss moves the page up and the policy's victims down),
// and no pinned page moves until it is unpinned, so kernels may run outside
// the caller's lock.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_RESIDENTPAGES_H
#define INDEXPOOL_CACHE_RESIDENTPAGES_H

#include "indexpool/Cache/CacheConfig.h"
#include "indexpool/Cache/PageAllocator.h"
#include "indexpool/Cache/PageStore.h"
#include "indexpool/Cache/TieredPages.h"

#include <map>
#include <unordered_map>

namespace indexpool::cache {

/// Traffic of one tier, in pages and bytes (every stored layer).
struct TierStats {
  std::string name;
  std::uint64_t pages = 0, resident = 0;
  std::uint64_t hits = 0; // pages calls found here
  // Pages that arrived with their bytes and pages that left (down, or up
  // to the device tier).
  std::uint64_t pagesIn = 0, pagesOut = 0;
  std::uint64_t bytesIn = 0, bytesOut = 0;
};
struct ResidencyStats {
  std::uint64_t hits = 0;     // pages a call found in the device tier
  std::uint64_t misses = 0;   // pages brought back from a lower tier
  std::uint64_t newPages = 0; // pages placed for the first time
  std::vector<TierStats> tiers;
};

class ResidentPages {
public:
  /// The tiers `config` names: `device` (config.pages slots), `host`
  /// (config.hostPages slots, null when there are none), a file tier of its
  /// own, then `store` (config.storePages slots, tier "store"; null when
  /// there are none); null with `error` set for a bad budget, an unknown
  /// policy or a file tier that cannot be made.
  static std::unique_ptr<ResidentPages>
  create(const CacheConfig &config, std::unique_ptr<PageStore> device,
         std::unique_ptr<PageStore> host, std::string &error,
         std::unique_ptr<PageStore> store = nullptr);

  /// Makes every page of `pages` resident in the device tier and pins it
  /// (once per occurrence). Refused, with nothing pinned, when the distinct
  /// pages and those pinned already exceed the device tier. Pages in the
  /// store tier are read first: one it lost or changed refuses the call
  /// with nothing moved or pinned, and later calls on other pages work.
  /// Any other failed move (a file error) is fatal: this and every later
  /// call say so. A page seen for the first time gets zeroed bytes.
  bool pin(const std::vector<PageIndex> &pages, std::string &error);
  /// Reads every stored layer of each page of `pages` in the store tier,
  /// so a lost one is refused before the caller changes anything.
  bool checkStored(const std::vector<PageIndex> &pages,
                   std::string &error) const;
  /// The digest under which the store tier holds layer `layer` of `page`
  /// (SharedPages::pageDigest), or "" (elsewhere, or held locally).
  std::string storeDigest(PageIndex page, std::int64_t layer) const;
  /// The tier holding `page`, or TieredPages::kNowhere.
  std::size_t tierOf(PageIndex page) const {
    return tiers->tierOf(PageId(page));
  }
  void unpin(const std::vector<PageIndex> &pages);
  bool pinned(PageIndex page) const { return pins.count(page) != 0; }
  std::uint64_t pinnedPages() const { return pins.size(); }
  /// A freed page leaves its tier (it must not be pinned).
  void drop(PageIndex page);

  /// The device slot of a pinned page.
  PageIndex slot(PageIndex page) const { return slots[0][size_t(page)]; }
  /// The device tier's array of stored layer `layer` (CacheConfig::
  /// storedLayers), [device pages, its page bytes] (on a GPU backend, a
  /// device pointer).
  std::int8_t *deviceLayer(std::int64_t layer) {
    return stores[0]->layerData(layer);
  }
  /// Writes layer `layer` of a pinned page in the device tier.
  bool writeResident(PageIndex page, std::int64_t layer,
                     const std::int8_t *bytes, std::string &error) {
    return stores[0]->write(std::uint64_t(slot(page)), layer, bytes, error);
  }
  /// Layer `layer`'s bytes of `page` wherever it is (zeros if nowhere).
  bool read(PageIndex page, std::int64_t layer, std::int8_t *bytes,
            std::string &error) const;

  ResidencyStats stats() const;
  /// The fatal error of a failed move, or empty.
  const std::string &failure() const { return failed; }

private:
  ResidentPages(const CacheConfig &config, std::unique_ptr<TieredPages> tiers,
                std::vector<std::unique_ptr<PageStore>> stores);
  /// One page to the device tier (not pinned yet), with its bytes in every
  /// stored layer already read (`fetched`) or read here.
  bool makeResident(PageIndex page, const std::vector<std::int8_t> *fetched,
                    std::string &error);
  /// Every stored layer of `page` from the store tier into `bytes` (a
  /// page's staging size); the error names the page.
  bool readStored(PageIndex page, std::vector<std::int8_t> &bytes,
                  std::string &error) const;
  /// readStored for every page of `pages` in the store tier, into
  /// `fetched`: by content in one batch (SharedPages::getPages) where the
  /// store shares pages and holds them all, else a page at a time.
  bool readStoredPages(const std::vector<PageIndex> &pages,
                       std::map<PageIndex, std::vector<std::int8_t>> &fetched,
                       std::string &error) const;
  /// Every stored layer of `page` from tier `from`'s slot to a free slot of
  /// `to`.
  bool move(PageIndex page, std::size_t from, std::size_t to,
            std::string &error);
  /// A pointer to each layer's bytes in one slot's bytes laid out as
  /// staging is (layerStarts).
  std::vector<const std::int8_t *>
  layersOf(const std::vector<std::int8_t> &slotBytes) const;

  CacheConfig cfg;
  std::unique_ptr<TieredPages> tiers;
  std::vector<std::unique_ptr<PageStore>> stores;
  // Per tier: each page's slot (-1: not there) and the free slots.
  std::vector<std::vector<PageIndex>> slots;
  std::vector<std::vector<PageIndex>> freeSlots;
  std::unordered_map<PageIndex, std::uint32_t> pins;
  // Each stored layer's page bytes, and where it starts in a page's bytes
  // in every layer (staging: one page, every stored layer).
  std::vector<std::int64_t> layerBytes;
  std::vector<size_t> layerStarts;
  std::vector<std::int8_t> staging;
  std::string failed;
  // The store tier's index, or kNowhere.
  std::size_t storeTier = TieredPages::kNowhere;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_RESIDENTPAGES_H
