//===- Measure.cpp - time a plan's GPU candidates -------------------------===//
//
// Every candidate runs on the same inputs, drawn once from the first
// candidate's manifest (all candidates compile the same function), so that
// only the launch configuration differs between their times. A candidate
// that fails to load, run or verify is excluded and reported, never chosen.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Tuning/Measure.h"

#include "indexpool/Runtime/Compare.h"
#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/Launcher.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/ReferenceRun.h"
#include "indexpool/ToolSupport/Benchmark.h"
#include "indexpool/ToolSupport/ToolError.h"
#include "indexpool/Tuning/Collect.h"
#include "indexpool/Tuning/Plan.h"
#include "indexpool/Tuning/Schedule.h"

#include <chrono>
#include <cstdio>
#include <new>
#include <optional>

namespace indexpool::tuning {

using namespace runtime;

namespace {

/// The seed of the inputs every candidate runs on.
constexpr uint64_t kInputSeed = 1;

/// The fake driver of the tests names its device so: its event times are
/// the host's, not a GPU's.
bool isFakeDevice(const DeviceInfo &info) {
  return info.name.find("fake") != std::string::npos;
}

/// What all candidates share: the inputs and, with --verify, the reference.
struct SharedRun {
  bool ready = false;
  std::vector<ref::HostTensor> inputs;
  std::optional<ReferenceValues> reference;
};

/// Loads, runs and times one candidate; false with `error` excludes it.
bool measureCandidate(CudaDevice &device, const MeasureOptions &options,
                      const Plan &plan, const Candidate &candidate,
                      SharedRun &shared, Measurement &out,
                      std::string &error) {
  Manifest symbolic, manifest;
  std::string image;
  if (!loadManifest(joinPath(options.directory, candidate.manifest), symbolic,
                    error) ||
      !bindSizes(symbolic, plan.inputShapes, device.info().multiprocessorCount,
                 manifest, error) ||
      !readBinary(manifest, image, error))
    return false;
  if (!shared.ready) {
    auto began = std::chrono::steady_clock::now();
    shared.inputs = generateRandomInputs(manifest, kInputSeed);
    if (options.verify) {
      ReferenceValues values;
      if (!runReference(manifest, shared.inputs, values, error))
        return false;
      shared.reference = std::move(values);
    }
    shared.ready = true;
    out.setupSeconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - began)
                           .count();
  }
  std::unique_ptr<Launcher> launcher =
      Launcher::create(device, manifest, image, error);
  if (!launcher)
    return false;
  // The first run is the warm-up (module load, caches) and, with --verify,
  // the run that is checked.
  if (!launcher->upload(shared.inputs, error) || !launcher->run(error))
    return false;
  if (shared.reference) {
    std::vector<ref::HostTensor> results;
    if (!launcher->download(results, error))
      return false;
    std::vector<const Buffer *> outputs = manifest.outputs();
    for (size_t i = 0; i < results.size() && i < outputs.size(); ++i) {
      Comparison comparison = compareResult(manifest, *shared.reference,
                                            outputs[i]->id, results[i]);
      if (!comparison.ok) {
        error = "output #" + std::to_string(i) + " fails --verify: " +
                comparison.reason;
        return false;
      }
    }
  }
  if (!launcher->benchmark(options.repeat, out.samplesMs, error))
    return false;
  out.medianMs = tools::median(out.samplesMs);
  return true;
}

int measure(const MeasureOptions &options) {
  auto fail = [&](const std::string &message) {
    return tools::toolError(options.tool, message);
  };
  if (options.directory.empty())
    return fail("no plan folder (" + options.tool + " DIR; see --help)");
  if (options.repeat == 0)
    return fail("--repeat must be at least 1");
  if (options.prune < 0)
    return fail("--prune must be at least 1 (candidate 0 is the cost "
                "model's choice)");
  if (!(options.timeBudgetSeconds >= 0))
    return fail("--time-budget must be a number of seconds > 0");
  Plan plan;
  std::string error;
  if (!loadPlan(options.directory, plan, error))
    return fail(error);
  if (plan.isCpu())
    return fail(joinPath(options.directory, "plan.json") +
                " is a CPU plan: indexpool-tune measures it itself");

  std::unique_ptr<CudaDevice> device = CudaDevice::open(error, options.device);
  if (!device)
    return fail(error);
  TimeSource source =
      isFakeDevice(device->info()) ? fakeDriverSource() : gpuSource();
  std::fprintf(stderr, "%s: %zu candidates of @%s on %s; times: %s\n",
               options.tool.c_str(), plan.candidates.size(),
               plan.function.c_str(), device->info().describe().c_str(),
               source.label.c_str());
  std::vector<int> order = measurementOrder(plan, options.prune);
  double kernelSeconds =
      estimatedKernelSeconds(plan, order, options.repeat + 1);
  char budget[64] = "";
  if (options.timeBudgetSeconds > 0)
    std::snprintf(budget, sizeof budget, ", time budget %.4g s",
                  options.timeBudgetSeconds);
  if (kernelSeconds >= 0)
    std::fprintf(stderr,
                 "%s: %zu to measure%s; their kernels, %u runs each, take "
                 "%.3g s by the cost model's estimate (loads, uploads and "
                 "--verify come on top)\n",
                 options.tool.c_str(), order.size(), budget,
                 options.repeat + 1, kernelSeconds);

  SharedRun shared;
  std::vector<Measurement> measurements;
  ScheduleOptions schedule{options.prune, options.timeBudgetSeconds};
  ScheduleSummary summary = runSchedule(
      plan, schedule, source.label, options.quiet,
      [&](const Candidate &candidate, Measurement &m) {
        m.ok = measureCandidate(*device, options, plan, candidate, shared, m,
                                m.error);
        if (!m.ok)
          std::fprintf(stderr,
                       "%s: candidate %d (%s #%d, %s) excluded: %s\n",
                       options.tool.c_str(), candidate.id,
                       candidate.op.c_str(), candidate.number,
                       candidate.launch.describe(false).c_str(),
                       m.error.c_str());
      },
      measurements);
  std::string dbPath = options.dbPath.empty()
                           ? joinPath(options.directory, "tuning-db.json")
                           : options.dbPath;
  std::vector<std::string> leftOut;
  if (!collect(options.directory, dbPath, plan, measurements, source,
               summary.note, leftOut, error))
    return fail(error);
  if (!summary.note.empty())
    std::printf("note: %s\n", summary.note.c_str());
  for (const std::string &line : leftOut)
    std::printf("note: %s\n", line.c_str());
  printChoices(plan, measurements, source, stdout);
  std::printf("wrote %s and %s\n",
              joinPath(options.directory, "measurements.json").c_str(),
              dbPath.c_str());
  return 0;
}

} // namespace

bool gpuAvailable(int device, std::string &why) {
  return CudaDevice::open(why, device) != nullptr;
}

int measurePlan(const MeasureOptions &options) {
  try {
    return measure(options);
  } catch (const std::bad_alloc &) {
    return tools::toolError(options.tool, "out of host memory");
  }
}

} // namespace indexpool::tuning
