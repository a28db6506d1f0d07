//===- Tuner.cpp - indexpool-tune as a function ---------------------------===//
//
// Compiles through the public API only (Compiler.h), each candidate with a
// one-entry tuning database file, so that what is measured is exactly what
// the database written at the end makes a compile do. The tuner parses its
// own copy of the module, only to list the ops and ask the cost model for
// its choices.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Tuning/Tuner.h"

#include "indexpool/API/Compiler.h"
#include "indexpool/Dialect/IndexPoolDialect.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Target/Chips.h"
#include "indexpool/ToolSupport/ToolError.h"
#include "indexpool/Tuning/Candidates.h"
#include "indexpool/Tuning/Collect.h"
#include "indexpool/Tuning/CpuMeasure.h"
#include "indexpool/Tuning/Measure.h"
#include "indexpool/Tuning/Plan.h"
#include "indexpool/Tuning/Schedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"

#include <cstdio>
#include <cstdlib>
#include <new>

#ifndef INDEXPOOL_TUNE_PLOT_SCRIPT
#define INDEXPOOL_TUNE_PLOT_SCRIPT "scripts/tune/plot_search.py"
#endif

namespace indexpool::tuning {

namespace {

int fail(const std::string &message) {
  return tools::toolError(kTuneTool, message);
}

/// The tuner's own parse of the module: the ops and the model's choices.
struct ParsedModule {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;

