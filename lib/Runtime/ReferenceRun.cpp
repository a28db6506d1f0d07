//===- ReferenceRun.cpp - a manifest's computes on the reference ----------===//
//
// One dispatcher (evaluateCompute) serves both the manifest's validation
// (shapes only) and the reference run (data), so that a manifest that loads
// always runs. Operand names and element types come from the op contract
// (Dialect/OpContract.h) that the verifiers read too; the size relations
// from the reference's check functions and Dialect/Shapes.h (plain C++).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Runtime/ReferenceRun.h"
#include "indexpool/Runtime/Printable.h"

#include "indexpool/Dialect/OpContract.h"
#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Reference/Paged.h"
#include "indexpool/Reference/Reference.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace indexpool::runtime {

using mlir::indexpool::ElementSet;
using mlir::indexpool::OpContract;
using ref::ElementType;
using ref::HostTensor;
using Shape = std::vector<int64_t>;

namespace {

bool isIn(const ElementSet &set, ElementType t) { return set.contains(t); }

/// The operand tensors of one compute, by name.
struct Operands {
  const Compute &compute;
  const std::vector<const HostTensor *> &tensors;

  /// Operand `name`, or nullptr when absent.
  const HostTensor *get(std::string_view name) const {
    for (size_t i = 0; i < compute.operands.size() && i < tensors.size(); ++i)
      if (compute.operands[i].first == name)
        return tensors[i];
    return nullptr;
  }
};

/// How a message names result `name`: "result 'codes'", or "the result" for
/// the one result named so.
std::string resultLabel(const std::string &name) {
  return name == "result" ? "the result" : "result '" + name + "'";
}

/// "keys'", "input's": the possessive of an operand name.
std::string possessive(const std::string &name) {
  return name + (name.back() == 's' ? "'" : "'s");
}

/// The first violated rule of one compute.
class Rules {
public:
  bool ok() const { return message.empty(); }
  const std::string &error() const { return message; }

  Rules &require(bool condition, const std::string &why) {
    if (ok() && !condition)
      message = why;
    return *this;
  }

  Rules &element(const std::string &name, ElementType t,
                 const ElementSet &allowed) {
    return require(isIn(allowed, t), name + " must have element type " +
                                         allowed.text + ", got " +
                                         ref::elementTypeName(t));
  }

  /// The element types of the present operands, in the contract's order.
  Rules &operandTypes(const OpContract &op, const Operands &operands) {
    for (const auto &operand : op.operands)
      if (const HostTensor *t = operands.get(operand.name))
        element(operand.name, t->type, operand.types);
    return *this;
  }

  /// The element types of the results (`types`, F32 where missing), in the
  /// contract's order; a result that is f32 or of an operand's type is
  /// checked against that operand.
  Rules &resultTypes(const OpContract &op,
                     const std::vector<ElementType> &types,
                     const Operands &operands) {
    for (size_t i = 0; i < op.results.size(); ++i) {
      const auto &result = op.results[i];
      ElementType t = i < types.size() ? types[i] : ElementType::F32;
      std::string label = resultLabel(result.name);
      const HostTensor *same =
          result.f32OrTypeOf ? operands.get(result.f32OrTypeOf) : nullptr;
      if (!same) {
        element(label, t, result.types);
        continue;
      }
      require(t == ElementType::F32 || t == same->type,
              label + " must have element type f32 or the " +
                  possessive(result.f32OrTypeOf) + " type " +
                  ref::elementTypeName(same->type) + ", got " +
                  ref::elementTypeName(t));
    }
    return *this;
  }

  /// A rule of Dialect/Shapes.h: "" when it holds, else its message.
  Rules &rule(const std::string &why) { return require(why.empty(), why); }

  /// `paged`: the paged forms, which also take 1 (one entry per token).
  Rules &poolSize(int64_t p, bool paged = false) {
    return require(paged ? mlir::indexpool::isValidPagedPoolSize(p)
                         : mlir::indexpool::isValidPoolSize(p),
                   std::string("pool_size must be ") + (paged ? "1 or " : "") +
                       "a power of two in [" +
                       std::to_string(mlir::indexpool::kMinPoolSize) + ", " +
                       std::to_string(mlir::indexpool::kMaxPoolSize) +
                       "], got " + std::to_string(p));
  }

  Rules &positive(const char *name, double value) {
    return require(std::isfinite(value) && value > 0,
                   std::string(name) + " must be positive and finite");
  }

  /// A message of a reference check function ("pool: keys must be ...")
  /// without the op's name.
  Rules &reference(const std::string &check) {
    if (check.empty())
      return *this;
    size_t colon = check.find(": ");
    return require(false, colon == std::string::npos ? check
                                                     : check.substr(colon + 2));
  }

  Rules &hadamardDim(const char *name, int64_t d) {
    return require(mlir::indexpool::isValidHadamardDim(d),
                   std::string(name) + " must be a power of two <= " +
                       std::to_string(mlir::indexpool::kMaxHadamardDim) +
                       " to be rotated, got " + std::to_string(d));
  }

