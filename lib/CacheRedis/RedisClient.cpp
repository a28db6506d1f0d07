//===- RedisClient.cpp - One hiredis connection, with timeouts ------------===//

#include "RedisClient.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <hiredis/hiredis.h>
#include <pthread.h>

using namespace indexpool::cache;

namespace {

timeval toTimeval(int ms) {
  if (ms <= 0)
    ms = 1;
  return timeval{ms / 1000, (ms % 1000) * 1000};
}

/// hiredis writes with write(2): a server that died mid-connection would
/// raise SIGPIPE and kill the process. Block it in this thread around a
/// command and swallow one it raised, leaving the process's disposition
/// alone.
class NoSigpipe {
public:
  NoSigpipe() {
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeSet, &old);
    sigset_t pending;
    sigpending(&pending);
    wasPending = sigismember(&pending, SIGPIPE);
  }
  ~NoSigpipe() {
    sigset_t pending;
    sigpending(&pending);
    if (!wasPending && sigismember(&pending, SIGPIPE)) {
      timespec zero{0, 0};
      while (sigtimedwait(&pipeSet, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

private:
  sigset_t pipeSet, old;
  bool wasPending = false;
};

void freeReply(void *reply) {
  if (reply)
    freeReplyObject(reply);
}

} // namespace

RedisClient::RedisClient(RedisOptions options) : opts(std::move(options)) {}

RedisClient::~RedisClient() { dropLocked(); }

std::string RedisClient::address() const {
  std::string host = opts.host.find(':') != std::string::npos
                         ? "[" + opts.host + "]"
                         : opts.host;
  std::string text = host + ":" + std::to_string(opts.port);
  if (opts.db != 0)
    text += " db " + std::to_string(opts.db);
  return text;
}

std::string RedisClient::scrub(std::string text) const {
  // Servers do not echo passwords, but nothing this library says may hold
  // one, whatever a server or a proxy answers.
  if (opts.password.empty())
    return text;
  for (size_t at = text.find(opts.password); at != std::string::npos;
       at = text.find(opts.password, at))
    text.replace(at, opts.password.size(), "***");
  return text;
}

void RedisClient::dropLocked() {
  if (context)
    redisFree(context);
  context = nullptr;
}

bool RedisClient::connectLocked(std::string &error) {
  tried = true;
  lastAttempt = std::chrono::steady_clock::now();
  context = redisConnectWithTimeout(opts.host.c_str(), opts.port,
                                    toTimeval(opts.connectTimeoutMs));
  if (!context || context->err) {
    error = "connecting: " +
            (context ? std::string(context->errstr) : "out of memory");
    dropLocked();
    return false;
  }
  if (redisSetTimeout(context, toTimeval(opts.commandTimeoutMs)) !=
      REDIS_OK) {
    error = "setting the command timeout: " + std::string(context->errstr);
    dropLocked();
    return false;
  }
  bool stale = false;
  if (!opts.password.empty()) {
    const char *argv[3] = {"AUTH", opts.user.c_str(), opts.password.c_str()};
    size_t lengths[3] = {4, opts.user.size(), opts.password.size()};
    const bool withUser = !opts.user.empty();
    if (!withUser)
      argv[1] = argv[2], lengths[1] = lengths[2];
    std::string why;
    Reply reply = sendLocked(withUser ? 3 : 2, argv, lengths, stale, why);
    if (!reply) {
      // No context left: the transport failed (failLocked dropped it), which
      // says nothing of the password.
      error = context ? "AUTH" +
                            std::string(withUser ? " as user " + opts.user
                                                 : "") +
                            " failed: " + why
                      : "during AUTH, " + why;
      dropLocked();
      return false;
    }
  }
  if (opts.db != 0) {
    std::string db = std::to_string(opts.db), why;
    const char *argv[2] = {"SELECT", db.c_str()};
    size_t lengths[2] = {6, db.size()};
    if (!sendLocked(2, argv, lengths, stale, why)) {
      error = context ? "SELECT " + db + " failed: " + why
                      : "during SELECT " + db + ", " + why;
      dropLocked();
      return false;
    }
  }
  return true;
}

std::string RedisClient::failLocked(int code, bool &stale) {
  // hiredis reports a socket timeout as EAGAIN from read/write.
  const bool timedOut =
      context->err == REDIS_ERR_IO &&
      (code == EAGAIN || code == EWOULDBLOCK ||
       std::strstr(context->errstr, "temporarily unavailable"));
  std::string error =
      timedOut ? "no answer within " + std::to_string(opts.commandTimeoutMs) +
                     " ms (timed out)"
               : "the connection failed: " + std::string(context->errstr);
  stale = !timedOut;
  dropLocked();
  return error;
}

std::string RedisClient::errorReplyText(const redisReply &reply) {
  std::string text(reply.str, reply.len);
  return text.rfind("NOAUTH", 0) == 0
             ? "the server needs a password (" + text +
                   "): give one in the URL or RedisOptions::password"
             : "the server answered: " + text;
}

RedisClient::Reply RedisClient::sendLocked(int argc, const char **argv,
                                           const size_t *lengths, bool &stale,
                                           std::string &error) {
  stale = false;
  errno = 0;
  Reply reply(nullptr, freeReply);
  int code = 0;
  {
    NoSigpipe guard;
    reply.reset(static_cast<redisReply *>(
        redisCommandArgv(context, argc, argv, lengths)));
    code = errno;
  }
  ++trips;
  if (!reply) {
    error = failLocked(code, stale);
    return reply;
  }
  if (reply->type == REDIS_REPLY_ERROR) {
    error = errorReplyText(*reply);
    reply.reset();
  }
  return reply;
}

bool RedisClient::pipelineLocked(std::vector<Command> &commands,
                                 std::vector<Reply> &replies, bool &stale,
                                 std::string &error) {
  stale = false;
  replies.clear();
  for (Command &c : commands)
    if (redisAppendCommandArgv(context, int(c.argv.size()), c.argv.data(),
                               c.lengths.data()) != REDIS_OK) {
      error = "the connection failed: " + std::string(context->errstr);
      stale = true;
      dropLocked();
      return false;
    }
  // The first reply flushes every command: one round trip for them all.
  ++trips;
  for (size_t i = 0; i < commands.size(); ++i) {
    void *raw = nullptr;
    int status = REDIS_OK, code = 0;
    errno = 0;
    {
      NoSigpipe guard;
      status = redisGetReply(context, &raw);
      code = errno;
    }
    if (status != REDIS_OK || !raw) {
      freeReply(raw);
      replies.clear();
      error = failLocked(code, stale);
      return false;
    }
    replies.emplace_back(static_cast<redisReply *>(raw), freeReply);
  }
  return true;
}

bool RedisClient::withConnection(const Send &send, std::string &error) {
  std::lock_guard<std::mutex> lock(mutex);
  bool sent = false;
  if (!context) {
    const auto since = std::chrono::steady_clock::now() - lastAttempt;
    if (tried && since < std::chrono::milliseconds(opts.reconnectIntervalMs)) {
      error = "unreachable (" + lastError + "); the next try comes within " +
              std::to_string(opts.reconnectIntervalMs) + " ms";
      return false;
    }
    if (!connectLocked(error)) {
      lastError = error = scrub(error);
      return false;
    }
    bool stale = false;
    sent = send(stale, error);
  } else {
    // A connection that worked before may have been closed since (an idle
    // timeout, a restart): one fresh connection, at once, before giving up.
    // Not after a timeout, which would double the wait.
    bool stale = false;
    sent = send(stale, error);
    if (!sent && stale) {
      if (!connectLocked(error)) {
        lastError = error = scrub(error);
        return false;
      }
      sent = send(stale, error);
    }
  }
  error = scrub(error);
  if (!context) {
    // A failed command: no new connection before the interval is over.
    tried = true;
    lastAttempt = std::chrono::steady_clock::now();
    lastError = error;
  }
  return sent;
}

RedisClient::Reply RedisClient::command(int argc, const char **argv,
                                        const size_t *lengths,
                                        std::string &error) {
  Reply reply(nullptr, freeReply);
  withConnection(
      [&](bool &stale, std::string &why) {
        reply = sendLocked(argc, argv, lengths, stale, why);
        return bool(reply);
      },
      error);
  return reply;
}

std::uint64_t RedisClient::roundTrips() const {
  std::lock_guard<std::mutex> lock(mutex);
  return trips;
}

RedisClient::SetResult RedisClient::setNx(const std::string &key,
                                          const void *data, size_t n,
                                          std::string &error) {
  const char *argv[4] = {"SET", key.data(), static_cast<const char *>(data),
                         "NX"};
  size_t lengths[4] = {3, key.size(), n, 2};
  Reply reply = command(4, argv, lengths, error);
  if (!reply)
    return SetResult::Failed;
  // OK when set, nil when the key was there.
  return reply->type == REDIS_REPLY_NIL ? SetResult::Existed
                                        : SetResult::Stored;
}

bool RedisClient::setNxMany(const std::vector<std::string> &keys,
                            const std::vector<const void *> &data,
                            const std::vector<size_t> &sizes,
                            std::vector<SetResult> &results,
                            std::string &error) {
  std::vector<Command> commands(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    commands[i].argv = {"SET", keys[i].data(),
                        static_cast<const char *>(data[i]), "NX"};
    commands[i].lengths = {3, keys[i].size(), sizes[i], 2};
  }
  std::vector<Reply> replies;
  if (!withConnection(
          [&](bool &stale, std::string &why) {
            return pipelineLocked(commands, replies, stale, why);
          },
          error))
    return false;
  // Per command: OK when set, nil when the key was there, or an error
  // reply (out of memory, say) for that page alone.
  results.assign(keys.size(), SetResult::Failed);
  std::string first;
  for (size_t i = 0; i < replies.size(); ++i) {
    const redisReply &reply = *replies[i];
    if (reply.type == REDIS_REPLY_ERROR) {
      if (first.empty())
        first = scrub(errorReplyText(reply));
      continue;
    }
    results[i] =
        reply.type == REDIS_REPLY_NIL ? SetResult::Existed : SetResult::Stored;
  }
  error = first;
  return true;
}

bool RedisClient::set(const std::string &key, const void *data, size_t n,
                      std::string &error) {
  const char *argv[3] = {"SET", key.data(), static_cast<const char *>(data)};
  size_t lengths[3] = {3, key.size(), n};
  return bool(command(3, argv, lengths, error));
}

bool RedisClient::get(const std::string &key, std::string &value, bool &found,
                      std::string &error) {
  const char *argv[2] = {"GET", key.data()};
  size_t lengths[2] = {3, key.size()};
  Reply reply = command(2, argv, lengths, error);
  if (!reply)
    return false;
  found = reply->type == REDIS_REPLY_STRING;
  if (!found && reply->type != REDIS_REPLY_NIL) {
    error = "GET gave a reply of type " + std::to_string(reply->type);
    return false;
  }
  value.assign(found ? reply->str : "", found ? reply->len : 0);
  return true;
}

bool RedisClient::mget(const std::vector<std::string> &keys,
                       std::vector<std::string> &values,
                       std::vector<bool> &found, std::string &error) {
  std::vector<const char *> argv{"MGET"};
  std::vector<size_t> lengths{4};
  for (const std::string &key : keys) {
    argv.push_back(key.data());
    lengths.push_back(key.size());
  }
  Reply reply = command(int(argv.size()), argv.data(), lengths.data(), error);
  if (!reply)
    return false;
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements != keys.size()) {
    error = "MGET of " + std::to_string(keys.size()) +
            " keys gave no array of that many values";
    return false;
  }
  values.assign(keys.size(), std::string());
  found.assign(keys.size(), false);
  for (size_t i = 0; i < keys.size(); ++i) {
    const redisReply *element = reply->element[i];
    if (element->type == REDIS_REPLY_STRING) {
      found[i] = true;
      values[i].assign(element->str, element->len);
    } else if (element->type != REDIS_REPLY_NIL) {
      error = "MGET gave a value of type " + std::to_string(element->type);
      return false;
    }
  }
  return true;
}

bool RedisClient::evalMany(const std::vector<ScriptCall> &calls,
                           std::vector<ScriptResult> &results,
                           std::string &error) {
  std::vector<Command> commands(calls.size());
  std::vector<std::string> keyCounts(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    Command &c = commands[i];
    keyCounts[i] = std::to_string(calls[i].keys.size());
    const std::string &script = *calls[i].script;
    c.argv = {"EVAL", script.data(), keyCounts[i].data()};
    c.lengths = {4, script.size(), keyCounts[i].size()};
    for (const auto *list : {&calls[i].keys, &calls[i].args})
      for (const std::string &text : *list) {
        c.argv.push_back(text.data());
        c.lengths.push_back(text.size());
      }
  }
  std::vector<Reply> replies;
  if (!withConnection(
          [&](bool &stale, std::string &why) {
            return pipelineLocked(commands, replies, stale, why);
          },
          error))
    return false;
  results.assign(calls.size(), ScriptResult());
  for (size_t i = 0; i < replies.size(); ++i) {
    const redisReply &reply = *replies[i];
    ScriptResult &r = results[i];
    switch (reply.type) {
    case REDIS_REPLY_INTEGER:
      r.kind = ScriptResult::Integer;
      r.integer = reply.integer;
      break;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      r.kind = ScriptResult::Text;
      r.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_NIL:
      r.kind = ScriptResult::Nil;
      break;
    case REDIS_REPLY_ERROR:
      r.text = scrub(errorReplyText(reply));
      break;
    default:
      r.text = "a script gave a reply of type " + std::to_string(reply.type);
    }
  }
  return true;
}

bool RedisClient::ping(std::string &error) {
  const char *argv[1] = {"PING"};
  size_t lengths[1] = {4};
  return bool(command(1, argv, lengths, error));
}
