//===- LaunchManifest.cpp - indexpool-launch as a function ----------------===//
//
// Output formats are indexpool-run's (ToolSupport/Report.h). Every bad input
// -- missing or corrupt manifest, missing binary, bad .npy, wrong
// count/shape/dtype, no driver or device -- ends with one line
// "indexpool-launch: error: ..." and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/ToolSupport/LaunchManifest.h"

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Runtime/Compare.h"
#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/InputShape.h"
#include "indexpool/Runtime/Launcher.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/Npy.h"
#include "indexpool/Runtime/ReferenceRun.h"
#include "indexpool/ToolSupport/Inputs.h"
#include "indexpool/ToolSupport/Report.h"
#include "indexpool/ToolSupport/ToolError.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <new>

namespace indexpool::tools {

using namespace runtime;
using ref::HostTensor;

namespace {

int fail(const std::string &message) { return toolError(kLaunchTool, message); }

/// The inputs' shapes for --random-inputs: --input-shape where given, else
/// the manifest's, which must then have no sizes.
bool randomInputShapes(const Manifest &manifest, const LaunchOptions &options,
                       std::vector<std::vector<int64_t>> &shapes,
                       std::string &error) {
  std::vector<const Buffer *> buffers = manifest.inputs();
  std::map<size_t, std::vector<int64_t>> given;
  for (const std::string &text : options.inputShapes)
    if (!parseInputShape(text, buffers.size(), given, error))
      return false;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer &buffer = *buffers[i];
    if (auto it = given.find(i); it != given.end()) {
      shapes.push_back(it->second);
      continue;
    }
    bool symbolic =
        std::any_of(buffer.dims.begin(), buffer.dims.end(),
                    [](const SizeOperand &d) { return d.isSize(); });
    if (symbolic) {
      std::string example;
      for (const SizeOperand &d : buffer.dims)
        example += (example.empty() ? "" : "x") +
                   (d.isSize() ? std::string("N") : std::to_string(d.value));
      error = "input " + std::to_string(i) + " has shape " +
              symbolicShapeString(buffer) + ": give --input-shape=" +
              std::to_string(i) + ":" + example + " or --input=@file.npy";
      return false;
    }
    shapes.push_back(buffer.shape);
  }
  return true;
}

/// The type of an input buffer, for the checks of the --input files.
InputType inputType(const Buffer &buffer) {
  return {buffer.type, buffer.shape,
          tensorTypeString(buffer.shape, buffer.type)};
}

/// --copy-anchor: a device-to-device copy of half the kernel's bytes (a
/// copy of B bytes reads B and writes B: as many bytes move), its GB/s and
/// the kernel's ratio to it.
bool printCopyAnchor(Launcher &launcher, unsigned runs, double bytes,
                     const BenchmarkStats &kernel, std::string &error) {
  size_t copyBytes = std::max<size_t>(size_t(bytes / 2), 1);
  std::vector<double> milliseconds;
  if (!launcher.benchmarkCopy(copyBytes, runs, milliseconds, error))
    return false;
  BenchmarkStats copy = benchmarkStats(milliseconds, 2.0 * double(copyBytes));
  std::printf("copy_median_ms=%.4f copy_GBps=%.3f ratio_to_copy=%.3f\n",
              copy.medianMs, copy.gbps,
              copy.gbps > 0 ? kernel.gbps / copy.gbps : 0.0);
  return true;
}

int launch(const LaunchOptions &options) {
  std::string error;
  if (options.manifest.empty())
    return fail("no manifest (indexpool-launch MANIFEST.json [options]; see "
                "--help)");
  if (options.random && !options.inputs.empty())
    return fail("--input and --random-inputs cannot be combined");
  if (options.copyAnchor && options.benchmark == 0)
    return fail("--copy-anchor needs --benchmark=N");
  if (!options.random && !options.inputShapes.empty())
    return fail("--input-shape only applies with --random-inputs");

  Manifest symbolic;
  if (!loadManifest(options.manifest, symbolic, error))
    return fail(error);
  std::vector<const Buffer *> inputBuffers = symbolic.inputs();
  std::vector<const Buffer *> outputBuffers = symbolic.outputs();
  if (!options.outputs.empty() &&
      options.outputs.size() != outputBuffers.size())
    return fail(options.manifest + " has " +
                plural(outputBuffers.size(), "output") + ", got " +
                std::to_string(options.outputs.size()) + " --output");
  if (options.verify && symbolic.computes.empty())
    return fail("--verify needs the manifest's computes, and " +
                options.manifest + " has none");

  // The inputs' shapes bind the manifest's sizes, checked before the device
  // is touched (unless a size is the device's SM count).
  std::vector<std::vector<int64_t>> shapes;
  std::vector<NpyArray> arrays;
  if (options.random) {
    if (!randomInputShapes(symbolic, options, shapes, error))
      return fail(error);
  } else {
    if (options.inputs.size() != inputBuffers.size())
      return fail(options.manifest + " takes " +
                  plural(inputBuffers.size(), "input") + ", got " +
                  std::to_string(options.inputs.size()) +
                  " --input (one --input=@FILE.npy per input, or "
                  "--random-inputs=SEED)");
    // Every file is read before any is checked: their shapes bind the sizes.
    for (size_t i = 0; i < options.inputs.size(); ++i)
      if (!readInputFile(i, options.inputs[i], arrays.emplace_back(), error))
        return fail(error);
    // A manifest without sizes keeps its own shapes: convertInput says
    // which file does not fit.
    for (size_t i = 0; i < arrays.size(); ++i)
      shapes.push_back(symbolic.needsBinding() ? arrays[i].shape
                                               : inputBuffers[i]->shape);
  }
  std::unique_ptr<CudaDevice> device;
  if (symbolic.needsBinding() && symbolic.usesSmCount() &&
      !(device = CudaDevice::open(error, options.device)))
    return fail(error);
  Manifest manifest;
  if (!bindSizes(symbolic, shapes,
                 device ? device->info().multiprocessorCount : 0, manifest,
                 error))
    return fail(error);
  inputBuffers = manifest.inputs();
  outputBuffers = manifest.outputs();

  for (const Buffer &buffer : manifest.buffers)
    if (!fitsHostLimit(buffer.shape) &&
        (buffer.role != BufferRole::Temporary || options.verify))
      return fail(std::string(bufferRoleName(buffer.role)) + " buffer " +
                  std::to_string(buffer.id) + " (" +
                  tensorTypeString(buffer.shape, buffer.type) +
                  ") is too large for the host side (" + hostElementLimit() +
                  ", as indexpool-run)");

  std::string image;
  if (!readBinary(manifest, image, error))
    return fail(error);

  // Inputs, checked before the device is touched.
  std::vector<HostTensor> inputs;
  if (options.random) {
    inputs = generateRandomInputs(manifest, options.seed);
  } else {
    for (size_t i = 0; i < inputBuffers.size(); ++i)
      if (!convertInput(i, options.inputs[i], arrays[i],
                        inputType(*inputBuffers[i]), "input",
                        inputs.emplace_back(), error))
        return fail(error);
  }

  if (!device && !(device = CudaDevice::open(error, options.device)))
    return fail(error);
  if (options.printDevice)
    std::printf("device: %s\n", device->info().describe().c_str());
  // --stream=new: a stream of the tool's own, as a serving engine passes
  // its own; destroyed after the launcher (declared first).
  struct OwnedStream {
    CudaDevice &device;
    CudaDevice::StreamHandle handle = nullptr;
    ~OwnedStream() { device.destroyStream(handle); }
  } stream{*device};
  if (options.newStream && !device->createStream(stream.handle, error))
    return fail(error);
  std::unique_ptr<Launcher> launcher =
      Launcher::create(*device, manifest, image, error, stream.handle);
  if (!launcher)
    return fail(error);
  std::vector<HostTensor> results;
  if (!launcher->upload(inputs, error) || !launcher->run(error) ||
      !launcher->download(results, error))
    return fail(error);

  std::vector<std::string> types;
  for (const Buffer *buffer : outputBuffers)
    types.push_back(tensorTypeString(buffer->shape, buffer->type));
  ReportOptions report;
  report.tool = kLaunchTool;
  report.outputFiles = options.outputs;
  report.outputNoun = "output";
  report.verify = options.verify;
  report.benchmarkRuns = options.benchmark;
  // The reference run of the computes on the same inputs; pages entry by
  // entry, selections with the near-tie rule.
  report.compare = [&](std::vector<Comparison> &comparisons,
                       std::string &error) {
    ReferenceValues values;
    if (!runReference(manifest, std::move(inputs), values, error))
      return false;
    for (size_t i = 0; i < results.size(); ++i)
      comparisons.push_back(
          compareResult(manifest, values, outputBuffers[i]->id, results[i]));
    return true;
  };
  // An output in place of an input counts once.
  report.benchmarkBytes = double(launcher->inputOutputBytes());
  report.timeRuns = [&](std::vector<double> &milliseconds,
                        std::string &error) {
    return launcher->benchmark(options.benchmark, milliseconds, error);
  };
  if (options.copyAnchor)
    report.afterBenchmark = [&](const BenchmarkStats &kernel,
                                std::string &error) {
      return printCopyAnchor(*launcher, options.benchmark,
                             report.benchmarkBytes, kernel, error);
    };
  return reportResults(report, results, types);
}

} // namespace

int launchManifest(const LaunchOptions &options) {
  try {
    return launch(options);
  } catch (const std::bad_alloc &) {
    return fail("out of host memory");
  }
}

} // namespace indexpool::tools
