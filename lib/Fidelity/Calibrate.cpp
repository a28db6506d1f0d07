//===- Calibrate.cpp - fit the pooling bias to recorded attention ---------===//

#include "indexpool/Fidelity/Calibrate.h"

#include "indexpool/Fidelity/Fidelity.h"
#include "indexpool/Fidelity/Inputs.h"
#include "indexpool/Fidelity/Metrics.h"
#include "indexpool/Fidelity/Report.h"
#include "indexpool/Runtime/Npy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace indexpool::fidelity {

namespace {

/// One training position, reduced to what the objective needs.
struct TrainingQuery {
  /// Complete pools before the position.
  int64_t pools = 0;
  /// q.k of each token before it, split by channel group: [pools * P, C].
  std::vector<double> partial;
  /// Softmax mass of each pool's tokens over that of the exact top-k, and
  /// how many of the exact top-k each pool holds.
  std::vector<double> poolMass;
  std::vector<int32_t> poolHits;
  int64_t exactCount = 0;
};

/// The gate basis of Calibrate.h's GateKind, [J, D] row-major (J = 0 for
/// none), from the training queries and the tokens they see.
std::vector<double> gateBasis(const Matrix &keys, const Matrix &queries,
                              int64_t first, int64_t count, int64_t seen,
                              GateKind kind, int64_t &directions) {
  int64_t dim = keys.cols;
  std::vector<double> basis;
  if (kind == GateKind::MeanQuery) {
    directions = 1;
    basis.assign(size_t(dim), 0.0);
    for (int64_t i = first; i < first + count; ++i)
      for (int64_t d = 0; d < dim; ++d)
        basis[size_t(d)] += queries.row(i)[d];
  } else if (kind == GateKind::Channel) {
    directions = dim;
    basis.assign(size_t(dim * dim), 0.0);
    for (int64_t d = 0; d < dim; ++d)
      basis[size_t(d * dim + d)] = 1.0;
  } else {
    directions = 0;
    return basis;
  }
  // Unit RMS of u_j . k over the seen keys: one step size fits every j.
  for (int64_t j = 0; j < directions; ++j) {
    double *u = basis.data() + j * dim, sum = 0;
    for (int64_t t = 0; t < seen; ++t) {
      double dot = 0;
      for (int64_t d = 0; d < dim; ++d)
        dot += u[d] * keys.row(t)[d];
      sum += dot * dot;
    }
    double rms = std::sqrt(sum / double(std::max<int64_t>(seen, 1)));
    for (int64_t d = 0; d < dim; ++d)
      u[d] = rms > 0 ? u[d] / rms : 0.0;
  }
  return basis;
}

/// The float64 model of pooling + selection (see Calibrate.h). Parameters:
/// bias[s * C + c], then the gate's beta_j, then log2(temperature) when it
/// is fitted.
class Model {
public:
  Model(const Matrix &keys, const Matrix &queries, int64_t first, int64_t count,
        const CalibrateOptions &options, const std::vector<int64_t> &groupOf,
        int64_t groups)
      : p(options.poolSize), c(groups), keep(options.k / options.poolSize),
        fitTemperature(options.fitTemperature) {
    int64_t dim = keys.cols, lastPools = (first + count - 1) / p;
    basis = gateBasis(keys, queries, first, count, lastPools * p,
                      options.gate, directions);
    basisScores.assign(size_t(lastPools * p * directions), 0.0);
    for (int64_t t = 0; t < lastPools * p; ++t)
      for (int64_t j = 0; j < directions; ++j)
        for (int64_t d = 0; d < dim; ++d)
          basisScores[size_t(t * directions + j)] +=
              basis[size_t(j * dim + d)] * keys.row(t)[d];
    scores.assign(size_t(lastPools * p), 0.0);
    if (options.normScores)
      for (int64_t t = 0; t < lastPools * p; ++t) {
        double sum = 0;
        for (int64_t d = 0; d < dim; ++d)
          sum += keys.row(t)[d] * keys.row(t)[d];
        // As poolKeys computes them: f32.
        scores[size_t(t)] = float(std::sqrt(sum));
      }
    for (int64_t i = first; i < first + count; ++i) {
      TrainingQuery query;
      query.pools = i / p;
      int64_t n = query.pools * p;
      const double *q = queries.row(i);
      query.partial.assign(size_t(n * c), 0.0);
      std::vector<double> logits(static_cast<size_t>(n));
      for (int64_t t = 0; t < n; ++t) {
        double sum = 0;
        for (int64_t d = 0; d < dim; ++d) {
          double product = keys.row(t)[d] * q[d];
          sum += product;
          query.partial[size_t(t * c + groupOf[size_t(d)])] += product;
        }
        logits[size_t(t)] = sum;
      }
      // Masses and the exact top-k as compareSelection defines them.
      std::vector<int64_t> exact = exactTopK(keys, q, n, options.k);
      double top = *std::max_element(logits.begin(), logits.end());
      double scale = 1.0 / std::sqrt(double(dim)), exactMass = 0;
      std::vector<double> mass(static_cast<size_t>(n));
      for (int64_t t = 0; t < n; ++t)
        mass[size_t(t)] = std::exp((logits[size_t(t)] - top) * scale);
      for (int64_t t : exact)
        exactMass += mass[size_t(t)];
      query.poolMass.assign(size_t(query.pools), 0.0);
      query.poolHits.assign(size_t(query.pools), 0);
      for (int64_t t = 0; t < n; ++t)
        query.poolMass[size_t(t / p)] += mass[size_t(t)] / exactMass;
      for (int64_t t : exact)
        ++query.poolHits[size_t(t / p)];
      query.exactCount = int64_t(exact.size());
      trainingQueries.push_back(std::move(query));
    }
  }

