//===- Fidelity.cpp - indexpool-fidelity in one call ----------------------===//

#include "indexpool/Fidelity/Fidelity.h"

#include "indexpool/Fidelity/Metrics.h"
#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Reference/Reference.h"
#include "indexpool/Runtime/Npy.h"

#include <cstring>
#include <string>
#include <vector>

namespace indexpool::fidelity {

namespace {

/// A [rows, cols] f32 array read from .npy.
struct FloatArray {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

Status readFloat32(const std::string &what, const std::string &path,
                   FloatArray &out) {
  runtime::NpyArray array;
  std::string error;
  if (!runtime::readNpy(path, array, error))
    return Status::error(what + ": " + error);
  if (array.dtype != "<f4")
    return Status::error(what + ": " + path + " holds " + array.dtype +
                         ", expected float32 (<f4)");
  out.shape = array.shape;
  out.values.resize(array.bytes.size() / sizeof(float));
  std::memcpy(out.values.data(), array.bytes.data(), array.bytes.size());
  return Status();
}

/// Rows of `cols` values zero-padded to `paddedCols`.
std::vector<float> padColumns(const std::vector<float> &values, int64_t rows,
                              int64_t cols, int64_t paddedCols) {
  std::vector<float> padded(size_t(rows * paddedCols), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(padded.data() + r * paddedCols, values.data() + r * cols,
                size_t(cols) * sizeof(float));
  return padded;
}

Matrix toMatrix(const std::vector<float> &values, int64_t rows, int64_t cols) {
  Matrix matrix(rows, cols);
  for (size_t i = 0; i < matrix.data.size(); ++i)
    matrix.data[i] = values[i];
  return matrix;
}

bool isPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

} // namespace

Status runFidelity(const FidelityOptions &options, FidelityReport &report) {
  int64_t p = options.poolSize, k = options.k;
  if (!isPowerOfTwo(p) || p < 2 || p > 64)
    return Status::error("--pool-size=" + std::to_string(p) +
                         " must be a power of two in [2, 64]");
  if (k <= 0 || k % p != 0)
    return Status::error("--k=" + std::to_string(k) +
                         " must be a positive multiple of the pool size " +
                         std::to_string(p));
  if (options.last <= 0)
    return Status::error("--last=" + std::to_string(options.last) +
                         " must be positive");

  FloatArray keys, queries;
  if (Status status = readFloat32("--keys", options.keysPath, keys); !status)
    return status;
  if (Status status = readFloat32("--queries", options.queriesPath, queries);
      !status)
    return status;
  if (keys.shape.size() != 2 || keys.shape[0] == 0 || keys.shape[1] == 0)
    return Status::error("--keys: expected a non-empty [T, D] array, got " +
                         shapeText(keys.shape));
  if (queries.shape != keys.shape)
    return Status::error("--queries: expected the keys' shape " +
                         shapeText(keys.shape) + ", got " +
                         shapeText(queries.shape));
  int64_t tokens = keys.shape[0], dim = keys.shape[1];
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

  int64_t paddedDim = dim;
  if (options.rotate) {
    while (!isPowerOfTwo(paddedDim))
      ++paddedDim;
    if (paddedDim > 1024)
      return Status::error("--rotate: D = " + std::to_string(dim) +
                           " pads to " + std::to_string(paddedDim) +
                           ", beyond the Hadamard transform's 1024");
  }

  PoolingOptions pooling;
  pooling.poolSize = p;
  pooling.format = options.format;
  pooling.rotate = options.rotate;
  pooling.normScores = options.normScores;
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

  // The pooled keys and the selection, by the compiled kernels.
  std::vector<float> paddedKeys = padColumns(keys.values, tokens, dim, paddedDim);
  PooledKeys pooled;
  if (Status status = poolKeys(paddedKeys, tokens, paddedDim, pooling, pooled);
      !status)
    return status;
  int64_t rows = options.last, first = tokens - rows;
  std::vector<float> lastQueries(queries.values.begin() + first * dim,
                                 queries.values.end());
  lastQueries = padColumns(lastQueries, rows, dim, paddedDim);
  std::vector<int32_t> validPools(static_cast<size_t>(rows));
  for (int64_t m = 0; m < rows; ++m)
    validPools[size_t(m)] = int32_t((first + m) / p);
  std::vector<int32_t> tokensKept;
  if (Status status = selectTokens(pooled, lastQueries, rows, validPools, k,
                                   pooling, tokensKept);
      !status)
    return status;

  // Selection metrics: exact top-k of the original keys in float64.
  Matrix keyMatrix = toMatrix(keys.values, tokens, dim);
  std::vector<double> recalls, massRecalls;
  for (int64_t m = 0; m < rows; ++m) {
    int64_t i = first + m, n = (i / p) * p;
    std::vector<double> query(queries.values.begin() + i * dim,
                              queries.values.begin() + (i + 1) * dim);
    std::vector<int32_t> selected(tokensKept.begin() + m * k,
                                  tokensKept.begin() + (m + 1) * k);
    QueryFidelity q = compareSelection(keyMatrix, query.data(), n, k, selected);
    recalls.push_back(q.recall);
    massRecalls.push_back(q.massRecall);
  }

  // Pooled keys vs their originals, in the space the pooled keys live in
  // (rotated: H is orthonormal, so unquantized angles are the same).
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

  report.tokens = tokens;
  report.dim = dim;
  report.poolSize = p;
  report.k = k;
  report.queries = rows;
  report.groups = groups;
  report.format = poolFormatName(options.format);
  report.rotate = options.rotate;
  report.score = options.normScores ? "norm" : "uniform";
  report.recall = mean(recalls);
  report.recallP10 = percentile(recalls, 10);
  report.massRecall = mean(massRecalls);
  report.angleMean = mean(angles);
  report.angleMedian = percentile(angles, 50);
  report.angleP95 = percentile(angles, 95);
  report.reconExact = summary(ResidualKind::Exact);
  report.reconI8 = summary(ResidualKind::I8);
  report.reconFP8 = summary(ResidualKind::FP8);
  report.reconNone = summary(ResidualKind::None);
  return Status();
}

} // namespace indexpool::fidelity
