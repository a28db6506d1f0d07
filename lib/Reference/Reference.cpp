//===- Reference.cpp - float64 reference evaluator of the ops -------------===//
//
// Straight loops over row-major data, in the order of the formulas of
// docs/IndexPoolOps.md. Clarity over speed: this is the oracle, not a kernel.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Reference/Reference.h"

#include "indexpool/Dialect/Shapes.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <utility>

namespace indexpool::ref {
namespace {

using Shape = std::vector<int64_t>;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Collects the first operand error of one op, prefixed with the op name.
class Checker {
public:
  explicit Checker(const char *op) : op(op) {}

  bool failed() const { return !message.empty(); }
  std::string error() const { return message; }

  Checker &require(bool ok, const std::string &why) {
    if (!ok && !failed())
      message = std::string(op) + ": " + why;
    return *this;
  }

  /// A rule of Dialect/Shapes.h ("" when it holds), worded as the verifier
  /// words it.
  Checker &rule(const std::string &why) { return require(why.empty(), why); }

  /// Only the shape is looked at: shape-only tensors (no data) may be
  /// checked too. The element count must fit int64.
  Checker &nonNegative(const char *name, const HostTensor &t) {
    bool ok = std::all_of(t.shape.begin(), t.shape.end(),
                          [](int64_t size) { return size >= 0; });
    require(ok, std::string(name) +
                    " has a negative size: " + shapeString(t.shape));
    return require(!ok || mlir::indexpool::staticByteSize(t.shape, 1),
                   "the element count of " + std::string(name) + " " +
                       shapeString(t.shape) + " overflows int64");
  }

  /// a * b (sizes) fits int64; `what` names the product, e.g. "G*P".
  Checker &product(const char *what, int64_t a, int64_t b) {
    return require(mlir::indexpool::checkedMulSizes(a, b).has_value(),
                   std::string(what) + " = " + std::to_string(a) + " * " +
                       std::to_string(b) + " overflows int64");
  }

  Checker &rank(const char *name, const HostTensor &t, int64_t rank,
                const char *letters) {
    nonNegative(name, t);
    return require(t.rank() == rank, std::string(name) + " must be " + letters +
                                         ", got " + shapeString(t.shape));
  }

  Checker &shape(const char *name, const HostTensor &t, const Shape &shape,
                 const char *letters) {
    nonNegative(name, t);
    return require(t.shape == shape, std::string(name) + " must be " + letters +
                                         " = " + shapeString(shape) + ", got " +
                                         shapeString(t.shape));
  }

