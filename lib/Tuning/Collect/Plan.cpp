//===- Plan.cpp - DIR/plan.json -------------------------------------------===//
//
// Written with a plain string builder and read with the runtime's strict
// JSON reader: a plan carried to a GPU machine is read there without LLVM.
//
//===----------------------------------------------------------------------===//

#include "indexpool/Tuning/Plan.h"

#include "indexpool/Runtime/FileRead.h"
#include "indexpool/Runtime/Json.h"

#include <cstdio>
#include <fstream>
#include <sys/stat.h>

namespace indexpool::tuning {

namespace json = runtime::json;

bool LaunchChoice::operator==(const LaunchChoice &other) const {
  return threadsPerBlock == other.threadsPerBlock &&
         itemsPerBlock == other.itemsPerBlock &&
         elementsPerThread == other.elementsPerThread &&
         vectorBytes == other.vectorBytes && grid == other.grid &&
         vectorWidth == other.vectorWidth;
}

std::string LaunchChoice::describe(bool cpu) const {
  if (cpu)
    return "vector_width=" + std::to_string(vectorWidth);
  return "threads=" + std::to_string(threadsPerBlock) +
         " items=" + std::to_string(itemsPerBlock) +
         " ept=" + std::to_string(elementsPerThread) +
         " vb=" + std::to_string(vectorBytes) + " " + grid;
}

std::string jsonQuote(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

std::string joinPath(const std::string &directory, const std::string &name) {
  if (directory.empty())
    return name;
  return directory.back() == '/' ? directory + name : directory + "/" + name;
}

bool writeTextFile(const std::string &path, const std::string &text,
                   std::string &error) {
  std::string temporary = path + ".partial";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (file)
      file << text;
    if (!file.good() || !file.flush()) {
      std::remove(temporary.c_str());
      error = "cannot write " + path;
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    error = "cannot write " + path + " (renaming " + temporary + " failed)";
    return false;
  }
  return true;
}

/// An estimate with the digits it deserves.
static std::string formatEstimateUs(double us) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", us);
  return buffer;
}

namespace {

/// Reads the plan's fields; `error` names the field and where it is.
class PlanReader {
public:
  explicit PlanReader(std::string &error) : error(error) {}

  bool fail(const json::Value &at, const std::string &what) {
    error = at.location() + ": " + what;
    return false;
  }

  const json::Value *member(const json::Value &object, const char *key,
                            json::Kind kind) {
    const json::Value *value = object.find(key);
    if (!value) {
      fail(object, std::string("missing \"") + key + "\"");
      return nullptr;
    }
    if (value->kind != kind) {
      fail(*value, std::string("\"") + key + "\" must be " +
                       json::kindName(kind));
      return nullptr;
    }
    return value;
  }

  bool string(const json::Value &object, const char *key, std::string &out,
              bool optional = false) {
    if (optional && !object.find(key))
      return true;
    const json::Value *value = member(object, key, json::Kind::String);
    if (!value)
      return false;
    out = value->string;
    return true;
  }

  bool integer(const json::Value &object, const char *key, int64_t &out) {
    const json::Value *value = member(object, key, json::Kind::Number);
    if (!value)
      return false;
    if (!value->isInteger)
      return fail(*value, std::string("\"") + key + "\" must be an integer");
    out = value->integer;
    return true;
  }

  /// "estimate_us": optional (CPU plans and older plans have none).
  bool estimate(const json::Value &object, double &out) {
    const json::Value *value = object.find("estimate_us");
    if (!value)
      return true;
    if (value->kind != json::Kind::Number || !(value->number >= 0))
      return fail(*value, "\"estimate_us\" must be a non-negative number");
    out = value->number;
    return true;
  }

  bool launch(const json::Value &object, bool cpu, LaunchChoice &out) {
    const json::Value *value = member(object, "launch", json::Kind::Object);
    if (!value)
      return false;
    if (cpu)
      return integer(*value, "vector_width", out.vectorWidth);
    if (!integer(*value, "threads_per_block", out.threadsPerBlock) ||
        !integer(*value, "items_per_block", out.itemsPerBlock) ||
        !integer(*value, "elements_per_thread", out.elementsPerThread) ||
        !integer(*value, "vector_bytes", out.vectorBytes) ||
        !string(*value, "grid", out.grid))
      return false;
    if (out.grid != "tiled" && out.grid != "grid_stride")
      return fail(*value, "\"grid\" must be \"tiled\" or \"grid_stride\"");
    return true;
  }

