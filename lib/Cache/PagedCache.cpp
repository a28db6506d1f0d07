//===- PagedCache.cpp - The pooled indexer caches of many sequences -------===//

#include "indexpool/Cache/PagedCache.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <set>

#include <unistd.h>

using namespace indexpool::cache;

CacheKernels::~CacheKernels() = default;

std::unique_ptr<PagedCache>
PagedCache::create(const CacheConfig &config,
                   std::unique_ptr<CacheKernels> kernels, std::string &error) {
  return make(config, std::move(kernels), /*allocatePages=*/true, error);
}

std::unique_ptr<PagedCache>
PagedCache::make(const CacheConfig &config,
                 std::unique_ptr<CacheKernels> kernels, bool allocatePages,
                 std::string &error) {
  const CacheConfig &c = config;
  if (c.layers < 1 || c.dim < 1 || c.poolSize < 1 || c.pageEntries < 1 ||
      c.heads < 1 || c.k < 0 || c.layers > 4096 || c.dim > 65536 ||
      c.poolSize > 4096 || c.pageEntries > 65536) {
    error = "cache configuration: expected 1 to 4096 layers, D from 1 to "
            "65536, P from 1 to 4096, 1 to 65536 entries per page, H >= 1 and "
            "k >= 0";
    return nullptr;
  }
  if (!kernels) {
    error = "cache configuration: no kernels";
    return nullptr;
  }
  if (c.pages == 0 || c.pages > PageAllocator::kMaxPages) {
    PageAllocator::create(c.pages, error); // its message
    return nullptr;
  }
  // The page arrays (pages x page bytes x layers) and the allocator's 8
  // bytes a page, all allocated now: checked against the machine's memory
  // (in 128 bits: the bounds above allow up to ~2^75 bytes).
  const unsigned __int128 total =
      (unsigned __int128)c.pages *
      ((unsigned __int128)c.pageBytes() * std::uint64_t(c.layers) + 8);
  const long physical = sysconf(_SC_PHYS_PAGES), unit = sysconf(_SC_PAGE_SIZE);
  const std::uint64_t memory =
      physical > 0 && unit > 0 ? std::uint64_t(physical) * std::uint64_t(unit)
                               : ~std::uint64_t(0);
  if (total > memory) {
    error = "cache configuration: " + std::to_string(c.pages) + " pages of " +
            std::to_string(c.pageBytes()) + " bytes in " +
            std::to_string(c.layers) + " layers take more than this machine's " +
            std::to_string(memory) + " bytes of memory";
    return nullptr;
  }
  std::optional<PageAllocator> ids = PageAllocator::create(c.pages, error);
  if (!ids)
    return nullptr;
  return std::unique_ptr<PagedCache>(new PagedCache(
      config, std::make_unique<PageAllocator>(std::move(*ids)),
      std::move(kernels), allocatePages));
}

PagedCache::PagedCache(const CacheConfig &config,
                       std::unique_ptr<PageAllocator> ids,
                       std::unique_ptr<CacheKernels> kernels,
                       bool allocatePages)
    : cfg(config), pageIds(std::move(ids)),
      table(*pageIds, config.poolSize, config.pageEntries),
      kernels(std::move(kernels)), layers(size_t(config.layers)) {
  if (allocatePages)
    for (Layer &layer : layers)
      layer.pages.assign(size_t(cfg.pages) * size_t(cfg.pageBytes()), 0);
}

bool PagedCache::fork(SequenceId parent, SequenceId &child,
                      std::string &error) {
  if (!table.fork(parent, child, error))
    return false;
  for (Layer &layer : layers)
    if (auto it = layer.tails.find(parent); it != layer.tails.end())
      layer.tails[child] = it->second;
  return true;
}

