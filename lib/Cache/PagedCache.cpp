//===- PagedCache.cpp - The pooled indexer caches of many sequences -------===//

#include "indexpool/Cache/PagedCache.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <set>

using namespace indexpool::cache;

CacheKernels::~CacheKernels() = default;

bool CacheKernels::appendTokens(const TokenAppendCall &, std::string &error) {
  error = "these cache kernels have no token tier (refine)";
  return false;
}

bool CacheKernels::refine(const RefineCall &, std::string &error) {
  error = "these cache kernels have no token tier (refine)";
  return false;
}

std::unique_ptr<PageStore>
CacheKernels::makeDeviceStore(std::uint64_t slots,
                              const std::vector<std::int64_t> &layerBytes,
                              std::string &) {
  return makeMemoryStore(slots, layerBytes);
}

std::unique_ptr<PageStore>
CacheKernels::makeHostStore(std::uint64_t slots,
                            const std::vector<std::int64_t> &layerBytes,
                            std::string &) {
  return makeMemoryStore(slots, layerBytes);
}

std::unique_ptr<PagedCache>
PagedCache::create(const CacheConfig &config,
                   std::unique_ptr<CacheKernels> kernels, std::string &error,
                   std::unique_ptr<PageStore> store) {
  const CacheConfig &c = config;
  if (std::string why = c.verify(); !why.empty()) {
    error = why;
    return nullptr;
  }
  if (!kernels) {
    error = "cache configuration: no kernels";
    return nullptr;
  }
  if (c.storePages > 0 && !store) {
    error = "cache configuration: storePages = " +
            std::to_string(c.storePages) +
            " needs a page store (makeCacheStore for storeUrl '" + c.storeUrl +
            "')";
    return nullptr;
  }
  if (c.storePages == 0 && store) {
    error = "cache configuration: a page store was given but storePages is 0";
    return nullptr;
  }
  // The page bytes of the memory tiers (verify checked them against the
  // machine's memory); the token tier on host takes a slot for every page id.
  const std::vector<std::int64_t> layerBytes = c.tieredLayerBytes();
  const std::vector<std::int64_t> tokenBytes(
      c.tokenTierOnHost() ? size_t(c.layers) : 0, c.tokenPageBytes());
  std::optional<PageAllocator> ids = PageAllocator::create(c.totalPages(), error);
  if (!ids)
    return nullptr;
  std::unique_ptr<PageStore> device =
      kernels->makeDeviceStore(c.pages, layerBytes, error);
  std::unique_ptr<PageStore> host =
      device && c.hostPages
          ? kernels->makeHostStore(c.hostPages, layerBytes, error)
          : nullptr;
  // The store tier's content API (the store moves into ResidentPages).
  SharedPages *sharedPages = store ? store->shared() : nullptr;
  std::unique_ptr<ResidentPages> resident =
      device && (host || !c.hostPages)
          ? ResidentPages::create(c, std::move(device), std::move(host), error,
                                  std::move(store))
          : nullptr;
  if (!resident)
    return nullptr;
  std::unique_ptr<PageStore> tokenStore;
  if (c.tokenTierOnHost() &&
      !(tokenStore = kernels->makeHostStore(c.totalPages(), tokenBytes, error)))
    return nullptr;
  std::unique_ptr<PagedCache> cache(new PagedCache(
      config, std::make_unique<PageAllocator>(std::move(*ids)),
      std::move(resident), std::move(kernels)));
  cache->shared = sharedPages;
  cache->tokenStore = std::move(tokenStore);
  return cache;
}

PagedCache::PagedCache(const CacheConfig &config,
                       std::unique_ptr<PageAllocator> ids,
                       std::unique_ptr<ResidentPages> resident,
                       std::unique_ptr<CacheKernels> kernels)
    : cfg(config), pageIds(std::move(ids)),
      // With a token tier every token has an entry (P * E a page): its
      // pages cover the tail tokens too, and those of the pooled entries.
      table(*pageIds, config.refine > 0 ? 1 : config.poolSize,
            config.refine > 0 ? config.poolSize * config.pageEntries
                              : config.pageEntries),
      resident(std::move(resident)), kernels(std::move(kernels)),
      tails(size_t(config.layers)) {}

bool PagedCache::fork(SequenceId parent, SequenceId &child,
                      std::string &error) {
  if (!table.fork(parent, child, error))
    return false;
  for (Tails &layer : tails)
    if (auto it = layer.find(parent); it != layer.end())
      layer[child] = it->second;
  return true;
}

bool PagedCache::free(SequenceId sequence, std::string &error) {
  if (!table.check(sequence, error))
    return false;
  const std::vector<PageIndex> pages = table.blockTable(sequence);
  // A page a running call pins keeps a reference until it is unpinned, so
  // no other sequence gets it while a kernel still uses its slot.
  for (PageIndex page : pages)
    if (resident->pinned(page)) {
      pageIds->retain(page);
      ++held[page];
    }
  table.free(sequence, error);
  for (Tails &layer : tails)
    layer.erase(sequence);
  for (PageIndex page : pages)
    releaseIfFree(page);
  return true;
}

