//===- BackgroundCompressor.cpp - Appends that never wait for compression -===//

#include "indexpool/Cache/BackgroundCompressor.h"

#include <algorithm>
#include <climits>
#include <set>

using namespace indexpool::cache;

// The most tokens of one sequence the worker compresses in one append.
static constexpr std::int64_t kMaxRound = 4096;

BackgroundCompressor::BackgroundCompressor(PagedCache &cache) : cache(cache) {
  for (SequenceId s : cache.sequences().liveIds())
    fronts[s].keys.resize(size_t(cache.config().layers));
  for (auto &entry : fronts)
    entry.second.scores.resize(entry.second.keys.size());
  worker = std::thread([this] { work(); });
}

BackgroundCompressor::~BackgroundCompressor() {
  {
    std::lock_guard<std::mutex> guard(lock);
    stopping = true;
  }
  wake.notify_all();
  changed.notify_all();
  worker.join();
}

bool BackgroundCompressor::waiting() const {
  for (const auto &entry : fronts)
    if (entry.second.tokens > 0)
      return true;
  return false;
}

SequenceId BackgroundCompressor::add() {
  std::lock_guard<std::mutex> guard(lock);
  SequenceId id = cache.add();
  Front &f = fronts[id];
  f.keys.resize(size_t(cache.config().layers));
  f.scores.resize(size_t(cache.config().layers));
  return id;
}

bool BackgroundCompressor::fork(SequenceId parent, SequenceId &child,
                                std::string &error) {
  std::lock_guard<std::mutex> guard(lock);
  if (!cache.fork(parent, child, error))
    return false;
  Front copy = fronts[parent];
  copy.readers = 0;
  fronts[child] = std::move(copy);
  return true;
}

bool BackgroundCompressor::free(SequenceId sequence, std::string &error) {
  std::unique_lock<std::mutex> guard(lock);
  if (!cache.sequences().check(sequence, error))
    return false;
  changed.wait(guard, [&] {
    auto it = fronts.find(sequence);
    return it == fronts.end() || it->second.readers == 0;
  });
  // Another thread may have freed it meanwhile: then this says so.
  if (!cache.free(sequence, error))
    return false;
  fronts.erase(sequence);
  return true;
}

bool BackgroundCompressor::submit(const std::vector<SequenceId> &batch,
                                  std::int64_t newTokens,
                                  const std::vector<const float *> &keys,
                                  const std::vector<const float *> &scores,
                                  std::string &error) {
  const CacheConfig &c = cache.config();
  if (keys.size() != size_t(c.layers) || scores.size() != size_t(c.layers)) {
    error = "submit: keys and scores for each of the " +
            std::to_string(c.layers) + " layers expected";
    return false;
  }
  if (newTokens < 1 || newTokens > 65536) {
    error = "submit: 1 to 65536 new tokens per sequence, got " +
            std::to_string(newTokens);
    return false;
  }
  {
    std::lock_guard<std::mutex> guard(lock);
    if (!failure.empty()) {
      error = "the background compression failed: " + failure;
      return false;
    }
    std::set<SequenceId> seen;
    for (SequenceId s : batch) {
      if (!cache.sequences().check(s, error))
        return false;
      if (!seen.insert(s).second) {
        error = "sequence " + std::to_string(s) + " appears twice in the batch";
        return false;
      }
      if (cache.sequences().length(s) + fronts[s].tokens > INT32_MAX - newTokens) {
        error = "submit: sequence " + std::to_string(s) +
                " would pass 2^31 - 1 tokens";
        return false;
      }
    }
    const size_t d = size_t(c.dim), n = size_t(newTokens),
                 w = size_t(c.scoreWidth());
    for (size_t b = 0; b < batch.size(); ++b) {
      Front &f = fronts[batch[b]];
      for (size_t l = 0; l < size_t(c.layers); ++l) {
        f.keys[l].insert(f.keys[l].end(), keys[l] + b * n * d,
                         keys[l] + (b + 1) * n * d);
        f.scores[l].insert(f.scores[l].end(), scores[l] + b * n * w,
                           scores[l] + (b + 1) * n * w);
      }
      f.tokens += newTokens;
    }
  }
  wake.notify_one();
  return true;
}

