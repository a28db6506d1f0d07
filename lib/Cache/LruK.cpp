//===- LruK.cpp - LRU-K eviction ------------------------------------------===//
//
// Each page keeps HIST(1..K), the times of its K most recent uncorrelated
// references (0: none), and LAST, its most recent reference (O'Neil et al.,
// "The LRU-K page replacement algorithm for database disk buffering", 1993).
// A reference more than the correlated period after LAST opens a new burst:
// the history shifts by one, each older entry moved forward by the length of
// the burst that just closed (LAST - HIST(1)), so a burst counts as one
// reference at its start. The victim is the resident page with the smallest
// HIST(K) (the oldest K-th reference, never-K-times first), ties broken by
// LAST; pages inside their correlated period are skipped unless every page
// is. Resident pages sit in a set ordered by (HIST(K), LAST, page), so a
// victim is found from its front.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/EvictionPolicy.h"

#include <algorithm>
#include <list>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

using namespace indexpool::cache;

namespace {

struct History {
  std::vector<std::uint64_t> hist; // hist[0] = HIST(1), the most recent
  std::uint64_t last = 0;
};

class LruK final : public EvictionPolicy {
public:
  LruK(unsigned k, std::uint64_t period) : k(k), period(period) {}

  std::string name() const override {
    return "lru-k:" + std::to_string(k) + ":" + std::to_string(period);
  }

  void admit(PageId page, std::uint64_t now) override {
    const std::uint64_t t = now + 1; // 0 stands for "never"
    if (resident.count(page))
      return reference(page, now);
    History h;
    if (auto it = retained.find(page); it != retained.end()) {
      h = std::move(it->second.first);
      retainedOrder.erase(it->second.second);
      retained.erase(it);
      // A page coming back opens a new burst (its last one closed when it
      // left).
      shift(h, t);
    } else {
      h.hist.assign(k, 0);
      h.hist[0] = t;
      h.last = t;
    }
    order.insert(key(page, h));
    resident.emplace(page, std::move(h));
    peak = std::max(peak, resident.size());
  }

  void reference(PageId page, std::uint64_t now) override {
    auto it = resident.find(page);
    if (it == resident.end())
      return admit(page, now);
    const std::uint64_t t = now + 1;
    History &h = it->second;
    order.erase(key(page, h));
    if (t - h.last > period)
      shift(h, t);
    else
      h.last = t;
    order.insert(key(page, h));
  }

  void remove(PageId page) override {
    auto it = resident.find(page);
    if (it == resident.end())
      return;
    order.erase(key(page, it->second));
    // Keep the history (the paper's retained information), bounded by the
    // most pages ever resident at once, the oldest forgotten first.
    retainedOrder.push_front(page);
    retained.emplace(page,
                     std::make_pair(std::move(it->second), retainedOrder.begin()));
    resident.erase(it);
    while (retained.size() > std::max<std::size_t>(peak, 1)) {
      retained.erase(retainedOrder.back());
      retainedOrder.pop_back();
    }
  }

  std::optional<PageId> victim(std::uint64_t now,
                               const Pinned &pinned) const override {
    const std::uint64_t t = now + 1;
    std::optional<PageId> correlated;
    for (const auto &[histK, last, page] : order) {
      if (pinned && pinned(page))
        continue;
      if (t - last > period)
        return page;
      if (!correlated)
        correlated = page;
    }
    return correlated;
  }

  std::size_t size() const override { return resident.size(); }

private:
  using Key = std::tuple<std::uint64_t, std::uint64_t, PageId>;

  Key key(PageId page, const History &h) const {
    return {h.hist[k - 1], h.last, page};
  }

  /// A new uncorrelated reference at t: older entries move forward by the
  /// closed burst's length.
  void shift(History &h, std::uint64_t t) const {
    const std::uint64_t burst = h.last - h.hist[0];
    for (unsigned i = k - 1; i > 0; --i)
      h.hist[i] = h.hist[i - 1] ? h.hist[i - 1] + burst : 0;
    h.hist[0] = t;
    h.last = t;
  }

  const unsigned k;
  const std::uint64_t period;
  std::unordered_map<PageId, History> resident;
  std::set<Key> order;
  std::unordered_map<PageId, std::pair<History, std::list<PageId>::iterator>>
      retained;
  std::list<PageId> retainedOrder;
  std::size_t peak = 0;
};

} // namespace

std::unique_ptr<EvictionPolicy>
indexpool::cache::makeLruK(unsigned k, std::uint64_t correlatedPeriod) {
  return std::make_unique<LruK>(std::max(k, 1u), correlatedPeriod);
}
