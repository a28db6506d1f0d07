//===- EvaluatorInputs.cpp - random inputs drawn from how they are used ---===//
//
// describeInputs (the distribution each argument asks for, from the indexpool
// operands it fills) and generateRandomInputs (inputs drawn from them, after
// a shapes-only run has checked the shapes and given the bounds of lengths).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Evaluator/Evaluator.h"
#include "Interpreter.h"

#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Reference/RandomInputs.h"

#include <algorithm>
#include <random>

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::evaluator;

/// The name (Dialect/OpContract.h, as docs/IndexPoolOps.md gives it) of the
/// operand that `use` fills; "" for an op that is not an indexpool one.
static std::string operandNameOfUse(OpOperand &use) {
  Operation *op = use.getOwner();
  if (!isa<IndexPoolDialect>(op->getDialect()))
    return "";
  // The contract's operands in order, absent optional ones skipped.
  unsigned number = 0;
  for (auto [contract, value] : llvm::zip_equal(
           getOpContract(op).operands, getContractOperands(op))) {
    if (!value)
      continue;
    if (number++ == use.getOperandNumber())
      return contract.name;
  }
  return "";
}

/// The distribution a use of a value asks for (ref::distributionOfOperand),
/// with the operand's name for messages.
static std::pair<InputDistribution, std::string>
distributionOfUse(OpOperand &use) {
  Operation *op = use.getOwner();
  std::string number = "operand #" + std::to_string(use.getOperandNumber());
  std::string name = operandNameOfUse(use);
  if (name.empty())
    return {InputDistribution::Default, number};
  Type element =
      cast<RankedTensorType>(use.get().getType()).getElementType();
  InputDistribution distribution = ref::distributionOfOperand(
      op->getName().stripDialect(), name,
      toElementType(element).value_or(ElementType::F32));
  // Single-input ops name the operand by number, as they always did.
  if (isa<HadamardOp, QuantizeOp, ResidualOp, ReconstructOp>(op))
    return {distribution, number};
  return {distribution, name};
}

std::vector<InputDescription>
mlir::indexpool::describeInputs(func::FuncOp func) {
  std::vector<InputDescription> descriptions(func.getNumArguments());
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    InputDescription &description = descriptions[i];
    description.use = "not used by an indexpool op";
    // Uses in program order, so that the first of equally specific uses
    // names the argument.
    llvm::SmallVector<OpOperand *> uses;
    for (OpOperand &use : arg.getUses())
      if (use.getOwner()->getBlock() == arg.getOwner())
        uses.push_back(&use);
    llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
      if (a->getOwner() != b->getOwner())
        return a->getOwner()->isBeforeInBlock(b->getOwner());
      return a->getOperandNumber() < b->getOperandNumber();
    });
    bool first = true;
    for (OpOperand *use : uses) {
      auto [distribution, name] = distributionOfUse(*use);
      if (!first && ref::distributionSpecificity(distribution) <=
                        ref::distributionSpecificity(description.distribution))
        continue;
      first = false;
      description.distribution = distribution;
      description.use = name + " of " + describeOp(use->getOwner());
      bool bounded = distribution == InputDistribution::ValidLengths ||
                     distribution == InputDistribution::PageSlots ||
                     distribution == InputDistribution::PageIds ||
                     distribution == InputDistribution::CandidateTokens;
      description.lengthsOf = bounded ? use->getOwner() : nullptr;
    }
  }
  return descriptions;
}