  Checker &poolSize(int64_t p) {
    return require(p >= 1, "pool_size must be >= 1, got " + std::to_string(p));
  }

private:
  const char *op;
  std::string message;
};

void checkPoolOperands(Checker &check, const HostTensor &keys,
                       const HostTensor &scores, const HostTensor *bias,
                       int64_t poolSize, double temperature) {
  check.poolSize(poolSize)
      .rule(mlir::indexpool::temperatureRule(temperature))
      .rank("keys", keys, 2, "[T, D]")
      .nonNegative("scores", scores);
  if (check.failed())
    return;
  int64_t tokens = keys.shape[0], dim = keys.shape[1];
  bool perChannel = scores.rank() == 2;
  check.require(
      scores.shape == Shape{tokens} || scores.shape == Shape{tokens, dim},
      "scores must be [T] = " + shapeString({tokens}) + " or [T, D] = " +
          shapeString({tokens, dim}) + ", got " + shapeString(scores.shape));
  if (bias && perChannel)
    check.shape("bias", *bias, {poolSize, dim}, "[P, D] (per-channel scores)");
  else if (bias)
    check.shape("bias", *bias, {poolSize}, "[P] (per-token scores)");
}

/// quantize's codes are the DenseCode types of ElementTypes.def;
/// compress's may also be a PagedCode one (`pagedCodes`: i4, of the paged
/// layout only).
void checkQuantizeOptions(Checker &check, ElementType quantizedType,
                          double minAbsmax, bool pagedCodes) {
  uint8_t uses = ElementUse::DenseCode | (pagedCodes ? ElementUse::PagedCode : 0);
  check.require(elementTypeInfo(quantizedType).allows(uses),
                "the quantized type must be " + elementTypeList(uses) +
                    ", got " + elementTypeName(quantizedType));
  if (!check.failed())
    check.rule(mlir::indexpool::minAbsmaxRule(
        minAbsmax, qmax(quantizedType), elementTypeName(quantizedType)));
}

void checkScoreOperands(Checker &check, const HostTensor &q,
                        const HostTensor &w, const HostTensor &keys,
                        const HostTensor *scales) {
  check.rank("q", q, 3, "[M, H, D]").rank("keys", keys, 2, "[N, D]");
  if (check.failed())
    return;
  int64_t queries = q.shape[0], heads = q.shape[1], dim = q.shape[2];
  int64_t entries = keys.shape[0];
  check.shape("w", w, {queries, heads}, "[M, H]")
      .require(keys.shape[1] == dim,
               "keys must be [N, D] with D = " + std::to_string(dim) +
                   " (q's), got " + shapeString(keys.shape));
  if (scales)
    check.shape("scales", *scales, {entries}, "[N]");
}

/// For the asserts of the ops: every (non-null) tensor holds as many values
/// as its shape says. The check functions leave this out (see Checker).
[[maybe_unused]] bool
holdData(std::initializer_list<const HostTensor *> tensors) {
  return std::all_of(tensors.begin(), tensors.end(), [](const HostTensor *t) {
    return !t || t->data.size() == size_t(t->numElements());
  });
}

/// max(a, b) that propagates NaN (IEEE maximum, arith.maximumf).
double maximumPropagatingNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return std::max(a, b);
}

/// exp((x - max x) / T) / sum over the raw logits, in place: the max is
/// taken BEFORE dividing by T, so that a tiny T cannot turn equal logits
/// into inf - inf. A NaN or +inf logit, or all of them -inf, makes every
/// weight NaN (the natural IEEE result, as in the kernels).
void softmaxInPlace(std::vector<double> &logits, double temperature) {
  double maxLogit = -kInfinity;
  for (double logit : logits)
    maxLogit = maximumPropagatingNaN(maxLogit, logit);
  double sum = 0;
  for (double &logit : logits) {
    logit = std::exp((logit - maxLogit) / temperature);
    sum += logit;
  }
  for (double &logit : logits)
    logit /= sum;
}

/// In-place fast Walsh-Hadamard transform: data · H_n in Sylvester order,
/// the stages in the kernels' order, each value made infinite where the
/// kernels' f32 butterfly overflows.
void walshHadamard(double *data, int64_t n) {
  for (int64_t half = 1; half < n; half *= 2)
    for (int64_t block = 0; block < n; block += 2 * half)
      for (int64_t i = block; i < block + half; ++i) {
        double a = data[i], b = data[i + half];
        data[i] = overflowLikeF32(a + b);
        data[i + half] = overflowLikeF32(a - b);
      }
}

/// Rounds every value of `t` to its type.
HostTensor roundedTo(HostTensor t) {
  for (double &value : t.data)
    value = roundTo(value, t.type);
  return t;
}

/// True when column a of `row` ranks before column b in topk: larger first,
/// NaN after every number, equal values by index.
bool ranksBefore(const double *row, int64_t a, int64_t b) {
  bool aIsNaN = std::isnan(row[a]), bIsNaN = std::isnan(row[b]);
  if (aIsNaN != bIsNaN)
    return bIsNaN;
  if (!aIsNaN && row[a] != row[b])
    return row[a] > row[b];
  return a < b;
}

/// Uniform in (0, 1] from the top 53 bits of one engine draw.
double uniformOpenClosed(std::mt19937_64 &rng) {
  return std::ldexp(double((rng() >> 11) + 1), -53);
}

} // namespace

//===----------------------------------------------------------------------===//
// pool
//===----------------------------------------------------------------------===//

std::string checkPool(const HostTensor &keys, const HostTensor &scores,
                      const HostTensor *bias, int64_t poolSize,
                      double temperature) {
  Checker check("pool");
  checkPoolOperands(check, keys, scores, bias, poolSize, temperature);
  return check.error();
}

