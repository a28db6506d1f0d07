//===- Metrics.cpp - what pooling loses, in float64 -----------------------===//

#include "indexpool/Fidelity/Metrics.h"

#include "indexpool/Reference/Numerics.h"
#include "indexpool/Reference/Reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace indexpool::fidelity {

double percentile(std::vector<double> values, double q) {
  if (values.empty())
    return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  double rank = q / 100.0 * double(values.size() - 1);
  size_t below = size_t(std::floor(rank));
  size_t above = std::min(below + 1, values.size() - 1);
  double fraction = rank - double(below);
  return values[below] + (values[above] - values[below]) * fraction;
}

double mean(const std::vector<double> &values) {
  if (values.empty())
    return std::numeric_limits<double>::quiet_NaN();
  return std::accumulate(values.begin(), values.end(), 0.0) /
         double(values.size());
}

static double dot(const double *a, const double *b, int64_t n) {
  double sum = 0;
  for (int64_t d = 0; d < n; ++d)
    sum += a[d] * b[d];
  return sum;
}

static double norm(const double *a, int64_t n) {
  return std::sqrt(dot(a, a, n));
}

static std::vector<double> logits(const Matrix &keys, const double *query,
                                  int64_t n) {
  std::vector<double> result(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t)
    result[size_t(t)] = dot(keys.row(t), query, keys.cols);
  return result;
}

static std::vector<int64_t> topKOf(const std::vector<double> &logits,
                                   int64_t k) {
  std::vector<int64_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  size_t kept = std::min(size_t(k), order.size());
  std::partial_sort(order.begin(), order.begin() + kept, order.end(),
                    [&](int64_t a, int64_t b) {
                      double la = logits[size_t(a)], lb = logits[size_t(b)];
                      return la > lb || (la == lb && a < b);
                    });
  order.resize(kept);
  return order;
}

std::vector<int64_t> exactTopK(const Matrix &keys, const double *query,
                               int64_t n, int64_t k) {
  return topKOf(logits(keys, query, n), k);
}

QueryFidelity compareSelection(const Matrix &keys, const double *query,
                               int64_t n, int64_t k,
                               const std::vector<int32_t> &selected) {
  std::vector<double> qk = logits(keys, query, n);
  std::vector<int64_t> exact = topKOf(qk, k);
  // Softmax(q.k / sqrt(D)) over [0, n); its normalization cancels in the
  // ratio but keeps the exponentials finite.
  double temperature = 1.0 / std::sqrt(double(keys.cols));
  double top = *std::max_element(qk.begin(), qk.end());
  std::vector<double> mass(qk.size());
  for (size_t t = 0; t < qk.size(); ++t)
    mass[t] = std::exp((qk[t] - top) * temperature);

  std::vector<char> inExact(static_cast<size_t>(n), 0);
  std::vector<char> seen(inExact.size(), 0);
  double exactMass = 0, selectedMass = 0;
  for (int64_t t : exact) {
    inExact[size_t(t)] = 1;
    exactMass += mass[size_t(t)];
  }
  int64_t hits = 0;
  for (int32_t t : selected) {
    if (t < 0 || t >= n || seen[size_t(t)])
      continue;
    seen[size_t(t)] = 1;
    hits += inExact[size_t(t)];
    selectedMass += mass[size_t(t)];
  }
  QueryFidelity result;
  result.recall = double(hits) / double(exact.size());
  result.massRecall = selectedMass / exactMass;
  return result;
}

std::vector<double> poolAnglesDegrees(const Matrix &keys, const Matrix &pooled,
                                      int64_t poolSize) {
  std::vector<double> angles;
  int64_t dim = keys.cols;
  for (int64_t g = 0; g < pooled.rows; ++g) {
    const double *p = pooled.row(g);
    double pooledNorm = norm(p, dim);
    for (int64_t s = 0; s < poolSize; ++s) {
      const double *key = keys.row(g * poolSize + s);
      double keyNorm = norm(key, dim);
      if (pooledNorm == 0 || keyNorm == 0)
        continue;
      double cosine = std::clamp(dot(p, key, dim) / (pooledNorm * keyNorm),
                                 -1.0, 1.0);
      angles.push_back(std::acos(cosine) * 180.0 / M_PI);
    }
  }
  return angles;
}

std::vector<double> reconstructionErrors(const Matrix &keys,
                                         const Matrix &pooled,
                                         int64_t poolSize, ResidualKind kind) {
  int64_t dim = keys.cols, rows = pooled.rows * poolSize;
  // The residuals as the residual op stores them (f32), then quantized by
  // the quantize op's float64 reference (min_absmax 1e-4, no pow2 scale).
  ref::HostTensor residual =
      ref::HostTensor::zeros(ref::ElementType::F32, {rows, dim});
  for (int64_t t = 0; t < rows; ++t)
    for (int64_t d = 0; d < dim; ++d)
      residual.data[size_t(t * dim + d)] =
          kind == ResidualKind::None
              ? 0.0
              : keys.row(t)[d] - pooled.row(t / poolSize)[d];
  if (kind == ResidualKind::I8 || kind == ResidualKind::FP8) {
    for (double &r : residual.data)
      r = ref::roundToF32(r);
    ref::QuantizeResult quantized = ref::quantize(
        residual,
        kind == ResidualKind::I8 ? ref::ElementType::I8
                                 : ref::ElementType::F8E4M3FN,
        /*pow2Scale=*/false);
    for (int64_t t = 0; t < rows; ++t)
      for (int64_t d = 0; d < dim; ++d)
        residual.data[size_t(t * dim + d)] =
            quantized.q.data[size_t(t * dim + d)] *
            quantized.scale.data[size_t(t)];
  }

  std::vector<double> errors;
  for (int64_t t = 0; t < rows; ++t) {
    const double *key = keys.row(t), *p = pooled.row(t / poolSize);
    double keyNorm = norm(key, dim);
    if (keyNorm == 0)
      continue;
    double error = 0;
    for (int64_t d = 0; d < dim; ++d) {
      double diff = (p[d] + residual.data[size_t(t * dim + d)]) - key[d];
      error += diff * diff;
    }
    errors.push_back(std::sqrt(error) / keyNorm);
  }
  return errors;
}

} // namespace indexpool::fidelity
