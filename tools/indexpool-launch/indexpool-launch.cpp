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

#include "indexpool/ToolSupport/Flags.h"
#include "indexpool/ToolSupport/LaunchManifest.h"

using namespace indexpool::tools;

int main(int argc, char **argv) {
  LaunchOptions options;
  std::string stream = "default";
  Flags flags(kLaunchTool,
              "runs kernels compiled by indexpool-compile from their manifest",
              "MANIFEST.json [options]");
  flags.positional("MANIFEST.json", options.manifest)
      .option("--input", "@FILE.npy",
              "one .npy per input buffer, in input order. f32, f16, bf16 and "
              "f8E4M3FN inputs read float32 or float16 arrays (rounded to "
              "nearest even), i8 inputs int8 arrays, i32 inputs int32 "
              "arrays; shapes must match",
              Flags::list(options.inputs))
      .option("--random-inputs", "SEED",
              "instead of --input: draw every input at random, as the "
              "manifest's computes use it (keys, queries, scores, bias, "
              "weights: N(0,1); scales: uniform [1e-3, 1e-2]; quantized keys: "
              "valid codes; valid lengths: [0, N]; expand indices: [-1, 1000]; "
              "refine candidates: token ids of the keys, one in eight -1; "
              "other i32: [0, 100]); the same draws as indexpool-run "
              "--random-inputs=SEED",
              [&](const std::string &option, const std::string &value) {
                options.random = true;
                return Flags::seed(options.seed)(option, value);
              })
      .option("--input-shape", "I:AxB",
              "with --random-inputs: the shape of input I (needed for an "
              "input whose manifest shape has sizes known at launch, e.g. "
              "[?, 64]; otherwise it must be the manifest's)",
              Flags::list(options.inputShapes))
      .option("--output", "@FILE.npy",
              "one .npy per output, in output order: float types as float32 "
              "(decoded values), i8 as int8, i32 as int32",
              Flags::list(options.outputs))
      .flag("--verify",
            "compare every output with the float64 reference run of the "
            "manifest's computes; one line per output, exit 1 if any is out "
            "of tolerance (f32: normwise relative error <= 1e-5; f16/bf16: "
            "one ulp plus one ulp of the largest magnitude; i8/f8 codes: at "
            "most 0.1% differ, by one code or by <= 2^-8 * qmax; i32: equal, "
            "except near-tie swaps of selections of computed logits)",
            options.verify)
      .option("--benchmark", "N",
              "run all launches N more times between CUDA events; print the "
              "median time and the effective GB/s (bytes of all inputs and "
              "outputs over the median time, an output in place of an input "
              "counted once). Outputs in place of inputs keep being updated: "
              "each run is a step on the state the previous one left",
              Flags::number(options.benchmark, "a number of runs"))
      .flag("--copy-anchor",
            "with --benchmark: also time a device-to-device copy of half "
            "those bytes (so as many bytes move) and print its GB/s and the "
            "kernel's ratio to it",
            options.copyAnchor)
      .option("--device", "N", "the CUDA device ordinal (default 0)",
              Flags::deviceOrdinal(options.device))
      .option("--stream", "default|new",
              "the stream every copy, launch and event goes on: the default "
              "stream, or one this tool creates (as a caller of the runtime "
              "passes its own)",
              Flags::choice(stream, {"default", "new"}))
      .flag("--print-device", "print the device's name and facts first",
            options.printDevice)
      .epilog("The CUDA driver is libcuda.so.1, or $INDEXPOOL_LIBCUDA_PATH "
              "when set.");
  if (std::optional<int> exit = flags.parse(argc, argv))
    return *exit;
  options.newStream = stream == "new";
  return launchManifest(options);
}
