//===- EvaluateControlFlow.cpp - the evaluator on scf and func.return -----===//
//
// scf.for (every iteration evaluated, with tensor or integer iter_args),
// scf.execute_region of one block, and func.return.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::indexpool;
using namespace mlir::indexpool::evaluator;

/// More iterations than this are refused: shapes-only runs (which validate
/// inputs before compiled code runs) walk every iteration too.
constexpr int64_t kMaxIterations = int64_t(1) << 20;

LogicalResult Interpreter::visitFor(scf::ForOp op) {
  auto knownOf = [&](Value v) -> std::optional<int64_t> {
    auto known = scalars.find(v);
    if (known == scalars.end())
      return std::nullopt;
    return known->second;
  };
  std::optional<int64_t> lower = knownOf(op.getLowerBound());
  std::optional<int64_t> upper = knownOf(op.getUpperBound());
  std::optional<int64_t> step = knownOf(op.getStep());
  if (!lower || !upper || !step)
    return fail(op, "the bounds and the step must be known integers");
  if (*step <= 0)
    return fail(op, "the step must be positive, got " + std::to_string(*step));
  if (op.getUnsignedCmp() && (*lower < 0 || *upper < 0))
    return fail(op, "unsigned bounds beyond 2^63 are not supported by the "
                    "reference evaluator");
  int64_t iterations =
      *upper > *lower ? (*upper - *lower - 1) / *step + 1 : 0;
  if (iterations > kMaxIterations)
    return fail(op, std::to_string(iterations) +
                        " iterations: more than the reference evaluator "
                        "runs (" +
                        std::to_string(kMaxIterations) + ")");

  // The loop-carried values: an index/integer scalar or a tensor each.
  struct Carried {
    std::optional<int64_t> scalar;
    HostTensor tensor;
  };
  auto carry = [&](Value v, Carried &c) -> LogicalResult {
    if (isa<RankedTensorType>(v.getType())) {
      if (!hasValue(v))
        return failure();
      c.tensor = operand(v);
      c.scalar.reset();
      return success();
    }
    c.scalar = knownOf(v);
    return success(c.scalar.has_value());
  };
  std::vector<Carried> carried(op.getInitArgs().size());
  for (auto [i, init] : llvm::enumerate(op.getInitArgs()))
    if (failed(carry(init, carried[i])))
      return fail(op, "iter_arg #" + std::to_string(i) +
                          " is neither a tensor the evaluator computed nor a "
                          "known integer");

  // Each iteration's values replace the previous iteration's (so that a
  // long loop holds two iterations, not all of them); the last iteration's
  // stay bound, for what reads body values after the run (--verify's
  // page layouts and selection contexts).
  size_t mark = computed.size();
  Block *body = op.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (int64_t n = 0; n < iterations; ++n) {
    computed.resize(mark);
    scalars[op.getInductionVar()] = *lower + n * *step;
    for (auto [arg, c] : llvm::zip_equal(op.getRegionIterArgs(), carried)) {
      if (c.scalar) {
        scalars[arg] = *c.scalar;
        continue;
      }
      computed.push_back(std::move(c.tensor));
      values[arg] = &computed.back();
    }
    if (failed(visitBody(*body)))
      return failure();
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      if (failed(carry(v, carried[i])))
        return fail(yield, "yielded value #" + std::to_string(i) +
                               " is neither a tensor the evaluator computed "
                               "nor a known integer");
  }
  for (auto [result, c] : llvm::zip_equal(op.getResults(), carried)) {
    if (c.scalar) {
      scalars[result] = *c.scalar;
      continue;
    }
    if (failed(bind(op, result, std::move(c.tensor))))
      return failure();
  }
  return success();
}

LogicalResult Interpreter::visitExecuteRegion(scf::ExecuteRegionOp op) {
  if (!op.getRegion().hasOneBlock())
    return fail(op, "a region of more than one block (control flow) is not "
                    "supported by the reference evaluator");
  Block &block = op.getRegion().front();
  if (failed(visitBody(block)))
    return failure();
  auto yield = cast<scf::YieldOp>(block.getTerminator());
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(op.getResults(), yield.getOperands()))) {
    auto [result, v] = pair;
    if (auto known = scalars.find(v); known != scalars.end()) {
      scalars[result] = known->second;
      continue;
    }
    if (!hasValue(v))
      return fail(yield, "yielded value #" + std::to_string(i) +
                             " is neither a tensor the evaluator computed nor "
                             "a known integer");
    if (failed(bind(op, result, operand(v))))
      return failure();
  }
  return success();
}

LogicalResult Interpreter::visitReturn(func::ReturnOp op) {
  results.clear();
  for (Value v : op.getOperands()) {
    if (!hasValue(v))
      return fail(op, "a returned value is not a tensor");
    const HostTensor &t = operand(v);
    results.push_back(shapesOnly ? shapeOnly(t.type, t.shape) : t);
  }
  return success();
}