void PagedCache::releaseIfFree(PageIndex page) {
  if (pageIds->references(page) != 0)
    return;
  forgetDigests(page);
  resident->drop(page);
  // A page id's next owner finds zeros, as a page new to the tiers does.
  if (tokenStore) {
    const std::vector<std::int8_t> zeros(size_t(cfg.tokenPageBytes()), 0);
    std::string ignored;
    for (std::int64_t l = 0; l < cfg.layers; ++l)
      tokenStore->write(std::uint64_t(page), l, zeros.data(), ignored);
  }
}

bool PagedCache::readStored(PageIndex page, std::int64_t layer,
                            std::int8_t *bytes, std::string &error) const {
  if (tokenStore && layer >= cfg.layers)
    return tokenStore->read(std::uint64_t(page), layer - cfg.layers, bytes,
                            error);
  return resident->read(page, layer, bytes, error);
}

bool PagedCache::writePinned(PageIndex page, std::int64_t layer,
                             const std::int8_t *bytes, std::string &error) {
  if (tokenStore && layer >= cfg.layers)
    return tokenStore->write(std::uint64_t(page), layer - cfg.layers, bytes,
                             error);
  return resident->writeResident(page, layer, bytes, error);
}

std::int8_t *PagedCache::tokenLayer(std::int64_t layer) {
  return tokenStore ? tokenStore->layerData(layer)
                    : resident->deviceLayer(cfg.layers + layer);
}

std::vector<std::int32_t>
PagedCache::tokenTables(const std::vector<SequenceId> &batch,
                        const std::vector<std::int32_t> &tables,
                        std::int64_t maxPages) const {
  if (!tokenStore)
    return tables;
  std::vector<std::int32_t> rows(tables.size(), 0);
  for (size_t b = 0; b < batch.size(); ++b) {
    const std::vector<PageIndex> &row = table.blockTable(batch[b]);
    std::copy(row.begin(), row.end(), rows.begin() + b * size_t(maxPages));
  }
  return rows;
}

void PagedCache::unpin(std::vector<PageIndex> &pinned) {
  resident->unpin(pinned);
  for (PageIndex page : pinned) {
    auto it = held.find(page);
    if (it == held.end() || resident->pinned(page))
      continue;
    for (std::uint32_t i = 0; i < it->second; ++i)
      pageIds->release(page);
    held.erase(it);
    releaseIfFree(page);
  }
  pinned.clear();
}

bool PagedCache::checkBatch(const std::vector<SequenceId> &batch,
                            std::string &error) {
  if (batch.empty()) {
    error = "an empty batch";
    return false;
  }
  std::set<SequenceId> seen;
  for (SequenceId s : batch) {
    if (!table.check(s, error))
      return false;
    if (!seen.insert(s).second) {
      error = "sequence " + std::to_string(s) + " appears twice in the batch";
      return false;
    }
  }
  return true;
}

std::vector<std::int32_t> PagedCache::deviceTables(
    const std::vector<SequenceId> &batch,
    const std::vector<std::pair<std::int64_t, std::int64_t>> &used,
    std::int64_t &maxPages) const {
  // select_paged wants k <= max_pages * E: short sequences get padding
  // columns (never read).
  maxPages = std::max<std::int64_t>(
      1, (cfg.selectEntries() + cfg.pageEntries - 1) / cfg.pageEntries);
  for (SequenceId s : batch)
    maxPages = std::max<std::int64_t>(maxPages, table.blockTable(s).size());
  std::vector<std::int32_t> rows(batch.size() * size_t(maxPages), 0);
  for (size_t b = 0; b < batch.size(); ++b) {
    const std::vector<PageIndex> &row = table.blockTable(batch[b]);
    for (std::int64_t i = used[b].first; i < used[b].second; ++i)
      rows[b * size_t(maxPages) + size_t(i)] = resident->slot(row[size_t(i)]);
  }
  return rows;
}

/// Tokens per entry and entries per page of the finest tier: the pools
/// (P, E), or with a token tier its tokens (1, P * E), whose pages also
/// hold every pooled entry and the tail tokens.
static std::pair<std::int64_t, std::int64_t> grain(const CacheConfig &c) {
  if (c.refine > 0)
    return {1, c.poolSize * c.pageEntries};
  return {c.poolSize, c.pageEntries};
}

/// How many block-table entries of a sequence of `length` tokens hold its
/// entries (what a select reads).
static std::int64_t readPages(std::int64_t length, const CacheConfig &c) {
  const auto [tokens, entries] = grain(c);
  return (length / tokens + entries - 1) / entries;
}

/// The block-table indices [first, end) of the pages an append of
/// `newTokens` to a sequence of `length` tokens writes (the entries of the
/// groups it completes; with a token tier, of every new token).
static std::pair<std::int64_t, std::int64_t>
writtenPages(std::int64_t length, std::int64_t newTokens,
             const CacheConfig &c) {
  const auto [tokens, entries] = grain(c);
  const std::int64_t first = length / tokens,
                     end = (length + newTokens) / tokens;
  if (end == first)
    return {0, 0};
  return {first / entries, (end - 1) / entries + 1};
}

