//===- indexpool-tune.cpp - measure launch configurations -----------------===//
//
//   indexpool-tune FILE.mlir --chip=cpu|sm_XX -o DIR [--function=NAME]
//       [--max-candidates=N] [--repeat=N] [--time-budget=SECONDS]
//       [--db=FILE] [--device=N]
//       [--verify] [--plot] [--quiet]
//
// The command line of indexpool::tuning::runTuner (Tuning/Tuner.h).
//
//===----------------------------------------------------------------------===//

#include "indexpool/ToolSupport/ParseNumber.h"
#include "indexpool/Runtime/Version.h"
#include "indexpool/ToolSupport/ToolError.h"
#include "indexpool/Tuning/Schedule.h"
#include "indexpool/Tuning/Tuner.h"

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>

using namespace indexpool::tuning;

namespace {

constexpr const char *kUsage = R"(indexpool-tune: measures launch configurations and writes a tuning database

usage: indexpool-tune FILE.mlir --chip=CHIP -o DIR [options]

For every indexpool op of the function, compiles candidate launches (each
with a one-entry tuning database; the other ops keep the cost model's
choice), measures the whole function with each, and writes the fastest
candidate per (op, shape class) as a tuning database (docs/tuning.md).
Candidate 0 of every op is the cost model's choice (on the CPU: vector
width 8), so the result is never slower than the model, as measured.

  --chip=CHIP          cpu, or a GPU chip (sm_80, sm_86, sm_89, sm_90,
                       sm_90a, sm_100, sm_120). cpu: candidate vector widths
                       8, 4, 16, 32, measured here. A GPU chip: the fields
                       the op's kernel reads (threads, items per block,
                       elements per thread and vector bytes where they
                       matter, grid), measured here when a CUDA driver
                       loads, else the command to run on the GPU machine is
                       printed (indexpool-tune-measure DIR)
  -o DIR               the folder written: plan.json, candidates/ (each
                       candidate's database and, for a GPU, its manifest
                       and binary), measurements.json, tuning-db.json
  --function=NAME      the function (default: the module's only one); its
                       arguments must have static shapes
  --max-candidates=N   candidates per op (default 8, at least 1): the cost
                       model's choice (candidate 0) and the N - 1 others
                       the cost model estimates fastest, in that order;
                       GPU chips only rank (the CPU's widths keep their
                       order)
  --repeat=N           timed calls per candidate after one warm-up (default
                       20); the median is kept
  --time-budget=SECONDS
                       stop measuring when the next candidate would not
                       fit in SECONDS (candidate 0 of every op is always
                       measured); the skipped candidates are listed in
                       measurements.json and the database holds the best
                       of those measured. On a GPU chip without a driver,
                       passed on in the printed command
  --db=FILE            where the database goes (default DIR/tuning-db.json)
  --device=N           GPU: the CUDA device ordinal (default 0)
  --verify             GPU: check each candidate once against the float64
                       reference; failing candidates are never chosen
  --plot               draw DIR/search.png with scripts/tune/plot_search.py
                       (needs python3 with matplotlib; says so otherwise)
  --quiet              no progress bar on stderr
  --help               this text
  --version            the IndexPool version
)";

using indexpool::tools::parseNumber;

bool parseOptions(int argc, char **argv, TuneOptions &options, bool &help,
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
    if (arg == "-o") {
      if (i + 1 >= argc) {
        error = "-o needs a folder (-o DIR)";
        return false;
      }
      options.directory = argv[++i];
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (!options.input.empty()) {
        error = "unexpected argument '" + std::string(arg) +
                "' (one FILE.mlir only; see --help)";
        return false;
      }
      options.input = arg;
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
    bool takesValue = name == "chip" || name == "function" || name == "o" ||
                      name == "max-candidates" || name == "repeat" ||
                      name == "db" || name == "device" ||
                      name == "time-budget";
    if (takesValue && (!hasValue || value.empty())) {
      error = option + " needs a value (" + option + "=...; see --help)";
      return false;
    }
    if (!takesValue && hasValue) {
      error = option + " takes no value";
      return false;
    }
    auto bad = [&](const char *expected) {
      error = option + "=" + std::string(value) + ": expected " + expected;
      return false;
    };
    if (name == "chip") {
      options.chip = value;
    } else if (name == "function") {
      options.function = value;
    } else if (name == "o") {
      options.directory = value;
    } else if (name == "db") {
      options.dbPath = value;
    } else if (name == "max-candidates") {
      if (!parseCandidateCount(option, std::string(value),
                               options.maxCandidates, error))
        return false;
    } else if (name == "time-budget") {
      if (!parseSeconds(option, std::string(value), options.timeBudgetSeconds,
                        error))
        return false;
    } else if (name == "repeat") {
      if (!parseNumber(value, options.repeat) || options.repeat == 0 ||
          options.repeat > 100000)
        return bad("a number of runs from 1 to 100000");
    } else if (name == "device") {
      if (!parseNumber(value, options.device) || options.device < 0)
        return bad("a device ordinal (0, 1, ...)");
    } else if (name == "verify") {
      options.verify = true;
    } else if (name == "plot") {
      options.plot = true;
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
  TuneOptions options;
  bool help = false, version = false;
  std::string error;
  if (!parseOptions(argc, argv, options, help, version, error))
    return indexpool::tools::toolError(kTuneTool, error);
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (version) {
    std::printf("%s (IndexPool %s)\n", kTuneTool,
                indexpool::runtime::version());
    return 0;
  }
  return runTuner(options);
}
