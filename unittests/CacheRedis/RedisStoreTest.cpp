//===- RedisStoreTest.cpp - The Redis page store against a real server ----===//
//
// Each test starts its own redis-server on a free port (no persistence) and
// kills it with SIGKILL at the end; the tests skip when redis-server is not
// installed. Pages are fresh random bytes. The few elapsed-time checks are
// hang guards with wide margins, not timings.
//
//===----------------------------------------------------------------------===//

#include "indexpool/CacheRedis/LocalRedisServer.h"
#include "indexpool/CacheRedis/RedisStore.h"

#include "RawRedis.h"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <chrono>
#include <random>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace indexpool::cache;
using namespace indexpool::cache::test;

namespace {

std::vector<std::int8_t> randomPage(std::mt19937_64 &random, size_t n) {
  std::vector<std::int8_t> page(n);
  for (std::int8_t &byte : page)
    byte = std::int8_t(random() | 1); // never zero
  return page;
}

class RedisStoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    binary = findRedisServer();
    if (binary.empty())
      GTEST_SKIP() << "redis-server is not installed (apt-get install "
                      "redis-server): the Redis store is NOT tested";
    startServer();
  }
  virtual void startServer() {
    std::string error;
    ASSERT_TRUE(server.start(binary, {}, 0, error)) << error;
  }

  RedisOptions options() const {
    RedisOptions o;
    o.host = "127.0.0.1";
    o.port = server.port();
    o.ns = "D=128 P=4 E=64 f8E4M3FN rotate model=test";
    o.connectTimeoutMs = 500;
    o.commandTimeoutMs = 1000;
    o.reconnectIntervalMs = 200;
    return o;
  }
  /// Shorter timeouts, for tests that kill the server mid-run.
  RedisOptions killableOptions() const {
    RedisOptions o = options();
    o.connectTimeoutMs = 300;
    o.commandTimeoutMs = 500;
    return o;
  }
  std::unique_ptr<RedisStore> make(const RedisOptions &o, std::uint64_t slots,
                                   std::vector<std::int64_t> layers,
                                   std::vector<std::string> *warnings =
                                       nullptr) {
    std::string error;
    std::function<void(const std::string &)> warn;
    if (warnings)
      warn = [warnings](const std::string &text) {
        warnings->push_back(text);
      };
    auto store = makeRedisStore(o, slots, std::move(layers), warn, error);
    EXPECT_TRUE(store) << error;
    return store;
  }

  std::string binary;
  LocalRedisServer server;
  std::mt19937_64 random{std::random_device{}()};
};

} // namespace

TEST(RedisUrl, GoodUrls) {
  RedisOptions o;
  std::string error;
  ASSERT_TRUE(parseRedisUrl("redis://localhost", o, error)) << error;
  EXPECT_EQ(o.host, "localhost");
  EXPECT_EQ(o.port, 6379);
  EXPECT_EQ(o.db, 0);
  EXPECT_FALSE(o.tls);
  EXPECT_TRUE(o.user.empty() && o.password.empty());
  ASSERT_TRUE(parseRedisUrl("redis://10.0.0.2:7000/3", o, error)) << error;
  EXPECT_EQ(o.host, "10.0.0.2");
  EXPECT_EQ(o.port, 7000);
  EXPECT_EQ(o.db, 3);
  ASSERT_TRUE(parseRedisUrl("redis://:pw@h", o, error)) << error;
  EXPECT_EQ(o.user, "");
  EXPECT_EQ(o.password, "pw");
  EXPECT_EQ(o.db, 0); // reset, not kept from the last URL
  ASSERT_TRUE(parseRedisUrl("redis://alice:p:w@h:1/15", o, error)) << error;
  EXPECT_EQ(o.user, "alice");
  EXPECT_EQ(o.password, "p:w"); // the first ':' splits user and password
  EXPECT_EQ(o.port, 1);
  EXPECT_EQ(o.db, 15);
  ASSERT_TRUE(parseRedisUrl("rediss://h", o, error)) << error;
  EXPECT_TRUE(o.tls);
  ASSERT_TRUE(parseRedisUrl("redis://[::1]:6380", o, error)) << error;
  EXPECT_EQ(o.host, "::1");
  EXPECT_EQ(o.port, 6380);
  EXPECT_FALSE(o.tls);
}

TEST(RedisUrl, BadUrlsNeverShowThePassword) {
  const std::string secret = "s3cr3tPW";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"http://h", "redis://"},
      {"redis://", "no host"},
      {"redis://:" + secret + "@", "no host"},
      {"redis://h:0", "port"},
      {"redis://h:65536", "port"},
      {"redis://h:", "port"},
      {"redis://h:abc", "port"},
      {"redis://h/x", "database"},
      {"redis://h/", "database"},
      {"redis://h/1/2", "database"},
      {"redis://h/99999999999", "database"},
      {"redis://u:" + secret + "@x@h", "more than one '@'"},
      {"redis://u@h", "without a password"},
      {"redis://u:@h", "empty password"},
      {"redis://h:1:2", "more than one ':'"},
      {"redis://u:" + secret, "port"}, // the '@host' forgotten
      {"redis://h?db=1", "query"},
      {"redis://[::1", "']'"},
      {"redis://[::1]x", "after the IPv6 host"},
  };
  // Every error path again with the password where it belongs (a user's
  // "u:PW@" before each bad part), and where it lands when the '@' is
  // forgotten (then it reads as a port, or after a second ':').
  std::vector<std::pair<std::string, std::string>> withSecret = bad;
  for (const auto &[url, expected] : bad)
    if (url.rfind("redis://", 0) == 0 && url.size() > 8 &&
        url.find('@') == std::string::npos)
      withSecret.push_back(
          {"redis://u:" + secret + "@" + url.substr(8), expected});
  withSecret.push_back({"redis://u:" + secret + ":6379", "more than one ':'"});
  withSecret.push_back({"redis://u:" + secret + ":1/0", "more than one ':'"});
  withSecret.push_back({"redis://" + secret + ":" + secret, "port"});
  withSecret.push_back({"redis://u:" + secret + "@h:" + secret, "port"});
  withSecret.push_back({"redis://u:" + secret + "@h/" + secret, "database"});
  for (const auto &[url, expected] : withSecret) {
    RedisOptions o;
    o.host = "kept";
    std::string error;
    EXPECT_FALSE(parseRedisUrl(url, o, error)) << url;
    EXPECT_NE(error.find(expected), std::string::npos)
        << url << " gave: " << error;
    EXPECT_EQ(error.find(secret), std::string::npos) << error;
    EXPECT_EQ(o.host, "kept") << url;
  }
}