PoolResult pool(const HostTensor &keys, const HostTensor &scores,
                const HostTensor *bias, int64_t poolSize, double temperature,
                ElementType pooledType) {
  assert(checkPool(keys, scores, bias, poolSize, temperature).empty() &&
         holdData({&keys, &scores, bias}));
  int64_t dim = keys.shape[1], groups = keys.shape[0] / poolSize;
  // Per-token scores are one channel shared by all d. The weights' rank
  // follows the scores' rank, not the channel count (D = 1 is per-channel
  // with one channel: weights [G, P, 1]).
  bool perChannel = scores.rank() == 2;
  int64_t channels = perChannel ? dim : 1;
  PoolResult result{
      HostTensor::zeros(pooledType, {groups, dim}),
      HostTensor::zeros(ElementType::F32, perChannel
                                              ? Shape{groups, poolSize, dim}
                                              : Shape{groups, poolSize})};
  std::vector<double> slotLogits(poolSize);
  std::vector<double> weights(poolSize * channels); // [s, c] of one group
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t s = 0; s < poolSize; ++s) {
        double b = bias ? bias->data[s * channels + c] : 0.0;
        slotLogits[s] = scores.data[(g * poolSize + s) * channels + c] + b;
      }
      softmaxInPlace(slotLogits, temperature);
      for (int64_t s = 0; s < poolSize; ++s)
        weights[s * channels + c] = slotLogits[s];
    }
    for (int64_t d = 0; d < dim; ++d) {
      double sum = 0;
      for (int64_t s = 0; s < poolSize; ++s)
        sum += weights[s * channels + (channels == 1 ? 0 : d)] *
               keys.data[(g * poolSize + s) * dim + d];
      result.pooled.data[g * dim + d] = roundTo(sum, pooledType);
    }
    for (size_t i = 0; i < weights.size(); ++i)
      result.weights.data[g * weights.size() + i] = roundToF32(weights[i]);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// hadamard
//===----------------------------------------------------------------------===//

std::string checkHadamard(const HostTensor &x) {
  Checker check("hadamard");
  check.nonNegative("x", x).require(x.rank() >= 1,
                                    "x must have rank >= 1, got rank 0");
  if (!check.failed())
    check.require(isPowerOfTwo(x.shape.back()),
                  "the last size D of x must be a power of two, got " +
                      std::to_string(x.shape.back()));
  return check.error();
}

HostTensor hadamard(const HostTensor &x, ElementType resultType) {
  assert(checkHadamard(x).empty() && holdData({&x}));
  int64_t dim = x.shape.back();
  double norm = 1 / std::sqrt(double(dim));
  HostTensor y{resultType, x.shape, x.data};
  for (int64_t row = 0; row < x.numElements() / dim; ++row)
    walshHadamard(y.data.data() + row * dim, dim);
  for (double &value : y.data)
    value *= norm;
  return roundedTo(std::move(y));
}

//===----------------------------------------------------------------------===//
// quantize / dequantize
//===----------------------------------------------------------------------===//

std::string checkQuantize(const HostTensor &x, ElementType quantizedType,
                          double minAbsmax) {
  Checker check("quantize");
  check.rank("x", x, 2, "[N, D]");
  checkQuantizeOptions(check, quantizedType, minAbsmax, /*pagedCodes=*/false);
  return check.error();
}

