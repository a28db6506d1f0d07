//===- ManifestText.h - manifests written in a test ------------*- C++ -*-===//
#ifndef INDEXPOOL_UNITTESTS_RUNTIME_MANIFESTTEXT_H
#define INDEXPOOL_UNITTESTS_RUNTIME_MANIFESTTEXT_H

#include "indexpool/Runtime/Manifest.h"

#include <gtest/gtest.h>

#include <string>

namespace indexpool::runtime::test {

/// `text` with its first `from` replaced by `to` (a failure when absent).
inline std::string edited(std::string text, const std::string &from,
                          const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

/// The error loading `text` as "m.json" gives; "" when it loads.
inline std::string loadError(const std::string &text) {
  Manifest m;
  std::string error;
  return parseManifest(text, "m.json", "/dir", m, error) ? "" : error;
}

/// `text` loaded as "m.json" (a failure when it does not load).
inline Manifest load(const std::string &text) {
  Manifest m;
  std::string error;
  EXPECT_TRUE(parseManifest(text, "m.json", "/dir", m, error)) << error;
  return m;
}

} // namespace indexpool::runtime::test

#endif // INDEXPOOL_UNITTESTS_RUNTIME_MANIFESTTEXT_H
