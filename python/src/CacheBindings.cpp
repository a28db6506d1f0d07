//===- CacheBindings.cpp - indexpool.Cache in _indexpool ------------------===//
//
// The cache runtime from Python: sequences added, forked and freed, decode
// steps appended and selected with NumPy arrays (float32, C order; other
// float arrays are converted), snapshots written and restored. Every
// failure raises IndexPoolError with the C++ message.
//
//===----------------------------------------------------------------------===//

#include "CacheBindings.h"
#include "TensorArgs.h"

#include "indexpool/Cache/CacheTiers.h"
#include "indexpool/Cache/Snapshot.h"
#include "indexpool/CacheCpu/CpuCacheKernels.h"
#include "indexpool/CacheCuda/CudaCacheKernels.h"
#ifdef INDEXPOOL_PYTHON_REDIS
#include "indexpool/CacheRedis/CacheStore.h"
#endif

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>

namespace py = pybind11;
using namespace indexpool::cache;
namespace runtime = indexpool::runtime;

namespace {

using Floats = py::array_t<float, py::array::c_style | py::array::forcecast>;

/// Raises IndexPoolError.
[[noreturn]] void fail(const std::string &message) {
  indexpool::python::raise(indexpool::Status::error("indexpool.Cache: " + message));
}

/// `a` has exactly `shape` (the names say which sizes in a message).
void expectShape(const Floats &a, const std::vector<py::ssize_t> &shape,
                 const char *what, const char *names) {
  bool same = a.ndim() == py::ssize_t(shape.size());
  for (size_t i = 0; same && i < shape.size(); ++i)
    same = a.shape(py::ssize_t(i)) == shape[i];
  if (same)
    return;
  std::string want = "(", got = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    want += (i ? ", " : "") + std::to_string(shape[i]);
  for (py::ssize_t i = 0; i < a.ndim(); ++i)
    got += (i ? ", " : "") + std::to_string(a.shape(i));
  fail(std::string(what) + " must have shape " + names + " = " + want +
       "), got " + got + ")");
}

/// The store tier config asks for: a RedisStore whose outages and
/// recoveries go to stderr (the callback runs under the store's lock, maybe
/// without the GIL). Null with `error` without both a URL and store_pages,
/// or in a build without Redis.
std::unique_ptr<PageStore> makeStore(const CacheConfig &config,
                                     std::string &error) {
#ifdef INDEXPOOL_PYTHON_REDIS
  if (config.storeUrl.empty() || !config.storePages) {
    // The URL may hold a password: it stays out of the message.
    error = std::string("a store tier needs both a URL (store or tiers) and "
                        "store_pages (got ") +
            (config.storeUrl.empty() ? "no URL" : "a URL") +
            " and store_pages " + std::to_string(config.storePages) + ")";
    return nullptr;
  }
  return makeCacheStore(
      config,
      [](const std::string &text) {
        std::fprintf(stderr, "indexpool.Cache: %s\n", text.c_str());
      },
      error);
#else
  (void)config;
  error = "this build has no Redis store tier (hiredis and xxhash)";
  return nullptr;
#endif
}

class Cache {
public:
  Cache(std::int64_t layers, std::int64_t dim, std::int64_t poolSize,
        std::int64_t pageEntries, std::uint64_t pages, std::int64_t heads,
        std::int64_t k, int threads, std::uint64_t hostPages,
        std::uint64_t filePages, const std::string &filePath,
        const std::string &policy, bool perChannelScores,
        std::optional<Floats> bias, float temperature,
        const std::string &device, std::int64_t refine,
        const std::string &store, std::uint64_t storePages,
        const std::string &model, const std::string &tiers,
        const std::string &tokenTier, const std::string &codes,
        std::uint64_t storeHeldPages) {
    // The pooled pages' code type: a name of ElementTypes.def's PagedCode
    // rows; anything else is refused with the known ones listed.
    constexpr std::uint8_t kCodes = indexpool::ElementUse::PagedCode;
    std::optional<indexpool::ElementType> codeType =
        indexpool::parseElementType(codes, kCodes);
    if (!codeType)
      throw py::value_error("codes: " + indexpool::unknownElementTypeMessage(
                                            codes, "code type", kCodes));
    config.codes = *codeType;
    config.layers = layers;
    config.dim = dim;
    config.poolSize = poolSize;
    config.pageEntries = pageEntries;
    config.pages = pages;
    config.heads = heads;
    config.k = k;
    config.hostPages = hostPages;
    config.filePages = filePages;
    config.filePath = filePath;
    config.policy = policy;
    config.perChannelScores = perChannelScores;
    config.temperature = temperature;
    config.refine = refine;
    config.tokenTier = tokenTier;
    config.storeUrl = store;
    config.storePages = storePages;
    config.storeModel = model;
    config.storeHeldPages = storeHeldPages;
    if (bias) {
      // [P]: a bias per slot; [P, D]: per slot and channel.
      config.bias = bias->ndim() == 1 ? "slot" : "channel";
      if (bias->ndim() == 1)
        expectShape(*bias, {poolSize}, "bias", "(P)");
      else
        expectShape(*bias, {poolSize, dim}, "bias", "(P, D)");
      config.biasValues.assign(bias->data(), bias->data() + bias->size());
    }
    this->threads = threads;
    std::string error;
    // The list names the tiers; the keyword counts fill those it gives no
    // count, and a count for a tier it leaves out is refused.
    if (!tiers.empty() && !applyTiers(tiers, config, error))
      fail(error);
    auto kernels = makeKernels(config, threads, device, gpu, error);
    std::unique_ptr<PageStore> pageStore;
    if (kernels && (!config.storeUrl.empty() || config.storePages) &&
        !(pageStore = makeStore(config, error)))
      kernels.reset();
    if (kernels)
      cache = PagedCache::create(config, std::move(kernels), error,
                                 std::move(pageStore));
    if (!cache)
      fail(error);
  }
  Cache(std::unique_ptr<PagedCache> restored, int threads,
        std::shared_ptr<runtime::CudaDevice> gpu)
      : config(restored->config()), threads(threads), gpu(std::move(gpu)),
        cache(std::move(restored)) {}