bool PagedCache::append(const std::vector<SequenceId> &batch,
                        std::int64_t newTokens,
                        const std::vector<const float *> &keys,
                        const std::vector<const float *> &scores,
                        std::string &error) {
  if (keys.size() != size_t(cfg.layers) || scores.size() != size_t(cfg.layers)) {
    error = "append: keys and scores for each of the " +
            std::to_string(cfg.layers) + " layers expected";
    return false;
  }
  PreparedAppend prepared;
  if (!prepareAppend(batch, newTokens, prepared, error) ||
      !runAppend(prepared, keys, scores, error))
    return false;
  commitAppend(prepared);
  return true;
}

bool PagedCache::prepareAppend(const std::vector<SequenceId> &batch,
                               std::int64_t newTokens, PreparedAppend &prepared,
                               std::string &error) {
  if (!checkBatch(batch, error))
    return false;
  if (newTokens < 1 || newTokens > 65536) {
    error = "append: 1 to 65536 new tokens per sequence, got " +
            std::to_string(newTokens);
    return false;
  }
  if (std::any_of(batch.begin(), batch.end(), [&](SequenceId s) {
        return table.length(s) > INT32_MAX - newTokens;
      })) {
    error = "append: a sequence would pass 2^31 - 1 tokens (the kernels' "
            "lengths are i32)";
    return false;
  }
  // The pages the kernels write must fit the device tier beside the
  // pages other calls pin: checked before reserve() changes any table, so
  // a copy-on-write copy it asks for is always made.
  std::uint64_t written = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> used;
  for (SequenceId s : batch) {
    used.push_back(writtenPages(table.length(s), newTokens, cfg));
    written += std::uint64_t(used.back().second - used.back().first);
  }
  if (!resident->failure().empty()) {
    error = resident->failure();
    return false;
  }
  if (written + resident->pinnedPages() > cfg.pages) {
    error = "append: the batch writes " + std::to_string(written) +
            " pages; the device tier holds " + std::to_string(cfg.pages) +
            " (" + std::to_string(resident->pinnedPages()) +
            " pinned by running calls)";
    return false;
  }
  // A shared page the append copies may live in the store tier: read it
  // now, so a page the store lost refuses the call before reserve().
  if (cfg.storePages > 0) {
    std::vector<PageIndex> existing;
    for (size_t b = 0; b < batch.size(); ++b) {
      const std::vector<PageIndex> &row = table.blockTable(batch[b]);
      for (std::int64_t i = used[b].first;
           i < std::min<std::int64_t>(used[b].second, row.size()); ++i)
        if (pageIds->references(row[size_t(i)]) > 1)
          existing.push_back(row[size_t(i)]);
    }
    if (!resident->checkStored(existing, error)) {
      error = "append: " + error;
      return false;
    }
  }
  // Pages next (all layers share the block tables); shared pages an append
  // writes are copied in every stored layer, from wherever they live.
  std::vector<std::int8_t> copy(
      size_t(std::max(cfg.pageBytes(), cfg.refine > 0 ? cfg.tokenPageBytes()
                                                      : std::int64_t(0))));
  std::vector<PageIndex> pinned;
  for (SequenceId s : batch) {
    std::vector<PageCopy> copies;
    if (!table.reserve(s, newTokens, copies, error)) {
      unpin(pinned);
      return false;
    }
    for (const PageCopy &c : copies) {
      if (!resident->pin({c.to}, error)) {
        unpin(pinned);
        return false;
      }
      pinned.push_back(c.to);
      for (std::int64_t l = 0; l < cfg.storedLayers(); ++l)
        if (!readStored(c.from, l, copy.data(), error) ||
            !writePinned(c.to, l, copy.data(), error)) {
          unpin(pinned);
          return false;
        }
    }
  }
  std::vector<PageIndex> writes;
  for (size_t b = 0; b < batch.size(); ++b) {
    const std::vector<PageIndex> &row = table.blockTable(batch[b]);
    writes.insert(writes.end(), row.begin() + used[b].first,
                  row.begin() + used[b].second);
  }
  // Pages an append writes no longer hold what their digests say.
  for (PageIndex page : writes)
    forgetDigests(page);
  if (!resident->pin(writes, error)) {
    unpin(pinned);
    return false;
  }
  pinned.insert(pinned.end(), writes.begin(), writes.end());
  prepared.pinned = std::move(pinned);
  prepared.batch = batch;
  prepared.newTokens = newTokens;
  prepared.tables = deviceTables(batch, used, prepared.maxPages);
  prepared.tokenTables = tokenTables(batch, prepared.tables, prepared.maxPages);
  prepared.lengths.clear();
  for (SequenceId s : batch)
    prepared.lengths.push_back(static_cast<std::int32_t>(table.length(s)));
  // The batch's tails, contiguous; a new sequence's are empty (zeros, never
  // read before a token fills them).
  const size_t tailRows = size_t(cfg.poolSize - 1), d = size_t(cfg.dim),
               w = size_t(cfg.scoreWidth());
  const size_t bsz = batch.size();
  prepared.tailKeys.assign(size_t(cfg.layers), {});
  prepared.tailScores.assign(size_t(cfg.layers), {});
  for (std::int64_t l = 0; l < cfg.layers; ++l) {
    auto &keys = prepared.tailKeys[size_t(l)];
    auto &scores = prepared.tailScores[size_t(l)];
    keys.assign(bsz * tailRows * d, 0.0f);
    scores.assign(bsz * tailRows * w, 0.0f);
    for (size_t b = 0; b < bsz; ++b)
      if (const auto *t = tail(batch[b], l)) {
        std::copy(t->first.begin(), t->first.end(),
                  keys.begin() + b * tailRows * d);
        std::copy(t->second.begin(), t->second.end(),
                  scores.begin() + b * tailRows * w);
      }
  }
  return true;
}

