//===- RedisStore.cpp - A cache tier's pages in Redis or Valkey -----------===//
//
// Slot s, layer l maps to the digest of the page last written there; the
// server holds the bytes under keyPrefix + "page:" + that digest. Pages are
// never deleted: another process may share one, and Redis has no cheap
// reference count (see docs/cache.md).
//
//===----------------------------------------------------------------------===//

#include "indexpool/CacheRedis/RedisStore.h"

#include "RedisClient.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>

#define XXH_STATIC_LINKING_ONLY // XXH3_state_t on the stack
#include <xxhash.h>

using namespace indexpool::cache;

namespace {

void put64(XXH3_state_t &state, std::uint64_t value) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<unsigned char>(value >> (8 * i));
  XXH3_128bits_update(&state, bytes, 8);
}

/// XXH3-128 of (namespace, layer, byte count, bytes): the same page of
/// another model or layer gets another key.
XXH128_hash_t pageHash(const std::string &ns, std::int64_t layer,
                       const void *bytes, size_t n) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  put64(state, ns.size());
  XXH3_128bits_update(&state, ns.data(), ns.size());
  put64(state, std::uint64_t(layer));
  put64(state, n);
  XXH3_128bits_update(&state, bytes, n);
  return XXH3_128bits_digest(&state);
}

/// A manifest's check: bound to the namespace and the name.
XXH128_hash_t manifestHash(const std::string &ns, const std::string &name,
                           const std::string &blob) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  XXH3_128bits_update(&state, "manifest", 8);
  for (const std::string *text : {&ns, &name, &blob}) {
    put64(state, text->size());
    XXH3_128bits_update(&state, text->data(), text->size());
  }
  return XXH3_128bits_digest(&state);
}

std::string toHex(XXH128_hash_t hash) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, hash);
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : canonical.digest) {
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  return hex;
}

bool fromHex(const std::string &hex, XXH128_hash_t &hash) {
  XXH128_canonical_t canonical;
  if (hex.size() != 2 * sizeof(canonical.digest))
    return false;
  for (size_t i = 0; i < sizeof(canonical.digest); ++i) {
    int byte = 0;
    for (char c : {hex[2 * i], hex[2 * i + 1]}) {
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
      if (digit < 0)
        return false;
      byte = byte * 16 + digit;
    }
    canonical.digest[i] = static_cast<unsigned char>(byte);
  }
  hash = XXH128_hashFromCanonical(&canonical);
  return true;
}

class Store final : public RedisStore {
public:
  Store(const RedisOptions &options, std::uint64_t slots,
        std::vector<std::int64_t> layerBytes,
        std::function<void(const std::string &)> warn,
        std::unique_ptr<RedisClient> client)
      : opts(options), slotCount(slots), layerBytes(std::move(layerBytes)),
        warn(std::move(warn)), client(std::move(client)),
        prefix("the redis store (" + this->client->address() + "): "),
        states(size_t(slots) * this->layerBytes.size(), Empty),
        digests(states.size()) {}

  bool read(std::uint64_t slot, std::int64_t layer, std::int8_t *bytes,
            std::string &error) const override {
    if (!inRange(slot, layer, error))
      return false;
    std::lock_guard<std::mutex> lock(mutex);
    const size_t at = index(slot, layer);
    const std::string where = "slot " + std::to_string(slot) + ", layer " +
                              std::to_string(layer);
    if (states[at] == Empty) {
      error = prefix + where + " was never written";
      return false;
    }
    if (states[at] == Local) {
      const std::vector<std::int8_t> &page = local.at(at);
      std::memcpy(bytes, page.data(), page.size());
      return true;
    }
    return fetch(digests[at], layer, bytes, where, error);
  }

  bool write(std::uint64_t slot, std::int64_t layer, const std::int8_t *bytes,
             std::string &error) override {
    if (!inRange(slot, layer, error))
      return false;
    std::lock_guard<std::mutex> lock(mutex);
    const size_t at = index(slot, layer), n = size_t(layerBytes[size_t(layer)]);
    const XXH128_hash_t hash = pageHash(opts.ns, layer, bytes, n);
    std::string why;
    if (store(hash, bytes, n, why)) {
      noteInRedis(at, hash);
      pushHeldPages();
      return true;
    }
    return holdLocally(slot, layer, bytes, why, error);
  }

