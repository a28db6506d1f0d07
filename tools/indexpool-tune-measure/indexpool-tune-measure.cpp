//===- indexpool-tune-measure.cpp - time a tuning plan on a GPU -----------===//
//
//   indexpool-tune-measure DIR [--device=N] [--repeat=N] [--verify]
//       [--prune=N] [--time-budget=SECONDS] [--db=FILE] [--quiet]
//
// The command line of indexpool::tuning::measurePlan (Tuning/Measure.h):
// runs every candidate of DIR/plan.json (written by indexpool-tune) and
// writes DIR/measurements.json and the tuning database. No LLVM or MLIR:
// this builds where the GPU is, with only CUDA and a C++ compiler.
//
//===----------------------------------------------------------------------===//

#include "indexpool/ToolSupport/Flags.h"
#include "indexpool/Tuning/Measure.h"
#include "indexpool/Tuning/Schedule.h"

using namespace indexpool::tuning;
using indexpool::tools::Flags;

int main(int argc, char **argv) {
  MeasureOptions options;
  Flags flags(options.tool,
              "times the candidates of an indexpool-tune plan on a GPU",
              "DIR [options]");
  flags.positional("DIR", options.directory)
      .option("--device", "N", "the CUDA device ordinal (default 0)",
              Flags::deviceOrdinal(options.device))
      .option("--repeat", "N",
              "timed runs per candidate (default 20); the median is kept",
              Flags::runCount(options.repeat, kMaxRepeat))
      .flag("--verify",
            "check each candidate's outputs once against the float64 "
            "reference (indexpool-launch --verify's tolerances); a failing "
            "candidate is reported and excluded, never chosen",
            options.verify)
      .option("--prune", "N",
              "measure only candidate 0 and the next N - 1 of each op in "
              "plan order (the N the cost model ranks best); the others are "
              "listed as skipped in measurements.json",
              Flags::parsedBy(options.prune, parseCandidateCount))
      .option("--time-budget", "SECONDS",
              "stop when the next candidate would not fit in SECONDS of "
              "wall-clock time (predicted from the longest candidate so "
              "far); candidate 0 of every op is always measured. What was "
              "measured is written, the skipped candidates are listed, and "
              "the database holds the fastest measured. SIGTERM or SIGINT "
              "stops the same way after the candidate being measured",
              Flags::parsedBy(options.timeBudgetSeconds, parseSeconds))
      .option("--db", "FILE",
              "where the database goes (default DIR/tuning-db.json)",
              Flags::text(options.dbPath))
      .flag("--quiet", "no progress bar on stderr", options.quiet)
      .epilog(
          "DIR is the folder indexpool-tune wrote (DIR/plan.json and the\n"
          "candidates' manifests and binaries), carried to the GPU machine.\n"
          "Every candidate runs the whole function on the same random inputs\n"
          "(drawn once, seed 1): one warm-up run, then --repeat runs timed\n"
          "with CUDA events. Candidate 0 of every op (the cost model's\n"
          "choice) is measured first, then the others round robin over the\n"
          "ops in plan order (the cost model's ranking). Writes\n"
          "DIR/measurements.json (every candidate's median and samples, and\n"
          "where the times come from: \"gpu\", or \"fake-cuda-driver\" for the\n"
          "test driver, whose times are not GPU times) and the tuning\n"
          "database: the fastest candidate of each (op, shape class), for\n"
          "--indexpool-configure tuning-db=FILE.\n\n"
          "The CUDA driver is libcuda.so.1, or $INDEXPOOL_LIBCUDA_PATH when "
          "set.");
  if (std::optional<int> exit = flags.parse(argc, argv))
    return *exit;
  return measurePlan(options);
}
