//===- store_sharing.cpp - A prefix shared between processes via the store ===//
//
//   indexpool-bench-store-sharing [--tokens=T] [--layers=L] [--repeats=R]
//                                 [--selects=S] [--store=URL] [--smoke]
//
// Two serving processes share a T-token prefix (L layers, D = 128, P = 4,
// E = 64, H = 16, k = 64; the CPU kernels with one thread) through the
// cache's store tier: a redis-server of the bench's own (LocalRedisServer:
// a free loopback port, no persistence, SIGKILLed at exit) or the server
// --store names. Process A, a forked child, appends the prefix's
// keys (fresh random values) and publishes it. Process B, the parent,
// then R times each: appends the same keys itself (the anchor: what it
// does without the store, compress every group) and adopts A's prefix
// (the manifest and every page read and hash-checked from the server);
// min and median of each and anchor / adopt. Selects on the adopted
// sequence must return exactly the tokens of B's own copy.
//
// Then what a miss served by the store costs: two adopted copies of the
// prefix in a cache whose device tier holds one copy's pages and has no
// host tier, selected in turn, so every select brings all its pages back
// from the server (and pushes the other copy's down); against the same
// selects in a cache whose device tier holds both (no miss), measured in
// the same run in interleaved blocks of 10 selects.
//
//===----------------------------------------------------------------------===//

#include "indexpool/CacheCpu/CpuCacheKernels.h"
#include "indexpool/CacheRedis/CacheStore.h"
#include "indexpool/CacheRedis/LocalRedisServer.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <sys/wait.h>
#include <unistd.h>

using namespace indexpool::cache;

namespace {

const char *const kTool = "indexpool-bench-store-sharing";
using Clock = std::chrono::steady_clock;

int fail(const std::string &why) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, why.c_str());
  return 1;
}

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double minimum(const std::vector<double> &v) {
  return *std::min_element(v.begin(), v.end());
}

/// Fresh random values, never zeros (STYLE.md, Tests).
std::vector<float> randoms(std::mt19937 &rng, size_t n) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = normal(rng);
  return v;
}

struct Options {
  std::int64_t tokens = 32768, layers = 4, repeats = 5, selects = 40;
  std::string store;
};

bool parseOptions(int argc, char **argv, Options &o, std::string &error) {
  // --smoke only changes the defaults: explicit sizes still win.
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--smoke")
      o = {1024, 2, 2, 10, ""};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--smoke")
      continue;
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    std::int64_t *field = name == "--tokens"    ? &o.tokens
                          : name == "--layers"  ? &o.layers
                          : name == "--repeats" ? &o.repeats
                          : name == "--selects" ? &o.selects
                                                : nullptr;
    if (!field && name != "--store") {
      error = "unknown argument '" + arg +
              "' (expected --tokens=N, --layers=N, --repeats=N, --selects=N, "
              "--store=URL, --smoke)";
      return false;
    }
    std::string value;
    if (eq != std::string::npos)
      value = arg.substr(eq + 1);
    else if (i + 1 < argc)
      value = argv[++i];
    else {
      error = name + " needs a value";
      return false;
    }
    if (!field) {
      if (value.empty()) {
        error = "--store needs a URL (redis://HOST:PORT)";
        return false;
      }
      o.store = value;
      continue;
    }
    char *end = nullptr;
    errno = 0;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || errno) {
      error = name + " expects an integer, not '" + value + "'";
      return false;
    }
    *field = v;
  }
  // At least one full page (P * E = 256 tokens); at most 1 GiB of keys.
  if (o.tokens < 256 || o.layers < 1 || o.layers > 64 ||
      o.tokens * o.layers > (std::int64_t(1) << 21)) {
    error = "expected --tokens of at least 256, --layers from 1 to 64, and "
            "tokens x layers at most 2097152";
    return false;
  }
  if (o.repeats < 1 || o.repeats > 1000 || o.selects < 4 ||
      o.selects > 100000) {
    error = "expected --repeats from 1 to 1000 and --selects from 4 to 100000";
    return false;
  }
  return true;
}