  ParsedModule() : context(makeRegistry()) {}

  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    registry.insert<mlir::indexpool::IndexPoolDialect>();
    return registry;
  }
};

/// The function's input shapes, which must be static: a shape class names
/// sizes, and the candidates are measured on one shape.
bool staticInputShapes(const FunctionSignature &signature,
                       std::vector<std::vector<int64_t>> &shapes,
                       std::string &error) {
  for (size_t i = 0; i < signature.arguments.size(); ++i) {
    const std::vector<int64_t> &shape = signature.arguments[i].shape;
    for (int64_t size : shape)
      if (size < 0) {
        error = "argument #" + std::to_string(i) + " of @" + signature.name +
                " has a dynamic size: tuning measures one shape, so every "
                "argument's shape must be static";
        return false;
      }
    shapes.push_back(shape);
  }
  return true;
}

/// "candidates/op0-3": where candidate 3 of op 0 goes, relative to DIR.
std::string candidateFolder(int opIndex, int number) {
  return "candidates/op" + std::to_string(opIndex) + "-" +
         std::to_string(number);
}

/// `path` relative to `directory` when it lies inside it.
std::string relativeTo(const std::string &directory, const std::string &path) {
  std::string prefix = directory.back() == '/' ? directory : directory + "/";
  bool inside = path.compare(0, prefix.size(), prefix) == 0;
  return inside ? path.substr(prefix.size()) : path;
}

/// Writes the candidates' databases and, for a GPU, compiles them. A
/// candidate that does not compile is reported and left out, except the
/// model's own, whose failure is the function's.
bool buildPlan(const TuneOptions &options, const Module &module,
               const std::vector<OpCandidates> &ops, Plan &plan,
               std::string &error) {
  for (const OpCandidates &op : ops) {
    for (size_t n = 0; n < op.launches.size(); ++n) {
      Candidate c;
      c.id = int(plan.candidates.size());
      c.op = op.op;
      c.opIndex = op.opIndex;
      c.number = int(n);
      c.shapeClass = op.shapeClass;
      c.launch = op.launches[n];
      c.estimateUs = op.estimatesUs[n];
      std::string folder = candidateFolder(op.opIndex, int(n));
      std::string absolute = joinPath(options.directory, folder);
      if (std::error_code ec = llvm::sys::fs::create_directories(absolute)) {
        error = "cannot create " + absolute + ": " + ec.message();
        return false;
      }
      c.tuningDb = folder + "/tuning-db.json";
      std::string dbPath = joinPath(options.directory, c.tuningDb);
      if (!writeTextFile(dbPath, "[" + databaseEntry(plan, c) + "]\n", error))
        return false;
      if (!plan.isCpu()) {
        CompileOptions compile;
        compile.tuningDB = dbPath;
        GpuArtifact artifact;
        std::string binary, manifest;
        Status status =
            compileForGpu(module, plan.function, plan.chip, compile, artifact);
        if (status)
          status = saveGpuArtifact(artifact, absolute, &binary, &manifest);
        if (!status) {
          if (n == 0) {
            error = "the cost model's launch of " + op.op + " (op " +
                    std::to_string(op.opIndex) +
                    ") does not compile: " + status.message();
            return false;
          }
          std::fprintf(stderr,
                       "%s: note: %s #%zu (%s) does not compile, left out: "
                       "%s\n",
                       kTuneTool, op.op.c_str(), n,
                       c.launch.describe(false).c_str(),
                       status.message().c_str());
          continue;
        }
        c.manifest = relativeTo(options.directory, manifest);
        c.artifact = relativeTo(options.directory, binary);
      }
      plan.candidates.push_back(std::move(c));
    }
  }
  return true;
}

/// --plot: scripts/tune/plot_search.py DIR, which says itself when
/// matplotlib is missing (exit code 3).
void plot(const TuneOptions &options) {
  const char *script = std::getenv("INDEXPOOL_TUNE_PLOT_SCRIPT");
  std::string command = std::string("/usr/bin/python3 '") +
                        (script ? script : INDEXPOOL_TUNE_PLOT_SCRIPT) +
                        "' '" + options.directory + "'";
  int status = std::system(command.c_str());
  if (status == 0)
    std::printf("wrote %s\n",
                joinPath(options.directory, "search.png").c_str());
  else
    std::fprintf(stderr,
                 "%s: note: no plot (%s exited with status %d; it needs "
                 "python3 with matplotlib)\n",
                 kTuneTool, command.c_str(), status);
}

int tune(const TuneOptions &options) {
  if (options.maxCandidates < 1)
    return fail("--max-candidates must be at least 1 (candidate 0 is the "
                "cost model's choice)");
  if (options.chip.empty())
    return fail("--chip is required (cpu or one of: " +
                target::knownChipNames() + ")");
  std::string_view cpuRow;
  bool cpu = target::parseCpuChip(options.chip, cpuRow);
  if (!cpu && !target::lookupChip(options.chip))
    return fail(target::unknownChipMessage(options.chip, kCpuChip) +
                " (or cpu:NAME, NAME a CPU target)");
  // CPU choices are measured here: on the host's row, or on the row named
  // if this host runs it; the database records the row.
  std::string chip = options.chip;
  if (cpu) {
    const CpuTargetInfo *row = nullptr;
    std::vector<CpuTargetInfo> rows = cpuTargets();
    for (const CpuTargetInfo &info : rows)
      if (cpuRow.empty() ? info.host : info.name == cpuRow)
        row = &info;
    if (!row)
      return fail(target::unknownCpuTargetMessage(cpuRow));
    if (!row->runsHere)
      return fail(row->whyNot);
    chip = target::cpuChipOf(row->name);
  }
  if (options.directory.empty())
    return fail("-o DIR is required (the folder of the plan, the artifacts "
                "and the results)");
  if (options.input.empty())
    return fail("no input file (indexpool-tune FILE.mlir --chip=C -o DIR; "
                "see --help)");

  std::string text, error;
  if (!runtime::readMlirInput(options.input, text, error))
    return fail(error);
  Status status;
  std::unique_ptr<Module> module = Module::parse(text, status, options.input);
  if (!module)
    return fail(status.message());
  std::vector<std::string> names = module->functionNames();
  std::string function = options.function;
  if (!function.empty() && function.front() == '@')
    function.erase(0, 1);
  if (function.empty()) {
    if (names.size() != 1)
      return fail(options.input + " has " + tools::plural(names.size(),
                                                          "function") +
                  ": name one with --function=NAME");
    function = names.front();
  }
  FunctionSignature signature;
  if (!llvm::is_contained(names, function)) {
    std::string known;
    for (const std::string &name : names)
      known += (known.empty() ? "@" : ", @") + name;
    return fail("unknown function '@" + function + "' in " + options.input +
                " (functions: " + (known.empty() ? "none" : known) + ")");
  }
  if (Status s = module->signature(function, signature); !s)
    return fail(s.message());

  Plan plan;
  plan.function = function;
  plan.chip = chip;
  plan.source = options.input;
  if (!staticInputShapes(signature, plan.inputShapes, error))
    return fail(error);

  ParsedModule parsed;
  parsed.module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &parsed.context);
  auto func = parsed.module
                  ? parsed.module->lookupSymbol<mlir::func::FuncOp>(function)
                  : nullptr;
  if (!func)
    return fail("cannot find @" + function + " in the parsed module");
  std::vector<OpCandidates> ops;
  if (!generateCandidates(func, chip, options.maxCandidates, ops,
                          error))
    return fail(error);

