//===- IndexPoolC.cpp - the C API over the C++ embedding API --------------===//
//
// Each handle owns its C++ object; each call converts its tensors, runs the
// C++ call inside a try block (no exception may cross into C: allocation
// failures become a status) and turns a failed Status into a heap status.
//
//===----------------------------------------------------------------------===//

#include "indexpool-c/IndexPool.h"

#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"
#include "indexpool/API/Formats.h"
#include "indexpool/API/Reference.h"
#include "indexpool/Runtime/GpuFunction.h"

#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace indexpool;

struct indexpool_status {
  std::string message;
};
struct indexpool_module {
  std::unique_ptr<Module> module;
};
struct indexpool_cpu_function {
  std::unique_ptr<CpuFunction> function;
  /// Reused by every call: the converted tensors.
  std::vector<TensorRef> inputs, outputs, results;
};
struct indexpool_gpu_artifact {
  GpuArtifact artifact;
};
struct indexpool_gpu_function {
  /// Declared first: destroyed after the function that uses it.
  std::unique_ptr<runtime::CudaDevice> device;
  std::unique_ptr<GpuFunction> function;
  /// Reused by every call: the converted tensors.
  std::vector<TensorRef> inputs, outputs;
};

/// A status that cannot be allocated is reported by this one (never freed).
static indexpool_status outOfMemory{"out of memory"};

static indexpool_status_t makeStatus(const std::string &message) {
  indexpool_status_t status = new (std::nothrow) indexpool_status;
  if (!status)
    return &outOfMemory;
  try {
    status->message = message;
  } catch (...) {
    delete status;
    return &outOfMemory;
  }
  return status;
}

static indexpool_status_t toC(const Status &status) {
  return status.ok() ? nullptr : makeStatus(status.message());
}

/// Runs `body` (returning a Status) with every exception turned into one.
template <typename Body>
static indexpool_status_t guarded(Body body) {
  try {
    return toC(body());
  } catch (const std::bad_alloc &) {
    return makeStatus("out of memory");
  } catch (const std::exception &e) {
    return makeStatus(std::string("internal error: ") + e.what());
  } catch (...) {
    return makeStatus("internal error");
  }
}

static Status missing(const char *what) {
  return Status::error(std::string(what) + " is NULL");
}

static_assert(int(INDEXPOOL_NUM_DTYPES) == indexpool::kNumElementTypes &&
                  int(INDEXPOOL_I4) == int(indexpool::ElementType::I4),
              "the C enum and the C++ one are ElementTypes.def's rows");

/// A tensor's dtype: a row of the table that tensors may have.
static bool validDType(indexpool_dtype_t dtype) {
  return int(dtype) >= 0 && int(dtype) < indexpool::kNumElementTypes &&
         indexpool::elementTypeInfo(DType(dtype))
             .allows(indexpool::ElementUse::Tensor);
}

static Status convert(const indexpool_tensor_t *tensors, size_t count,
                      const char *what, std::vector<TensorRef> &out) {
  if (count && !tensors)
    return Status::error(std::string(what) + " is NULL");
  out.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const indexpool_tensor_t &t = tensors[i];
    if (!validDType(t.dtype))
      return Status::error(std::string(what) + " #" + std::to_string(i) +
                           " has an unknown dtype " +
                           std::to_string(int(t.dtype)));
    TensorRef &ref = out[i];
    ref.data = t.data;
    ref.dtype = DType(t.dtype);
    ref.rank = t.rank;
    if (t.rank >= 0 && t.rank <= kMaxRank)
      std::memcpy(ref.shape, t.shape, sizeof(int64_t) * size_t(t.rank));
  }
  return Status();
}

static void fromRef(const TensorRef &ref, indexpool_tensor_t &t) {
  std::memset(&t, 0, sizeof(t));
  t.data = ref.data;
  t.dtype = indexpool_dtype_t(ref.dtype);
  t.rank = ref.rank;
  std::memcpy(t.shape, ref.shape, sizeof(int64_t) * size_t(ref.rank));
}