// A server that takes each connection and closes it at once (a reset or a
// proxy that drops clients): the error says the connection failed, not
// that the password was refused.
TEST(RedisStoreOptions, AConnectionClosedDuringAuthIsNotAnAuthFailure) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr *>(&address), size), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr *>(&address),
                          &size),
            0);
  std::thread closer([listener] {
    for (;;) {
      int client = ::accept(listener, nullptr, nullptr);
      if (client < 0)
        return;
      char byte;
      (void)::recv(client, &byte, 1, 0); // the AUTH command arrives
      ::close(client);
    }
  });
  RedisOptions o;
  std::string error;
  ASSERT_TRUE(parseRedisUrl("redis://:pw-Secret-1@127.0.0.1:" +
                                std::to_string(ntohs(address.sin_port)),
                            o, error))
      << error;
  o.connectTimeoutMs = 2000;
  EXPECT_FALSE(makeRedisStore(o, 2, {64}, nullptr, error));
  EXPECT_EQ(error.find("AUTH failed"), std::string::npos) << error;
  EXPECT_NE(error.find("during AUTH, the connection failed"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("pw-Secret-1"), std::string::npos) << error;
  ::shutdown(listener, SHUT_RDWR);
  ::close(listener);
  closer.join();
}

TEST(RedisStoreOptions, TlsAndBadSizesAreRefused) {
  RedisOptions o;
  std::string error;
  ASSERT_TRUE(parseRedisUrl("rediss://:pw@127.0.0.1:1", o, error));
  EXPECT_FALSE(makeRedisStore(o, 4, {64}, nullptr, error));
  EXPECT_NE(error.find("TLS"), std::string::npos) << error;
  EXPECT_NE(error.find("stunnel"), std::string::npos) << error;
  EXPECT_NE(error.find("redis://127.0.0.1:PORT"), std::string::npos) << error;

  o = RedisOptions();
  o.port = 1; // nothing listens; the sizes are refused before connecting
  for (auto [slots, layers] :
       std::vector<std::pair<std::uint64_t, std::vector<std::int64_t>>>{
           {~std::uint64_t(0) / 2, {64, 64}},
           {0, {64}},
           {4, {}},
           {4, {64, 0}},
           {4, {64, -8}}}) {
    error.clear();
    EXPECT_FALSE(makeRedisStore(o, slots, layers, nullptr, error));
    EXPECT_NE(error.find("bad size"), std::string::npos) << error;
  }
  error.clear();
  EXPECT_FALSE(makeRedisStore(o, 4, {64}, nullptr, error));
  EXPECT_NE(error.find("127.0.0.1:1"), std::string::npos) << error;
  EXPECT_NE(error.find("connecting"), std::string::npos) << error;
}