bool PagedCache::free(SequenceId sequence, std::string &error) {
  if (!table.free(sequence, error))
    return false;
  for (Layer &layer : layers)
    layer.tails.erase(sequence);
  return true;
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

std::vector<std::int32_t>
PagedCache::blockTables(const std::vector<SequenceId> &batch,
                        std::int64_t &maxPages) const {
  maxPages = 1;
  for (SequenceId s : batch)
    maxPages = std::max<std::int64_t>(maxPages, table.blockTable(s).size());
  std::vector<std::int32_t> rows(batch.size() * size_t(maxPages), 0);
  for (size_t b = 0; b < batch.size(); ++b) {
    const std::vector<PageIndex> &row = table.blockTable(batch[b]);
    std::copy(row.begin(), row.end(), rows.begin() + b * size_t(maxPages));
  }
  return rows;
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
  // Pages first (all layers share the block tables); shared pages an
  // append writes are copied in every layer.
  const size_t pageBytes = size_t(cfg.pageBytes());
  for (SequenceId s : batch) {
    std::vector<PageCopy> copies;
    if (!table.reserve(s, newTokens, copies, error))
      return false;
    for (Layer &layer : layers)
      for (const PageCopy &c : copies)
        std::memcpy(&layer.pages[size_t(c.to) * pageBytes],
                    &layer.pages[size_t(c.from) * pageBytes], pageBytes);
  }
  prepared.batch = batch;
  prepared.newTokens = newTokens;
  prepared.tables = blockTables(batch, prepared.maxPages);
  prepared.lengths.clear();
  for (SequenceId s : batch)
    prepared.lengths.push_back(static_cast<std::int32_t>(table.length(s)));
  // The batch's tails, contiguous; a new sequence's are empty (zeros, never
  // read before a token fills them).
  const size_t tailRows = size_t(cfg.poolSize - 1), d = size_t(cfg.dim);
  const size_t bsz = batch.size();
  prepared.tailKeys.assign(size_t(cfg.layers), {});
  prepared.tailScores.assign(size_t(cfg.layers), {});
  for (std::int64_t l = 0; l < cfg.layers; ++l) {
    auto &keys = prepared.tailKeys[size_t(l)];
    auto &scores = prepared.tailScores[size_t(l)];
    keys.assign(bsz * tailRows * d, 0.0f);
    scores.assign(bsz * tailRows, 0.0f);
    for (size_t b = 0; b < bsz; ++b)
      if (const auto *t = tail(batch[b], l)) {
        std::copy(t->first.begin(), t->first.end(),
                  keys.begin() + b * tailRows * d);
        std::copy(t->second.begin(), t->second.end(),
                  scores.begin() + b * tailRows);
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
                    prepared.tailKeys[size_t(l)].data(),
                    prepared.tailScores[size_t(l)].data(),
                    prepared.lengths.data(),
                    layers[size_t(l)].pages.data(),
                    prepared.tables.data()};
    if (!kernels->append(call, error)) {
      error = "layer " + std::to_string(l) + ": " + error;
      return false;
    }
  }
  return true;
}

void PagedCache::commitAppend(const PreparedAppend &prepared) {
  const size_t tailRows = size_t(cfg.poolSize - 1), d = size_t(cfg.dim);
  std::string ignored;
  for (size_t b = 0; b < prepared.batch.size(); ++b) {
    const SequenceId s = prepared.batch[b];
    // A sequence freed while its append ran is gone.
    if (!table.live(s))
      continue;
    for (std::int64_t l = 0; l < cfg.layers; ++l) {
      auto &t = layers[size_t(l)].tails[s];
      const auto &keys = prepared.tailKeys[size_t(l)];
      const auto &scores = prepared.tailScores[size_t(l)];
      t.first.assign(keys.begin() + b * tailRows * d,
                     keys.begin() + (b + 1) * tailRows * d);
      t.second.assign(scores.begin() + b * tailRows,
                      scores.begin() + (b + 1) * tailRows);
    }
    table.commit(s, prepared.newTokens, ignored);
  }
}

bool PagedCache::select(const std::vector<SequenceId> &batch,
                        std::int64_t layer, const float *queries,
                        const float *weights, std::vector<std::int32_t> &tokens,
                        std::string &error) {
  PreparedSelect prepared;
  return prepareSelect(batch, prepared, error) &&
         runSelect(prepared, layer, queries, weights, tokens, error);
}

bool PagedCache::prepareSelect(const std::vector<SequenceId> &batch,
                               PreparedSelect &prepared, std::string &error) {
  if (!checkBatch(batch, error))
    return false;
  prepared.batch = batch;
  prepared.tables = blockTables(batch, prepared.maxPages);
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
  const std::int64_t row = cfg.k * cfg.poolSize + cfg.poolSize - 1;
  tokens.assign(prepared.batch.size() * size_t(row), -1);
  SelectCall call{std::int64_t(prepared.batch.size()),
                  prepared.maxPages,
                  queries,
                  weights,
                  layers[size_t(layer)].pages.data(),
                  prepared.tables.data(),
                  prepared.lengths.data(),
                  tokens.data()};
  return kernels->select(call, error);
}

const std::pair<std::vector<float>, std::vector<float>> *
PagedCache::tail(SequenceId sequence, std::int64_t layer) const {
  const auto &tails = layers[size_t(layer)].tails;
  auto it = tails.find(sequence);
  return it == tails.end() ? nullptr : &it->second;
}

std::unique_ptr<PagedCache>
PagedCache::restore(const CacheConfig &config,
                    std::unique_ptr<CacheKernels> kernels, State state,
                    std::string &error) {
  std::unique_ptr<PagedCache> cache =
      make(config, std::move(kernels), /*allocatePages=*/false, error);
  if (!cache)
    return nullptr;
  const size_t layerBytes = size_t(config.pages) * size_t(config.pageBytes());
  if (state.pages.size() != size_t(config.layers) ||
      state.tails.size() != size_t(config.layers)) {
    error = "restore: pages and tails of " + std::to_string(config.layers) +
            " layers expected";
    return nullptr;
  }
  std::set<SequenceId> live;
  for (const SequenceTable::Restored &r : state.sequences)
    live.insert(r.id);
  const size_t tailKeys = size_t((config.poolSize - 1) * config.dim),
               tailScores = size_t(config.poolSize - 1);
  for (std::int64_t l = 0; l < config.layers; ++l) {
    if (state.pages[size_t(l)].size() != layerBytes) {
      error = "restore: layer " + std::to_string(l) + " has " +
              std::to_string(state.pages[size_t(l)].size()) + " page bytes, " +
              std::to_string(layerBytes) + " expected";
      return nullptr;
    }
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
  for (std::int64_t l = 0; l < config.layers; ++l) {
    cache->layers[size_t(l)].pages = std::move(state.pages[size_t(l)]);
    cache->layers[size_t(l)].tails = std::move(state.tails[size_t(l)]);
  }
  return cache;
}
