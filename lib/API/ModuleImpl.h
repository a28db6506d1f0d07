//===- ModuleImpl.h - what a Module holds (private to lib/API) --*- C++ -*-===//
#ifndef INDEXPOOL_LIB_API_MODULEIMPL_H
#define INDEXPOOL_LIB_API_MODULEIMPL_H

#include "indexpool/API/Module.h"
#include "indexpool/Reference/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>

namespace indexpool {

struct Module::Impl {
  /// Every dialect the pipelines produce, the LLVM IR translations and the
  /// NVVM target: one context compiles for the CPU and for GPUs.
  Impl();
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;

  /// The function `name` (a leading @ is dropped), or an error status.
  Status lookup(const std::string &name, mlir::func::FuncOp &func) const;
};

namespace api {

/// Collects the diagnostics of `context` while alive: "LOC: error: MESSAGE"
/// lines (notes included), for the Status of a failed call.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext &context);
  ~DiagnosticCapture();
  /// `summary`, then the diagnostics seen, one per line.
  Status failure(const std::string &summary) const;
  const std::string &text() const { return diagnostics; }

private:
  mlir::MLIRContext &context;
  uint64_t handler;
  std::string diagnostics;
};

/// The signature of `func`, or an error naming the argument or result whose
/// type the API cannot pass (not a ranked tensor of a DType).
Status signatureOf(mlir::func::FuncOp func, FunctionSignature &out);
/// Checks `t` against `type` ("argument #i" / "result #i" in `what`):
/// dtype, rank, static sizes, a non-null pointer when it has elements, and
/// a byte size that fits in memory.
Status checkTensor(const TensorRef &t, const TensorType &type,
                   const std::string &what);
/// The values of a host buffer as a reference HostTensor (decoded).
ref::HostTensor toHostTensor(const TensorRef &t);

} // namespace api
} // namespace indexpool

#endif // INDEXPOOL_LIB_API_MODULEIMPL_H
