//===- Fidelity.cpp - indexpool-fidelity in one call ----------------------===//

#include "indexpool/Fidelity/Fidelity.h"

#include "indexpool/Fidelity/Inputs.h"
#include "indexpool/Fidelity/Metrics.h"
#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Reference/Reference.h"
#include "indexpool/Runtime/Npy.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace indexpool::fidelity {

const char *refineKeysName(RefineKeys keys) {
  switch (keys) {
  case RefineKeys::Exact: return "exact";
  case RefineKeys::ResidualI8: return "i8";
  case RefineKeys::ResidualFP8: return "fp8";
  case RefineKeys::TokenFP8: return "token-fp8";
  case RefineKeys::TokenI8: return "token-i8";
  }
  return "unknown";
}

Status measureSelections(const PooledKeys &pooled, const PoolingOptions &pooling,
                         const std::vector<float> &queries, const Matrix &keys,
                         int64_t paddedDim, int64_t rows, int64_t k,
                         std::vector<double> &recalls,
                         std::vector<double> &massRecalls,
                         const RefineOptions &refine) {
  int64_t tokens = keys.rows, dim = keys.cols, p = pooling.poolSize;
  int64_t first = tokens - rows;
  std::vector<float> lastQueries(queries.begin() + first * dim, queries.end());
  lastQueries = padColumns(lastQueries, rows, dim, paddedDim);
  std::vector<int32_t> validPools(static_cast<size_t>(rows));
  for (int64_t m = 0; m < rows; ++m)
    validPools[size_t(m)] = int32_t((first + m) / p);
  std::vector<int32_t> tokensKept;
  if (Status status = selectTokens(pooled, lastQueries, rows, validPools, k,
                                   pooling, tokensKept, refine);
      !status)
    return status;
  recalls.clear();
  massRecalls.clear();
  for (int64_t m = 0; m < rows; ++m) {
    int64_t i = first + m, n = (i / p) * p;
    std::vector<double> query(queries.begin() + i * dim,
                              queries.begin() + (i + 1) * dim);
    std::vector<int32_t> selected(tokensKept.begin() + m * k,
                                  tokensKept.begin() + (m + 1) * k);
    QueryFidelity q = compareSelection(keys, query.data(), n, k, selected);
    recalls.push_back(q.recall);
    massRecalls.push_back(q.massRecall);
  }
  return Status();
}

/// The options' checks that need the keys: --last, --k and --refine against
/// the T tokens, --bound-weight and --gate.
static Status checkAgainstKeys(const FidelityOptions &options,
                               int64_t tokens) {
  int64_t p = options.poolSize, k = options.k;
  if (options.last > tokens)
    return Status::error("--last=" + std::to_string(options.last) +
                         " exceeds the " + std::to_string(tokens) + " tokens");
  // The first query measured must have a complete group before it.
  if (tokens - options.last < p)
    return Status::error(
        "--last=" + std::to_string(options.last) +
        " reaches queries with no complete group before them (T - N must be "
        "at least the pool size " +
        std::to_string(p) + ")");
  int64_t groups = tokens / p;
  if (k > groups * p)
    return Status::error("--k=" + std::to_string(k) + " exceeds the " +
                         std::to_string(groups * p) +
                         " tokens of complete groups");
  if (options.refine < 0)
    return Status::error("--refine=" + std::to_string(options.refine) +
                         " must be positive (0: no refinement)");
  if (!(options.boundWeight >= 0) || !std::isfinite(options.boundWeight))
    return Status::error("--bound-weight=" + jsonNumber(options.boundWeight) +
                         " must be a finite non-negative number");
  if (!options.gatePath.empty() && options.normScores)
    return Status::error("--gate replaces the pooling scores: it cannot be "
                         "combined with --score=norm");
  if (options.refine > 0 && options.refine > groups * p / k)
    return Status::error("--refine=" + std::to_string(options.refine) +
                         " keeps " + std::to_string(options.refine) + " x " +
                         std::to_string(k / p) + " pools, more than the " +
                         std::to_string(groups) + " complete groups");
  return Status();
}

/// D, or with --rotate the power of two the keys are padded to.
static Status padDimension(const FidelityOptions &options, int64_t dim,
                           int64_t &paddedDim) {
  paddedDim = dim;
  if (options.rotate) {
    while (!isPowerOfTwo(paddedDim))
      ++paddedDim;
    if (paddedDim > 1024)
      return Status::error("--rotate: D = " + std::to_string(dim) +
                           " pads to " + std::to_string(paddedDim) +
                           ", beyond the Hadamard transform's 1024");
  }
  return Status();
}