/// Writes `shapes` into `out[0 .. count)` as tensors without data, of the
/// dtypes `dtypeOf(i)` gives; `noun` ("results", "outputs") names them.
template <typename DTypeOf>
static Status writeShapes(const std::vector<std::vector<int64_t>> &shapes,
                          const char *noun, indexpool_tensor_t *out,
                          size_t count, DTypeOf dtypeOf) {
  if (count != shapes.size())
    return Status::error("the function has " + std::to_string(shapes.size()) +
                         " " + noun + ", got room for " +
                         std::to_string(count));
  if (count && !out)
    return missing(noun);
  for (size_t i = 0; i < count; ++i)
    fromRef(TensorRef(nullptr, dtypeOf(i), shapes[i]), out[i]);
  return Status();
}

static CompileOptions toOptions(const indexpool_compile_options_t *options) {
  CompileOptions result;
  if (!options)
    return result;
  result.fuse = options->fuse != 0;
  result.threads = options->threads;
  result.vectorWidth = options->vector_width;
  result.checkBounds = options->check_bounds != 0;
  if (options->tuning_db)
    result.tuningDB = options->tuning_db;
  if (options->binary_format)
    result.binaryFormat = options->binary_format;
  if (options->cpu)
    result.cpu = options->cpu;
  return result;
}

