//===- Calibrate.h - fit the pooling bias to recorded attention -*- C++ -*-===//
//
// indexpool-calibrate: the design's "start with uniform weights, then adjust
// based on historical attention patterns". From recorded keys and queries it
// fits the bias (per slot [P], or per slot and channel [P, D]) and,
// optionally, the temperature of the pool weights
//
//   w[g, s(, d)] = softmax_s((scores[g*P+s] + bias[s(, d)]) / temperature)
//
// to maximise the attention-mass recall (Metrics.h) of the pooled selection
// over training positions, and measures the result on held-out positions
// through the compiled kernels (PooledSelection.h), as indexpool-fidelity
// does.
//
// Positions: of T, the last M are held out and the N before them train;
// position i is the causal decode query of indexpool-fidelity (the tokens
// before (i / P) * P, its i / P complete pools).
//
// The search runs on a float64 model of pooling + selection: pooled keys
// sum_s w k (unquantized, unrotated: the Hadamard rotation is orthonormal and
// leaves every q.k as it is), pools ranked by q.pooled, the min(K/P, i/P)
// best kept (ties to the smaller pool), the objective the mean mass recall
// of their tokens. It is piecewise constant in the parameters, so the search
// is derivative-free: a compass search from bias 0, temperature 1 that tries
// each parameter +-step (then keeps doubling a successful step), halves
// every step after a round without a strict gain, and stops when the steps
// fall below 1/64 or after `maxRounds` rounds. The parameters: the bias of
// each slot, per channel group for a channel bias, and log2(temperature).
// A channel bias is coarse: the channels are ranked by mean |k_d| and split
// into `channelGroups` groups of (nearly) equal size that share a value per
// slot (outlier channels end up together). The fitted bias is centred over
// the slots (the softmax does not see a constant).
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_FIDELITY_CALIBRATE_H
#define INDEXPOOL_FIDELITY_CALIBRATE_H

#include "indexpool/API/Status.h"
#include "indexpool/Fidelity/PooledSelection.h"

#include <cstdint>
#include <string>
#include <vector>

namespace indexpool::fidelity {

enum class BiasKind { Slot, Channel };

/// Query-aware pooling scores fitted with the bias: scores[t] = g . k_t,
/// g = sum_j beta_j u_j over a basis fitted from the training positions:
///   MeanQuery  one direction, the mean of the training queries;
///   Channel    the D channels (g free per channel);
/// each u_j scaled so that u_j . k has unit RMS over the training keys,
/// every beta_j a parameter of the search starting at 0 (uniform pooling).
/// The pool op takes any scores: a gate changes their producer, not an op.
enum class GateKind { None, MeanQuery, Channel };

struct CalibrateOptions {
  std::string keysPath;
  std::string queriesPath;
  int64_t poolSize = 4;
  int64_t k = 256;
  BiasKind bias = BiasKind::Slot;
  /// Channel bias: how many groups of channels share a value per slot.
  int64_t channelGroups = 4;
  /// Fit the temperature too (norm scores only: with zero scores it would
  /// only rescale the bias).
  bool fitTemperature = false;
  bool normScores = false;
  /// Fit a gate too (excludes normScores).
  GateKind gate = GateKind::None;
  /// Training positions N and held-out positions M (the last M).
  int64_t train = 256;
  int64_t heldOut = 64;
  /// The pooled keys of the held-out measurement (the model is unquantized).
  PoolFormat format = PoolFormat::None;
  bool rotate = false;
  int64_t maxRounds = 60;
};

/// Mean recall and attention-mass recall over a set of positions.
struct SelectionQuality {
  double recall = 0;
  double massRecall = 0;
};

struct CalibrationResult {
  // The setup.
  int64_t tokens = 0;
  int64_t dim = 0;
  int64_t poolSize = 0;
  int64_t k = 0;
  int64_t train = 0;
  int64_t heldOut = 0;
  std::string format;
  bool rotate = false;
  std::string score;
  std::string biasKind;
  int64_t channelGroups = 0;
  // The fit: [P] or [P, D] f32, and the temperature.
  std::vector<int64_t> biasShape;
  std::vector<float> bias;
  /// The fitted values: [P, channelGroups] (channelGroups 1 for a slot bias).
  std::vector<float> slotGroupBias;
  float temperature = 1.0f;
  /// The fitted gate g, [D] f32 (empty without --gate).
  std::vector<float> gate;
  std::string gateKind = "none";
  int64_t rounds = 0;
  int64_t evaluations = 0;
  // The float64 model on the training positions: uniform (bias 0,
  // temperature 1) and fitted.
  SelectionQuality trainBefore, trainAfter;
  // The compiled kernels on the held-out positions: no bias, temperature 1
  // (indexpool-fidelity without --bias), and fitted.
  SelectionQuality heldOutBefore, heldOutAfter;
};

/// Reads the keys and queries, fits, and measures. Every bad file or
/// setting is one line in the returned Status.
Status runCalibration(const CalibrateOptions &options,
                      CalibrationResult &result);

/// Writes result.bias as a float32 .npy of result.biasShape.
Status writeBiasNpy(const std::string &path, const CalibrationResult &result);
/// Writes result.gate as a float32 .npy of shape [D].
Status writeGateNpy(const std::string &path, const CalibrationResult &result);

/// Human-readable lines.
std::string formatCalibrationText(const CalibrationResult &result);
/// One JSON object: mass_recall_before / _after and recall_before / _after
/// (held out, compiled), train_mass_recall_before / _after and
/// train_recall_before / _after (model), temperature, bias_shape, rounds,
/// evaluations, and the setup (tokens, dim, pool_size, k, train, held_out,
/// format, rotate, score, bias, channel_groups).
std::string formatCalibrationJson(const CalibrationResult &result);

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_CALIBRATE_H
