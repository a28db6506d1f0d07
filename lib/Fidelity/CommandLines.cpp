//===- CommandLines.cpp - the fidelity tools' flags ------------------------===//

#include "indexpool/Fidelity/CommandLines.h"
#include "indexpool/ToolSupport/Flags.h"
#include "indexpool/ToolSupport/ToolError.h"

using namespace indexpool::fidelity;
using indexpool::tools::Flags;

namespace {

/// --format's reader (parsePoolFormat: the code types from the table).
Flags::Reader poolFormatReader(PoolFormat &into) {
  return [&into](const std::string &option, const std::string &value) {
    std::string error;
    std::optional<PoolFormat> format = parsePoolFormat(value, error);
    if (!format)
      return option + ": " + error;
    into = *format;
    return std::string();
  };
}

} // namespace

std::optional<int> indexpool::fidelity::readFidelityCommandLine(
    int argc, const char *const *argv, FidelityOptions &options, bool &json) {
  constexpr const char *kTool = "indexpool-fidelity";
  bool normScores = false, weightGiven = false, radiusGiven = false;
  std::string score = "uniform";
  Flags flags(kTool, "what pooling loses, measured on your keys and queries",
              "--keys=@k.npy --queries=@q.npy [options]");
  flags.option("--keys", "@FILE.npy", "the keys, [T, D] float32 (any D)",
               Flags::file(options.keysPath))
      .required()
      .option("--queries", "@FILE.npy",
              "the queries, [T, D] float32: row i is the decode query at "
              "position i",
              Flags::file(options.queriesPath))
      .required()
      .option("--pool-size", "P", "keys per pool, a power of two in [2, 64]",
              Flags::number(options.poolSize, "an integer"))
      .option("--k", "K",
              "tokens selected per query (a multiple of P: K/P pools kept); "
              "a query with n < K tokens before it is compared on min(K, n)",
              Flags::number(options.k, "an integer"))
      .option("--format", "none|fp8|CODE",
              "how pooled keys are stored: none, the pool op's f32 keys; or "
              "codes with one f32 scale per key (the keys the angles see are "
              "then codes * scale): fp8 (= f8E4M3FN) or any code type "
              "(f8E4M3FN, i8: compress; codes below a byte, two a byte: "
              "compress_paged and select_paged, an odd D getting a zero "
              "channel)",
              poolFormatReader(options.format))
      .flag("--rotate",
            "Hadamard-rotate the pooled keys and the queries (the hadamard "
            "op; D zero-padded to the next power of two, queries too); "
            "angles and reconstruction are then measured in the rotated "
            "space, where the keys are stored",
            options.rotate)
      .option("--score", "uniform|norm",
              "pooling scores (softmax over each group of P): uniform, all "
              "zero (the mean of the group), or norm, scores[t] = ||k_t||",
              Flags::choiceOf(normScores, {{"uniform", false}, {"norm", true}}))
      .option("--bias", "@FILE.npy",
              "a bias [P] or [P, D] float32 added to the scores as the pool "
              "op does",
              Flags::file(options.biasPath))
      .option("--refine", "C",
              "two-stage selection: keep C x K / P pools and re-score their "
              "C x K tokens against the keys (indexpool.refine, f32, "
              "unrotated), keeping the best K (0: select alone)",
              Flags::number(options.refine, "an integer"))
      .option("--refine-keys", "exact|i8|fp8|token-fp8|token-i8",
              "the token keys --refine reads: exact, the keys as given (f32); "
              "i8, a residual tier's (each key's residual against its stored "
              "pooled key, int8 per vector, added back); fp8, the same with "
              "f8E4M3FN residual codes; token-fp8, a token tier's (each key, "
              "rotated with --rotate, as f8E4M3FN codes with one f32 scale); "
              "token-i8, the same with int8 codes",
              Flags::choiceOf(options.refineKeys,
                              {{"exact", RefineKeys::Exact},
                               {"i8", RefineKeys::ResidualI8},
                               {"fp8", RefineKeys::ResidualFP8},
                               {"token-fp8", RefineKeys::TokenFP8},
                               {"token-i8", RefineKeys::TokenI8}}))
      .option("--first-stage", "mean|max-aware",
              "how select ranks the pools: mean, q . p_g (the shipped "
              "select); max-aware, q . p_g + A ||q|| r_g with r_g = max_s "
              "||k_s - p_g|| stored per pool (--radius-format; ranked on the "
              "host: not a shipped op)",
              Flags::choiceOf(options.firstStage,
                              {{"mean", FirstStage::Mean},
                               {"max-aware", FirstStage::MaxAware}}))
      .option("--bound-weight", "A",
              "--first-stage=max-aware's weight A >= 0 of ||q|| r_g (1: an "
              "upper bound on the pool's best q . k)",
              Flags::number(options.boundWeight, "a number"))
      .given(weightGiven)
      .option("--radius-format", "f32|e5m2",
              "how --first-stage=max-aware stores r_g: f32, 4 bytes per "
              "pool; e5m2, 1 byte per pool, the f8E5M2 value at or above r_g "
              "(A = 1 stays an upper bound; saturates at 57344)",
              Flags::choiceOf(options.radiusFormat,
                              {{"f32", RadiusFormat::F32},
                               {"e5m2", RadiusFormat::E5M2}}))
      .given(radiusGiven)
      .option("--gate", "@FILE.npy",
              "query-aware pooling scores: a [D] float32 gate g, scores[t] = "
              "g . k_t (indexpool-calibrate --gate fits one); replaces --score",
              Flags::file(options.gatePath))
      .option("--last", "N",
              "measure the last N positions i as causal decode queries: over "
              "the keys before the largest multiple of P not above i",
              Flags::number(options.last, "an integer"))
      .flag("--json",
            "print one JSON object: recall, recall_p10, mass_recall, "
            "angle_mean_deg, angle_median_deg, angle_p95_deg, recon_none, "
            "recon_i8, recon_fp8, recon_exact (means, as fractions), their "
            "*_p99, bytes_pooled, bytes_refine, bytes_token_fp8, bytes_total, "
            "bytes_ratio (per query), and the setup",
            json)
      .epilog(
          "The keys are pooled (pool or compress) and the last N queries "
          "select K tokens (select: score, topk, expand) by the project's "
          "compiled CPU kernels, i.e. what ships. Since score applies a ReLU "
          "per head, each query is scored as two heads, q with weight +1 and "
          "-q with weight -1: max(0, x) - max(0, -x) = x.\n\n"
          "Against float64 exact token top-k (q.k, ties to the smaller "
          "index) over the tokens before the query's last complete group: "
          "recall, |selected & exact| / min(K, n) (mean, p10); mass recall, "
          "the softmax(q.k / sqrt(D)) mass of the selected tokens over that "
          "of the exact top-k (mean). Over every complete group of the "
          "sequence (the pooled key in its stored format, dequantized): "
          "angle, between the pooled key and each of its P keys (mean, "
          "median, p95; degrees); recon, ||k_hat - k|| / ||k|| with k_hat = "
          "pooled + residual, the residual k - pooled kept exact, quantized "
          "per vector as the quantize op does (int8, fp8: f32, absmax / qmax "
          "scale, round to nearest even, min_absmax 1e-4), or none (mean, "
          "p99); bytes read per query: the valid pooled keys (codes + scale, "
          "codes below a byte two a byte, or f32; + 4, or 1 with "
          "--radius-format=e5m2, for max-aware's radius), the candidate "
          "token keys refine reads (f32, or a residual or token tier's D + 4 "
          "code and scale bytes), and a token-level FP8 indexer's n x (D + "
          "4) for comparison (D after padding).\n\n"
          "Percentiles interpolate linearly (NumPy's default); zero vectors "
          "have no angle or relative error and are left out.");
  if (std::optional<int> exit = flags.parse(argc, argv))
    return exit;
  options.normScores = normScores;
  if (weightGiven && options.firstStage != FirstStage::MaxAware)
    return indexpool::tools::toolError(
        kTool, "--bound-weight needs --first-stage=max-aware");
  if (radiusGiven && options.firstStage != FirstStage::MaxAware)
    return indexpool::tools::toolError(
        kTool, "--radius-format needs --first-stage=max-aware");
  return std::nullopt;
}

