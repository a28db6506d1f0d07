//===- IndexPoolOps.cpp - indexpool op verifiers --------------------------===//
//
// Every message names the operand or result it is about and says what was
// expected, in the letters of SPEC.md §3 (T tokens, D head dim, P pool size,
// G groups, M queries, H heads, N entries, K = k).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Dialect/IndexPoolOps.h"
#include "indexpool/Dialect/Shapes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::indexpool;

static_assert(kShapeDynamic == ShapedType::kDynamic,
              "Shapes.h must agree with MLIR on the dynamic size marker");

//===----------------------------------------------------------------------===//
// Element type classes (SPEC §2)
//===----------------------------------------------------------------------===//

static bool isKeyType(Type t) { return t.isF32() || t.isF16() || t.isBF16(); }
static bool isQuantType(Type t) {
  return t.isSignlessInteger(8) || isa<Float8E4M3FNType>(t);
}
static bool isQueryType(Type t) {
  return isKeyType(t) || isa<Float8E4M3FNType>(t);
}
static bool isCacheType(Type t) { return isKeyType(t) || isQuantType(t); }
static bool isF32(Type t) { return t.isF32(); }
static bool isI32(Type t) { return t.isSignlessInteger(32); }

namespace {

/// Collects the checks of one op and stops at the first failure, so that a
/// verifier reads as a list of rules and reports exactly one error.
class Checker {
public:
  explicit Checker(Operation *op) : op(op) {}

  LogicalResult result() const { return failure(failed); }
  bool ok() const { return !failed; }

  /// `name` (an operand or result) has one of the allowed element types.
  Checker &element(StringRef name, RankedTensorType t, bool (*allowed)(Type),
                   StringRef expected) {
    if (!failed && !allowed(t.getElementType()))
      fail() << name << " must have element type " << expected << ", got "
             << t.getElementType();
    return *this;
  }

  Checker &rank(StringRef name, RankedTensorType t, int64_t rank,
                StringRef layout) {
    if (!failed && t.getRank() != rank)
      fail() << name << " must be " << layout << " (rank " << rank << "), got "
             << t;
    return *this;
  }

  /// Dimension `dim` of `name` is `expected`, which describes itself as
  /// `meaning` (e.g. "T = 1024"); dynamic sizes on either side pass.
  Checker &dim(StringRef name, RankedTensorType t, unsigned dim,
               int64_t expected, StringRef meaning) {
    if (failed || expected == ShapedType::kDynamic || t.isDynamicDim(dim) ||
        t.getDimSize(dim) == expected)
      return *this;
    fail() << name << " dimension " << dim << " must be " << meaning << " = "
           << expected << ", got " << t.getDimSize(dim);
    return *this;
  }

  Checker &poolSize(int64_t p) {
    if (!failed && !isValidPoolSize(p))
      fail() << "pool_size must be a power of two in [" << kMinPoolSize << ", "
             << kMaxPoolSize << "], got " << p;
    return *this;
  }

