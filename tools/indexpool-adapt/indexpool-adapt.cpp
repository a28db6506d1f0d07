//===- indexpool-adapt.cpp - a pool size per layer under a budget ---------===//
//
//   indexpool-adapt DIR (--budget=BYTES_PER_TOKEN | --budget-ratio=R)
//       [--pool-sizes=2,4,8] [--k=256] [--format=none|fp8|CODE] [--rotate]
//       [--last=256] [--group=layer|head] [--objective=mass-recall|recall]
//       [--json] [--emit=FILE.mlir] [--emit-json=FILE.json]
//
// The command line (readAdaptCommandLine, Fidelity/CommandLines.h) of
// runAdapt (Fidelity/Adapt.h), which does the work. Every bad input ends with one line "indexpool-adapt: error: ..." and
// exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Fidelity/CommandLines.h"
#include "indexpool/ToolSupport/ToolError.h"

#include <cstdio>
#include <fstream>

using namespace indexpool::fidelity;

/// Writes `text` to `path` (`flag` names it in the error).
static indexpool::Status writeFile(const std::string &flag,
                                   const std::string &path,
                                   const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    return indexpool::Status::error(flag + ": cannot write " + path);
  return indexpool::Status();
}

int main(int argc, char **argv) {
  AdaptOptions options;
  AdaptOutputs outputs;
  if (std::optional<int> exit =
          readAdaptCommandLine(argc, argv, options, outputs))
    return *exit;
  AdaptReport report;
  indexpool::Status status = runAdapt(options, report);
  if (status && !outputs.module.empty()) {
    std::string text;
    status = buildAdaptModule(report, text);
    if (status)
      status = writeFile("--emit", outputs.module, text);
  }
  if (status && !outputs.poolSizes.empty())
    status = writeFile("--emit-json", outputs.poolSizes,
                       formatAdaptPoolSizesJson(report));
  if (!status)
    return indexpool::tools::toolError("indexpool-adapt", status.message());
  std::fputs(outputs.json ? formatAdaptJson(report).c_str()
                          : formatAdaptText(report).c_str(),
             stdout);
  return 0;
}