  int64_t parameterCount() const {
    return p * c + directions + (fitTemperature ? 1 : 0);
  }
  bool isTemperature(int64_t j) const {
    return fitTemperature && j == p * c + directions;
  }
  /// The gate sum_j x[P C + j] u_j, [D].
  std::vector<double> gate(const std::vector<double> &x, int64_t dim) const {
    std::vector<double> g(size_t(dim), 0.0);
    for (int64_t j = 0; j < directions; ++j)
      for (int64_t d = 0; d < dim; ++d)
        g[size_t(d)] += x[size_t(p * c + j)] * basis[size_t(j * dim + d)];
    return g;
  }

  SelectionQuality evaluate(const std::vector<double> &x) {
    ++evaluations;
    double inverseTemperature =
        fitTemperature ? std::exp2(-x[size_t(p * c + directions)]) : 1.0;
    if (directions > 0) {
      gated.assign(scores.size(), 0.0);
      for (size_t t = 0; t < scores.size(); ++t)
        for (int64_t j = 0; j < directions; ++j)
          gated[t] += x[size_t(p * c + j)] *
                      basisScores[t * size_t(directions) + size_t(j)];
    }
    const std::vector<double> &tokenScores = directions > 0 ? gated : scores;
    // weights[(g * P + s) * C + c], softmax over s.
    int64_t pools = int64_t(scores.size()) / p;
    weights.assign(scores.size() * size_t(c), 0.0);
    std::vector<double> logit(static_cast<size_t>(p));
    for (int64_t g = 0; g < pools; ++g)
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t s = 0; s < p; ++s)
          logit[size_t(s)] =
              (tokenScores[size_t(g * p + s)] + x[size_t(s * c + ch)]) *
              inverseTemperature;
        double top = *std::max_element(logit.begin(), logit.end()), sum = 0;
        for (int64_t s = 0; s < p; ++s)
          sum += logit[size_t(s)] = std::exp(logit[size_t(s)] - top);
        for (int64_t s = 0; s < p; ++s)
          weights[size_t((g * p + s) * c + ch)] = logit[size_t(s)] / sum;
      }

    SelectionQuality quality;
    std::vector<double> poolScore;
    std::vector<int64_t> order;
    for (const TrainingQuery &query : trainingQueries) {
      int64_t n = query.pools * p;
      poolScore.assign(size_t(query.pools), 0.0);
      for (int64_t j = 0; j < n * c; ++j)
        poolScore[size_t(j / (p * c))] +=
            weights[size_t(j)] * query.partial[size_t(j)];
      order.resize(size_t(query.pools));
      std::iota(order.begin(), order.end(), 0);
      size_t kept = size_t(std::min(keep, query.pools));
      std::nth_element(order.begin(), order.begin() + kept - 1, order.end(),
                       [&](int64_t a, int64_t b) {
                         double sa = poolScore[size_t(a)],
                                sb = poolScore[size_t(b)];
                         return sa > sb || (sa == sb && a < b);
                       });
      double mass = 0;
      int64_t hits = 0;
      for (size_t j = 0; j < kept; ++j) {
        mass += query.poolMass[size_t(order[j])];
        hits += query.poolHits[size_t(order[j])];
      }
      quality.massRecall += mass;
      quality.recall += double(hits) / double(query.exactCount);
    }
    quality.massRecall /= double(trainingQueries.size());
    quality.recall /= double(trainingQueries.size());
    return quality;
  }

  int64_t evaluations = 0;