QuantizeResult quantize(const HostTensor &x, ElementType quantizedType,
                        bool pow2Scale, double minAbsmax) {
  // Paged code types too: compress quantizes the paged layout's codes here.
  assert((checkQuantize(x, quantizedType, minAbsmax).empty() ||
          elementTypeInfo(quantizedType).allows(ElementUse::PagedCode)) &&
         holdData({&x}));
  int64_t rows = x.shape[0], dim = x.shape[1];
  double limit = qmax(quantizedType);
  QuantizeResult result{HostTensor::zeros(quantizedType, x.shape),
                        HostTensor::zeros(ElementType::F32, {rows})};
  for (int64_t n = 0; n < rows; ++n) {
    const double *row = x.data.data() + n * dim;
    // NaN-propagating, as arith.maximumf: a NaN anywhere makes the absmax
    // NaN, and then (quantizationScale) the scale and every code.
    double absmax = minAbsmax;
    for (int64_t d = 0; d < dim; ++d)
      absmax = maximumPropagatingNaN(absmax, std::fabs(row[d]));
    double scale = quantizationScale(absmax, quantizedType, pow2Scale);
    result.scale.data[n] = scale;
    for (int64_t d = 0; d < dim; ++d) {
      // The quotient is an f32 division, as in the compiled code: rounding
      // it to f32 first decides the ties a power-of-two absmax makes
      // frequent (bf16 rows) the way every device does.
      double code = roundToF32(row[d] / scale);
      // std::clamp would keep a NaN; spelled out so that it visibly does.
      if (!std::isnan(code))
        code = std::clamp(code, -limit, limit);
      result.q.data[n * dim + d] = roundTo(code, quantizedType);
    }
  }
  return result;
}

std::string checkDequantize(const HostTensor &q, const HostTensor &scale) {
  Checker check("dequantize");
  check.rank("q", q, 2, "[N, D]");
  if (!check.failed())
    check.shape("scale", scale, {q.shape[0]}, "[N]");
  return check.error();
}

HostTensor dequantize(const HostTensor &q, const HostTensor &scale,
                      ElementType resultType) {
  assert(checkDequantize(q, scale).empty() && holdData({&q, &scale}));
  int64_t dim = q.shape[1];
  HostTensor x{resultType, q.shape, q.data};
  for (size_t i = 0; i < x.data.size(); ++i)
    x.data[i] *= scale.data[i / dim];
  return roundedTo(std::move(x));
}

//===----------------------------------------------------------------------===//
// residual / reconstruct
//===----------------------------------------------------------------------===//

std::string checkResidual(const HostTensor &keys, const HostTensor &pooled,
                          int64_t poolSize) {
  Checker check("residual");
  check.poolSize(poolSize).rank("keys", keys, 2, "[T, D]");
  if (!check.failed())
    check.shape("pooled", pooled, {keys.shape[0] / poolSize, keys.shape[1]},
                "[floor(T / P), D]");
  return check.error();
}

HostTensor residual(const HostTensor &keys, const HostTensor &pooled,
                    int64_t poolSize, ElementType resultType) {
  assert(checkResidual(keys, pooled, poolSize).empty() &&
         holdData({&keys, &pooled}));
  int64_t groups = pooled.shape[0], dim = pooled.shape[1];
  HostTensor r = HostTensor::zeros(resultType, {groups * poolSize, dim});
  for (int64_t t = 0; t < groups * poolSize; ++t)
    for (int64_t d = 0; d < dim; ++d)
      r.data[t * dim + d] =
          keys.data[t * dim + d] - pooled.data[(t / poolSize) * dim + d];
  return roundedTo(std::move(r));
}

std::string checkReconstruct(const HostTensor &pooled,
                             const HostTensor *residual, int64_t poolSize) {
  Checker check("reconstruct");
  check.poolSize(poolSize).rank("pooled", pooled, 2, "[G, D]");
  if (!check.failed())
    check.product("G*P", pooled.shape[0], poolSize);
  if (!check.failed() && residual)
    check.shape("residual", *residual,
                {pooled.shape[0] * poolSize, pooled.shape[1]}, "[G*P, D]");
  return check.error();
}

HostTensor reconstruct(const HostTensor &pooled, const HostTensor *residual,
                       int64_t poolSize, ElementType resultType) {
  assert(checkReconstruct(pooled, residual, poolSize).empty() &&
         holdData({&pooled, residual}));
  int64_t groups = pooled.shape[0], dim = pooled.shape[1];
  HostTensor k = HostTensor::zeros(resultType, {groups * poolSize, dim});
  for (int64_t t = 0; t < groups * poolSize; ++t)
    for (int64_t d = 0; d < dim; ++d)
      k.data[t * dim + d] = pooled.data[(t / poolSize) * dim + d] +
                            (residual ? residual->data[t * dim + d] : 0.0);
  return roundedTo(std::move(k));
}

//===----------------------------------------------------------------------===//
// score / topk / expand
//===----------------------------------------------------------------------===//

