//===- EvictionPolicy.h - Which resident page of a tier moves down --------===//
//
// One small interface behind every eviction policy of the cache runtime: a
// tier tells its policy each page that becomes resident, each reference and
// each page that leaves, and asks it for a victim when it is full. Time is
// a logical clock that never decreases (the simulator ticks once per
// reference). MLIR-free, like the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_EVICTIONPOLICY_H
#define INDEXPOOL_CACHE_EVICTIONPOLICY_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace indexpool::cache {

/// A page of the cache, the unit of residency.
using PageId = std::uint64_t;

class EvictionPolicy {
public:
  virtual ~EvictionPolicy();
  /// The policy as parsePolicy reads it back ("lru", "lru-k:2:0").
  virtual std::string name() const = 0;
  /// `page` became resident at `now` (a reference too).
  virtual void admit(PageId page, std::uint64_t now) = 0;
  /// Resident `page` was referenced at `now`.
  virtual void reference(PageId page, std::uint64_t now) = 0;
  /// `page` left the tier (moved down, dropped or freed).
  virtual void remove(PageId page) = 0;
  /// Pages that must stay where they are (a running kernel reads them).
  using Pinned = std::function<bool(PageId)>;
  /// The page to move down at `now`, never one `pinned` names (an empty
  /// function pins none); none when every resident page is pinned.
  virtual std::optional<PageId> victim(std::uint64_t now,
                                       const Pinned &pinned) const = 0;
  std::optional<PageId> victim(std::uint64_t now) const {
    return victim(now, nullptr);
  }
  /// Resident pages.
  virtual std::size_t size() const = 0;
};

/// Least recently used.
std::unique_ptr<EvictionPolicy> makeLru();

/// LRU-K (O'Neil, O'Neil and Weikum, SIGMOD 1993): the victim is the page
/// whose K-th most recent uncorrelated reference is oldest (pages with fewer
/// than K count as infinitely old; ties go to the least recently used).
/// References within `correlatedPeriod` ticks of a page's last one are
/// correlated (one burst): they refresh it without counting, and such a
/// page is not a victim while others are. Removed pages' histories are kept
/// for as many pages as were ever resident at once, so a page that comes back
/// resumes its history. k >= 1 (k = 1 is LRU).
std::unique_ptr<EvictionPolicy> makeLruK(unsigned k,
                                         std::uint64_t correlatedPeriod);

/// "lru", "lru-k" (K = 2, no correlated period), "lru-k:K" or
/// "lru-k:K:PERIOD"; null with `error` set for anything else.
std::unique_ptr<EvictionPolicy> parsePolicy(const std::string &spec,
                                            std::string &error);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_EVICTIONPOLICY_H
