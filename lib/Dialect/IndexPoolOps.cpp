//===- IndexPoolOps.cpp - indexpool op verifiers --------------------------===//
//
// Every message names the operand or result it is about and says what was
// expected, in the letters of docs/IndexPoolOps.md (T tokens, D head dim, P pool size,
// G groups, M queries, H heads, N entries, K = k).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/IndexPoolOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "indexpool/Dialect/ElementTypes.h"
#include "indexpool/Dialect/OpContract.h"
#include "indexpool/Dialect/Shapes.h"
#include "indexpool/Reference/Numerics.h"
#include "indexpool/Vocabulary/PageLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::indexpool;

static_assert(kShapeDynamic == ShapedType::kDynamic,
              "Shapes.h must agree with MLIR on the dynamic size marker");

//===----------------------------------------------------------------------===//
// The op contract (OpContract.h)
//===----------------------------------------------------------------------===//

static bool isIn(const ElementSet &set, Type t) {
  std::optional<Element> e = toElementType(t);
  return e && set.contains(*e);
}

const OpContract &mlir::indexpool::getOpContract(Operation *op) {
  const OpContract *contract =
      findOpContract(op->getName().getStringRef().drop_front(
          IndexPoolDialect::getDialectNamespace().size() + 1));
  assert(contract && "an indexpool op without a contract entry");
  return *contract;
}

SmallVector<Value> mlir::indexpool::getContractOperands(Operation *op) {
  SmallVector<Value> values;
  // ODS's operand groups are in the contract's order (OpContractTest checks
  // it).
  auto collect = [&](auto o) {
    for (size_t i = 0; i < getOpContract(op).operands.size(); ++i) {
      auto group = o.getODSOperands(i);
      values.push_back(group.empty() ? Value() : group.front());
    }
  };
  llvm::TypeSwitch<Operation *>(op).Case<
#define GET_OP_LIST
#include "indexpool/Dialect/IndexPoolOps.cpp.inc"
      >(collect);
  return values;
}

/// How a verifier message names result `name`: "result 'pooled'", or just
/// "result" for the one result named so.
static std::string resultLabel(StringRef name) {
  return name == "result" ? "result" : ("result '" + name + "'").str();
}

/// "keys'", "input's": the possessive of an operand name.
static std::string possessive(StringRef name) {
  return (name + (name.ends_with("s") ? "'" : "'s")).str();
}

namespace {

/// Collects the checks of one op and stops at the first failure, so that a
/// verifier reads as a list of rules and reports exactly one error.
///
/// Sizes are named by their letter (T, D, G, M, N, ...). A letter is bound
/// to the first static size the rules see for it -- the defining operand's
/// when static, else the first static use -- and every later static use must
/// agree, so that one dynamic size cannot hide a contradiction between two
/// other operands. The runtimes check dynamic sizes with these same rules
/// (the evaluator re-verifies every op with its concrete shapes).
class Checker {
public:
  explicit Checker(Operation *op) : op(op), contract(getOpContract(op)) {}

  LogicalResult result() const { return failure(failed); }
  bool ok() const { return !failed; }

  /// The size bound to `letter`, kDynamic while it is unknown.
  int64_t size(StringRef letter) const {
    auto it = sizes.find(letter);
    return it == sizes.end() ? ShapedType::kDynamic : it->second.value;
  }

  /// Binds `letter` to `value`, which the op's rules compute (a property,
  /// floor(T / P), ...); a dynamic value binds nothing.
  Checker &define(StringRef letter, int64_t value, StringRef source = "") {
    if (!failed && value != ShapedType::kDynamic && !sizes.count(letter))
      sizes[letter] = {value, source.str()};
    return *this;
  }

  /// Operand `name` has one of the element types of the op's contract, and
  /// its static sizes can be counted in int64 (elements and bytes).
  Checker &operand(StringRef name, RankedTensorType t) {
    const OperandContract *o = contract.findOperand(name);
    assert(o && "not an operand of the op's contract");
    return element(name, t, o->types);
  }

  /// The same for result `name` (named resultLabel(name) in messages). A
  /// result that is f32 or of an operand's type is checked against
  /// `operandType`, that operand's element type.
  Checker &result(StringRef name, RankedTensorType t, Type operandType = {}) {
    const ResultContract *r = contract.findResult(name);
    assert(r && "not a result of the op's contract");
    std::string label = resultLabel(name);
    if (!r->f32OrTypeOf)
      return element(label, t, r->types);
    assert(operandType && "the operand type of an f32-or-same result");
    Type actual = t.getElementType();
    if (!failed && !actual.isF32() && actual != operandType)
      fail() << label << " must have element type f32 or the "
             << possessive(r->f32OrTypeOf) << " type " << operandType
             << ", got " << actual;
    return count(label, t);
  }

  /// The element count and byte size of `name` fit int64.
  Checker &count(StringRef name, RankedTensorType t) {
    if (failed || !t.getElementType().isIntOrFloat())
      return *this;
    int64_t bytes = (t.getElementType().getIntOrFloatBitWidth() + 7) / 8;
    if (!staticByteSize(t.getShape(), 1))
      fail() << "the element count of " << name << " " << t
             << " overflows int64";
    else if (!staticByteSize(t.getShape(), bytes))
      fail() << "the size in bytes of " << name << " " << t
             << " overflows int64";
    return *this;
  }

