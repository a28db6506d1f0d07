//===- RedisServer.h - A redis-server of a test's own ---------------------===//
//
// Starts redis-server on a free loopback port without persistence and
// SIGKILLs it at the end, for the tests of the Redis page store and of the
// cache's store tier.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_UNITTESTS_CACHEREDIS_REDISSERVER_H
#define INDEXPOOL_UNITTESTS_CACHEREDIS_REDISSERVER_H

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace indexpool::cache::test {

using Clock = std::chrono::steady_clock;

inline std::string findRedisServer() {
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  dirs += ":/usr/bin:/usr/sbin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/redis-server";
    if (end > start && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return "";
}

/// A port nobody listens on now (the kernel's pick for port 0).
inline int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = -1;
  if (fd >= 0 &&
      ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) ==
          0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  if (fd >= 0)
    ::close(fd);
  return port;
}

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
  bool ok(redisReply *reply) {
    bool good = reply && reply->type != REDIS_REPLY_ERROR;
    freeReplyObject(reply);
    return good;
  }
  redisContext *context;
};

class RedisServer {
public:
  ~RedisServer() { stop(); }

  /// Starts redis-server on `fixedPort` (0: a free one), waits for PING.
  bool start(const std::string &binary, std::vector<std::string> extra = {},
             int fixedPort = 0) {
    for (int attempt = 0; attempt < 5; ++attempt) {
      port = fixedPort ? fixedPort : freePort();
      std::vector<std::string> args = {
          binary,       "--port", std::to_string(port), "--bind",
          "127.0.0.1",  "--save", "",                   "--appendonly",
          "no",         "--daemonize", "no",            "--dir",
          "/tmp"};
      args.insert(args.end(), extra.begin(), extra.end());
      pid = ::fork();
      if (pid == 0) {
        int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::dup2(null, 2);
        std::vector<char *> argv;
        for (std::string &arg : args)
          argv.push_back(arg.data());
        argv.push_back(nullptr);
        ::execv(binary.c_str(), argv.data());
        ::_exit(127);
      }
      if (pid < 0)
        return false;
      // Any reply (NOAUTH included) means it is up; bounded at 10 s.
      const Clock::time_point started = Clock::now();
      while (milliseconds(started) < 10000) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
          pid = -1; // it exited: the port was taken, try another
          break;
        }
        redisContext *probe = redisConnect("127.0.0.1", port);
        redisReply *reply =
            probe && !probe->err
                ? static_cast<redisReply *>(redisCommand(probe, "PING"))
                : nullptr;
        bool up = reply != nullptr;
        freeReplyObject(reply);
        redisFree(probe);
        if (up)
          return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      stop();
      if (fixedPort)
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }
  void stop() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    pid = -1;
  }

  int port = -1;
  pid_t pid = -1;
};

} // namespace indexpool::cache::test

#endif // INDEXPOOL_UNITTESTS_CACHEREDIS_REDISSERVER_H
