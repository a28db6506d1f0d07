//===- RedisStore.h - A cache tier's pages in Redis or Valkey -------------===//
//
// A PageStore whose pages live in a Redis (or Valkey) server, addressed by
// content: a page's key is the XXH3-128 of (namespace, layer, byte count,
// bytes), so identical pages written by any process are stored once, and a
// read recomputes the hash: a page lost or changed on the server is an
// error, never wrong bytes. When the server cannot take a write (down, too
// slow, out of memory) the page stays in host memory instead and `warn`
// says so once per outage; once writes reach the server again, each sends
// up to 8 of those held pages back to it. Host memory holds at most
// RedisOptions::maxHeldPages such pages: past it a write fails, and
// canWrite refuses a call before it moves anything. Each page on the server
// has a reference count (a slot of any process's store, a manifest): the
// last reference given back deletes it. See docs/cache.md.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHEREDIS_REDISSTORE_H
#define INDEXPOOL_CACHEREDIS_REDISSTORE_H

#include "indexpool/Cache/PageStore.h"
#include "indexpool/Cache/SharedPages.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace indexpool::cache {

struct RedisOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  int db = 0;
  /// An ACL user (AUTH user password), or empty (AUTH password, if any).
  std::string user;
  std::string password;
  /// Refused: hiredis 0.14 (Debian 12) has no TLS (see makeRedisStore).
  bool tls = false;
  int connectTimeoutMs = 1000;
  int commandTimeoutMs = 1000;
  /// After a failure, the next connection is tried no sooner than this, so
  /// a dead server does not stall every call.
  int reconnectIntervalMs = 1000;
  std::string keyPrefix = "indexpool:";
  /// Hashed into every page: what the bytes mean (the caller builds it,
  /// e.g. "D=128 P=4 E=64 f8E4M3FN rotate model=NAME").
  std::string ns;
  /// The most page layers (one layer of one slot) held in host memory
  /// while the server cannot take writes; 0: every slot's.
  std::uint64_t maxHeldPages = 0;
};

/// Fills host, port, db, user, password and tls of `options` from
/// `redis://[user[:password]@]host[:port][/db]` (`rediss://`: TLS; an IPv6
/// host in brackets); false with `error` (which never holds the password)
/// otherwise, leaving `options` unchanged.
bool parseRedisUrl(const std::string &url, RedisOptions &options,
                   std::string &error);

struct RedisStats {
  std::uint64_t stored = 0;       // SET NX stored a new page
  std::uint64_t deduplicated = 0; // SET NX found the page already there
  std::uint64_t reads = 0;        // pages read from the server
  std::uint64_t bytesWritten = 0, bytesRead = 0;
  std::uint64_t failures = 0; // commands that failed (then overflow/error)
  std::uint64_t overflowPages = 0, overflowBytes = 0; // held locally now
  std::uint64_t pushedBack = 0; // held pages sent to the server later
  std::uint64_t roundTrips = 0; // to the server (a pipeline is one)
  std::uint64_t released = 0; // references given back
  std::uint64_t deleted = 0;  // pages deleted with their last reference
  // References that could not be given back (the server was unreachable):
  // those pages stay on the server (never deleted early).
  std::uint64_t releasesLost = 0;
};

class RedisStore : public PageStore, public SharedPages {
public:
  /// PageStore: `write` never loses a page (the local overflow),
  /// `writeSlot` pipelines a slot's layers (one round trip), `read` fails
  /// on a page the server lost or changed, `layerData` is null.

  SharedPages *shared() override { return this; }

  /// The content-level API (SharedPages), for sharing pages between
  /// processes: a page of `layer` (exactly that layer's page bytes) by its
  /// digest (32 hex digits). putPage has no overflow: "" with `error` when
  /// the server cannot take it. pageDigest is "" for a slot not written or
  /// held locally. A manifest is checked like a page and bound to the
  /// namespace: one written under another `ns` is refused.
  virtual RedisStats stats() const = 0;
};

/// `slots` slots of one page per entry of `layerBytes` (each > 0), on the
/// server `options` names; null with `error` when it cannot be reached or
/// refuses the credentials now, or TLS is asked for. `warn` (may be empty)
/// gets outage and recovery messages, never page bytes or the password; it
/// runs under the store's lock and must not call the store.
std::unique_ptr<RedisStore>
makeRedisStore(const RedisOptions &options, std::uint64_t slots,
               std::vector<std::int64_t> layerBytes,
               std::function<void(const std::string &)> warn,
               std::string &error);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHEREDIS_REDISSTORE_H
