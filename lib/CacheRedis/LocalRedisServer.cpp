//===- LocalRedisServer.cpp - A redis-server of one's own -----------------===//

#include "indexpool/CacheRedis/LocalRedisServer.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace indexpool::cache;

namespace {

using Clock = std::chrono::steady_clock;

/// A port nobody listens on now (the kernel's pick for port 0).
int freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
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

/// Whether a server answers PING on the loopback port (any reply counts).
bool answers(int port) {
  const timeval timeout{0, 200000};
  redisContext *c = redisConnectWithTimeout("127.0.0.1", port, timeout);
  auto *reply = c && !c->err
                    ? static_cast<redisReply *>(redisCommand(c, "PING"))
                    : nullptr;
  const bool up = reply != nullptr;
  freeReplyObject(reply);
  redisFree(c);
  return up;
}

/// The child's side of fork(): dies with its parent, output to /dev/null,
/// then the server. Only async-signal-safe calls, since the owner may have
/// threads (argv is built before the fork).
[[noreturn]] void execServer(const std::string &binary, char *const *argv,
                             pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) // the parent died before prctl
    ::_exit(1);
  const int null = ::open("/dev/null", O_WRONLY);
  ::dup2(null, 1);
  ::dup2(null, 2);
  ::execv(binary.c_str(), argv);
  ::_exit(127);
}

} // namespace

std::string indexpool::cache::findRedisServer() {
  const char *path = std::getenv("PATH");
  const std::string dirs =
      std::string(path ? path : "") + ":/usr/bin:/usr/sbin";
  for (const char *name : {"redis-server", "valkey-server"})
    for (size_t start = 0, end; start < dirs.size(); start = end + 1) {
      end = std::min(dirs.find(':', start), dirs.size());
      const std::string file = dirs.substr(start, end - start) + "/" + name;
      if (end > start && ::access(file.c_str(), X_OK) == 0)
        return file;
    }
  return "";
}

LocalRedisServer::~LocalRedisServer() { stop(); }

bool LocalRedisServer::start(const std::string &binary,
                             const std::vector<std::string> &extraArgs,
                             int fixedPort, std::string &error) {
  stop();
  char dirTemplate[] = "/tmp/indexpool-redis-XXXXXX";
  if (!::mkdtemp(dirTemplate)) {
    error = "cannot make a temporary directory for " + binary;
    return false;
  }
  const std::string dir = dirTemplate;
  // The kernel's pick for port 0 may be taken again before the server
  // binds it, and a fixed port may still be held by the server just
  // killed there: a server that exits is tried again.
  for (int attempt = 0; attempt < 5; ++attempt) {
    serverPort = fixedPort ? fixedPort : freePort();
    std::vector<std::string> args = {binary, "--port",
                                     std::to_string(serverPort), "--dir", dir};
    for (const char *flag : {"--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--daemonize", "no"})
      args.push_back(flag);
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    std::vector<char *> argv;
    for (std::string &arg : args)
      argv.push_back(arg.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    child = ::fork();
    if (child == 0)
      execServer(binary, argv.data(), parent);
    if (child < 0)
      break;
    for (const Clock::time_point t0 = Clock::now();
         Clock::now() - t0 < std::chrono::seconds(10);) {
      if (::waitpid(child, nullptr, WNOHANG) == child) {
        child = -1; // it exited: the port was taken
        break;
      }
      if (answers(serverPort)) {
        // The server has made the directory its working directory and
        // writes nothing there (no persistence): removed now, nothing is
        // left behind even when the owner is killed.
        ::rmdir(dir.c_str());
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop();
    if (fixedPort)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ::rmdir(dir.c_str());
  error = binary + " did not start on " +
          (fixedPort ? "port " + std::to_string(fixedPort)
                     : std::string("a free loopback port"));
  return false;
}

void LocalRedisServer::stop() {
  if (child > 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }
  child = -1;
}
