//===- indexpool-launch.cpp - run compiled kernels from their manifest ----===//
//
//   indexpool-launch MANIFEST.json [--input=@a.npy ... | --random-inputs=SEED
//       [--input-shape=I:AxB ...]] [--output=@out.npy ...] [--verify]
//       [--benchmark=N] [--device=N] [--stream=default|new]
//
// Runs the kernels that indexpool-compile wrote (cubin or PTX, described by
// the JSON manifest of docs/manifest.md) on an NVIDIA GPU through the CUDA
// driver (loaded with dlopen), for the inputs' sizes (a manifest's sizes
// are evaluated for the inputs given, or for --input-shape), and checks them
// against the float64 reference (lib/Reference) with the tolerances of
// indexpool-run --verify.
// No LLVM or MLIR: this builds on a GPU machine that has only CMake and a
// C++ compiler (-DINDEXPOOL_COMPILER=OFF), where the artifacts are carried.
//
// Output formats are indexpool-run's: one "result #i (tensor<...>): ...
// -> ok" line per output with --verify, "median_ms=... effective_GBps=..."
// with --benchmark. Every bad input -- missing or corrupt manifest, missing
// binary, bad .npy, wrong count/shape/dtype, no driver or device -- ends with
// one line "indexpool-launch: error: ..." and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Reference/Numerics.h"
#include "indexpool/Runtime/Compare.h"
#include "indexpool/Runtime/Cuda.h"
#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/InputShape.h"
#include "indexpool/Runtime/Launcher.h"
#include "indexpool/Runtime/Manifest.h"
#include "indexpool/Runtime/Npy.h"
#include "indexpool/Runtime/ReferenceRun.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <string>
#include <string_view>
#include <vector>

using namespace indexpool::runtime;
namespace ref = indexpool::ref;
using ref::ElementType;
using ref::HostTensor;

namespace {

constexpr const char *kUsage = R"(indexpool-launch: runs kernels compiled by indexpool-compile from their manifest

usage: indexpool-launch MANIFEST.json [options]

  --input=@FILE.npy     one .npy per input buffer, in input order. f32, f16,
                        bf16 and f8E4M3FN inputs read float32 or float16
                        arrays (rounded to nearest even), i8 inputs int8
                        arrays, i32 inputs int32 arrays; shapes must match
  --random-inputs=SEED  instead of --input: draw every input at random, as
                        the manifest's computes use it (keys, queries, scores,
                        bias, weights: N(0,1); scales: uniform [1e-3, 1e-2];
                        quantized keys: valid codes; valid lengths: [0, N];
                        expand indices: [-1, 1000]; other i32: [0, 100]); the
                        same draws as indexpool-run --random-inputs=SEED
  --input-shape=I:AxB   with --random-inputs: the shape of input I (needed
                        for an input whose manifest shape has sizes known at
                        launch, e.g. [?, 64]; otherwise it must be the
                        manifest's)
  --output=@FILE.npy    one .npy per output, in output order: float types as
                        float32 (decoded values), i8 as int8, i32 as int32
  --verify              compare every output with the float64 reference run
                        of the manifest's computes; one line per output, exit
                        1 if any is out of tolerance (f32: normwise relative
                        error <= 1e-5; f16/bf16: one ulp plus one ulp of the
                        largest magnitude; i8/f8 codes: at most 0.1% differ,
                        by one code or by <= 2^-8 * qmax; i32: equal, except
                        near-tie swaps of selections of computed logits)
  --benchmark=N         run all launches N more times between CUDA events;
                        print the median time and the effective GB/s (bytes
                        of all inputs and outputs over the median time, an
                        output in place of an input counted once). Outputs
                        in place of inputs keep being updated: each run is
                        a step on the state the previous one left
  --copy-anchor         with --benchmark: also time a device-to-device copy
                        of half those bytes (so as many bytes move) and print
                        its GB/s and the kernel's ratio to it
  --device=N            the CUDA device ordinal (default 0)
  --stream=default|new  the stream every copy, launch and event goes on: the
                        default stream, or one this tool creates (as a
                        caller of the runtime passes its own)
  --print-device        print the device's name and facts first
  --help                this text

The CUDA driver is libcuda.so.1, or $INDEXPOOL_LIBCUDA_PATH when set.
)";

int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "indexpool-launch: error: %s\n", message.c_str());
  return 1;
}

struct Options {
  std::string manifest;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> inputShapes;
  bool newStream = false;
  bool random = false;
  uint64_t seed = 0;
  bool verify = false;
  unsigned benchmark = 0;
  bool copyAnchor = false;
  int device = 0;
  bool printDevice = false;
  bool help = false;
};

template <typename T> bool parseNumber(std::string_view text, T &value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                   value);
  return ec == std::errc() && end == text.data() + text.size() &&
         !text.empty();
}

