//===- Report.h - the fidelity numbers, as text or JSON ---------*- C++ -*-===//
#ifndef INDEXPOOL_FIDELITY_REPORT_H
#define INDEXPOOL_FIDELITY_REPORT_H

#include <cstdint>
#include <string>

namespace indexpool::fidelity {

/// A JSON number with 9 significant digits ("null" when not finite).
std::string jsonNumber(double value);
/// "12.345%" for 0.12345.
std::string percentText(double fraction);

struct ErrorSummary {
  double mean = 0;
  double p99 = 0;
};

struct FidelityReport {
  // The setup measured.
  int64_t tokens = 0;
  int64_t dim = 0;
  int64_t poolSize = 0;
  int64_t k = 0;
  int64_t queries = 0;
  int64_t groups = 0;
  std::string format;
  bool rotate = false;
  std::string score;
  /// The refine factor C (0: select alone) and the keys it reads: "exact",
  /// or a residual tier's "i8" / "fp8".
  int64_t refine = 0;
  std::string refineKeys = "exact";
  /// "mean" or "max-aware", max-aware's bound weight (0 for mean) and how
  /// it stores its radius ("f32", "e5m2"; empty for mean).
  std::string firstStage = "mean";
  double boundWeight = 0;
  std::string radiusFormat;
  // Selection, over the queries.
  double recall = 0;
  double recallP10 = 0;
  double massRecall = 0;
  // Pooled key vs its originals, over every complete group, degrees.
  double angleMean = 0;
  double angleMedian = 0;
  double angleP95 = 0;
  // ||k_hat - k|| / ||k|| (fractions) by residual kept.
  ErrorSummary reconExact, reconI8, reconFP8, reconNone;
  // Bytes one query reads (mean over the queries): the pooled keys it
  // scores (codes and scales), the token keys refine re-scores (f32, as
  // given), and what a token-level FP8 indexer would read (D code bytes
  // and a 4-byte scale per token before the query).
  double bytesPooled = 0;
  double bytesRefine = 0;
  double bytesTokenFP8 = 0;
};

/// Human-readable lines.
std::string formatText(const FidelityReport &report);
/// One JSON object: recall, recall_p10, mass_recall, angle_mean_deg,
/// angle_median_deg, angle_p95_deg, recon_{none,i8,fp8,exact} (means) and
/// their *_p99, bytes_pooled, bytes_refine, bytes_token_fp8, bytes_total
/// (pooled + refine) and bytes_ratio (bytes_total / bytes_token_fp8), plus
/// the setup (tokens, dim, pool_size, k, refine, refine_keys, first_stage,
/// bound_weight, radius_format, queries, groups, format, rotate, score).
/// Non-finite numbers are null.
std::string formatJson(const FidelityReport &report);

} // namespace indexpool::fidelity

#endif // INDEXPOOL_FIDELITY_REPORT_H
