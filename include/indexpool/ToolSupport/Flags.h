//===- Flags.h - every tool's command line, declared once --------*- C++ -*-===//
//
// The tools' one flag library. A tool declares each flag once (its name,
// the name of its value, its help and what reads the value); parse() reads
// argv with CLI11 (Debian's libcli11-dev), prints --help from the
// declarations and --version, and turns every mistake into one line
// "TOOL: error: ..." and exit code 1 (ToolError.h). CLI11 stays inside
// Flags.cpp: the tools built with LLVM's flags compile without exceptions.
// Plain C++17, no LLVM: the runtime-only build's tools use it too.
//
// Values are given as --name=VALUE or --name VALUE; a flag without a value
// is --name (or --name=true / --name=false). An empty or missing value is
// "--name needs a value (--name=VALUE)"; a value its reader refuses is the
// reader's message, "--name=VALUE: expected ...".
//
//===----------------------------------------------------------------------===//
#ifndef INDEXPOOL_TOOLSUPPORT_FLAGS_H
#define INDEXPOOL_TOOLSUPPORT_FLAGS_H

#include "indexpool/ToolSupport/ParseNumber.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace indexpool::tools {

class Flags {
public:
  /// Takes `value` of `option` ("--repeat"): "" when taken, else the whole
  /// error message.
  using Reader =
      std::function<std::string(const std::string &option,
                                const std::string &value)>;

  /// `summary`: what the tool does (the first line of --help); `usage`:
  /// what follows the tool's name on the usage line.
  Flags(std::string tool, std::string summary, std::string usage);
  ~Flags();
  Flags(const Flags &) = delete;
  Flags &operator=(const Flags &) = delete;

  /// --name=VALUE, read by `read` each time it is given (so a repeated
  /// option is read in order, and a list option appends).
  Flags &option(std::string name, std::string valueName, std::string help,
                Reader read);
  /// The option declared last must be given: "--name=VALUE is required".
  Flags &required();
  /// Sets `into` when the option or flag declared last is given (its
  /// reader still decides the value).
  Flags &given(bool &into);
  /// --name: sets `into` (--name=false clears it).
  Flags &flag(std::string name, std::string help, bool &into);
  /// Options that start with `prefix` ("--mlir-") are not this tool's:
  /// collected as given, in order, into `into` (for another parser).
  Flags &passThrough(std::string prefix, std::vector<std::string> &into);
  /// The positional arguments, in order into `into`; at most `max`. `noun`
  /// names one in messages ("one MANIFEST.json only").
  Flags &positional(std::string noun, std::vector<std::string> &into,
                    size_t max);
  /// At most one positional argument, into `into` (left as it is when none).
  Flags &positional(std::string noun, std::string &into);
  /// Text printed after the flags by --help: paragraphs separated by a
  /// blank line, each wrapped to the terminal's 79 columns.
  Flags &epilog(std::string text);

  /// Reads argv: std::nullopt to go on; otherwise the exit code to return
  /// (0 after printing --help or --version, kErrorExitCode after printing
  /// the one error line).
  std::optional<int> parse(int argc, const char *const *argv);

  /// The --help text.
  std::string help() const;

  // Readers.
  /// The value as it is (the last one given wins).
  static Reader text(std::string &into);
  /// Appends each value given.
  static Reader list(std::vector<std::string> &into);
  /// A whole number of type T (ParseNumber.h) that `valid` accepts (null:
  /// any); otherwise "--name=VALUE: expected <expected>".
  template <typename T>
  static Reader number(T &into, std::string expected,
                       std::function<bool(T)> valid = {}) {
    return [&into, expected, valid](const std::string &option,
                                    const std::string &value) {
      T parsed{};
      if (!parseNumber(value, parsed) || (valid && !valid(parsed)))
        return expectedMessage(option, value, expected);
      into = parsed;
      return std::string();
    };
  }
  /// --device=N: a CUDA device ordinal (0, 1, ...).
  static Reader deviceOrdinal(int &into);
  /// --random-inputs=SEED: any unsigned 64-bit seed.
  static Reader seed(uint64_t &into);
  /// --repeat=N: a number of runs from 1 to `max`.
  static Reader runCount(unsigned &into, unsigned max);
  /// A file name, with or without a leading '@' ("@keys.npy").
  static Reader file(std::string &into);
  /// One of `choices`' names, as its value; otherwise "--name=VALUE:
  /// expected a, b or c".
  template <typename E>
  static Reader choiceOf(E &into, std::vector<std::pair<std::string, E>> choices) {
    return [&into, choices](const std::string &option,
                            const std::string &value) {
      std::vector<std::string> names;
      for (const auto &[name, choice] : choices) {
        if (name == value) {
          into = choice;
          return std::string();
        }
        names.push_back(name);
      }
      return expectedMessage(option, value, listText(names));
    };
  }
  /// "a, b or c".
  static std::string listText(const std::vector<std::string> &items);
  /// A comma-separated list ("a,b,c"), replacing what `into` held.
  static Reader commaList(std::vector<std::string> &into);
  /// A comma-separated list of numbers of type T that `valid` accepts (null:
  /// any); otherwise "--name: 'ITEM' is not <what>".
  template <typename T>
  static Reader numberList(std::vector<T> &into, std::string what,
                           std::function<bool(T)> valid = {}) {
    return [&into, what, valid](const std::string &option,
                                const std::string &value) {
      std::vector<T> numbers;
      for (const std::string &item : splitCommas(value)) {
        T parsed{};
        if (!parseNumber(item, parsed) || (valid && !valid(parsed)))
          return option + ": '" + item + "' is not " + what;
        numbers.push_back(parsed);
      }
      into = numbers;
      return std::string();
    };
  }
  /// "a,b,,c" -> {"a", "b", "", "c"}.
  static std::vector<std::string> splitCommas(const std::string &text);
  /// Through a parser of the form bool(option, value, T &out, error) that
  /// writes the whole message (Tuning/Schedule.h's parseSeconds).
  template <typename T>
  static Reader parsedBy(T &into,
                         bool (*parse)(const std::string &, const std::string &,
                                       T &, std::string &)) {
    return [&into, parse](const std::string &option,
                          const std::string &value) {
      std::string error;
      if (!parse(option, value, into, error) && error.empty())
        error = option + "=" + value + ": not taken";
      return error;
    };
  }
  /// One of `choices`; otherwise "--name=VALUE: expected a, b or c".
  static Reader choice(std::string &into, std::vector<std::string> choices);
  /// "--name=VALUE: expected <expected>".
  static std::string expectedMessage(const std::string &option,
                                     const std::string &value,
                                     const std::string &expected);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace indexpool::tools

#endif // INDEXPOOL_TOOLSUPPORT_FLAGS_H