/// "redis 7.0.15" or "valkey 8.0.1" from INFO server; "unknown" when the
/// server does not say (the store itself was reached already).
std::string serverVersion(const RedisOptions &o) {
  std::string version = "unknown";
  redisContext *c =
      redisConnectWithTimeout(o.host.c_str(), o.port, timeval{2, 0});
  if (c && !c->err && !o.password.empty())
    freeReplyObject(o.user.empty()
                        ? redisCommand(c, "AUTH %s", o.password.c_str())
                        : redisCommand(c, "AUTH %s %s", o.user.c_str(),
                                       o.password.c_str()));
  auto *reply = c && !c->err
                    ? static_cast<redisReply *>(redisCommand(c, "INFO server"))
                    : nullptr;
  if (reply && reply->type == REDIS_REPLY_STRING) {
    const std::string info(reply->str, reply->len);
    // Valkey reports redis_version too (the protocol level): its own first.
    for (const char *server : {"valkey", "redis"}) {
      const std::string key = std::string(server) + "_version:";
      const size_t at = info.find(key);
      if (at != std::string::npos) {
        version = server + (" " + info.substr(at + key.size(),
                                              info.find_first_of("\r\n", at) -
                                                  at - key.size()));
        break;
      }
    }
  }
  freeReplyObject(reply);
  redisFree(c);
  return version;
}

CacheConfig makeConfig(const Options &o, std::uint64_t devicePages,
                       std::uint64_t storePages, const std::string &url) {
  CacheConfig c;
  c.layers = o.layers;
  c.dim = 128;
  c.poolSize = 4;
  c.pageEntries = 64;
  c.heads = 16;
  c.k = 64;
  c.pages = devicePages;
  c.storePages = storePages;
  if (storePages) {
    c.storeUrl = url;
    // Fixed, so reruns against one --store server share pages rather than
    // pile up copies.
    c.storeModel = kTool;
  }
  return c;
}

std::unique_ptr<PagedCache> makeCache(const CacheConfig &c,
                                      std::string &error) {
  auto kernels = makeCpuCacheKernels(c, 1, error);
  if (!kernels)
    return nullptr;
  std::unique_ptr<RedisStore> store;
  if (c.storePages && !(store = makeCacheStore(
                            c,
                            [](const std::string &text) {
                              std::fprintf(stderr, "%s: warning: %s\n", kTool,
                                           text.c_str());
                            },
                            error)))
    return nullptr;
  return PagedCache::create(c, std::move(kernels), error, std::move(store));
}

/// The prefix: per layer keys [T, D] and scores [T], fresh random values.
struct Prefix {
  std::vector<std::vector<float>> keys, scores;
  std::vector<const float *> keyPtrs, scorePtrs;
};

/// Process A: appends the prefix, publishes it as `name`; its exit code.
int publishAsA(const CacheConfig &c, const Prefix &prefix, std::int64_t tokens,
               const std::string &name) {
  std::string error;
  const Clock::time_point t0 = Clock::now();
  std::unique_ptr<PagedCache> cache = makeCache(c, error);
  const SequenceId s = cache ? cache->add() : 0;
  if (!cache ||
      !cache->append({s}, tokens, prefix.keyPtrs, prefix.scorePtrs, error) ||
      !cache->publish(s, name, error))
    return fail("process A: " + error);
  const PagedCache::SharingStats &sharing = cache->sharing();
  std::printf("process A (pid %d): built its cache, appended and published "
              "'%s' in %.1f ms (%llu page-layers sent, %llu by digest)\n",
              int(::getpid()), name.c_str(), msSince(t0),
              (unsigned long long)sharing.pagesSent,
              (unsigned long long)sharing.pagesByDigest);
  return 0;
}