  /// The kernels for `device`: "cpu" (compiled here), "cuda" or "cuda:N"
  /// (compiled for that GPU's chip and run through the CUDA runtime, which
  /// `gpu` then holds open).
  static std::unique_ptr<CacheKernels>
  makeKernels(const CacheConfig &config, int threads, const std::string &device,
              std::shared_ptr<runtime::CudaDevice> &gpu, std::string &error) {
    if (device == "cpu")
      return makeCpuCacheKernels(config, threads, error);
    int ordinal = 0;
    if (device.rfind("cuda", 0) != 0 ||
        (device.size() > 4 &&
         (device[4] != ':' || device.size() == 5 ||
          device.find_first_not_of("0123456789", 5) != std::string::npos ||
          device.size() > 8))) {
      error = "device must be 'cpu', 'cuda' or 'cuda:N', got '" + device + "'";
      return nullptr;
    }
    if (device.size() > 5)
      ordinal = std::stoi(device.substr(5));
    gpu = runtime::CudaDevice::open(error, ordinal);
    if (!gpu)
      return nullptr;
    CudaCacheArtifacts artifacts;
    if (!compileCudaCacheArtifacts(config, gpu->info().chip(), artifacts, error))
      return nullptr;
    return makeCudaCacheKernels(*gpu, config, artifacts, error);
  }

  /// Runs `work` on the cache with the GIL released and the cache's lock
  /// held: one call at a time from any number of Python threads (the
  /// PagedCache is not thread-safe; two threads in it freed pages twice).
  /// The lock is let go before the GIL is taken back, so no thread holds it
  /// while it waits for the GIL. `work` must not touch Python objects.
  template <typename Work> auto locked(Work work) const {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> guard(*callMutex);
    return work();
  }

