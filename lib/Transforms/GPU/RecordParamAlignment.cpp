//===- RecordParamAlignment.cpp - the alignment kernel pointers need ------===//
//
// Runs on outlined kernels (gpu.func with memref arguments), before they are
// lowered to NVVM: the accesses still say what they need. The result lives
// on the host's gpu.launch_func, which outlives the serialized kernels, so
// that the manifest can tell a runtime what each pointer must satisfy.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::indexpool {
#define GEN_PASS_DEF_INDEXPOOLRECORDPARAMALIGNMENT
#include "indexpool/Dialect/ConversionPasses.h.inc"
} // namespace mlir::indexpool

using namespace mlir;

/// Bytes of one element of `type` (at least 1).
static int64_t elementBytes(Type type) {
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

/// The alignment one access through `memref` needs.
static int64_t accessAlignment(Operation *user, Value memref) {
  auto vectorAccess = [&](VectorType vector,
                          std::optional<uint64_t> alignment) -> int64_t {
    if (alignment)
      return int64_t(*alignment);
    return elementBytes(vector.getElementType()) * vector.getNumElements();
  };
  if (auto load = dyn_cast<vector::LoadOp>(user))
    return vectorAccess(load.getVectorType(), load.getAlignment());
  if (auto store = dyn_cast<vector::StoreOp>(user))
    return vectorAccess(store.getVectorType(), store.getAlignment());
  if (auto load = dyn_cast<vector::MaskedLoadOp>(user))
    return vectorAccess(load.getVectorType(), load.getAlignment());
  if (auto store = dyn_cast<vector::MaskedStoreOp>(user))
    return vectorAccess(store.getVectorType(), store.getAlignment());
  return elementBytes(cast<MemRefType>(memref.getType()).getElementType());
}

/// The largest alignment the accesses through `memref`, or a view of it,
/// need.
static int64_t requiredAlignment(Value memref) {
  int64_t align = 0;
  SmallVector<Value> worklist{memref};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == v) {
        for (Value result : user->getResults())
          if (isa<MemRefType>(result.getType()))
            worklist.push_back(result);
        continue;
      }
      align = std::max(align, accessAlignment(user, v));
    }
  }
  return align;
}

namespace {
struct IndexPoolRecordParamAlignment
    : mlir::indexpool::impl::IndexPoolRecordParamAlignmentBase<
          IndexPoolRecordParamAlignment> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel || kernel.isExternal())
        return;
      SmallVector<int64_t> alignments;
      for (BlockArgument arg : kernel.getArguments())
        alignments.push_back(
            isa<MemRefType>(arg.getType()) ? requiredAlignment(arg) : 0);
      launch->setAttr("indexpool.param_alignment",
                      DenseI64ArrayAttr::get(&getContext(), alignments));
    });
  }
};
} // namespace
