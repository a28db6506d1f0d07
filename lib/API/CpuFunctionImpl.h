//===- CpuFunctionImpl.h - what a CpuFunction holds (private) ---*- C++ -*-===//
#ifndef INDEXPOOL_LIB_API_CPUFUNCTIONIMPL_H
#define INDEXPOOL_LIB_API_CPUFUNCTIONIMPL_H

#include "ModuleImpl.h"

#include "indexpool/API/CpuFunction.h"
#include "indexpool/Tooling/CPUJit.h"

#include <memory>
#include <vector>

namespace indexpool {

struct CpuFunction::Impl {
  /// Declared first, destroyed last: the context of `module` and `func`.
  std::shared_ptr<Module::Impl> owner;
  /// The function as compiled (specialized to CompileOptions::inputShapes),
  /// in a module of its own, for the shape checks of every call.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  FunctionSignature signature;
  std::unique_ptr<mlir::indexpool::CPUJitFunction> jit;
  /// Functions of the paged layout read page ids, slots and lengths: their
  /// integer inputs are checked on every call (they are small), not only
  /// their shapes.
  bool checksValues = false;

  /// The shapes of the last validated call and its results.
  bool validated = false;
  std::vector<std::vector<int64_t>> inputShapes;
  std::vector<std::vector<int64_t>> resultShapes;
  /// Reused by every call: the arguments' addresses and shapes, and the
  /// contiguous copies of results the compiled code left strided.
  std::vector<const void *> addresses;
  std::vector<llvm::ArrayRef<int64_t>> shapeRefs;
  std::vector<std::vector<char>> stridedCopies;

  /// Checks `inputs` and predicts the result shapes (resultShapes).
  Status validate(const TensorRef *inputs, size_t numInputs);
  /// validate(), then one call of the compiled code.
  Status run(const TensorRef *inputs, size_t numInputs);
  /// Copies result `i` of the last run into `destination` (dense).
  void copyResult(unsigned i, char *destination) const;
};

/// The one way a CpuFunction is made (by compileForCpu).
std::unique_ptr<CpuFunction>
makeCpuFunction(std::unique_ptr<CpuFunction::Impl> implementation);

} // namespace indexpool

#endif // INDEXPOOL_LIB_API_CPUFUNCTIONIMPL_H
