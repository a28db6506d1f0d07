//===- PairDotInstructions.cpp - bf16 pair dots as the CPU's own ----------===//

#include "PairDotInstructions.h"

#include "indexpool/Target/CpuTargets.h"

#include "Common/ScoreRows.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

using namespace mlir;

namespace {

/// acc[i] + sum_j a[i, j] * b[i, j] with a, b vector<Nx2xbf16>.
bool isPairDot(vector::ContractionOp op) {
  auto lhs = dyn_cast<VectorType>(op.getLhsType());
  auto acc = dyn_cast<VectorType>(op.getAccType());
  if (!lhs || !acc || lhs != op.getRhsType() || lhs.getRank() != 2 ||
      lhs.getDimSize(1) != 2 || !lhs.getElementType().isBF16() ||
      acc.getRank() != 1 || !acc.getElementType().isF32() ||
      op.getKind() != vector::CombiningKind::ADD)
    return false;
  MLIRContext *context = op.getContext();
  AffineExpr i = getAffineDimExpr(0, context), j = getAffineDimExpr(1, context);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return maps.size() == 3 && maps[0] == AffineMap::get(2, 0, {i, j}, context) &&
         maps[1] == maps[0] && maps[2] == AffineMap::get(2, 0, {i}, context);
}

struct PairDotInstructionsPass
    : public PassWrapper<PairDotInstructionsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PairDotInstructionsPass)

  explicit PairDotInstructionsPass(std::string cpu = "") {
    this->cpu = std::move(cpu);
  }
  PairDotInstructionsPass(const PairDotInstructionsPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const override {
    return "indexpool-pair-dot-instructions";
  }
  StringRef getDescription() const override {
    return "Lower bf16 pair-dot vector.contract ops to the CPU target's dot "
           "instruction (vdpbf16ps, bfdot)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect>();
  }

  void runOnOperation() override {
    if (cpu.empty())
      return;
    const ::indexpool::target::CpuTarget *row =
        ::indexpool::target::lookupCpuTarget(cpu);
    if (!row) {
      getOperation()->emitError(
          ::indexpool::target::unknownCpuTargetMessage(cpu));
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](vector::ContractionOp op) {
      if (!isPairDot(op))
        return;
      auto acc = cast<VectorType>(op.getAccType());
      std::string name =
          mlir::indexpool::loops::pairDotIntrinsic(row, acc.getDimSize(0));
      if (name.empty())
        return;
      rewriter.setInsertionPoint(op);
      auto flat =
          VectorType::get({2 * acc.getDimSize(0)}, rewriter.getBF16Type());
      Location loc = op.getLoc();
      Value a = vector::ShapeCastOp::create(rewriter, loc, flat, op.getLhs());
      Value b = vector::ShapeCastOp::create(rewriter, loc, flat, op.getRhs());
      rewriter.replaceOp(
          op, LLVM::CallIntrinsicOp::create(rewriter, loc, acc,
                                            rewriter.getStringAttr(name),
                                            ValueRange{op.getAcc(), a, b}));
    });
  }

  Option<std::string> cpu{*this, "cpu",
                          llvm::cl::desc("The CPU target (--cpu's table)")};
};

} // namespace

std::unique_ptr<Pass>
mlir::indexpool::createPairDotInstructionsPass(std::string cpu) {
  return std::make_unique<PairDotInstructionsPass>(std::move(cpu));
}
