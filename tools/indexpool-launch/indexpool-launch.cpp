//===- indexpool-launch.cpp - run compiled kernels from their manifest ----===//
//
//   indexpool-launch MANIFEST.json [--input=@a.npy ... | --random-inputs=SEED
//       [--input-shape=I:AxB ...]] [--output=@out.npy ...] [--verify]
//       [--benchmark=N] [--device=N] [--stream=default|new]
//
// The command line of indexpool::tools::launchManifest
// (ToolSupport/LaunchManifest.h), which runs the kernels that
// indexpool-compile wrote on an NVIDIA GPU and checks them against the
// float64 reference. No LLVM or MLIR: this builds on a GPU machine that has
// only CMake and a C++ compiler (-DINDEXPOOL_COMPILER=OFF), where the
// artifacts are carried. Every bad input ends with one line
// "indexpool-launch: error: ..." and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/ToolSupport/ParseNumber.h"
#include "indexpool/Runtime/Version.h"
#include "indexpool/ToolSupport/LaunchManifest.h"
#include "indexpool/ToolSupport/ToolError.h"

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>

using namespace indexpool::tools;

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
                        expand indices: [-1, 1000]; refine candidates:
                        token ids of the keys, one in eight -1; other i32:
                        [0, 100]); the same draws as indexpool-run
                        --random-inputs=SEED
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
  --version             the IndexPool version

The CUDA driver is libcuda.so.1, or $INDEXPOOL_LIBCUDA_PATH when set.
)";

using indexpool::tools::parseNumber;

/// Parses argv; false with `error` on a mistake.
bool parseOptions(int argc, char **argv, LaunchOptions &options, bool &help,
                  bool &version, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-help" || arg == "-h") {
      help = true;
      return true;
    }
    if (arg == "--version") {
      version = true;
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

} // namespace

int main(int argc, char **argv) {
  LaunchOptions options;
  bool help = false, version = false;
  std::string error;
  if (!parseOptions(argc, argv, options, help, version, error))
    return toolError(kLaunchTool, error);
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (version) {
    std::printf("indexpool-launch (IndexPool %s)\n",
                indexpool::runtime::version());
    return 0;
  }
  return launchManifest(options);
}
