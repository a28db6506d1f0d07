//===- RedisStore.cpp - A cache tier's pages in Redis or Valkey -----------===//
//
// Slot s, layer l maps to the digest of the page last written there; the
// server holds the bytes under keyPrefix + "page:" + that digest and its
// reference count under keyPrefix + "refs:" + that digest. Every change of
// a count is a Lua script, so a page's bytes and count change together
// even when processes race: a reference is taken with (or before) the
// bytes' SET NX and the page is deleted in the same step as its last
// reference goes. A reference whose release may not have reached the
// server is never released again (that page stays: a leak, counted, never
// an early delete).
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

using ScriptCall = RedisClient::ScriptCall;
using ScriptResult = RedisClient::ScriptResult;

// KEYS page, refs; ARGV bytes: stores the page unless it is there, and
// takes a reference. 1: stored, 0: it was there.
const std::string kAcquire = R"(
local stored = redis.call('SET', KEYS[1], ARGV[1], 'NX')
redis.call('INCR', KEYS[2])
if stored then return 1 end
return 0)";
// KEYS page, refs: a reference to a page that is there. 1, or 0: not there.
const std::string kRefer = R"(
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('INCR', KEYS[2])
return 1)";
// KEYS page, refs: gives a reference back; the last one deletes the page
// (1). allow-oom: a full server must still be able to free memory.
const std::string kRelease = R"(#!lua flags=allow-oom
local n = redis.call('DECR', KEYS[2])
if n <= 0 then
  redis.call('DEL', KEYS[1], KEYS[2])
  return 1
end
return 0)";
// KEYS manifest; ARGV value: replaces the manifest, gives the old value.
const std::string kSwapManifest = R"(
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
return old)";
// KEYS manifest: deletes it, gives the old value.
const std::string kDeleteManifest = R"(#!lua flags=allow-oom
local old = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
return old)";

/// A manifest's value: check (16 bytes) | digest count (8) | the digests
/// of the pages it refers to (16 bytes each) | the caller's blob.
constexpr size_t kCheckBytes = 16, kDigestBytes = 16;

std::string rawDigest(XXH128_hash_t hash) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, hash);
  return std::string(reinterpret_cast<const char *>(canonical.digest),
                     sizeof(canonical.digest));
}