  SequenceId add() {
    return locked([&] { return cache->add(); });
  }
  SequenceId fork(SequenceId parent) {
    SequenceId child;
    std::string error;
    if (!locked([&] { return cache->fork(parent, child, error); }))
      fail(error);
    return child;
  }
  void publish(SequenceId s, const std::string &name) {
    std::string error;
    if (!locked([&] { return cache->publish(s, name, error); }))
      fail(error);
  }
  void unpublish(const std::string &name) {
    std::string error;
    if (!locked([&] { return cache->unpublish(name, error); }))
      fail(error);
  }
  SequenceId adopt(const std::string &name) {
    SequenceId s;
    std::string error;
    if (!locked([&] { return cache->adopt(name, s, error); }))
      fail(error);
    return s;
  }
  py::dict sharing() const {
    const PagedCache::SharingStats st =
        locked([&] { return cache->sharing(); });
    py::dict d;
    d["published"] = st.published;
    d["adopted"] = st.adopted;
    d["pages_by_digest"] = st.pagesByDigest;
    d["pages_sent"] = st.pagesSent;
    d["pages_adopted"] = st.pagesAdopted;
    d["pages_shared"] = st.pagesShared;
    d["adopt_seconds"] = st.adoptSeconds;
    return d;
  }
  void free(SequenceId s) {
    std::string error;
    if (!locked([&] { return cache->free(s, error); }))
      fail(error);
  }
  std::int64_t length(SequenceId s) const {
    std::string error;
    std::int64_t length = -1;
    if (!locked([&] {
          if (!cache->sequences().check(s, error))
            return false;
          length = cache->sequences().length(s);
          return true;
        }))
      fail(error);
    return length;
  }
  std::vector<PageIndex> blockTable(SequenceId s) const {
    std::string error;
    std::vector<PageIndex> table;
    if (!locked([&] {
          if (!cache->sequences().check(s, error))
            return false;
          table = cache->sequences().blockTable(s);
          return true;
        }))
      fail(error);
    return table;
  }
  py::array pages(std::int64_t layer) const {
    if (layer < 0 || layer >= config.layers)
      fail("layer " + std::to_string(layer) + " of " +
           std::to_string(config.layers));
    std::vector<std::int8_t> bytes =
        locked([&] { return cache->logicalPages(layer); });
    py::array_t<std::int8_t> out({py::ssize_t(config.totalPages()),
                                  py::ssize_t(config.pageBytes())});
    std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
    return out;
  }
  py::array tokenPages(std::int64_t layer) const {
    if (config.refine <= 0)
      fail("token_pages: the cache has no token tier (refine 0)");
    if (layer < 0 || layer >= config.layers)
      fail("layer " + std::to_string(layer) + " of " +
           std::to_string(config.layers));
    std::vector<std::int8_t> bytes =
        locked([&] { return cache->logicalPages(config.layers + layer); });
    py::array_t<std::int8_t> out({py::ssize_t(config.totalPages()),
                                  py::ssize_t(config.tokenPageBytes())});
    std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
    return out;
  }

  py::dict residency() const {
    const ResidencyStats s = locked([&] { return cache->residency(); });
    py::list tiers;
    for (const TierStats &t : s.tiers) {
      py::dict d;
      d["name"] = t.name;
      d["pages"] = t.pages;
      d["resident"] = t.resident;
      d["hits"] = t.hits;
      d["pages_in"] = t.pagesIn;
      d["pages_out"] = t.pagesOut;
      d["bytes_in"] = t.bytesIn;
      d["bytes_out"] = t.bytesOut;
      tiers.append(d);
    }
    py::dict out;
    out["hits"] = s.hits;
    out["misses"] = s.misses;
    out["new_pages"] = s.newPages;
    out["tiers"] = tiers;
    return out;
  }

  void append(const std::vector<SequenceId> &batch, const Floats &keys,
              const Floats &scores) {
    const py::ssize_t b = py::ssize_t(batch.size());
    if (keys.ndim() != 4)
      fail("keys must have shape (layers, batch, new tokens, D)");
    const py::ssize_t n = keys.shape(2);
    expectShape(keys, {config.layers, b, n, config.dim}, "keys",
                "(layers, batch, new tokens, D)");
    if (config.perChannelScores)
      expectShape(scores, {config.layers, b, n, config.dim}, "scores",
                  "(layers, batch, new tokens, D)");
    else
      expectShape(scores, {config.layers, b, n}, "scores",
                  "(layers, batch, new tokens)");
    const std::int64_t w = config.scoreWidth();
    std::vector<const float *> k, s;
    for (std::int64_t l = 0; l < config.layers; ++l) {
      k.push_back(keys.data() + l * b * n * config.dim);
      s.push_back(scores.data() + l * b * n * w);
    }
    std::string error;
    if (!locked([&] { return cache->append(batch, n, k, s, error); }))
      fail(error);
  }