/// How the keys are pooled: the options, and the --gate and --bias files
/// read and padded to `paddedDim` channels.
static Status poolingOf(const FidelityOptions &options, int64_t dim,
                        int64_t paddedDim, PoolingOptions &pooling) {
  int64_t p = options.poolSize;
  pooling.poolSize = p;
  pooling.format = options.format;
  pooling.rotate = options.rotate;
  pooling.normScores = options.normScores;
  pooling.firstStage = options.firstStage;
  pooling.boundWeight = options.boundWeight;
  pooling.radiusFormat = options.radiusFormat;
  if (!options.gatePath.empty()) {
    FloatArray gate;
    if (Status status = readFloat32("--gate", options.gatePath, gate); !status)
      return status;
    if (gate.shape != std::vector<int64_t>{dim})
      return Status::error("--gate: expected [" + std::to_string(dim) +
                           "], got " + shapeText(gate.shape));
    // Padded channels hold zero keys: their gate does not matter.
    pooling.gate = padColumns(gate.values, 1, dim, paddedDim);
  }
  if (!options.biasPath.empty()) {
    FloatArray bias;
    if (Status status = readFloat32("--bias", options.biasPath, bias); !status)
      return status;
    if (bias.shape == std::vector<int64_t>{p}) {
      pooling.bias = bias.values;
    } else if (bias.shape == std::vector<int64_t>{p, dim}) {
      // Padded channels hold zero keys: their weights do not matter.
      pooling.bias = padColumns(bias.values, p, dim, paddedDim);
    } else {
      return Status::error("--bias: expected [" + std::to_string(p) +
                           "] or [" + std::to_string(p) + ", " +
                           std::to_string(dim) + "], got " +
                           shapeText(bias.shape));
    }
    pooling.biasShape = bias.shape.size() == 1
                            ? std::vector<int64_t>{p}
                            : std::vector<int64_t>{p, paddedDim};
  }
  return Status();
}

/// With --refine: the token keys refine reads, in the queries' space:
/// unrotated (zero padding does not change q.k); exact, or as a residual
/// or token tier (kept in `tier`) reconstructs them.
static Status refineOf(const FidelityOptions &options,
                       const std::vector<float> &paddedKeys, int64_t tokens,
                       int64_t paddedDim, int64_t groups,
                       const PooledKeys &pooled, RefineOptions &refine,
                       std::vector<float> &tier) {
  int64_t p = options.poolSize;
  refine.factor = options.refine;
  refine.keys = &paddedKeys;
  refine.tokens = tokens;
  switch (options.refineKeys) {
  case RefineKeys::Exact: break;
  case RefineKeys::ResidualI8:
  case RefineKeys::ResidualFP8:
    if (Status status = tierKeys(
            paddedKeys, tokens, pooled, p, options.rotate,
            options.refineKeys == RefineKeys::ResidualI8 ? PoolFormat::I8
                                                         : PoolFormat::FP8,
            tier);
        !status)
      return status;
    refine.keys = &tier;
    refine.tokens = groups * p;
    break;
  case RefineKeys::TokenFP8:
  case RefineKeys::TokenI8:
    if (Status status = tokenTierKeys(
            paddedKeys, tokens, paddedDim, options.rotate,
            options.refineKeys == RefineKeys::TokenI8 ? PoolFormat::I8
                                                      : PoolFormat::FP8,
            tier);
        !status)
      return status;
    refine.keys = &tier;
    break;
  }
  return Status();
}

/// The bytes the measured queries read, summed over them.
struct Traffic {
  double pooledBytes = 0, refineBytes = 0, tokenBytes = 0;
};

/// Traffic per query: its valid pools (codes + scale, or f32; plus the
/// radius of a max-aware first stage), the candidate tokens refine
/// reads (f32 rows, or a tier's codes + scale: a residual tier's pooled
/// keys were read by the scan), and a token-level FP8 indexer's
/// n x (D + 4) bytes.
static Traffic trafficOf(const FidelityOptions &options, int64_t tokens,
                         int64_t paddedDim) {
  int64_t p = options.poolSize, k = options.k;
  int64_t poolBytes = pooledKeyBytes(options.format, paddedDim) +
                      (options.firstStage == FirstStage::MaxAware
                           ? radiusBytes(options.radiusFormat)
                           : 0);
  // A token entry of one-byte codes (FP8 or INT8) and its scale.
  const int64_t tokenEntryBytes = pooledKeyBytes(PoolFormat::FP8, paddedDim);
  int64_t refineRowBytes = options.refineKeys == RefineKeys::Exact
                               ? paddedDim * 4
                               : tokenEntryBytes;
  double pooledBytes = 0, refineBytes = 0, tokenBytes = 0;
  for (int64_t i = tokens - options.last; i < tokens; ++i) {
    int64_t valid = i / p;
    pooledBytes += double(valid) * double(poolBytes);
    if (options.refine > 0)
      refineBytes += double(std::min(options.refine * (k / p), valid) * p) *
                     double(refineRowBytes);
    tokenBytes += double(valid * p) * double(tokenEntryBytes);
  }
  return {pooledBytes, refineBytes, tokenBytes};
}

