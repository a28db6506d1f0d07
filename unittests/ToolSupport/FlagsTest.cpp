//===- FlagsTest.cpp - the tools' one flag library ------------------------===//
//
// What a tool's user types, and the one line each mistake gets (captured
// from stderr), for a tool declared as the real ones are.
//
//===----------------------------------------------------------------------===//

#include "indexpool/ToolSupport/Flags.h"

#include <gtest/gtest.h>

using indexpool::tools::Flags;

namespace {

/// A tool with one flag of every kind, parsed from `args`.
struct Tool {
  std::vector<std::string> files, inputs, policies;
  std::string stream = "default", out;
  unsigned runs = 0;
  std::vector<double> budgets;
  bool verify = false;
  std::optional<int> exit;
  std::string error, output;

  explicit Tool(std::vector<std::string> args) {
    Flags flags("tool", "does things", "FILE [options]");
    flags.positional("FILE", files, 1)
        .option("--input", "@FILE.npy", "one per input", Flags::list(inputs))
        .option("--runs", "N", "how many runs",
                Flags::number<unsigned>(runs, "a number of runs from 1 to 9",
                                        [](unsigned n) { return n >= 1 && n <= 9; }))
        .option("--stream", "default|new", "which stream",
                Flags::choice(stream, {"default", "new"}))
        .option("--policies", "LIST", "comma-separated",
                Flags::commaList(policies))
        .option("--budgets", "LIST", "fractions",
                Flags::numberList<double>(budgets, "a fraction in (0, 1]",
                                          [](double f) { return f > 0 && f <= 1; }))
        .option("-o", "DIR", "where it goes", Flags::text(out))
        .flag("--verify", "check the results", verify)
        .epilog("One paragraph.\n\nAnother one.");
    std::vector<const char *> argv{"tool"};
    for (const std::string &arg : args)
      argv.push_back(arg.c_str());
    testing::internal::CaptureStderr();
    testing::internal::CaptureStdout();
    exit = flags.parse(int(argv.size()), argv.data());
    output = testing::internal::GetCapturedStdout();
    error = testing::internal::GetCapturedStderr();
  }
};

/// Parses `args` with `flags`: the exit (nullopt: go on) and stderr.
std::pair<std::optional<int>, std::string>
parseArgs(Flags &flags, const std::vector<std::string> &args) {
  std::vector<const char *> argv{"tool"};
  for (const std::string &arg : args)
    argv.push_back(arg.c_str());
  testing::internal::CaptureStderr();
  std::optional<int> exit = flags.parse(int(argv.size()), argv.data());
  return {exit, testing::internal::GetCapturedStderr()};
}

TEST(FlagsTest, ValuesAreReadEitherWay) {
  Tool t({"a.mlir", "--input=@x.npy", "--input", "@y.npy", "--runs=3",
          "--stream", "new", "--policies=lru,lru-k", "--budgets=0.5,1",
          "-o=out", "--verify"});
  EXPECT_EQ(t.exit, std::nullopt) << t.error;
  EXPECT_EQ(t.files, std::vector<std::string>{"a.mlir"});
  EXPECT_EQ(t.inputs, (std::vector<std::string>{"@x.npy", "@y.npy"}));
  EXPECT_EQ(t.runs, 3u);
  EXPECT_EQ(t.stream, "new");
  EXPECT_EQ(t.policies, (std::vector<std::string>{"lru", "lru-k"}));
  EXPECT_EQ(t.budgets, (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(t.out, "out"); // "-o=out": not "=out"
  EXPECT_TRUE(t.verify);
  EXPECT_EQ(Tool({"-o", "dir"}).out, "dir");
  EXPECT_FALSE(Tool({"--verify=false"}).verify);
}

TEST(FlagsTest, EachMistakeIsOneLineAndExitOne) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--runs=0"}, "--runs=0: expected a number of runs from 1 to 9"},
      {{"--runs=x"}, "--runs=x: expected a number of runs from 1 to 9"},
      {{"--runs"}, "--runs needs a value (--runs=N)"},
      {{"--runs=", "a.mlir"}, "--runs needs a value (--runs=N)"},
      {{"--input=@x", "--input"}, "--input needs a value (--input=@FILE.npy)"},
      {{"-o"}, "-o needs a value (-o DIR)"},
      {{"--stream=old"}, "--stream=old: expected default or new"},
      {{"--budgets=0.5,2"}, "--budgets: '2' is not a fraction in (0, 1]"},
      {{"--verify=yes"}, "--verify takes no value (or =true, =false), got "
                         "--verify=yes"},
      {{"--frobnicate=3"}, "unknown option '--frobnicate' (see --help)"},
      {{"a", "b"}, "unexpected argument 'b' (one FILE only; see --help)"},
  };
  for (const auto &[args, message] : cases) {
    Tool t(args);
    EXPECT_EQ(t.exit, 1) << message;
    EXPECT_EQ(t.error, "tool: error: " + message + "\n");
  }
}

TEST(FlagsTest, HelpListsEveryFlagAndVersionNamesTheTool) {
  Tool help({"--help"});
  EXPECT_EQ(help.exit, 0);
  EXPECT_EQ(help.output.rfind("tool: does things\n\nusage: tool FILE [options]"
                              "\n\n",
                              0),
            0u)
      << help.output;
  for (const char *label :
       {"  --input=@FILE.npy     one per input\n", "  --runs=N ",
        "  --stream=default|new ", "  -o DIR ", "  --verify ", "  --help ",
        "  --version ", "\nOne paragraph.\n\nAnother one.\n"})
    EXPECT_NE(help.output.find(label), std::string::npos) << label;
  Tool version({"--version"});
  EXPECT_EQ(version.exit, 0);
  EXPECT_EQ(version.output.rfind("tool (IndexPool ", 0), 0u);
}

TEST(FlagsTest, RequiredGivenFilesAndEnumChoices) {
  enum class Stage { Mean, MaxAware };
  auto parse = [](std::vector<std::string> args, std::string &keys,
                  Stage &stage, bool &weightGiven, double &weight) {
    Flags flags("tool", "does things", "[options]");
    flags.option("--keys", "@FILE.npy", "the keys", Flags::file(keys))
        .required()
        .option("--first-stage", "mean|max-aware", "how",
                Flags::choiceOf(stage, {{"mean", Stage::Mean},
                                        {"max-aware", Stage::MaxAware}}))
        .option("--bound-weight", "A", "weight",
                Flags::number(weight, "a number"))
        .given(weightGiven);
    return parseArgs(flags, args);
  };
  std::string keys;
  Stage stage = Stage::Mean;
  bool given = false;
  double weight = 1;
  auto ok = parse({"--keys=@k.npy", "--first-stage=max-aware",
                   "--bound-weight=0.25"},
                  keys, stage, given, weight);
  EXPECT_EQ(ok.first, std::nullopt) << ok.second;
  EXPECT_EQ(keys, "k.npy");
  EXPECT_EQ(stage, Stage::MaxAware);
  EXPECT_TRUE(given);
  EXPECT_EQ(weight, 0.25);
  given = false;
  EXPECT_EQ(parse({"--keys=k.npy"}, keys, stage, given, weight).first,
            std::nullopt);
  EXPECT_EQ(keys, "k.npy");
  EXPECT_FALSE(given);
  EXPECT_EQ(parse({}, keys, stage, given, weight).second,
            "tool: error: --keys=@FILE.npy is required\n");
  EXPECT_EQ(parse({"--keys=k", "--first-stage=max"}, keys, stage, given,
                  weight)
                .second,
            "tool: error: --first-stage=max: expected mean or max-aware\n");
}

TEST(FlagsTest, PassThroughKeepsOnlyItsPrefix) {
  auto parse = [](std::vector<std::string> args,
                  std::vector<std::string> &passed) {
    Flags flags("tool", "does things", "[options]");
    flags.passThrough("--mlir-", passed);
    return parseArgs(flags, args);
  };
  std::vector<std::string> passed;
  EXPECT_EQ(parse({"--mlir-print-ir-after=x", "--mlir-timing"}, passed).first,
            std::nullopt);
  EXPECT_EQ(passed, (std::vector<std::string>{"--mlir-print-ir-after=x",
                                              "--mlir-timing"}));
  passed.clear();
  EXPECT_EQ(parse({"--mlir-x", "--ml-y"}, passed).second,
            "tool: error: unknown option '--ml-y' (see --help)\n");
}

TEST(FlagsTest, OnePositionalAndTheSharedReaders) {
  auto parse = [](std::vector<std::string> args, std::string &file,
                  int &device, uint64_t &seed, unsigned &repeat) {
    Flags flags("tool", "does things", "FILE [options]");
    flags.positional("FILE", file)
        .option("--device", "N", "ordinal", Flags::deviceOrdinal(device))
        .option("--random-inputs", "SEED", "seed", Flags::seed(seed))
        .option("--repeat", "N", "runs", Flags::runCount(repeat, 50));
    return parseArgs(flags, args);
  };
  std::string file = "-";
  int device = 0;
  uint64_t seed = 0;
  unsigned repeat = 20;
  EXPECT_EQ(parse({}, file, device, seed, repeat).first, std::nullopt);
  EXPECT_EQ(file, "-"); // none given: left as it was
  auto ok = parse({"a.mlir", "--device=3", "--random-inputs=18446744073709551615",
                   "--repeat=50"},
                  file, device, seed, repeat);
  EXPECT_EQ(ok.first, std::nullopt) << ok.second;
  EXPECT_EQ(file, "a.mlir");
  EXPECT_EQ(device, 3);
  EXPECT_EQ(seed, UINT64_MAX);
  EXPECT_EQ(repeat, 50u);
  EXPECT_EQ(parse({"a.mlir", "b.mlir"}, file, device, seed, repeat).second,
            "tool: error: unexpected argument 'b.mlir' (one FILE only; see "
            "--help)\n");
  EXPECT_EQ(parse({"--device=-1"}, file, device, seed, repeat).second,
            "tool: error: --device=-1: expected a device ordinal (0, 1, ...)\n");
  EXPECT_EQ(parse({"--random-inputs=-2"}, file, device, seed, repeat).second,
            "tool: error: --random-inputs=-2: expected an unsigned integer "
            "seed\n");
  EXPECT_EQ(parse({"--repeat=51"}, file, device, seed, repeat).second,
            "tool: error: --repeat=51: expected a number of runs from 1 to "
            "50\n");
  EXPECT_EQ(parse({"--repeat=0"}, file, device, seed, repeat).first, 1);
  EXPECT_EQ(repeat, 50u); // refused values leave it as it was
  EXPECT_EQ(parse({"--device=0", "--repeat=1"}, file, device, seed, repeat)
                .first,
            std::nullopt);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(repeat, 1u);
}

} // namespace
