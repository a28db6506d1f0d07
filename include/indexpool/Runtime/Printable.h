//===- Printable.h - user text made safe for a one-line message -*- C++ -*-===//
//
// Error messages echo what the user wrote (a dtype, a JSON key, a string),
// and every error is ONE line: a newline or other control byte inside the
// echoed text must not break it. printable() escapes such bytes and shortens
// long text. Header-only and MLIR-free, so every reader can use it.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_RUNTIME_PRINTABLE_H
#define INDEXPOOL_RUNTIME_PRINTABLE_H

#include <cstdio>
#include <string>
#include <string_view>

namespace indexpool::runtime {

/// `text` with \n, \r, \t, the quote character `quote`, backslash and every
/// other byte outside printable ASCII escaped (\xNN), cut after `maxBytes`
/// input bytes ("..." marks the cut). Not quoted: the caller adds quotes.
inline std::string printable(std::string_view text, char quote = '"',
                             size_t maxBytes = 60) {
  std::string out;
  size_t n = text.size() < maxBytes ? text.size() : maxBytes;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\\' || c == static_cast<unsigned char>(quote))
      out += {'\\', static_cast<char>(c)};
    else if (c < 0x20 || c >= 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02X", c);
      out += hex;
    } else
      out += static_cast<char>(c);
  }
  if (n < text.size())
    out += "...";
  return out;
}

} // namespace indexpool::runtime

#endif // INDEXPOOL_RUNTIME_PRINTABLE_H
