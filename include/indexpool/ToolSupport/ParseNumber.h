//===- ParseNumber.h - a whole command-line value as a number ---*- C++ -*-===//
//
// The tools' numeric flags: the whole text must be the number (no sign
// tricks, no trailing characters, nothing empty), in range of T.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLSUPPORT_PARSENUMBER_H
#define INDEXPOOL_TOOLSUPPORT_PARSENUMBER_H

#include <charconv>
#include <string_view>
#include <system_error>

namespace indexpool::tools {

template <typename T> bool parseNumber(std::string_view text, T &value) {
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() &&
         !text.empty();
}

} // namespace indexpool::tools

#endif // INDEXPOOL_TOOLSUPPORT_PARSENUMBER_H