std::optional<int> indexpool::fidelity::readCalibrateCommandLine(
    int argc, const char *const *argv, CalibrateOptions &options,
    CalibrateOutputs &outputs) {
  constexpr const char *kTool = "indexpool-calibrate";
  Flags flags(kTool,
              "fit the pooling bias (and temperature) to recorded attention",
              "--keys=@k.npy --queries=@q.npy -o FILE.npy [options]");
  flags.option("--keys", "@FILE.npy", "the recorded keys, [T, D] float32",
               Flags::file(options.keysPath))
      .required()
      .option("--queries", "@FILE.npy",
              "the recorded queries, [T, D] float32: row i is the decode "
              "query at position i",
              Flags::file(options.queriesPath))
      .required()
      .option("-o", "FILE.npy",
              "where the fitted bias goes: [P] or [P, D] float32, the "
              "compress / pool bias operand",
              Flags::file(outputs.bias))
      .required()
      .option("--pool-size", "P", "keys per pool, a power of two in [2, 64]",
              Flags::number(options.poolSize, "an integer"))
      .option("--k", "K", "tokens selected per query (a multiple of P)",
              Flags::number(options.k, "an integer"))
      .option("--bias", "slot|channel",
              "the bias fitted: slot, one value per slot ([P]); channel, per "
              "slot and channel ([P, D], one value per slot and channel "
              "group, --channel-groups)",
              Flags::choiceOf(options.bias, {{"slot", BiasKind::Slot},
                                             {"channel", BiasKind::Channel}}))
      .option("--channel-groups", "C",
              "--bias=channel: channels ranked by mean |k_d| and cut into C "
              "groups that share one value per slot",
              Flags::number(options.channelGroups, "an integer"))
      .flag("--fit-temperature",
            "fit the temperature too (needs --score=norm: with uniform "
            "scores it would only rescale the bias)",
            options.fitTemperature)
      .option("--score", "uniform|norm",
              "pooling scores (softmax over each group of P): uniform, all "
              "zero; norm, scores[t] = ||k_t||",
              Flags::choiceOf(options.normScores,
                              {{"uniform", false}, {"norm", true}}))
      .option("--train", "N",
              "fit on the N positions before the held-out ones",
              Flags::number(options.train, "an integer"))
      .option("--held-out", "M",
              "measure before / after on the last M positions",
              Flags::number(options.heldOut, "an integer"))
      .option("--format", "none|fp8|CODE",
              "how pooled keys are stored in the held-out measurement: none "
              "(f32, the pool op), fp8 or a code type (indexpool-fidelity's "
              "--format)",
              poolFormatReader(options.format))
      .flag("--rotate",
            "Hadamard-rotate the pooled keys and the queries in the held-out "
            "measurement (D zero-padded to a power of two)",
            options.rotate)
      .option("--gate", "none|mean-query|channel",
              "also fit a query-aware gate g (pooling scores g . k_t instead "
              "of --score), written to --gate-output: none; mean-query, g = "
              "beta x the training queries' mean direction (one parameter); "
              "channel, g free per channel (D parameters)",
              Flags::choiceOf(options.gate,
                              {{"none", GateKind::None},
                               {"mean-query", GateKind::MeanQuery},
                               {"channel", GateKind::Channel}}))
      .option("--gate-output", "FILE.npy",
              "where --gate writes g ([D] float32; feed it to "
              "indexpool-fidelity --gate)",
              Flags::file(outputs.gate))
      .flag("--json",
            "print one JSON object: mass_recall_before / _after, "
            "recall_before / _after (held out), train_* (the model), "
            "temperature, bias_shape and the setup",
            outputs.json)
      .epilog(
          "The pool weights are softmax((scores + bias) / temperature) over "
          "each group of P keys. Starting from uniform weights (bias 0, "
          "temperature 1), a derivative-free search over the bias (and log2 "
          "temperature) maximises the mean attention-mass recall of the "
          "pooled selection over the N training positions, on a float64 "
          "model of pooling and selection. Position i is a causal decode "
          "query over the tokens before (i / P) * P, as in "
          "indexpool-fidelity. The last M positions are held out: their "
          "recall and mass recall, before and after, come from the "
          "project's compiled kernels (indexpool-fidelity --last=M, with "
          "--bias=@bias.npy after). The bias is written as .npy; the "
          "temperature is printed.");
  if (std::optional<int> exit = flags.parse(argc, argv))
    return exit;
  if ((options.gate != GateKind::None) != !outputs.gate.empty())
    return indexpool::tools::toolError(
        kTool, outputs.gate.empty() ? "--gate needs --gate-output=FILE.npy"
                                    : "--gate-output needs --gate");
  return std::nullopt;
}

