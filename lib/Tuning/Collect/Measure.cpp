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
#include "indexpool/Tuning/Progress.h"

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
    shared.inputs = generateRandomInputs(manifest, kInputSeed);
    if (options.verify) {
      ReferenceValues values;
      if (!runReference(manifest, shared.inputs, values, error))
        return false;
      shared.reference = std::move(values);
    }
    shared.ready = true;
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

  SharedRun shared;
  std::vector<Measurement> measurements;
  {
    Progress progress(int(plan.candidates.size()), source.label,
                      options.quiet);
    for (const Candidate &candidate : plan.candidates) {
      Measurement &m = measurements.emplace_back();
      m.candidate = candidate.id;
      m.ok = measureCandidate(*device, options, plan, candidate, shared, m,
                              m.error);
      if (!m.ok)
        std::fprintf(stderr,
                     "%s: candidate %d (%s #%d, %s) excluded: %s\n",
                     options.tool.c_str(), candidate.id, candidate.op.c_str(),
                     candidate.number,
                     candidate.launch.describe(false).c_str(),
                     m.error.c_str());
      progress.step(candidate.id, m.ok, m.medianMs);
    }
  }
  std::string dbPath = options.dbPath.empty()
                           ? joinPath(options.directory, "tuning-db.json")
                           : options.dbPath;
  if (!collect(options.directory, dbPath, plan, measurements, source, error))
    return fail(error);
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