  /// 0 < k <= N.
  Rules &topK(int64_t k, int64_t n) {
    require(k > 0, "k must be positive, got " + std::to_string(k));
    return require(k <= n, "k must be at most N = " + std::to_string(n) +
                               " (the number of columns), got " +
                               std::to_string(k));
  }

private:
  std::string message;
};

HostTensor shapeOnly(ElementType type, Shape shape) {
  return HostTensor{type, std::move(shape), {}};
}

//===----------------------------------------------------------------------===//
// The paged serving layout (docs/serving-layout.md)
//===----------------------------------------------------------------------===//

/// The page layout of a paged compute whose keys or queries have `dim`
/// channels (0 when their rank is wrong: the reference then says so).
ref::PageLayout layoutOf(const Compute &compute, int64_t dim) {
  ref::PageLayout layout;
  layout.entries = compute.pageEntries;
  layout.dim = dim;
  layout.codes = compute.codes;
  layout.scalesFirst = compute.scalesFirst;
  return layout;
}

/// The compress options of a paged compute: its codes are the pages'.
ref::CompressOptions pagedCompressOptions(const Compute &compute) {
  ref::CompressOptions options;
  options.poolSize = compute.poolSize;
  options.temperature = compute.temperature;
  options.rotate = compute.rotate;
  options.quantizedType = compute.codes;
  options.pow2Scale = compute.pow2Scale;
  options.minAbsmax = compute.minAbsmax;
  return options;
}

/// The entries a block table row reaches, max_pages * E; their tokens,
/// times P, must fit the i32 token indices (the verifiers' rule).
void tableCapacity(Rules &rules, const HostTensor &blockTable,
                   const ref::PageLayout &layout, int64_t poolSize,
                   int64_t &capacity) {
  int64_t maxPages = blockTable.shape[1];
  std::optional<int64_t> entries =
      mlir::indexpool::checkedMulSizes(maxPages, layout.entries);
  rules.require(entries.has_value(),
                "max_pages * E = " + std::to_string(maxPages) + " * " +
                    std::to_string(layout.entries) + " overflows int64");
  if (!rules.ok())
    return;
  capacity = *entries;
  rules.rule(
      mlir::indexpool::tokenCountRule("max_pages * E * P", capacity, poolSize));
}

/// An updated value (new_tail_keys, new_tail_scores) has its operand's type.
void sameTypeAs(Rules &rules, const char *result, ElementType type,
                const char *operand, const HostTensor &value) {
  rules.require(type == value.type,
                std::string("result '") + result +
                    "' must have the element type of " + operand + ", " +
                    ref::elementTypeName(value.type) + ", got " +
                    ref::elementTypeName(type));
}

/// compress_paged, select_paged and append_paged: the reference's rules
/// (Reference/Paged.h) and the dialect's stricter ones (a power-of-two
/// pool_size, k > 0 within a table row, i32 token indices), as the
/// verifiers state them.
bool evaluatePaged(const Compute &compute, const OpContract &contract,
                   const Operands &named,
                   const std::vector<ElementType> &resultTypes,
                   bool shapesOnly, std::vector<HostTensor> &results,
                   std::string &error) {
  auto get = [&](const char *name) { return named.get(name); };
  auto resultType = [&](size_t i) {
    return i < resultTypes.size() ? resultTypes[i] : ElementType::F32;
  };
  Rules rules;
  const std::string &op = compute.op;
  int64_t p = compute.poolSize, k = compute.k;
  // refine_paged has no pool_size: one entry per token.
  if (op != "refine_paged")
    rules.poolSize(p, /*paged=*/true);
  rules.operandTypes(contract, named).resultTypes(contract, resultTypes,
                                                  named);

  if (op == "refine_paged") {
    const HostTensor *q = get("query"), *w = get("weights"),
                     *candidates = get("candidates"), *pages = get("pages"),
                     *table = get("block_table"), *lengths = get("lengths");
    ref::PageLayout layout =
        layoutOf(compute, q->rank() == 4 ? q->shape[3] : 0);
    rules
        .require(q->rank() == 4, "query must be [B, S, H, D], got " +
                                     ref::shapeString(q->shape))
        .reference(ref::checkRefinePaged(*q, *w, *candidates, *pages, *table,
                                         *lengths, k, layout));
    int64_t capacity = 0;
    if (rules.ok()) {
      rules.require(k > 0, "k must be positive, got " + std::to_string(k));
      tableCapacity(rules, *table, layout, 1, capacity);
    }
    if (!rules.ok())
      return error = rules.error(), false;
    results.push_back(
        shapesOnly ? shapeOnly(resultType(0), {q->shape[0], q->shape[1], k})
                   : ref::refinePaged(*q, *w, *candidates, *pages, *table,
                                      *lengths, k, layout));
    return true;
  }

  if (op == "compress_paged") {
    const HostTensor *keys = get("keys"), *scores = get("scores"),
                     *bias = get("bias"), *pages = get("pages"),
                     *slots = get("slots");
    ref::CompressOptions options = pagedCompressOptions(compute);
    ref::PageLayout layout =
        layoutOf(compute, keys->rank() == 2 ? keys->shape[1] : 0);
    rules.positive("temperature", compute.temperature)
        .positive("min_absmax", compute.minAbsmax)
        .reference(ref::checkCompressPaged(*keys, *scores, bias, *pages,
                                           *slots, options, layout));
    if (rules.ok() && compute.rotate)
      rules.hadamardDim("with rotate, the size D of keys", keys->shape[1]);
    if (!rules.ok())
      return error = rules.error(), false;
    results.push_back(shapesOnly ? shapeOnly(resultType(0), pages->shape)
                                 : ref::compressPaged(*keys, *scores, bias,
                                                      *pages, *slots, options,
                                                      layout));
    return true;
  }

  if (op == "select_paged") {
    const HostTensor *q = get("query"), *w = get("weights"),
                     *pages = get("pages"), *table = get("block_table"),
                     *lengths = get("lengths");
    ref::PageLayout layout =
        layoutOf(compute, q->rank() == 4 ? q->shape[3] : 0);
    // The rank first: the layout's D comes from the query.
    rules
        .require(q->rank() == 4, "query must be [B, S, H, D], got " +
                                     ref::shapeString(q->shape))
        .reference(ref::checkSelectPaged(*q, *w, *pages, *table, *lengths, k,
                                          p, layout));
    int64_t capacity = 0;
    if (rules.ok()) {
      rules.require(k > 0, "k must be positive, got " + std::to_string(k));
      tableCapacity(rules, *table, layout, p, capacity);
    }
    if (rules.ok())
      rules
          .require(k <= capacity,
                   "k must be at most max_pages * E = " +
                       std::to_string(capacity) +
                       " (the entries a block table row holds), got " +
                       std::to_string(k))
          .rule(mlir::indexpool::tokenCountRule("K * P", k, p));
    if (!rules.ok())
      return error = rules.error(), false;
    // k * P expanded tokens, then P - 1 tail slots.
    results.push_back(
        shapesOnly ? shapeOnly(resultType(0),
                               {q->shape[0], q->shape[1], k * p + p - 1})
                   : ref::selectPaged(*q, *w, *pages, *table, *lengths, k, p,
                                      layout));
    return true;
  }

  if (op == "append_paged") {
    const HostTensor *keys = get("keys"), *scores = get("scores"),
                     *bias = get("bias"), *tailKeys = get("tail_keys"),
                     *tailScores = get("tail_scores"),
                     *lengths = get("lengths"), *pages = get("pages"),
                     *table = get("block_table");
    ref::CompressOptions options = pagedCompressOptions(compute);
    ref::PageLayout layout =
        layoutOf(compute, keys->rank() == 3 ? keys->shape[2] : 0);
    rules.positive("temperature", compute.temperature)
        .positive("min_absmax", compute.minAbsmax)
        .require(keys->rank() == 3, "keys must be [B, n, D], got " +
                                        ref::shapeString(keys->shape));
    sameTypeAs(rules, "new_tail_keys", resultType(1), "tail_keys", *tailKeys);
    sameTypeAs(rules, "new_tail_scores", resultType(2), "tail_scores",
               *tailScores);
    rules.reference(ref::checkAppendPaged(*keys, *scores, *tailKeys,
                                          *tailScores, *lengths, bias, *pages,
                                          *table, options, layout));
    if (rules.ok() && compute.rotate)
      rules.hadamardDim("with rotate, the size D of keys", keys->shape[2]);
    int64_t capacity = 0;
    if (rules.ok())
      tableCapacity(rules, *table, layout, p, capacity);
    if (!rules.ok())
      return error = rules.error(), false;
    if (shapesOnly) {
      results.push_back(shapeOnly(resultType(0), pages->shape));
      results.push_back(shapeOnly(resultType(1), tailKeys->shape));
      results.push_back(shapeOnly(resultType(2), tailScores->shape));
    } else {
      ref::AppendResult r =
          ref::appendPaged(*keys, *scores, *tailKeys, *tailScores, *lengths,
                           bias, *pages, *table, options, layout);
      results.push_back(std::move(r.pages));
      results.push_back(std::move(r.tailKeys));
      results.push_back(std::move(r.tailScores));
    }
    return true;
  }

  error = "unknown op '" + op + "'";
  return false;
}

/// One compute being evaluated: evaluateCompute's arguments, the operands
/// by name. One member per op family checks the op's rules, then computes
/// the results (or only their shapes).
struct Evaluation {
  const Compute &compute;
  const OpContract *contract;
  const Operands &named;
  const std::vector<ElementType> &resultTypes;
  bool shapesOnly;
  std::vector<HostTensor> &results;
  std::string &error;