private:
  int64_t p, c, keep;
  bool fitTemperature;
  /// Pooling scores of the tokens of every pool a training position sees.
  std::vector<double> scores;
  /// The gate basis [J, D], u_j . k_t [tokens, J], and the gated scores.
  int64_t directions = 0;
  std::vector<double> basis, basisScores, gated;
  std::vector<TrainingQuery> trainingQueries;
  std::vector<double> weights;
};

/// The compass search of Calibrate.h; returns the parameters.
std::vector<double> search(Model &model, int64_t maxRounds, int64_t &rounds) {
  const double minStep = 1.0 / 64, maxStep = 64, gain = 1e-12;
  // log2(temperature) stays where 1 / temperature is a normal f32.
  const double maxLogTemperature = 16;
  int64_t count = model.parameterCount();
  std::vector<double> x(size_t(count), 0.0), step(size_t(count), 1.0);
  double best = model.evaluate(x).massRecall;
  // Tries x with parameter j moved by `delta`; keeps it on a strict gain.
  auto tryMove = [&](int64_t j, double delta) {
    std::vector<double> y = x;
    y[size_t(j)] += delta;
    if (model.isTemperature(j))
      y[size_t(j)] =
          std::clamp(y[size_t(j)], -maxLogTemperature, maxLogTemperature);
    if (y[size_t(j)] == x[size_t(j)])
      return false;
    double value = model.evaluate(y).massRecall;
    if (!(value > best + gain))
      return false;
    x = std::move(y);
    best = value;
    return true;
  };
  for (rounds = 0; rounds < maxRounds;) {
    ++rounds;
    bool improved = false;
    for (int64_t j = 0; j < count; ++j)
      for (double direction : {1.0, -1.0}) {
        if (!tryMove(j, direction * step[size_t(j)]))
          continue;
        improved = true;
        // Keep going that way with doubled steps while it gains.
        double size = 2 * step[size_t(j)];
        while (size <= maxStep && tryMove(j, direction * size))
          size *= 2;
        break;
      }
    if (improved)
      continue;
    bool done = true;
    for (double &size : step) {
      size /= 2;
      done = done && size < minStep;
    }
    if (done)
      break;
  }
  return x;
}

/// Mean recall and mass recall of the last `rows` positions, pooled and
/// selected by the compiled kernels as runFidelity does. The pooling
/// options have no temperature: at temperature T the weights are those at 1
/// of (scores + bias) / T, so the keys (whose norms are the scores) and the
/// bias go in divided by T; the pooled keys come out divided by T too, which
/// changes no pool's rank.
Status measureHeldOut(const FloatArray &keys, const FloatArray &queries,
                      const Matrix &keyMatrix, const CalibrateOptions &options,
                      const std::vector<int64_t> &biasShape,
                      const std::vector<float> &bias, float temperature,
                      const std::vector<float> &gate,
                      SelectionQuality &quality) {
  int64_t tokens = keys.shape[0], dim = keys.shape[1], p = options.poolSize,
          k = options.k;
  int64_t paddedDim = dim;
  while (options.rotate && !isPowerOfTwo(paddedDim))
    ++paddedDim;
  float inverse = 1.0f / temperature;
  std::vector<float> scaledKeys = keys.values;
  if (options.normScores && temperature != 1.0f)
    for (float &value : scaledKeys)
      value *= inverse;

  PoolingOptions pooling;
  pooling.poolSize = p;
  pooling.format = options.format;
  pooling.rotate = options.rotate;
  pooling.normScores = options.normScores;
  if (!gate.empty())
    pooling.gate = padColumns(gate, 1, dim, paddedDim);
  if (!biasShape.empty()) {
    std::vector<float> scaled = bias;
    for (float &value : scaled)
      value *= inverse;
    // Padded channels hold zero keys: their weights do not matter.
    pooling.bias =
        biasShape.size() == 1 ? scaled : padColumns(scaled, p, dim, paddedDim);
    pooling.biasShape = biasShape.size() == 1
                            ? std::vector<int64_t>{p}
                            : std::vector<int64_t>{p, paddedDim};
  }
  std::vector<float> paddedKeys =
      padColumns(scaledKeys, tokens, dim, paddedDim);
  PooledKeys pooled;
  if (Status status = poolKeys(paddedKeys, tokens, paddedDim, pooling, pooled);
      !status)
    return status;
  std::vector<double> recalls, massRecalls;
  if (Status status =
          measureSelections(pooled, pooling, queries.values, keyMatrix,
                            paddedDim, options.heldOut, k, recalls,
                            massRecalls);
      !status)
    return status;
  quality.recall = mean(recalls);
  quality.massRecall = mean(massRecalls);
  return Status();
}