std::optional<int> indexpool::fidelity::readAdaptCommandLine(
    int argc, const char *const *argv, AdaptOptions &options,
    AdaptOutputs &outputs) {
  constexpr const char *kTool = "indexpool-adapt";
  Flags flags(kTool,
              "choose a pool size per layer (or head) under a memory budget",
              "DIR [options]");
  flags.positional("DIR", options.dumpPath)
      .option("--budget", "BYTES_PER_TOKEN",
              "index-cache bytes per token, summed over all units",
              Flags::number(options.budget, "a number of bytes"))
      .option("--budget-ratio", "R", "the budget of every unit at pool size R",
              Flags::number(options.budgetRatio, "an integer"))
      .option("--pool-sizes", "P,P,...",
              "candidate pool sizes, powers of two in [2, 64] (default "
              "2,4,8)",
              [&](const std::string &, const std::string &value) {
                indexpool::Status status =
                    parsePoolSizes(value, options.poolSizes);
                return status ? std::string() : status.message();
              })
      .option("--k", "K", "tokens selected per query (a multiple of every P)",
              Flags::number(options.k, "an integer"))
      .option("--format", "none|fp8|CODE",
              "how pooled keys are stored (and counted): none (f32, the pool "
              "op: 4 D' / P bytes per token), fp8 (the default) or a code "
              "type (codes + f32 scale: the page entry's bytes / P; "
              "indexpool-fidelity's --format)",
              poolFormatReader(options.format))
      .flag("--rotate",
            "Hadamard-rotate the pooled keys and the queries (D zero-padded "
            "to a power of two D')",
            options.rotate)
      .option("--last", "N",
              "calibration positions: the last N, as causal decode queries",
              Flags::number(options.last, "an integer"))
      .option("--group", "layer|head",
              "what shares one P: layer, a layer's heads (their measurements "
              "averaged); head, each head alone",
              Flags::choiceOf(options.group, {{"layer", AdaptGroup::Layer},
                                              {"head", AdaptGroup::Head}}))
      .option("--objective", "mass-recall|recall",
              "what the choice maximises (its mean over the units): "
              "attention-mass recall or token recall",
              Flags::choiceOf(options.objective,
                              {{"mass-recall", AdaptObjective::MassRecall},
                               {"recall", AdaptObjective::Recall}}))
      .flag("--json",
            "print one JSON object: the setup, every unit's measurements at "
            "every candidate P and its choice, the adaptive and uniform "
            "totals",
            outputs.json)
      .option("--emit", "FILE.mlir",
              "write one module with each unit's compress function "
              "(@compress_layerL or @compress_layerL_headH) at its chosen "
              "pool size",
              Flags::text(outputs.module))
      .option("--emit-json", "FILE.json", "write {\"unit\": pool_size, ...}",
              Flags::text(outputs.poolSizes))
      .epilog(
          "DIR holds layerL/headH/{keys,queries}.npy or "
          "layerL/{keys,queries}.npy. Every key set of the dump is measured "
          "at every candidate pool size through the compiled kernels, as "
          "indexpool-fidelity --last=N does. The choice maximises the mean "
          "objective over the units with the summed bytes per token within "
          "the budget, exactly (ties to the fewer bytes). The uniform anchor "
          "is every unit at the smallest candidate P that fits.");
  if (std::optional<int> exit = flags.parse(argc, argv))
    return exit;
  if (options.dumpPath.empty())
    return indexpool::tools::toolError(kTool, "no dump (DIR; see --help)");
  // Fail before measuring rather than after.
  if (!outputs.module.empty() &&
      (!options.format.codes || options.format.paged()))
    return indexpool::tools::toolError(
        kTool, "--emit needs --format=fp8 or i8: compress stores codes and "
               "scales, --format=none has none");
  return std::nullopt;
}
