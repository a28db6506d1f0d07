//===- LaunchManifest.h - indexpool-launch as a function --------*- C++ -*-===//
//
// Runs the kernels that indexpool-compile wrote (cubin or PTX, described by
// the JSON manifest of docs/manifest.md) on an NVIDIA GPU through the CUDA
// driver (loaded with dlopen), for the inputs' sizes, and checks them
// against the float64 reference (lib/Reference) with the tolerances of
// indexpool-run --verify. No LLVM or MLIR: it builds on a GPU machine that
// has only CMake and a C++ compiler (-DINDEXPOOL_COMPILER=OFF).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLSUPPORT_LAUNCHMANIFEST_H
#define INDEXPOOL_TOOLSUPPORT_LAUNCHMANIFEST_H

#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::tools {

/// The program the error lines name.
constexpr const char *kLaunchTool = "indexpool-launch";

/// indexpool-launch's command line (its --help says what each does).
struct LaunchOptions {
  std::string manifest;
  /// --input=@FILE.npy, one per input buffer.
  std::vector<std::string> inputs;
  /// --output=@FILE.npy, none or one per output buffer.
  std::vector<std::string> outputs;
  /// --input-shape=I:AxB (with --random-inputs).
  std::vector<std::string> inputShapes;
  /// --stream=new.
  bool newStream = false;
  /// --random-inputs=SEED.
  bool random = false;
  uint64_t seed = 0;
  bool verify = false;
  /// --benchmark=N.
  unsigned benchmark = 0;
  bool copyAnchor = false;
  /// --device=N: the CUDA device ordinal.
  int device = 0;
  bool printDevice = false;
};

/// Loads the manifest, binds its sizes to the inputs' shapes, runs it and
/// reports the results. Returns the exit code: 0, or 1 after the one line
/// "indexpool-launch: error: ..." (every bad input, no driver or device,
/// results out of tolerance, host memory exhausted).
int launchManifest(const LaunchOptions &options);

} // namespace indexpool::tools

#endif // INDEXPOOL_TOOLSUPPORT_LAUNCHMANIFEST_H