  /// Operand `name`, or nullptr when absent.
  const HostTensor *get(const char *name) const { return named.get(name); }
  /// Result i's element type (f32 where the compute names none).
  ElementType resultType(size_t i) const {
    return i < resultTypes.size() ? resultTypes[i] : ElementType::F32;
  }

  /// pool and compress: pooled keys (and codes, scales) and their weights.
  bool poolOrCompress();
  /// hadamard: the rotated input.
  bool hadamard();
  /// quantize: codes and a scale per row.
  bool quantize();
  /// dequantize: the codes times their scales.
  bool dequantize();
  /// residual and reconstruct: keys minus, or plus, their pooled keys.
  bool residualOrReconstruct();
  /// score and select: the logits, or the selected tokens.
  bool scoreOrSelect();
  /// refine: the best k of the candidate tokens.
  bool refine();
  /// topk: the k largest logits and their columns.
  bool topk();
  /// expand: pool indices as token indices.
  bool expand();
};

bool Evaluation::poolOrCompress() {
  Rules rules;
  const std::string &op = compute.op;
  int64_t p = compute.poolSize;
  const HostTensor *keys = get("keys"), *scores = get("scores"),
                   *bias = get("bias");
  rules.poolSize(p)
      .positive("temperature", compute.temperature)
      .operandTypes(*contract, named);
  ref::CompressOptions options;
  if (op == "pool") {
    rules.resultTypes(*contract, resultTypes, named)
        .reference(
            ref::checkPool(*keys, *scores, bias, p, compute.temperature));
  } else {
    options.poolSize = p;
    options.temperature = compute.temperature;
    options.rotate = compute.rotate;
    options.quantizedType = resultType(0);
    options.pow2Scale = compute.pow2Scale;
    options.minAbsmax = compute.minAbsmax;
    rules.positive("min_absmax", compute.minAbsmax)
        .resultTypes(*contract, resultTypes, named)
        .reference(ref::checkCompress(*keys, *scores, bias, options));
    if (rules.ok() && compute.rotate)
      rules.hadamardDim("with rotate, the size D of keys", keys->shape[1]);
  }
  if (!rules.ok())
    return error = rules.error(), false;
  int64_t groups = keys->shape[0] / p, dim = keys->shape[1];
  Shape weights =
      scores->rank() == 2 ? Shape{groups, p, dim} : Shape{groups, p};
  if (shapesOnly) {
    if (op == "pool") {
      results.push_back(shapeOnly(resultType(0), {groups, dim}));
      results.push_back(shapeOnly(resultType(1), weights));
    } else {
      results.push_back(shapeOnly(resultType(0), {groups, dim}));
      results.push_back(shapeOnly(resultType(1), {groups}));
      results.push_back(shapeOnly(resultType(2), weights));
    }
  } else if (op == "pool") {
    ref::PoolResult r = ref::pool(*keys, *scores, bias, p,
                                  compute.temperature, resultType(0));
    results.push_back(std::move(r.pooled));
    results.push_back(std::move(r.weights));
  } else {
    ref::CompressResult r = ref::compress(*keys, *scores, bias, options);
    results.push_back(std::move(r.q));
    results.push_back(std::move(r.scale));
    results.push_back(std::move(r.weights));
  }
  return true;
}

bool Evaluation::hadamard() {
  Rules rules;
  const HostTensor *x = get("input");
  rules.operandTypes(*contract, named)
      .resultTypes(*contract, resultTypes, named)
      .reference(ref::checkHadamard(*x));
  if (rules.ok())
    rules.hadamardDim("the last size D of the input", x->shape.back());
  if (!rules.ok())
    return error = rules.error(), false;
  results.push_back(shapesOnly ? shapeOnly(resultType(0), x->shape)
                               : ref::hadamard(*x, resultType(0)));
  return true;
}

bool Evaluation::quantize() {
  Rules rules;
  const HostTensor *x = get("input");
  rules.positive("min_absmax", compute.minAbsmax)
      .operandTypes(*contract, named)
      .resultTypes(*contract, resultTypes, named)
      .reference(ref::checkQuantize(*x, resultType(0), compute.minAbsmax));
  if (!rules.ok())
    return error = rules.error(), false;
  if (shapesOnly) {
    results.push_back(shapeOnly(resultType(0), x->shape));
    results.push_back(shapeOnly(resultType(1), {x->shape[0]}));
  } else {
    ref::QuantizeResult r = ref::quantize(*x, resultType(0),
                                          compute.pow2Scale,
                                          compute.minAbsmax);
    results.push_back(std::move(r.q));
    results.push_back(std::move(r.scale));
  }
  return true;
}

bool Evaluation::dequantize() {
  Rules rules;
  const HostTensor *q = get("codes"), *scales = get("scales");
  rules.operandTypes(*contract, named)
      .resultTypes(*contract, resultTypes, named)
      .reference(ref::checkDequantize(*q, *scales));
  if (!rules.ok())
    return error = rules.error(), false;
  results.push_back(shapesOnly
                        ? shapeOnly(resultType(0), q->shape)
                        : ref::dequantize(*q, *scales, resultType(0)));
  return true;
}

bool Evaluation::residualOrReconstruct() {
  Rules rules;
  const std::string &op = compute.op;
  int64_t p = compute.poolSize;
  const HostTensor *pooled = get("pooled");
  const HostTensor *keys = get("keys"), *residual = get("residual");
  rules.poolSize(p)
      .operandTypes(*contract, named)
      .resultTypes(*contract, resultTypes, named)
      .reference(op == "residual"
                     ? ref::checkResidual(*keys, *pooled, p)
                     : ref::checkReconstruct(*pooled, residual, p));
  if (!rules.ok())
    return error = rules.error(), false;
  if (shapesOnly)
    results.push_back(shapeOnly(resultType(0),
                                {pooled->shape[0] * p, pooled->shape[1]}));
  else if (op == "residual")
    results.push_back(ref::residual(*keys, *pooled, p, resultType(0)));
  else
    results.push_back(ref::reconstruct(*pooled, residual, p, resultType(0)));
  return true;
}

bool Evaluation::scoreOrSelect() {
  Rules rules;
  const std::string &op = compute.op;
  int64_t p = compute.poolSize;
  const HostTensor *q = get("query"), *w = get("weights"),
                   *keys = get("keys"), *scales = get("scales"),
                   *valid = get("valid");
  rules.operandTypes(*contract, named)
      .require(scales || !isIn(mlir::indexpool::kQuantTypes, keys->type),
               std::string("keys of quantized type ") +
                   ref::elementTypeName(keys->type) +
                   " require the operand \"scales\" of shape [N]");
  if (op == "score")
    rules.resultTypes(*contract, resultTypes, named)
        .reference(ref::checkScore(*q, *w, *keys, scales));
  else
    rules.poolSize(p)
        .resultTypes(*contract, resultTypes, named)
        .reference(
            ref::checkSelect(*q, *w, *keys, scales, valid, compute.k, p));
  if (rules.ok() && op == "select")
    rules.topK(compute.k, keys->shape[0]);
  if (!rules.ok())
    return error = rules.error(), false;
  if (shapesOnly)
    results.push_back(shapeOnly(resultType(0),
                                op == "score"
                                    ? Shape{q->shape[0], keys->shape[0]}
                                    : Shape{q->shape[0], compute.k * p}));
  else if (op == "score")
    results.push_back(ref::score(*q, *w, *keys, scales));
  else
    results.push_back(
        ref::select(*q, *w, *keys, scales, valid, compute.k, p));
  return true;
}

bool Evaluation::refine() {
  Rules rules;
  const HostTensor *q = get("query"), *w = get("weights"),
                   *candidates = get("candidates"), *keys = get("keys"),
                   *scales = get("scales");
  bool quantized = isIn(mlir::indexpool::kQuantTypes, keys->type);
  rules.operandTypes(*contract, named)
      .require(scales || !quantized,
               std::string("keys of quantized type ") +
                   ref::elementTypeName(keys->type) +
                   " require the operand \"scales\" of shape [T]")
      .require(!scales || quantized,
               std::string("keys of type ") +
                   ref::elementTypeName(keys->type) +
                   " are full precision: they take no operand \"scales\"")
      .resultTypes(*contract, resultTypes, named)
      .reference(
          ref::checkRefine(*q, *w, *candidates, *keys, scales, compute.k));
  if (rules.ok())
    rules
        .require(compute.k > 0,
                 "k must be positive, got " + std::to_string(compute.k))
        .rule(mlir::indexpool::refineCandidatesRule(compute.k,
                                                    candidates->shape[1]));
  if (!rules.ok())
    return error = rules.error(), false;
  results.push_back(
      shapesOnly
          ? shapeOnly(resultType(0), {q->shape[0], compute.k})
          : ref::refine(*q, *w, *candidates, *keys, scales, compute.k));
  return true;
}

bool Evaluation::topk() {
  Rules rules;
  const HostTensor *logits = get("logits"), *valid = get("valid");
  rules.operandTypes(*contract, named)
      .resultTypes(*contract, resultTypes, named)
      .reference(ref::checkTopK(*logits, valid, compute.k));
  if (rules.ok())
    rules.topK(compute.k, logits->shape[1]);
  if (!rules.ok())
    return error = rules.error(), false;
  if (shapesOnly) {
    Shape shape{logits->shape[0], compute.k};
    results.push_back(shapeOnly(resultType(0), shape));
    results.push_back(shapeOnly(resultType(1), shape));
  } else {
    ref::TopKResult r = ref::topk(*logits, valid, compute.k);
    results.push_back(std::move(r.values));
    results.push_back(std::move(r.indices));
  }
  return true;
}

bool Evaluation::expand() {
  Rules rules;
  int64_t p = compute.poolSize;
  const HostTensor *idx = get("indices");
  rules.poolSize(p)
      .operandTypes(*contract, named)
      .resultTypes(*contract, resultTypes, named)
      .reference(ref::checkExpand(*idx, p));
  if (!rules.ok())
    return error = rules.error(), false;
  results.push_back(shapesOnly ? shapeOnly(resultType(0),
                                           {idx->shape[0], idx->shape[1] * p})
                               : ref::expand(*idx, p));
  return true;
}

} // namespace