  py::array select(const std::vector<SequenceId> &batch, std::int64_t layer,
                   const Floats &queries, const Floats &weights) {
    const py::ssize_t b = py::ssize_t(batch.size());
    expectShape(queries, {b, config.heads, config.dim}, "queries",
                "(batch, H, D)");
    expectShape(weights, {b, config.heads}, "weights", "(batch, H)");
    std::vector<std::int32_t> tokens;
    std::string error;
    if (!locked([&] {
          return cache->select(batch, layer, queries.data(), weights.data(),
                               tokens, error);
        }))
      fail(error);
    const py::ssize_t row = py::ssize_t(config.k * config.poolSize +
                                        config.poolSize - 1);
    py::array_t<std::int32_t> out({b, row});
    std::memcpy(out.mutable_data(), tokens.data(), tokens.size() * 4);
    return out;
  }

  void snapshot(const std::string &path, std::uint64_t generation) const {
    std::string error;
    if (!locked([&] { return writeSnapshot(*cache, path, generation, error); }))
      fail(error);
  }

  static py::tuple restore(const std::string &path, int threads,
                           std::uint64_t hostPages, std::uint64_t filePages,
                           const std::string &filePath,
                           const std::string &policy,
                           const std::string &device, const std::string &store,
                           std::uint64_t storePages,
                           const std::string &model,
                           const std::string &tokenTier,
                           std::uint64_t storeHeldPages) {
    CacheConfig config;
    std::uint64_t generation = 0;
    std::string error;
    if (!readSnapshotHeader(path, config, generation, error))
      fail(error);
    // The header's pages are every tier's; the device tier gets the rest.
    if (store.empty() != (storePages == 0))
      fail("a store tier needs both store and store_pages");
    if (hostPages >= config.pages || filePages >= config.pages - hostPages ||
        storePages >= config.pages - hostPages - filePages)
      fail(path + ": the snapshot's cache has " + std::to_string(config.pages) +
           " pages; the host, file and store tiers must leave the device "
           "some");
    config.pages -= hostPages + filePages + storePages;
    config.hostPages = hostPages;
    config.filePages = filePages;
    config.filePath = filePath;
    config.policy = policy;
    config.storeUrl = store;
    config.storePages = storePages;
    config.storeModel = model;
    config.storeHeldPages = storeHeldPages;
    config.tokenTier = tokenTier;
    // The header's sizes are checked before anything is compiled or
    // allocated for them.
    if (std::string why = verifyRestoreConfig(config); !why.empty())
      fail(path + ": " + why);
    std::shared_ptr<runtime::CudaDevice> gpu;
    auto kernels = makeKernels(config, threads, device, gpu, error);
    std::unique_ptr<PagedCache> cache =
        kernels ? restoreSnapshot(path, config, std::move(kernels), generation,
                                  error, &makeStore)
                : nullptr;
    if (!cache)
      fail(error);
    return py::make_tuple(Cache(std::move(cache), threads, std::move(gpu)),
                          generation);
  }

  std::string device() const {
    return gpu ? "cuda:" + std::to_string(gpu->info().ordinal) : "cpu";
  }

