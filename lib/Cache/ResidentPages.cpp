//===- ResidentPages.cpp - Where each page of a cache lives, and its bytes ===//

#include "indexpool/Cache/ResidentPages.h"
#include "indexpool/Cache/SharedPages.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

using namespace indexpool::cache;

std::unique_ptr<ResidentPages>
ResidentPages::create(const CacheConfig &config,
                      std::unique_ptr<PageStore> device,
                      std::unique_ptr<PageStore> host, std::string &error,
                      std::unique_ptr<PageStore> store) {
  std::vector<TierConfig> tierConfigs = {{"device", config.pages}};
  std::vector<std::unique_ptr<PageStore>> stores;
  stores.push_back(std::move(device));
  if (config.hostPages) {
    tierConfigs.push_back({"host", config.hostPages});
    stores.push_back(std::move(host));
  }
  if (config.filePages) {
    tierConfigs.push_back({"file", config.filePages});
    std::unique_ptr<PageStore> file =
        makeFileStore(config.filePath, config.filePages,
                      config.tieredLayerBytes(), error);
    if (!file)
      return nullptr;
    stores.push_back(std::move(file));
  }
  if (config.storePages) {
    if (!store) {
      error = "cache configuration: the store tier (" +
              std::to_string(config.storePages) + " pages) has no page store";
      return nullptr;
    }
    tierConfigs.push_back({"store", config.storePages});
    stores.push_back(std::move(store));
  }
  std::unique_ptr<TieredPages> tiers =
      TieredPages::create(std::move(tierConfigs), config.policy, error);
  if (!tiers)
    return nullptr;
  return std::unique_ptr<ResidentPages>(
      new ResidentPages(config, std::move(tiers), std::move(stores)));
}

ResidentPages::ResidentPages(const CacheConfig &config,
                             std::unique_ptr<TieredPages> tieredPages,
                             std::vector<std::unique_ptr<PageStore>> pageStores)
    : cfg(config), tiers(std::move(tieredPages)), stores(std::move(pageStores)),
      slots(stores.size(), std::vector<PageIndex>(size_t(config.totalPages()), -1)),
      freeSlots(stores.size()), layerBytes(config.tieredLayerBytes()) {
  // Stored layer l's bytes at layerStarts[l] of a page's staging.
  std::int64_t all = 0;
  for (std::int64_t bytes : layerBytes) {
    layerStarts.push_back(size_t(all));
    all += bytes;
  }
  staging.assign(size_t(all), 0);
  for (size_t t = 0; t < stores.size(); ++t) {
    // Taken from the back: slot 0 first.
    const std::uint64_t budget = tiers->config(t).pages;
    freeSlots[t].reserve(size_t(budget));
    for (std::uint64_t s = budget; s > 0; --s)
      freeSlots[t].push_back(PageIndex(s - 1));
  }
  tiers->setPinned([this](PageId page) { return pins.count(PageIndex(page)) != 0; });
  if (config.storePages)
    storeTier = stores.size() - 1;
}

bool ResidentPages::readStored(PageIndex page, std::vector<std::int8_t> &bytes,
                               std::string &error) const {
  bytes.assign(staging.size(), 0);
  const PageIndex from = slots[storeTier][size_t(page)];
  for (size_t l = 0; l < layerBytes.size(); ++l) {
    std::string why;
    if (!stores[storeTier]->read(std::uint64_t(from), std::int64_t(l),
                                 &bytes[layerStarts[l]], why)) {
      error = "page " + std::to_string(page) +
              " was lost by the store tier (" + why +
              "): free its sequences";
      return false;
    }
  }
  return true;
}

std::string ResidentPages::storeDigest(PageIndex page,
                                       std::int64_t layer) const {
  if (storeTier == TieredPages::kNowhere ||
      tiers->tierOf(PageId(page)) != storeTier ||
      !stores[storeTier]->shared())
    return "";
  return stores[storeTier]->shared()->pageDigest(
      std::uint64_t(slots[storeTier][size_t(page)]), layer);
}

