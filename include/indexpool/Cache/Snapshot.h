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
// Format (little-endian): a 128-byte header (magic "IPCACHE1", version 1,
// the configuration, the caller's generation number, counts, the body's
// size and XXH64, and the XXH64 of the header itself), then the body:
// per sequence u64 id, i64 length, u64 table size, i32 page ids, and per
// layer u8 has-tail then (P - 1) x D + (P - 1) f32; then per stored page
// i32 id and its bytes in each layer. A file that is truncated, corrupt,
// of another format or version, or of another configuration is refused
// with one line that says which.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHE_SNAPSHOT_H
#define INDEXPOOL_CACHE_SNAPSHOT_H

#include "indexpool/Cache/PagedCache.h"

namespace indexpool::cache {

/// Writes `cache` to `path` atomically, with `generation` (the caller's
/// count of steps, say) in the header.
bool writeSnapshot(const PagedCache &cache, const std::string &path,
                   std::uint64_t generation, std::string &error);

/// The configuration and generation in a snapshot's header (checked).
bool readSnapshotHeader(const std::string &path, CacheConfig &config,
                        std::uint64_t &generation, std::string &error);

/// The cache a snapshot holds, run by `kernels`; refused unless the
/// snapshot's configuration is `config`.
std::unique_ptr<PagedCache> restoreSnapshot(const std::string &path,
                                            const CacheConfig &config,
                                            std::unique_ptr<CacheKernels> kernels,
                                            std::uint64_t &generation,
                                            std::string &error);

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHE_SNAPSHOT_H