void BackgroundCompressor::work() {
  const CacheConfig &c = cache.config();
  const size_t d = size_t(c.dim), layers = size_t(c.layers),
               w = size_t(c.scoreWidth());
  std::unique_lock<std::mutex> guard(lock);
  while (true) {
    wake.wait(guard, [&] { return stopping || (failure.empty() && waiting()); });
    if (!failure.empty() || !waiting()) {
      if (stopping)
        return;
      continue;
    }
    // One round: every sequence with tokens waiting, the same number of
    // tokens from each (append_paged's batch), the fewest any has.
    std::vector<SequenceId> batch;
    std::int64_t n = kMaxRound;
    for (const auto &[id, f] : fronts)
      if (f.tokens > 0) {
        batch.push_back(id);
        n = std::min(n, f.tokens);
      }
    // A round writes at most what the device tier holds: fewer tokens,
    // then fewer sequences (the others wait for the next round).
    while (n > 1 && cache.appendFit(batch, n) == PagedCache::Fit::Never)
      n = (n + 1) / 2;
    while (batch.size() > 1 &&
           cache.appendFit(batch, n) == PagedCache::Fit::Never)
      batch.pop_back();
    std::vector<std::vector<float>> keys(layers), scores(layers);
    for (SequenceId s : batch) {
      const Front &f = fronts[s];
      for (size_t l = 0; l < layers; ++l) {
        keys[l].insert(keys[l].end(), f.keys[l].begin(),
                       f.keys[l].begin() + n * std::int64_t(d));
        scores[l].insert(scores[l].end(), f.scores[l].begin(),
                         f.scores[l].begin() + n * std::int64_t(w));
      }
    }
    std::vector<const float *> k, sc;
    for (size_t l = 0; l < layers; ++l) {
      k.push_back(keys[l].data());
      sc.push_back(scores[l].data());
    }
    std::string error;
    // The device tier is busy with selects' pages: wait for one to finish,
    // then look again (sequences may have come and gone).
    if (cache.appendFit(batch, n) == PagedCache::Fit::Later) {
      changed.wait(guard);
      continue;
    }
    PagedCache::PreparedAppend prepared;
    if (!cache.prepareAppend(batch, n, prepared, error)) {
      failure = error;
      changed.notify_all();
      continue;
    }
    busy = true;
    guard.unlock();
    const bool ok = cache.runAppend(prepared, k, sc, error);
    guard.lock();
    busy = false;
    if (!ok) {
      failure = error;
      cache.unpin(prepared.pinned);
    } else {
      cache.commitAppend(prepared);
      for (SequenceId s : batch) {
        auto it = fronts.find(s);
        if (it == fronts.end())
          continue; // freed while it was compressed
        Front &f = it->second;
        for (size_t l = 0; l < layers; ++l) {
          f.keys[l].erase(f.keys[l].begin(), f.keys[l].begin() + n * std::int64_t(d));
          f.scores[l].erase(f.scores[l].begin(), f.scores[l].begin() + n * std::int64_t(w));
        }
        f.tokens -= n;
      }
    }
    changed.notify_all();
  }
}

bool BackgroundCompressor::select(const std::vector<SequenceId> &batch,
                                  std::int64_t layer, const float *queries,
                                  const float *weights,
                                  std::vector<std::vector<std::int32_t>> &tokens,
                                  std::string &error) {
  PagedCache::PreparedSelect prepared;
  std::vector<std::int64_t> pending;
  {
    std::unique_lock<std::mutex> guard(lock);
    // Pages other calls pin leave no room: wait until one finishes.
    changed.wait(guard, [&] {
      return cache.selectFit(batch) != PagedCache::Fit::Later;
    });
    if (!cache.prepareSelect(batch, prepared, error))
      return false;
    for (SequenceId s : batch) {
      ++fronts[s].readers;
      pending.push_back(fronts[s].tokens);
    }
  }
  std::vector<std::int32_t> rows;
  bool ok;
  {
    // One select at a time: the compiled function is not reentrant.
    std::lock_guard<std::mutex> one(selectLock);
    ok = cache.runSelect(prepared, layer, queries, weights, rows, error);
  }
  {
    std::lock_guard<std::mutex> guard(lock);
    for (SequenceId s : batch)
      --fronts[s].readers;
    cache.unpin(prepared.pinned);
  }
  changed.notify_all();
  if (!ok)
    return false;
  const size_t row = rows.size() / std::max<size_t>(batch.size(), 1);
  tokens.assign(batch.size(), {});
  for (size_t b = 0; b < batch.size(); ++b) {
    auto &out = tokens[b];
    out.assign(rows.begin() + b * row, rows.begin() + (b + 1) * row);
    for (std::int64_t t = 0; t < pending[b]; ++t)
      out.push_back(std::int32_t(prepared.lengths[b] + t));
  }
  return true;
}

bool BackgroundCompressor::flush(std::string &error) {
  std::unique_lock<std::mutex> guard(lock);
  changed.wait(guard, [&] { return !failure.empty() || (!waiting() && !busy); });
  if (!failure.empty()) {
    error = "the background compression failed: " + failure;
    return false;
  }
  return true;
}

bool BackgroundCompressor::whenDrained(
    const std::function<bool(const PagedCache &)> &f, std::string &error) {
  std::unique_lock<std::mutex> guard(lock);
  changed.wait(guard, [&] { return !failure.empty() || (!waiting() && !busy); });
  if (!failure.empty()) {
    error = "the background compression failed: " + failure;
    return false;
  }
  return f(cache);
}

std::int64_t BackgroundCompressor::length(SequenceId sequence) {
  std::lock_guard<std::mutex> guard(lock);
  std::string error;
  if (!cache.sequences().check(sequence, error))
    return -1;
  return cache.sequences().length(sequence) + fronts[sequence].tokens;
}
