//===- RedisClient.h - One hiredis connection, with timeouts --------------===//
//
// The few commands the Redis store needs over one blocking hiredis
// connection, serialized by a mutex. Every command is bounded by the
// connect and command timeouts; after a failure the connection is dropped
// (a late reply must never answer the next command) and made again on a
// later command, at most once per reconnect interval.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_LIB_CACHEREDIS_REDISCLIENT_H
#define INDEXPOOL_LIB_CACHEREDIS_REDISCLIENT_H

#include "indexpool/CacheRedis/RedisStore.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct redisContext;
struct redisReply;

namespace indexpool::cache {

class RedisClient {
public:
  explicit RedisClient(RedisOptions options);
  ~RedisClient();
  RedisClient(const RedisClient &) = delete;
  RedisClient &operator=(const RedisClient &) = delete;

  /// "host:port" (and " db N"): for messages; never the password.
  std::string address() const;

  enum class SetResult { Stored, Existed, Failed };
  /// SET key value NX.
  SetResult setNx(const std::string &key, const void *data, size_t n,
                  std::string &error);
  bool set(const std::string &key, const void *data, size_t n,
           std::string &error);
  /// GET key: `found` false for a missing key.
  bool get(const std::string &key, std::string &value, bool &found,
           std::string &error);
  /// MGET keys: one round trip for many pages; values[i] and found[i]
  /// (false for a missing key) per key.
  bool mget(const std::vector<std::string> &keys,
            std::vector<std::string> &values, std::vector<bool> &found,
            std::string &error);
  /// SET key value NX for every key, pipelined: one round trip. false
  /// with `error` when the connection failed (no result then); else
  /// results[i] per key, Failed for a key the server refused (its first
  /// error reply in `error`, otherwise empty).
  bool setNxMany(const std::vector<std::string> &keys,
                 const std::vector<const void *> &data,
                 const std::vector<size_t> &sizes,
                 std::vector<SetResult> &results, std::string &error);
  /// One run of a Lua script: the script, its keys and its arguments
  /// (bytes).
  struct ScriptCall {
    const std::string *script;
    std::vector<std::string> keys;
    std::vector<std::string> args;
  };
  /// What a script run answered: an integer, a string, nil, or an error
  /// reply (its text in `text`).
  struct ScriptResult {
    enum Kind { Integer, Text, Nil, Error } kind = Error;
    long long integer = 0;
    std::string text;
  };
  /// EVAL of every call, pipelined: one round trip. false with `error`
  /// when the connection failed (the scripts may or may not have run);
  /// else one result per call.
  bool evalMany(const std::vector<ScriptCall> &calls,
                std::vector<ScriptResult> &results, std::string &error);
  bool ping(std::string &error);
  /// Round trips to the server so far (a pipeline is one), failed ones
  /// included.
  std::uint64_t roundTrips() const;

private:
  using Reply = std::unique_ptr<redisReply, void (*)(void *)>;
  struct Command {
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
  };
  /// Runs `send` on the connection, connecting first if needed and once
  /// more at once when a connection that worked before turned out closed
  /// (`stale`); the reconnect interval as in the file comment.
  using Send = std::function<bool(bool &stale, std::string &error)>;
  bool withConnection(const Send &send, std::string &error);
  /// The error of a failed read or write on the connection (a timeout, or
  /// `stale`: broken otherwise), which it drops.
  std::string failLocked(int code, bool &stale);
  static std::string errorReplyText(const redisReply &reply);
  /// Every command written, then every reply read: one round trip.
  bool pipelineLocked(std::vector<Command> &commands,
                      std::vector<Reply> &replies, bool &stale,
                      std::string &error);
  /// Runs one command, connecting first if needed; null with `error` on any
  /// failure (an error reply included).
  Reply command(int argc, const char **argv, const size_t *lengths,
                std::string &error);
  /// One try on the current connection; `stale` when it broke without a
  /// timeout (the server closed an idle connection, or restarted).
  Reply sendLocked(int argc, const char **argv, const size_t *lengths,
                   bool &stale, std::string &error);
  bool connectLocked(std::string &error);
  void dropLocked();
  std::string scrub(std::string text) const;

  RedisOptions opts;
  mutable std::mutex mutex;
  redisContext *context = nullptr;
  std::uint64_t trips = 0;
  bool tried = false;
  std::chrono::steady_clock::time_point lastAttempt;
  std::string lastError;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_LIB_CACHEREDIS_REDISCLIENT_H