std::string checkScore(const HostTensor &q, const HostTensor &w,
                       const HostTensor &keys, const HostTensor *scales) {
  Checker check("score");
  checkScoreOperands(check, q, w, keys, scales);
  return check.error();
}

/// The logit of query row m against key row n (unrounded), as score
/// computes it; shared with refine, whose logits must be score's.
static double scoreLogit(const HostTensor &q, const HostTensor &w,
                         const HostTensor &keys, const HostTensor *scales,
                         int64_t m, int64_t n) {
  int64_t heads = q.shape[1], dim = q.shape[2];
  double s = scales ? scales->data[n] : 1.0;
  // Every product and partial sum overflows where the kernels' f32 does.
  // The weighted head sum is fused (fma(w, relu, total), heads in order):
  // w x relu is exact there (two f32 values' product fits a double) and
  // only the sum overflows. (The dot's products are rounded on their own:
  // the CPU's vector lanes each start with one.)
  double total = 0;
  for (int64_t h = 0; h < heads; ++h) {
    const double *query = q.data.data() + (m * heads + h) * dim;
    double dot = 0;
    for (int64_t d = 0; d < dim; ++d)
      dot = overflowLikeF32(dot +
                            overflowLikeF32(query[d] * keys.data[n * dim + d]));
    double scaled = overflowLikeF32(s * dot);
    // IEEE maximum(x, +0): NaN stays NaN, -0 becomes +0.
    double relu = std::isnan(scaled) ? scaled : scaled > 0 ? scaled : 0.0;
    total = overflowLikeF32(total + w.data[m * heads + h] * relu);
  }
  return total;
}

HostTensor score(const HostTensor &q, const HostTensor &w,
                 const HostTensor &keys, const HostTensor *scales) {
  assert(checkScore(q, w, keys, scales).empty() &&
         holdData({&q, &w, &keys, scales}));
  int64_t queries = q.shape[0], entries = keys.shape[0];
  HostTensor logits = HostTensor::zeros(ElementType::F32, {queries, entries});
  for (int64_t m = 0; m < queries; ++m)
    for (int64_t n = 0; n < entries; ++n)
      logits.data[m * entries + n] = scoreLogit(q, w, keys, scales, m, n);
  return roundedTo(std::move(logits));
}

std::string checkTopK(const HostTensor &logits, const HostTensor *valid,
                      int64_t k) {
  Checker check("topk");
  check.require(k >= 0, "k must be >= 0, got " + std::to_string(k))
      .rank("logits", logits, 2, "[M, N]");
  if (!check.failed())
    check.product("M*K", logits.shape[0], k);
  if (!check.failed() && valid)
    check.shape("valid", *valid, {logits.shape[0]}, "[M]");
  return check.error();
}

TopKResult topk(const HostTensor &logits, const HostTensor *valid, int64_t k) {
  assert(checkTopK(logits, valid, k).empty() && holdData({&logits, valid}));
  int64_t rows = logits.shape[0], columns = logits.shape[1];
  TopKResult result{HostTensor::zeros(ElementType::F32, {rows, k}),
                    HostTensor::zeros(ElementType::I32, {rows, k})};
  std::fill(result.values.data.begin(), result.values.data.end(), -kInfinity);
  std::fill(result.indices.data.begin(), result.indices.data.end(), -1.0);
  std::vector<int64_t> order;
  for (int64_t m = 0; m < rows; ++m) {
    const double *row = logits.data.data() + m * columns;
    double length = valid ? std::clamp(valid->data[m], 0.0, double(columns))
                          : double(columns);
    order.resize(size_t(length));
    std::iota(order.begin(), order.end(), 0);
    int64_t taken = std::min(k, int64_t(order.size()));
    std::partial_sort(
        order.begin(), order.begin() + taken, order.end(),
        [row](int64_t a, int64_t b) { return ranksBefore(row, a, b); });
    for (int64_t j = 0; j < taken; ++j) {
      result.values.data[m * k + j] = roundToF32(row[order[j]]);
      result.indices.data[m * k + j] = double(order[j]);
    }
  }
  return result;
}

