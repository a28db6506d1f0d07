//===- indexpool-calibrate.cpp - fit the pooling bias ---------------------===//
//
//   indexpool-calibrate --keys=@k.npy --queries=@q.npy [--pool-size=4]
//       [--k=256] [--bias=slot|channel] [--fit-temperature]
//       [--score=uniform|norm] [--train=N] [--held-out=M]
//       [--format=none|fp8|CODE] [--rotate] [--gate=mean-query|channel
//       --gate-output=g.npy] -o bias.npy [--json]
//
// The command line (readCalibrateCommandLine, Fidelity/CommandLines.h) of
// runCalibration (Fidelity/Calibrate.h), which does the work. Every bad input ends with one line "indexpool-calibrate:
// error: ..." and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Fidelity/CommandLines.h"
#include "indexpool/ToolSupport/ToolError.h"

#include <cstdio>

using namespace indexpool::fidelity;

int main(int argc, char **argv) {
  CalibrateOptions options;
  CalibrateOutputs outputs;
  if (std::optional<int> exit =
          readCalibrateCommandLine(argc, argv, options, outputs))
    return *exit;
  CalibrationResult result;
  indexpool::Status status = runCalibration(options, result);
  if (status)
    status = writeBiasNpy(outputs.bias, result);
  if (status && options.gate != GateKind::None)
    status = writeGateNpy(outputs.gate, result);
  if (!status)
    return indexpool::tools::toolError("indexpool-calibrate",
                                       status.message());
  std::fputs(outputs.json ? formatCalibrationJson(result).c_str()
                          : formatCalibrationText(result).c_str(),
             stdout);
  return 0;
}