bool PagedCache::runAppend(PreparedAppend &prepared,
                           const std::vector<const float *> &keys,
                           const std::vector<const float *> &scores,
                           std::string &error) {
  for (std::int64_t l = 0; l < cfg.layers; ++l) {
    AppendCall call{std::int64_t(prepared.batch.size()),
                    prepared.newTokens,
                    prepared.maxPages,
                    keys[size_t(l)],
                    scores[size_t(l)],
                    cfg.biasValues.empty() ? nullptr : cfg.biasValues.data(),
                    prepared.tailKeys[size_t(l)].data(),
                    prepared.tailScores[size_t(l)].data(),
                    prepared.lengths.data(),
                    resident->deviceLayer(l),
                    prepared.tables.data()};
    if (!kernels->append(call, error)) {
      error = "layer " + std::to_string(l) + ": " + error;
      return false;
    }
    if (cfg.refine == 0)
      continue;
    // The token tier: the same tokens, lengths and device slots.
    TokenAppendCall tokens{std::int64_t(prepared.batch.size()),
                           prepared.newTokens,
                           prepared.maxPages,
                           keys[size_t(l)],
                           scores[size_t(l)],
                           prepared.lengths.data(),
                           tokenLayer(l),
                           prepared.tokenTables.data()};
    if (!kernels->appendTokens(tokens, error)) {
      error = "layer " + std::to_string(l) + " (token tier): " + error;
      return false;
    }
  }
  return true;
}

void PagedCache::commitAppend(PreparedAppend &prepared) {
  const size_t tailRows = size_t(cfg.poolSize - 1), d = size_t(cfg.dim),
               w = size_t(cfg.scoreWidth());
  std::string ignored;
  for (size_t b = 0; b < prepared.batch.size(); ++b) {
    const SequenceId s = prepared.batch[b];
    // A sequence freed while its append ran is gone.
    if (!table.live(s))
      continue;
    for (std::int64_t l = 0; l < cfg.layers; ++l) {
      auto &t = tails[size_t(l)][s];
      const auto &keys = prepared.tailKeys[size_t(l)];
      const auto &scores = prepared.tailScores[size_t(l)];
      t.first.assign(keys.begin() + b * tailRows * d,
                     keys.begin() + (b + 1) * tailRows * d);
      t.second.assign(scores.begin() + b * tailRows * w,
                      scores.begin() + (b + 1) * tailRows * w);
    }
    table.commit(s, prepared.newTokens, ignored);
  }
  unpin(prepared.pinned);
}

PagedCache::Fit PagedCache::fit(const std::set<PageIndex> &pages,
                                std::uint64_t fresh) const {
  std::uint64_t unpinned = fresh;
  for (PageIndex page : pages)
    unpinned += resident->pinned(page) ? 0 : 1;
  if (pages.size() + fresh > cfg.pages)
    return Fit::Never;
  return unpinned + resident->pinnedPages() <= cfg.pages ? Fit::Now
                                                         : Fit::Later;
}

PagedCache::Fit
PagedCache::selectFit(const std::vector<SequenceId> &batch) const {
  std::set<PageIndex> pages;
  for (SequenceId s : batch) {
    if (!table.live(s))
      return Fit::Now;
    const std::vector<PageIndex> &row = table.blockTable(s);
    pages.insert(row.begin(), row.begin() + readPages(table.length(s), cfg));
  }
  return fit(pages, 0);
}

PagedCache::Fit PagedCache::appendFit(const std::vector<SequenceId> &batch,
                                      std::int64_t newTokens) const {
  // As prepareAppend counts them: every written page as a fresh one.
  std::uint64_t written = 0;
  for (SequenceId s : batch) {
    if (!table.live(s) || newTokens < 1)
      return Fit::Now;
    auto [first, end] = writtenPages(table.length(s), newTokens, cfg);
    written += std::uint64_t(end - first);
  }
  return fit({}, written);
}