  CacheConfig config;
  int threads = 0;

private:
  // Declared before the cache: the device outlives it.
  std::shared_ptr<runtime::CudaDevice> gpu;
  std::shared_ptr<PagedCache> cache;
  /// Held by every call into `cache` (locked()); shared as `cache` is by a
  /// moved Cache (restore returns one).
  std::shared_ptr<std::mutex> callMutex = std::make_shared<std::mutex>();
};

/// Cache.__init__'s text up to its code types (bindCache appends them).
constexpr const char *kCacheInitDoc =
           "pages: the device tier's budget; host_pages and file_pages: "
           "lower tiers (0: none; the file tier's file is created at "
           "file_path); policy: lru, lru-k, lru-k:K or lru-k:K:PERIOD; "
           "scores per token or per token and channel; bias (P,) or (P, D) "
           "float32 and temperature: the pooling's; device: 'cpu', or "
           "'cuda' / 'cuda:N' (the kernels compiled for that GPU's chip, "
           "the device tier in its memory, the host tier pinned; the "
           "arrays stay NumPy and are copied per call); refine: 0 (one "
           "stage) or C >= 1: the cache also keeps every token's key in a "
           "token tier (P * E tokens a page, P * E * (D + 4) bytes, the "
           "same page ids), and select keeps C * k pooled entries, then "
           "the best k * P + P - 1 of their tokens and the tail's re-scored "
           "there (refine_paged; the CPU kernels only); store: "
           "'redis://[user[:password]@]host[:port][/db]', a bottom tier of "
           "store_pages pages on a Redis or Valkey server, shared by "
           "content with other caches of the same configuration and model "
           "(publish / adopt); tiers: the tiers as one list, top to "
           "bottom, 'device[:N],host[:N],file[:N],redis://...' (a tier "
           "left out has none; ':N' sets its pages, else pages, "
           "host_pages, file_pages or store_pages do); token_tier: "
           "'device' (with refine, each page's token tier moves with its "
           "pools) or 'host' (the token tier stays in host memory, pinned "
           "on a GPU, for every page; the tiers hold the pools only); "
           "store_held_pages: while the store's server cannot take writes, "
           "the pages bound for it wait in host memory, at most this many "
           "(0: pages; else at least pages), past which a call is refused "
           "before anything moves; "
           "codes: the pooled pages' code type, ";

} // namespace

