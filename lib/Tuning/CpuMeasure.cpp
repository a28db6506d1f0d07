//===- CpuMeasure.cpp - time a plan's CPU candidates in process -----------===//

#include "indexpool/Tuning/CpuMeasure.h"

#include "indexpool/API/Compiler.h"
#include "indexpool/Evaluator/Evaluator.h"
#include "indexpool/API/Tensor.h"
#include "indexpool/Runtime/Storage.h"
#include "indexpool/ToolSupport/Benchmark.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdio>

namespace indexpool::tuning {

namespace {

/// The seed of the inputs every candidate runs on (as on a GPU).
constexpr uint64_t kInputSeed = 1;

bool measureOne(const Module &module, const Plan &plan,
                const std::string &directory, const Candidate &candidate,
                const std::vector<TensorRef> &inputs, unsigned repeat,
                Measurement &out) {
  CompileOptions compile;
  compile.tuningDB = joinPath(directory, candidate.tuningDb);
  // The row the plan was made for (its entries are that row's).
  std::string_view row;
  ::indexpool::target::parseCpuChip(plan.chip, row);
  compile.cpu = std::string(row);
  Status status;
  std::unique_ptr<CpuFunction> function =
      compileForCpu(module, plan.function, compile, status);
  if (!function) {
    out.error = status.message();
    return false;
  }
  std::vector<double> microseconds;
  // The first call is the warm-up: the checks of the shapes, the buffers,
  // the caches.
  if (Status s = function->timeKernel(inputs.data(), inputs.size(), 1,
                                      microseconds);
      !s) {
    out.error = s.message();
    return false;
  }
  microseconds.clear();
  if (Status s = function->timeKernel(inputs.data(), inputs.size(),
                                      int(repeat), microseconds);
      !s) {
    out.error = s.message();
    return false;
  }
  for (double us : microseconds)
    out.samplesMs.push_back(us / 1000.0);
  out.medianMs = tools::median(out.samplesMs);
  return true;
}

} // namespace

bool measureCpu(const Module &module, mlir::Operation *function,
                const Plan &plan, const std::string &directory,
                const CpuMeasureOptions &options,
                std::vector<Measurement> &measurements,
                ScheduleSummary &summary, std::string &error) {
  auto func = mlir::cast<mlir::func::FuncOp>(function);
  mlir::FailureOr<std::vector<ref::HostTensor>> drawn =
      mlir::indexpool::generateRandomInputs(func, plan.inputShapes,
                                            kInputSeed, error);
  if (mlir::failed(drawn))
    return false;
  std::vector<std::vector<char>> storage;
  std::vector<TensorRef> inputs;
  for (const ref::HostTensor &tensor : *drawn) {
    storage.push_back(runtime::packTensor(tensor));
    inputs.emplace_back(storage.back().data(), tensor.type,
                        tensor.shape);
  }
  TimeSource source = cpuSource();
  std::fprintf(stderr, "indexpool-tune: %zu candidates of @%s; times: %s\n",
               plan.candidates.size(), plan.function.c_str(),
               source.label.c_str());
  ScheduleOptions schedule;
  schedule.timeBudgetSeconds = options.timeBudgetSeconds;
  summary = runSchedule(
      plan, schedule, source.label, options.quiet,
      [&](const Candidate &candidate, Measurement &m) {
        m.ok = measureOne(module, plan, directory, candidate, inputs,
                          options.repeat, m);
        if (!m.ok)
          std::fprintf(stderr,
                       "indexpool-tune: candidate %d (%s #%d, %s) "
                       "excluded: %s\n",
                       candidate.id, candidate.op.c_str(), candidate.number,
                       candidate.launch.describe(true).c_str(),
                       m.error.c_str());
      },
      measurements);
  return true;
}

} // namespace indexpool::tuning