bool evaluateCompute(const Compute &compute,
                     const std::vector<const HostTensor *> &operands,
                     const std::vector<ElementType> &resultTypes,
                     bool shapesOnly, std::vector<HostTensor> &results,
                     std::string &error) {
  Operands named{compute, operands};
  results.clear();
  // The operands must be the op's (ManifestComputes.cpp checks this when loading).
  const OpContract *contract = mlir::indexpool::findOpContract(compute.op);
  if (!contract) {
    error = "unknown op '" + compute.op + "'";
    return false;
  }
  if (operands.size() != compute.operands.size()) {
    error = "got " + std::to_string(operands.size()) + " operand tensors for " +
            std::to_string(compute.operands.size()) + " operands";
    return false;
  }
  for (const auto &operand : contract->operands) {
    int64_t position = -1;
    for (size_t j = 0; j < compute.operands.size(); ++j)
      if (compute.operands[j].first == operand.name)
        position = int64_t(j);
    if (position < 0 && !operand.optional) {
      error = std::string("missing operand \"") + operand.name + "\"";
      return false;
    }
    if (position >= 0 && !operands[size_t(position)]) {
      error = std::string("operand \"") + operand.name + "\" has no tensor";
      return false;
    }
  }
  for (const auto &[name, id] : compute.operands)
    if (!contract->findOperand(name)) {
      error = "unknown operand \"" + printable(name) + "\"";
      return false;
    }
  const std::string &op = compute.op;

  if (contract->isPaged())
    return evaluatePaged(compute, *contract, named, resultTypes, shapesOnly,
                         results, error);

  Evaluation evaluation{compute,    contract, named, resultTypes,
                        shapesOnly, results,  error};
  if (op == "pool" || op == "compress")
    return evaluation.poolOrCompress();
  if (op == "hadamard")
    return evaluation.hadamard();
  if (op == "quantize")
    return evaluation.quantize();
  if (op == "dequantize")
    return evaluation.dequantize();
  if (op == "residual" || op == "reconstruct")
    return evaluation.residualOrReconstruct();
  if (op == "score" || op == "select")
    return evaluation.scoreOrSelect();
  if (op == "refine")
    return evaluation.refine();
  if (op == "topk")
    return evaluation.topk();
  if (op == "expand")
    return evaluation.expand();

  error = "unknown op '" + op + "'";
  return false;
}

