//===- indexpool-fidelity.cpp - measure what pooling loses ----------------===//
//
//   indexpool-fidelity --keys=@k.npy --queries=@q.npy [--pool-size=4]
//       [--k=256] [--format=none|fp8|CODE] [--rotate] [--score=uniform|norm]
//       [--bias=@b.npy] [--gate=@g.npy] [--first-stage=mean|max-aware]
//       [--bound-weight=A] [--radius-format=f32|e5m2] [--refine=C]
//       [--refine-keys=exact|i8|fp8|token-fp8|token-i8] [--last=16] [--json]
//
// The command line (readFidelityCommandLine, Fidelity/CommandLines.h) of
// runFidelity (Fidelity/Fidelity.h), which does the work. Every bad input ends with one line "indexpool-fidelity:
// error: ..." and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Fidelity/CommandLines.h"
#include "indexpool/ToolSupport/ToolError.h"

#include <cstdio>

using namespace indexpool::fidelity;

int main(int argc, char **argv) {
  FidelityOptions options;
  bool json = false;
  if (std::optional<int> exit =
          readFidelityCommandLine(argc, argv, options, json))
    return *exit;
  FidelityReport report;
  if (indexpool::Status status = runFidelity(options, report); !status)
    return indexpool::tools::toolError("indexpool-fidelity", status.message());
  std::fputs(json ? formatJson(report).c_str() : formatText(report).c_str(),
             stdout);
  return 0;
}