std::string checkExpand(const HostTensor &idx, int64_t poolSize) {
  Checker check("expand");
  check.poolSize(poolSize).rank("idx", idx, 2, "[M, K]");
  if (!check.failed())
    check.product("K*P", idx.shape[1], poolSize);
  return check.error();
}

HostTensor expand(const HostTensor &idx, int64_t poolSize) {
  assert(checkExpand(idx, poolSize).empty() && holdData({&idx}));
  int64_t rows = idx.shape[0], pools = idx.shape[1];
  HostTensor tokens =
      HostTensor::zeros(ElementType::I32, {rows, pools * poolSize});
  // Negative indices, and those whose last token would not fit in i32,
  // expand to -1.
  double limit = std::floor(
      (double(std::numeric_limits<int32_t>::max()) - double(poolSize - 1)) /
      double(poolSize));
  for (int64_t i = 0; i < rows * pools; ++i)
    for (int64_t s = 0; s < poolSize; ++s)
      tokens.data[i * poolSize + s] =
          idx.data[i] < 0 || idx.data[i] > limit
              ? -1.0
              : idx.data[i] * double(poolSize) + double(s);
  return tokens;
}

//===----------------------------------------------------------------------===//
// compress / select
//===----------------------------------------------------------------------===//

std::string checkCompress(const HostTensor &keys, const HostTensor &scores,
                          const HostTensor *bias,
                          const CompressOptions &options) {
  Checker check("compress");
  checkPoolOperands(check, keys, scores, bias, options.poolSize,
                    options.temperature);
  if (!check.failed() && options.rotate)
    check.require(isPowerOfTwo(keys.shape[1]),
                  "with rotate, the size D of keys must be a power of two, "
                  "got " +
                      std::to_string(keys.shape[1]));
  checkQuantizeOptions(check, options.quantizedType, options.minAbsmax,
                       /*pagedCodes=*/true);
  return check.error();
}

CompressResult compress(const HostTensor &keys, const HostTensor &scores,
                        const HostTensor *bias,
                        const CompressOptions &options) {
  assert(checkCompress(keys, scores, bias, options).empty());
  PoolResult pooled = pool(keys, scores, bias, options.poolSize,
                           options.temperature, keys.type);
  if (options.rotate)
    pooled.pooled = hadamard(pooled.pooled, keys.type);
  QuantizeResult quantized = quantize(pooled.pooled, options.quantizedType,
                                      options.pow2Scale, options.minAbsmax);
  return {std::move(quantized.q), std::move(quantized.scale),
          std::move(pooled.weights)};
}

std::string checkSelect(const HostTensor &q, const HostTensor &w,
                        const HostTensor &keys, const HostTensor *scales,
                        const HostTensor *valid, int64_t k, int64_t poolSize) {
  Checker check("select");
  checkScoreOperands(check, q, w, keys, scales);
  check.require(k >= 0, "k must be >= 0, got " + std::to_string(k))
      .poolSize(poolSize);
  if (!check.failed())
    check.product("K*P", k, poolSize);
  if (!check.failed() && valid)
    check.shape("valid", *valid, {q.shape[0]}, "[M]");
  return check.error();
}

HostTensor select(const HostTensor &q, const HostTensor &w,
                  const HostTensor &keys, const HostTensor *scales,
                  const HostTensor *valid, int64_t k, int64_t poolSize) {
  assert(checkSelect(q, w, keys, scales, valid, k, poolSize).empty());
  HostTensor logits = score(q, w, keys, scales);
  return expand(topk(logits, valid, k).indices, poolSize);
}

//===----------------------------------------------------------------------===//
// refine
//===----------------------------------------------------------------------===//