//===----------------------------------------------------------------------===//
// The reference run
//===----------------------------------------------------------------------===//

/// The most elements one reference tensor may have (16 GiB of doubles).
constexpr int64_t kMaxReferenceElements = int64_t(1) << 31;

bool checkInputs(const Manifest &manifest,
                 const std::vector<HostTensor> &inputs, std::string &error) {
  std::vector<const Buffer *> buffers = manifest.inputs();
  if (inputs.size() != buffers.size()) {
    error = manifest.name + " has " + std::to_string(buffers.size()) +
            " inputs, got " + std::to_string(inputs.size());
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer &b = *buffers[i];
    const HostTensor &t = inputs[i];
    if (t.type != b.type || t.shape != b.shape) {
      error = "input #" + std::to_string(i) + " is " +
              tensorTypeString(t.shape, t.type) + ", but buffer " +
              std::to_string(b.id) + " is " +
              tensorTypeString(b.shape, b.type);
      return false;
    }
    if (t.data.size() != size_t(t.numElements())) {
      error = "input #" + std::to_string(i) + " holds " +
              std::to_string(t.data.size()) + " values for " +
              tensorTypeString(t.shape, t.type);
      return false;
    }
  }
  return true;
}

bool runReference(const Manifest &manifest, std::vector<HostTensor> inputs,
                  ReferenceValues &values, std::string &error) {
  if (!checkInputs(manifest, inputs, error))
    return false;
  values.clear();
  std::vector<const Buffer *> buffers = manifest.inputs();
  for (size_t i = 0; i < inputs.size(); ++i)
    values[buffers[i]->id] = std::move(inputs[i]);
  for (size_t i = 0; i < manifest.computes.size(); ++i) {
    const Compute &compute = manifest.computes[i];
    std::string where =
        "computes[" + std::to_string(i) + "] (" + compute.op + ")";
    std::vector<const HostTensor *> operands;
    for (const auto &[name, id] : compute.operands) {
      auto it = values.find(id);
      if (it == values.end()) {
        error = where + ": operand \"" + name + "\" (buffer " +
                std::to_string(id) + ") has no value";
        return false;
      }
      operands.push_back(&it->second);
    }
    std::vector<ElementType> types;
    for (int64_t id : compute.results) {
      const Buffer *b = manifest.findBuffer(id);
      if (!b || b->numElements() > kMaxReferenceElements) {
        error = where + ": buffer " + std::to_string(id) +
                (b ? " is too large for the reference (more than 2^31 "
                     "elements)"
                   : " is not declared");
        return false;
      }
      types.push_back(b->type);
    }
    std::vector<HostTensor> results;
    if (!evaluateCompute(compute, operands, types, /*shapesOnly=*/false,
                         results, error)) {
      error = where + ": " + error;
      return false;
    }
    for (size_t j = 0; j < results.size(); ++j) {
      const Buffer *b = manifest.findBuffer(compute.results[j]);
      if (results[j].shape != b->shape || results[j].type != b->type) {
        error = where + ": result #" + std::to_string(j) + " is " +
                tensorTypeString(results[j].shape, results[j].type) +
                ", but buffer " + std::to_string(b->id) + " is " +
                tensorTypeString(b->shape, b->type);
        return false;
      }
      values[b->id] = std::move(results[j]);
    }
  }
  return true;
}

