//===- indexpool-fidelity.cpp - measure what pooling loses ----------------===//
//
//   indexpool-fidelity --keys=@k.npy --queries=@q.npy [--pool-size=4]
//       [--k=256] [--format=none|fp8|i8|i4] [--rotate] [--score=uniform|norm]
//       [--bias=@b.npy] [--gate=@g.npy] [--first-stage=mean|max-aware]
//       [--bound-weight=A] [--radius-format=f32|e5m2] [--refine=C]
//       [--refine-keys=exact|i8|fp8|token-fp8|token-i8] [--last=16] [--json]
//
// The command line of runFidelity (indexpool/Fidelity/Fidelity.h), which
// does the work. Every bad input ends with one line "indexpool-fidelity:
// error: ..." and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Fidelity/Fidelity.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <cstdio>
#include <string>

namespace cl = llvm::cl;
using namespace indexpool::fidelity;

static cl::OptionCategory category("indexpool-fidelity options");

static cl::opt<std::string>
    keysFile("keys", cl::value_desc("@FILE.npy"), cl::Required,
             cl::desc("The keys, [T, D] float32 (any D)"), cl::cat(category));

static cl::opt<std::string> queriesFile(
    "queries", cl::value_desc("@FILE.npy"), cl::Required,
    cl::desc("The queries, [T, D] float32: row i is the decode query at "
             "position i"),
    cl::cat(category));

static cl::opt<int64_t>
    poolSize("pool-size", cl::init(4), cl::value_desc("P"),
             cl::desc("Keys per pool, a power of two in [2, 64]"),
             cl::cat(category));

static cl::opt<int64_t> topK(
    "k", cl::init(256), cl::value_desc("K"),
    cl::desc("Tokens selected per query (a multiple of P: K/P pools kept); "
             "a query with n < K tokens before it is compared on min(K, n)"),
    cl::cat(category));

static cl::opt<std::string> format(
    "format", cl::init("none"), cl::value_desc("none|fp8|CODE TYPE"),
    cl::desc("How pooled keys are stored: none, the pool op's f32 keys; or "
             "codes with one f32 scale per key (the keys the angles see are "
             "then codes * scale): fp8 (= f8E4M3FN) or any code type "
             "(f8E4M3FN, i8: compress; i4, two a byte: compress_paged and "
             "select_paged, an odd D getting a zero channel)"),
    cl::cat(category));

static cl::opt<bool> rotate(
    "rotate",
    cl::desc("Hadamard-rotate the pooled keys and the queries (the hadamard "
             "op; D zero-padded to the next power of two, queries too); "
             "angles and reconstruction are then measured in the rotated "
             "space, where the keys are stored"),
    cl::cat(category));

enum class ScoreMode { Uniform, Norm };
static cl::opt<ScoreMode> scoreMode(
    "score", cl::init(ScoreMode::Uniform),
    cl::desc("Pooling scores (softmax over each group of P)"),
    cl::values(clEnumValN(ScoreMode::Uniform, "uniform",
                          "all zero: equal weights (the mean of the group)"),
               clEnumValN(ScoreMode::Norm, "norm", "scores[t] = ||k_t||")),
    cl::cat(category));

static cl::opt<std::string>
    biasFile("bias", cl::value_desc("@FILE.npy"),
             cl::desc("A bias [P] or [P, D] float32 added to the scores as "
                      "the pool op does"),
             cl::cat(category));

static cl::opt<int64_t> refine(
    "refine", cl::init(0), cl::value_desc("C"),
    cl::desc("Two-stage selection: keep C x K / P pools and re-score their "
             "C x K tokens against the keys (indexpool.refine, f32, "
             "unrotated), keeping the best K (0: select alone)"),
    cl::cat(category));

static cl::opt<RefineKeys> refineKeys(
    "refine-keys", cl::init(RefineKeys::Exact),
    cl::desc("The token keys --refine reads"),
    cl::values(
        clEnumValN(RefineKeys::Exact, "exact", "the keys as given (f32)"),
        clEnumValN(RefineKeys::ResidualI8, "i8",
                   "a residual tier's: each key's residual against its "
                   "stored pooled key, int8 per vector, added back"),
        clEnumValN(RefineKeys::ResidualFP8, "fp8",
                   "the same with f8E4M3FN residual codes"),
        clEnumValN(RefineKeys::TokenFP8, "token-fp8",
                   "a token tier's: each key (rotated with --rotate) as "
                   "f8E4M3FN codes with one f32 scale"),
        clEnumValN(RefineKeys::TokenI8, "token-i8",
                   "the same with int8 codes")),
    cl::cat(category));

static cl::opt<FirstStage> firstStage(
    "first-stage", cl::init(FirstStage::Mean),
    cl::desc("How select ranks the pools"),
    cl::values(clEnumValN(FirstStage::Mean, "mean",
                          "q . p_g (the shipped select)"),
               clEnumValN(FirstStage::MaxAware, "max-aware",
                          "q . p_g + A ||q|| r_g, r_g = max_s ||k_s - p_g|| "
                          "stored per pool (--radius-format; ranked on the "
                          "host: not a shipped op)")),
    cl::cat(category));

