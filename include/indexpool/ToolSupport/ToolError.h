//===- ToolError.h - the one error line of every tool -----------*- C++ -*-===//
//
// Every bad input of indexpool-run and indexpool-launch ends the same way:
// one line "TOOL: error: MESSAGE" on stderr and exit code 1. MLIR-free, so
// that the runtime-only build's tools share it.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLSUPPORT_TOOLERROR_H
#define INDEXPOOL_TOOLSUPPORT_TOOLERROR_H

#include <cstddef>
#include <string>
#include <string_view>

namespace indexpool::tools {

/// The exit code of a bad input, of a failed run and of results out of
/// tolerance.
constexpr int kErrorExitCode = 1;

/// Prints "TOOL: error: MESSAGE" on stderr, after flushing stdout so that
/// the results printed before stay above it, and returns kErrorExitCode.
int toolError(std::string_view tool, std::string_view message);

/// "1 argument", "2 arguments": counts in messages.
std::string plural(size_t count, const std::string &noun);

} // namespace indexpool::tools

#endif // INDEXPOOL_TOOLSUPPORT_TOOLERROR_H