/// Channel d's group: channels ranked by mean |k_d| (largest first, ties to
/// the smaller channel) and cut into `groups` nearly equal runs.
std::vector<int64_t> channelGroupsOf(const Matrix &keys, int64_t groups) {
  int64_t dim = keys.cols;
  std::vector<double> magnitude(size_t(dim), 0.0);
  for (int64_t t = 0; t < keys.rows; ++t)
    for (int64_t d = 0; d < dim; ++d)
      magnitude[size_t(d)] += std::abs(keys.row(t)[d]);
  std::vector<int64_t> order(static_cast<size_t>(dim));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    double ma = magnitude[size_t(a)], mb = magnitude[size_t(b)];
    return ma > mb || (ma == mb && a < b);
  });
  std::vector<int64_t> groupOf(static_cast<size_t>(dim));
  for (int64_t rank = 0; rank < dim; ++rank)
    groupOf[size_t(order[size_t(rank)])] = rank * groups / dim;
  return groupOf;
}

} // namespace

Status runCalibration(const CalibrateOptions &options,
                      CalibrationResult &result) {
  int64_t p = options.poolSize, k = options.k;
  if (Status status = checkPoolSizeAndK(p, k); !status)
    return status;
  if (options.train <= 0)
    return Status::error("--train=" + std::to_string(options.train) +
                         " must be positive");
  if (options.heldOut <= 0)
    return Status::error("--held-out=" + std::to_string(options.heldOut) +
                         " must be positive");
  if (options.fitTemperature && !options.normScores)
    return Status::error("--fit-temperature needs --score=norm: with uniform "
                         "scores the temperature only rescales the bias");
  if (options.gate != GateKind::None && options.normScores)
    return Status::error("--gate replaces the pooling scores: it cannot be "
                         "combined with --score=norm");

  FloatArray keys, queries;
  if (Status status = readKeysAndQueries(options.keysPath, options.queriesPath,
                                         keys, queries);
      !status)
    return status;
  int64_t tokens = keys.shape[0], dim = keys.shape[1];
  // The first training position must have a complete group before it.
  int64_t needed = options.train + options.heldOut + p;
  if (needed > tokens)
    return Status::error("--train=" + std::to_string(options.train) +
                         " and --held-out=" + std::to_string(options.heldOut) +
                         " need " + std::to_string(needed) +
                         " tokens (a complete group of " + std::to_string(p) +
                         " before the first training position), got " +
                         std::to_string(tokens));
  if (k > (tokens / p) * p)
    return Status::error("--k=" + std::to_string(k) + " exceeds the " +
                         std::to_string((tokens / p) * p) +
                         " tokens of complete groups");
  int64_t groups = options.bias == BiasKind::Slot ? 1 : options.channelGroups;
  if (groups < 1 || groups > dim)
    return Status::error("--channel-groups=" + std::to_string(groups) +
                         " must be in [1, D = " + std::to_string(dim) + "]");
  if (options.rotate) {
    int64_t paddedDim = dim;
    while (!isPowerOfTwo(paddedDim))
      ++paddedDim;
    if (paddedDim > 1024)
      return Status::error("--rotate: D = " + std::to_string(dim) +
                           " pads to " + std::to_string(paddedDim) +
                           ", beyond the Hadamard transform's 1024");
  }

  // The fit, on the float64 model of the training positions.
  Matrix keyMatrix = toMatrix(keys.values, tokens, dim);
  Matrix queryMatrix = toMatrix(queries.values, tokens, dim);
  std::vector<int64_t> groupOf = options.bias == BiasKind::Slot
                                     ? std::vector<int64_t>(size_t(dim), 0)
                                     : channelGroupsOf(keyMatrix, groups);
  int64_t firstTrain = tokens - options.heldOut - options.train;
  Model model(keyMatrix, queryMatrix, firstTrain, options.train, options,
              groupOf, groups);
  std::vector<double> uniform(size_t(model.parameterCount()), 0.0);
  result.trainBefore = model.evaluate(uniform);
  int64_t rounds = 0;
  std::vector<double> x = search(model, options.maxRounds, rounds);

  // Centred over the slots, in f32 as written; the model measures exactly
  // those values.
  std::vector<double> fitted(x.size(), 0.0);
  for (int64_t g = 0; g < groups; ++g) {
    double centre = 0;
    for (int64_t s = 0; s < p; ++s)
      centre += x[size_t(s * groups + g)];
    centre /= double(p);
    for (int64_t s = 0; s < p; ++s)
      fitted[size_t(s * groups + g)] =
          float(x[size_t(s * groups + g)] - centre);
  }
  for (int64_t j = p * groups; j < int64_t(x.size()); ++j)
    fitted[size_t(j)] = x[size_t(j)];
  if (options.gate != GateKind::None) {
    std::vector<double> gate = model.gate(x, dim);
    result.gate.assign(gate.begin(), gate.end());
  }
  result.temperature = 1.0f;
  if (options.fitTemperature) {
    result.temperature = float(std::exp2(x.back()));
    fitted.back() = std::log2(double(result.temperature));
  }
  result.trainAfter = model.evaluate(fitted);
  result.slotGroupBias.assign(size_t(p * groups), 0.0f);
  for (int64_t j = 0; j < p * groups; ++j)
    result.slotGroupBias[size_t(j)] = float(fitted[size_t(j)]);
  if (options.bias == BiasKind::Slot) {
    result.biasShape = {p};
    result.bias = result.slotGroupBias;
  } else {
    result.biasShape = {p, dim};
    result.bias.assign(size_t(p * dim), 0.0f);
    for (int64_t s = 0; s < p; ++s)
      for (int64_t d = 0; d < dim; ++d)
        result.bias[size_t(s * dim + d)] =
            result.slotGroupBias[size_t(s * groups + groupOf[size_t(d)])];
  }
  result.rounds = rounds;
  result.evaluations = model.evaluations;

  // Held out, through the compiled kernels.
  if (Status status = measureHeldOut(keys, queries, keyMatrix, options, {}, {},
                                     1.0f, {}, result.heldOutBefore);
      !status)
    return status;
  if (Status status = measureHeldOut(
          keys, queries, keyMatrix, options, result.biasShape, result.bias,
          result.temperature, result.gate, result.heldOutAfter);
      !status)
    return status;

  result.tokens = tokens;
  result.dim = dim;
  result.poolSize = p;
  result.k = k;
  result.train = options.train;
  result.heldOut = options.heldOut;
  result.format = poolFormatName(options.format);
  result.rotate = options.rotate;
  result.score = options.normScores ? "norm" : "uniform";
  result.biasKind = options.bias == BiasKind::Slot ? "slot" : "channel";
  result.channelGroups = groups;
  result.gateKind = options.gate == GateKind::MeanQuery ? "mean-query"
                    : options.gate == GateKind::Channel ? "channel"
                                                        : "none";
  return Status();
}