  bool writeSlot(std::uint64_t slot,
                 const std::vector<const std::int8_t *> &layers,
                 std::string &error) override {
    if (layers.size() != layerBytes.size()) {
      error = prefix + "a slot has " + std::to_string(layerBytes.size()) +
              " layers, " + std::to_string(layers.size()) + " given";
      return false;
    }
    if (!inRange(slot, 0, error))
      return false;
    std::lock_guard<std::mutex> lock(mutex);
    const size_t count = layers.size();
    std::vector<XXH128_hash_t> hashes(count);
    std::vector<std::string> keys(count);
    std::vector<const void *> data(layers.begin(), layers.end());
    std::vector<size_t> sizes(count);
    for (size_t l = 0; l < count; ++l) {
      sizes[l] = size_t(layerBytes[l]);
      hashes[l] = pageHash(opts.ns, std::int64_t(l), layers[l], sizes[l]);
      keys[l] = pageKey(hashes[l]);
    }
    std::vector<RedisClient::SetResult> results;
    std::string why;
    if (!client->setNxMany(keys, data, sizes, results, why)) {
      counters.failures += 1;
      results.assign(count, RedisClient::SetResult::Failed);
    } else {
      noteSuccess();
    }
    bool reached = false;
    for (size_t l = 0; l < count; ++l) {
      const size_t at = index(slot, std::int64_t(l));
      if (results[l] == RedisClient::SetResult::Failed) {
        if (why.empty())
          why = "refused";
        if (!holdLocally(slot, std::int64_t(l), layers[l], why, error))
          return false;
        continue;
      }
      reached = true;
      countSet(results[l], sizes[l]);
      noteInRedis(at, hashes[l]);
    }
    if (reached)
      pushHeldPages();
    return true;
  }

  std::int8_t *layerData(std::int64_t) override { return nullptr; }

  std::string putPage(std::int64_t layer, const std::int8_t *bytes,
                      std::int64_t n, std::string &error) override {
    if (!layerAndSize(layer, n, error))
      return "";
    std::lock_guard<std::mutex> lock(mutex);
    const XXH128_hash_t hash = pageHash(opts.ns, layer, bytes, size_t(n));
    std::string why;
    if (!store(hash, bytes, size_t(n), why)) {
      error = prefix + "storing a page of layer " + std::to_string(layer) +
              ": " + why;
      return "";
    }
    return toHex(hash);
  }

  bool getPage(const std::string &digest, std::int64_t layer,
               std::int8_t *bytes, std::int64_t n,
               std::string &error) const override {
    XXH128_hash_t hash;
    if (!layerAndSize(layer, n, error))
      return false;
    if (!fromHex(digest, hash)) {
      error = prefix + "a page digest is 32 hex digits";
      return false;
    }
    std::lock_guard<std::mutex> lock(mutex);
    return fetch(hash, layer, bytes, "layer " + std::to_string(layer), error);
  }

