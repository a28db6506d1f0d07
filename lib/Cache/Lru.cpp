//===- Lru.cpp - Least-recently-used eviction -----------------------------===//
//
// A list in reference order (most recent first) and an index into it: every
// operation is O(1).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Cache/EvictionPolicy.h"

#include <list>
#include <unordered_map>

using namespace indexpool::cache;

namespace {

class Lru final : public EvictionPolicy {
public:
  std::string name() const override { return "lru"; }

  void admit(PageId page, std::uint64_t) override {
    remove(page);
    order.push_front(page);
    where[page] = order.begin();
  }

  void reference(PageId page, std::uint64_t now) override {
    auto it = where.find(page);
    if (it == where.end())
      return admit(page, now);
    order.splice(order.begin(), order, it->second);
  }

  void remove(PageId page) override {
    auto it = where.find(page);
    if (it == where.end())
      return;
    order.erase(it->second);
    where.erase(it);
  }

  std::optional<PageId> victim(std::uint64_t,
                               const Pinned &pinned) const override {
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if (!pinned || !pinned(*it))
        return *it;
    return std::nullopt;
  }

  std::size_t size() const override { return where.size(); }

private:
  std::list<PageId> order;
  std::unordered_map<PageId, std::list<PageId>::iterator> where;
};

} // namespace

std::unique_ptr<EvictionPolicy> indexpool::cache::makeLru() {
  return std::make_unique<Lru>();
}