Status writeGateNpy(const std::string &path, const CalibrationResult &result) {
  if (result.gate.empty())
    return Status::error("--gate-output: no gate was fitted (add --gate)");
  runtime::NpyArray array;
  array.dtype = "<f4";
  array.shape = {int64_t(result.gate.size())};
  array.bytes.resize(result.gate.size() * sizeof(float));
  std::memcpy(array.bytes.data(), result.gate.data(), array.bytes.size());
  std::string error;
  if (!runtime::writeNpy(path, array, error))
    return Status::error("--gate-output: " + error);
  return Status();
}

Status writeBiasNpy(const std::string &path, const CalibrationResult &result) {
  runtime::NpyArray array;
  array.dtype = "<f4";
  array.shape = result.biasShape;
  array.bytes.resize(result.bias.size() * sizeof(float));
  std::memcpy(array.bytes.data(), result.bias.data(), array.bytes.size());
  std::string error;
  if (!runtime::writeNpy(path, array, error))
    return Status::error("-o: " + error);
  return Status();
}

static std::string fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4f", value);
  return text;
}

std::string formatCalibrationText(const CalibrationResult &r) {
  std::string text;
  text += "keys: " + std::to_string(r.tokens) + " x " + std::to_string(r.dim) +
          ", pool size " + std::to_string(r.poolSize) +
          ", k = " + std::to_string(r.k) + ", format " + r.format +
          (r.rotate ? ", rotated" : "") + ", scores " + r.score + "\n";
  int64_t heldOutStart = r.tokens - r.heldOut,
          trainStart = heldOutStart - r.train;
  text += "positions: train " + std::to_string(trainStart) + ".." +
          std::to_string(heldOutStart - 1) + " (" + std::to_string(r.train) +
          "), held out " + std::to_string(heldOutStart) + ".." +
          std::to_string(r.tokens - 1) + " (" + std::to_string(r.heldOut) +
          ")\n";
  text += "fit (float64 model, training positions; " +
          std::to_string(r.rounds) + " rounds, " +
          std::to_string(r.evaluations) + " evaluations):\n";
  text += "  mass recall     before " + percentText(r.trainBefore.massRecall) +
          "  after " + percentText(r.trainAfter.massRecall) + "\n";
  text += "  recall          before " + percentText(r.trainBefore.recall) +
          "  after " + percentText(r.trainAfter.recall) + "\n";
  if (r.biasKind == "slot") {
    text += "bias (per slot):";
    for (float value : r.slotGroupBias)
      text += " " + fixed(value);
    text += "\n";
  } else {
    text += "bias [" + std::to_string(r.poolSize) + ", " +
            std::to_string(r.dim) + "] per slot and channel group (" +
            std::to_string(r.channelGroups) +
            " groups by mean |k_d|, largest first):\n";
    for (int64_t s = 0; s < r.poolSize; ++s) {
      text += "  slot " + std::to_string(s) + ":";
      for (int64_t g = 0; g < r.channelGroups; ++g)
        text += " " + fixed(r.slotGroupBias[size_t(s * r.channelGroups + g)]);
      text += "\n";
    }
  }
  text += "temperature: " + jsonNumber(r.temperature) + "\n";
  if (!r.gate.empty()) {
    text += "gate (" + r.gateKind + "; pooling scores g . k_t):";
    for (float value : r.gate)
      text += " " + fixed(value);
    text += "\n";
  }
  text += "held out (compiled kernels; before: no bias, temperature 1" +
          std::string(r.gate.empty() ? "" : ", no gate") + "):\n";
  text += "  mass recall     before " + percentText(r.heldOutBefore.massRecall) +
          "  after " + percentText(r.heldOutAfter.massRecall) + "\n";
  text += "  recall          before " + percentText(r.heldOutBefore.recall) +
          "  after " + percentText(r.heldOutAfter.recall) + "\n";
  return text;
}

