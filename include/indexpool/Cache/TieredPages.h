//===- TieredPages.h - Page residency across memory tiers -----------------===//
//
// Where every page of the cache lives: a stack of tiers (device memory,
// pinned host memory, an optional file), each with a fixed budget of pages
// and its own eviction policy. A reference finds its page in some tier (a
// hit there) or in none (a miss: the page must be rebuilt) and leaves it in
// tier 0; a full tier moves its policy's victim one tier down, and the last
// tier drops it. Counters say where each reference was served and how many
// pages crossed each boundary. The cache runtime keeps its page tables with
// it; the trace simulator runs it alone.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_TIEREDPAGES_H
#define INDEXPOOL_CACHE_TIEREDPAGES_H

#include "indexpool/Cache/EvictionPolicy.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace indexpool::cache {

struct TierConfig {
  std::string name;     // "device", "host", "file"
  std::uint64_t pages;  // the budget, at least 1
};

struct TierCounters {
  std::uint64_t hits = 0;      // references served from this tier
  std::uint64_t pagesIn = 0;   // pages that came in (from above or below)
  std::uint64_t pagesDown = 0; // pages this tier moved down (or dropped)
};

class TieredPages {
public:
  /// Tiers top (0) to bottom, each with a policy from parsePolicy(`policy`);
  /// null with `error` set when a budget is 0 or the policy is unknown.
  static std::unique_ptr<TieredPages> create(std::vector<TierConfig> tiers,
                                             const std::string &policy,
                                             std::string &error);

  /// Where a reference found its page: a tier index, or kNowhere.
  static constexpr std::size_t kNowhere = ~std::size_t(0);

  /// A page that changed tiers while another was referenced (`to` is
  /// kNowhere for a page the last tier dropped).
  struct Move {
    PageId page;
    std::size_t from, to;
  };
  /// References `page` (one clock tick): where it was; it is then in tier 0.
  /// The victims it pushed down are appended to `moves` in the order a
  /// caller moving bytes must follow (the deepest first, each into the slot
  /// the one before it freed; `page` itself left its tier before them).
  std::size_t reference(PageId page, std::vector<Move> *moves = nullptr);
  /// Pages no tier may move while `pinned` says so (a caller pins only
  /// pages in tier 0 and references a page outside tier 0 only while some
  /// tier-0 page is unpinned).
  void setPinned(EvictionPolicy::Pinned pinned) { this->pinned = std::move(pinned); }
  /// Forgets `page` wherever it is (its sequence was freed).
  void release(PageId page);
  /// The tier holding `page`, or kNowhere.
  std::size_t tierOf(PageId page) const;

  std::size_t tierCount() const { return tiers.size(); }
  const TierConfig &config(std::size_t tier) const { return tiers[tier].config; }
  const TierCounters &counters(std::size_t tier) const {
    return tiers[tier].counters;
  }
  std::uint64_t residentPages(std::size_t tier) const {
    return tiers[tier].policy->size();
  }
  std::uint64_t references() const { return clock; }
  /// References whose page was in no tier.
  std::uint64_t misses() const { return missCount; }
  /// Pages the last tier dropped.
  std::uint64_t dropped() const { return droppedCount; }

private:
  struct Tier {
    TierConfig config;
    std::unique_ptr<EvictionPolicy> policy;
    TierCounters counters;
  };
  TieredPages() = default;
  /// Makes room for one page in `tier`, cascading down.
  void makeRoom(std::size_t tier, std::vector<Move> *moves);

  std::vector<Tier> tiers;
  std::unordered_map<PageId, std::size_t> location;
  EvictionPolicy::Pinned pinned;
  std::uint64_t clock = 0, missCount = 0, droppedCount = 0;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_TIEREDPAGES_H
