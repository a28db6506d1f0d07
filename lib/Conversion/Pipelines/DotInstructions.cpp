//===- DotInstructions.cpp - the score loops' dots as the CPU's own -------===//

#include "DotInstructions.h"

#include "indexpool/Target/CpuTargets.h"

#include "Common/ScoreRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

#include <string>

using namespace mlir;

namespace {

/// Whether `op` is acc[i] + sum_j a[i, j] * b[i, j] with a, b
/// vector<NxGxT> and acc vector<NxA>.
bool isGroupDot(vector::ContractionOp op, int64_t group, Type operand,
                Type accumulator) {
  auto lhs = dyn_cast<VectorType>(op.getLhsType());
  auto acc = dyn_cast<VectorType>(op.getAccType());
  if (!lhs || !acc || lhs != op.getRhsType() || lhs.getRank() != 2 ||
      lhs.getDimSize(1) != group || lhs.getElementType() != operand ||
      acc.getRank() != 1 || acc.getElementType() != accumulator ||
      op.getKind() != vector::CombiningKind::ADD)
    return false;
  MLIRContext *context = op.getContext();
  AffineExpr i = getAffineDimExpr(0, context), j = getAffineDimExpr(1, context);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return maps.size() == 3 && maps[0] == AffineMap::get(2, 0, {i, j}, context) &&
         maps[1] == maps[0] && maps[2] == AffineMap::get(2, 0, {i}, context);
}

/// The i8 vector `v` was extended from (zero-extended: `isUnsigned`), or
/// null.
Value extendedBytes(Value v, bool &isUnsigned) {
  Operation *ext = v.getDefiningOp();
  if (!ext || !isa<arith::ExtUIOp, arith::ExtSIOp>(ext))
    return {};
  Value in = ext->getOperand(0);
  auto type = dyn_cast<VectorType>(in.getType());
  if (!type || !type.getElementType().isInteger(8))
    return {};
  isUnsigned = isa<arith::ExtUIOp>(ext);
  return in;
}

/// A byte-table lookup of the score loops (ScoreRows.h): `gather` reads
/// bytes from offset 0 of a constant global of twice its lanes, at the
/// zero-extended bytes `index`, every lane on. The global's bytes, or null.
DenseIntElementsAttr byteTableOf(vector::GatherOp gather, Value &index) {
  VectorType lanes = gather.getVectorType();
  auto get = gather.getBase().getDefiningOp<memref::GetGlobalOp>();
  auto ext = gather.getIndices().getDefiningOp<arith::ExtUIOp>();
  if (!get || !ext || lanes.getRank() != 1 ||
      !lanes.getElementType().isInteger(8) || ext.getIn().getType() != lanes ||
      !matchPattern(gather.getMask(), m_One()) ||
      !llvm::all_of(gather.getOffsets(),
                    [](Value v) { return matchPattern(v, m_Zero()); }))
    return {};
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      gather, get.getNameAttr());
  if (!global || !global.getConstant())
    return {};
  auto table =
      dyn_cast_or_null<DenseIntElementsAttr>(global.getConstantInitValue());
  if (!table || table.getElementType() != lanes.getElementType() ||
      table.getNumElements() != 2 * lanes.getNumElements())
    return {};
  index = ext.getIn();
  return table;
}

/// The score loops' byte-table lookups as the target's instruction
/// (byteTableIntrinsic: vpermi2b, the table's halves as constant vectors
/// and the indices' bytes as they are: it reads their low 7 bits, which
/// the gather's in-bounds indices are). Tables left unused are erased.
void lowerByteTableLookups(Operation *root,
                           const ::indexpool::target::CpuTarget *row) {
  IRRewriter rewriter(root->getContext());
  llvm::SetVector<Operation *> tables;
  root->walk([&](vector::GatherOp op) {
    Value index;
    DenseIntElementsAttr table = byteTableOf(op, index);
    VectorType lanes = op.getVectorType();
    if (!table)
      return;
    std::string name = mlir::indexpool::loops::byteTableIntrinsic(
        row, lanes.getNumElements() / 4);
    if (name.empty())
      return;
    auto get = op.getBase().getDefiningOp<memref::GetGlobalOp>();
    tables.insert(SymbolTable::lookupNearestSymbolFrom(op, get.getNameAttr()));
    SmallVector<APInt> bytes(table.getValues<APInt>());
    int64_t n = lanes.getNumElements();
    rewriter.setInsertionPoint(op);
    auto half = [&](int64_t i) -> Value {
      return arith::ConstantOp::create(
          rewriter, op.getLoc(),
          DenseElementsAttr::get(lanes, ArrayRef(bytes).slice(i * n, n)));
    };
    Value ext = op.getIndices();
    rewriter.replaceOp(
        op, LLVM::CallIntrinsicOp::create(rewriter, op.getLoc(), lanes,
                                          rewriter.getStringAttr(name),
                                          ValueRange{half(0), index, half(1)}));
    for (Value v : {ext, Value(get)})
      if (v.use_empty())
        rewriter.eraseOp(v.getDefiningOp());
  });
  for (Operation *global : tables)
    if (SymbolTable::symbolKnownUseEmpty(global, global->getParentOp()))
      rewriter.eraseOp(global);
}