/// Parses argv; false with `error` on a mistake.
bool parseOptions(int argc, char **argv, Options &options,
                  std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-help" || arg == "-h") {
      options.help = true;
      return true;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (!options.manifest.empty()) {
        error = "unexpected argument '" + std::string(arg) +
                "' (one MANIFEST.json only; see --help)";
        return false;
      }
      options.manifest = arg;
      continue;
    }
    std::string_view name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string_view value;
    bool hasValue = false;
    if (size_t equals = name.find('='); equals != std::string_view::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
      hasValue = true;
    }
    std::string option = "--" + std::string(name);
    auto needValue = [&](const char *example) {
      if (hasValue && !value.empty())
        return true;
      error = option + " needs a value (" + option + "=" + example + ")";
      return false;
    };
    auto noValue = [&]() {
      if (!hasValue)
        return true;
      error = option + " takes no value";
      return false;
    };
    auto bad = [&](const char *expected) {
      error = option + "=" + std::string(value) + ": expected " + expected;
      return false;
    };
    if (name == "input") {
      if (!needValue("@FILE.npy"))
        return false;
      options.inputs.emplace_back(value);
    } else if (name == "output") {
      if (!needValue("@FILE.npy"))
        return false;
      options.outputs.emplace_back(value);
    } else if (name == "input-shape") {
      if (!needValue("0:1024x128"))
        return false;
      options.inputShapes.emplace_back(value);
    } else if (name == "stream") {
      if (!needValue("new"))
        return false;
      if (value != "default" && value != "new")
        return bad("default or new");
      options.newStream = value == "new";
    } else if (name == "random-inputs") {
      if (!needValue("SEED"))
        return false;
      if (!parseNumber(value, options.seed))
        return bad("an unsigned integer seed");
      options.random = true;
    } else if (name == "benchmark") {
      if (!needValue("N"))
        return false;
      if (!parseNumber(value, options.benchmark))
        return bad("a number of runs");
    } else if (name == "device") {
      if (!needValue("N"))
        return false;
      if (!parseNumber(value, options.device) || options.device < 0)
        return bad("a device ordinal (0, 1, ...)");
    } else if (name == "verify") {
      if (!noValue())
        return false;
      options.verify = true;
    } else if (name == "copy-anchor") {
      if (!noValue())
        return false;
      options.copyAnchor = true;
    } else if (name == "print-device") {
      if (!noValue())
        return false;
      options.printDevice = true;
    } else {
      error = "unknown option '" + std::string(arg.substr(0, arg.find('='))) +
              "' (see --help)";
      return false;
    }
  }
  return true;
}

/// "--input=@a.npy" and "--input=a.npy" name the same file.
std::string stripAt(const std::string &path) {
  return !path.empty() && path[0] == '@' ? path.substr(1) : path;
}

/// The NumPy name of a canonical descriptor, for messages.
std::string dtypeName(const std::string &dtype) {
  static const std::pair<const char *, const char *> names[] = {
      {"<f2", "float16"}, {"<f4", "float32"}, {"<f8", "float64"},
      {"|i1", "int8"},    {"|u1", "uint8"},   {"<i4", "int32"},
      {"<i8", "int64"}};
  for (auto [descriptor, name] : names)
    if (dtype == descriptor)
      return name;
  return dtype;
}

/// "an int32", "a float32".
std::string withArticle(const std::string &noun) {
  bool vowel = !noun.empty() && std::strchr("aeiou", noun[0]);
  return (vowel ? "an " : "a ") + noun;
}

/// "1 input", "2 inputs".
std::string plural(size_t count, const std::string &noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}



/// Reads the --input files (their shapes bind the manifest's sizes).
bool readInputFiles(const Options &options, std::vector<NpyArray> &arrays,
                    std::string &error) {
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    std::string why;
    if (!readNpy(stripAt(options.inputs[i]), arrays.emplace_back(), why)) {
      error = "input #" + std::to_string(i) + ": " + why;
      return false;
    }
  }
  return true;
}

/// The inputs' shapes for --random-inputs: --input-shape where given, else
/// the manifest's, which must then have no sizes.
bool randomInputShapes(const Manifest &manifest, const Options &options,
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

bool loadInputs(const Manifest &manifest, const Options &options,
                const std::vector<NpyArray> &arrays,
                std::vector<HostTensor> &inputs, std::string &error) {
  std::vector<const Buffer *> buffers = manifest.inputs();
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer &buffer = *buffers[i];
    std::string type = tensorTypeString(buffer.shape, buffer.type);
    std::string path = stripAt(options.inputs[i]);
    std::string which = "input #" + std::to_string(i) + " (" + path + ")";
    const NpyArray &array = arrays[i];
    std::string why;
    std::string expected = expectedNpyDtypes(array.dtype, buffer.type);
    if (!expected.empty()) {
      error = which + " is " + withArticle(dtypeName(array.dtype)) +
              " array, but input #" + std::to_string(i) + " of type " + type +
              " needs " + withArticle(expected) + " array";
      return false;
    }
    if (array.shape != buffer.shape) {
      error = which + " is " + ref::shapeString(array.shape) + ", but input #" +
              std::to_string(i) + " has type " + type;
      return false;
    }
    HostTensor t;
    if (!npyToHostTensor(array, buffer.type, t, why)) {
      error = which + ": " + why;
      return false;
    }
    inputs.push_back(std::move(t));
  }
  return true;
}

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// A double as indexpool-run prints it (llvm::raw_ostream: "%e", "nan",
/// "INF").
std::string formatValue(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-INF" : "INF";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%e", value);
  return buffer;
}