/// B's side of the sharing: R runs each of appending the prefix itself (the
/// anchor) and adopting it; then selects on an adopted copy must equal
/// those on its own. 0, or fail()'s 1.
int adoptAgainstAppend(const Options &o, const std::string &url,
                       const std::string &name, const Prefix &prefix,
                       std::int64_t pages, std::mt19937 &rng) {
  // Each cache holds the warm-up's copy (kept for the check) beside a
  // timed run's.
  std::string error;
  std::unique_ptr<PagedCache> plain =
      makeCache(makeConfig(o, 2 * pages + 8, 0, url), error);
  std::unique_ptr<PagedCache> adopting =
      plain ? makeCache(makeConfig(o, 2 * pages + 8, 2 * pages + 8, url), error)
            : nullptr;
  if (!adopting)
    return fail(error);
  std::vector<double> appendMs, adoptMs;
  SequenceId mine = 0, theirs = 0;
  for (std::int64_t r = -1; r < o.repeats; ++r) {
    // Run -1 warms up (the first call into a kernel costs more).
    const SequenceId s = plain->add();
    Clock::time_point t0 = Clock::now();
    if (!plain->append({s}, o.tokens, prefix.keyPtrs, prefix.scorePtrs, error))
      return fail("append: " + error);
    const double append = msSince(t0);
    SequenceId adopted;
    t0 = Clock::now();
    if (!adopting->adopt(name, adopted, error))
      return fail(error);
    const double adopt = msSince(t0);
    if (r < 0) {
      mine = s;
      theirs = adopted;
      continue;
    }
    appendMs.push_back(append);
    adoptMs.push_back(adopt);
    if (!plain->free(s, error) || !adopting->free(adopted, error))
      return fail(error);
  }
  const double pageLayers = double(pages * o.layers);
  std::printf("B anchor, append the prefix itself (compress): min %.2f ms  "
              "median %.2f ms  (%lld runs)\n",
              minimum(appendMs), median(appendMs), (long long)o.repeats);
  std::printf("B adopt of A's prefix from the store:          min %.2f ms  "
              "median %.2f ms  (%lld runs; %.0f page-layers read, %.1f us "
              "each at the median)\n",
              minimum(adoptMs), median(adoptMs), (long long)o.repeats,
              pageLayers, median(adoptMs) * 1000 / pageLayers);
  std::printf("anchor / adopt: %.2fx at the median, %.2fx at the min (above "
              "1: adopting beats appending)\n",
              median(appendMs) / median(adoptMs),
              minimum(appendMs) / minimum(adoptMs));

  std::vector<std::int32_t> ours, adoptedTokens;
  const int queries = 8;
  for (int q = 0; q < queries; ++q)
    for (std::int64_t l = 0; l < o.layers; ++l) {
      const std::vector<float> query = randoms(rng, 16 * 128),
                               w = randoms(rng, 16);
      if (!plain->select({mine}, l, query.data(), w.data(), ours, error) ||
          !adopting->select({theirs}, l, query.data(), w.data(), adoptedTokens,
                            error))
        return fail("select: " + error);
      if (ours != adoptedTokens)
        return fail("the adopted prefix selects other tokens than B's own "
                    "copy (layer " +
                    std::to_string(l) + ", query " + std::to_string(q) +
                    "): the store tier changed pages");
    }
  std::printf("check: %d queries x %lld layers select the same tokens on the "
              "adopted prefix and on B's own copy\n",
              queries, (long long)o.layers);
  return 0;
}

