//===- RunCommandLine.h - indexpool-run's flags --------------*- C++ -*-===//
//
// indexpool-run's command line read into runModule's options
// (ToolSupport/Flags.h), MLIR's own --mlir-* options passed on to MLIR's
// parser. A library call, so that other programs can run a module as the
// tool does from the same argv.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLING_RUNCOMMANDLINE_H
#define INDEXPOOL_TOOLING_RUNCOMMANDLINE_H

#include "indexpool/Tooling/RunModule.h"

#include <optional>

namespace mlir::indexpool {

/// Reads argv into `options`: std::nullopt to go on, else the exit code to
/// return (0 after --help or --version, 1 after the one error line).
std::optional<int> readRunCommandLine(int argc, const char *const *argv,
                                      RunModuleOptions &options);

} // namespace mlir::indexpool

#endif // INDEXPOOL_TOOLING_RUNCOMMANDLINE_H
