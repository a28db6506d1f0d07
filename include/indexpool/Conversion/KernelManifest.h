//===- KernelManifest.h - compile for the GPU and describe it ---*- C++ -*-===//
#ifndef INDEXPOOL_CONVERSION_KERNELMANIFEST_H
#define INDEXPOOL_CONVERSION_KERNELMANIFEST_H

#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::indexpool {

/// A function compiled for one GPU.
struct GPUCompilation {
  /// The module after --indexpool-to-nvvm (host function + gpu.binary).
  OwningOpRef<ModuleOp> module;
  /// PTX text (format "isa") or cubin bytes (format "bin").
  std::string binary;
  /// The manifest, format_version 2 (docs/manifest.md), naming its binary
  /// `binaryPath`.
  llvm::json::Object manifest;
};

/// Compiles `func` (static shapes, made of indexpool ops) of `module` with
/// `options` and describes the kernels; one-line `error` on failure (dynamic
/// shapes, host code that is not a launch, pipeline failure).
FailureOr<GPUCompilation> compileForGPU(ModuleOp module, func::FuncOp func,
                                        const GPUPipelineOptions &options,
                                        StringRef binaryPath,
                                        std::string &error);

} // namespace mlir::indexpool

#endif // INDEXPOOL_CONVERSION_KERNELMANIFEST_H