bool PagedCache::select(const std::vector<SequenceId> &batch,
                        std::int64_t layer, const float *queries,
                        const float *weights, std::vector<std::int32_t> &tokens,
                        std::string &error) {
  PreparedSelect prepared;
  if (!prepareSelect(batch, prepared, error))
    return false;
  const bool ok = runSelect(prepared, layer, queries, weights, tokens, error);
  unpin(prepared.pinned);
  return ok;
}

bool PagedCache::prepareSelect(const std::vector<SequenceId> &batch,
                               PreparedSelect &prepared, std::string &error) {
  if (!checkBatch(batch, error))
    return false;
  // The pages holding each sequence's pooled entries.
  std::vector<std::pair<std::int64_t, std::int64_t>> used;
  std::vector<PageIndex> reads;
  for (SequenceId s : batch) {
    used.push_back({0, readPages(table.length(s), cfg)});
    const std::vector<PageIndex> &row = table.blockTable(s);
    reads.insert(reads.end(), row.begin(), row.begin() + used.back().second);
  }
  if (!resident->pin(reads, error)) {
    error = "select: " + error;
    return false;
  }
  prepared.pinned = std::move(reads);
  prepared.batch = batch;
  prepared.tables = deviceTables(batch, used, prepared.maxPages);
  prepared.tokenTables = tokenTables(batch, prepared.tables, prepared.maxPages);
  prepared.lengths.clear();
  for (SequenceId s : batch)
    prepared.lengths.push_back(static_cast<std::int32_t>(table.length(s)));
  return true;
}

bool PagedCache::runSelect(const PreparedSelect &prepared, std::int64_t layer,
                           const float *queries, const float *weights,
                           std::vector<std::int32_t> &tokens,
                           std::string &error) {
  if (layer < 0 || layer >= cfg.layers) {
    error = "select: layer " + std::to_string(layer) + " of " +
            std::to_string(cfg.layers);
    return false;
  }
  const std::int64_t p = cfg.poolSize, row = cfg.k * p + p - 1,
                     selected = cfg.selectEntries() * p + p - 1;
  const size_t bsz = prepared.batch.size();
  // With refine, the first stage's tokens are the second's candidates.
  std::vector<std::int32_t> candidates;
  std::vector<std::int32_t> &first = cfg.refine > 0 ? candidates : tokens;
  first.assign(bsz * size_t(selected), -1);
  SelectCall call{std::int64_t(bsz),
                  prepared.maxPages,
                  queries,
                  weights,
                  resident->deviceLayer(layer),
                  prepared.tables.data(),
                  prepared.lengths.data(),
                  first.data()};
  if (!kernels->select(call, error))
    return false;
  if (cfg.refine == 0)
    return true;
  tokens.assign(bsz * size_t(row), -1);
  RefineCall second{std::int64_t(bsz),
                    prepared.maxPages,
                    queries,
                    weights,
                    candidates.data(),
                    tokenLayer(layer),
                    prepared.tokenTables.data(),
                    prepared.lengths.data(),
                    tokens.data()};
  return kernels->refine(second, error);
}

const std::pair<std::vector<float>, std::vector<float>> *
PagedCache::tail(SequenceId sequence, std::int64_t layer) const {
  const Tails &layerTails = tails[size_t(layer)];
  auto it = layerTails.find(sequence);
  return it == layerTails.end() ? nullptr : &it->second;
}

bool PagedCache::readPage(PageIndex page, std::int64_t layer,
                          std::int8_t *bytes, std::string &error) const {
  if (layer < 0 || layer >= cfg.storedLayers() || page < 0 ||
      std::uint64_t(page) >= cfg.totalPages()) {
    error = "readPage: stored layer " + std::to_string(layer) + " of " +
            std::to_string(cfg.storedLayers()) + ", page " +
            std::to_string(page) + " of " + std::to_string(cfg.totalPages());
    return false;
  }
  return readStored(page, layer, bytes, error);
}

std::vector<std::int8_t> PagedCache::logicalPages(std::int64_t layer) const {
  if (layer < 0 || layer >= cfg.storedLayers())
    return {};
  const size_t pageBytes = size_t(cfg.storedLayerBytes()[size_t(layer)]);
  std::vector<std::int8_t> bytes(size_t(cfg.totalPages()) * pageBytes, 0);
  std::string ignored;
  for (std::uint64_t page = 0; page < cfg.totalPages(); ++page)
    if (pageIds->references(PageIndex(page)))
      readStored(PageIndex(page), layer, &bytes[size_t(page) * pageBytes],
                 ignored);
  return bytes;
}