extern "C" {

const char *indexpool_status_message(indexpool_status_t status) {
  return status ? status->message.c_str() : "";
}

void indexpool_status_free(indexpool_status_t status) {
  if (status != &outOfMemory)
    delete status;
}

const char *indexpool_dtype_name(indexpool_dtype_t dtype) {
  return validDType(dtype) ? dtypeName(DType(dtype)) : nullptr;
}

size_t indexpool_dtype_bytes(indexpool_dtype_t dtype) {
  return validDType(dtype) ? dtypeBytes(DType(dtype)) : 0;
}

float indexpool_decode_f8e4m3fn(uint8_t code) { return decodeF8E4M3FN(code); }
float indexpool_decode_bf16(uint16_t bits) { return decodeBF16(bits); }

indexpool_status_t indexpool_module_parse(const char *text, size_t length,
                                          const char *name,
                                          indexpool_module_t *out) {
  return guarded([&] {
    if (!out)
      return missing("out");
    *out = nullptr;
    if (!text && length)
      return missing("text");
    Status status;
    std::unique_ptr<Module> module =
        Module::parse(std::string(text ? text : "", length), status,
                      name ? name : "<string>");
    if (module)
      *out = new indexpool_module{std::move(module)};
    return status;
  });
}

void indexpool_module_destroy(indexpool_module_t module) { delete module; }

void indexpool_compress_spec_init(indexpool_compress_spec_t *spec) {
  if (!spec)
    return;
  CompressSpec defaults;
  spec->tokens = defaults.tokens;
  spec->dim = defaults.dim;
  spec->key_type = indexpool_dtype_t(defaults.keyType);
  spec->pool_size = defaults.poolSize;
  spec->per_channel_scores = defaults.perChannelScores;
  spec->bias = nullptr;
  spec->temperature = defaults.temperature;
  spec->rotate = defaults.rotate;
  spec->code_type = indexpool_dtype_t(defaults.codeType);
  spec->pow2_scale = defaults.pow2Scale;
  spec->name = nullptr;
}

indexpool_status_t indexpool_build_compress(
    const indexpool_compress_spec_t *spec, indexpool_module_t *out) {
  return guarded([&] {
    if (!out)
      return missing("out");
    *out = nullptr;
    if (!spec)
      return missing("spec");
    if (!validDType(spec->key_type) || !validDType(spec->code_type))
      return Status::error("spec has an unknown dtype");
    CompressSpec c;
    c.tokens = spec->tokens;
    c.dim = spec->dim;
    c.keyType = DType(spec->key_type);
    c.poolSize = spec->pool_size;
    c.perChannelScores = spec->per_channel_scores != 0;
    c.bias = spec->bias ? spec->bias : "none";
    c.temperature = spec->temperature;
    c.rotate = spec->rotate != 0;
    c.codeType = DType(spec->code_type);
    c.pow2Scale = spec->pow2_scale != 0;
    if (spec->name)
      c.name = spec->name;
    Status status;
    std::unique_ptr<Module> module = buildCompress(c, status);
    if (module)
      *out = new indexpool_module{std::move(module)};
    return status;
  });
}

void indexpool_compile_options_init(indexpool_compile_options_t *options) {
  if (!options)
    return;
  CompileOptions defaults;
  options->fuse = defaults.fuse;
  options->threads = defaults.threads;
  options->vector_width = defaults.vectorWidth;
  options->check_bounds = defaults.checkBounds;
  options->tuning_db = nullptr;
  options->binary_format = nullptr;
  options->cpu = nullptr;
}

indexpool_status_t indexpool_compile_cpu(
    indexpool_module_t module, const char *name,
    const indexpool_compile_options_t *options, indexpool_cpu_function_t *out) {
  return guarded([&] {
    if (!out)
      return missing("out");
    *out = nullptr;
    if (!module)
      return missing("module");
    if (!name)
      return missing("name");
    Status status;
    std::unique_ptr<CpuFunction> function =
        compileForCpu(*module->module, name, toOptions(options), status);
    if (function) {
      *out = new indexpool_cpu_function;
      (*out)->function = std::move(function);
    }
    return status;
  });
}

void indexpool_cpu_function_destroy(indexpool_cpu_function_t function) {
  delete function;
}

size_t indexpool_cpu_function_num_inputs(indexpool_cpu_function_t function) {
  return function ? function->function->signature().arguments.size() : 0;
}

size_t indexpool_cpu_function_num_results(indexpool_cpu_function_t function) {
  return function ? function->function->signature().results.size() : 0;
}

indexpool_status_t indexpool_cpu_function_result_shapes(
    indexpool_cpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, indexpool_tensor_t *results, size_t num_results) {
  return guarded([&] {
    if (!function)
      return missing("function");
    if (Status s = convert(inputs, num_inputs, "input", function->inputs); !s)
      return s;
    std::vector<std::vector<int64_t>> shapes;
    if (Status s = function->function->resultShapes(
            function->inputs.data(), function->inputs.size(), shapes);
        !s)
      return s;
    const FunctionSignature &signature = function->function->signature();
    return writeShapes(shapes, "results", results, num_results,
                       [&](size_t i) { return signature.results[i].dtype; });
  });
}

indexpool_status_t indexpool_cpu_function_call(
    indexpool_cpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, const indexpool_tensor_t *outputs, size_t num_outputs) {
  return guarded([&] {
    if (!function)
      return missing("function");
    if (Status s = convert(inputs, num_inputs, "input", function->inputs); !s)
      return s;
    if (Status s = convert(outputs, num_outputs, "output", function->outputs);
        !s)
      return s;
    return function->function->call(function->inputs.data(), num_inputs,
                                     function->outputs.data(), num_outputs);
  });
}

indexpool_status_t indexpool_cpu_function_call_borrowed(
    indexpool_cpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, indexpool_tensor_t *results, size_t num_results) {
  return guarded([&] {
    if (!function)
      return missing("function");
    if (Status s = convert(inputs, num_inputs, "input", function->inputs); !s)
      return s;
    size_t expected = function->function->signature().results.size();
    if (num_results != expected)
      return Status::error("the function has " + std::to_string(expected) +
                           " results, got room for " +
                           std::to_string(num_results));
    if (num_results && !results)
      return missing("results");
    if (Status s = function->function->call(function->inputs.data(),
                                            num_inputs, function->results);
        !s)
      return s;
    for (size_t i = 0; i < num_results; ++i)
      fromRef(function->results[i], results[i]);
    return Status();
  });
}

indexpool_status_t indexpool_verify(indexpool_module_t module,
                                    const char *name,
                                    const indexpool_tensor_t *inputs,
                                    size_t num_inputs,
                                    const indexpool_tensor_t *outputs,
                                    size_t num_outputs) {
  return guarded([&] {
    if (!module)
      return missing("module");
    if (!name)
      return missing("name");
    std::vector<TensorRef> in, out;
    if (Status s = convert(inputs, num_inputs, "input", in); !s)
      return s;
    if (Status s = convert(outputs, num_outputs, "output", out); !s)
      return s;
    std::vector<std::string> report;
    Status status = verifyAgainstReference(*module->module, name, in.data(),
                                           in.size(), out.data(), out.size(),
                                           report);
    if (status.ok() || report.empty())
      return status;
    std::string message = status.message();
    for (const std::string &line : report)
      message += "\n" + line;
    return Status::error(message);
  });
}

indexpool_status_t indexpool_compile_gpu(
    indexpool_module_t module, const char *name, const char *chip,
    const indexpool_compile_options_t *options, indexpool_gpu_artifact_t *out) {
  return guarded([&] {
    if (!out)
      return missing("out");
    *out = nullptr;
    if (!module)
      return missing("module");
    if (!name)
      return missing("name");
    if (!chip)
      return missing("chip");
    auto artifact = std::make_unique<indexpool_gpu_artifact>();
    Status status = compileForGpu(*module->module, name, chip,
                                  toOptions(options), artifact->artifact);
    if (status.ok())
      *out = artifact.release();
    return status;
  });
}

indexpool_status_t indexpool_gpu_artifact_save(indexpool_gpu_artifact_t artifact,
                                               const char *directory) {
  return guarded([&] {
    if (!artifact)
      return missing("artifact");
    return saveGpuArtifact(artifact->artifact, directory ? directory : ".");
  });
}

const char *indexpool_gpu_artifact_manifest(indexpool_gpu_artifact_t artifact) {
  return artifact ? artifact->artifact.manifest.c_str() : "";
}

const char *indexpool_gpu_artifact_binary(indexpool_gpu_artifact_t artifact,
                                          size_t *size) {
  if (size)
    *size = artifact ? artifact->artifact.binary.size() : 0;
  return artifact ? artifact->artifact.binary.data() : "";
}

void indexpool_gpu_artifact_destroy(indexpool_gpu_artifact_t artifact) {
  delete artifact;
}

indexpool_status_t indexpool_gpu_function_load(const char *manifest_path,
                                               int device_ordinal,
                                               indexpool_gpu_function_t *out) {
  return guarded([&] {
    if (!out)
      return missing("out");
    *out = nullptr;
    if (!manifest_path)
      return missing("manifest_path");
    auto handle = std::make_unique<indexpool_gpu_function>();
    std::string error;
    handle->device = runtime::CudaDevice::open(error, device_ordinal);
    if (!handle->device)
      return Status::error(error);
    Status status;
    handle->function =
        GpuFunction::load(*handle->device, manifest_path, status);
    if (handle->function)
      *out = handle.release();
    return status;
  });
}

void indexpool_gpu_function_destroy(indexpool_gpu_function_t function) {
  delete function;
}

size_t indexpool_gpu_function_num_inputs(indexpool_gpu_function_t function) {
  return function ? function->function->numInputs() : 0;
}

size_t indexpool_gpu_function_num_outputs(indexpool_gpu_function_t function) {
  return function ? function->function->numOutputs() : 0;
}

indexpool_status_t indexpool_gpu_function_output_shapes(
    indexpool_gpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, indexpool_tensor_t *outputs, size_t num_outputs) {
  return guarded([&] {
    if (!function)
      return missing("function");
    if (Status s = convert(inputs, num_inputs, "input", function->inputs); !s)
      return s;
    std::vector<std::vector<int64_t>> shapes;
    if (Status s = function->function->outputShapes(
            function->inputs.data(), function->inputs.size(), shapes);
        !s)
      return s;
    return writeShapes(shapes, "outputs", outputs, num_outputs, [&](size_t i) {
      return function->function->outputType(i).dtype;
    });
  });
}

indexpool_status_t indexpool_gpu_function_launch(
    indexpool_gpu_function_t function, const indexpool_tensor_t *inputs,
    size_t num_inputs, const indexpool_tensor_t *outputs, size_t num_outputs,
    void *stream) {
  return guarded([&] {
    if (!function)
      return missing("function");
    if (Status s = convert(inputs, num_inputs, "input", function->inputs); !s)
      return s;
    if (Status s = convert(outputs, num_outputs, "output", function->outputs);
        !s)
      return s;
    return function->function->launch(function->inputs.data(), num_inputs,
                                      function->outputs.data(), num_outputs,
                                      stream);
  });
}

} // extern "C"