int run(const Options &options) {
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
    if (!readInputFiles(options, arrays, error))
      return fail(error);
    // A manifest without sizes keeps its own shapes: loadInputs says which
    // file does not fit.
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
    if (buffer.numElements() > kMaxHostElements &&
        (buffer.role != BufferRole::Temporary || options.verify))
      return fail(std::string(bufferRoleName(buffer.role)) + " buffer " +
                  std::to_string(buffer.id) + " (" +
                  tensorTypeString(buffer.shape, buffer.type) +
                  ") is too large for the host side (at most 2^30 elements, "
                  "as indexpool-run)");

  std::string image;
  if (!readBinary(manifest, image, error))
    return fail(error);

  // Inputs, checked before the device is touched.
  std::vector<HostTensor> inputs;
  if (options.random)
    inputs = generateRandomInputs(manifest, options.seed);
  else if (!loadInputs(manifest, options, arrays, inputs, error))
    return fail(error);

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

  for (size_t i = 0; i < options.outputs.size(); ++i) {
    std::string why;
    if (!writeNpy(stripAt(options.outputs[i]), hostTensorToNpy(results[i]),
                  why))
      return fail("output #" + std::to_string(i) + ": " + why);
  }

  auto resultType = [&](size_t i) {
    return tensorTypeString(outputBuffers[i]->shape, outputBuffers[i]->type);
  };
  if (options.outputs.empty() && !options.verify && options.benchmark == 0) {
    for (size_t i = 0; i < results.size(); ++i) {
      std::string line =
          "result #" + std::to_string(i) + " (" + resultType(i) + "):";
      size_t shown = std::min<size_t>(results[i].data.size(), 8);
      for (size_t j = 0; j < shown; ++j)
        line += (j ? ", " : " ") + formatValue(results[i].data[j]);
      if (shown < results[i].data.size())
        line += ", ... (" + std::to_string(results[i].data.size()) + " values)";
      std::printf("%s\n", line.c_str());
    }
  }

  // --verify: the reference run of the computes on the same inputs.
  int failures = 0;
  if (options.verify) {
    ReferenceValues values;
    if (!runReference(manifest, std::move(inputs), values, error))
      return fail(error);
    for (size_t i = 0; i < results.size(); ++i) {
      int64_t id = outputBuffers[i]->id;
      // Pages entry by entry, selections with the near-tie rule.
      Comparison comparison = compareResult(manifest, values, id, results[i]);
      failures += !comparison.ok;
      std::printf("result #%zu (%s): %s\n", i, resultType(i).c_str(),
                  formatComparison(comparison, results[i].type).c_str());
    }
  }

  // --benchmark: N timed runs after the first.
  if (options.benchmark > 0) {
    std::vector<double> milliseconds;
    if (!launcher->benchmark(options.benchmark, milliseconds, error))
      return fail(error);
    double ms = median(milliseconds);
    double bytes = double(launcher->inputOutputBytes());
    double gbps = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
    std::printf("median_ms=%.4f effective_GBps=%.3f\n", ms, gbps);
    if (options.copyAnchor) {
      // A copy of B bytes reads B and writes B: half the kernel's bytes.
      size_t copyBytes = std::max<size_t>(size_t(bytes / 2), 1);
      std::vector<double> copyMilliseconds;
      if (!launcher->benchmarkCopy(copyBytes, options.benchmark,
                                   copyMilliseconds, error))
        return fail(error);
      double copyMs = median(copyMilliseconds);
      double copyGbps =
          copyMs > 0 ? 2.0 * double(copyBytes) / (copyMs * 1e-3) / 1e9 : 0.0;
      std::printf("copy_median_ms=%.4f copy_GBps=%.3f ratio_to_copy=%.3f\n",
                  copyMs, copyGbps, copyGbps > 0 ? gbps / copyGbps : 0.0);
    }
  }

  if (failures)
    return fail(std::to_string(failures) + " of " +
                std::to_string(results.size()) +
                " results are out of tolerance (--verify)");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  std::string error;
  if (!parseOptions(argc, argv, options, error))
    return fail(error);
  if (options.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  try {
    return run(options);
  } catch (const std::bad_alloc &) {
    return fail("out of host memory");
  }
}