bool ResidentPages::readStoredPages(
    const std::vector<PageIndex> &pages,
    std::map<PageIndex, std::vector<std::int8_t>> &fetched,
    std::string &error) const {
  if (storeTier == TieredPages::kNowhere)
    return true;
  SharedPages *shared = stores[storeTier]->shared();
  std::vector<SharedPages::PageRequest> requests;
  std::vector<PageIndex> owners; // of each request
  for (PageIndex page : std::set<PageIndex>(pages.begin(), pages.end())) {
    if (tiers->tierOf(PageId(page)) != storeTier)
      continue;
    std::vector<std::int8_t> &bytes = fetched[page];
    bytes.assign(staging.size(), 0);
    const std::uint64_t slot = std::uint64_t(slots[storeTier][size_t(page)]);
    std::vector<std::string> digests;
    for (size_t l = 0; shared && l < layerBytes.size(); ++l)
      digests.push_back(shared->pageDigest(slot, std::int64_t(l)));
    // A page the store holds only locally (during an outage) has no
    // digest: it is read by slot.
    if (digests.size() != layerBytes.size() ||
        std::count(digests.begin(), digests.end(), std::string()) != 0) {
      if (!readStored(page, bytes, error))
        return false;
      continue;
    }
    for (size_t l = 0; l < layerBytes.size(); ++l) {
      requests.push_back({digests[l], std::int64_t(l), &bytes[layerStarts[l]],
                          layerBytes[l]});
      owners.push_back(page);
    }
  }
  size_t failed = 0;
  std::string why;
  if (!requests.empty() && !shared->getPages(requests, failed, why)) {
    error = "page " + std::to_string(owners[std::min(failed, owners.size() - 1)]) +
            " was lost by the store tier (" + why + "): free its sequences";
    return false;
  }
  return true;
}

bool ResidentPages::checkStored(const std::vector<PageIndex> &pages,
                                std::string &error) const {
  std::map<PageIndex, std::vector<std::int8_t>> fetched;
  return readStoredPages(pages, fetched, error);
}

bool ResidentPages::pin(const std::vector<PageIndex> &pages,
                        std::string &error) {
  if (!failed.empty()) {
    error = failed;
    return false;
  }
  std::set<PageIndex> distinct(pages.begin(), pages.end());
  std::uint64_t needed = pins.size();
  for (PageIndex page : distinct)
    needed += pins.count(page) ? 0 : 1;
  if (needed > cfg.pages) {
    error = "the call needs " + std::to_string(distinct.size()) +
            " pages in the device tier, which holds " +
            std::to_string(cfg.pages) + " (" + std::to_string(pins.size()) +
            " pinned by running calls)";
    return false;
  }
  // The store tier's pages first, before anything moves: a page it lost
  // refuses this call only (the server keeps no other state of ours).
  std::map<PageIndex, std::vector<std::int8_t>> fetched;
  std::vector<PageIndex> unpinned;
  for (PageIndex page : distinct)
    if (!pins.count(page))
      unpinned.push_back(page);
  if (!readStoredPages(unpinned, fetched, error))
    return false;
  // Each page made resident (not in the device tier yet) pushes at most one
  // victim into the store tier: a store that cannot take them now (an
  // outage with its host memory bound reached) refuses the call before
  // anything moves.
  const std::uint64_t arriving = std::uint64_t(
      std::count_if(unpinned.begin(), unpinned.end(), [&](PageIndex page) {
        return tiers->tierOf(PageId(page)) != 0;
      }));
  if (storeTier != TieredPages::kNowhere && arriving > 0 &&
      !stores[storeTier]->canWrite(arriving, error))
    return false;
  std::vector<PageIndex> pinnedHere;
  for (PageIndex page : pages) {
    if (!pins.count(page)) {
      auto it = fetched.find(page);
      // A page the victims of an earlier page pushed into the store since
      // (written moments ago) is read in makeResident.
      const bool stored = it != fetched.end() &&
                          tiers->tierOf(PageId(page)) == storeTier;
      const bool fromStore = storeTier != TieredPages::kNowhere &&
                             tiers->tierOf(PageId(page)) == storeTier;
      if (!makeResident(page, stored ? &it->second : nullptr, error)) {
        // makeResident reads before it changes anything: a store read
        // failure leaves the page where it was.
        if (fromStore) {
          error = "page " + std::to_string(page) +
                  " was lost by the store tier (" + error +
                  "): free its sequences";
          unpin(pinnedHere);
          return false;
        }
        failed = error;
        return false;
      }
    }
    ++pins[page];
    pinnedHere.push_back(page);
  }
  return true;
}

void ResidentPages::unpin(const std::vector<PageIndex> &pages) {
  for (PageIndex page : pages) {
    auto it = pins.find(page);
    if (it != pins.end() && --it->second == 0)
      pins.erase(it);
  }
}

