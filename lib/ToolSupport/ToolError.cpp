//===- ToolError.cpp - the one error line of every tool -------------------===//

#include "indexpool/ToolSupport/ToolError.h"

#include <cstdio>

namespace indexpool::tools {

int toolError(std::string_view tool, std::string_view message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%.*s: error: %.*s\n", int(tool.size()), tool.data(),
               int(message.size()), message.data());
  return kErrorExitCode;
}

std::string plural(size_t count, const std::string &noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

} // namespace indexpool::tools