/// The bound of lengths, slots and page ids drawn for `description`, from
/// the shapes of a shapes-only run; 0 for other inputs. boundOfUse in
/// lib/Runtime/ReferenceRun.cpp computes the same bounds from a manifest
/// (so that both draw the same values): change both together.
static int64_t boundOf(const InputDescription &description,
                       const Interpreter &shapesRun) {
  Operation *op = description.lengthsOf;
  if (!op)
    return 0;
  auto sizeOf = [&](Value v, unsigned dim) {
    return shapesRun.valueOf(v).shape[dim];
  };
  int64_t columns = 0;
  if (auto topk = dyn_cast<TopKOp>(op))
    columns = sizeOf(topk.getLogits(), 1);
  else if (auto select = dyn_cast<SelectOp>(op))
    columns = sizeOf(select.getKeys(), 0);
  else if (auto refine = dyn_cast<RefineOp>(op))
    columns = sizeOf(refine.getKeys(), 0); // candidates: the key rows
  else if (auto compress = dyn_cast<CompressPagedOp>(op))
    columns = mulDims(sizeOf(compress.getPages(), 0),
                      int64_t(compress.getPageEntries()));
  else if (auto paged = dyn_cast<SelectPagedOp>(op))
    // Lengths: every entry of a table row, and a tail of P - 1.
    columns = description.distribution == InputDistribution::PageIds
                  ? sizeOf(paged.getPages(), 0)
                  : addDims(mulDims(mulDims(sizeOf(paged.getBlockTable(), 1),
                                            int64_t(paged.getPageEntries())),
                                    int64_t(paged.getPoolSize())),
                            int64_t(paged.getPoolSize()) - 1);
  else if (auto refine = dyn_cast<RefinePagedOp>(op))
    // Lengths and candidates: every entry (token) of a table row.
    columns = description.distribution == InputDistribution::PageIds
                  ? sizeOf(refine.getPages(), 0)
                  : mulDims(sizeOf(refine.getBlockTable(), 1),
                            int64_t(refine.getPageEntries()));
  else if (auto append = dyn_cast<AppendPagedOp>(op))
    // Lengths: room for the n new tokens in the table's entries.
    columns = description.distribution == InputDistribution::PageIds
                  ? sizeOf(append.getPages(), 0)
                  : addDims(mulDims(mulDims(sizeOf(append.getBlockTable(), 1),
                                            int64_t(append.getPageEntries())),
                                    int64_t(append.getPoolSize())),
                            -sizeOf(append.getKeys(), 1));
  return std::max<int64_t>(columns, 0);
}

FailureOr<std::vector<HostTensor>>
mlir::indexpool::generateRandomInputs(func::FuncOp func,
                                      ArrayRef<std::vector<int64_t>> shapes,
                                      uint64_t seed, std::string &error) {
  // Validate the shapes (and learn the sizes that bound valid lengths) with
  // a shapes-only run before drawing anything.
  std::vector<HostTensor> shapeOnlyInputs;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    std::optional<ElementType> element =
        type ? toElementType(type.getElementType()) : std::nullopt;
    if (!element) {
      error = "argument #" + std::to_string(i) + " of @" +
              func.getSymName().str() + " has type " +
              typeString(arg.getType()) +
              ": only ranked tensors of f32, f16, bf16, f8E4M3FN, i8, i32 or "
              "i64 are supported";
      return failure();
    }
    shapeOnlyInputs.push_back(
        shapeOnly(*element, i < shapes.size() ? shapes[i] : Shape{}));
  }
  if (shapes.size() != func.getNumArguments()) {
    error = "@" + func.getSymName().str() + " takes " +
            std::to_string(func.getNumArguments()) + " arguments, got " +
            std::to_string(shapes.size()) + " shapes";
    return failure();
  }
  Interpreter shapesRun(func, /*shapesOnly=*/true);
  if (failed(shapesRun.run(shapeOnlyInputs))) {
    error = shapesRun.error;
    return failure();
  }

  std::vector<InputDescription> descriptions = describeInputs(func);
  std::mt19937_64 rng(seed);
  std::vector<HostTensor> inputs;
  for (auto [i, description] : llvm::enumerate(descriptions)) {
    ElementType type = shapeOnlyInputs[i].type;
    const Shape &shape = shapeOnlyInputs[i].shape;
    int64_t columns = boundOf(description, shapesRun);
    HostTensor t = ref::drawRandomInput(description.distribution, type, shape,
                                        rng, columns);
    inputs.push_back(std::move(t));
  }
  return inputs;
}