void indexpool::python::bindCache(py::module &m) {
  // The code types from ElementTypes.def; pybind11 copies the text.
  std::string initDoc =
      std::string(kCacheInitDoc) +
      elementTypeList(ElementUse::PagedCode) +
      " (below a byte: two a byte, D even, E * (D / 2 + 4) bytes a page; "
      "the token tier stays FP8).";
  py::class_<Cache>(m, "Cache", R"(The pooled indexer caches of many sequences (docs/cache.md): L layers
of paged FP8 keys within a page budget, sequences added, forked (sharing
pages, copy-on-write) and freed, decode steps appended and selected through
the paged kernels compiled for the CPU, and crash-safe snapshots.)")
      .def(py::init<std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                    std::uint64_t, std::int64_t, std::int64_t, int,
                    std::uint64_t, std::uint64_t, const std::string &,
                    const std::string &, bool, std::optional<Floats>,
                    float, const std::string &, std::int64_t,
                    const std::string &, std::uint64_t, const std::string &,
                    const std::string &, const std::string &,
                    const std::string &, std::uint64_t>(),
           py::arg("layers") = 1, py::arg("dim") = 128,
           py::arg("pool_size") = 4, py::arg("page_entries") = 64,
           py::arg("pages") = 1024, py::arg("heads") = 64, py::arg("k") = 512,
           py::arg("threads") = 0, py::arg("host_pages") = 0,
           py::arg("file_pages") = 0, py::arg("file_path") = "",
           py::arg("policy") = "lru-k", py::arg("per_channel_scores") = false,
           py::arg("bias") = py::none(), py::arg("temperature") = 1.0f,
           py::arg("device") = "cpu", py::arg("refine") = 0,
           py::arg("store") = "", py::arg("store_pages") = 0,
           py::arg("model") = "", py::arg("tiers") = "",
           py::arg("token_tier") = "device", py::arg("codes") = "f8E4M3FN",
           py::arg("store_held_pages") = 0, initDoc.c_str())
      .def("add", &Cache::add, "A new empty sequence; its id.")
      .def("fork", &Cache::fork, py::arg("parent"),
           "A new sequence sharing the parent's pages and tail; its id.")
      .def("free", &Cache::free, py::arg("sequence"))
      .def("publish", &Cache::publish, py::arg("sequence"), py::arg("name"),
           "Writes the sequence's pages (by content) and a manifest `name` "
           "to the store tier, for another process's adopt. The manifest "
           "keeps those pages on the server until it is replaced or "
           "unpublished.")
      .def("unpublish", &Cache::unpublish, py::arg("name"),
           "Deletes manifest `name` from the store tier; pages nothing "
           "else refers to are deleted with it.")
      .def("adopt", &Cache::adopt, py::arg("name"),
           "A new sequence from manifest `name` (published by a cache of "
           "the same configuration and model), its pages hash-checked, "
           "those this cache holds already (published or adopted here, "
           "unchanged since) shared copy-on-write instead of read; its id.")
      .def("sharing", &Cache::sharing,
           "Counts of publish and adopt: sequences, pages (pages_shared: "
           "adopted pages the cache held already), adopt seconds.")
      .def("length", &Cache::length, py::arg("sequence"))
      .def("block_table", &Cache::blockTable, py::arg("sequence"))
      .def("pages", &Cache::pages, py::arg("layer"),
           "A copy of one layer's pages by id, int8 (pages of every tier, "
           "E * (D + 4), or E * (D / 2 + 4) for i4 codes).")
      .def("token_pages", &Cache::tokenPages, py::arg("layer"),
           "A copy of one layer's token tier by page id, int8 (refine > 0; "
           "P * E tokens a page, P * E * (D + 4) bytes).")
      .def("residency", &Cache::residency,
           "Hits, misses, new pages and per tier the pages and bytes moved.")
      .def("append", &Cache::append, py::arg("sequences"), py::arg("keys"),
           py::arg("scores"),
           "One decode step: keys (layers, batch, n, D) and scores (layers, "
           "batch, n) or, per channel, (layers, batch, n, D), float32, for "
           "the sequences in order.")
      .def("select", &Cache::select, py::arg("sequences"), py::arg("layer"),
           py::arg("queries"), py::arg("weights"),
           "Tokens (batch, k * P + P - 1) int32 of one layer for queries "
           "(batch, H, D) and head weights (batch, H); with refine the best "
           "of the C * k pools' tokens and the tail's on the token tier (the "
           "tail tokens compete), -1 for empty slots.")
      .def("snapshot", &Cache::snapshot, py::arg("path"),
           py::arg("generation") = 0,
           "Writes the cache to path atomically (docs/cache.md).")
      .def_static("restore", &Cache::restore, py::arg("path"),
                  py::arg("threads") = 0, py::arg("host_pages") = 0,
                  py::arg("file_pages") = 0, py::arg("file_path") = "",
                  py::arg("policy") = "lru-k", py::arg("device") = "cpu",
                  py::arg("store") = "", py::arg("store_pages") = 0,
                  py::arg("model") = "", py::arg("token_tier") = "device",
                  py::arg("store_held_pages") = 0,
                  "(cache, generation) from a snapshot file, its pages "
                  "split into the tiers given (the device tier keeps the "
                  "rest), on `device`; store, store_pages and model as for "
                  "Cache (the pages in the store tier are written to it "
                  "anew).")
      .def_property_readonly("layers", [](const Cache &c) { return c.config.layers; })
      .def_property_readonly("dim", [](const Cache &c) { return c.config.dim; })
      .def_property_readonly("pool_size",
                             [](const Cache &c) { return c.config.poolSize; })
      .def_property_readonly("page_entries",
                             [](const Cache &c) { return c.config.pageEntries; })
      .def_property_readonly("heads", [](const Cache &c) { return c.config.heads; })
      .def_property_readonly("k", [](const Cache &c) { return c.config.k; })
      .def_property_readonly("refine",
                             [](const Cache &c) { return c.config.refine; })
      .def_property_readonly("token_tier",
                             [](const Cache &c) { return c.config.tokenTier; })
      .def_property_readonly("codes", [](const Cache &c) {
        return std::string(elementTypeName(c.config.codes));
      })
      .def_property_readonly("device", &Cache::device)
      .def_property_readonly("per_channel_scores",
                             [](const Cache &c) { return c.config.perChannelScores; })
      .def_property_readonly("temperature",
                             [](const Cache &c) { return c.config.temperature; })
      .def_property_readonly("bias", [](const Cache &c) -> py::object {
        // A restored cache has its snapshot's values.
        const CacheConfig &config = c.config;
        if (config.bias == "none")
          return py::none();
        std::vector<py::ssize_t> shape = {py::ssize_t(config.poolSize)};
        if (config.bias == "channel")
          shape.push_back(py::ssize_t(config.dim));
        py::array_t<float> out(shape);
        std::memcpy(out.mutable_data(), config.biasValues.data(),
                    config.biasValues.size() * 4);
        return std::move(out);
      });
}
