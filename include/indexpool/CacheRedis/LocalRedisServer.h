//===- LocalRedisServer.h - A redis-server of one's own -------------------===//
//
// A redis-server (or valkey-server) of one's own on a free loopback port
// without persistence, killed with its owner: what the tests of the Redis
// store and of the cache's store tier run against, and the server a
// benchmark starts when it is given none.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_CACHEREDIS_LOCALREDISSERVER_H
#define INDEXPOOL_CACHEREDIS_LOCALREDISSERVER_H

#include <string>
#include <vector>

#include <sys/types.h>

namespace indexpool::cache {

/// The first executable redis-server on PATH, /usr/bin or /usr/sbin, else
/// the first valkey-server there; "" when there is neither.
std::string findRedisServer();

/// One server process: started by start(), SIGKILLed by stop() and by the
/// destructor, and by the kernel should its owner die first (the child
/// asks for PR_SET_PDEATHSIG, which fires when the thread that called
/// start() exits: start it from a thread that outlives its use).
class LocalRedisServer {
public:
  LocalRedisServer() = default;
  LocalRedisServer(const LocalRedisServer &) = delete;
  LocalRedisServer &operator=(const LocalRedisServer &) = delete;
  ~LocalRedisServer();

  /// Starts `binary` bound to 127.0.0.1 on `fixedPort`, or on a free port
  /// when it is 0, with no snapshots, no append-only file and a temporary
  /// working directory (removed once the server is up), `extraArgs` last.
  /// Waits at most 10 s for any reply to PING (NOAUTH counts: a server
  /// with --requirepass is up). A server that exits (its port was taken)
  /// is tried again, on another free port or after a pause on the fixed
  /// one, five times in all. False with `error` when none came up.
  bool start(const std::string &binary,
             const std::vector<std::string> &extraArgs, int fixedPort,
             std::string &error);
  /// SIGKILLs the server and reaps it; port() stays, so a test can start
  /// one again where the last one was.
  void stop();

  /// The port of the last start(); -1 before any.
  int port() const { return serverPort; }
  /// The server's process id; -1 when none runs.
  pid_t pid() const { return child; }

private:
  int serverPort = -1;
  pid_t child = -1;
};

} // namespace indexpool::cache

#endif // INDEXPOOL_CACHEREDIS_LOCALREDISSERVER_H
