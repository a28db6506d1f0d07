//===- Flags.cpp - every tool's command line, declared once ---------------===//
//
// CLI11 matches argv against the declared flags; what it accepts more
// loosely than the tools promise (an empty "--name=", a flag's "=yes",
// unknown options kept as extras) is refused here with the tools' messages.
// Every CLI11 exception is caught in this file.
//
//===----------------------------------------------------------------------===//

#include "indexpool/ToolSupport/Flags.h"

#include "indexpool/Runtime/Version.h"
#include "indexpool/ToolSupport/ToolError.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string_view>

using namespace indexpool::tools;

namespace {

/// One declared option or flag, and the values argv gave it.
struct Entry {
  std::string name, valueName, help;
  Flags::Reader read; // null for a flag
  bool *flag = nullptr;
  bool required = false;
  bool *given = nullptr;
  std::vector<std::string> values;

  /// "-o DIR" for a one-letter option, "--name=VALUE" otherwise.
  std::string label() const {
    if (flag)
      return name;
    bool shortName = name.size() == 2 && name[0] == '-';
    return name + (shortName ? " " : "=") + valueName;
  }
  std::string needsValue() const {
    return name + " needs a value (" + label() + ")";
  }
};

/// `text` wrapped to lines of at most `width` columns, each after `indent`
/// spaces (the first one after `first` characters already written).
std::string wrap(const std::string &text, size_t indent, size_t first,
                 size_t width = 79) {
  std::string out;
  size_t column = first;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos)
      end = text.size();
    std::string word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty())
      continue;
    if (column > indent && column + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (column > indent) {
      out += ' ';
      ++column;
    } else if (column < indent) {
      out += std::string(indent - column, ' ');
      column = indent;
    }
    out += word;
    column += word.size();
  }
  return out;
}

} // namespace

struct Flags::Impl {
  std::string tool, summary, usage, epilog;
  std::vector<Entry> entries;
  std::string noun, passThroughPrefix;
  std::vector<std::string> *passThrough = nullptr;
  std::vector<std::string> *positionals = nullptr;
  std::string *positional = nullptr;
  size_t maxPositionals = 0;

  Entry *find(std::string_view name) {
    for (Entry &entry : entries)
      if (entry.name == name)
        return &entry;
    return nullptr;
  }
};

Flags::Flags(std::string tool, std::string summary, std::string usage)
    : impl(std::make_unique<Impl>()) {
  impl->tool = std::move(tool);
  impl->summary = std::move(summary);
  impl->usage = std::move(usage);
}

Flags::~Flags() = default;

Flags &Flags::option(std::string name, std::string valueName, std::string help,
                     Reader read) {
  impl->entries.push_back(
      {std::move(name), std::move(valueName), std::move(help), std::move(read)});
  return *this;
}

Flags &Flags::required() {
  impl->entries.back().required = true;
  return *this;
}

Flags &Flags::given(bool &into) {
  impl->entries.back().given = &into;
  return *this;
}

Flags &Flags::flag(std::string name, std::string help, bool &into) {
  Entry entry{std::move(name), "", std::move(help), nullptr};
  entry.flag = &into;
  impl->entries.push_back(std::move(entry));
  return *this;
}

Flags &Flags::positional(std::string noun, std::vector<std::string> &into,
                         size_t max) {
  impl->noun = std::move(noun);
  impl->positionals = &into;
  impl->maxPositionals = max;
  return *this;
}

Flags &Flags::positional(std::string noun, std::string &into) {
  impl->noun = std::move(noun);
  impl->positional = &into;
  impl->maxPositionals = 1;
  return *this;
}

Flags &Flags::passThrough(std::string prefix, std::vector<std::string> &into) {
  impl->passThroughPrefix = std::move(prefix);
  impl->passThrough = &into;
  return *this;
}

Flags &Flags::epilog(std::string text) {
  impl->epilog = std::move(text);
  return *this;
}

std::string Flags::help() const {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const Entry &entry : impl->entries)
    rows.emplace_back(entry.label(), entry.help);
  rows.emplace_back("--help", "this text");
  rows.emplace_back("--version", "the IndexPool version");
  size_t width = 0;
  for (const auto &row : rows)
    width = std::max(width, row.first.size());
  // Longer labels put their help on the next line.
  width = std::min<size_t>(width, 22);
  size_t indent = 2 + width + 2;
  std::string text = impl->tool + ": " + impl->summary + "\n\nusage: " +
                     impl->tool + " " + impl->usage + "\n\n";
  for (const auto &[label, help] : rows) {
    text += "  " + label;
    size_t column = 2 + label.size();
    if (label.size() > width) {
      text += "\n";
      column = 0;
    }
    text += wrap(help, indent, column) + "\n";
  }
  // The epilog's paragraphs, each wrapped (its own line breaks are spaces).
  for (size_t at = 0; at < impl->epilog.size();) {
    size_t end = impl->epilog.find("\n\n", at);
    if (end == std::string::npos)
      end = impl->epilog.size();
    std::string paragraph = impl->epilog.substr(at, end - at);
    std::replace(paragraph.begin(), paragraph.end(), '\n', ' ');
    text += "\n" + wrap(paragraph, 0, 0) + "\n";
    at = end + 2;
  }
  return text;
}