/// Pooled keys vs their originals, in the space the pooled keys live in
/// (rotated: H is orthonormal, so unquantized angles are the same): the
/// report's angles and reconstruction errors.
static void reportPooledKeys(const FidelityOptions &options,
                             const std::vector<float> &paddedKeys,
                             int64_t tokens, int64_t paddedDim,
                             const PooledKeys &pooled,
                             FidelityReport &report) {
  int64_t p = options.poolSize;
  Matrix space = toMatrix(paddedKeys, tokens, paddedDim);
  if (options.rotate) {
    ref::HostTensor x{ref::ElementType::F32, {tokens, paddedDim}, space.data};
    space.data = ref::hadamard(x, ref::ElementType::F32).data;
  }
  Matrix pooledKeys = pooled.dequantized();
  std::vector<double> angles = poolAnglesDegrees(space, pooledKeys, p);
  auto summary = [&](ResidualKind kind) {
    std::vector<double> errors =
        reconstructionErrors(space, pooledKeys, p, kind);
    return ErrorSummary{mean(errors), percentile(errors, 99)};
  };
  report.angleMean = mean(angles);
  report.angleMedian = percentile(angles, 50);
  report.angleP95 = percentile(angles, 95);
  report.reconExact = summary(ResidualKind::Exact);
  report.reconI8 = summary(ResidualKind::I8);
  report.reconFP8 = summary(ResidualKind::FP8);
  report.reconNone = summary(ResidualKind::None);
}

Status runFidelity(const FidelityOptions &options, FidelityReport &report) {
  int64_t p = options.poolSize, k = options.k;
  if (Status status = checkPoolSizeAndK(p, k); !status)
    return status;
  if (options.last <= 0)
    return Status::error("--last=" + std::to_string(options.last) +
                         " must be positive");

  FloatArray keys, queries;
  if (Status status = readKeysAndQueries(options.keysPath, options.queriesPath,
                                         keys, queries);
      !status)
    return status;
  int64_t tokens = keys.shape[0], dim = keys.shape[1];
  if (Status status = checkAgainstKeys(options, tokens); !status)
    return status;
  int64_t groups = tokens / p;

  int64_t paddedDim = 0;
  if (Status status = padDimension(options, dim, paddedDim); !status)
    return status;

  PoolingOptions pooling;
  if (Status status = poolingOf(options, dim, paddedDim, pooling); !status)
    return status;

  // The pooled keys and the selection, by the compiled kernels.
  std::vector<float> paddedKeys = padColumns(keys.values, tokens, dim, paddedDim);
  PooledKeys pooled;
  if (Status status = poolKeys(paddedKeys, tokens, paddedDim, pooling, pooled);
      !status)
    return status;

  // Selection metrics: exact top-k of the original keys in float64.
  Matrix keyMatrix = toMatrix(keys.values, tokens, dim);
  std::vector<double> recalls, massRecalls;
  RefineOptions refine;
  std::vector<float> tier;
  if (options.refine > 0) {
    if (Status status = refineOf(options, paddedKeys, tokens, paddedDim,
                                 groups, pooled, refine, tier);
        !status)
      return status;
  }
  if (Status status =
          measureSelections(pooled, pooling, queries.values, keyMatrix,
                            paddedDim, options.last, k, recalls, massRecalls,
                            refine);
      !status)
    return status;

  Traffic traffic = trafficOf(options, tokens, paddedDim);
  reportPooledKeys(options, paddedKeys, tokens, paddedDim, pooled, report);

  report.tokens = tokens;
  report.dim = dim;
  report.poolSize = p;
  report.k = k;
  report.refine = options.refine;
  report.refineKeys = refineKeysName(options.refineKeys);
  report.firstStage = firstStageName(options.firstStage);
  report.boundWeight =
      options.firstStage == FirstStage::MaxAware ? options.boundWeight : 0.0;
  report.radiusFormat = options.firstStage == FirstStage::MaxAware
                            ? radiusFormatName(options.radiusFormat)
                            : "";
  report.bytesPooled = traffic.pooledBytes / double(options.last);
  report.bytesRefine = traffic.refineBytes / double(options.last);
  report.bytesTokenFP8 = traffic.tokenBytes / double(options.last);
  report.queries = options.last;
  report.groups = groups;
  report.format = poolFormatName(options.format);
  report.rotate = options.rotate;
  report.score = !options.gatePath.empty() ? "gate"
                 : options.normScores      ? "norm"
                                           : "uniform";
  report.recall = mean(recalls);
  report.recallP10 = percentile(recalls, 10);
  report.massRecall = mean(massRecalls);
  return Status();
}

} // namespace indexpool::fidelity
