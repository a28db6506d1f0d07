//===- RawRedis.h - What the Redis tests do behind the store's back -------===//
//
// A raw hiredis connection to a test's server (LocalRedisServer), for the
// commands the store never sends, and the clock the tests' hang guards
// read.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_UNITTESTS_CACHEREDIS_RAWREDIS_H
#define INDEXPOOL_UNITTESTS_CACHEREDIS_RAWREDIS_H

#include <hiredis/hiredis.h>

#include <chrono>
#include <string>

namespace indexpool::cache::test {

using Clock = std::chrono::steady_clock;

inline long long milliseconds(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                               since)
      .count();
}

/// A raw connection, for what a test does behind the store's back.
struct Raw {
  explicit Raw(int port, const char *password = nullptr) {
    context = redisConnect("127.0.0.1", port);
    if (password)
      freeReplyObject(redisCommand(context, "AUTH %s", password));
  }
  ~Raw() { redisFree(context); }
  long long integer(const char *command) {
    auto *reply = static_cast<redisReply *>(redisCommand(context, command));
    long long value = reply && reply->type == REDIS_REPLY_INTEGER
                          ? reply->integer
                          : -1;
    freeReplyObject(reply);
    return value;
  }
  /// The keys matching `pattern` (a test's server is small).
  long long keys(const char *pattern) {
    auto *reply = static_cast<redisReply *>(redisCommand(
        context, "EVAL %s 0 %s", "return #redis.call('KEYS', ARGV[1])",
        pattern));
    long long value = reply && reply->type == REDIS_REPLY_INTEGER
                          ? reply->integer
                          : -1;
    freeReplyObject(reply);
    return value;
  }
  /// The pages on the server, and the references to page `digest`.
  long long pages() { return keys("indexpool:page:*"); }
  long long references(const std::string &digest) {
    const std::string command = "GET indexpool:refs:" + digest;
    auto *reply = static_cast<redisReply *>(redisCommand(context, command.c_str()));
    long long value = reply && reply->type == REDIS_REPLY_STRING
                          ? std::stoll(std::string(reply->str, reply->len))
                          : 0;
    freeReplyObject(reply);
    return value;
  }
  bool ok(redisReply *reply) {
    bool good = reply && reply->type != REDIS_REPLY_ERROR;
    freeReplyObject(reply);
    return good;
  }
  redisContext *context;
};

} // namespace indexpool::cache::test

#endif // INDEXPOOL_UNITTESTS_CACHEREDIS_RAWREDIS_H
