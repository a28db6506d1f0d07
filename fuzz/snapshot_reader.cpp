//===- snapshot_reader.cpp - fuzz the cache's snapshot reader -------------===//
//
// Input: edits of a valid snapshot (a small cache of two sequences, written
// once at start-up): pairs (offset, byte) applied to its bytes, then, when
// the input's first byte is odd, the checksums resealed so the edits reach
// the parser behind them. readSnapshotHeader and restoreSnapshot must
// either fail with one line that names the file, or restore a cache whose
// sequences all pass their own check with block tables that fit the pages;
// nothing may crash, leak or hang. (Headers of caches above 64 MiB are read
// but not restored: restore allocates the cache they describe.)
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "indexpool/Cache/Snapshot.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace indexpool::cache;
using indexpool::fuzz::finding;

namespace {

/// Kernels that compute nothing: the snapshot's structure, not the codes,
/// is under test (append leaves the pages' bytes as they are).
struct NoKernels final : CacheKernels {
  bool append(const AppendCall &, std::string &) override { return true; }
  bool select(const SelectCall &, std::string &) override { return true; }
};

CacheConfig smallConfig() {
  CacheConfig c;
  c.layers = 2;
  c.dim = 32;
  c.poolSize = 4;
  c.pageEntries = 4;
  c.pages = 16;
  c.heads = 2;
  c.k = 3;
  return c;
}

/// The seed snapshot's bytes: two sequences, one forked from the other.
const std::vector<std::uint8_t> &seed() {
  static const std::vector<std::uint8_t> bytes = [] {
    std::string error;
    auto cache = PagedCache::create(smallConfig(),
                                    std::make_unique<NoKernels>(), error);
    if (!cache)
      finding("the seed cache: " + error);
    const CacheConfig &c = cache->config();
    SequenceId a = cache->add();
    std::vector<float> keys(size_t(c.layers * 37 * c.dim), 0.5f),
        scores(size_t(c.layers * 37), 1.0f);
    std::vector<const float *> k, s;
    for (std::int64_t l = 0; l < c.layers; ++l) {
      k.push_back(keys.data() + l * 37 * c.dim);
      s.push_back(scores.data() + l * 37);
    }
    if (!cache->append({a}, 37, k, s, error))
      finding("the seed append: " + error);
    SequenceId b;
    if (!cache->fork(a, b, error))
      finding("the seed fork: " + error);
    const std::string path =
        "/tmp/indexpool-fuzz-snapshot-seed-" + std::to_string(getpid());
    if (!writeSnapshot(*cache, path, 7, error))
      finding("the seed snapshot: " + error);
    std::ifstream in(path, std::ios::binary);
    std::vector<std::uint8_t> image{std::istreambuf_iterator<char>(in), {}};
    std::remove(path.c_str());
    return image;
  }();
  return bytes;
}

bool oneLineNaming(const std::string &error, const std::string &path) {
  return !error.empty() && error.find('\n') == std::string::npos &&
         error.rfind(path, 0) == 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static indexpool::fuzz::MemFile file("snapshot-input");
  std::vector<std::uint8_t> image = seed();
  // Edits: 3 bytes each, a 16-bit offset (into the image, wrapped) and
  // the byte written there; an odd first byte reseals the checksums.
  for (size_t i = 1; i + 3 <= size; i += 3) {
    const size_t at = (size_t(data[i]) | size_t(data[i + 1]) << 8) %
                      image.size();
    image[at] = data[i + 2];
  }
  if (size > 0 && (data[0] & 1))
    resealSnapshot(image);
  if (size > 0 && (data[0] & 2))
    image.resize(image.size() - data[0] % 97); // truncated
  file.write(image.data(), image.size());

  CacheConfig config;
  std::uint64_t generation = 0;
  std::string error;
  if (!readSnapshotHeader(file.path, config, generation, error)) {
    if (!oneLineNaming(error, file.path))
      finding("readSnapshotHeader failed without one line naming the "
              "file: '" + error + "'");
    return 0;
  }
  // A header may describe any cache this machine could hold, and restore
  // then allocates all of its pages, as Cache(pages=N) would: legitimate,
  // but not in a fuzzer's memory. Larger ones stop here.
  if (!verifyRestoreConfig(config).empty())
    return 0; // restore refuses it first thing (and says why)
  const std::int64_t allLayers =
      pageBytesInAllLayers(config.storedLayerBytes());
  if (allLayers <= 0 || config.totalPages() > (std::uint64_t(1) << 31) ||
      (unsigned __int128)config.totalPages() * std::uint64_t(allLayers) >
          (unsigned __int128)(64 << 20))
    return 0;
  // As Cache.restore does: the header's configuration, then the file.
  auto cache = restoreSnapshot(file.path, config,
                               std::make_unique<NoKernels>(), generation,
                               error);
  if (!cache) {
    if (!oneLineNaming(error, file.path))
      finding("restoreSnapshot failed without one line naming the file: '" +
              error + "'");
    return 0;
  }
  for (SequenceId s : cache->sequences().liveIds()) {
    if (!cache->sequences().check(s, error))
      finding("a restored sequence fails its check: " + error);
    for (PageIndex page : cache->sequences().blockTable(s))
      if (page >= cache->config().totalPages())
        finding("a restored block table names page " + std::to_string(page));
  }
  return 0;
}