/// What a miss served by the store costs: two adopted copies per cache,
/// selected in turn; the missing cache's device tier holds one copy's
/// pages and it has no host tier, so the other copy waits in the store
/// tier. 0, or fail()'s 1.
int missesFromStore(const Options &o, const std::string &url,
                    const std::string &name, std::int64_t pages,
                    std::mt19937 &rng) {
  std::string error;
  std::unique_ptr<PagedCache> caches[2] = {
      makeCache(makeConfig(o, 2 * pages + 8, 2 * pages + 8, url), error),
      nullptr};
  if (caches[0])
    caches[1] = makeCache(makeConfig(o, pages, 2 * pages + 8, url), error);
  if (!caches[1])
    return fail(error);
  SequenceId copies[2][2];
  for (int c = 0; c < 2; ++c)
    for (SequenceId &s : copies[c])
      if (!caches[c]->adopt(name, s, error))
        return fail(error);
  const std::vector<float> query = randoms(rng, 16 * 128), w = randoms(rng, 16);
  ResidencyStats before[2];
  std::vector<double> selectMs[2];
  std::vector<std::int32_t> tokens;
  std::int64_t next[2] = {0, 0};
  auto selects = [&](int c, std::int64_t n, bool timed) {
    for (std::int64_t end = next[c] + n; next[c] < end; ++next[c]) {
      // The copies in turn: in the missing cache, always the one in the
      // store; a layer each time, since a page moves with all its layers.
      const std::int64_t i = next[c];
      const Clock::time_point t0 = Clock::now();
      if (!caches[c]->select({copies[c][i % 2]}, (i / 2) % o.layers,
                             query.data(), w.data(), tokens, error))
        return false;
      if (timed)
        selectMs[c].push_back(msSince(t0));
    }
    return true;
  };
  for (int c = 0; c < 2; ++c) { // a warm-up block each, not counted
    if (!selects(c, 10, false))
      return fail("select: " + error);
    before[c] = caches[c]->residency();
  }
  // Interleaved blocks of 10, so the machine's drift touches both alike.
  for (std::int64_t start = 0; start < o.selects; start += 10)
    for (int c = 0; c < 2; ++c)
      if (!selects(c, std::min<std::int64_t>(10, o.selects - start), true))
        return fail("select: " + error);
  double missesPerSelect = 0;
  for (int c = 0; c < 2; ++c) {
    const ResidencyStats after = caches[c]->residency();
    const double n = double(selectMs[c].size());
    const double hits = double(after.hits - before[c].hits),
                 misses = double(after.misses - before[c].misses);
    const TierStats &store = after.tiers.back(), &was = before[c].tiers.back();
    if (c == 1)
      missesPerSelect = misses / n;
    std::printf(
        "%s (device tier %llu pages): select min %.3f ms  median "
        "%.3f ms; hit rate %.3f, %.1f misses and %.1f KiB moved up a "
        "select; store tier: %.1f pages found, %.1f pages in a "
        "select\n",
        c ? "misses from the store" : "anchor, all resident ",
        (unsigned long long)caches[c]->config().pages, minimum(selectMs[c]),
        median(selectMs[c]), hits / std::max(1.0, hits + misses), misses / n,
        double(after.tiers[0].bytesIn - before[c].tiers[0].bytesIn) / n / 1024,
        double(store.hits - was.hits) / n,
        double(store.pagesIn - was.pagesIn) / n);
  }
  std::printf("a miss from the store: misses / resident %.2fx at the median; "
              "%.1f us a page moved (%lld layers: read up in the select's "
              "MGETs, its victim's layers down in one pipelined SET NX round "
              "trip), (median select - anchor) / misses\n",
              median(selectMs[1]) / median(selectMs[0]),
              (median(selectMs[1]) - median(selectMs[0])) * 1000 /
                  std::max(1.0, missesPerSelect),
              (long long)o.layers);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  std::string error;
  if (!parseOptions(argc, argv, o, error))
    return fail(error);
  LocalRedisServer server; // stopped by every return below
  const bool own = o.store.empty();
  if (own) {
    const std::string binary = findRedisServer();
    if (binary.empty())
      return fail("no redis-server or valkey-server on PATH (install one, or "
                  "give --store=redis://HOST:PORT)");
    if (!server.start(binary, {}, 0, error))
      return fail(error);
  }
  const std::string url =
      own ? "redis://127.0.0.1:" + std::to_string(server.port()) : o.store;
  const std::int64_t pages = (o.tokens / 4 + 63) / 64; // of the prefix
  // The server reached once here, so a bad --store fails before any work.
  const CacheConfig shared = makeConfig(o, pages + 8, pages + 8, url);
  if (!makeCacheStore(shared, {}, error))
    return fail(error);
  std::printf("config: T = %lld tokens, L = %lld layers, D = 128, P = 4, E = "
              "64 (256 tokens a page), H = 16, k = 64; %lld pages, a page "
              "%lld bytes a layer (%.1f KiB over the layers); CPU kernels, 1 "
              "thread; %lld repeats, %lld selects a cache\n",
              (long long)o.tokens, (long long)o.layers, (long long)pages,
              (long long)shared.pageBytes(),
              double(shared.pageBytes() * o.layers) / 1024,
              (long long)o.repeats, (long long)o.selects);
  // The address without the URL's credentials.
  RedisOptions where;
  parseRedisUrl(url, where, error); // it parsed in makeCacheStore above
  std::printf("store: %s at %s:%d db %d (%s)\n", serverVersion(where).c_str(),
              where.host.c_str(), where.port, where.db,
              own ? "the bench's own, no persistence" : "--store");

  Prefix prefix;
  std::mt19937 rng(2026);
  for (std::int64_t l = 0; l < o.layers; ++l) {
    prefix.keys.push_back(randoms(rng, size_t(o.tokens * 128)));
    prefix.scores.push_back(randoms(rng, size_t(o.tokens)));
    prefix.keyPtrs.push_back(prefix.keys.back().data());
    prefix.scorePtrs.push_back(prefix.scores.back().data());
  }
  const std::string name = "store-sharing T=" + std::to_string(o.tokens) +
                           " L=" + std::to_string(o.layers) + " seed=2026";

  // Process A: a child forked before this process compiles or connects
  // anything, so it shares no kernels, connections or threads with B.
  std::fflush(stdout);
  const pid_t a = ::fork();
  if (a < 0)
    return fail("fork failed");
  if (a == 0) {
    const int code = publishAsA(shared, prefix, o.tokens, name);
    std::fflush(stdout);
    ::_exit(code); // not exit(): the parent's server is not the child's
  }
  int status = 0;
  if (::waitpid(a, &status, 0) != a || !WIFEXITED(status))
    return fail("process A did not finish (killed by a signal?)");
  if (WEXITSTATUS(status) != 0)
    return 1; // A said why
  // Process B: this one.
  if (int code = adoptAgainstAppend(o, url, name, prefix, pages, rng))
    return code;
  return missesFromStore(o, url, name, pages, rng);
}