std::unique_ptr<PagedCache>
PagedCache::restore(const CacheConfig &config,
                    std::unique_ptr<CacheKernels> kernels, State state,
                    std::string &error, std::unique_ptr<PageStore> store) {
  std::unique_ptr<PagedCache> cache =
      create(config, std::move(kernels), error, std::move(store));
  if (!cache)
    return nullptr;
  const std::vector<std::int64_t> pageBytes = config.storedLayerBytes();
  if (state.pages.size() != pageBytes.size() ||
      state.tails.size() != size_t(config.layers)) {
    error = "restore: pages of " + std::to_string(pageBytes.size()) +
            " stored layers and tails of " + std::to_string(config.layers) +
            " layers expected";
    return nullptr;
  }
  std::set<SequenceId> live;
  for (const SequenceTable::Restored &r : state.sequences)
    live.insert(r.id);
  const size_t tailKeys = size_t((config.poolSize - 1) * config.dim),
               tailScores = size_t((config.poolSize - 1) * config.scoreWidth());
  for (size_t l = 0; l < pageBytes.size(); ++l) {
    const size_t layerBytes =
        size_t(config.totalPages()) * size_t(pageBytes[l]);
    if (state.pages[l].size() != layerBytes) {
      error = "restore: stored layer " + std::to_string(l) + " has " +
              std::to_string(state.pages[l].size()) + " page bytes, " +
              std::to_string(layerBytes) + " expected";
      return nullptr;
    }
  }
  for (std::int64_t l = 0; l < config.layers; ++l) {
    for (const auto &[id, tail] : state.tails[size_t(l)])
      if (!live.count(id) || tail.first.size() != tailKeys ||
          tail.second.size() != tailScores) {
        error = "restore: layer " + std::to_string(l) + ": a bad tail for "
                "sequence " + std::to_string(id);
        return nullptr;
      }
  }
  if (!cache->table.restore(std::move(state.sequences), state.nextId, error))
    return nullptr;
  for (std::int64_t l = 0; l < config.layers; ++l)
    cache->tails[size_t(l)] = std::move(state.tails[size_t(l)]);
  // Every held page through the device tier, in id order: the policy moves
  // the earlier ones down as the later ones come.
  for (std::uint64_t page = 0; page < config.totalPages(); ++page) {
    if (!cache->pageIds->references(PageIndex(page)))
      continue;
    std::vector<PageIndex> one = {PageIndex(page)};
    if (!cache->resident->pin(one, error))
      return nullptr;
    for (size_t l = 0; l < pageBytes.size(); ++l)
      if (!cache->writePinned(
              PageIndex(page), std::int64_t(l),
              &state.pages[l][size_t(page) * size_t(pageBytes[l])], error))
        return nullptr;
    cache->resident->unpin(one);
  }
  return cache;
}

namespace {

// A manifest: "IPMF", u32 version, the configuration key, i64 length, per
// layer the tail keys and scores, u32 pages, then per page and stored
// layer its 32-digit digest. Little-endian, as the machines that share a
// server are.
constexpr char kManifestMagic[4] = {'I', 'P', 'M', 'F'};
constexpr std::uint32_t kManifestVersion = 1;

/// What decides a page's bytes and a tail's shape, for the manifest's
/// check (the store's namespace checks it too).
std::string configKey(const CacheConfig &c) {
  std::string key = "D=" + std::to_string(c.dim) +
                    " P=" + std::to_string(c.poolSize) +
                    " E=" + std::to_string(c.pageEntries) +
                    " L=" + std::to_string(c.layers) +
                    " refine=" + std::to_string(c.refine) +
                    " W=" + std::to_string(c.scoreWidth()) + " bias=" + c.bias +
                    " codes=" + elementTypeName(c.codes);
  std::string raw(sizeof(float) * (c.biasValues.size() + 1), '\0');
  std::memcpy(raw.data(), &c.temperature, sizeof(float));
  if (!c.biasValues.empty())
    std::memcpy(raw.data() + sizeof(float), c.biasValues.data(),
                sizeof(float) * c.biasValues.size());
  return key + " values+temperature=" + raw;
}

void putBytes(std::string &out, const void *data, size_t n) {
  out.append(static_cast<const char *>(data), n);
}

struct Reader {
  const std::string &in;
  size_t at = 0;
  bool bytes(void *data, size_t n) {
    if (n > in.size() - at)
      return false;
    std::memcpy(data, in.data() + at, n);
    at += n;
    return true;
  }
};

} // namespace

