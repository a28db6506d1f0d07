//===- indexpool-calibrate.cpp - fit the pooling bias ---------------------===//
//
//   indexpool-calibrate --keys=@k.npy --queries=@q.npy [--pool-size=4]
//       [--k=256] [--bias=slot|channel] [--fit-temperature]
//       [--score=uniform|norm] [--train=N] [--held-out=M]
//       [--format=none|fp8|i8] [--rotate] [--gate=mean-query|channel
//       --gate-output=g.npy] -o bias.npy [--json]
//
// The command line of runCalibration (indexpool/Fidelity/Calibrate.h), which
// does the work. Every bad input ends with one line "indexpool-calibrate:
// error: ..." and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Fidelity/Calibrate.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <cstdio>
#include <string>

namespace cl = llvm::cl;
using namespace indexpool::fidelity;

static cl::OptionCategory category("indexpool-calibrate options");

static cl::opt<std::string>
    keysFile("keys", cl::value_desc("@FILE.npy"), cl::Required,
             cl::desc("The recorded keys, [T, D] float32"), cl::cat(category));

static cl::opt<std::string> queriesFile(
    "queries", cl::value_desc("@FILE.npy"), cl::Required,
    cl::desc("The recorded queries, [T, D] float32: row i is the decode "
             "query at position i"),
    cl::cat(category));

static cl::opt<std::string>
    outputFile("o", cl::value_desc("FILE.npy"), cl::Required,
               cl::desc("Where the fitted bias goes: [P] or [P, D] float32, "
                        "the compress / pool bias operand"),
               cl::cat(category));

static cl::opt<int64_t>
    poolSize("pool-size", cl::init(4), cl::value_desc("P"),
             cl::desc("Keys per pool, a power of two in [2, 64]"),
             cl::cat(category));

static cl::opt<int64_t>
    topK("k", cl::init(256), cl::value_desc("K"),
         cl::desc("Tokens selected per query (a multiple of P)"),
         cl::cat(category));

static cl::opt<BiasKind> biasKind(
    "bias", cl::init(BiasKind::Slot), cl::desc("The bias fitted"),
    cl::values(clEnumValN(BiasKind::Slot, "slot", "one value per slot: [P]"),
               clEnumValN(BiasKind::Channel, "channel",
                          "per slot and channel: [P, D], one value per slot "
                          "and channel group (--channel-groups)")),
    cl::cat(category));

static cl::opt<int64_t> channelGroups(
    "channel-groups", cl::init(4), cl::value_desc("C"),
    cl::desc("--bias=channel: channels ranked by mean |k_d| and cut into C "
             "groups that share one value per slot"),
    cl::cat(category));

static cl::opt<bool> fitTemperature(
    "fit-temperature",
    cl::desc("Fit the temperature too (needs --score=norm: with uniform "
             "scores it would only rescale the bias)"),
    cl::cat(category));

enum class ScoreMode { Uniform, Norm };
static cl::opt<ScoreMode> scoreMode(
    "score", cl::init(ScoreMode::Uniform),
    cl::desc("Pooling scores (softmax over each group of P)"),
    cl::values(clEnumValN(ScoreMode::Uniform, "uniform", "all zero"),
               clEnumValN(ScoreMode::Norm, "norm", "scores[t] = ||k_t||")),
    cl::cat(category));

static cl::opt<int64_t>
    train("train", cl::init(256), cl::value_desc("N"),
          cl::desc("Fit on the N positions before the held-out ones"),
          cl::cat(category));

static cl::opt<int64_t>
    heldOut("held-out", cl::init(64), cl::value_desc("M"),
            cl::desc("Measure before / after on the last M positions"),
            cl::cat(category));

static cl::opt<std::string> format(
    "format", cl::init("none"), cl::value_desc("none|fp8|CODE TYPE"),
    cl::desc("How pooled keys are stored in the held-out measurement: none "
             "(f32, the pool op), fp8 or a code type (indexpool-fidelity's "
             "--format)"),
    cl::cat(category));

