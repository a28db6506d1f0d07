//===- indexpool-tune.cpp - measure launch configurations -----------------===//
//
//   indexpool-tune FILE.mlir --chip=cpu[:NAME]|sm_XX -o DIR [--function=NAME]
//       [--max-candidates=N] [--repeat=N] [--time-budget=SECONDS]
//       [--db=FILE] [--device=N] [--verify] [--plot] [--quiet]
//
// The command line of indexpool::tuning::runTuner (Tuning/Tuner.h).
//
//===----------------------------------------------------------------------===//

#include "indexpool/Target/Chips.h"
#include "indexpool/Target/CpuTargets.h"
#include "indexpool/ToolSupport/Flags.h"
#include "indexpool/Tuning/Schedule.h"
#include "indexpool/Tuning/Tuner.h"

using namespace indexpool::tuning;
using indexpool::tools::Flags;

int main(int argc, char **argv) {
  TuneOptions options;
  Flags flags(kTuneTool,
              "measures launch configurations and writes a tuning database",
              "FILE.mlir --chip=CHIP -o DIR [options]");
  flags.positional("FILE.mlir", options.input)
      .option("--chip", "CHIP",
              "cpu, cpu:NAME or a GPU chip (" +
                  indexpool::target::knownChipNames() +
                  "). cpu: candidate vector widths 8, 4, 16, 32 (a score "
                  "block is one key row per lane), measured here on the "
                  "host's CPU target, or on CPU target NAME ("
                  + indexpool::target::knownCpuTargetNames() +
                  ") if this host runs it; the database's entries name it "
                  "(\"chip\": \"cpu:NAME\"). A GPU chip: the fields the op's kernel reads "
                  "(threads, items per block, elements per thread and vector "
                  "bytes where they matter, grid), measured here when a CUDA "
                  "driver loads, else the command to run on the GPU machine "
                  "is printed (indexpool-tune-measure DIR)",
              Flags::text(options.chip))
      .option("-o", "DIR",
              "the folder written: plan.json, candidates/ (each candidate's "
              "database and, for a GPU, its manifest and binary), "
              "measurements.json, tuning-db.json",
              Flags::text(options.directory))
      .option("--function", "NAME",
              "the function (default: the module's only one); its arguments "
              "must have static shapes",
              Flags::text(options.function))
      .option("--max-candidates", "N",
              "candidates per op (default 8, at least 1): the cost model's "
              "choice (candidate 0) and the N - 1 others the cost model "
              "estimates fastest, in that order; GPU chips only rank (the "
              "CPU's widths keep their order)",
              Flags::parsedBy(options.maxCandidates, parseCandidateCount))
      .option("--repeat", "N",
              "timed calls per candidate after one warm-up (default 20); the "
              "median is kept",
              Flags::runCount(options.repeat, kMaxRepeat))
      .option("--time-budget", "SECONDS",
              "stop measuring when the next candidate would not fit in "
              "SECONDS (candidate 0 of every op is always measured); the "
              "skipped candidates are listed in measurements.json and the "
              "database holds the best of those measured. On a GPU chip "
              "without a driver, passed on in the printed command",
              Flags::parsedBy(options.timeBudgetSeconds, parseSeconds))
      .option("--db", "FILE",
              "where the database goes (default DIR/tuning-db.json)",
              Flags::text(options.dbPath))
      .option("--device", "N", "GPU: the CUDA device ordinal (default 0)",
              Flags::deviceOrdinal(options.device))
      .flag("--verify",
            "GPU: check each candidate once against the float64 reference; "
            "failing candidates are never chosen",
            options.verify)
      .flag("--plot",
            "draw DIR/search.png with scripts/tune/plot_search.py (needs "
            "python3 with matplotlib; says so otherwise)",
            options.plot)
      .flag("--quiet", "no progress bar on stderr", options.quiet)
      .epilog("For every indexpool op of the function, compiles candidate "
              "launches (each with a one-entry tuning database; the other "
              "ops keep the cost model's choice), measures the whole function "
              "with each, and writes the fastest candidate per (op, shape "
              "class) as a tuning database (docs/tuning.md). Candidate 0 of "
              "every op is the cost model's choice (on the CPU: vector width "
              "8), so the result is never slower than the model, as "
              "measured.");
  if (std::optional<int> exit = flags.parse(argc, argv))
    return *exit;
  return runTuner(options);
}