std::optional<SelectionContext>
selectionContextOf(const Manifest &manifest, const ReferenceValues &values,
                   int64_t id) {
  auto valueOf = [&](int64_t valueId) -> const HostTensor * {
    auto it = values.find(valueId);
    return it == values.end() ? nullptr : &it->second;
  };
  // The indices of a topk whose logits a score computes.
  auto contextOfTopK =
      [&](const Compute &topk,
          int64_t poolSize) -> std::optional<SelectionContext> {
    int64_t logits = topk.operand("logits");
    const Compute *producer = manifest.definingCompute(logits);
    if (!producer || producer->op != "score" || !valueOf(logits))
      return std::nullopt;
    SelectionContext context;
    context.logits = *valueOf(logits);
    if (int64_t valid = topk.operand("valid"); valid >= 0 && valueOf(valid))
      context.valid = *valueOf(valid);
    context.poolSize = poolSize;
    return context;
  };
  size_t resultIndex = 0;
  const Compute *compute = manifest.definingCompute(id, &resultIndex);
  if (!compute)
    return std::nullopt;
  if (compute->op == "topk")
    return resultIndex == 1 ? contextOfTopK(*compute, 1) : std::nullopt;
  if (compute->op == "expand") {
    size_t topkResult = 0;
    const Compute *topk =
        manifest.definingCompute(compute->operand("indices"), &topkResult);
    if (topk && topk->op == "topk" && topkResult == 1)
      return contextOfTopK(*topk, compute->poolSize);
    return std::nullopt;
  }
  if (compute->op == "select_paged") {
    const HostTensor *q = valueOf(compute->operand("query"));
    const HostTensor *w = valueOf(compute->operand("weights"));
    const HostTensor *pages = valueOf(compute->operand("pages"));
    const HostTensor *table = valueOf(compute->operand("block_table"));
    const HostTensor *lengths = valueOf(compute->operand("lengths"));
    if (!q || !w || !pages || !table || !lengths || q->rank() != 4)
      return std::nullopt;
    return selectPagedContext(*q, *w, *pages, *table, *lengths,
                              compute->poolSize,
                              layoutOf(*compute, q->shape[3]));
  }
  if (compute->op == "refine_paged") {
    const HostTensor *q = valueOf(compute->operand("query"));
    const HostTensor *w = valueOf(compute->operand("weights"));
    const HostTensor *candidates = valueOf(compute->operand("candidates"));
    const HostTensor *pages = valueOf(compute->operand("pages"));
    const HostTensor *table = valueOf(compute->operand("block_table"));
    const HostTensor *lengths = valueOf(compute->operand("lengths"));
    if (!q || !w || !candidates || !pages || !table || !lengths ||
        q->rank() != 4 || candidates->rank() != 3)
      return std::nullopt;
    return refinePagedContext(*q, *w, *candidates, *pages, *table, *lengths,
                              layoutOf(*compute, q->shape[3]));
  }
  if (compute->op == "select") {
    const HostTensor *q = valueOf(compute->operand("query"));
    const HostTensor *w = valueOf(compute->operand("weights"));
    const HostTensor *keys = valueOf(compute->operand("keys"));
    int64_t scalesId = compute->operand("scales");
    const HostTensor *scales = scalesId >= 0 ? valueOf(scalesId) : nullptr;
    if (!q || !w || !keys || (scalesId >= 0 && !scales))
      return std::nullopt;
    SelectionContext context;
    context.logits = ref::score(*q, *w, *keys, scales);
    if (int64_t valid = compute->operand("valid");
        valid >= 0 && valueOf(valid))
      context.valid = *valueOf(valid);
    context.poolSize = compute->poolSize;
    return context;
  }
  if (compute->op == "refine") {
    const HostTensor *q = valueOf(compute->operand("query"));
    const HostTensor *w = valueOf(compute->operand("weights"));
    const HostTensor *candidates = valueOf(compute->operand("candidates"));
    const HostTensor *keys = valueOf(compute->operand("keys"));
    int64_t scalesId = compute->operand("scales");
    const HostTensor *scales = scalesId >= 0 ? valueOf(scalesId) : nullptr;
    if (!q || !w || !candidates || !keys || (scalesId >= 0 && !scales))
      return std::nullopt;
    SelectionContext context;
    context.logits = ref::refineLogits(*q, *w, *candidates, *keys, scales);
    context.candidates = *candidates;
    return context;
  }
  return std::nullopt;
}