std::string checkRefine(const HostTensor &q, const HostTensor &w,
                        const HostTensor &candidates, const HostTensor &keys,
                        const HostTensor *scales, int64_t k) {
  Checker check("refine");
  check.rank("q", q, 3, "[M, H, D]").rank("keys", keys, 2, "[T, D]");
  if (check.failed())
    return check.error();
  int64_t queries = q.shape[0], heads = q.shape[1], dim = q.shape[2];
  check.shape("w", w, {queries, heads}, "[M, H]")
      .rank("candidates", candidates, 2, "[M, C]");
  if (check.failed())
    return check.error();
  check
      .require(candidates.shape[0] == queries,
               "candidates must be [M, C] with M = " + std::to_string(queries) +
                   " (q's), got " + shapeString(candidates.shape))
      .require(keys.shape[1] == dim,
               "keys must be [T, D] with D = " + std::to_string(dim) +
                   " (q's), got " + shapeString(keys.shape))
      .require(k >= 0, "k must be >= 0, got " + std::to_string(k))
      .rule(mlir::indexpool::refineTokensRule(keys.shape[0]));
  if (scales)
    check.shape("scales", *scales, {keys.shape[0]}, "[T]");
  if (!check.failed())
    check.product("M*K", queries, k);
  return check.error();
}

HostTensor refineLogits(const HostTensor &q, const HostTensor &w,
                        const HostTensor &candidates, const HostTensor &keys,
                        const HostTensor *scales) {
  assert(checkRefine(q, w, candidates, keys, scales, 0).empty() &&
         holdData({&q, &w, &candidates, &keys, scales}));
  int64_t queries = candidates.shape[0], columns = candidates.shape[1];
  double tokens = double(keys.shape[0]);
  HostTensor logits = HostTensor::zeros(ElementType::F32, {queries, columns});
  for (int64_t m = 0; m < queries; ++m)
    for (int64_t c = 0; c < columns; ++c) {
      double t = candidates.data[m * columns + c];
      logits.data[m * columns + c] =
          t >= 0 && t < tokens ? scoreLogit(q, w, keys, scales, m, int64_t(t))
                               : std::numeric_limits<double>::quiet_NaN();
    }
  return roundedTo(std::move(logits));
}

HostTensor refine(const HostTensor &q, const HostTensor &w,
                  const HostTensor &candidates, const HostTensor &keys,
                  const HostTensor *scales, int64_t k) {
  assert(checkRefine(q, w, candidates, keys, scales, k).empty());
  HostTensor logits = refineLogits(q, w, candidates, keys, scales);
  HostTensor tokens = topk(logits, nullptr, k).indices;
  int64_t columns = candidates.shape[1];
  double keyRows = double(keys.shape[0]);
  for (int64_t i = 0; i < tokens.numElements(); ++i) {
    double c = tokens.data[i];
    double t = c < 0 ? -1.0 : candidates.data[(i / k) * columns + int64_t(c)];
    tokens.data[i] = t >= 0 && t < keyRows ? t : -1.0;
  }
  return tokens;
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

HostTensor randomNormal(ElementType type, std::vector<int64_t> shape,
                        std::mt19937_64 &rng, double stddev) {
  HostTensor t = HostTensor::zeros(type, std::move(shape));
  const double twoPi = 2 * std::acos(-1.0);
  bool allZero = true;
  for (double &value : t.data) {
    // Box-Muller; u1 in (0, 1] keeps the log finite.
    double u1 = uniformOpenClosed(rng), u2 = uniformOpenClosed(rng);
    double normal = std::sqrt(-2 * std::log(u1)) * std::cos(twoPi * u2);
    value = roundTo(stddev * normal, type);
    allZero = allZero && value == 0;
  }
  // Tests must never run on zeros (STYLE.md): a zero tensor hides bugs.
  if (allZero && !t.data.empty())
    t.data[0] = 1;
  return t;
}

HostTensor randomInt32(std::vector<int64_t> shape, int64_t lo, int64_t hi,
                       std::mt19937_64 &rng) {
  assert(std::numeric_limits<int32_t>::min() <= lo && lo <= hi &&
         hi <= std::numeric_limits<int32_t>::max());
  HostTensor t = HostTensor::zeros(ElementType::I32, std::move(shape));
  uint64_t range = uint64_t(hi - lo) + 1;
  // Draws below 2^64 mod range would make small values more likely.
  uint64_t threshold = (0 - range) % range;
  for (double &value : t.data) {
    uint64_t draw;
    do
      draw = rng();
    while (draw < threshold);
    value = double(lo + int64_t(draw % range));
  }
  return t;
}

} // namespace indexpool::ref