bool ResidentPages::makeResident(PageIndex page,
                                 const std::vector<std::int8_t> *fetched,
                                 std::string &error) {
  const std::size_t was = tiers->tierOf(PageId(page));
  if (was == 0) {
    tiers->reference(PageId(page));
    return true;
  }
  // The page leaves its tier before the victims move down into it.
  // Its bytes are read before any state changes.
  std::vector<std::int8_t> bytes(staging.size(), 0);
  if (was != TieredPages::kNowhere) {
    const PageIndex from = slots[was][size_t(page)];
    if (fetched)
      bytes = *fetched;
    else
      for (size_t l = 0; l < layerBytes.size(); ++l)
        if (!stores[was]->read(std::uint64_t(from), std::int64_t(l),
                               &bytes[layerStarts[l]], error))
          return false;
    slots[was][size_t(page)] = -1;
    freeSlots[was].push_back(from);
    stores[was]->discard(std::uint64_t(from));
  }
  std::vector<TieredPages::Move> moves;
  tiers->reference(PageId(page), &moves);
  for (const TieredPages::Move &m : moves) {
    if (m.to == TieredPages::kNowhere) {
      // The tiers hold totalPages() pages, as many as the allocator gives.
      error = "internal error: the last tier dropped page " +
              std::to_string(m.page);
      return false;
    }
    if (!move(PageIndex(m.page), m.from, m.to, error))
      return false;
  }
  const PageIndex to = freeSlots[0].back();
  freeSlots[0].pop_back();
  slots[0][size_t(page)] = to;
  return stores[0]->writeSlot(std::uint64_t(to), layersOf(bytes), error);
}

std::vector<const std::int8_t *>
ResidentPages::layersOf(const std::vector<std::int8_t> &slotBytes) const {
  std::vector<const std::int8_t *> layers(layerBytes.size());
  for (size_t l = 0; l < layerBytes.size(); ++l)
    layers[l] = &slotBytes[layerStarts[l]];
  return layers;
}

bool ResidentPages::move(PageIndex page, std::size_t from, std::size_t to,
                         std::string &error) {
  const PageIndex source = slots[from][size_t(page)];
  const PageIndex target = freeSlots[to].back();
  for (size_t l = 0; l < layerBytes.size(); ++l)
    if (!stores[from]->read(std::uint64_t(source), std::int64_t(l),
                            &staging[layerStarts[l]], error))
      return false;
  // Every layer in one call: one round trip to a remote tier.
  if (!stores[to]->writeSlot(std::uint64_t(target), layersOf(staging), error))
    return false;
  freeSlots[to].pop_back();
  slots[to][size_t(page)] = target;
  slots[from][size_t(page)] = -1;
  freeSlots[from].push_back(source);
  stores[from]->discard(std::uint64_t(source));
  return true;
}

void ResidentPages::drop(PageIndex page) {
  const std::size_t tier = tiers->tierOf(PageId(page));
  if (tier == TieredPages::kNowhere)
    return;
  tiers->release(PageId(page));
  stores[tier]->discard(std::uint64_t(slots[tier][size_t(page)]));
  freeSlots[tier].push_back(slots[tier][size_t(page)]);
  slots[tier][size_t(page)] = -1;
}

bool ResidentPages::read(PageIndex page, std::int64_t layer, std::int8_t *bytes,
                         std::string &error) const {
  const std::size_t tier = tiers->tierOf(PageId(page));
  if (tier == TieredPages::kNowhere) {
    std::memset(bytes, 0, size_t(layerBytes[size_t(layer)]));
    return true;
  }
  return stores[tier]->read(std::uint64_t(slots[tier][size_t(page)]), layer,
                            bytes, error);
}

ResidencyStats ResidentPages::stats() const {
  ResidencyStats s;
  const std::uint64_t pageBytes = staging.size();
  s.newPages = tiers->misses();
  for (std::size_t t = 0; t < tiers->tierCount(); ++t) {
    const TierCounters &c = tiers->counters(t);
    TierStats ts;
    ts.name = tiers->config(t).name;
    ts.pages = tiers->config(t).pages;
    ts.resident = tiers->residentPages(t);
    ts.hits = c.hits;
    // Pages that came with their bytes (a new page brings none), and pages
    // that left (down, or back up to the device tier after a miss).
    ts.pagesIn = t == 0 ? c.pagesIn - s.newPages : c.pagesIn;
    ts.pagesOut = t == 0 ? c.pagesDown : c.pagesDown + c.hits;
    ts.bytesIn = ts.pagesIn * pageBytes;
    ts.bytesOut = ts.pagesOut * pageBytes;
    if (t == 0)
      s.hits = c.hits;
    else
      s.misses += c.hits;
    s.tiers.push_back(ts);
  }
  return s;
}
