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

#include "indexpool/ToolSupport/ParseNumber.h"
#include "indexpool/Runtime/Version.h"
#include "indexpool/ToolSupport/ToolError.h"
#include "indexpool/Tuning/Measure.h"
#include "indexpool/Tuning/Schedule.h"

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>

using namespace indexpool::tuning;

namespace {

constexpr const char *kTool = "indexpool-tune-measure";

constexpr const char *kUsage = R"(indexpool-tune-measure: times the candidates of an indexpool-tune plan on a GPU

usage: indexpool-tune-measure DIR [options]

DIR is the folder indexpool-tune wrote (DIR/plan.json and the candidates'
manifests and binaries), carried to the GPU machine. Every candidate runs
the whole function on the same random inputs (drawn once, seed 1): one
warm-up run, then --repeat runs timed with CUDA events. Candidate 0 of
every op (the cost model's choice) is measured first, then the others
round robin over the ops in plan order (the cost model's ranking). Writes
DIR/measurements.json (every candidate's median and samples, and where the
times come from: "gpu", or "fake-cuda-driver" for the test driver, whose
times are not GPU times) and the tuning database: the fastest candidate of
each (op, shape class), for --indexpool-configure tuning-db=FILE.

  --device=N   the CUDA device ordinal (default 0)
  --repeat=N   timed runs per candidate (default 20); the median is kept
  --verify     check each candidate's outputs once against the float64
               reference (indexpool-launch --verify's tolerances); a failing
               candidate is reported and excluded, never chosen
  --prune=N    measure only candidate 0 and the next N - 1 of each op in
               plan order (the N the cost model ranks best); the others
               are listed as skipped in measurements.json
  --time-budget=SECONDS
               stop when the next candidate would not fit in SECONDS of
               wall-clock time (predicted from the longest candidate so
               far); candidate 0 of every op is always measured. What was
               measured is written, the skipped candidates are listed, and
               the database holds the fastest measured. SIGTERM or SIGINT
               stops the same way after the candidate being measured
  --db=FILE    where the database goes (default DIR/tuning-db.json)
  --quiet      no progress bar on stderr
  --help       this text
  --version    the IndexPool version

The CUDA driver is libcuda.so.1, or $INDEXPOOL_LIBCUDA_PATH when set.
)";

using indexpool::tools::parseNumber;

/// Parses argv; false with `error` on a mistake.
bool parseOptions(int argc, char **argv, MeasureOptions &options, bool &help,
                  bool &version, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-help" || arg == "-h") {
      help = true;
      return true;
    }
    if (arg == "--version") {
      version = true;
      return true;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (!options.directory.empty()) {
        error = "unexpected argument '" + std::string(arg) +
                "' (one DIR only; see --help)";
        return false;
      }
      options.directory = arg;
      continue;
    }
    std::string_view name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string_view value;
    bool hasValue = false;
    if (size_t equals = name.find('='); equals != std::string_view::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
      hasValue = true;
    }
    std::string option = "--" + std::string(name);
    if (name == "device" || name == "repeat" || name == "db" ||
        name == "prune" || name == "time-budget") {
      if (!hasValue || value.empty()) {
        error = option + " needs a value (" + option + "=" +
                (name == "db"            ? "FILE"
                 : name == "time-budget" ? "SECONDS"
                                         : "N") +
                ")";
        return false;
      }
    } else if (hasValue) {
      error = option + " takes no value";
      return false;
    }
    if (name == "device") {
      if (!parseNumber(value, options.device) || options.device < 0) {
        error = option + "=" + std::string(value) +
                ": expected a device ordinal (0, 1, ...)";
        return false;
      }
    } else if (name == "repeat") {
      if (!parseNumber(value, options.repeat) || options.repeat == 0 ||
          options.repeat > 100000) {
        error = option + "=" + std::string(value) +
                ": expected a number of runs from 1 to 100000";
        return false;
      }
    } else if (name == "prune") {
      if (!parseCandidateCount(option, std::string(value), options.prune,
                               error))
        return false;
    } else if (name == "time-budget") {
      if (!parseSeconds(option, std::string(value), options.timeBudgetSeconds,
                        error))
        return false;
    } else if (name == "db") {
      options.dbPath = value;
    } else if (name == "verify") {
      options.verify = true;
    } else if (name == "quiet") {
      options.quiet = true;
    } else {
      error = "unknown option '" + std::string(arg.substr(0, arg.find('='))) +
              "' (see --help)";
      return false;
    }
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  MeasureOptions options;
  options.tool = kTool;
  bool help = false, version = false;
  std::string error;
  if (!parseOptions(argc, argv, options, help, version, error))
    return indexpool::tools::toolError(kTool, error);
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (version) {
    std::printf("%s (IndexPool %s)\n", kTool, indexpool::runtime::version());
    return 0;
  }
  return measurePlan(options);
}