bool PagedCache::publish(SequenceId sequence, const std::string &name,
                         std::string &error) {
  if (!shared) {
    error = "publish: this cache has no shared store tier (storeUrl, "
            "storePages)";
    return false;
  }
  if (!table.check(sequence, error)) {
    error = "publish: " + error;
    return false;
  }
  const std::int64_t length = table.length(sequence);
  const std::vector<PageIndex> &row = table.blockTable(sequence);
  const std::int64_t pages = readPages(length, cfg);
  const std::vector<std::int64_t> layerBytes = cfg.storedLayerBytes();
  std::string blob(kManifestMagic, 4);
  putBytes(blob, &kManifestVersion, 4);
  const std::string key = configKey(cfg);
  const std::uint64_t keySize = key.size();
  putBytes(blob, &keySize, 8);
  blob += key;
  putBytes(blob, &length, 8);
  const size_t tailKeys = size_t((cfg.poolSize - 1) * cfg.dim),
               tailScores = size_t((cfg.poolSize - 1) * cfg.scoreWidth());
  for (std::int64_t l = 0; l < cfg.layers; ++l) {
    const auto *t = tail(sequence, l);
    std::vector<float> keys(tailKeys, 0.0f), scores(tailScores, 0.0f);
    if (t) {
      keys = t->first;
      scores = t->second;
    }
    putBytes(blob, keys.data(), keys.size() * sizeof(float));
    putBytes(blob, scores.data(), scores.size() * sizeof(float));
  }
  const std::uint32_t count = std::uint32_t(pages);
  putBytes(blob, &count, 4);
  // The manifest keeps one reference to each page it lists: pages the
  // store tier holds are referred to by digest (in one batch), the others
  // sent (putPage takes the reference). On an error every reference taken
  // goes back.
  std::vector<std::string> digests(size_t(pages) * layerBytes.size());
  std::vector<std::string> byDigest, taken;
  for (std::int64_t i = 0; i < pages; ++i)
    for (size_t l = 0; l < layerBytes.size(); ++l)
      // A token layer kept on host is never in the store tier.
      if (!(tokenStore && std::int64_t(l) >= cfg.layers)) {
        std::string &digest = digests[size_t(i) * layerBytes.size() + l];
        digest = resident->storeDigest(row[size_t(i)], std::int64_t(l));
        if (!digest.empty())
          byDigest.push_back(digest);
      }
  if (!shared->referPages(byDigest, error)) {
    error = "publish: " + error;
    return false;
  }
  taken = byDigest;
  auto fail = [&](const std::string &why) {
    shared->releasePages(taken);
    error = "publish: " + why;
    return false;
  };
  std::vector<std::int8_t> bytes;
  SharingStats counts;
  counts.pagesByDigest = byDigest.size();
  for (std::int64_t i = 0; i < pages; ++i)
    for (size_t l = 0; l < layerBytes.size(); ++l) {
      std::string &digest = digests[size_t(i) * layerBytes.size() + l];
      if (!digest.empty())
        continue;
      const PageIndex page = row[size_t(i)];
      bytes.assign(size_t(layerBytes[l]), 0);
      if (!readStored(page, std::int64_t(l), bytes.data(), error) ||
          (digest = shared->putPage(std::int64_t(l), bytes.data(),
                                    layerBytes[l], error))
              .empty())
        return fail("page " + std::to_string(page) + " layer " +
                    std::to_string(l) + ": " + error);
      taken.push_back(digest);
      ++counts.pagesSent;
    }
  for (const std::string &digest : digests) {
    if (digest.size() != 32)
      return fail("the store gave a digest of " +
                  std::to_string(digest.size()) + " characters, 32 expected");
    blob += digest;
  }
  if (!shared->putManifest(name, blob, digests, error))
    return fail("manifest '" + name + "': " + error);
  for (std::int64_t i = 0; i < pages; ++i)
    rememberDigests(row[size_t(i)], pageDigests(digests, i));
  ++sharingStats.published;
  sharingStats.pagesByDigest += counts.pagesByDigest;
  sharingStats.pagesSent += counts.pagesSent;
  return true;
}

bool PagedCache::unpublish(const std::string &name, std::string &error) {
  if (!shared) {
    error = "unpublish: this cache has no shared store tier (storeUrl, "
            "storePages)";
    return false;
  }
  if (!shared->deleteManifest(name, error)) {
    error = "unpublish: " + error;
    return false;
  }
  return true;
}

std::string PagedCache::pageDigests(const std::vector<std::string> &digests,
                                    std::int64_t page) const {
  const size_t stored = size_t(cfg.storedLayers());
  std::string key;
  for (size_t l = 0; l < stored; ++l)
    key += digests[size_t(page) * stored + l];
  return key;
}

void PagedCache::rememberDigests(PageIndex page, const std::string &key) {
  if (pagesByDigests.count(key) || digestsOfPage.count(page))
    return;
  pagesByDigests[key] = page;
  digestsOfPage[page] = key;
}

void PagedCache::forgetDigests(PageIndex page) {
  auto it = digestsOfPage.find(page);
  if (it == digestsOfPage.end())
    return;
  pagesByDigests.erase(it->second);
  digestsOfPage.erase(it);
}