  bool candidate(const json::Value &value, bool cpu, size_t position,
                 Candidate &out) {
    if (!value.isObject())
      return fail(value, "a candidate must be an object");
    int64_t id = 0, opIndex = 0, number = 0;
    if (!integer(value, "id", id) || !integer(value, "op_index", opIndex) ||
        !integer(value, "candidate", number) || !string(value, "op", out.op) ||
        !string(value, "shape_class", out.shapeClass) ||
        !launch(value, cpu, out.launch) ||
        !estimate(value, out.estimateUs) ||
        !string(value, "tuning_db", out.tuningDb) ||
        !string(value, "manifest", out.manifest, /*optional=*/cpu) ||
        !string(value, "artifact", out.artifact, /*optional=*/cpu))
      return false;
    if (id != int64_t(position))
      return fail(value, "candidate ids must be 0, 1, ... in order");
    if (opIndex < 0 || opIndex > 1 << 20 || number < 0 || number > 1 << 20)
      return fail(value, "\"op_index\" and \"candidate\" must be small "
                         "non-negative integers");
    out.id = int(id);
    out.opIndex = int(opIndex);
    out.number = int(number);
    return true;
  }

  bool plan(const json::Value &root, Plan &out) {
    if (!root.isObject())
      return fail(root, "expected an object");
    if (!string(root, "function", out.function) ||
        !string(root, "chip", out.chip) ||
        !string(root, "source", out.source, /*optional=*/true))
      return false;
    const json::Value *shapes = member(root, "inputs", json::Kind::Array);
    if (!shapes)
      return false;
    for (const json::Value &shape : shapes->elements) {
      if (!shape.isArray())
        return fail(shape, "an input shape must be an array of sizes");
      std::vector<int64_t> &sizes = out.inputShapes.emplace_back();
      for (const json::Value &size : shape.elements) {
        if (!size.isInteger || size.integer < 0)
          return fail(size, "a size must be a non-negative integer");
        sizes.push_back(size.integer);
      }
    }
    const json::Value *candidates =
        member(root, "candidates", json::Kind::Array);
    if (!candidates)
      return false;
    if (candidates->elements.empty())
      return fail(*candidates, "no candidates");
    for (const json::Value &value : candidates->elements) {
      size_t position = out.candidates.size();
      if (!candidate(value, out.isCpu(), position,
                     out.candidates.emplace_back()))
        return false;
    }
    return true;
  }

private:
  std::string &error;
};

bool isRegularFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

} // namespace

std::string launchToJson(const LaunchChoice &launch, bool cpu) {
  if (cpu)
    return "{\"vector_width\": " + std::to_string(launch.vectorWidth) + "}";
  return "{\"threads_per_block\": " + std::to_string(launch.threadsPerBlock) +
         ", \"items_per_block\": " + std::to_string(launch.itemsPerBlock) +
         ", \"elements_per_thread\": " +
         std::to_string(launch.elementsPerThread) +
         ", \"vector_bytes\": " + std::to_string(launch.vectorBytes) +
         ", \"grid\": " + jsonQuote(launch.grid) + "}";
}

std::string planToJson(const Plan &plan) {
  std::string out = "{\n  \"function\": " + jsonQuote(plan.function) +
                    ",\n  \"chip\": " + jsonQuote(plan.chip) +
                    ",\n  \"source\": " + jsonQuote(plan.source) +
                    ",\n  \"inputs\": [";
  for (size_t i = 0; i < plan.inputShapes.size(); ++i) {
    out += i ? ", [" : "[";
    for (size_t d = 0; d < plan.inputShapes[i].size(); ++d)
      out += (d ? ", " : "") + std::to_string(plan.inputShapes[i][d]);
    out += "]";
  }
  out += "],\n  \"candidates\": [";
  for (const Candidate &c : plan.candidates) {
    out += c.id ? ",\n" : "\n";
    out += "    {\"id\": " + std::to_string(c.id) + ", \"op\": " +
           jsonQuote(c.op) + ", \"op_index\": " + std::to_string(c.opIndex) +
           ", \"candidate\": " + std::to_string(c.number) +
           ", \"shape_class\": " + jsonQuote(c.shapeClass) +
           ",\n     \"launch\": " + launchToJson(c.launch, plan.isCpu()) +
           (c.estimateUs >= 0
                ? ", \"estimate_us\": " + formatEstimateUs(c.estimateUs)
                : std::string()) +
           ",\n     \"tuning_db\": " + jsonQuote(c.tuningDb);
    if (!plan.isCpu())
      out += ", \"manifest\": " + jsonQuote(c.manifest) +
             ", \"artifact\": " + jsonQuote(c.artifact);
    out += "}";
  }
  return out + "\n  ]\n}\n";
}

bool loadPlan(const std::string &directory, Plan &plan, std::string &error) {
  std::string path = joinPath(directory, "plan.json");
  std::string text;
  if (!runtime::readFileWithLimit(path, runtime::kMaxJsonBytes, "a plan", text,
                                  error))
    return false;
  json::Value root;
  if (!json::parse(text, root, error)) {
    error = path + ": invalid JSON: " + error;
    return false;
  }
  PlanReader reader(error);
  if (!reader.plan(root, plan)) {
    error = path + ": " + error;
    return false;
  }
  for (const Candidate &c : plan.candidates)
    for (const std::string *file : {&c.manifest, &c.artifact})
      if (!file->empty() && !isRegularFile(joinPath(directory, *file))) {
        error = path + ": candidate " + std::to_string(c.id) + " names " +
                *file + ", which is missing from " + directory;
        return false;
      }
  return true;
}

} // namespace indexpool::tuning