XXH128_hash_t fromRaw(const char *bytes) {
  XXH128_canonical_t canonical;
  std::memcpy(canonical.digest, bytes, sizeof(canonical.digest));
  return XXH128_hashFromCanonical(&canonical);
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
        digests(states.size()),
        maxHeld(options.maxHeldPages ? options.maxHeldPages : states.size()) {}

  /// Gives back every slot's references, in a few round trips; a server
  /// that cannot be reached keeps those pages (releasesLost).
  ~Store() override {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<XXH128_hash_t> held;
    for (size_t at = 0; at < states.size(); ++at)
      if (states[at] == InRedis)
        held.push_back(digests[at]);
    releaseLocked(held);
  }

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
    return writeSlotLayers(slot, {layer}, {bytes}, error);
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
    std::vector<std::int64_t> all(layers.size());
    for (size_t l = 0; l < all.size(); ++l)
      all[l] = std::int64_t(l);
    return writeSlotLayers(slot, all, layers, error);
  }

  bool canWrite(std::uint64_t slots, std::string &error) override {
    std::lock_guard<std::mutex> lock(mutex);
    const unsigned __int128 wanted =
        (unsigned __int128)slots * layerBytes.size() + local.size();
    // Nothing held: no outage seen (a write past the bound fails itself).
    if (wanted <= maxHeld || local.empty())
      return true;
    // Past the bound only if the server cannot take them: try to send the
    // held pages back first.
    while (!local.empty() && pushHeldPages(kPushBatch))
      ;
    if ((unsigned __int128)slots * layerBytes.size() + local.size() <= maxHeld)
      return true;
    error = heldBoundError(slots * layerBytes.size());
    return false;
  }

  void discard(std::uint64_t slot) override {
    std::string unused;
    if (!inRange(slot, 0, unused))
      return;
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<XXH128_hash_t> held;
    for (size_t l = 0; l < layerBytes.size(); ++l) {
      const size_t at = index(slot, std::int64_t(l));
      if (states[at] == InRedis)
        held.push_back(digests[at]);
      dropLocal(at);
      states[at] = Empty;
    }
    releaseLocked(held);
  }

  std::int8_t *layerData(std::int64_t) override { return nullptr; }

  std::string putPage(std::int64_t layer, const std::int8_t *bytes,
                      std::int64_t n, std::string &error) override {
    if (!layerAndSize(layer, n, error))
      return "";
    std::lock_guard<std::mutex> lock(mutex);
    const XXH128_hash_t hash = pageHash(opts.ns, layer, bytes, size_t(n));
    std::vector<ScriptResult> results;
    std::string why;
    if (!run({acquire(hash, bytes, size_t(n))}, results, why) ||
        results[0].kind != ScriptResult::Integer) {
      error = prefix + "storing a page of layer " + std::to_string(layer) +
              ": " + (why.empty() ? results[0].text : why);
      return "";
    }
    countSet(results[0].integer == 1, size_t(n));
    return toHex(hash);
  }

  bool referPages(const std::vector<std::string> &hexDigests,
                  std::string &error) override {
    std::vector<XXH128_hash_t> hashes(hexDigests.size());
    for (size_t i = 0; i < hashes.size(); ++i)
      if (!fromHex(hexDigests[i], hashes[i])) {
        error = prefix + "a page digest is 32 hex digits";
        return false;
      }
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t first = 0; first < hashes.size(); first += kScriptBatch) {
      const size_t end = std::min(hashes.size(), first + kScriptBatch);
      std::vector<ScriptCall> calls;
      for (size_t i = first; i < end; ++i)
        calls.push_back({&kRefer, keysOf(hashes[i]), {}});
      std::vector<ScriptResult> results;
      std::string why;
      const bool sent = run(calls, results, why);
      // Give back what this call took: the references of earlier batches,
      // and this batch's when the server answered (unknown otherwise:
      // kept, never released twice).
      std::vector<XXH128_hash_t> taken(hashes.begin(), hashes.begin() + first);
      size_t missing = end;
      for (size_t i = first; sent && i < end; ++i) {
        if (results[i - first].kind == ScriptResult::Integer &&
            results[i - first].integer == 1)
          taken.push_back(hashes[i]);
        else if (missing == end)
          missing = i;
      }
      if (sent && missing == end)
        continue;
      releaseLocked(taken);
      if (!sent) {
        counters.releasesLost += end - first;
        error = prefix + "taking references to " +
                std::to_string(end - first) + " pages: " + why;
      } else {
        const ScriptResult &r = results[missing - first];
        error = prefix + (r.kind == ScriptResult::Error
                              ? "taking a reference to page " +
                                    hexDigests[missing] + ": " + r.text
                              : "the store lost page " + hexDigests[missing] +
                                    " (restarted without persistence, or "
                                    "deleted behind the store's back)");
      }
      return false;
    }
    return true;
  }

  void releasePages(const std::vector<std::string> &hexDigests) override {
    std::vector<XXH128_hash_t> hashes;
    for (const std::string &hex : hexDigests) {
      XXH128_hash_t hash;
      if (fromHex(hex, hash))
        hashes.push_back(hash);
    }
    std::lock_guard<std::mutex> lock(mutex);
    releaseLocked(hashes);
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
                   const std::vector<std::string> &hexDigests,
                   std::string &error) override {
    std::string refs;
    for (const std::string &hex : hexDigests) {
      XXH128_hash_t hash;
      if (!fromHex(hex, hash)) {
        error = prefix + "a page digest is 32 hex digits";
        return false;
      }
      refs += rawDigest(hash);
    }
    const std::uint64_t count = hexDigests.size();
    std::string body(reinterpret_cast<const char *>(&count), 8);
    body += refs;
    body += blob;
    std::string value = rawDigest(manifestHash(opts.ns, name, body)) + body;
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<ScriptResult> results;
    std::string why;
    if (!run({{&kSwapManifest, {manifestKey(name)}, {std::move(value)}}},
             results, why) ||
        results[0].kind == ScriptResult::Error) {
      error = prefix + "storing the manifest '" + name +
              "': " + (why.empty() ? results[0].text : why);
      return false;
    }
    counters.bytesWritten += kCheckBytes + body.size();
    releaseLocked(referencesOf(results[0]));
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
    if (!found) {
      error = prefix + "no manifest '" + name + "'";
      return false;
    }
    const std::string body = value.substr(std::min(value.size(), kCheckBytes));
    std::uint64_t count = 0;
    if (value.size() < kCheckBytes + 8 ||
        std::memcmp(value.data(),
                    rawDigest(manifestHash(opts.ns, name, body)).data(),
                    kCheckBytes) != 0 ||
        (std::memcpy(&count, body.data(), 8),
         count > (body.size() - 8) / kDigestBytes)) {
      error = prefix + "the manifest '" + name +
              "' does not match its hash: written for another namespace "
              "(model, format), or changed behind the store's back";
      return false;
    }
    counters.bytesRead += value.size();
    blob = body.substr(8 + size_t(count) * kDigestBytes);
    return true;
  }

  bool deleteManifest(const std::string &name, std::string &error) override {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<ScriptResult> results;
    std::string why;
    if (!run({{&kDeleteManifest, {manifestKey(name)}, {}}}, results, why) ||
        results[0].kind == ScriptResult::Error) {
      error = prefix + "deleting the manifest '" + name +
              "': " + (why.empty() ? results[0].text : why);
      return false;
    }
    if (results[0].kind == ScriptResult::Nil) {
      error = prefix + "no manifest '" + name + "'";
      return false;
    }
    releaseLocked(referencesOf(results[0]));
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

  static constexpr size_t kScriptBatch = 1024, kPushBatch = 256;

  std::vector<std::string> keysOf(XXH128_hash_t hash) const {
    const std::string hex = toHex(hash);
    return {opts.keyPrefix + "page:" + hex, opts.keyPrefix + "refs:" + hex};
  }
  ScriptCall acquire(XXH128_hash_t hash, const void *bytes, size_t n) const {
    return {&kAcquire, keysOf(hash),
            {std::string(static_cast<const char *>(bytes), n)}};
  }

  /// The calls in one round trip; false (counted) when the connection
  /// failed, with `why`.
  bool run(const std::vector<ScriptCall> &calls,
           std::vector<ScriptResult> &results, std::string &why) const {
    if (!client->evalMany(calls, results, why)) {
      counters.failures += 1;
      return false;
    }
    noteSuccess();
    return true;
  }

  /// Gives back one reference to each page, in batches; a batch that may
  /// not have reached the server is not sent again (releasesLost).
  void releaseLocked(const std::vector<XXH128_hash_t> &hashes) {
    for (size_t first = 0; first < hashes.size(); first += kScriptBatch) {
      const size_t end = std::min(hashes.size(), first + kScriptBatch);
      std::vector<ScriptCall> calls;
      for (size_t i = first; i < end; ++i)
        calls.push_back({&kRelease, keysOf(hashes[i]), {}});
      std::vector<ScriptResult> results;
      std::string why;
      if (!run(calls, results, why)) {
        counters.releasesLost += hashes.size() - first;
        return;
      }
      for (const ScriptResult &r : results) {
        if (r.kind != ScriptResult::Integer) {
          counters.releasesLost += 1;
          continue;
        }
        counters.released += 1;
        counters.deleted += r.integer == 1 ? 1 : 0;
      }
    }
  }

  /// The pages a manifest's old value (a script's reply) refers to; none
  /// for no value or one that is not a manifest's.
  static std::vector<XXH128_hash_t> referencesOf(const ScriptResult &old) {
    std::vector<XXH128_hash_t> hashes;
    const std::string &value = old.text;
    std::uint64_t count = 0;
    if (old.kind != ScriptResult::Text || value.size() < kCheckBytes + 8)
      return hashes;
    std::memcpy(&count, value.data() + kCheckBytes, 8);
    if (count > (value.size() - kCheckBytes - 8) / kDigestBytes)
      return hashes;
    for (std::uint64_t i = 0; i < count; ++i)
      hashes.push_back(
          fromRaw(value.data() + kCheckBytes + 8 + i * kDigestBytes));
    return hashes;
  }

  /// Writes `bytes[i]` as layer `layers[i]` of `slot`, in one round trip
  /// with the release of the pages they replace; a layer the server
  /// cannot take is held locally.
  bool writeSlotLayers(std::uint64_t slot,
                       const std::vector<std::int64_t> &layers,
                       const std::vector<const std::int8_t *> &bytes,
                       std::string &error) {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<ScriptCall> calls;
    std::vector<size_t> written; // indices into layers, one per acquire
    std::vector<XXH128_hash_t> hashes(layers.size()), replaced;
    for (size_t i = 0; i < layers.size(); ++i) {
      const size_t at = index(slot, layers[i]);
      const size_t n = size_t(layerBytes[size_t(layers[i])]);
      hashes[i] = pageHash(opts.ns, layers[i], bytes[i], n);
      if (states[at] == InRedis && XXH128_isEqual(digests[at], hashes[i]))
        continue; // the slot refers to that page already
      calls.push_back(acquire(hashes[i], bytes[i], n));
      written.push_back(i);
      if (states[at] == InRedis)
        replaced.push_back(digests[at]);
    }
    for (XXH128_hash_t old : replaced)
      calls.push_back({&kRelease, keysOf(old), {}});
    if (calls.empty())
      return true;
    std::vector<ScriptResult> results;
    std::string why;
    const bool sent = run(calls, results, why);
    if (!sent) {
      counters.releasesLost += replaced.size();
      results.assign(calls.size(), ScriptResult());
    }
    for (size_t r = written.size(); sent && r < results.size(); ++r) {
      if (results[r].kind != ScriptResult::Integer) {
        counters.releasesLost += 1;
        continue;
      }
      counters.released += 1;
      counters.deleted += results[r].integer == 1 ? 1 : 0;
    }
    bool reached = false;
    for (size_t w = 0; w < written.size(); ++w) {
      const size_t i = written[w];
      const size_t at = index(slot, layers[i]);
      const ScriptResult &r = results[w];
      if (r.kind != ScriptResult::Integer) {
        // The replaced page's reference went with the script above (or is
        // lost with the connection): the slot refers to nothing now.
        states[at] = Empty;
        if (!holdLocally(slot, layers[i], bytes[i],
                         !why.empty()      ? why
                         : r.text.empty() ? std::string("refused")
                                          : r.text,
                         error))
          return false;
        continue;
      }
      reached = true;
      countSet(r.integer == 1, size_t(layerBytes[size_t(layers[i])]));
      noteInRedis(at, hashes[i]);
    }
    if (reached)
      pushHeldPages(kPushPerWrite);
    return true;
  }

  std::string heldBoundError(std::uint64_t more) const {
    return prefix + "cannot take pages (" + lastWhy + ") and " +
           std::to_string(local.size()) +
           " page layers are held in host memory, its bound is " +
           std::to_string(maxHeld) + " (maxHeldPages; a cache's "
           "storeHeldPages): " + std::to_string(more) +
           " more would pass it. Free sequences, or retry once the server "
           "is back";
  }

  /// A page the server took (stored, or found there already).
  void countSet(bool stored, size_t n) {
    (stored ? counters.stored : counters.deduplicated) += 1;
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
  /// once per outage; false with `error` past maxHeldPages (which canWrite
  /// keeps a cache from reaching) or when host memory runs out.
  bool holdLocally(std::uint64_t slot, std::int64_t layer,
                   const std::int8_t *bytes, const std::string &why,
                   std::string &error) {
    const size_t at = index(slot, layer), n = size_t(layerBytes[size_t(layer)]);
    lastWhy = why;
    if (!local.count(at) && local.size() >= maxHeld) {
      error = heldBoundError(1);
      dropLocal(at);
      states[at] = Empty;
      return false;
    }
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
  static constexpr size_t kPushPerWrite = 8;
  /// Sends up to `limit` held pages; false when the server took none.
  bool pushHeldPages(size_t limit) {
    std::vector<size_t> slots;
    std::vector<XXH128_hash_t> hashes;
    std::vector<ScriptCall> calls;
    for (auto held = local.begin();
         held != local.end() && slots.size() < limit; ++held) {
      const std::int64_t layer = std::int64_t(held->first % layerBytes.size());
      const std::vector<std::int8_t> &page = held->second;
      slots.push_back(held->first);
      hashes.push_back(pageHash(opts.ns, layer, page.data(), page.size()));
      calls.push_back(acquire(hashes.back(), page.data(), page.size()));
    }
    std::vector<ScriptResult> results;
    std::string why;
    if (slots.empty() || !run(calls, results, why))
      return false;
    bool took = false;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (results[i].kind != ScriptResult::Integer)
        continue;
      const size_t n = local.at(slots[i]).size();
      countSet(results[i].integer == 1, n);
      noteInRedis(slots[i], hashes[i]);
      counters.pushedBack += 1;
      took = true;
    }
    return took;
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
  const std::uint64_t maxHeld;
  std::string lastWhy; // why the server last refused a page
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