struct DotInstructionsPass
    : public PassWrapper<DotInstructionsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DotInstructionsPass)

  explicit DotInstructionsPass(std::string cpu = "") {
    this->cpu = std::move(cpu);
  }
  DotInstructionsPass(const DotInstructionsPass &other) : PassWrapper(other) {}

  StringRef getArgument() const override {
    return "indexpool-dot-instructions";
  }
  StringRef getDescription() const override {
    return "Lower the score loops' bf16 pair and int8 quad vector.contract "
           "ops to the CPU target's dot instructions (vdpbf16ps, bfdot, "
           "vpdpbusd, sdot), and their byte-table gathers to its table "
           "lookup (vpermi2b)";
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
    Builder types(&getContext());
    getOperation()->walk([&](vector::ContractionOp op) {
      auto acc = cast<VectorType>(op.getAccType());
      int64_t lanes = acc.getDimSize(0);
      std::string name;
      Value a, b;
      Location loc = op.getLoc();
      rewriter.setInsertionPoint(op);
      if (isGroupDot(op, 2, types.getBF16Type(), types.getF32Type())) {
        name = mlir::indexpool::loops::dotIntrinsic(
            mlir::indexpool::loops::ScoreDot::Bf16Pairs, row, lanes);
        if (name.empty())
          return;
        auto flat = VectorType::get({2 * lanes}, types.getBF16Type());
        a = vector::ShapeCastOp::create(rewriter, loc, flat, op.getLhs());
        b = vector::ShapeCastOp::create(rewriter, loc, flat, op.getRhs());
      } else if (isGroupDot(op, 4, types.getI32Type(), types.getI32Type())) {
        // Quads: the key's bytes first, extended as the instruction takes
        // them (vpdpbusd: unsigned, sdot: signed), the query's signed.
        bool keyUnsigned = false, queryUnsigned = true;
        Value key = extendedBytes(op.getLhs(), keyUnsigned);
        Value query = extendedBytes(op.getRhs(), queryUnsigned);
        name = mlir::indexpool::loops::dotIntrinsic(
            mlir::indexpool::loops::ScoreDot::Int8Quads, row, lanes);
        if (!key || !query || queryUnsigned || name.empty() ||
            keyUnsigned != mlir::indexpool::loops::quadDotKeysUnsigned(row))
          return;
        auto flat = VectorType::get({4 * lanes}, types.getI8Type());
        a = vector::ShapeCastOp::create(rewriter, loc, flat, key);
        b = vector::ShapeCastOp::create(rewriter, loc, flat, query);
      } else {
        return;
      }
      Value lhs = op.getLhs(), rhs = op.getRhs();
      rewriter.replaceOp(
          op, LLVM::CallIntrinsicOp::create(rewriter, loc, acc,
                                            rewriter.getStringAttr(name),
                                            ValueRange{op.getAcc(), a, b}));
      // The quads' extensions, now unused.
      for (Value operand : {lhs, rhs})
        if (Operation *ext = operand.getDefiningOp();
            ext && ext->use_empty() && isa<arith::ExtUIOp, arith::ExtSIOp>(ext))
          rewriter.eraseOp(ext);
    });
    lowerByteTableLookups(getOperation(), row);
  }

  Option<std::string> cpu{*this, "cpu",
                          llvm::cl::desc("The CPU target (--cpu's table)")};
};

} // namespace

std::unique_ptr<Pass>
mlir::indexpool::createDotInstructionsPass(std::string cpu) {
  return std::make_unique<DotInstructionsPass>(std::move(cpu));
}
