//===- Bindings.cpp - the _indexpool extension module ---------------------===//
//
// A thin layer over the C++ embedding API (include/indexpool/API): each
// function here converts its arguments, calls the API once and turns a
// failed Status into IndexPoolError. The Pythonic surface (dtype names,
// torch tensors, defaults) lives in python/indexpool/*.py.
//
//===----------------------------------------------------------------------===//

#include "CacheBindings.h"
#include "GpuBindings.h"
#include "TensorArgs.h"

#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"
#include "indexpool/API/Formats.h"
#include "indexpool/API/CpuFunction.h"
#include "indexpool/API/Module.h"
#include "indexpool/API/Reference.h"

#include <pybind11/stl.h>

#include <chrono>
#include <mutex>

namespace py = pybind11;
using namespace indexpool;
using namespace indexpool::python;

namespace {

/// A row of ElementTypes.def by its code (a page layout's code type too:
/// the builders refuse it where a tensor's type is asked for).
DType toDType(int code) {
  if (code >= 0 && code < kNumElementTypes)
    return DType(code);
  throw py::value_error("not an IndexPool dtype code: " + std::to_string(code) +
                        " (known: 0 to " + std::to_string(kNumElementTypes - 1) +
                        ", " + elementTypeList() + ")");
}

py::tuple shapeTuple(const std::vector<int64_t> &shape) {
  py::tuple tuple(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    tuple[i] = py::int_(shape[i]);
  return tuple;
}

FunctionSignature signatureOf(const Module &module, const std::string &name) {
  FunctionSignature signature;
  if (Status status = module.signature(name, signature); !status)
    raise(status);
  return signature;
}

/// A CpuFunction with what each call needs ready: the signature and a lock
/// (one call at a time, the GIL being released during the call). Any
/// number of Python threads may call it: each call converts its arguments
/// into its own TensorRefs before it waits for the lock (a vector shared
/// between calls was rewritten by the next caller while the previous call
/// read it), and copies the results out before it lets go.
class PyCpuFunction {
public:
  PyCpuFunction(std::unique_ptr<CpuFunction> function, py::object module,
                std::vector<int> inPlace)
      : function(std::move(function)), module(std::move(module)),
        signature(this->function->signature()), inPlace(std::move(inPlace)) {}

  /// Runs the function on `inputs`. Without `out`, returns new NumPy arrays
  /// (one result: the array, else a tuple); with `out` (a sequence of
  /// arrays, one per result), writes them and returns `out`.
  py::object run(py::sequence inputs, py::object out) {
    BorrowedTensors borrowed;
    std::vector<TensorRef> inputRefs, outputRefs;
    toTensorRefs(inputs, signature.arguments, signature.name, "argument",
                 /*writable=*/false, borrowed, inputRefs);
    checkInPlaceWritable(inputs);
    std::unique_lock<std::mutex> lock(mutex, std::defer_lock);
    Status status;
    if (!out.is_none()) {
      py::sequence outputs = out;
      toTensorRefs(outputs, signature.results, signature.name, "output",
                   /*writable=*/true, borrowed, outputRefs);
      {
        py::gil_scoped_release noGil;
        lock.lock();
        status = function->call(inputRefs.data(), inputRefs.size(),
                                outputRefs.data(), outputRefs.size());
      }
      if (!status)
        raise(status);
      return out;
    }
    {
      py::gil_scoped_release noGil;
      lock.lock();
      status = function->call(inputRefs.data(), inputRefs.size(), results);
    }
    if (!status)
      raise(status);
    // The results are views of buffers the next call reuses: copy them
    // while the lock is held.
    if (results.size() == 1)
      return copyToNumpy(results[0]);
    py::tuple arrays(results.size());
    for (size_t i = 0; i < results.size(); ++i)
      arrays[i] = copyToNumpy(results[i]);
    return arrays;
  }

  py::list resultShapes(py::sequence inputs) {
    BorrowedTensors borrowed;
    std::vector<TensorRef> refs;
    toTensorRefs(inputs, signature.arguments, signature.name, "argument",
                 /*writable=*/false, borrowed, refs);
    std::vector<std::vector<int64_t>> shapes;
    Status status;
    {
      py::gil_scoped_release noGil;
      std::lock_guard<std::mutex> guard(mutex);
      status = function->resultShapes(refs.data(), refs.size(), shapes);
    }
    if (!status)
      raise(status);
    py::list list;
    for (const auto &shape : shapes)
      list.append(shapeTuple(shape));
    return list;
  }

  /// The C++ API's call timed from C++ (no Python in the loop): seconds of
  /// each of `repeats` calls into `out`, the anchor of call-overhead
  /// benchmarks.
  std::vector<double> timeCalls(py::sequence inputs, py::sequence out,
                                int repeats) {
    BorrowedTensors borrowed;
    std::vector<TensorRef> in, outputs;
    toTensorRefs(inputs, signature.arguments, signature.name, "argument", false,
                 borrowed, in);
    checkInPlaceWritable(inputs);
    toTensorRefs(out, signature.results, signature.name, "output", true,
                 borrowed, outputs);
    std::vector<double> seconds;
    Status status;
    {
      py::gil_scoped_release noGil;
      std::lock_guard<std::mutex> guard(mutex);
      for (int i = 0; i < repeats && status; ++i) {
        auto start = std::chrono::steady_clock::now();
        status = function->call(in.data(), in.size(), outputs.data(),
                                outputs.size());
        seconds.push_back(std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count());
      }
    }
    if (!status)
      raise(status);
    return seconds;
  }

  const FunctionSignature &getSignature() const { return signature; }

private:
  /// The compiled code writes the in-place arguments: a read-only NumPy
  /// array there is an error, as it is for an output.
  void checkInPlaceWritable(py::sequence inputs) const {
    for (int i : inPlace) {
      py::handle input = inputs[size_t(i)];
      if (py::isinstance<py::array>(input) &&
          !py::reinterpret_borrow<py::array>(input).writeable())
        throw py::value_error("argument #" + std::to_string(i) + " of @" +
                              signature.name + " (" +
                              typeText(signature.arguments[size_t(i)]) +
                              "): the array is read-only (the call updates "
                              "it in place)");
    }
  }

  std::unique_ptr<CpuFunction> function;
  /// The Module it was compiled from, kept alive with it.
  py::object module;
  FunctionSignature signature;
  std::mutex mutex;
  /// Views of the buffers the next call reuses: read under `mutex` only.
  std::vector<TensorRef> results;
  /// CompileOptions::inPlaceArguments.
  std::vector<int> inPlace;
};

CompileOptions makeOptions(bool fuse, int threads, int vectorWidth,
                           bool checkBounds, const std::string &tuningDB,
                           const std::string &binaryFormat,
                           const py::object &inputShapes) {
  CompileOptions options;
  options.fuse = fuse;
  options.threads = threads;
  options.vectorWidth = vectorWidth;
  options.checkBounds = checkBounds;
  options.tuningDB = tuningDB;
  options.binaryFormat = binaryFormat;
  if (!inputShapes.is_none()) {
    if (!py::isinstance<py::dict>(inputShapes))
      throw py::type_error("input_shapes: expected a dict {argument index: "
                           "shape}, got " +
                           std::string(py::str(py::type::of(inputShapes))));
    for (auto item : py::reinterpret_borrow<py::dict>(inputShapes))
      options.inputShapes.emplace_back(
          castArgument<int>(item.first, "input_shapes (a key)",
                            "an argument index (int)"),
          castArgument<std::vector<int64_t>>(
              item.second, "input_shapes[" + std::string(py::repr(item.first)) +
                               "]",
              "a shape (a sequence of ints)"));
  }
  return options;
}

py::array decodeArray(py::array codes, int dtypeCode) {
  DType dtype = toDType(dtypeCode);
  py::array_t<float> values(
      std::vector<py::ssize_t>(codes.shape(), codes.shape() + codes.ndim()));
  float *out = values.mutable_data();
  py::ssize_t count = codes.size();
  if (dtype == DType::F8E4M3FN) {
    auto in = py::array_t<uint8_t, py::array::c_style>::ensure(codes);
    if (!in)
      throw py::type_error("f8E4M3FN codes must be uint8");
    for (py::ssize_t i = 0; i < count; ++i)
      out[i] = decodeF8E4M3FN(in.data()[i]);
    return values;
  }
  auto in = py::array_t<uint16_t, py::array::c_style>::ensure(codes);
  if (!in || (dtype != DType::BF16 && dtype != DType::F16))
    throw py::type_error("decode takes f8E4M3FN (uint8), bf16 or f16 "
                         "(uint16) codes");
  for (py::ssize_t i = 0; i < count; ++i)
    out[i] = dtype == DType::BF16 ? decodeBF16(in.data()[i])
                                  : decodeF16(in.data()[i]);
  return values;
}

py::array encodeArray(
    py::array_t<float, py::array::c_style | py::array::forcecast> values,
    int dtypeCode) {
  DType dtype = toDType(dtypeCode);
  std::vector<py::ssize_t> shape(values.shape(),
                                 values.shape() + values.ndim());
  const float *in = values.data();
  py::ssize_t count = values.size();
  if (dtype == DType::F8E4M3FN) {
    py::array_t<uint8_t> codes(shape);
    for (py::ssize_t i = 0; i < count; ++i)
      codes.mutable_data()[i] = encodeF8E4M3FN(in[i]);
    return codes;
  }
  if (dtype != DType::BF16 && dtype != DType::F16)
    throw py::type_error("encode makes f8E4M3FN, bf16 or f16 codes");
  py::array_t<uint16_t> codes(shape);
  for (py::ssize_t i = 0; i < count; ++i)
    codes.mutable_data()[i] =
        dtype == DType::BF16 ? encodeBF16(in[i]) : encodeF16(in[i]);
  return codes;
}

/// The element types (ElementTypes.def), TensorType and FunctionSignature.
void bindTypes(py::module &m) {
  // ElementTypes.def, row by row: python/indexpool/dtypes.py builds every
  // name, code and storage table from it.
  py::list table;
  for (const ElementTypeInfo &info : allElementTypes()) {
    py::dict row;
    row["name"] = info.name;
    row["code"] = static_cast<int>(info.type);
    row["bits"] = info.bits;
    row["float"] = info.isFloat();
    row["tensor"] = info.allows(ElementUse::Tensor);
    row["dense_code"] = info.allows(ElementUse::DenseCode);
    row["paged_code"] = info.allows(ElementUse::PagedCode);
    row["qmax"] = info.qmax;
    row["numpy"] = info.numpyName;
    row["torch"] = info.torchName;
    table.append(row);
  }
  m.attr("element_types") = table;
  py::dict codes, pageCodes;
  for (const ElementTypeInfo &info : allElementTypes())
    (info.allows(ElementUse::Tensor) ? codes : pageCodes)[info.name] =
        static_cast<int>(info.type);
  m.attr("dtype_codes") = codes;
  // Code types of the page layouts only (the `codes` of the paged ops).
  m.attr("page_code_types") = pageCodes;

  py::class_<TensorType>(m, "TensorType")
      .def_property_readonly(
          "dtype", [](const TensorType &type) { return dtypeName(type.dtype); })
      .def_property_readonly(
          "shape",
          [](const TensorType &type) { return shapeTuple(type.shape); })
      .def("__repr__", &typeText)
      .def("__eq__", [](const TensorType &a, const TensorType &b) {
        return a.dtype == b.dtype && a.shape == b.shape;
      });

  py::class_<FunctionSignature>(m, "FunctionSignature")
      .def_readonly("name", &FunctionSignature::name)
      .def_readonly("arguments", &FunctionSignature::arguments)
      .def_readonly("results", &FunctionSignature::results)
      .def("__repr__", [](const FunctionSignature &signature) {
        auto list = [](const std::vector<TensorType> &types) {
          std::string text;
          for (const TensorType &type : types)
            text += (text.empty() ? "" : ", ") + typeText(type);
          return text;
        };
        return "@" + signature.name + "(" + list(signature.arguments) +
               ") -> (" + list(signature.results) + ")";
      });
}

/// Module: MLIR assembly parsed and verified.
void bindModule(py::module &m) {
  py::class_<Module>(m, "Module")
      .def(py::init([](const std::string &text, const std::string &name) {
             Status status;
             std::unique_ptr<Module> module = Module::parse(text, status, name);
             if (!module)
               raise(status);
             return module;
           }),
           py::arg("text"), py::arg("name") = "<string>",
           "Parses and verifies MLIR assembly; IndexPoolError carries the "
           "diagnostics (NAME:line:col: error: ...).")
      .def("function_names", &Module::functionNames)
      .def("signature", &signatureOf, py::arg("name"))
      .def("str", &Module::str)
      .def("__str__", &Module::str);
}

/// The builders of compress and select modules.
void bindBuilders(py::module &m) {
  CompressSpec compress;
  m.def(
      "build_compress",
      [](int64_t tokens, int64_t dim, int keyType, int64_t poolSize,
         bool perChannelScores, const std::string &bias, float temperature,
         bool rotate, int codeType, bool pow2Scale, const std::string &name) {
        CompressSpec spec{tokens,
                          dim,
                          toDType(keyType),
                          poolSize,
                          perChannelScores,
                          bias,
                          temperature,
                          rotate,
                          toDType(codeType),
                          pow2Scale,
                          name};
        Status status;
        std::unique_ptr<Module> module = buildCompress(spec, status);
        if (!module)
          raise(status);
        return module;
      },
      py::arg("tokens") = compress.tokens, py::arg("dim") = compress.dim,
      py::arg("key_type") = static_cast<int>(compress.keyType),
      py::arg("pool_size") = compress.poolSize,
      py::arg("per_channel_scores") = compress.perChannelScores,
      py::arg("bias") = compress.bias,
      py::arg("temperature") = compress.temperature,
      py::arg("rotate") = compress.rotate,
      py::arg("code_type") = static_cast<int>(compress.codeType),
      py::arg("pow2_scale") = compress.pow2Scale,
      py::arg("name") = compress.name);

  SelectSpec select;
  m.def(
      "build_select",
      [](int64_t queries, int64_t heads, int64_t dim, int64_t pools,
         int queryType, int codeType, int64_t k, int64_t poolSize, bool rotate,
         bool valid, int64_t refine, int tokenKeyType, int64_t tokens,
         const std::string &name) {
        SelectSpec spec{queries,
                        heads,
                        dim,
                        pools,
                        toDType(queryType),
                        toDType(codeType),
                        k,
                        poolSize,
                        rotate,
                        valid,
                        refine,
                        toDType(tokenKeyType),
                        tokens,
                        name};
        Status status;
        std::unique_ptr<Module> module = buildSelect(spec, status);
        if (!module)
          raise(status);
        return module;
      },
      py::arg("queries") = select.queries, py::arg("heads") = select.heads,
      py::arg("dim") = select.dim, py::arg("pools") = select.pools,
      py::arg("query_type") = static_cast<int>(select.queryType),
      py::arg("code_type") = static_cast<int>(select.codeType),
      py::arg("k") = select.k, py::arg("pool_size") = select.poolSize,
      py::arg("rotate") = select.rotate, py::arg("valid") = select.valid,
      py::arg("refine") = select.refine,
      py::arg("token_key_type") = static_cast<int>(select.tokenKeyType),
      py::arg("tokens") = select.tokens, py::arg("name") = select.name);
}

/// The builders of the paged ops' modules.
void bindPagedBuilders(py::module &m) {
  // The paged builders: the layout (PageLayout) comes flat, as pages,
  // page_entries, code_type and scales_first.
  PageLayout layout;
  auto makeLayout = [](int64_t pages, int64_t pageEntries, int codeType,
                       bool scalesFirst) {
    return PageLayout{pages, pageEntries, toDType(codeType), scalesFirst};
  };
  auto returnModule = [](std::unique_ptr<Module> module,
                         const Status &status) {
    if (!module)
      raise(status);
    return module;
  };

  CompressPagedSpec compressPaged;
  m.def(
      "build_compress_paged",
      [=](int64_t tokens, int64_t dim, int keyType, int64_t poolSize,
          bool perChannelScores, const std::string &bias, float temperature,
          bool rotate, bool pow2Scale, int64_t pages, int64_t pageEntries,
          int codeType, bool scalesFirst, const std::string &name) {
        CompressPagedSpec spec{
            tokens,      dim,       toDType(keyType),
            poolSize,    perChannelScores, bias,
            temperature, rotate,    pow2Scale,
            makeLayout(pages, pageEntries, codeType, scalesFirst), name};
        Status status;
        std::unique_ptr<Module> module = buildCompressPaged(spec, status);
        return returnModule(std::move(module), status);
      },
      py::arg("tokens") = compressPaged.tokens,
      py::arg("dim") = compressPaged.dim,
      py::arg("key_type") = static_cast<int>(compressPaged.keyType),
      py::arg("pool_size") = compressPaged.poolSize,
      py::arg("per_channel_scores") = compressPaged.perChannelScores,
      py::arg("bias") = compressPaged.bias,
      py::arg("temperature") = compressPaged.temperature,
      py::arg("rotate") = compressPaged.rotate,
      py::arg("pow2_scale") = compressPaged.pow2Scale,
      py::arg("pages") = layout.pages,
      py::arg("page_entries") = layout.pageEntries,
      py::arg("code_type") = static_cast<int>(layout.codeType),
      py::arg("scales_first") = layout.scalesFirst,
      py::arg("name") = compressPaged.name);

  SelectPagedSpec selectPaged;
  m.def(
      "build_select_paged",
      [=](int64_t batch, int64_t rows, int64_t heads, int64_t dim,
          int64_t maxPages, int queryType, int64_t k, int64_t poolSize,
          bool rotate, int64_t pages, int64_t pageEntries, int codeType,
          bool scalesFirst, const std::string &name) {
        SelectPagedSpec spec{
            batch,    rows, heads,    dim,
            maxPages, toDType(queryType), k, poolSize,
            rotate,   makeLayout(pages, pageEntries, codeType, scalesFirst),
            name};
        Status status;
        std::unique_ptr<Module> module = buildSelectPaged(spec, status);
        return returnModule(std::move(module), status);
      },
      py::arg("batch") = selectPaged.batch, py::arg("rows") = selectPaged.rows,
      py::arg("heads") = selectPaged.heads, py::arg("dim") = selectPaged.dim,
      py::arg("max_pages") = selectPaged.maxPages,
      py::arg("query_type") = static_cast<int>(selectPaged.queryType),
      py::arg("k") = selectPaged.k, py::arg("pool_size") = selectPaged.poolSize,
      py::arg("rotate") = selectPaged.rotate, py::arg("pages") = layout.pages,
      py::arg("page_entries") = layout.pageEntries,
      py::arg("code_type") = static_cast<int>(layout.codeType),
      py::arg("scales_first") = layout.scalesFirst,
      py::arg("name") = selectPaged.name);

  RefinePagedSpec refinePaged;
  m.def(
      "build_refine_paged",
      [=](int64_t batch, int64_t rows, int64_t candidates, int64_t heads,
          int64_t dim, int64_t maxPages, int queryType, int64_t k,
          bool rotate, int64_t pages, int64_t pageEntries, int codeType,
          bool scalesFirst, const std::string &name) {
        RefinePagedSpec spec{batch,    rows,
                             candidates, heads,
                             dim,      maxPages,
                             toDType(queryType), k,
                             rotate,
                             makeLayout(pages, pageEntries, codeType,
                                        scalesFirst),
                             name};
        Status status;
        std::unique_ptr<Module> module = buildRefinePaged(spec, status);
        return returnModule(std::move(module), status);
      },
      py::arg("batch") = refinePaged.batch, py::arg("rows") = refinePaged.rows,
      py::arg("candidates") = refinePaged.candidates,
      py::arg("heads") = refinePaged.heads, py::arg("dim") = refinePaged.dim,
      py::arg("max_pages") = refinePaged.maxPages,
      py::arg("query_type") = static_cast<int>(refinePaged.queryType),
      py::arg("k") = refinePaged.k, py::arg("rotate") = refinePaged.rotate,
      py::arg("pages") = layout.pages,
      py::arg("page_entries") = layout.pageEntries,
      py::arg("code_type") = static_cast<int>(layout.codeType),
      py::arg("scales_first") = layout.scalesFirst,
      py::arg("name") = refinePaged.name);

  AppendPagedSpec appendPaged;
  m.def(
      "build_append_paged",
      [=](int64_t batch, int64_t newTokens, int64_t dim, int64_t maxPages,
          int keyType, int64_t poolSize, bool perChannelScores,
          const std::string &bias, float temperature, bool rotate,
          bool pow2Scale, int64_t pages, int64_t pageEntries, int codeType,
          bool scalesFirst, const std::string &name) {
        AppendPagedSpec spec{
            batch,    newTokens,        dim,  maxPages,    toDType(keyType),
            poolSize, perChannelScores, bias, temperature, rotate,
            pow2Scale, makeLayout(pages, pageEntries, codeType, scalesFirst),
            name};
        Status status;
        std::unique_ptr<Module> module = buildAppendPaged(spec, status);
        return returnModule(std::move(module), status);
      },
      py::arg("batch") = appendPaged.batch,
      py::arg("new_tokens") = appendPaged.newTokens,
      py::arg("dim") = appendPaged.dim,
      py::arg("max_pages") = appendPaged.maxPages,
      py::arg("key_type") = static_cast<int>(appendPaged.keyType),
      py::arg("pool_size") = appendPaged.poolSize,
      py::arg("per_channel_scores") = appendPaged.perChannelScores,
      py::arg("bias") = appendPaged.bias,
      py::arg("temperature") = appendPaged.temperature,
      py::arg("rotate") = appendPaged.rotate,
      py::arg("pow2_scale") = appendPaged.pow2Scale,
      py::arg("pages") = layout.pages,
      py::arg("page_entries") = layout.pageEntries,
      py::arg("code_type") = static_cast<int>(layout.codeType),
      py::arg("scales_first") = layout.scalesFirst,
      py::arg("name") = appendPaged.name);
}

/// CpuFunction, GpuArtifact and the compilers that make them.
void bindCompile(py::module &m) {
  py::class_<PyCpuFunction>(m, "CpuFunction")
      .def("run", &PyCpuFunction::run, py::arg("inputs"),
           py::arg("out") = py::none())
      .def("result_shapes", &PyCpuFunction::resultShapes, py::arg("inputs"))
      .def("time_calls", &PyCpuFunction::timeCalls, py::arg("inputs"),
           py::arg("out"), py::arg("repeats"))
      .def_property_readonly("signature", &PyCpuFunction::getSignature);

  CompileOptions defaults;
  m.def(
      "compile_cpu",
      [](py::object module, const std::string &name, bool fuse, int threads,
         int vectorWidth, bool checkBounds, py::object inputShapes,
         std::vector<int> inPlaceArguments, const std::string &cpu,
         bool int8Query) {
        CompileOptions options = makeOptions(
            fuse, threads, vectorWidth, checkBounds, "", "ptx", inputShapes);
        options.inPlaceArguments = std::move(inPlaceArguments);
        options.cpu = cpu;
        options.int8Query = int8Query;
        const Module &source = castArgument<const Module &>(
            module, "module", "an indexpool.Module");
        Status status;
        std::unique_ptr<CpuFunction> function;
        {
          py::gil_scoped_release noGil;
          function = compileForCpu(source, name, options, status);
        }
        if (!function)
          raise(status);
        return std::make_unique<PyCpuFunction>(std::move(function), module,
                                               options.inPlaceArguments);
      },
      py::arg("module"), py::arg("name"), py::arg("fuse") = defaults.fuse,
      py::arg("threads") = defaults.threads,
      py::arg("vector_width") = defaults.vectorWidth,
      py::arg("check_bounds") = defaults.checkBounds,
      py::arg("input_shapes") = py::none(),
      py::arg("in_place_arguments") = defaults.inPlaceArguments,
      py::arg("cpu") = defaults.cpu,
      py::arg("int8_query") = defaults.int8Query);

  py::class_<GpuArtifact>(m, "GpuArtifact")
      .def_readonly("chip", &GpuArtifact::chip)
      .def_readonly("binary_name", &GpuArtifact::binaryName)
      .def_property_readonly("binary",
                             [](const GpuArtifact &artifact) {
                               return py::bytes(artifact.binary);
                             })
      .def_readonly("manifest", &GpuArtifact::manifest);

  m.def(
      "compile_gpu",
      [](const Module &module, const std::string &name, const std::string &chip,
         bool fuse, const std::string &tuningDB,
         const std::string &binaryFormat, py::object inputShapes) {
        CompileOptions options =
            makeOptions(fuse, 0, 8, false, tuningDB, binaryFormat, inputShapes);
        GpuArtifact artifact;
        Status status;
        {
          py::gil_scoped_release noGil;
          status = compileForGpu(module, name, chip, options, artifact);
        }
        if (!status)
          raise(status);
        return artifact;
      },
      py::arg("module"), py::arg("name"), py::arg("chip"),
      py::arg("fuse") = defaults.fuse, py::arg("tuning_db") = defaults.tuningDB,
      py::arg("binary_format") = defaults.binaryFormat,
      py::arg("input_shapes") = py::none());
}

/// The reference evaluator, verify, and the decode and encode helpers.
void bindReference(py::module &m) {
  m.def(
      "reference",
      [](const Module &module, const std::string &name, py::sequence inputs) {
        FunctionSignature signature = signatureOf(module, name);
        BorrowedTensors borrowed;
        std::vector<TensorRef> refs;
        toTensorRefs(inputs, signature.arguments, signature.name, "argument",
                     false, borrowed, refs);
        std::vector<ReferenceTensor> results;
        Status status;
        {
          py::gil_scoped_release noGil;
          status = evaluateReference(module, name, refs.data(), refs.size(),
                                     results);
        }
        if (!status)
          raise(status);
        py::tuple arrays(results.size());
        for (size_t i = 0; i < results.size(); ++i) {
          std::vector<py::ssize_t> shape(results[i].shape.begin(),
                                         results[i].shape.end());
          py::array_t<double> array(shape);
          std::copy(results[i].values.begin(), results[i].values.end(),
                    array.mutable_data());
          arrays[i] = array;
        }
        return arrays;
      },
      py::arg("module"), py::arg("name"), py::arg("inputs"));

  m.def(
      "verify",
      [](const Module &module, const std::string &name, py::sequence inputs,
         py::sequence outputs) {
        FunctionSignature signature = signatureOf(module, name);
        BorrowedTensors borrowed;
        std::vector<TensorRef> inputRefs, outputRefs;
        toTensorRefs(inputs, signature.arguments, signature.name, "argument",
                     false, borrowed, inputRefs);
        toTensorRefs(outputs, signature.results, signature.name, "output",
                     false, borrowed, outputRefs);
        std::vector<std::string> report;
        Status status;
        {
          py::gil_scoped_release noGil;
          status = verifyAgainstReference(module, name, inputRefs.data(),
                                          inputRefs.size(), outputRefs.data(),
                                          outputRefs.size(), report);
        }
        return py::make_tuple(status.ok(), status.message(), report);
      },
      py::arg("module"), py::arg("name"), py::arg("inputs"),
      py::arg("outputs"));

  m.def("cpu_targets", [] {
    py::list rows;
    for (const CpuTargetInfo &info : cpuTargets()) {
      py::dict row;
      row["name"] = info.name;
      row["arch"] = info.arch;
      row["description"] = info.description;
      row["vector_width"] = info.vectorWidth;
      row["bf16_dot"] = info.bf16Dot;
      row["int8_dot"] = info.int8Dot;
      row["byte_table"] = info.byteTable;
      row["host"] = info.host;
      row["runs_here"] = info.runsHere;
      row["why_not"] = info.whyNot;
      rows.append(row);
    }
    return rows;
  });
  m.def("decode", &decodeArray, py::arg("codes"), py::arg("dtype"));
  m.def("encode", &encodeArray, py::arg("values"), py::arg("dtype"));
}

} // namespace

PYBIND11_MODULE(_indexpool, m) {
  m.doc() = "IndexPool's C++ API (include/indexpool/API); use the indexpool "
            "package rather than this module";

  static py::exception<std::runtime_error> error(m, "IndexPoolError",
                                                 PyExc_RuntimeError);
  indexPoolError = error;

  bindTypes(m);
  bindModule(m);
  bindBuilders(m);
  bindPagedBuilders(m);
  bindCompile(m);
  bindReference(m);
  bindGpu(m);
#ifdef INDEXPOOL_PYTHON_CACHE
  bindCache(m);
#endif
}