  Checker &positive(StringRef name, APFloat v) {
    if (!failed && !(v.isFiniteNonZero() && !v.isNegative()))
      fail() << name << " must be positive and finite, got "
             << v.convertToDouble();
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
  InFlightDiagnostic fail() {
    failed = true;
    return op->emitOpError();
  }

  Operation *op;
  bool failed = false;
};

} // namespace

static int64_t dimOf(RankedTensorType t, unsigned i) { return t.getDimSize(i); }

//===----------------------------------------------------------------------===//
// Shared rule sets
//===----------------------------------------------------------------------===//

namespace {
/// Sizes that a pooling op (pool, compress) knows statically.
struct PoolSizes {
  int64_t tokens, dim, groups;
  bool perChannel;
};
} // namespace

/// keys [T, D], scores [T] or [T, D], bias [P] or [P, D], pool_size and
/// temperature: the operands shared by pool and compress.
static PoolSizes checkPoolOperands(Checker &c, RankedTensorType keys,
                                   RankedTensorType scores,
                                   RankedTensorType bias, int64_t p,
                                   APFloat temperature) {
  c.poolSize(p).positive("temperature", temperature);
  c.element("keys", keys, isKeyType, "f32, f16 or bf16")
      .rank("keys", keys, 2, "[T, D]");
  c.element("scores", scores, isKeyType, "f32, f16 or bf16")
      .require(scores.getRank() == 1 || scores.getRank() == 2,
               [&](InFlightDiagnostic &d) {
                 d << "scores must be [T] (per token) or [T, D] (per "
                      "channel), got "
                   << scores;
               });
  if (!c.ok())
    return {};
  PoolSizes s{dimOf(keys, 0), dimOf(keys, 1), numGroups(dimOf(keys, 0), p),
              scores.getRank() == 2};
  c.dim("scores", scores, 0, s.tokens, "T");
  if (s.perChannel)
    c.dim("scores", scores, 1, s.dim, "D");
  if (bias) {
    c.element("bias", bias, isKeyType, "f32, f16 or bf16")
        .rank("bias", bias, scores.getRank(),
              s.perChannel ? "[P, D] like the per-channel scores"
                           : "[P] like the per-token scores")
        .dim("bias", bias, 0, p, "P");
    if (s.perChannel)
      c.dim("bias", bias, 1, s.dim, "D");
  }
  return s;
}

/// The pooling weights result: [G, P] or [G, P, D], f32.
static void checkPoolWeights(Checker &c, RankedTensorType w,
                             const PoolSizes &s, int64_t p) {
  c.element("result 'weights'", w, isF32, "f32")
      .rank("result 'weights'", w, s.perChannel ? 3 : 2,
            s.perChannel ? "[G, P, D] for per-channel scores"
                         : "[G, P] for per-token scores")
      .dim("result 'weights'", w, 0, s.groups, "G = floor(T / P)")
      .dim("result 'weights'", w, 1, p, "P");
  if (s.perChannel)
    c.dim("result 'weights'", w, 2, s.dim, "D");
}

/// codes [N, D] (i8 or f8E4M3FN) and their scales [N] (f32).
static void checkCodesAndScales(Checker &c, StringRef codesName,
                                RankedTensorType codes, StringRef scalesName,
                                RankedTensorType scales, int64_t rows,
                                StringRef rowsMeaning, int64_t dim) {
  c.element(codesName, codes, isQuantType, "i8 or f8E4M3FN")
      .rank(codesName, codes, 2, "[N, D]")
      .dim(codesName, codes, 0, rows, rowsMeaning)
      .dim(codesName, codes, 1, dim, "D");
  c.element(scalesName, scales, isF32, "f32")
      .rank(scalesName, scales, 1, "[N]");
  if (c.ok())
    c.dim(scalesName, scales, 0, dimOf(codes, 0), "N");
}

/// The D of a rotation: a power of two no larger than 1024 when static.
static void checkHadamardDim(Checker &c, StringRef name, int64_t d) {
  c.require(d == ShapedType::kDynamic || isValidHadamardDim(d),
            [&](InFlightDiagnostic &diag) {
              diag << name << " must be a power of two <= " << kMaxHadamardDim
                   << " to be rotated, got " << d;
            });
}

namespace {
struct ScoreSizes {
  int64_t queries, entries;
};
} // namespace

/// query [M, H, D], weights [M, H], keys [N, D] and optional scales [N]:
/// the operands shared by score and select.
static ScoreSizes checkScoreOperands(Checker &c, RankedTensorType query,
                                     RankedTensorType weights,
                                     RankedTensorType keys,
                                     RankedTensorType scales) {
  c.element("query", query, isQueryType, "f32, f16, bf16 or f8E4M3FN")
      .rank("query", query, 3, "[M, H, D]");
  c.element("weights", weights, isF32, "f32")
      .rank("weights", weights, 2, "[M, H]");
  c.element("keys", keys, isCacheType, "f32, f16, bf16, i8 or f8E4M3FN")
      .rank("keys", keys, 2, "[N, D]");
  if (!c.ok())
    return {};
  c.dim("weights", weights, 0, dimOf(query, 0), "M")
      .dim("weights", weights, 1, dimOf(query, 1), "H")
      .dim("keys", keys, 1, dimOf(query, 2), "D (the query's last dimension)");
  c.require(scales || !isQuantType(keys.getElementType()),
            [&](InFlightDiagnostic &d) {
              d << "keys of quantized type " << keys.getElementType()
                << " require scales(...) of shape [N]";
            });
  if (scales)
    c.element("scales", scales, isF32, "f32")
        .rank("scales", scales, 1, "[N]")
        .dim("scales", scales, 0, dimOf(keys, 0), "N");
  return {dimOf(query, 0), dimOf(keys, 0)};
}

/// k > 0, k <= N when N is static, valid [M] i32.
static void checkTopkOperands(Checker &c, int64_t k, int64_t m, int64_t n,
                              RankedTensorType valid) {
  c.require(k > 0, [&](InFlightDiagnostic &d) {
    d << "k must be positive, got " << k;
  });
  c.require(n == ShapedType::kDynamic || k <= n, [&](InFlightDiagnostic &d) {
    d << "k must be at most N = " << n << " (the number of columns), got "
      << k;
  });
  if (valid)
    c.element("valid", valid, isI32, "i32")
        .rank("valid", valid, 1, "[M]")
        .dim("valid", valid, 0, m, "M");
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
  c.require(pooled.getElementType().isF32() ||
                pooled.getElementType() == keyType,
            [&](InFlightDiagnostic &d) {
              d << "result 'pooled' must have element type f32 or the keys' "
                   "type "
                << keyType << ", got " << pooled.getElementType();
            })
      .rank("result 'pooled'", pooled, 2, "[G, D]")
      .dim("result 'pooled'", pooled, 0, s.groups, "G = floor(T / P)")
      .dim("result 'pooled'", pooled, 1, s.dim, "D");
  checkPoolWeights(c, getWeights().getType(), s, getPoolSize());
  return c.result();
}

LogicalResult HadamardOp::verify() {
  Checker c(*this);
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  c.element("input", in, isKeyType, "f32, f16 or bf16")
      .require(in.getRank() >= 1, [&](InFlightDiagnostic &d) {
        d << "input must have rank >= 1, got " << in;
      });
  if (!c.ok())
    return failure();
  checkHadamardDim(c, "input's last dimension D", in.getShape().back());
  c.require(out.getElementType().isF32() ||
                out.getElementType() == in.getElementType(),
            [&](InFlightDiagnostic &d) {
              d << "result must have element type f32 or the input's type "
                << in.getElementType() << ", got " << out.getElementType();
            })
      .rank("result", out, in.getRank(), "shaped like the input");
  for (int64_t i = 0; i < in.getRank() && c.ok(); ++i)
    c.dim("result", out, i, in.getDimSize(i), "the input's size");
  return c.result();
}

LogicalResult QuantizeOp::verify() {
  Checker c(*this);
  RankedTensorType in = getInput().getType();
  c.positive("min_absmax", getMinAbsmax())
      .element("input", in, isKeyType, "f32, f16 or bf16")
      .rank("input", in, 2, "[N, D]");
  if (!c.ok())
    return failure();
  checkCodesAndScales(c, "result 'codes'", getCodes().getType(),
                      "result 'scales'", getScales().getType(), dimOf(in, 0),
                      "N", dimOf(in, 1));
  return c.result();
}

LogicalResult DequantizeOp::verify() {
  Checker c(*this);
  RankedTensorType codes = getCodes().getType();
  RankedTensorType out = getResult().getType();
  checkCodesAndScales(c, "codes", codes, "scales", getScales().getType(),
                      ShapedType::kDynamic, "N", ShapedType::kDynamic);
  c.element("result", out, isKeyType, "f32, f16 or bf16")
      .rank("result", out, 2, "[N, D] like the codes");
  if (c.ok())
    c.dim("result", out, 0, dimOf(codes, 0), "N")
        .dim("result", out, 1, dimOf(codes, 1), "D");
  return c.result();
}

/// result [G*P, D] of residual and reconstruct, from pooled [G, D].
static void checkTokenRows(Checker &c, StringRef name, RankedTensorType t,
                           RankedTensorType pooled, int64_t p) {
  c.element(name, t, isKeyType, "f32, f16 or bf16")
      .rank(name, t, 2, "[G*P, D]")
      .dim(name, t, 0, mulDims(dimOf(pooled, 0), p), "G*P")
      .dim(name, t, 1, dimOf(pooled, 1), "D");
}

LogicalResult ResidualOp::verify() {
  Checker c(*this);
  RankedTensorType keys = getKeys().getType();
  RankedTensorType pooled = getPooled().getType();
  int64_t p = getPoolSize();
  c.poolSize(p)
      .element("keys", keys, isKeyType, "f32, f16 or bf16")
      .rank("keys", keys, 2, "[T, D]")
      .element("pooled", pooled, isKeyType, "f32, f16 or bf16")
      .rank("pooled", pooled, 2, "[G, D]");
  if (!c.ok())
    return failure();
  c.dim("pooled", pooled, 0, numGroups(dimOf(keys, 0), p), "G = floor(T / P)")
      .dim("pooled", pooled, 1, dimOf(keys, 1), "D");
  checkTokenRows(c, "result", getResult().getType(), pooled, p);
  return c.result();
}

LogicalResult ReconstructOp::verify() {
  Checker c(*this);
  RankedTensorType pooled = getPooled().getType();
  int64_t p = getPoolSize();
  c.poolSize(p)
      .element("pooled", pooled, isKeyType, "f32, f16 or bf16")
      .rank("pooled", pooled, 2, "[G, D]");
  if (!c.ok())
    return failure();
  if (getResidual())
    checkTokenRows(c, "residual", getResidual().getType(), pooled, p);
  checkTokenRows(c, "result", getResult().getType(), pooled, p);
  return c.result();
}

LogicalResult ScoreOp::verify() {
  Checker c(*this);
  ScoreSizes s = checkScoreOperands(c, getQuery().getType(),
                                    getWeights().getType(), getKeys().getType(),
                                    getScales() ? getScales().getType()
                                                : nullptr);
  RankedTensorType logits = getLogits().getType();
  c.element("result 'logits'", logits, isF32, "f32")
      .rank("result 'logits'", logits, 2, "[M, N]")
      .dim("result 'logits'", logits, 0, s.queries, "M")
      .dim("result 'logits'", logits, 1, s.entries, "N");
  return c.result();
}

LogicalResult TopKOp::verify() {
  Checker c(*this);
  RankedTensorType logits = getLogits().getType();
  c.element("logits", logits, isF32, "f32").rank("logits", logits, 2, "[M, N]");
  if (!c.ok())
    return failure();
  int64_t m = dimOf(logits, 0), k = getK();
  checkTopkOperands(c, k, m, dimOf(logits, 1),
                    getValid() ? getValid().getType() : nullptr);
  RankedTensorType values = getValues().getType();
  RankedTensorType indices = getIndices().getType();
  c.element("result 'values'", values, isF32, "f32")
      .rank("result 'values'", values, 2, "[M, K]")
      .dim("result 'values'", values, 0, m, "M")
      .dim("result 'values'", values, 1, k, "K");
  c.element("result 'indices'", indices, isI32, "i32")
      .rank("result 'indices'", indices, 2, "[M, K]")
      .dim("result 'indices'", indices, 0, m, "M")
      .dim("result 'indices'", indices, 1, k, "K");
  return c.result();
}

/// tokens [M, K*P] i32, the result of expand and select.
static void checkTokens(Checker &c, RankedTensorType tokens, int64_t m,
                        int64_t k, int64_t p) {
  c.element("result 'tokens'", tokens, isI32, "i32")
      .rank("result 'tokens'", tokens, 2, "[M, K*P]")
      .dim("result 'tokens'", tokens, 0, m, "M")
      .dim("result 'tokens'", tokens, 1, mulDims(k, p), "K*P");
}

LogicalResult ExpandOp::verify() {
  Checker c(*this);
  RankedTensorType indices = getIndices().getType();
  c.poolSize(getPoolSize())
      .element("indices", indices, isI32, "i32")
      .rank("indices", indices, 2, "[M, K]");
  if (!c.ok())
    return failure();
  checkTokens(c, getTokens().getType(), dimOf(indices, 0), dimOf(indices, 1),
              getPoolSize());
  return c.result();
}

LogicalResult CompressOp::verify() {
  Checker c(*this);
  RankedTensorType keys = getKeys().getType();
  c.positive("min_absmax", getMinAbsmax());
  PoolSizes s = checkPoolOperands(c, keys, getScores().getType(),
                                  getBias() ? getBias().getType() : nullptr,
                                  getPoolSize(), getTemperature());
  if (!c.ok())
    return failure();
  if (getRotate())
    checkHadamardDim(c, "keys' dimension D", s.dim);
  checkCodesAndScales(c, "result 'codes'", getCodes().getType(),
                      "result 'scales'", getScales().getType(), s.groups,
                      "G = floor(T / P)", s.dim);
  checkPoolWeights(c, getWeights().getType(), s, getPoolSize());
  return c.result();
}

LogicalResult SelectOp::verify() {
  Checker c(*this);
  c.poolSize(getPoolSize());
  ScoreSizes s = checkScoreOperands(c, getQuery().getType(),
                                    getWeights().getType(), getKeys().getType(),
                                    getScales() ? getScales().getType()
                                                : nullptr);
  if (!c.ok())
    return failure();
  checkTopkOperands(c, getK(), s.queries, s.entries,
                    getValid() ? getValid().getType() : nullptr);
  checkTokens(c, getTokens().getType(), s.queries, getK(), getPoolSize());
  return c.result();
}

#define GET_OP_CLASSES
#include "indexpool/Dialect/IndexPoolOps.cpp.inc"
