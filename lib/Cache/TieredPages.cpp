//===- TieredPages.cpp - Page residency across memory tiers ---------------===//

#include "indexpool/Cache/TieredPages.h"

using namespace indexpool::cache;

std::unique_ptr<TieredPages>
TieredPages::create(std::vector<TierConfig> configs, const std::string &policy,
                    std::string &error) {
  if (configs.empty()) {
    error = "a cache needs at least one tier";
    return nullptr;
  }
  std::unique_ptr<TieredPages> pages(new TieredPages());
  for (TierConfig &config : configs) {
    if (config.pages == 0) {
      error = "tier '" + config.name + "' has a budget of 0 pages";
      return nullptr;
    }
    std::unique_ptr<EvictionPolicy> p = parsePolicy(policy, error);
    if (!p)
      return nullptr;
    pages->tiers.push_back({std::move(config), std::move(p), {}});
  }
  return pages;
}

void TieredPages::makeRoom(std::size_t tier, std::vector<Move> *moves) {
  Tier &t = tiers[tier];
  if (t.policy->size() < t.config.pages)
    return;
  // Only tier 0 holds pinned pages, and the caller leaves one unpinned.
  std::optional<PageId> chosen =
      t.policy->victim(clock, tier == 0 ? pinned : nullptr);
  if (!chosen)
    return;
  const PageId victim = *chosen;
  t.policy->remove(victim);
  ++t.counters.pagesDown;
  if (tier + 1 == tiers.size()) {
    location.erase(victim);
    ++droppedCount;
    if (moves)
      moves->push_back({victim, tier, kNowhere});
    return;
  }
  makeRoom(tier + 1, moves);
  Tier &below = tiers[tier + 1];
  below.policy->admit(victim, clock);
  ++below.counters.pagesIn;
  location[victim] = tier + 1;
  if (moves)
    moves->push_back({victim, tier, tier + 1});
}

std::size_t TieredPages::reference(PageId page, std::vector<Move> *moves) {
  ++clock;
  auto it = location.find(page);
  const std::size_t was = it == location.end() ? kNowhere : it->second;
  if (was == 0) {
    ++tiers[0].counters.hits;
    tiers[0].policy->reference(page, clock);
    return 0;
  }
  if (was == kNowhere) {
    ++missCount;
  } else {
    ++tiers[was].counters.hits;
    tiers[was].policy->remove(page);
  }
  makeRoom(0, moves);
  tiers[0].policy->admit(page, clock);
  ++tiers[0].counters.pagesIn;
  location[page] = 0;
  return was;
}

void TieredPages::release(PageId page) {
  auto it = location.find(page);
  if (it == location.end())
    return;
  tiers[it->second].policy->remove(page);
  location.erase(it);
}

std::size_t TieredPages::tierOf(PageId page) const {
  auto it = location.find(page);
  return it == location.end() ? kNowhere : it->second;
}
