//===- RedisUrl.cpp - redis:// URLs into RedisOptions ---------------------===//
//
// Errors never quote the URL, its port or its database: a mistyped URL
// ("redis://user:secret" without "@host") would put the password there.
// They quote the host at most.
//
//===----------------------------------------------------------------------===//

#include "indexpool/CacheRedis/RedisStore.h"

#include <climits>

using namespace indexpool::cache;

namespace {

bool allDigits(const std::string &text) {
  if (text.empty())
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  return true;
}

/// `text` as a number in [low, high], digits only.
bool number(const std::string &text, long long low, long long high,
            long long &value) {
  if (!allDigits(text) || text.size() > 12)
    return false;
  value = std::stoll(text);
  return value >= low && value <= high;
}

} // namespace

bool indexpool::cache::parseRedisUrl(const std::string &url,
                                     RedisOptions &options,
                                     std::string &error) {
  auto fail = [&](const std::string &why) {
    error = "the Redis URL: " + why;
    return false;
  };
  RedisOptions out = options;
  std::string rest;
  if (url.rfind("redis://", 0) == 0) {
    out.tls = false;
    rest = url.substr(8);
  } else if (url.rfind("rediss://", 0) == 0) {
    out.tls = true;
    rest = url.substr(9);
  } else {
    return fail("expected redis://[user[:password]@]host[:port][/db] or "
                "rediss://... (TLS)");
  }
  if (rest.find_first_of("?#") != std::string::npos)
    return fail("query parameters and fragments are not supported");

  out.user.clear();
  out.password.clear();
  const size_t at = rest.find('@');
  if (at != std::string::npos) {
    if (rest.find('@', at + 1) != std::string::npos)
      return fail("more than one '@': a password holding '@' is ambiguous "
                  "here (and percent-encoding is not supported); set "
                  "RedisOptions::password instead");
    const std::string userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const size_t colon = userinfo.find(':');
    if (colon == std::string::npos)
      return fail("a user without a password ('user@'): write "
                  "user:password@, or :password@ for the default user");
    out.user = userinfo.substr(0, colon);
    out.password = userinfo.substr(colon + 1);
    if (out.password.empty())
      return fail("an empty password after ':' (leave out 'user:@' for "
                  "none)");
  }

  const size_t slash = rest.find('/');
  const std::string hostPort = rest.substr(0, slash);
  std::string portText;
  bool hasPort = false;
  if (!hostPort.empty() && hostPort[0] == '[') {
    const size_t close = hostPort.find(']');
    if (close == std::string::npos)
      return fail("an IPv6 host without its closing ']'");
    out.host = hostPort.substr(1, close - 1);
    const std::string after = hostPort.substr(close + 1);
    if (!after.empty() && after[0] != ':')
      return fail("text after the IPv6 host '[" + out.host + "]'");
    hasPort = !after.empty();
    portText = hasPort ? after.substr(1) : "";
  } else {
    const size_t colon = hostPort.find(':');
    if (colon != std::string::npos &&
        hostPort.find(':', colon + 1) != std::string::npos)
      return fail("more than one ':' after the host (an IPv6 address goes "
                  "in brackets: redis://[::1]:6379; a password needs '@' "
                  "after it)");
    out.host = hostPort.substr(0, colon);
    hasPort = colon != std::string::npos;
    portText = hasPort ? hostPort.substr(colon + 1) : "";
  }
  if (out.host.empty())
    return fail("no host");
  long long value = 0;
  out.port = 6379;
  if (hasPort) {
    if (!number(portText, 1, 65535, value))
      // The host is not quoted: with a forgotten '@' it can be a password.
      return fail("the port (after the host) is not a number from 1 to "
                  "65535");
    out.port = int(value);
  }
  out.db = 0;
  if (slash != std::string::npos) {
    if (!number(rest.substr(slash + 1), 0, INT_MAX, value))
      return fail("the database (after '/') is not a number from 0 to " +
                  std::to_string(INT_MAX));
    out.db = int(value);
  }
  options = std::move(out);
  return true;
}