static cl::opt<double> boundWeight(
    "bound-weight", cl::init(1.0), cl::value_desc("A"),
    cl::desc("--first-stage=max-aware's weight A >= 0 of ||q|| r_g (1: an "
             "upper bound on the pool's best q . k)"),
    cl::cat(category));

static cl::opt<RadiusFormat> radiusFormat(
    "radius-format", cl::init(RadiusFormat::F32),
    cl::desc("How --first-stage=max-aware stores r_g"),
    cl::values(clEnumValN(RadiusFormat::F32, "f32", "4 bytes per pool"),
               clEnumValN(RadiusFormat::E5M2, "e5m2",
                          "1 byte per pool: the f8E5M2 value at or above "
                          "r_g (A = 1 stays an upper bound; saturates at "
                          "57344)")),
    cl::cat(category));

static cl::opt<std::string> gateFile(
    "gate", cl::value_desc("@FILE.npy"),
    cl::desc("Query-aware pooling scores: a [D] float32 gate g, scores[t] = "
             "g . k_t (indexpool-calibrate --gate fits one); replaces "
             "--score"),
    cl::cat(category));

static cl::opt<int64_t> last(
    "last", cl::init(16), cl::value_desc("N"),
    cl::desc("Measure the last N positions i as causal decode queries: over "
             "the keys before the largest multiple of P not above i"),
    cl::cat(category));

static cl::opt<bool>
    json("json",
         cl::desc("Print one JSON object: recall, recall_p10, mass_recall, "
                  "angle_mean_deg, angle_median_deg, angle_p95_deg, "
                  "recon_none, recon_i8, recon_fp8, recon_exact (means, as "
                  "fractions), their *_p99, bytes_pooled, bytes_refine, "
                  "bytes_token_fp8, bytes_total, bytes_ratio (per query), "
                  "and the setup"),
         cl::cat(category));

static const char *kOverview =
    "indexpool-fidelity: what pooling loses, measured on your keys and "
    "queries.\n\n"
    "The keys are pooled (pool or compress) and the last N queries select "
    "K tokens (select: score, topk, expand) by the project's compiled CPU "
    "kernels, i.e. what ships. Since score applies a ReLU per head, each "
    "query is scored as two heads, q with weight +1 and -q with weight -1: "
    "max(0, x) - max(0, -x) = x.\n\n"
    "Against float64 exact token top-k (q.k, ties to the smaller index) over "
    "the tokens before the query's last complete group:\n"
    "  recall       |selected & exact| / min(K, n) (mean, p10)\n"
    "  mass recall  softmax(q.k / sqrt(D)) mass of the selected tokens over "
    "that of the exact top-k (mean)\n"
    "Over every complete group of the sequence (the pooled key in its stored "
    "format, dequantized):\n"
    "  angle        between the pooled key and each of its P keys (mean, "
    "median, p95; degrees)\n"
    "  recon        ||k_hat - k|| / ||k|| with k_hat = pooled + residual, "
    "the residual k - pooled kept exact, quantized per vector as the "
    "quantize op does (int8, fp8: f32, absmax / qmax scale, round to "
    "nearest even, min_absmax 1e-4), or none (mean, p99)\n"
    "  bytes        read per query: the valid pooled keys (codes + scale, "
    "i4 codes two a byte, or f32; + 4, or 1 with --radius-format=e5m2, for "
    "max-aware's radius), the "
    "candidate token keys refine "
    "reads (f32, or a residual or token tier's D + 4 code and scale bytes), "
    "and a token-level "
    "FP8 indexer's n x (D + 4) for comparison (D after padding)\n"
    "Percentiles interpolate linearly (NumPy's default); zero vectors have no "
    "angle or relative error and are left out.\n";

static std::string fileOf(const std::string &argument) {
  return !argument.empty() && argument[0] == '@' ? argument.substr(1)
                                                 : argument;
}

static int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "indexpool-fidelity: error: %s\n", message.c_str());
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);

  FidelityOptions options;
  options.keysPath = fileOf(keysFile);
  options.queriesPath = fileOf(queriesFile);
  options.biasPath = fileOf(biasFile);
  options.poolSize = poolSize;
  options.k = topK;
  std::string formatError;
  std::optional<PoolFormat> poolFormat = parsePoolFormat(format, formatError);
  if (!poolFormat)
    return fail("--format: " + formatError);
  options.format = *poolFormat;
  options.rotate = rotate;
  options.normScores = scoreMode == ScoreMode::Norm;
  options.last = last;
  options.refine = refine;
  options.refineKeys = refineKeys;
  options.firstStage = firstStage;
  options.boundWeight = boundWeight;
  options.radiusFormat = radiusFormat;
  options.gatePath = fileOf(gateFile);
  if (boundWeight.getNumOccurrences() && firstStage != FirstStage::MaxAware)
    return fail("--bound-weight needs --first-stage=max-aware");
  if (radiusFormat.getNumOccurrences() && firstStage != FirstStage::MaxAware)
    return fail("--radius-format needs --first-stage=max-aware");

  FidelityReport report;
  if (indexpool::Status status = runFidelity(options, report); !status)
    return fail(status.message());
  std::fputs(json ? formatJson(report).c_str() : formatText(report).c_str(),
             stdout);
  return 0;
}