static cl::opt<bool>
    rotate("rotate",
           cl::desc("Hadamard-rotate the pooled keys and the queries in the "
                    "held-out measurement (D zero-padded to a power of two)"),
           cl::cat(category));

static cl::opt<GateKind> gateKind(
    "gate", cl::init(GateKind::None),
    cl::desc("Also fit a query-aware gate g (pooling scores g . k_t instead "
             "of --score), written to --gate-output"),
    cl::values(clEnumValN(GateKind::None, "none", "no gate"),
               clEnumValN(GateKind::MeanQuery, "mean-query",
                          "g = beta x the training queries' mean direction "
                          "(one parameter)"),
               clEnumValN(GateKind::Channel, "channel",
                          "g free per channel (D parameters)")),
    cl::cat(category));

static cl::opt<std::string>
    gateOutput("gate-output", cl::value_desc("FILE.npy"),
               cl::desc("Where --gate writes g ([D] float32; feed it to "
                        "indexpool-fidelity --gate)"),
               cl::cat(category));

static cl::opt<bool>
    json("json",
         cl::desc("Print one JSON object: mass_recall_before / _after, "
                  "recall_before / _after (held out), train_* (the model), "
                  "temperature, bias_shape and the setup"),
         cl::cat(category));

static const char *kOverview =
    "indexpool-calibrate: fit the pooling bias (and temperature) to recorded "
    "attention.\n\n"
    "The pool weights are softmax((scores + bias) / temperature) over each "
    "group of P keys. Starting from uniform weights (bias 0, temperature 1), "
    "a derivative-free search over the bias (and log2 temperature) "
    "maximises the mean attention-mass recall of the pooled selection over "
    "the N training positions, on a float64 model of pooling and selection. "
    "Position i is a causal decode query over the tokens before (i / P) * P, "
    "as in indexpool-fidelity. The last M positions are held out: their "
    "recall and mass recall, before and after, come from the project's "
    "compiled kernels (indexpool-fidelity --last=M, with --bias=@bias.npy "
    "after). The bias is written as .npy; the temperature is printed.\n";

static std::string fileOf(const std::string &argument) {
  return !argument.empty() && argument[0] == '@' ? argument.substr(1)
                                                 : argument;
}

static int fail(const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "indexpool-calibrate: error: %s\n", message.c_str());
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);

  CalibrateOptions options;
  options.keysPath = fileOf(keysFile);
  options.queriesPath = fileOf(queriesFile);
  options.poolSize = poolSize;
  options.k = topK;
  options.bias = biasKind;
  options.channelGroups = channelGroups;
  options.fitTemperature = fitTemperature;
  options.normScores = scoreMode == ScoreMode::Norm;
  options.train = train;
  options.heldOut = heldOut;
  std::string formatError;
  std::optional<PoolFormat> poolFormat = parsePoolFormat(format, formatError);
  if (!poolFormat)
    return fail("--format: " + formatError);
  options.format = *poolFormat;
  options.rotate = rotate;
  options.gate = gateKind;
  if ((gateKind != GateKind::None) != !gateOutput.empty())
    return fail(gateOutput.empty() ? "--gate needs --gate-output=FILE.npy"
                                   : "--gate-output needs --gate");

  CalibrationResult result;
  if (indexpool::Status status = runCalibration(options, result); !status)
    return fail(status.message());
  if (indexpool::Status status = writeBiasNpy(fileOf(outputFile), result);
      !status)
    return fail(status.message());
  if (gateKind != GateKind::None)
    if (indexpool::Status status = writeGateNpy(fileOf(gateOutput), result);
        !status)
      return fail(status.message());
  std::fputs(json ? formatCalibrationJson(result).c_str()
                  : formatCalibrationText(result).c_str(),
             stdout);
  return 0;
}
