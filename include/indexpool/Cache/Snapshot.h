//===- Snapshot.h - Crash-safe snapshots of a PagedCache ------------------===//
//
// A snapshot file holds a cache's whole state: the configuration, every
// live sequence (id, length, block table, each layer's tail), the next
// sequence id, and the bytes of every page a block table lists, in every
// layer. It is written atomically: a temporary file beside it, fsync,
// rename over the old snapshot, fsync of the directory; a crash at any
// moment leaves the previous snapshot or the new one, never a mix, and a
// failed write (a full disk) leaves the previous one and says why.
//
// Snapshots can be incremental (SnapshotWriter): a full snapshot at PATH,
// then increments PATH.inc.1, PATH.inc.2, ... each holding the whole state
// but only the pages whose bytes changed since the previous file of the
// chain (and naming that file by the XXH64 of its body). Every few
// increments a full snapshot starts a new chain; an increment left from an
// older chain does not match and is ignored.
//
// Format (little-endian): a 144-byte header (magic "IPCACHE1", version 4,
// the configuration with every tier's pages together, the caller's
// generation number, counts, the body's size and XXH64, the temperature
// and the pooling flags (scores per channel, the bias kind), u64 refine
// (the token tier's C, 0 for none), and the XXH64 of the header itself),
// then the body: u64 kind (0 full, 1 increment), u64 XXH64 of the
// previous file's body, u64 index in the chain, u64 bias count and the
// bias f32; per sequence u64 id, i64 length, u64 table size, i32 page ids,
// and per layer u8 has-tail then (P - 1) x D + (P - 1) x W f32; then per
// stored page i32 id and its bytes in each stored layer (the L pooled
// layers of E (D + 4) bytes, then with refine the L token-tier layers of
// P E (D + 4)). Version 3 files (136-byte header, no refine: a cache
// without a token tier) and version 2 files (128-byte header, no pooling
// parameters: no bias, temperature 1, scores per token) are read too; a
// snapshot restores only into a cache of its refine. A file that is
// truncated, corrupt, of another format or version, or of another
// configuration is refused with one line that says which; the bias values
// come from the snapshot.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_SNAPSHOT_H
#define INDEXPOOL_CACHE_SNAPSHOT_H

#include "indexpool/Cache/PagedCache.h"

#include <functional>

namespace indexpool::cache {

/// Writes `cache` to `path` atomically, with `generation` (the caller's
/// count of steps, say) in the header.
bool writeSnapshot(const PagedCache &cache, const std::string &path,
                   std::uint64_t generation, std::string &error);

/// Incremental snapshots at one path: write() writes a full snapshot
/// first and after every `maxIncrements` increments, an increment (the
/// pages changed since the previous write, found by hashing every listed
/// page) otherwise.
class SnapshotWriter {
public:
  explicit SnapshotWriter(std::string path, unsigned maxIncrements = 8);
  bool write(const PagedCache &cache, std::uint64_t generation,
             std::string &error);
  /// Pages the last write stored.
  std::size_t lastStoredPages() const { return lastStored; }

private:
  std::string path;
  unsigned maxIncrements;
  bool hasBase = false;
  std::uint64_t increments = 0, lastHash = 0;
  std::size_t lastStored = 0;
  std::map<PageIndex, std::uint64_t> written; // page -> hash of its bytes
};

/// Increment `index` (from 1) of the chain at `path`.
std::string incrementPath(const std::string &path, std::uint64_t index);

/// Rewrites the body and header checksums of a snapshot file's bytes (the
/// current format version) after an edit, so that a tool that edits a
/// snapshot on purpose (a fuzzer, a test of what restore checks past the
/// checksums) gets a file whose checksums hold. False when `image` is not
/// a current-version snapshot (too short, wrong magic or version).
bool resealSnapshot(std::vector<std::uint8_t> &image);

/// CacheConfig::verify of the configuration a snapshot is restored into,
/// before anything is read or allocated for it: its sizes against this
/// machine's memory; its bias values aside (the snapshot's body holds them).
/// "" when it passes.
std::string verifyRestoreConfig(CacheConfig config);

/// The configuration and generation in a snapshot's header (checked; the
/// generation of the chain's newest increment when there are any).
bool readSnapshotHeader(const std::string &path, CacheConfig &config,
                        std::uint64_t &generation, std::string &error);

/// Makes the page store of a restored cache's store tier from its
/// configuration (the snapshot's bias values in it, so the store's
/// namespace is the original cache's); null with `error`.
using MakePageStore = std::function<std::unique_ptr<PageStore>(
    const CacheConfig &config, std::string &error)>;

/// The cache a snapshot (with its chain's increments) holds, run by
/// `kernels`; refused unless the snapshot's configuration is `config`
/// (tiers may split its pages differently; the bias values are the
/// snapshot's). A store tier (config.storePages > 0) needs `makeStore`
/// (lib/CacheRedis makeCacheStore); its pages are written to it anew.
std::unique_ptr<PagedCache>
restoreSnapshot(const std::string &path, const CacheConfig &config,
                std::unique_ptr<CacheKernels> kernels,
                std::uint64_t &generation, std::string &error,
                const MakePageStore &makeStore = {});

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_SNAPSHOT_H