std::string formatCalibrationJson(const CalibrationResult &r) {
  std::string json = "{";
  bool first = true;
  auto field = [&](const char *key, const std::string &value) {
    json += std::string(first ? "" : ", ") + "\"" + key + "\": " + value;
    first = false;
  };
  field("mass_recall_before", jsonNumber(r.heldOutBefore.massRecall));
  field("mass_recall_after", jsonNumber(r.heldOutAfter.massRecall));
  field("recall_before", jsonNumber(r.heldOutBefore.recall));
  field("recall_after", jsonNumber(r.heldOutAfter.recall));
  field("train_mass_recall_before", jsonNumber(r.trainBefore.massRecall));
  field("train_mass_recall_after", jsonNumber(r.trainAfter.massRecall));
  field("train_recall_before", jsonNumber(r.trainBefore.recall));
  field("train_recall_after", jsonNumber(r.trainAfter.recall));
  field("temperature", jsonNumber(r.temperature));
  std::string shape = "[";
  for (size_t i = 0; i < r.biasShape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(r.biasShape[i]);
  field("bias_shape", shape + "]");
  field("rounds", std::to_string(r.rounds));
  field("evaluations", std::to_string(r.evaluations));
  field("tokens", std::to_string(r.tokens));
  field("dim", std::to_string(r.dim));
  field("pool_size", std::to_string(r.poolSize));
  field("k", std::to_string(r.k));
  field("train", std::to_string(r.train));
  field("held_out", std::to_string(r.heldOut));
  field("format", "\"" + r.format + "\"");
  field("rotate", r.rotate ? "true" : "false");
  field("score", "\"" + r.score + "\"");
  field("bias", "\"" + r.biasKind + "\"");
  field("channel_groups", std::to_string(r.channelGroups));
  field("gate_kind", "\"" + r.gateKind + "\"");
  std::string gate = "[";
  for (size_t i = 0; i < r.gate.size(); ++i)
    gate += (i ? ", " : "") + jsonNumber(r.gate[i]);
  field("gate", gate + "]");
  return json + "}\n";
}

} // namespace indexpool::fidelity