  bool getPages(const std::vector<PageRequest> &requests, size_t &failed,
                std::string &error) const override {
    // MGET in batches: one round trip for up to kBatch pages, a bounded
    // reply.
    constexpr size_t kBatch = 256;
    std::vector<XXH128_hash_t> hashes(requests.size());
    for (failed = 0; failed < requests.size(); ++failed) {
      const PageRequest &r = requests[failed];
      if (!layerAndSize(r.layer, r.n, error))
        return false;
      if (!fromHex(r.digest, hashes[failed])) {
        error = prefix + "a page digest is 32 hex digits";
        return false;
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::string> keys, values;
    std::vector<bool> found;
    for (size_t first = 0; first < requests.size(); first += kBatch) {
      const size_t end = std::min(requests.size(), first + kBatch);
      keys.clear();
      for (size_t i = first; i < end; ++i)
        keys.push_back(pageKey(hashes[i]));
      std::string why;
      if (!client->mget(keys, values, found, why)) {
        counters.failures += 1;
        failed = first;
        // A request is one layer of a page: say pages, as the caller does.
        const size_t layers = std::max<size_t>(1, layerBytes.size());
        error = prefix + "reading " +
                std::to_string((end - first + layers - 1) / layers) +
                " pages (" + std::to_string(end - first) +
                " page layers): " + why;
        return false;
      }
      noteSuccess();
      for (size_t i = first; i < end; ++i) {
        const PageRequest &r = requests[i];
        if (!accept(hashes[i], r.layer, values[i - first], found[i - first],
                    r.bytes, "layer " + std::to_string(r.layer), error)) {
          failed = i;
          return false;
        }
      }
    }
    return true;
  }

  std::string pageDigest(std::uint64_t slot,
                         std::int64_t layer) const override {
    std::string unused;
    if (!inRange(slot, layer, unused))
      return "";
    std::lock_guard<std::mutex> lock(mutex);
    const size_t at = index(slot, layer);
    return states[at] == InRedis ? toHex(digests[at]) : "";
  }

  bool putManifest(const std::string &name, const std::string &blob,
                   std::string &error) override {
    XXH128_canonical_t check;
    XXH128_canonicalFromHash(&check, manifestHash(opts.ns, name, blob));
    std::string value(reinterpret_cast<const char *>(check.digest),
                      sizeof(check.digest));
    value += blob;
    std::lock_guard<std::mutex> lock(mutex);
    std::string why;
    if (!client->set(manifestKey(name), value.data(), value.size(), why)) {
      counters.failures += 1;
      error = prefix + "storing the manifest '" + name + "': " + why;
      return false;
    }
    noteSuccess();
    counters.bytesWritten += value.size();
    return true;
  }

  bool getManifest(const std::string &name, std::string &blob,
                   std::string &error) const override {
    std::lock_guard<std::mutex> lock(mutex);
    std::string value, why;
    bool found = false;
    if (!client->get(manifestKey(name), value, found, why)) {
      counters.failures += 1;
      error = prefix + "reading the manifest '" + name + "': " + why;
      return false;
    }
    noteSuccess();
    XXH128_canonical_t check;
    if (!found) {
      error = prefix + "no manifest '" + name + "'";
      return false;
    }
    XXH128_canonicalFromHash(
        &check, manifestHash(opts.ns, name, value.substr(std::min(
                                               value.size(), size_t(16)))));
    if (value.size() < sizeof(check.digest) ||
        std::memcmp(value.data(), check.digest, sizeof(check.digest)) != 0) {
      error = prefix + "the manifest '" + name +
              "' does not match its hash: written for another namespace "
              "(model, format), or changed behind the store's back";
      return false;
    }
    counters.bytesRead += value.size();
    blob = value.substr(sizeof(check.digest));
    return true;
  }

  RedisStats stats() const override {
    std::lock_guard<std::mutex> lock(mutex);
    RedisStats s = counters;
    s.roundTrips = client->roundTrips();
    return s;
  }

private:
  enum State : std::uint8_t { Empty, InRedis, Local };

  size_t index(std::uint64_t slot, std::int64_t layer) const {
    return size_t(slot) * layerBytes.size() + size_t(layer);
  }
  bool inRange(std::uint64_t slot, std::int64_t layer,
               std::string &error) const {
    if (slot < slotCount && layer >= 0 &&
        std::uint64_t(layer) < layerBytes.size())
      return true;
    error = prefix + "slot " + std::to_string(slot) + ", layer " +
            std::to_string(layer) + " is out of range (" +
            std::to_string(slotCount) + " slots, " +
            std::to_string(layerBytes.size()) + " layers)";
    return false;
  }
  bool layerAndSize(std::int64_t layer, std::int64_t n,
                    std::string &error) const {
    if (layer >= 0 && std::uint64_t(layer) < layerBytes.size() &&
        n == layerBytes[size_t(layer)])
      return true;
    error = prefix + "a page of layer " + std::to_string(layer) + " with " +
            std::to_string(n) + " bytes: the store has " +
            std::to_string(layerBytes.size()) + " layers" +
            (layer >= 0 && std::uint64_t(layer) < layerBytes.size()
                 ? ", and that one's pages have " +
                       std::to_string(layerBytes[size_t(layer)]) + " bytes"
                 : "");
    return false;
  }
  std::string pageKey(XXH128_hash_t hash) const {
    return opts.keyPrefix + "page:" + toHex(hash);
  }
  std::string manifestKey(const std::string &name) const {
    return opts.keyPrefix + "manifest:" + name;
  }

  /// SET NX of one page; counts it.
  bool store(XXH128_hash_t hash, const void *bytes, size_t n,
             std::string &why) {
    RedisClient::SetResult result =
        client->setNx(pageKey(hash), bytes, n, why);
    if (result == RedisClient::SetResult::Failed) {
      counters.failures += 1;
      return false;
    }
    noteSuccess();
    countSet(result, n);
    return true;
  }

  /// A page the server took (stored, or found there already).
  void countSet(RedisClient::SetResult result, size_t n) {
    (result == RedisClient::SetResult::Stored ? counters.stored
                                              : counters.deduplicated) += 1;
    counters.bytesWritten += n;
  }
  /// Slot-layer `at` is on the server as `hash`: its host copy, if any, goes.
  void noteInRedis(size_t at, XXH128_hash_t hash) {
    dropLocal(at);
    states[at] = InRedis;
    digests[at] = hash;
  }

  /// GET of one page into `bytes`, only once its length and hash match.
  bool fetch(XXH128_hash_t hash, std::int64_t layer, std::int8_t *bytes,
             const std::string &where, std::string &error) const {
    std::string value, why;
    bool found = false;
    if (!client->get(pageKey(hash), value, found, why)) {
      counters.failures += 1;
      error = prefix + "reading page " + toHex(hash) + " (" + where +
              "): " + why;
      return false;
    }
    noteSuccess();
    return accept(hash, layer, value, found, bytes, where, error);
  }

  /// A page's value as the server gave it into `bytes`, when it is there
  /// and its hash matches.
  bool accept(XXH128_hash_t hash, std::int64_t layer, const std::string &value,
              bool found, std::int8_t *bytes, const std::string &where,
              std::string &error) const {
    const size_t n = size_t(layerBytes[size_t(layer)]);
    const std::string page = "page " + toHex(hash) + " (" + where + ")";
    if (!found)
      error = prefix + "the store lost " + page +
              " (restarted without persistence, or evicted: a cold tier "
              "needs maxmemory-policy noeviction)";
    else if (value.size() != n)
      error = prefix + page + " holds " + std::to_string(value.size()) +
              " bytes, not " + std::to_string(n) + ": not this store's page";
    else if (!XXH128_isEqual(pageHash(opts.ns, layer, value.data(), n), hash))
      error = prefix + page +
              ": its bytes do not match their hash (changed behind the "
              "store's back)";
    else {
      std::memcpy(bytes, value.data(), n);
      counters.reads += 1;
      counters.bytesRead += n;
      return true;
    }
    counters.failures += 1;
    return false;
  }

  /// After an outage, the first command that reaches the server ends it.
  void noteSuccess() const {
    if (!warned)
      return;
    warned = false;
    if (warn)
      warn(prefix + "reachable again: pages go to it again (" +
           std::to_string(counters.overflowPages) +
           " held in host memory go back to it, a few with each write)");
  }

  /// Keeps a page the server could not take (`why`) in host memory rather
  /// than lose it: the tier above has already given up its copy. Warns
  /// once per outage; false with `error` only when host memory runs out.
  bool holdLocally(std::uint64_t slot, std::int64_t layer,
                   const std::int8_t *bytes, const std::string &why,
                   std::string &error) {
    const size_t at = index(slot, layer), n = size_t(layerBytes[size_t(layer)]);
    try {
      std::vector<std::int8_t> &page = local[at];
      if (page.empty()) {
        counters.overflowPages += 1;
        counters.overflowBytes += n;
      }
      page.assign(bytes, bytes + n);
    } catch (const std::bad_alloc &) {
      error = prefix + "cannot take slot " + std::to_string(slot) +
              ", layer " + std::to_string(layer) + " (" + why +
              ") and host memory for it ran out";
      dropLocal(at);
      states[at] = Empty;
      return false;
    }
    states[at] = Local;
    if (!warned && warn)
      warn(prefix + "cannot take pages (" + why +
           "): keeping them in host memory until it can (pages held there "
           "now: " +
           std::to_string(counters.overflowPages) +
           "); reads of pages only the server holds fail meanwhile");
    warned = true;
    return true;
  }

  /// Once a write reached the server, up to kPushPerWrite pages held in
  /// host memory since an outage go to it too, in one round trip (their
  /// host copies freed), so an outage's pages drain back as the cache keeps
  /// writing, a few per write rather than all at once under the lock.
  void pushHeldPages() {
    constexpr size_t kPushPerWrite = 8;
    std::vector<size_t> slots;
    std::vector<XXH128_hash_t> hashes;
    std::vector<std::string> keys;
    std::vector<const void *> data;
    std::vector<size_t> sizes;
    for (auto held = local.begin();
         held != local.end() && slots.size() < kPushPerWrite; ++held) {
      const std::int64_t layer = std::int64_t(held->first % layerBytes.size());
      const std::vector<std::int8_t> &page = held->second;
      slots.push_back(held->first);
      hashes.push_back(pageHash(opts.ns, layer, page.data(), page.size()));
      keys.push_back(pageKey(hashes.back()));
      data.push_back(page.data());
      sizes.push_back(page.size());
    }
    if (slots.empty())
      return;
    std::vector<RedisClient::SetResult> results;
    std::string why;
    if (!client->setNxMany(keys, data, sizes, results, why)) {
      counters.failures += 1;
      return;
    }
    for (size_t i = 0; i < slots.size(); ++i) {
      if (results[i] == RedisClient::SetResult::Failed)
        continue;
      countSet(results[i], sizes[i]);
      noteInRedis(slots[i], hashes[i]);
      counters.pushedBack += 1;
    }
  }

  void dropLocal(size_t at) {
    auto found = local.find(at);
    if (found == local.end())
      return;
    counters.overflowPages -= 1;
    counters.overflowBytes -= found->second.size();
    local.erase(found);
  }

  const RedisOptions opts;
  const std::uint64_t slotCount;
  const std::vector<std::int64_t> layerBytes;
  const std::function<void(const std::string &)> warn;
  const std::unique_ptr<RedisClient> client;
  const std::string prefix;
  mutable std::mutex mutex;
  // Per slot and layer: where its page is, and its digest.
  std::vector<State> states;
  std::vector<XXH128_hash_t> digests;
  std::unordered_map<size_t, std::vector<std::int8_t>> local;
  mutable RedisStats counters;
  mutable bool warned = false; // an outage's warning was given
};

} // namespace

std::unique_ptr<RedisStore> indexpool::cache::makeRedisStore(
    const RedisOptions &options, std::uint64_t slots,
    std::vector<std::int64_t> layerBytes,
    std::function<void(const std::string &)> warn, std::string &error) {
  if (options.tls) {
    error = "the redis store: TLS (rediss://) is not available: this "
            "build's hiredis (0.14, Debian 12) has no TLS support. Put a "
            "TLS tunnel in front of the server (stunnel, or ssh -L) on this "
            "host and give redis://127.0.0.1:PORT (the tunnel's local port)";
    return nullptr;
  }
  if (options.host.empty() || options.port < 1 || options.port > 65535 ||
      options.db < 0 || options.connectTimeoutMs <= 0 ||
      options.commandTimeoutMs <= 0 || options.reconnectIntervalMs < 0) {
    error = "the redis store: a bad host, port (1 to 65535), database or "
            "timeout (each > 0 ms)";
    return nullptr;
  }
  // The map holds one state byte and one 16-byte digest per page: slots *
  // layers * 17 bytes must fit.
  const unsigned __int128 pages =
      (unsigned __int128)slots * layerBytes.size();
  if (pageBytesInAllLayers(layerBytes) < 0 || layerBytes.empty() ||
      slots == 0 || pages * 17 > (unsigned __int128)(SIZE_MAX / 2)) {
    error = "the redis store: a bad size (" + std::to_string(slots) +
            " slots, " + std::to_string(layerBytes.size()) +
            " layers, each page > 0 bytes)";
    return nullptr;
  }
  auto client = std::make_unique<RedisClient>(options);
  std::string why;
  if (!client->ping(why)) {
    error = "the redis store (" + client->address() + "): " + why;
    return nullptr;
  }
  try {
    return std::make_unique<Store>(options, slots, std::move(layerBytes),
                                   std::move(warn), std::move(client));
  } catch (const std::bad_alloc &) {
    error = "the redis store: no host memory for the digests of " +
            std::to_string(slots) + " slots";
    return nullptr;
  }
}
