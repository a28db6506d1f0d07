//===- LoopStackScopes.cpp - scf.for iterations free their stack ----------===//

#include "LoopStackScopes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {
/// Frees the stack an scf.for iteration allocates when the iteration ends,
/// as scf.for's AutomaticAllocationScope trait promises but scf-to-cf does
/// not do: a loop body with memref.alloca ops (the per-row scratch of an op
/// whose parallel loop had one row and was folded into the body, e.g. a
/// decode loop's append of one sequence) gets llvm.intr.stacksave at its
/// start and llvm.intr.stackrestore before its yield. Without it every
/// iteration grows the stack (thousands of decode steps overflow it). The
/// memref.alloca_scope ops in such a body are inlined: the body is the
/// scope, and a scope cannot be lowered inside a single-block loop body.
struct LoopStackScopesPass
    : public PassWrapper<LoopStackScopesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LoopStackScopesPass)

  StringRef getArgument() const override {
    return "indexpool-loop-stack-scopes";
  }
  StringRef getDescription() const override {
    return "Free the stack each scf.for iteration allocates when the "
           "iteration ends (llvm.intr.stacksave / stackrestore)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect>();
  }

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      // The allocas and scopes of this iteration: not those of a nested
      // allocation scope (an inner loop, an OpenMP region, a function).
      SmallVector<memref::AllocaScopeOp> scopes;
      bool allocates = false;
      loop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (auto scope = dyn_cast<memref::AllocaScopeOp>(op)) {
          scopes.push_back(scope);
          allocates = true;
          return WalkResult::skip();
        }
        if (op->hasTrait<OpTrait::AutomaticAllocationScope>())
          return WalkResult::skip();
        allocates |= isa<memref::AllocaOp>(op);
        return WalkResult::advance();
      });
      if (!allocates)
        continue;
      IRRewriter rewriter(loop.getContext());
      for (memref::AllocaScopeOp scope : scopes) {
        Block *body = &scope.getBodyRegion().front();
        Operation *ret = body->getTerminator();
        SmallVector<Value> results(ret->getOperands());
        rewriter.eraseOp(ret);
        rewriter.inlineBlockBefore(body, scope);
        rewriter.replaceOp(scope, results);
      }
      auto ptr = LLVM::LLVMPointerType::get(loop.getContext());
      rewriter.setInsertionPointToStart(loop.getBody());
      Value stack = LLVM::StackSaveOp::create(rewriter, loop.getLoc(), ptr);
      rewriter.setInsertionPoint(loop.getBody()->getTerminator());
      LLVM::StackRestoreOp::create(rewriter, loop.getLoc(), stack);
    }
  }
};
} // namespace

std::unique_ptr<Pass> mlir::indexpool::createLoopStackScopesPass() {
  return std::make_unique<LoopStackScopesPass>();
}
