//===- indexpool-adapt.cpp - a pool size per layer under a budget ---------===//
//
//   indexpool-adapt DIR (--budget=BYTES_PER_TOKEN | --budget-ratio=R)
//       [--pool-sizes=2,4,8] [--k=256] [--format=none|fp8|i8] [--rotate]
//       [--last=256] [--group=layer|head] [--objective=mass-recall|recall]
//       [--json] [--emit=FILE.mlir] [--emit-json=FILE.json]
//
// The command line of runAdapt (indexpool/Fidelity/Adapt.h), which does the
// work. Every bad input ends with one line "indexpool-adapt: error: ..." and
// exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Fidelity/Adapt.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <cstdio>
#include <fstream>
#include <string>

namespace cl = llvm::cl;
using namespace indexpool::fidelity;

static cl::OptionCategory category("indexpool-adapt options");

static cl::opt<std::string>
    dumpDir(cl::Positional, cl::value_desc("DIR"), cl::Required,
            cl::desc("<DIR: layerL/headH/{keys,queries}.npy or "
                     "layerL/{keys,queries}.npy>"),
            cl::cat(category));

static cl::opt<double> budget(
    "budget", cl::init(0), cl::value_desc("BYTES_PER_TOKEN"),
    cl::desc("Index-cache bytes per token, summed over all units"),
    cl::cat(category));

static cl::opt<int64_t> budgetRatio(
    "budget-ratio", cl::init(0), cl::value_desc("R"),
    cl::desc("The budget of every unit at pool size R"), cl::cat(category));

static cl::opt<std::string>
    poolSizes("pool-sizes", cl::init("2,4,8"), cl::value_desc("P,P,..."),
              cl::desc("Candidate pool sizes, powers of two in [2, 64]"),
              cl::cat(category));

static cl::opt<int64_t>
    topK("k", cl::init(256), cl::value_desc("K"),
         cl::desc("Tokens selected per query (a multiple of every P)"),
         cl::cat(category));

static cl::opt<std::string> format(
    "format", cl::init("fp8"), cl::value_desc("none|fp8|CODE TYPE"),
    cl::desc("How pooled keys are stored (and counted): none (f32, the pool "
             "op: 4 D' / P bytes per token), fp8 or a code type (codes + f32 "
             "scale: the page entry's bytes / P; indexpool-fidelity's "
             "--format)"),
    cl::cat(category));

static cl::opt<bool>
    rotate("rotate",
           cl::desc("Hadamard-rotate the pooled keys and the queries (D "
                    "zero-padded to a power of two D')"),
           cl::cat(category));

static cl::opt<int64_t>
    last("last", cl::init(256), cl::value_desc("N"),
         cl::desc("Calibration positions: the last N, as causal decode "
                  "queries"),
         cl::cat(category));

static cl::opt<AdaptGroup> group(
    "group", cl::init(AdaptGroup::Layer), cl::desc("What shares one P"),
    cl::values(clEnumValN(AdaptGroup::Layer, "layer",
                          "a layer's heads (their measurements averaged)"),
               clEnumValN(AdaptGroup::Head, "head", "each head alone")),
    cl::cat(category));

static cl::opt<AdaptObjective> objective(
    "objective", cl::init(AdaptObjective::MassRecall),
    cl::desc("What the choice maximises (its mean over the units)"),
    cl::values(clEnumValN(AdaptObjective::MassRecall, "mass-recall",
                          "attention-mass recall"),
               clEnumValN(AdaptObjective::Recall, "recall", "token recall")),
    cl::cat(category));

static cl::opt<bool> json(
    "json",
    cl::desc("Print one JSON object: the setup, every unit's measurements at "
             "every candidate P and its choice, the adaptive and uniform "
             "totals"),
    cl::cat(category));

static cl::opt<std::string> emitFile(
    "emit", cl::value_desc("FILE.mlir"),
    cl::desc("Write one module with each unit's compress function "
             "(@compress_layerL or @compress_layerL_headH) at its chosen "
             "pool size"),
    cl::cat(category));

static cl::opt<std::string>
    emitJsonFile("emit-json", cl::value_desc("FILE.json"),
                 cl::desc("Write {\"unit\": pool_size, ...}"),
                 cl::cat(category));

static const char *kOverview =
    "indexpool-adapt: choose a pool size per layer (or head) under a memory "
    "budget.\n\n"
    "Every key set of the dump is measured at every candidate pool size "
    "through the compiled kernels, as indexpool-fidelity --last=N does. The "
    "choice maximises the mean objective over the units with the summed "
    "bytes per token within the budget, exactly (ties to the fewer bytes). "
    "The uniform anchor is every unit at the smallest candidate P that "
    "fits.\n";

static int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "indexpool-adapt: error: %s\n", message.c_str());
  return 1;
}

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
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);

  AdaptOptions options;
  options.dumpPath = dumpDir;
  options.budget = budget;
  options.budgetRatio = budgetRatio;
  if (indexpool::Status status = parsePoolSizes(poolSizes, options.poolSizes);
      !status)
    return fail(status.message());
  options.k = topK;
  std::string formatError;
  std::optional<PoolFormat> poolFormat = parsePoolFormat(format, formatError);
  if (!poolFormat)
    return fail("--format: " + formatError);
  options.format = *poolFormat;
  options.rotate = rotate;
  options.last = last;
  options.group = group;
  options.objective = objective;
  // Fail before measuring rather than after.
  if (!emitFile.empty() && (!poolFormat->codes || poolFormat->paged()))
    return fail("--emit needs --format=fp8 or i8: compress stores codes and "
                "scales, --format=none has none");

  AdaptReport report;
  if (indexpool::Status status = runAdapt(options, report); !status)
    return fail(status.message());
  if (!emitFile.empty()) {
    std::string text;
    if (indexpool::Status status = buildAdaptModule(report, text); !status)
      return fail(status.message());
    if (indexpool::Status status = writeFile("--emit", emitFile, text);
        !status)
      return fail(status.message());
  }
  if (!emitJsonFile.empty())
    if (indexpool::Status status = writeFile(
            "--emit-json", emitJsonFile, formatAdaptPoolSizesJson(report));
        !status)
      return fail(status.message());
  std::fputs(json ? formatAdaptJson(report).c_str()
                  : formatAdaptText(report).c_str(),
             stdout);
  return 0;
}
