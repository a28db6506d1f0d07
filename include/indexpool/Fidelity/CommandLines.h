//===- CommandLines.h - the fidelity tools' flags -------------*- C++ -*-===//
//
// The command lines of indexpool-fidelity, indexpool-calibrate and
// indexpool-adapt, read into the options of runFidelity, runCalibration and
// runAdapt (ToolSupport/Flags.h: --help from the declarations, --version,
// one "TOOL: error: ..." line and exit 1 for a mistake). Each returns
// std::nullopt to go on, else the exit code to return.
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_FIDELITY_COMMANDLINES_H
#define INDEXPOOL_FIDELITY_COMMANDLINES_H

#include "indexpool/Fidelity/Adapt.h"
#include "indexpool/Fidelity/Calibrate.h"
#include "indexpool/Fidelity/Fidelity.h"

#include <optional>
#include <string>

namespace indexpool::fidelity {

/// indexpool-fidelity; `json`: --json.
std::optional<int> readFidelityCommandLine(int argc, const char *const *argv,
                                           FidelityOptions &options,
                                           bool &json);

/// Where indexpool-calibrate writes: the bias (-o), the gate
/// (--gate-output, with --gate), and whether it prints JSON.
struct CalibrateOutputs {
  std::string bias, gate;
  bool json = false;
};
std::optional<int> readCalibrateCommandLine(int argc, const char *const *argv,
                                            CalibrateOptions &options,
                                            CalibrateOutputs &outputs);

/// Where indexpool-adapt writes: --emit's module, --emit-json's pool sizes
/// (empty: not written), and whether it prints JSON.
struct AdaptOutputs {
  std::string module, poolSizes;
  bool json = false;
};
std::optional<int> readAdaptCommandLine(int argc, const char *const *argv,
                                        AdaptOptions &options,
                                        AdaptOutputs &outputs);

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_COMMANDLINES_H
