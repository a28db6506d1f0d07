//===- ReturnArgumentsInPlace.cpp - no clone of returned arguments --------===//

#include "ReturnArgumentsInPlace.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace {

/// The ownership-based deallocation clones every argument a function
/// returns, so that the caller owns each result. A caller that lets the
/// function update an argument in place (the JIT's writable arguments: a
/// paged cache) wants that argument back, not a copy of it per call.
struct ReturnArgumentsInPlacePass
    : public PassWrapper<ReturnArgumentsInPlacePass,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReturnArgumentsInPlacePass)
  StringRef getArgument() const override {
    return "indexpool-return-arguments-in-place";
  }
  StringRef getDescription() const override {
    return "Return the function arguments a function updates in place "
           "themselves, not the clones buffer deallocation adds";
  }
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    func.walk([&](func::ReturnOp ret) {
      for (OpOperand &operand : ret->getOpOperands()) {
        auto clone = operand.get().getDefiningOp<bufferization::CloneOp>();
        auto argument =
            clone ? dyn_cast<BlockArgument>(clone.getInput()) : BlockArgument();
        if (!argument || argument.getOwner() != &func.getBody().front() ||
            argument.getType() != clone.getType())
          continue;
        operand.set(argument);
        if (clone->use_empty())
          clone->erase();
      }
    });
  }
};

} // namespace

std::unique_ptr<Pass> mlir::indexpool::createReturnArgumentsInPlacePass() {
  return std::make_unique<ReturnArgumentsInPlacePass>();
}
