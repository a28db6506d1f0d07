//===- EvictionPolicy.cpp - Policies by name ------------------------------===//

#include "indexpool/Cache/EvictionPolicy.h"

#include <charconv>
#include <string_view>

using namespace indexpool::cache;

EvictionPolicy::~EvictionPolicy() = default;

/// A decimal number that fills `text` exactly.
static bool parseDecimal(std::string_view text, std::uint64_t &value) {
  if (text.empty())
    return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

std::unique_ptr<EvictionPolicy>
indexpool::cache::parsePolicy(const std::string &spec, std::string &error) {
  std::string_view s = spec;
  if (s == "lru")
    return makeLru();
  if (s == "lru-k")
    return makeLruK(2, 0);
  constexpr std::string_view prefix = "lru-k:";
  if (s.substr(0, prefix.size()) == prefix) {
    std::string_view rest = s.substr(prefix.size());
    std::string_view kText = rest.substr(0, rest.find(':'));
    std::uint64_t k = 0, period = 0;
    bool ok = parseDecimal(kText, k) && k >= 1 && k <= 16;
    if (ok && kText.size() < rest.size())
      ok = parseDecimal(rest.substr(kText.size() + 1), period);
    if (ok)
      return makeLruK(static_cast<unsigned>(k), period);
  }
  error = "unknown eviction policy '" + spec +
          "': expected lru, lru-k, lru-k:K (K from 1 to 16) or lru-k:K:PERIOD";
  return nullptr;
}