  Checker &rank(StringRef name, RankedTensorType t, int64_t rank,
                StringRef layout) {
    if (!failed && t.getRank() != rank)
      fail() << name << " must be " << layout << " (rank " << rank << "), got "
             << t;
    return *this;
  }

  /// Dimension `dim` of `name` is the size `letter`, which describes itself
  /// as `meaning` (e.g. "G = floor(T / P)"). A static size binds the letter
  /// when it is unknown and must equal it otherwise; the message names where
  /// the letter was bound when that was another use.
  Checker &dim(StringRef name, RankedTensorType t, unsigned dim,
               StringRef letter, StringRef meaning) {
    if (failed || t.isDynamicDim(dim))
      return *this;
    int64_t actual = t.getDimSize(dim);
    auto it = sizes.find(letter);
    if (it == sizes.end()) {
      sizes[letter] = {actual, (name + " dimension " + Twine(dim)).str()};
      return *this;
    }
    if (it->second.value == actual)
      return *this;
    InFlightDiagnostic diag = fail();
    diag << name << " dimension " << dim << " must be " << meaning << " = "
         << it->second.value;
    if (!it->second.source.empty())
      diag << " (as " << it->second.source << ")";
    diag << ", got " << actual;
    return *this;
  }

  /// The defining operand's dimension: binds `letter` without a note.
  Checker &defines(RankedTensorType t, unsigned dim, StringRef letter) {
    return define(letter, t.getDimSize(dim));
  }

  /// `paged`: the paged forms, which also take 1 (one entry per token).
  Checker &poolSize(int64_t p, bool paged = false) {
    if (!failed && !(paged ? isValidPagedPoolSize(p) : isValidPoolSize(p)))
      fail() << "pool_size must be " << (paged ? "1 or " : "")
             << "a power of two in [" << kMinPoolSize << ", " << kMaxPoolSize
             << "], got " << p;
    return *this;
  }

  /// A rule of Shapes.h: "" when it holds, else its message.
  Checker &rule(const std::string &message) {
    if (!failed && !message.empty())
      fail() << message;
    return *this;
  }

  Checker &require(bool cond, function_ref<void(InFlightDiagnostic &)> msg) {
    if (!failed && !cond) {
      InFlightDiagnostic diag = fail();
      msg(diag);
    }
    return *this;
  }

private:
  Checker &element(StringRef name, RankedTensorType t, const ElementSet &set) {
    if (!failed && !isIn(set, t.getElementType()))
      fail() << name << " must have element type " << set.text << ", got "
             << t.getElementType();
    return count(name, t);
  }

  InFlightDiagnostic fail() {
    failed = true;
    return op->emitOpError();
  }

  struct Binding {
    int64_t value;
    /// The use that bound the letter; empty for the defining operand.
    std::string source;
  };

  Operation *op;
  const OpContract &contract;
  bool failed = false;
  llvm::StringMap<Binding> sizes;
};

} // namespace

/// qmax and the name of a code type (ElementTypes.def's row; the verifiers
/// have checked it holds codes).
static std::pair<double, const char *> qmaxOf(Type codes) {
  const ::indexpool::ElementTypeInfo &info = ::indexpool::elementTypeInfo(
      toElementType(codes).value_or(::indexpool::ElementType::F8E4M3FN));
  return {info.qmax, info.name};
}

static double toDouble(APFloat v) { return v.convertToDouble(); }

/// `product` (e.g. "G*P") = size(letter) * p, bound when the letter is known.
/// A static use of the product with the letter unknown must be a multiple of
/// p. The product is overflow-checked.
static void defineProduct(Checker &c, StringRef product, StringRef letter,
                          int64_t p) {
  int64_t factor = c.size(letter);
  if (!c.ok() || factor == ShapedType::kDynamic)
    return;
  std::optional<int64_t> value = checkedMulSizes(factor, p);
  c.require(value.has_value(), [&](InFlightDiagnostic &d) {
    d << product << " = " << factor << " * " << p << " overflows int64";
  });
  if (value)
    c.define(product, *value);
}

/// Dimension `dim` of `name` is `product` = letter * p: with the letter
/// unknown, a static size must still be a multiple of p.
static void checkProductDim(Checker &c, StringRef name, RankedTensorType t,
                            unsigned dim, StringRef product, StringRef letter,
                            int64_t p) {
  if (c.ok() && c.size(letter) == ShapedType::kDynamic && !t.isDynamicDim(dim))
    c.require(t.getDimSize(dim) % p == 0, [&](InFlightDiagnostic &d) {
      d << name << " dimension " << dim << " must be " << product
        << ", a multiple of P = " << p << ", got " << t.getDimSize(dim);
    });
  c.dim(name, t, dim, product, product);
}

//===----------------------------------------------------------------------===//
// Operand groups
//===----------------------------------------------------------------------===//