std::optional<ref::PageLayout> pageLayoutOf(const Manifest &manifest,
                                            int64_t id) {
  size_t resultIndex = 0;
  const Compute *compute = manifest.definingCompute(id, &resultIndex);
  if (!compute || resultIndex != 0)
    return std::nullopt;
  // D: the last size of the keys, [T, D] (compress) or [B, n, D] (append).
  size_t rank;
  if (compute->op == "compress_paged")
    rank = 2;
  else if (compute->op == "append_paged")
    rank = 3;
  else
    return std::nullopt;
  const Buffer *keys = manifest.findBuffer(compute->operand("keys"));
  if (!keys || keys->shape.size() != rank)
    return std::nullopt;
  return layoutOf(*compute, keys->shape.back());
}

Comparison compareResult(const Manifest &manifest,
                         const ReferenceValues &values, int64_t id,
                         const HostTensor &actual) {
  auto expected = values.find(id);
  if (expected == values.end()) {
    Comparison missing;
    missing.ok = false;
    missing.reason = "the reference has no value for buffer " +
                     std::to_string(id);
    return missing;
  }
  if (std::optional<ref::PageLayout> layout = pageLayoutOf(manifest, id))
    return comparePages(actual, expected->second, *layout);
  std::optional<SelectionContext> selection =
      selectionContextOf(manifest, values, id);
  return compareWithReference(actual, expected->second,
                              selection ? &*selection : nullptr);
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

namespace {

/// N of an input drawn with `distribution` for its use in `compute`: the
/// columns valid lengths bound, the entries slots address, the pages of
/// page ids; the same bounds as the evaluator's (EvaluatorInputs.cpp,
/// boundOf), in the same overflow-checked arithmetic, so that
/// both draw the same values. 0 for the other distributions.
int64_t boundOfUse(const Manifest &manifest, const Compute &compute,
                   ref::InputDistribution distribution) {
  using D = ref::InputDistribution;
  using mlir::indexpool::addDims;
  using mlir::indexpool::mulDims;
  if (distribution != D::ValidLengths && distribution != D::PageSlots &&
      distribution != D::PageIds && distribution != D::CandidateTokens)
    return 0;
  auto size = [&](const char *operand, size_t dim) -> int64_t {
    const Buffer *b = manifest.findBuffer(compute.operand(operand));
    return b && dim < b->shape.size() ? b->shape[dim] : 0;
  };
  const std::string &op = compute.op;
  int64_t p = compute.poolSize, bound = 0;
  if (op == "topk")
    bound = size("logits", 1);
  else if (op == "select" || op == "refine")
    bound = size("keys", 0); // refine's candidates: the key rows
  else if (op == "compress_paged")
    bound = mulDims(size("pages", 0), compute.pageEntries);
  else if (distribution == D::PageIds)
    bound = size("pages", 0); // select_paged, append_paged
  else if (op == "select_paged")
    // Lengths: every entry of a table row, and a tail of P - 1.
    bound = addDims(
        mulDims(mulDims(size("block_table", 1), compute.pageEntries), p),
        p - 1);
  else if (op == "refine_paged")
    // Lengths and candidates: every entry (token) of a table row.
    bound = mulDims(size("block_table", 1), compute.pageEntries);
  else if (op == "append_paged")
    // Lengths: room for the n new tokens in the table's entries.
    bound = addDims(
        mulDims(mulDims(size("block_table", 1), compute.pageEntries), p),
        -size("keys", 1));
  return std::max<int64_t>(bound, 0);
}

} // namespace

std::vector<InputDescription> describeInputs(const Manifest &manifest) {
  std::vector<const Buffer *> inputs = manifest.inputs();
  std::vector<InputDescription> descriptions(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    InputDescription &description = descriptions[i];
    description.use = "not used by a compute";
    bool first = true;
    // Uses in compute order, then operand order: the first of equally
    // specific uses names the input (as the evaluator does).
    for (size_t c = 0; c < manifest.computes.size(); ++c) {
      const Compute &compute = manifest.computes[c];
      for (const auto &[name, id] : compute.operands) {
        if (id != inputs[i]->id)
          continue;
        ref::InputDistribution distribution =
            ref::distributionOfOperand(compute.op, name, inputs[i]->type);
        int specificity = ref::distributionSpecificity(distribution);
        if (!first && specificity <= ref::distributionSpecificity(
                                         description.distribution))
          continue;
        first = false;
        description.distribution = distribution;
        description.use = name + " of computes[" + std::to_string(c) +
                          "] (" + compute.op + ")";
        description.lengthBound = boundOfUse(manifest, compute, distribution);
      }
    }
  }
  return descriptions;
}

std::vector<HostTensor> generateRandomInputs(const Manifest &manifest,
                                             uint64_t seed) {
  std::vector<const Buffer *> buffers = manifest.inputs();
  std::vector<InputDescription> descriptions = describeInputs(manifest);
  std::mt19937_64 rng(seed);
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < buffers.size(); ++i)
    inputs.push_back(ref::drawRandomInput(descriptions[i].distribution,
                                          buffers[i]->type, buffers[i]->shape,
                                          rng, descriptions[i].lengthBound));
  return inputs;
}

} // namespace indexpool::runtime