bool PagedCache::adopt(const std::string &name, SequenceId &sequence,
                       std::string &error) {
  const auto started = std::chrono::steady_clock::now();
  if (!shared) {
    error = "adopt: this cache has no shared store tier (storeUrl, "
            "storePages)";
    return false;
  }
  std::string blob;
  if (!shared->getManifest(name, blob, error)) {
    error = "adopt: manifest '" + name + "': " + error;
    return false;
  }
  const std::string bad = "adopt: manifest '" + name + "' ";
  Reader in{blob};
  char magic[4];
  std::uint32_t version = 0;
  std::uint64_t keySize = 0;
  if (!in.bytes(magic, 4) || std::memcmp(magic, kManifestMagic, 4) != 0 ||
      !in.bytes(&version, 4) || version != kManifestVersion ||
      !in.bytes(&keySize, 8) || keySize > blob.size() - in.at) {
    error = bad + "is not a cache manifest of version " +
            std::to_string(kManifestVersion);
    return false;
  }
  const std::string key = blob.substr(in.at, size_t(keySize));
  in.at += size_t(keySize);
  if (key != configKey(cfg)) {
    error = bad + "was published by a cache of another configuration (" +
            key.substr(0, key.find(" values")) + "; this cache: " +
            configKey(cfg).substr(0, configKey(cfg).find(" values")) +
            ", or other bias values or temperature)";
    return false;
  }
  std::int64_t length = 0;
  if (!in.bytes(&length, 8) || length < 0 || length > INT32_MAX) {
    error = bad + "has a bad length";
    return false;
  }
  const size_t tailKeys = size_t((cfg.poolSize - 1) * cfg.dim),
               tailScores = size_t((cfg.poolSize - 1) * cfg.scoreWidth());
  std::vector<std::pair<std::vector<float>, std::vector<float>>> newTails(
      size_t(cfg.layers));
  for (auto &t : newTails) {
    t.first.resize(tailKeys);
    t.second.resize(tailScores);
    if (!in.bytes(t.first.data(), tailKeys * sizeof(float)) ||
        !in.bytes(t.second.data(), tailScores * sizeof(float))) {
      error = bad + "is truncated (tails)";
      return false;
    }
  }
  const std::int64_t pages = readPages(length, cfg);
  const size_t stored = size_t(cfg.storedLayers());
  std::uint32_t count = 0;
  if (!in.bytes(&count, 4) || std::int64_t(count) != pages ||
      blob.size() - in.at != size_t(pages) * stored * 32) {
    error = bad + "does not hold " + std::to_string(pages) +
            " pages' digests for " + std::to_string(length) + " tokens";
    return false;
  }
  // A page whose every layer's digest matches a page this cache holds
  // (published or adopted before, unchanged since) is shared, not read.
  std::vector<std::string> digests;
  for (size_t i = 0; i < size_t(pages) * stored; ++i, in.at += 32)
    digests.push_back(blob.substr(in.at, 32));
  std::vector<PageIndex> row(size_t(pages), -1);
  std::uint64_t sharedPages = 0;
  for (std::int64_t i = 0; i < pages; ++i)
    if (auto it = pagesByDigests.find(pageDigests(digests, i));
        it != pagesByDigests.end()) {
      row[size_t(i)] = it->second;
      ++sharedPages;
    }
  // The other pages' bytes first: a page the store lost refuses the adopt
  // before the cache changes.
  const std::vector<std::int64_t> layerBytes = cfg.storedLayerBytes();
  std::vector<std::vector<std::int8_t>> bytes(size_t(pages) * stored);
  std::vector<SharedPages::PageRequest> requests;
  std::vector<size_t> requested; // index into digests, per request
  for (std::int64_t i = 0; i < pages; ++i)
    for (size_t l = 0; row[size_t(i)] == -1 && l < stored; ++l) {
      const size_t at = size_t(i) * stored + l;
      bytes[at].resize(size_t(layerBytes[l]));
      requests.push_back(
          {digests[at], std::int64_t(l), bytes[at].data(), layerBytes[l]});
      requested.push_back(at);
    }
  size_t failed = 0;
  if (!shared->getPages(requests, failed, error)) {
    const size_t at = requested[std::min(failed, requested.size() - 1)];
    error = bad + "page " + std::to_string(at / stored) + " layer " +
            std::to_string(at % stored) + ": " + error;
    return false;
  }
  // A new sequence of that length on those pages, the fresh ones written
  // one at a time through the device tier (a sequence may hold more pages
  // than it has).
  SequenceId s = 0;
  const std::vector<PageIndex> wanted = row;
  if (!table.addWithPages(length, row, s, error)) {
    error = "adopt: " + error;
    return false;
  }
  auto undo = [&] {
    std::string ignored;
    free(s, ignored);
  };
  for (std::int64_t i = 0; i < pages; ++i) {
    if (wanted[size_t(i)] != -1)
      continue;
    std::vector<PageIndex> one = {row[size_t(i)]};
    if (!resident->pin(one, error)) {
      error = "adopt: " + error;
      undo();
      return false;
    }
    for (size_t l = 0; l < stored; ++l)
      if (!writePinned(row[size_t(i)], std::int64_t(l),
                       bytes[size_t(i) * stored + l].data(), error)) {
        resident->unpin(one);
        error = "adopt: " + error;
        undo();
        return false;
      }
    resident->unpin(one);
    rememberDigests(row[size_t(i)], pageDigests(digests, i));
  }
  for (std::int64_t l = 0; l < cfg.layers; ++l)
    tails[size_t(l)][s] = std::move(newTails[size_t(l)]);
  sequence = s;
  ++sharingStats.adopted;
  sharingStats.pagesAdopted += std::uint64_t(pages);
  sharingStats.pagesShared += sharedPages;
  sharingStats.adoptSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  return true;
}