/// ODS checks that operandSegmentSizes adds up to the operand count and that
/// no Optional group holds more than one operand, but not that a required
/// group holds exactly one: an empty or doubled group would make the
/// accessors read a neighbour's operand (or past the end) and the custom
/// printer drop an operand. The groups are the contract's operands.
template <typename OpT>
static LogicalResult verifyOperandGroups(OpT op) {
  for (auto [i, group] : llvm::enumerate(getOpContract(op).operands)) {
    unsigned length = op.getODSOperandIndexAndLength(i).second;
    if (length == 1 || (group.optional && length == 0))
      continue;
    return op.emitOpError()
           << "operandSegmentSizes must give " << group.name
           << (group.optional ? " at most one operand" : " exactly one operand")
           << ", got " << length;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shared rule sets
//===----------------------------------------------------------------------===//

namespace {
/// What a pooling op (pool, compress) knows about its scores.
struct PoolSizes {
  bool perChannel;
};
} // namespace

/// keys [T, D], scores [T] or [T, D], bias [P] or [P, D], pool_size and
/// temperature: the operands shared by pool and compress. Binds T, D, P and,
/// when T is known, G = floor(T / P).
static PoolSizes checkPoolOperands(Checker &c, RankedTensorType keys,
                                   RankedTensorType scores,
                                   RankedTensorType bias, int64_t p,
                                   APFloat temperature, bool paged = false) {
  c.poolSize(p, paged).rule(temperatureRule(toDouble(temperature)));
  c.operand("keys", keys).rank("keys", keys, 2, "[T, D]");
  c.operand("scores", scores)
      .require(scores.getRank() == 1 || scores.getRank() == 2,
               [&](InFlightDiagnostic &d) {
                 d << "scores must be [T] (per token) or [T, D] (per "
                      "channel), got "
                   << scores;
               });
  if (!c.ok())
    return {};
  PoolSizes s{scores.getRank() == 2};
  c.defines(keys, 0, "T").defines(keys, 1, "D").define("P", p);
  c.dim("scores", scores, 0, "T", "T");
  if (s.perChannel)
    c.dim("scores", scores, 1, "D", "D");
  if (bias) {
    c.operand("bias", bias)
        .rank("bias", bias, scores.getRank(),
              s.perChannel ? "[P, D] like the per-channel scores"
                           : "[P] like the per-token scores")
        .dim("bias", bias, 0, "P", "P");
    if (s.perChannel)
      c.dim("bias", bias, 1, "D", "D");
  }
  // T may be known from the scores only.
  c.define("G", numGroups(c.size("T"), p));
  return s;
}

/// The pooling weights result: [G, P] or [G, P, D], f32.
static void checkPoolWeights(Checker &c, RankedTensorType w,
                             const PoolSizes &s) {
  c.result("weights", w)
      .rank("result 'weights'", w, s.perChannel ? 3 : 2,
            s.perChannel ? "[G, P, D] for per-channel scores"
                         : "[G, P] for per-token scores")
      .dim("result 'weights'", w, 0, "G", "G = floor(T / P)")
      .dim("result 'weights'", w, 1, "P", "P");
  if (s.perChannel)
    c.dim("result 'weights'", w, 2, "D", "D");
}

/// codes [N, D] (i8 or f8E4M3FN) and their scales [N] (f32), operands or
/// (`areResults`) results; `rows` is the letter of the rows (N, or G for
/// compress) and `rowsMeaning` its meaning.
static void checkCodesAndScales(Checker &c, bool areResults,
                                RankedTensorType codes, RankedTensorType scales,
                                StringRef rows, StringRef rowsMeaning) {
  std::string codesName = areResults ? resultLabel("codes") : "codes";
  std::string scalesName = areResults ? resultLabel("scales") : "scales";
  (areResults ? c.result("codes", codes) : c.operand("codes", codes))
      .rank(codesName, codes, 2, "[N, D]")
      .dim(codesName, codes, 0, rows, rowsMeaning)
      .dim(codesName, codes, 1, "D", "D");
  (areResults ? c.result("scales", scales) : c.operand("scales", scales))
      .rank(scalesName, scales, 1, "[N]")
      .dim(scalesName, scales, 0, rows, rows == "N" ? "N" : rowsMeaning);
}

/// min_absmax against the bound of the codes' type (a valid codes type).
static void checkMinAbsmax(Checker &c, RankedTensorType codes,
                           APFloat minAbsmax) {
  if (!c.ok())
    return;
  auto [qmax, name] = qmaxOf(codes.getElementType());
  c.rule(minAbsmaxRule(toDouble(minAbsmax), qmax, name));
}

/// The D of a rotation: a power of two no larger than 1024 when static.
static void checkHadamardDim(Checker &c, StringRef name, int64_t d) {
  c.require(d == ShapedType::kDynamic || isValidHadamardDim(d),
            [&](InFlightDiagnostic &diag) {
              diag << name << " must be a power of two <= " << kMaxHadamardDim
                   << " to be rotated, got " << d;
            });
}

/// query [M, H, D], weights [M, H], keys [N, D] and optional scales [N]:
/// the operands shared by score and select. Binds M, H, D and N.
static void checkScoreOperands(Checker &c, RankedTensorType query,
                               RankedTensorType weights, RankedTensorType keys,
                               RankedTensorType scales) {
  c.operand("query", query).rank("query", query, 3, "[M, H, D]");
  c.operand("weights", weights).rank("weights", weights, 2, "[M, H]");
  c.operand("keys", keys).rank("keys", keys, 2, "[N, D]");
  if (!c.ok())
    return;
  c.defines(query, 0, "M").defines(query, 1, "H").defines(query, 2, "D");
  c.defines(keys, 0, "N");
  c.dim("weights", weights, 0, "M", "M")
      .dim("weights", weights, 1, "H", "H")
      .dim("keys", keys, 1, "D", "D (the query's last dimension)");
  c.require(scales || !isIn(kQuantTypes, keys.getElementType()),
            [&](InFlightDiagnostic &d) {
              d << "keys of quantized type " << keys.getElementType()
                << " require scales(...) of shape [N]";
            });
  if (scales)
    c.operand("scales", scales)
        .rank("scales", scales, 1, "[N]")
        .dim("scales", scales, 0, "N", "N");
}

/// k > 0, k <= N (N the number of columns, in i32), valid [M] i32.
static void checkTopkOperands(Checker &c, int64_t k, RankedTensorType valid) {
  c.require(k > 0, [&](InFlightDiagnostic &d) {
    d << "k must be positive, got " << k;
  });
  c.rule(columnIndexRule(c.size("N"))).rule(topkColumnsRule(k, c.size("N")));
  c.define("K", k);
  if (valid)
    c.operand("valid", valid)
        .rank("valid", valid, 1, "[M]")
        .dim("valid", valid, 0, "M", "M");
}

//===----------------------------------------------------------------------===//
// Op verifiers
//===----------------------------------------------------------------------===//

LogicalResult PoolOp::verify() {
  Checker c(*this);
  PoolSizes s = checkPoolOperands(c, getKeys().getType(), getScores().getType(),
                                  getBias() ? getBias().getType() : nullptr,
                                  getPoolSize(), getTemperature());
  if (!c.ok())
    return failure();
  RankedTensorType pooled = getPooled().getType();
  Type keyType = getKeys().getType().getElementType();
  c.result("pooled", pooled, keyType)
      .rank("result 'pooled'", pooled, 2, "[G, D]")
      .dim("result 'pooled'", pooled, 0, "G", "G = floor(T / P)")
      .dim("result 'pooled'", pooled, 1, "D", "D");
  checkPoolWeights(c, getWeights().getType(), s);
  return c.result();
}

LogicalResult HadamardOp::verify() {
  Checker c(*this);
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  c.operand("input", in).require(in.getRank() >= 1, [&](InFlightDiagnostic &d) {
    d << "input must have rank >= 1, got " << in;
  });
  if (!c.ok())
    return failure();
  checkHadamardDim(c, "input's last dimension D", in.getShape().back());
  c.result("result", out, in.getElementType())
      .rank("result", out, in.getRank(), "shaped like the input");
  for (int64_t i = 0; i < in.getRank() && c.ok(); ++i) {
    std::string letter = "dim" + std::to_string(i);
    c.defines(in, i, letter).dim("result", out, i, letter, "the input's size");
  }
  return c.result();
}

LogicalResult QuantizeOp::verify() {
  Checker c(*this);
  RankedTensorType in = getInput().getType();
  c.operand("input", in).rank("input", in, 2, "[N, D]");
  if (!c.ok())
    return failure();
  c.defines(in, 0, "N").defines(in, 1, "D");
  checkCodesAndScales(c, /*areResults=*/true, getCodes().getType(),
                      getScales().getType(), "N", "N");
  checkMinAbsmax(c, getCodes().getType(), getMinAbsmax());
  return c.result();
}

LogicalResult DequantizeOp::verify() {
  Checker c(*this);
  RankedTensorType codes = getCodes().getType();
  RankedTensorType out = getResult().getType();
  // The codes define N and D (a wrong rank is reported below).
  if (codes.getRank() == 2)
    c.defines(codes, 0, "N").defines(codes, 1, "D");
  checkCodesAndScales(c, /*areResults=*/false, codes, getScales().getType(),
                      "N", "N");
  c.result("result", out).rank("result", out, 2, "[N, D] like the codes");
  c.dim("result", out, 0, "N", "N").dim("result", out, 1, "D", "D");
  return c.result();
}

/// result (or the operand residual) [G*P, D] of residual and reconstruct,
/// with G and D bound.
static void checkTokenRows(Checker &c, StringRef name, RankedTensorType t,
                           int64_t p) {
  (name == "result" ? c.result(name, t) : c.operand(name, t))
      .rank(name, t, 2, "[G*P, D]");
  defineProduct(c, "G*P", "G", p);
  checkProductDim(c, name, t, 0, "G*P", "G", p);
  c.dim(name, t, 1, "D", "D");
}

LogicalResult ResidualOp::verify() {
  Checker c(*this);
  RankedTensorType keys = getKeys().getType();
  RankedTensorType pooled = getPooled().getType();
  int64_t p = getPoolSize();
  c.poolSize(p)
      .operand("keys", keys)
      .rank("keys", keys, 2, "[T, D]")
      .operand("pooled", pooled)
      .rank("pooled", pooled, 2, "[G, D]");
  if (!c.ok())
    return failure();
  c.defines(keys, 0, "T").defines(keys, 1, "D");
  c.define("G", numGroups(c.size("T"), p));
  c.dim("pooled", pooled, 0, "G", "G = floor(T / P)")
      .dim("pooled", pooled, 1, "D", "D");
  checkTokenRows(c, "result", getResult().getType(), p);
  return c.result();
}

LogicalResult ReconstructOp::verify() {
  Checker c(*this);
  RankedTensorType pooled = getPooled().getType();
  int64_t p = getPoolSize();
  c.poolSize(p).operand("pooled", pooled).rank("pooled", pooled, 2, "[G, D]");
  if (!c.ok())
    return failure();
  c.defines(pooled, 0, "G").defines(pooled, 1, "D");
  if (getResidual())
    checkTokenRows(c, "residual", getResidual().getType(), p);
  checkTokenRows(c, "result", getResult().getType(), p);
  return c.result();
}

LogicalResult ScoreOp::verify() {
  Checker c(*this);
  checkScoreOperands(c, getQuery().getType(), getWeights().getType(),
                     getKeys().getType(),
                     getScales() ? getScales().getType() : nullptr);
  RankedTensorType logits = getLogits().getType();
  c.result("logits", logits)
      .rank("result 'logits'", logits, 2, "[M, N]")
      .dim("result 'logits'", logits, 0, "M", "M")
      .dim("result 'logits'", logits, 1, "N", "N");
  return c.result();
}

LogicalResult TopKOp::verify() {
  Checker c(*this);
  RankedTensorType logits = getLogits().getType();
  c.operand("logits", logits).rank("logits", logits, 2, "[M, N]");
  if (!c.ok())
    return failure();
  c.defines(logits, 0, "M").defines(logits, 1, "N");
  checkTopkOperands(c, getK(), getValid() ? getValid().getType() : nullptr);
  RankedTensorType values = getValues().getType();
  RankedTensorType indices = getIndices().getType();
  c.result("values", values)
      .rank("result 'values'", values, 2, "[M, K]")
      .dim("result 'values'", values, 0, "M", "M")
      .dim("result 'values'", values, 1, "K", "K");
  c.result("indices", indices)
      .rank("result 'indices'", indices, 2, "[M, K]")
      .dim("result 'indices'", indices, 0, "M", "M")
      .dim("result 'indices'", indices, 1, "K", "K");
  return c.result();
}

/// tokens [M, K*P] i32, the result of expand and select, with K*P token
/// indices per row that must fit i32.
static void checkTokens(Checker &c, RankedTensorType tokens, int64_t p) {
  c.rule(tokenCountRule("K * P", c.size("K"), p));
  defineProduct(c, "K*P", "K", p);
  c.result("tokens", tokens)
      .rank("result 'tokens'", tokens, 2, "[M, K*P]")
      .dim("result 'tokens'", tokens, 0, "M", "M");
  checkProductDim(c, "result 'tokens'", tokens, 1, "K*P", "K", p);
  // K unknown: the tokens' columns bound the token count themselves.
  if (c.ok() && !tokens.isDynamicDim(1))
    c.rule(tokenCountRule("K * P", tokens.getDimSize(1) / p, p));
}

LogicalResult ExpandOp::verify() {
  Checker c(*this);
  RankedTensorType indices = getIndices().getType();
  c.poolSize(getPoolSize())
      .operand("indices", indices)
      .rank("indices", indices, 2, "[M, K]");
  if (!c.ok())
    return failure();
  c.defines(indices, 0, "M").defines(indices, 1, "K");
  checkTokens(c, getTokens().getType(), getPoolSize());
  return c.result();
}

LogicalResult CompressOp::verify() {
  Checker c(*this);
  RankedTensorType keys = getKeys().getType();
  PoolSizes s = checkPoolOperands(c, keys, getScores().getType(),
                                  getBias() ? getBias().getType() : nullptr,
                                  getPoolSize(), getTemperature());
  if (!c.ok())
    return failure();
  if (getRotate())
    checkHadamardDim(c, "keys' dimension D", c.size("D"));
  checkCodesAndScales(c, /*areResults=*/true, getCodes().getType(),
                      getScales().getType(), "G", "G = floor(T / P)");
  checkMinAbsmax(c, getCodes().getType(), getMinAbsmax());
  checkPoolWeights(c, getWeights().getType(), s);
  return c.result();
}

LogicalResult SelectOp::verify() {
  if (failed(verifyOperandGroups(*this)))
    return failure();
  Checker c(*this);
  c.poolSize(getPoolSize());
  checkScoreOperands(c, getQuery().getType(), getWeights().getType(),
                     getKeys().getType(),
                     getScales() ? getScales().getType() : nullptr);
  if (!c.ok())
    return failure();
  checkTopkOperands(c, getK(), getValid() ? getValid().getType() : nullptr);
  // Every token index n * P + s of the N pools must fit i32.
  c.rule(tokenCountRule("N * P", c.size("N"), getPoolSize()));
  checkTokens(c, getTokens().getType(), getPoolSize());
  return c.result();
}

LogicalResult RefineOp::verify() {
  Checker c(*this);
  RankedTensorType candidates = getCandidates().getType();
  RankedTensorType keys = getKeys().getType();
  RankedTensorType scales = getScales() ? getScales().getType() : nullptr;
  // score's operands, with the key rows named T (tokens), not N.
  RankedTensorType query = getQuery().getType(),
                   weights = getWeights().getType();
  c.operand("query", query).rank("query", query, 3, "[M, H, D]");
  c.operand("weights", weights).rank("weights", weights, 2, "[M, H]");
  c.operand("candidates", candidates)
      .rank("candidates", candidates, 2, "[M, C]");
  c.operand("keys", keys).rank("keys", keys, 2, "[T, D]");
  if (!c.ok())
    return failure();
  c.defines(query, 0, "M").defines(query, 1, "H").defines(query, 2, "D");
  c.defines(keys, 0, "T").defines(candidates, 1, "C");
  c.dim("weights", weights, 0, "M", "M")
      .dim("weights", weights, 1, "H", "H")
      .dim("candidates", candidates, 0, "M", "M")
      .dim("keys", keys, 1, "D", "D (the query's last dimension)");
  c.require(scales || !isIn(kQuantTypes, keys.getElementType()),
            [&](InFlightDiagnostic &d) {
              d << "keys of quantized type " << keys.getElementType()
                << " require scales(...) of shape [T]";
            });
  c.require(!scales || isIn(kQuantTypes, keys.getElementType()),
            [&](InFlightDiagnostic &d) {
              d << "keys of type " << keys.getElementType()
                << " are full precision: they take no scales(...)";
            });
  if (scales)
    c.operand("scales", scales)
        .rank("scales", scales, 1, "[T]")
        .dim("scales", scales, 0, "T", "T");
  // The token ids are i32; k candidates of the C of a row are kept.
  int64_t k = getK();
  c.rule(refineTokensRule(c.size("T")))
      .require(
          k > 0,
          [&](InFlightDiagnostic &d) { d << "k must be positive, got " << k; })
      .rule(refineCandidatesRule(k, c.size("C")));
  c.define("K", k);
  RankedTensorType tokens = getTokens().getType();
  c.result("tokens", tokens)
      .rank("result 'tokens'", tokens, 2, "[M, K]")
      .dim("result 'tokens'", tokens, 0, "M", "M")
      .dim("result 'tokens'", tokens, 1, "K", "K");
  return c.result();
}

//===----------------------------------------------------------------------===//
// The paged serving layout (docs/serving-layout.md)
//===----------------------------------------------------------------------===//

/// The `codes` property, or the layout's default code type.
static Type codesTypeOr(Operation *op, std::optional<Type> codes) {
  return codes ? *codes
               : toMlirType(::indexpool::vocab::PageLayout().codes,
                            op->getContext());
}
Type CompressPagedOp::getCodesType() { return codesTypeOr(*this, getCodes()); }
Type SelectPagedOp::getCodesType() { return codesTypeOr(*this, getCodes()); }
Type AppendPagedOp::getCodesType() { return codesTypeOr(*this, getCodes()); }
Type RefinePagedOp::getCodesType() { return codesTypeOr(*this, getCodes()); }

/// The layout properties and the operand `pages` [pages, E * (D + 4)] i8
/// (PageLayout: D / 2 for codes two a byte, D then a multiple of two).
/// Binds W, the bytes of a page, when D is known.
static void checkPages(Checker &c, RankedTensorType pages, int64_t entries,
                       Type codes) {
  namespace ElementUse = ::indexpool::ElementUse;
  c.require(entries >= 1, [&](InFlightDiagnostic &d) {
    d << "page_entries must be at least 1, got " << entries;
  });
  std::optional<Element> code = toElementType(codes);
  bool known = code && ::indexpool::elementTypeInfo(*code).allows(
                           ElementUse::PagedCode);
  c.require(known, [&](InFlightDiagnostic &d) {
    d << "codes must be " << ::indexpool::elementTypeList(ElementUse::PagedCode)
      << ", got " << codes;
  });
  if (!known)
    return;
  ::indexpool::vocab::PageLayout layout;
  layout.entries = entries;
  layout.codes = *code;
  std::string form = layout.pageBytesFormula();
  c.operand("pages", pages).rank("pages", pages, 2, "[pages, " + form + "]");
  int64_t d = c.size("D");
  if (!c.ok() || d == ShapedType::kDynamic)
    return;
  layout.dim = d;
  c.require(d % layout.codeInfo().codesPerByte() == 0,
            [&](InFlightDiagnostic &diag) {
              diag << layout.dimRuleMessage(*code, d);
            });
  if (!c.ok())
    return;
  int64_t bytes = layout.pageBytes();
  c.require(bytes >= 0, [&](InFlightDiagnostic &diag) {
    diag << "a page of E = " << entries << " entries of D = " << d
         << " overflows int64";
  });
  if (bytes >= 0)
    c.define("W", bytes);
  c.dim("pages", pages, 1, "W", form);
}

/// A result that is an operand updated: the operand's type (a dynamic size
/// on either side matches any).
static void checkUpdated(Checker &c, StringRef result, RankedTensorType type,
                         StringRef operand, RankedTensorType operandType) {
  bool same = type.getElementType() == operandType.getElementType() &&
              succeeded(verifyCompatibleShape(type, operandType));
  c.require(same, [&](InFlightDiagnostic &d) {
    d << resultLabel(result) << " must have the type of " << operand << " "
      << operandType << ", got " << type;
  });
}

/// block_table [B, max_pages] i32; binds MP (max_pages).
static void checkBlockTable(Checker &c, RankedTensorType table) {
  c.operand("block_table", table)
      .rank("block_table", table, 2, "[B, max_pages]")
      .dim("block_table", table, 0, "B", "B");
  if (c.ok())
    c.defines(table, 1, "MP");
}

/// The most entries a block table row reaches, max_pages * E, and the token
/// indices they cover: max_pages * E * P must fit i32.
static void checkTableTokens(Checker &c, int64_t entries, int64_t p) {
  int64_t pages = c.size("MP");
  if (!c.ok() || pages == ShapedType::kDynamic)
    return;
  std::optional<int64_t> capacity = checkedMulSizes(pages, entries);
  c.require(capacity.has_value(), [&](InFlightDiagnostic &d) {
    d << "max_pages * E = " << pages << " * " << entries
      << " overflows int64";
  });
  if (capacity)
    c.define("N", *capacity)
        .rule(tokenCountRule("max_pages * E * P", *capacity, p));
}

LogicalResult CompressPagedOp::verify() {
  Checker c(*this);
  RankedTensorType keys = getKeys().getType();
  checkPoolOperands(c, keys, getScores().getType(),
                    getBias() ? getBias().getType() : nullptr, getPoolSize(),
                    getTemperature(), /*paged=*/true);
  if (!c.ok())
    return failure();
  if (getRotate())
    checkHadamardDim(c, "keys' dimension D", c.size("D"));
  checkPages(c, getPages().getType(), getPageEntries(), getCodesType());
  if (!c.ok())
    return failure();
  auto [qmax, name] = qmaxOf(getCodesType());
  c.rule(minAbsmaxRule(toDouble(getMinAbsmax()), qmax, name));
  RankedTensorType slots = getSlots().getType();
  c.operand("slots", slots)
      .rank("slots", slots, 1, "[G]")
      .dim("slots", slots, 0, "G", "G = floor(T / P)");
  checkUpdated(c, "result", getResult().getType(), "pages",
               getPages().getType());
  return c.result();
}

LogicalResult SelectPagedOp::verify() {
  Checker c(*this);
  c.poolSize(getPoolSize(), /*paged=*/true);
  RankedTensorType query = getQuery().getType(),
                   weights = getWeights().getType();
  c.operand("query", query).rank("query", query, 4, "[B, S, H, D]");
  c.operand("weights", weights).rank("weights", weights, 3, "[B, S, H]");
  if (!c.ok())
    return failure();
  c.defines(query, 0, "B").defines(query, 1, "S").defines(query, 2, "H");
  c.defines(query, 3, "D");
  c.dim("weights", weights, 0, "B", "B")
      .dim("weights", weights, 1, "S", "S")
      .dim("weights", weights, 2, "H", "H");
  checkPages(c, getPages().getType(), getPageEntries(), getCodesType());
  checkBlockTable(c, getBlockTable().getType());
  RankedTensorType lengths = getLengths().getType();
  c.operand("lengths", lengths)
      .rank("lengths", lengths, 2, "[B, S]")
      .dim("lengths", lengths, 0, "B", "B")
      .dim("lengths", lengths, 1, "S", "S");
  int64_t k = getK(), p = getPoolSize();
  c.require(k > 0, [&](InFlightDiagnostic &d) {
    d << "k must be positive, got " << k;
  });
  checkTableTokens(c, getPageEntries(), p);
  int64_t capacity = c.size("N");
  c.require(capacity == ShapedType::kDynamic || k <= capacity,
            [&](InFlightDiagnostic &d) {
              d << "k must be at most max_pages * E = " << capacity
                << " (the entries a block table row holds), got " << k;
            });
  c.rule(tokenCountRule("K * P", k, p));
  if (!c.ok())
    return failure();
  // k * P expanded tokens, then P - 1 tail slots.
  c.define("K*P+P-1", k * p + p - 1);
  RankedTensorType tokens = getTokens().getType();
  c.result("tokens", tokens)
      .rank("result 'tokens'", tokens, 3, "[B, S, k * P + P - 1]")
      .dim("result 'tokens'", tokens, 0, "B", "B")
      .dim("result 'tokens'", tokens, 1, "S", "S")
      .dim("result 'tokens'", tokens, 2, "K*P+P-1", "k * P + P - 1");
  return c.result();
}

LogicalResult RefinePagedOp::verify() {
  Checker c(*this);
  RankedTensorType query = getQuery().getType(),
                   weights = getWeights().getType(),
                   candidates = getCandidates().getType();
  c.operand("query", query).rank("query", query, 4, "[B, S, H, D]");
  c.operand("weights", weights).rank("weights", weights, 3, "[B, S, H]");
  c.operand("candidates", candidates)
      .rank("candidates", candidates, 3, "[B, S, C]");
  if (!c.ok())
    return failure();
  c.defines(query, 0, "B").defines(query, 1, "S").defines(query, 2, "H");
  c.defines(query, 3, "D").defines(candidates, 2, "C");
  c.dim("weights", weights, 0, "B", "B")
      .dim("weights", weights, 1, "S", "S")
      .dim("weights", weights, 2, "H", "H")
      .dim("candidates", candidates, 0, "B", "B")
      .dim("candidates", candidates, 1, "S", "S");
  checkPages(c, getPages().getType(), getPageEntries(), getCodesType());
  checkBlockTable(c, getBlockTable().getType());
  RankedTensorType lengths = getLengths().getType();
  c.operand("lengths", lengths)
      .rank("lengths", lengths, 2, "[B, S]")
      .dim("lengths", lengths, 0, "B", "B")
      .dim("lengths", lengths, 1, "S", "S");
  // One entry per token: the token ids (i32) index the table's entries.
  checkTableTokens(c, getPageEntries(), 1);
  int64_t k = getK();
  c.require(k > 0, [&](InFlightDiagnostic &d) {
    d << "k must be positive, got " << k;
  });
  c.rule(refineCandidatesRule(k, c.size("C")));
  if (!c.ok())
    return failure();
  c.define("K", k);
  RankedTensorType tokens = getTokens().getType();
  c.result("tokens", tokens)
      .rank("result 'tokens'", tokens, 3, "[B, S, K]")
      .dim("result 'tokens'", tokens, 0, "B", "B")
      .dim("result 'tokens'", tokens, 1, "S", "S")
      .dim("result 'tokens'", tokens, 2, "K", "K");
  return c.result();
}

LogicalResult AppendPagedOp::verify() {
  Checker c(*this);
  int64_t p = getPoolSize();
  c.poolSize(p, /*paged=*/true)
      .rule(temperatureRule(toDouble(getTemperature())));
  RankedTensorType keys = getKeys().getType(), scores = getScores().getType();
  c.operand("keys", keys).rank("keys", keys, 3, "[B, n, D]");
  c.operand("scores", scores)
      .require(scores.getRank() == 2 || scores.getRank() == 3,
               [&](InFlightDiagnostic &d) {
                 d << "scores must be [B, n] (per token) or [B, n, D] (per "
                      "channel), got "
                   << scores;
               });
  if (!c.ok())
    return failure();
  bool perChannel = scores.getRank() == 3;
  c.defines(keys, 0, "B").defines(keys, 1, "n").defines(keys, 2, "D");
  c.define("P", p).define("P-1", p - 1);
  c.dim("scores", scores, 0, "B", "B").dim("scores", scores, 1, "n", "n");
  if (perChannel)
    c.dim("scores", scores, 2, "D", "D");
  if (RankedTensorType bias = getBias() ? getBias().getType() : nullptr) {
    c.operand("bias", bias)
        .rank("bias", bias, perChannel ? 2 : 1,
              perChannel ? "[P, D] like the per-channel scores"
                         : "[P] like the per-token scores")
        .dim("bias", bias, 0, "P", "P");
    if (perChannel)
      c.dim("bias", bias, 1, "D", "D");
  }
  if (getRotate())
    checkHadamardDim(c, "keys' dimension D", c.size("D"));
  RankedTensorType tailKeys = getTailKeys().getType(),
                   tailScores = getTailScores().getType();
  c.operand("tail_keys", tailKeys)
      .rank("tail_keys", tailKeys, 3, "[B, P - 1, D]")
      .dim("tail_keys", tailKeys, 0, "B", "B")
      .dim("tail_keys", tailKeys, 1, "P-1", "P - 1")
      .dim("tail_keys", tailKeys, 2, "D", "D");
  c.require(tailKeys.getElementType() == keys.getElementType(),
            [&](InFlightDiagnostic &d) {
              d << "tail_keys must have the keys' element type "
                << keys.getElementType() << ", got "
                << tailKeys.getElementType();
            });
  c.operand("tail_scores", tailScores)
      .rank("tail_scores", tailScores, scores.getRank(),
            perChannel ? "[B, P - 1, D] like the per-channel scores"
                       : "[B, P - 1] like the per-token scores")
      .dim("tail_scores", tailScores, 0, "B", "B")
      .dim("tail_scores", tailScores, 1, "P-1", "P - 1");
  if (perChannel)
    c.dim("tail_scores", tailScores, 2, "D", "D");
  c.require(tailScores.getElementType() == scores.getElementType(),
            [&](InFlightDiagnostic &d) {
              d << "tail_scores must have the scores' element type "
                << scores.getElementType() << ", got "
                << tailScores.getElementType();
            });
  RankedTensorType lengths = getLengths().getType();
  c.operand("lengths", lengths)
      .rank("lengths", lengths, 1, "[B]")
      .dim("lengths", lengths, 0, "B", "B");
  checkPages(c, getPages().getType(), getPageEntries(), getCodesType());
  checkBlockTable(c, getBlockTable().getType());
  checkTableTokens(c, getPageEntries(), p);
  if (!c.ok())
    return failure();
  auto [qmax, name] = qmaxOf(getCodesType());
  c.rule(minAbsmaxRule(toDouble(getMinAbsmax()), qmax, name));
  checkUpdated(c, "result", getResult().getType(), "pages",
               getPages().getType());
  checkUpdated(c, "new_tail_keys", getNewTailKeys().getType(), "tail_keys",
               tailKeys);
  checkUpdated(c, "new_tail_scores", getNewTailScores().getType(),
               "tail_scores", tailScores);
  return c.result();
}

//===----------------------------------------------------------------------===//
// Custom assembly
//===----------------------------------------------------------------------===//

/// The operand inside `bias(...)`, `residual(...)`, `scales(...)` and
/// `valid(...)`: once the keyword is written, the operand is required (the
/// generated parser would accept `bias()` as no bias).
static ParseResult
parseOperandInParens(OpAsmParser &parser,
                     std::optional<OpAsmParser::UnresolvedOperand> &operand) {
  OpAsmParser::UnresolvedOperand value;
  OptionalParseResult result = parser.parseOptionalOperand(value);
  if (!result.has_value())
    return parser.emitError(parser.getCurrentLocation(),
                            "expected an operand inside the parentheses; "
                            "leave out the whole group for none");
  if (failed(*result))
    return failure();
  operand = value;
  return success();
}

static void printOperandInParens(OpAsmPrinter &printer, Operation *,
                                 Value operand) {
  printer << operand;
}

#define GET_OP_CLASSES
#include "indexpool/Dialect/IndexPoolOps.cpp.inc"