TEST_F(RedisStoreTest, RoundTripOfSlotsAndLayersOfDifferentSizes) {
  const std::vector<std::int64_t> layers = {1000, 64, 4096, 3};
  const std::uint64_t slots = 50;
  auto store = make(options(), slots, layers);
  ASSERT_TRUE(store);
  EXPECT_EQ(store->layerData(0), nullptr);
  std::vector<std::vector<std::int8_t>> expected(slots * layers.size());
  std::string error;
  for (int round = 0; round < 2; ++round) {
    // The second round rewrites every other slot.
    for (std::uint64_t s = round; s < slots; s += 1 + round)
      for (size_t l = 0; l < layers.size(); ++l) {
        expected[s * layers.size() + l] = randomPage(random, size_t(layers[l]));
        ASSERT_TRUE(store->write(s, std::int64_t(l),
                                 expected[s * layers.size() + l].data(),
                                 error))
            << error;
      }
    for (std::uint64_t s = 0; s < slots; ++s)
      for (size_t l = 0; l < layers.size(); ++l) {
        std::vector<std::int8_t> got(static_cast<size_t>(layers[l]));
        ASSERT_TRUE(store->read(s, std::int64_t(l), got.data(), error))
            << error;
        ASSERT_EQ(got, expected[s * layers.size() + l])
            << "slot " << s << " layer " << l;
        EXPECT_EQ(store->pageDigest(s, std::int64_t(l)).size(), 32u);
      }
  }
  const RedisStats stats = store->stats();
  EXPECT_EQ(stats.stored, (slots + slots / 2) * layers.size());
  EXPECT_EQ(stats.reads, 2 * slots * layers.size());
  EXPECT_EQ(stats.failures, 0u);
  EXPECT_EQ(stats.overflowPages, 0u);
  std::vector<std::int8_t> got(4096);
  EXPECT_FALSE(store->read(slots, 0, got.data(), error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  EXPECT_FALSE(store->read(0, 4, got.data(), error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;

  auto fresh = make(options(), 2, layers);
  EXPECT_FALSE(fresh->read(1, 2, got.data(), error));
  EXPECT_NE(error.find("slot 1, layer 2 was never written"),
            std::string::npos)
      << error;
}

TEST_F(RedisStoreTest, ThreadsSharingAStoreEachGetTheirOwnPages) {
  // A cache's worker and its selects reach the store tier from several
  // threads; each thread writes, reads and shares its own slots here.
  const std::vector<std::int64_t> layers = {256, 64};
  const int threads = 4, slotsEach = 16;
  auto store = make(options(), std::uint64_t(threads * slotsEach), layers);
  ASSERT_TRUE(store);
  std::vector<std::string> failures(threads);
  std::vector<std::thread> workers;
  const std::uint64_t seed = random();
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      std::mt19937_64 rng(seed + std::uint64_t(t));
      std::string error;
      for (int round = 0; round < 3 && failures[t].empty(); ++round)
        for (int i = 0; i < slotsEach; ++i) {
          const std::uint64_t slot = std::uint64_t(t * slotsEach + i);
          const std::int64_t l = (i + round) % 2;
          const auto page = randomPage(rng, size_t(layers[size_t(l)]));
          std::vector<std::int8_t> got(page.size()), shared(page.size());
          if (!store->write(slot, l, page.data(), error) ||
              !store->read(slot, l, got.data(), error) ||
              !store->getPage(store->pageDigest(slot, l), l, shared.data(),
                              layers[size_t(l)], error)) {
            failures[t] = error;
            break;
          }
          if (got != page || shared != page) {
            failures[t] = "slot " + std::to_string(slot) + " came back wrong";
            break;
          }
        }
    });
  for (auto &w : workers)
    w.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
  const RedisStats stats = store->stats();
  EXPECT_EQ(stats.reads, std::uint64_t(2 * 3 * threads * slotsEach));
  EXPECT_EQ(stats.failures, 0u);
}

TEST_F(RedisStoreTest, IdenticalPagesAreStoredOnce) {
  const std::vector<std::int64_t> layers = {256, 512};
  auto first = make(options(), 8, layers);
  auto second = make(options(), 8, layers);
  ASSERT_TRUE(first && second);
  std::vector<std::vector<std::int8_t>> pages;
  std::string error;
  for (std::uint64_t s = 0; s < 4; ++s)
    for (std::int64_t l = 0; l < 2; ++l) {
      pages.push_back(randomPage(random, size_t(layers[size_t(l)])));
      // The same page in two slots of one store, and in the other store.
      ASSERT_TRUE(first->write(s, l, pages.back().data(), error)) << error;
      ASSERT_TRUE(first->write(s + 4, l, pages.back().data(), error)) << error;
      ASSERT_TRUE(second->write(7 - s, l, pages.back().data(), error))
          << error;
    }
  EXPECT_EQ(first->stats().stored, 8u);
  EXPECT_EQ(first->stats().deduplicated, 8u);
  EXPECT_EQ(second->stats().stored, 0u);
  EXPECT_EQ(second->stats().deduplicated, 8u);
  Raw raw(server.port());
  EXPECT_EQ(raw.pages(), 8);
  // Each page has three references: two slots of the first store, one of
  // the second.
  EXPECT_EQ(raw.references(first->pageDigest(0, 0)), 3);
  EXPECT_EQ(raw.references(second->pageDigest(7, 1)), 3);
  for (std::uint64_t s = 0; s < 4; ++s)
    for (std::int64_t l = 0; l < 2; ++l) {
      std::vector<std::int8_t> got(static_cast<size_t>(layers[size_t(l)]));
      ASSERT_TRUE(second->read(7 - s, l, got.data(), error)) << error;
      EXPECT_EQ(got, pages[size_t(s * 2 + l)]);
      EXPECT_EQ(first->pageDigest(s, l), second->pageDigest(7 - s, l));
    }

  // Another namespace (another model) keeps its pages apart.
  RedisOptions other = options();
  other.ns += "-other";
  auto third = make(other, 8, layers);
  ASSERT_TRUE(third->write(0, 0, pages[0].data(), error)) << error;
  EXPECT_EQ(third->stats().stored, 1u);
  EXPECT_EQ(raw.pages(), 9);
  std::vector<std::int8_t> got(256);
  EXPECT_FALSE(
      third->getPage(first->pageDigest(0, 0), 0, got.data(), 256, error));
  EXPECT_NE(error.find("do not match their hash"), std::string::npos)
      << error;
}

TEST_F(RedisStoreTest, AForkedChildPublishesPagesTheParentAdopts) {
  const std::vector<std::int64_t> layers = {256, 64};
  std::vector<std::vector<std::int8_t>> pages;
  for (int i = 0; i < 12; ++i)
    pages.push_back(randomPage(random, size_t(layers[size_t(i % 2)])));
  const RedisOptions o = options();

  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Its own store and connection; no gtest here: the exit code says it.
    std::string error, digests;
    std::vector<std::string> list;
    auto store = makeRedisStore(o, 6, layers, nullptr, error);
    if (!store)
      ::_exit(2);
    for (int i = 0; i < 12; ++i) {
      std::string digest =
          store->putPage(i % 2, pages[size_t(i)].data(),
                         layers[size_t(i % 2)], error);
      if (digest.empty() ||
          !store->write(std::uint64_t(i / 2), i % 2, pages[size_t(i)].data(),
                        error))
        ::_exit(3);
      digests += digest + "\n";
      list.push_back(digest);
    }
    ::_exit(store->putManifest("prefix-1", digests, list, error) ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  auto store = make(o, 6, layers);
  std::string blob, error;
  ASSERT_TRUE(store->getManifest("prefix-1", blob, error)) << error;
  ASSERT_EQ(blob.size(), 12u * 33u);
  for (int i = 0; i < 12; ++i) {
    const std::string digest = blob.substr(size_t(i) * 33, 32);
    std::vector<std::int8_t> got(static_cast<size_t>(layers[size_t(i % 2)]));
    ASSERT_TRUE(store->getPage(digest, i % 2, got.data(),
                               layers[size_t(i % 2)], error))
        << error;
    EXPECT_EQ(got, pages[size_t(i)]) << i;
    // The same page again: found, not stored twice.
    EXPECT_EQ(store->putPage(i % 2, got.data(), layers[size_t(i % 2)], error),
              digest);
  }
  EXPECT_EQ(store->stats().stored, 0u);
  EXPECT_EQ(store->stats().deduplicated, 12u);
  Raw raw(server.port());
  EXPECT_EQ(raw.pages(), 12);
  EXPECT_EQ(raw.keys("indexpool:manifest:*"), 1);
  // The manifest's, the child's slot's (it exited without giving it
  // back) and the one the putPage above took.
  EXPECT_EQ(raw.references(blob.substr(0, 32)), 3);

  std::vector<std::int8_t> got(256);
  EXPECT_FALSE(store->getPage("00ff", 0, got.data(), 256, error));
  EXPECT_NE(error.find("32 hex digits"), std::string::npos) << error;
  EXPECT_FALSE(store->getPage(blob.substr(0, 32), 0, got.data(), 64, error));
  EXPECT_NE(error.find("pages have 256 bytes"), std::string::npos) << error;
  EXPECT_FALSE(store->getManifest("prefix-2", blob, error));
  EXPECT_NE(error.find("no manifest 'prefix-2'"), std::string::npos) << error;
  RedisOptions other = o;
  other.ns = "another model";
  auto foreign = make(other, 6, layers);
  EXPECT_FALSE(foreign->getManifest("prefix-1", blob, error));
  EXPECT_NE(error.find("another namespace"), std::string::npos) << error;
}

TEST_F(RedisStoreTest, ManyPagesComeBackInFewRoundTripsAndALostOneIsNamed) {
  const std::vector<std::int64_t> layers = {64, 128};
  auto store = make(options(), 1, layers);
  ASSERT_TRUE(store);
  std::string error;
  // 1100 requests: MGET batches of 256, the last one partial.
  const size_t count = 1100;
  std::vector<std::vector<std::int8_t>> pages, got(count);
  std::vector<SharedPages::PageRequest> requests;
  for (size_t i = 0; i < count; ++i) {
    const std::int64_t l = std::int64_t(i % 2);
    pages.push_back(randomPage(random, size_t(layers[size_t(l)])));
    const std::string digest =
        store->putPage(l, pages.back().data(), layers[size_t(l)], error);
    ASSERT_FALSE(digest.empty()) << error;
    got[i].assign(pages.back().size(), 0);
    requests.push_back({digest, l, got[i].data(), layers[size_t(l)]});
  }
  Raw raw(server.port());
  ASSERT_TRUE(raw.ok(
      static_cast<redisReply *>(redisCommand(raw.context, "CONFIG RESETSTAT"))));
  size_t failed = 99;
  ASSERT_TRUE(store->getPages(requests, failed, error)) << error;
  for (size_t i = 0; i < count; ++i)
    ASSERT_EQ(got[i], pages[i]) << "request " << i;
  auto *info = static_cast<redisReply *>(
      redisCommand(raw.context, "INFO commandstats"));
  ASSERT_TRUE(info && info->type != REDIS_REPLY_ERROR);
  const std::string stats(info->str, info->len);
  freeReplyObject(info);
  EXPECT_NE(stats.find("cmdstat_mget:calls=5,"), std::string::npos) << stats;
  EXPECT_EQ(stats.find("cmdstat_get:"), std::string::npos) << stats;

  // A page deleted behind the store: the batch fails at that request, and
  // the pages before it are right, none after it written.
  const std::string lost = requests[700].digest;
  ASSERT_TRUE(raw.ok(static_cast<redisReply *>(redisCommand(
      raw.context, "DEL indexpool:page:%s", lost.c_str()))));
  for (auto &page : got)
    std::fill(page.begin(), page.end(), std::int8_t(0));
  EXPECT_FALSE(store->getPages(requests, failed, error));
  EXPECT_EQ(failed, 700u);
  EXPECT_NE(error.find("lost page " + lost), std::string::npos) << error;
  EXPECT_EQ(got[699], pages[699]);
  EXPECT_EQ(got[701], std::vector<std::int8_t>(got[701].size(), 0));
  // A bad digest is refused before any round trip.
  requests[3].digest = "not hex";
  EXPECT_FALSE(store->getPages(requests, failed, error));
  EXPECT_EQ(failed, 3u);
}

TEST_F(RedisStoreTest, AValueChangedBehindTheStoreIsAnErrorNeverWrongBytes) {
  auto store = make(options(), 2, {512});
  std::string error;
  const std::vector<std::int8_t> page = randomPage(random, 512);
  ASSERT_TRUE(store->write(1, 0, page.data(), error)) << error;
  const std::string digest = store->pageDigest(1, 0);
  const std::string key = "indexpool:page:" + digest;
  Raw raw(server.port());
  std::vector<std::int8_t> got(512, 0x5a);
  const std::vector<std::int8_t> untouched = got;

  const std::vector<std::int8_t> other = randomPage(random, 512);
  ASSERT_TRUE(raw.ok(static_cast<redisReply *>(redisCommand(
      raw.context, "SET %s %b", key.c_str(), other.data(), other.size()))));
  EXPECT_FALSE(store->read(1, 0, got.data(), error));
  EXPECT_NE(error.find("slot 1, layer 0"), std::string::npos) << error;
  EXPECT_NE(error.find("do not match their hash"), std::string::npos)
      << error;
  EXPECT_EQ(got, untouched);
  EXPECT_FALSE(store->getPage(digest, 0, got.data(), 512, error));
  EXPECT_EQ(got, untouched);

  ASSERT_TRUE(raw.ok(static_cast<redisReply *>(
      redisCommand(raw.context, "SET %s %b", key.c_str(), page.data(),
                   size_t(100)))));
  EXPECT_FALSE(store->read(1, 0, got.data(), error));
  EXPECT_NE(error.find("holds 100 bytes, not 512"), std::string::npos)
      << error;
  EXPECT_EQ(got, untouched);

  ASSERT_TRUE(raw.ok(
      static_cast<redisReply *>(redisCommand(raw.context, "DEL %s",
                                             key.c_str()))));
  EXPECT_FALSE(store->read(1, 0, got.data(), error));
  EXPECT_NE(error.find("lost page " + digest), std::string::npos) << error;
  EXPECT_NE(error.find("restarted without persistence"), std::string::npos)
      << error;
  EXPECT_EQ(got, untouched);

  // The original bytes back: the page reads again.
  ASSERT_TRUE(raw.ok(static_cast<redisReply *>(redisCommand(
      raw.context, "SET %s %b", key.c_str(), page.data(), page.size()))));
  ASSERT_TRUE(store->read(1, 0, got.data(), error)) << error;
  EXPECT_EQ(got, page);
  EXPECT_EQ(store->stats().failures, 4u);
}

TEST_F(RedisStoreTest, AKilledServerKeepsPagesLocallyThenComesBack) {
  const std::vector<std::int64_t> layers = {512, 128};
  std::vector<std::string> warnings;
  const RedisOptions o = killableOptions();
  auto store = make(o, 16, layers, &warnings);
  ASSERT_TRUE(store);
  std::vector<std::vector<std::int8_t>> expected(32);
  std::string error;
  auto writeSlot = [&](std::uint64_t s) {
    for (std::int64_t l = 0; l < 2; ++l) {
      expected[s * 2 + size_t(l)] = randomPage(random, size_t(layers[size_t(l)]));
      ASSERT_TRUE(store->write(s, l, expected[s * 2 + size_t(l)].data(),
                               error))
          << error;
    }
  };
  for (std::uint64_t s = 0; s < 8; ++s)
    writeSlot(s);
  EXPECT_EQ(store->stats().stored, 16u);

  server.stop(); // SIGKILL
  const Clock::time_point killed = Clock::now();
  for (std::uint64_t s = 8; s < 16; ++s)
    writeSlot(s);
  EXPECT_LT(milliseconds(killed), 10000) << "hang guard";
  EXPECT_EQ(store->stats().overflowPages, 16u);
  EXPECT_EQ(store->stats().overflowBytes, 8u * (512 + 128));
  ASSERT_EQ(warnings.size(), 1u);
  const std::string address = "127.0.0.1:" + std::to_string(server.port());
  EXPECT_NE(warnings[0].find(address), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("host memory"), std::string::npos);
  EXPECT_LT(warnings[0].size(), 400u) << warnings[0]; // no page bytes
  for (std::uint64_t s = 8; s < 16; ++s)
    for (std::int64_t l = 0; l < 2; ++l) {
      std::vector<std::int8_t> got(static_cast<size_t>(layers[size_t(l)]));
      ASSERT_TRUE(store->read(s, l, got.data(), error)) << error;
      EXPECT_EQ(got, expected[s * 2 + size_t(l)]);
    }
  std::vector<std::int8_t> got(512);
  const Clock::time_point reading = Clock::now();
  EXPECT_FALSE(store->read(3, 0, got.data(), error));
  EXPECT_LT(milliseconds(reading), 5000) << "hang guard";
  EXPECT_NE(error.find(address), std::string::npos) << error;
  EXPECT_NE(error.find("slot 3, layer 0"), std::string::npos) << error;
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_FALSE(store->read(3, 1, got.data(), error)); // a new try, refused
  EXPECT_NE(error.find("Connection refused"), std::string::npos) << error;
  EXPECT_EQ(warnings.size(), 1u);

  // The same port again, empty (no persistence): each write that reaches
  // it sends up to 8 of the held pages back.
  ASSERT_TRUE(server.start(binary, {}, server.port(), error)) << error;
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  expected[16] = randomPage(random, 512);
  ASSERT_TRUE(store->write(8, 0, expected[16].data(), error)) << error;
  EXPECT_EQ(store->stats().overflowPages, 7u);
  EXPECT_EQ(store->stats().pushedBack, 8u);
  EXPECT_EQ(store->stats().stored, 25u);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[1].find("reachable again"), std::string::npos)
      << warnings[1];
  // The same page in slot 8 again: the slot has it, nothing is sent.
  const std::uint64_t trips = store->stats().roundTrips;
  ASSERT_TRUE(store->write(8, 0, expected[16].data(), error)) << error;
  EXPECT_EQ(store->stats().roundTrips, trips);
  EXPECT_EQ(store->stats().overflowPages, 7u);
  // In slot 3 (whose page only the old server had): found there, and the
  // next held pages go back.
  ASSERT_TRUE(store->write(3, 0, expected[16].data(), error)) << error;
  EXPECT_EQ(store->stats().deduplicated, 1u);
  EXPECT_EQ(store->stats().overflowPages, 0u);
  EXPECT_EQ(store->stats().overflowBytes, 0u);
  EXPECT_EQ(store->stats().pushedBack, 15u);
  Raw raw(server.port());
  EXPECT_EQ(raw.pages(), 16); // 15 held pages and the new one
  EXPECT_EQ(raw.references(store->pageDigest(8, 0)), 2); // slots 8 and 3
  // Every page written during the outage now comes from the server,
  // checked against its hash; the pages only the old server had are lost.
  const std::uint64_t readsBefore = store->stats().reads;
  for (std::uint64_t s = 8; s < 16; ++s)
    for (std::int64_t l = 0; l < 2; ++l) {
      std::vector<std::int8_t> page(static_cast<size_t>(layers[size_t(l)]));
      ASSERT_TRUE(store->read(s, l, page.data(), error)) << error;
      EXPECT_EQ(page, s == 8 && l == 0 ? expected[16]
                                       : expected[s * 2 + size_t(l)]);
    }
  EXPECT_EQ(store->stats().reads - readsBefore, 16u);
  EXPECT_FALSE(store->read(3, 1, got.data(), error));
  EXPECT_NE(error.find("lost page"), std::string::npos) << error;
}

TEST_F(RedisStoreTest, ASlotsLayersGoInOneRoundTripAndComeBackHeldOnes) {
  const std::vector<std::int64_t> layers = {512, 128, 512, 128};
  std::vector<std::string> warnings;
  const RedisOptions o = killableOptions();
  auto store = make(o, 4, layers, &warnings);
  ASSERT_TRUE(store);
  auto slotPages = [&]() {
    std::vector<std::vector<std::int8_t>> pages;
    for (std::int64_t n : layers)
      pages.push_back(randomPage(random, size_t(n)));
    return pages;
  };
  auto pointers = [](const std::vector<std::vector<std::int8_t>> &pages) {
    std::vector<const std::int8_t *> p;
    for (const auto &page : pages)
      p.push_back(page.data());
    return p;
  };
  auto readBack = [&](std::uint64_t slot,
                      const std::vector<std::vector<std::int8_t>> &pages) {
    std::string error;
    for (std::int64_t l = 0; l < 4; ++l) {
      std::vector<std::int8_t> got(static_cast<size_t>(layers[size_t(l)]));
      ASSERT_TRUE(store->read(slot, l, got.data(), error)) << error;
      EXPECT_EQ(got, pages[size_t(l)]) << "slot " << slot << " layer " << l;
    }
  };
  std::string error;
  const auto first = slotPages();
  std::uint64_t trips = store->stats().roundTrips;
  ASSERT_TRUE(store->writeSlot(0, pointers(first), error)) << error;
  EXPECT_EQ(store->stats().roundTrips - trips, 1u);
  EXPECT_EQ(store->stats().stored, 4u);
  // The same content in another slot: deduplicated, one round trip.
  trips = store->stats().roundTrips;
  ASSERT_TRUE(store->writeSlot(1, pointers(first), error)) << error;
  EXPECT_EQ(store->stats().roundTrips - trips, 1u);
  EXPECT_EQ(store->stats().deduplicated, 4u);
  readBack(0, first);
  readBack(1, first);
  Raw raw(server.port());
  EXPECT_EQ(raw.pages(), 4);

  // A wrong layer count is refused and changes nothing.
  EXPECT_FALSE(store->writeSlot(2, {first[0].data()}, error));
  EXPECT_NE(error.find("4 layers, 1 given"), std::string::npos) << error;

  server.stop(); // SIGKILL
  const auto second = slotPages();
  ASSERT_TRUE(store->writeSlot(2, pointers(second), error)) << error;
  EXPECT_EQ(store->stats().overflowPages, 4u);
  ASSERT_EQ(warnings.size(), 1u);
  readBack(2, second); // from host memory

  ASSERT_TRUE(server.start(binary, {}, server.port(), error)) << error;
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const auto third = slotPages();
  trips = store->stats().roundTrips;
  ASSERT_TRUE(store->writeSlot(3, pointers(third), error)) << error;
  // The slot's pipeline (after a reconnect), then the held pages' one.
  EXPECT_EQ(store->stats().roundTrips - trips, 2u);
  EXPECT_EQ(store->stats().overflowPages, 0u);
  EXPECT_EQ(store->stats().pushedBack, 4u);
  Raw fresh(server.port());
  EXPECT_EQ(fresh.pages(), 8);
  const std::uint64_t reads = store->stats().reads;
  readBack(2, second);
  readBack(3, third);
  EXPECT_EQ(store->stats().reads - reads, 8u); // all from the server
}

TEST_F(RedisStoreTest, APageASlotNoLongerHoldsIsDeleted) {
  const std::vector<std::int64_t> layers = {256, 128};
  auto store = make(options(), 4, layers);
  ASSERT_TRUE(store);
  Raw raw(server.port());
  std::string error;
  // 20 rounds of new pages through 4 slots, by write and by writeSlot:
  // the server holds the last round's only.
  for (int round = 0; round < 20; ++round)
    for (std::uint64_t s = 0; s < 4; ++s) {
      const auto a = randomPage(random, 256), b = randomPage(random, 128);
      if (round % 2)
        ASSERT_TRUE(store->writeSlot(s, {a.data(), b.data()}, error)) << error;
      else
        ASSERT_TRUE(store->write(s, 0, a.data(), error) &&
                    store->write(s, 1, b.data(), error))
            << error;
    }
  EXPECT_EQ(raw.pages(), 8);
  EXPECT_EQ(store->stats().deleted, 19u * 8u);
  EXPECT_EQ(store->stats().releasesLost, 0u);
  store.reset();
  EXPECT_EQ(raw.keys("indexpool:*"), 0);
}

TEST_F(RedisStoreTest, HostMemoryHoldsAtMostTheBoundDuringAnOutage) {
  RedisOptions o = killableOptions();
  o.maxHeldPages = 3;
  auto store = make(o, 8, {256});
  ASSERT_TRUE(store);
  std::vector<std::vector<std::int8_t>> pages;
  for (int i = 0; i < 5; ++i)
    pages.push_back(randomPage(random, 256));
  std::string error;
  EXPECT_TRUE(store->canWrite(8, error)) << error; // nothing held
  server.stop();
  for (std::uint64_t s = 0; s < 3; ++s)
    ASSERT_TRUE(store->write(s, 0, pages[s].data(), error)) << error;
  EXPECT_EQ(store->stats().overflowPages, 3u);
  // One more is refused, by canWrite and by the write itself, naming the
  // bound; the held pages stay readable and a held slot may be rewritten.
  EXPECT_FALSE(store->canWrite(1, error));
  EXPECT_NE(error.find("its bound is 3"), std::string::npos) << error;
  EXPECT_FALSE(store->write(3, 0, pages[3].data(), error));
  EXPECT_NE(error.find("held in host memory"), std::string::npos) << error;
  ASSERT_TRUE(store->write(2, 0, pages[4].data(), error)) << error;
  std::vector<std::int8_t> got(256);
  ASSERT_TRUE(store->read(0, 0, got.data(), error)) << error;
  EXPECT_EQ(got, pages[0]);
  EXPECT_EQ(store->stats().overflowPages, 3u);
  // The server back: canWrite sends the held pages to it first.
  ASSERT_TRUE(server.start(binary, {}, server.port(), error)) << error;
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_TRUE(store->canWrite(3, error)) << error;
  EXPECT_EQ(store->stats().overflowPages, 0u);
  EXPECT_EQ(store->stats().pushedBack, 3u);
  ASSERT_TRUE(store->read(2, 0, got.data(), error)) << error;
  EXPECT_EQ(got, pages[4]);
}

TEST_F(RedisStoreTest, AFullServerStillDeletesPagesNothingRefersTo) {
  auto store = make(options(), 4, {4096});
  ASSERT_TRUE(store);
  std::string error;
  for (std::uint64_t s = 0; s < 4; ++s)
    ASSERT_TRUE(store->write(s, 0, randomPage(random, 4096).data(), error))
        << error;
  Raw raw(server.port());
  ASSERT_EQ(raw.pages(), 4);
  // maxmemory 1 byte (noeviction): no write fits, a release still runs.
  ASSERT_TRUE(raw.ok(static_cast<redisReply *>(
      redisCommand(raw.context, "CONFIG SET maxmemory 1"))));
  EXPECT_FALSE(store->putPage(0, randomPage(random, 4096).data(), 4096, error)
                   .size());
  EXPECT_NE(error.find("OOM"), std::string::npos) << error;
  store->discard(0);
  store->discard(1);
  EXPECT_EQ(raw.pages(), 2);
  EXPECT_EQ(store->stats().deleted, 2u);
  EXPECT_EQ(store->stats().releasesLost, 0u);
  store.reset(); // gives back slots 2 and 3
  EXPECT_EQ(raw.pages(), 0);
  EXPECT_EQ(raw.keys("indexpool:*"), 0);
}

// Why the store counts references rather than leaving deletion to the
// server's maxmemory policy: an evicting policy drops pages a store still
// refers to (measured here: the reads that fail).
TEST_F(RedisStoreTest, AnEvictingServerLosesPagesAStoreStillNeeds) {
  Raw raw(server.port());
  ASSERT_TRUE(raw.ok(static_cast<redisReply *>(redisCommand(
      raw.context, "CONFIG SET maxmemory-policy allkeys-lru"))));
  ASSERT_TRUE(raw.ok(static_cast<redisReply *>(
      redisCommand(raw.context, "CONFIG SET maxmemory 4mb"))));
  const std::uint64_t slots = 256; // 256 x 64 KiB = 16 MiB of live pages
  auto store = make(options(), slots, {65536});
  ASSERT_TRUE(store);
  std::string error;
  for (std::uint64_t s = 0; s < slots; ++s)
    ASSERT_TRUE(store->write(s, 0, randomPage(random, 65536).data(), error))
        << error;
  std::uint64_t lost = 0;
  std::vector<std::int8_t> got(65536);
  for (std::uint64_t s = 0; s < slots; ++s)
    if (!store->read(s, 0, got.data(), error)) {
      ++lost;
      EXPECT_NE(error.find("lost page"), std::string::npos) << error;
    }
  std::printf("allkeys-lru, maxmemory 4 MiB: %llu of %llu pages the store "
              "refers to were evicted\n",
              (unsigned long long)lost, (unsigned long long)slots);
  EXPECT_GT(lost, slots / 2);
}

TEST_F(RedisStoreTest, ASlowServerTimesOutInsteadOfHanging) {
  std::vector<std::string> warnings;
  RedisOptions o = options();
  o.commandTimeoutMs = 200;
  auto store = make(o, 4, {1024}, &warnings);
  ASSERT_TRUE(store);
  std::string error;
  const auto first = randomPage(random, 1024), second = randomPage(random, 1024),
             third = randomPage(random, 1024);
  ASSERT_TRUE(store->write(0, 0, first.data(), error)) << error;

  Raw raw(server.port());
  ASSERT_TRUE(raw.ok(
      static_cast<redisReply *>(redisCommand(raw.context, "CLIENT PAUSE 2000"))));
  const Clock::time_point paused = Clock::now();
  ASSERT_TRUE(store->write(1, 0, second.data(), error)) << error;
  EXPECT_LT(milliseconds(paused), 1500) << "the write waited for the pause";
  EXPECT_EQ(store->stats().overflowPages, 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("timed out"), std::string::npos) << warnings[0];
  std::vector<std::int8_t> got(1024);
  EXPECT_FALSE(store->read(0, 0, got.data(), error));
  EXPECT_LT(milliseconds(paused), 1500) << "the read waited for the pause";
  EXPECT_NE(error.find("timed out"), std::string::npos) << error;
  ASSERT_TRUE(store->read(1, 0, got.data(), error)) << error;
  EXPECT_EQ(got, second);

  // After the pause: to the server again, the held page with it.
  std::this_thread::sleep_for(std::chrono::milliseconds(2300) -
                              (Clock::now() - paused));
  ASSERT_TRUE(store->write(2, 0, third.data(), error)) << error;
  EXPECT_EQ(store->stats().stored, 3u);
  EXPECT_EQ(store->stats().pushedBack, 1u);
  EXPECT_EQ(store->stats().overflowPages, 0u);
  ASSERT_EQ(warnings.size(), 2u);
  const std::uint64_t readsBefore = store->stats().reads;
  ASSERT_TRUE(store->read(1, 0, got.data(), error)) << error;
  EXPECT_EQ(got, second);
  EXPECT_EQ(store->stats().reads, readsBefore + 1); // from the server
  ASSERT_TRUE(store->read(0, 0, got.data(), error)) << error;
  EXPECT_EQ(got, first);
  ASSERT_TRUE(store->read(2, 0, got.data(), error)) << error;
  EXPECT_EQ(got, third);
}

namespace {
class RedisPasswordTest : public RedisStoreTest {
  void startServer() override {
    std::string error;
    ASSERT_TRUE(
        server.start(binary, {"--requirepass", "pw-Correct-7431"}, 0, error))
        << error;
  }
};
} // namespace

TEST_F(RedisPasswordTest, OnlyTheRightPasswordWorksAndErrorsHideIt) {
  RedisOptions o = options();
  std::string error;
  EXPECT_FALSE(makeRedisStore(o, 2, {64}, nullptr, error));
  EXPECT_NE(error.find("needs a password"), std::string::npos) << error;

  o.password = "pw-Wrong-9922";
  EXPECT_FALSE(makeRedisStore(o, 2, {64}, nullptr, error));
  EXPECT_NE(error.find("AUTH failed"), std::string::npos) << error;
  EXPECT_EQ(error.find("pw-Wrong-9922"), std::string::npos) << error;

  const std::string url =
      "redis://:pw-Wrong-9922@127.0.0.1:" + std::to_string(server.port());
  ASSERT_TRUE(parseRedisUrl(url, o, error)) << error;
  EXPECT_FALSE(makeRedisStore(o, 2, {64}, nullptr, error));
  EXPECT_EQ(error.find("pw-Wrong-9922"), std::string::npos) << error;

  ASSERT_TRUE(parseRedisUrl("redis://:pw-Correct-7431@127.0.0.1:" +
                                std::to_string(server.port()) + "/1",
                            o, error))
      << error;
  auto store = make(o, 2, {64});
  ASSERT_TRUE(store);
  const auto page = randomPage(random, 64);
  std::vector<std::int8_t> got(64);
  ASSERT_TRUE(store->write(1, 0, page.data(), error)) << error;
  ASSERT_TRUE(store->read(1, 0, got.data(), error)) << error;
  EXPECT_EQ(got, page);
  Raw raw(server.port(), "pw-Correct-7431");
  EXPECT_EQ(raw.pages(), 0); // db 0: the page went to db 1
  ASSERT_TRUE(raw.ok(
      static_cast<redisReply *>(redisCommand(raw.context, "SELECT 1"))));
  EXPECT_EQ(raw.pages(), 1);
}

TEST_F(RedisStoreTest, AnAclUserWorksThroughTheUrl) {
  Raw raw(server.port());
  ASSERT_TRUE(raw.ok(static_cast<redisReply *>(redisCommand(
      raw.context, "ACL SETUSER cacheuser on >user-Pw-5521 ~* +@all"))));
  RedisOptions o = options();
  std::string error;
  const std::string port = std::to_string(server.port());
  ASSERT_TRUE(parseRedisUrl("redis://cacheuser:user-Pw-5521@127.0.0.1:" +
                                port,
                            o, error))
      << error;
  EXPECT_EQ(o.user, "cacheuser");
  auto store = make(o, 2, {128});
  ASSERT_TRUE(store);
  const auto page = randomPage(random, 128);
  std::vector<std::int8_t> got(128);
  ASSERT_TRUE(store->write(0, 0, page.data(), error)) << error;
  ASSERT_TRUE(store->read(0, 0, got.data(), error)) << error;
  EXPECT_EQ(got, page);

  ASSERT_TRUE(parseRedisUrl("redis://cacheuser:user-Pw-0000@127.0.0.1:" +
                                port,
                            o, error));
  EXPECT_FALSE(makeRedisStore(o, 2, {128}, nullptr, error));
  EXPECT_NE(error.find("AUTH as user cacheuser failed"), std::string::npos)
      << error;
  EXPECT_EQ(error.find("user-Pw-0000"), std::string::npos) << error;
}