  if (std::error_code ec =
          llvm::sys::fs::create_directories(options.directory))
    return fail("cannot create " + options.directory + ": " + ec.message());
  if (!buildPlan(options, *module, ops, plan, error))
    return fail(error);
  std::string planPath = joinPath(options.directory, "plan.json");
  if (!writeTextFile(planPath, planToJson(plan), error))
    return fail(error);
  std::printf("wrote %s: %s of %s\n", planPath.c_str(),
              tools::plural(plan.candidates.size(), "candidate").c_str(),
              tools::plural(ops.size(), "op").c_str());
  std::vector<int> all = measurementOrder(plan, 0);
  double kernelSeconds = estimatedKernelSeconds(plan, all, options.repeat + 1);
  if (kernelSeconds >= 0)
    std::printf("estimate (cost model, not a measurement): the candidates' "
                "kernels take %.3g s of %s time for %u runs each; loads, "
                "uploads and --verify come on top\n",
                kernelSeconds, plan.chip.c_str(), options.repeat + 1);
  std::fflush(stdout);

  std::string dbPath = options.dbPath.empty()
                           ? joinPath(options.directory, "tuning-db.json")
                           : options.dbPath;
  int code = 0;
  if (plan.isCpu()) {
    CpuMeasureOptions measure;
    measure.repeat = options.repeat;
    measure.timeBudgetSeconds = options.timeBudgetSeconds;
    measure.quiet = options.quiet;
    std::vector<Measurement> measurements;
    ScheduleSummary summary;
    if (!measureCpu(*module, func, plan, options.directory, measure,
                    measurements, summary, error))
      return fail(error);
    std::vector<std::string> leftOut;
    if (!collect(options.directory, dbPath, plan, measurements, cpuSource(),
                 summary.note, leftOut, error))
      return fail(error);
    if (!summary.note.empty())
      std::printf("note: %s\n", summary.note.c_str());
    for (const std::string &line : leftOut)
      std::printf("note: %s\n", line.c_str());
    printChoices(plan, measurements, cpuSource(), stdout);
    std::printf("wrote %s and %s\n",
                joinPath(options.directory, "measurements.json").c_str(),
                dbPath.c_str());
  } else {
    std::string why;
    if (!gpuAvailable(options.device, why)) {
      std::string budget;
      if (options.timeBudgetSeconds > 0) {
        char text[48];
        std::snprintf(text, sizeof text, " --time-budget=%g",
                      options.timeBudgetSeconds);
        budget = text;
      }
      std::printf("not measured here (%s). On the GPU machine, with DIR "
                  "carried there, run:\n  indexpool-tune-measure %s "
                  "--repeat=%u%s%s\n",
                  why.c_str(), options.directory.c_str(), options.repeat,
                  options.verify ? " --verify" : "", budget.c_str());
      return 0;
    }
    MeasureOptions measure;
    measure.directory = options.directory;
    measure.dbPath = dbPath;
    measure.device = options.device;
    measure.repeat = options.repeat;
    measure.verify = options.verify;
    measure.timeBudgetSeconds = options.timeBudgetSeconds;
    measure.quiet = options.quiet;
    measure.tool = kTuneTool;
    code = measurePlan(measure);
  }
  if (code == 0 && options.plot) {
    std::fflush(stdout);
    plot(options);
  }
  return code;
}

} // namespace

int runTuner(const TuneOptions &options) {
  try {
    return tune(options);
  } catch (const std::bad_alloc &) {
    return fail("out of host memory");
  }
}

} // namespace indexpool::tuning