std::optional<int> Flags::parse(int argc, const char *const *argv) {
  auto fail = [&](const std::string &message) -> std::optional<int> {
    return toolError(impl->tool, message);
  };
  // "--name=" with nothing after it: CLI11 would take the next argument.
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--")
      break;
    if (arg.size() > 1 && arg.find('=') == arg.size() - 1)
      if (Entry *entry = impl->find(arg.substr(0, arg.size() - 1));
          entry && !entry->flag)
        return fail(entry->needsValue());
  }

  CLI::App app;
  app.set_help_flag();
  app.allow_extras(true);
  bool help = false, version = false;
  std::vector<std::string> positionals;
  try {
    app.add_flag("-h,--help", help);
    app.add_flag("--version", version);
    for (Entry &entry : impl->entries) {
      if (entry.flag)
        app.add_flag(entry.name, entry.values);
      else
        app.add_option(entry.name, entry.values)
            ->expected(0, 1)
            ->allow_extra_args(false)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
    app.add_option("arguments", positionals)->expected(0, -1);
    app.parse(argc, argv);
  } catch (const CLI::Error &error) {
    return fail(std::string(error.what()) + " (see --help)");
  }

  if (help) {
    std::fputs(this->help().c_str(), stdout);
    return 0;
  }
  if (version) {
    std::printf("%s (IndexPool %s)\n", impl->tool.c_str(),
                indexpool::runtime::version());
    return 0;
  }
  for (const std::string &extra : app.remaining()) {
    if (extra == "--")
      continue;
    if (impl->passThrough && !impl->passThroughPrefix.empty() &&
        extra.rfind(impl->passThroughPrefix, 0) == 0) {
      impl->passThrough->push_back(extra);
      continue;
    }
    return fail("unknown option '" + extra.substr(0, extra.find('=')) +
                "' (see --help)");
  }
  if (positionals.size() > impl->maxPositionals) {
    std::string only = impl->maxPositionals == 0 ? ""
                       : impl->maxPositionals == 1
                           ? "one " + impl->noun + " only; "
                           : "at most " + std::to_string(impl->maxPositionals) +
                                 " " + impl->noun + "; ";
    return fail("unexpected argument '" + positionals[impl->maxPositionals] +
                "' (" + only + "see --help)");
  }
  if (impl->positionals)
    *impl->positionals = positionals;
  if (impl->positional && !positionals.empty())
    *impl->positional = positionals.front();

  for (Entry &entry : impl->entries) {
    size_t given = app.count(entry.name);
    if (entry.flag) {
      if (!entry.values.empty() && entry.given)
        *entry.given = true;
      for (const std::string &value : entry.values) {
        if (value != "true" && value != "false")
          return fail(entry.name + " takes no value (or =true, =false), got " +
                      entry.name + "=" + value);
        *entry.flag = value == "true";
      }
      continue;
    }
    if (given == 0 && entry.required)
      return fail(entry.label() + " is required");
    if (given > 0 && entry.given)
      *entry.given = true;
    // An occurrence without a value gives "" (expected(0, 1)).
    for (std::string value : entry.values) {
      // CLI11 keeps the "=" of "-o=DIR".
      if (entry.name.size() == 2 && !value.empty() && value[0] == '=')
        value.erase(0, 1);
      if (value.empty())
        return fail(entry.needsValue());
      if (std::string error = entry.read(entry.name, value); !error.empty())
        return fail(error);
    }
  }
  return std::nullopt;
}

Flags::Reader Flags::text(std::string &into) {
  return [&into](const std::string &, const std::string &value) {
    into = value;
    return std::string();
  };
}

Flags::Reader Flags::list(std::vector<std::string> &into) {
  return [&into](const std::string &, const std::string &value) {
    into.push_back(value);
    return std::string();
  };
}

Flags::Reader Flags::commaList(std::vector<std::string> &into) {
  return [&into](const std::string &, const std::string &value) {
    into = splitCommas(value);
    return std::string();
  };
}

std::vector<std::string> Flags::splitCommas(const std::string &text) {
  std::vector<std::string> items;
  for (size_t at = 0;;) {
    size_t comma = text.find(',', at);
    items.push_back(text.substr(at, comma - at));
    if (comma == std::string::npos)
      return items;
    at = comma + 1;
  }
}

Flags::Reader Flags::choice(std::string &into,
                            std::vector<std::string> choices) {
  return [&into, choices](const std::string &option,
                          const std::string &value) {
    if (std::find(choices.begin(), choices.end(), value) == choices.end())
      return expectedMessage(option, value, listText(choices));
    into = value;
    return std::string();
  };
}

Flags::Reader Flags::deviceOrdinal(int &into) {
  return number<int>(into, "a device ordinal (0, 1, ...)",
                     [](int n) { return n >= 0; });
}

Flags::Reader Flags::seed(uint64_t &into) {
  return number(into, "an unsigned integer seed");
}

Flags::Reader Flags::runCount(unsigned &into, unsigned max) {
  return number<unsigned>(
      into, "a number of runs from 1 to " + std::to_string(max),
      [max](unsigned n) { return n >= 1 && n <= max; });
}

Flags::Reader Flags::file(std::string &into) {
  return [&into](const std::string &, const std::string &value) {
    into = !value.empty() && value[0] == '@' ? value.substr(1) : value;
    return std::string();
  };
}

std::string Flags::listText(const std::vector<std::string> &items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return text;
}

std::string Flags::expectedMessage(const std::string &option,
                                   const std::string &value,
                                   const std::string &expected) {
  return option + "=" + value + ": expected " + expected;
}
