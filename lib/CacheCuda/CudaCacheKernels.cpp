//===- CudaCacheKernels.cpp - The cache's paged kernels on a CUDA GPU -----===//

#include "indexpool/CacheCuda/CudaCacheKernels.h"

#include "indexpool/Runtime/GpuFunction.h"

#include <cstring>
#include <optional>

using namespace indexpool;
using namespace indexpool::cache;
using runtime::CudaDevice;

namespace {

using DevicePointer = CudaDevice::DevicePointer;

void *asData(DevicePointer pointer) {
  return reinterpret_cast<void *>(uintptr_t(pointer));
}
DevicePointer asPointer(const void *data) {
  return DevicePointer(reinterpret_cast<uintptr_t>(data));
}

/// The device's context current on this thread for a scope, the caller's
/// restored after it.
class CurrentContext {
public:
  CurrentContext(CudaDevice &device, std::string &error) : device(device) {
    ok = device.makeCurrent(previous, error);
  }
  ~CurrentContext() {
    if (ok)
      device.restoreContext(previous);
  }
  bool ok = false;

private:
  CudaDevice &device;
  CudaDevice::ContextHandle previous = nullptr;
};

/// Device memory that grows to the largest size asked for.
class Scratch {
public:
  explicit Scratch(CudaDevice &device) : device(device) {}
  ~Scratch() { device.release(pointer); }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  bool reserve(size_t bytes, std::string &error) {
    if (bytes <= size)
      return true;
    device.release(pointer);
    pointer = 0;
    size = 0;
    if (!device.allocate(bytes, pointer, error))
      return false;
    size = bytes;
    return true;
  }
  DevicePointer pointer = 0;

private:
  CudaDevice &device;
  size_t size = 0;
};

/// The device tier in device memory: one [slots, page bytes] array per
/// stored layer, zeroed.
class DeviceStore final : public PageStore {
public:
  DeviceStore(CudaDevice &device, const std::vector<std::int64_t> &layerBytes)
      : device(device), pageBytes(layerBytes.begin(), layerBytes.end()) {}
  ~DeviceStore() override {
    std::string ignored;
    CurrentContext current(device, ignored);
    for (DevicePointer pointer : arrays)
      device.release(pointer);
  }
  bool allocate(std::uint64_t slots, std::string &error) {
    CurrentContext current(device, error);
    if (!current.ok)
      return false;
    for (size_t layerBytes : pageBytes) {
      DevicePointer pointer = 0;
      const size_t bytes = size_t(slots) * layerBytes;
      if (!device.allocate(bytes, pointer, error))
        return false;
      arrays.push_back(pointer);
      if (!device.fillZero(pointer, bytes, error))
        return false;
    }
    return true;
  }
  bool read(std::uint64_t slot, std::int64_t layer, std::int8_t *bytes,
            std::string &error) const override {
    CurrentContext current(device, error);
    const size_t size = pageBytes[size_t(layer)];
    return current.ok &&
           device.copyToHost(bytes, arrays[size_t(layer)] + slot * size, size,
                             error);
  }
  bool write(std::uint64_t slot, std::int64_t layer, const std::int8_t *bytes,
             std::string &error) override {
    CurrentContext current(device, error);
    const size_t size = pageBytes[size_t(layer)];
    return current.ok &&
           device.copyToDevice(arrays[size_t(layer)] + slot * size, bytes, size,
                               error);
  }
  std::int8_t *layerData(std::int64_t layer) override {
    return static_cast<std::int8_t *>(asData(arrays[size_t(layer)]));
  }

private:
  CudaDevice &device;
  std::vector<size_t> pageBytes; // per stored layer
  std::vector<DevicePointer> arrays;
};

/// The host tier in pinned memory: one [slots, page bytes] array per
/// stored layer, zeroed (copies to and from it are plain memcpy on the
/// host side).
class PinnedStore final : public PageStore {
public:
  PinnedStore(CudaDevice &device, const std::vector<std::int64_t> &layerBytes)
      : device(device), pageBytes(layerBytes.begin(), layerBytes.end()) {}
  ~PinnedStore() override {
    std::string ignored;
    CurrentContext current(device, ignored);
    for (void *array : arrays)
      device.releaseHost(array);
  }
  bool allocate(std::uint64_t slots, std::string &error) {
    CurrentContext current(device, error);
    if (!current.ok)
      return false;
    for (size_t layerBytes : pageBytes) {
      void *array = nullptr;
      if (!device.allocateHost(size_t(slots) * layerBytes, array, error))
        return false;
      std::memset(array, 0, size_t(slots) * layerBytes);
      arrays.push_back(static_cast<std::int8_t *>(array));
    }
    return true;
  }
  bool read(std::uint64_t slot, std::int64_t layer, std::int8_t *bytes,
            std::string &) const override {
    const size_t size = pageBytes[size_t(layer)];
    std::memcpy(bytes, arrays[size_t(layer)] + slot * size, size);
    return true;
  }
  bool write(std::uint64_t slot, std::int64_t layer, const std::int8_t *bytes,
             std::string &) override {
    const size_t size = pageBytes[size_t(layer)];
    std::memcpy(arrays[size_t(layer)] + slot * size, bytes, size);
    return true;
  }
  std::int8_t *layerData(std::int64_t layer) override {
    return arrays[size_t(layer)];
  }

private:
  CudaDevice &device;
  std::vector<size_t> pageBytes; // per stored layer
  std::vector<std::int8_t *> arrays;
};

/// One kind of call (appends or selects): its function, its stream and
/// its operands' device memory. Used by one thread at a time.
struct Lane {
  explicit Lane(CudaDevice &device) : device(device) {}
  ~Lane() {
    if (stream)
      device.destroyStream(stream);
  }
  /// Scratch `index`, made (empty) if the lane has none there yet.
  Scratch &at(size_t index) {
    while (scratch.size() <= index)
      scratch.push_back(std::make_unique<Scratch>(device));
    return *scratch[index];
  }
  /// A device copy of `bytes` host bytes in scratch `index`, queued.
  bool upload(size_t index, const void *host, size_t bytes, DevicePointer &out,
              std::string &error) {
    Scratch &to = at(index);
    if (!to.reserve(bytes, error) ||
        !device.copyToDeviceAsync(to.pointer, host, bytes, stream, error))
      return false;
    out = to.pointer;
    return true;
  }
  /// `kernel` (one of the lane's functions) launched on the lane's stream;
  /// false with `error` naming it otherwise.
  bool launch(GpuFunction &function, const char *kernel,
              const std::vector<TensorRef> &inputs,
              const std::vector<TensorRef> &outputs, std::string &error) {
    Status status = function.launch(inputs, outputs, stream);
    if (!status.ok())
      error = std::string(kernel) + ": " + status.message();
    return status.ok();
  }
  CudaDevice &device;
  CudaDevice::StreamHandle stream = nullptr;
  // The lane's kernel, and the token tier's after it (refine only).
  std::unique_ptr<GpuFunction> function, tokenFunction;
  std::vector<std::unique_ptr<Scratch>> scratch;
};

/// append_paged's operands in device memory (the pages are the device
/// tier's): the pooled tier's, or the token tier's with no bias and tails
/// of 0 rows.
struct AppendOperands {
  DevicePointer keys, scores, bias = 0, tailKeys, tailScores, lengths, table;
};

/// What append_paged writes, where it is (in_place_of): the pages, the
/// tail keys and the tail scores of appendInputs' operands.
std::vector<TensorRef> appendOutputs(const std::vector<TensorRef> &inputs) {
  const size_t n = inputs.size(); // ..., tails, lengths, pages, block table
  return {inputs[n - 2], inputs[n - 5], inputs[n - 4]};
}

class CudaCacheKernels final : public CacheKernels {
public:
  CudaCacheKernels(CudaDevice &device, const CacheConfig &config)
      : device(device), cfg(config), appends(device), selects(device) {}

  /// Loads both functions and makes their streams; false with `error`.
  bool load(const CudaCacheArtifacts &artifacts, std::string &error) {
    CurrentContext current(device, error);
    if (!current.ok)
      return false;
    Status status;
    appends.function = GpuFunction::fromMemory(
        device, artifacts.appendManifest, artifacts.appendBinary,
        "append_paged", status);
    if (appends.function)
      selects.function = GpuFunction::fromMemory(
          device, artifacts.selectManifest, artifacts.selectBinary,
          "select_paged", status);
    if (selects.function && cfg.refine > 0) {
      appends.tokenFunction = GpuFunction::fromMemory(
          device, artifacts.tokenAppendManifest, artifacts.tokenAppendBinary,
          "append_tokens", status);
      if (appends.tokenFunction)
        selects.tokenFunction = GpuFunction::fromMemory(
            device, artifacts.refineManifest, artifacts.refineBinary,
            "refine_paged", status);
    }
    if (!selects.function || (cfg.refine > 0 && !selects.tokenFunction)) {
      error = "the cache's GPU kernels: " + status.message();
      return false;
    }
    return fits(error) && device.createStream(appends.stream, error) &&
           device.createStream(selects.stream, error);
  }

  bool append(const AppendCall &c, std::string &error) override {
    CurrentContext current(device, error);
    if (!current.ok)
      return false;
    const std::int64_t d = cfg.dim, w = cfg.scoreWidth(),
                       tail = cfg.poolSize - 1;
    const size_t f = sizeof(float);
    const size_t keyBytes = size_t(c.batch * c.newTokens * d) * f,
                 scoreBytes = size_t(c.batch * c.newTokens * w) * f,
                 tailKeyBytes = size_t(c.batch * tail * d) * f,
                 tailScoreBytes = size_t(c.batch * tail * w) * f;
    AppendOperands on;
    if (!appends.upload(0, c.keys, keyBytes, on.keys, error) ||
        !appends.upload(1, c.scores, scoreBytes, on.scores, error) ||
        (cfg.biasCount() > 0 &&
         !appends.upload(2, c.bias, size_t(cfg.biasCount()) * f, on.bias,
                         error)) ||
        !appends.upload(3, c.tailKeys, tailKeyBytes, on.tailKeys, error) ||
        !appends.upload(4, c.tailScores, tailScoreBytes, on.tailScores,
                        error) ||
        !appends.upload(5, c.lengths, size_t(c.batch) * 4, on.lengths, error) ||
        !appends.upload(6, c.blockTable, size_t(c.batch * c.maxPages) * 4,
                        on.table, error))
      return false;
    std::vector<TensorRef> inputs =
        appendInputs(c, on, cfg.bias, tail, cfg.pageBytes(), cfg.pages);
    return appends.launch(*appends.function, "append_paged", inputs,
                          appendOutputs(inputs), error) &&
           device.copyToHostAsync(c.tailKeys, on.tailKeys, tailKeyBytes,
                                  appends.stream, error) &&
           device.copyToHostAsync(c.tailScores, on.tailScores, tailScoreBytes,
                                  appends.stream, error) &&
           device.synchronizeStream(appends.stream, error);
  }

  bool select(const SelectCall &c, std::string &error) override {
    const std::int64_t p = cfg.poolSize;
    return selectTokens(*selects.function, "select_paged", c, 0, std::nullopt,
                        cfg.pageBytes(), cfg.pages,
                        cfg.selectEntries() * p + p - 1, error);
  }

  bool appendTokens(const TokenAppendCall &c, std::string &error) override {
    if (!appends.tokenFunction)
      return CacheKernels::appendTokens(c, error);
    CurrentContext current(device, error);
    if (!current.ok)
      return false;
    const std::int64_t d = cfg.dim, w = cfg.scoreWidth();
    // Scratch 7 on: the pooled append's operands stay where they are. The
    // tails have 0 rows (each token is its own group): an address only.
    AppendOperands on;
    const float none = 0.0f;
    if (!appends.upload(7, c.keys, size_t(c.batch * c.newTokens * d) * 4,
                        on.keys, error) ||
        !appends.upload(8, c.scores, size_t(c.batch * c.newTokens * w) * 4,
                        on.scores, error) ||
        !appends.upload(9, &none, sizeof none, on.tailKeys, error) ||
        !appends.upload(10, c.lengths, size_t(c.batch) * 4, on.lengths,
                        error) ||
        !appends.upload(11, c.blockTable, size_t(c.batch * c.maxPages) * 4,
                        on.table, error))
      return false;
    on.tailScores = on.tailKeys;
    std::vector<TensorRef> inputs =
        appendInputs(c, on, "none", 0, cfg.tokenPageBytes(),
                     cfg.tokenTierSlots());
    return appends.launch(*appends.tokenFunction, "append_paged (token tier)",
                          inputs, appendOutputs(inputs), error) &&
           device.synchronizeStream(appends.stream, error);
  }

  bool refine(const RefineCall &c, std::string &error) override {
    if (!selects.tokenFunction)
      return CacheKernels::refine(c, error);
    const std::int64_t p = cfg.poolSize;
    // select_paged's row of tokens for each sequence
    const Candidates candidates{c.candidates, cfg.selectEntries() * p + p - 1};
    return selectTokens(*selects.tokenFunction, "refine_paged", c, 5,
                        candidates, cfg.tokenPageBytes(),
                        cfg.tokenTierSlots(), cfg.k * p + p - 1, error);
  }

  std::unique_ptr<PageStore>
  makeDeviceStore(std::uint64_t slots,
                  const std::vector<std::int64_t> &layerBytes,
                  std::string &error) override {
    return makeStore<DeviceStore>("device", slots, layerBytes, error);
  }

  std::unique_ptr<PageStore>
  makeHostStore(std::uint64_t slots,
                const std::vector<std::int64_t> &layerBytes,
                std::string &error) override {
    return makeStore<PinnedStore>("host", slots, layerBytes, error);
  }

  ~CudaCacheKernels() override {
    std::string ignored;
    CurrentContext current(device, ignored);
    for (Lane *lane : {&appends, &selects}) {
      lane->scratch.clear();
      lane->function.reset();
      lane->tokenFunction.reset();
      if (lane->stream)
        device.destroyStream(lane->stream);
      lane->stream = nullptr;
    }
  }

private:
  /// append_paged's inputs: keys, scores, [bias (`bias` is its kind),]
  /// tail keys and tail scores of `tail` rows, lengths, pages of
  /// `pageBytes`, block table. AppendCall (the pooled tier) and
  /// TokenAppendCall (the token tier) name theirs alike.
  template <typename Call>
  std::vector<TensorRef>
  appendInputs(const Call &c, const AppendOperands &on, const std::string &bias,
               std::int64_t tail, std::int64_t pageBytes,
               std::uint64_t rows) const {
    const std::int64_t d = cfg.dim;
    auto scoreShape = [&](std::int64_t rows) {
      return cfg.scoreWidth() == 1
                 ? std::vector<std::int64_t>{c.batch, rows}
                 : std::vector<std::int64_t>{c.batch, rows, d};
    };
    std::vector<TensorRef> inputs = {
        TensorRef(asData(on.keys), DType::F32, {c.batch, c.newTokens, d}),
        TensorRef(asData(on.scores), DType::F32, scoreShape(c.newTokens))};
    if (bias == "slot")
      inputs.push_back(TensorRef(asData(on.bias), DType::F32, {cfg.poolSize}));
    else if (bias == "channel")
      inputs.push_back(
          TensorRef(asData(on.bias), DType::F32, {cfg.poolSize, d}));
    inputs.push_back(
        TensorRef(asData(on.tailKeys), DType::F32, {c.batch, tail, d}));
    inputs.push_back(
        TensorRef(asData(on.tailScores), DType::F32, scoreShape(tail)));
    inputs.push_back(TensorRef(asData(on.lengths), DType::I32, {c.batch}));
    inputs.push_back(
        TensorRef(c.pages, DType::I8, {std::int64_t(rows), pageBytes}));
    inputs.push_back(
        TensorRef(asData(on.table), DType::I32, {c.batch, c.maxPages}));
    return inputs;
  }

  /// refine_paged's candidates on the host, `width` a sequence.
  struct Candidates {
    const std::int32_t *tokens;
    std::int64_t width;
  };

  /// select_paged (SelectCall, no candidates) or refine_paged (RefineCall)
  /// on the selects' lane, its `row` tokens a sequence copied to the call's.
  /// In scratch from `first` on: queries, weights, [candidates,] block
  /// table, lengths, then the tokens; the pages (`rows` of `pageBytes`)
  /// are the device tier's, or a token tier kept on host: pinned memory,
  /// which kernels read through its unified address.
  template <typename Call>
  bool selectTokens(GpuFunction &function, const char *kernel, const Call &c,
                    size_t first, std::optional<Candidates> candidates,
                    std::int64_t pageBytes, std::uint64_t rows,
                    std::int64_t row, std::string &error) {
    CurrentContext current(device, error);
    if (!current.ok)
      return false;
    const std::int64_t h = cfg.heads, d = cfg.dim;
    const size_t tableAt = first + (candidates ? 3 : 2);
    DevicePointer queries, weights, chosen = 0, table, lengths;
    if (!selects.upload(first, c.queries, size_t(c.batch * h * d) * 4, queries,
                        error) ||
        !selects.upload(first + 1, c.weights, size_t(c.batch * h) * 4, weights,
                        error) ||
        (candidates && !selects.upload(first + 2, candidates->tokens,
                                       size_t(c.batch * candidates->width) * 4,
                                       chosen, error)) ||
        !selects.upload(tableAt, c.blockTable, size_t(c.batch * c.maxPages) * 4,
                        table, error) ||
        !selects.upload(tableAt + 1, c.lengths, size_t(c.batch) * 4, lengths,
                        error))
      return false;
    Scratch &out = selects.at(tableAt + 2);
    const size_t tokenBytes = size_t(c.batch * row) * 4;
    if (!out.reserve(tokenBytes, error))
      return false;
    std::vector<TensorRef> inputs = {
        TensorRef(asData(queries), DType::F32, {c.batch, 1, h, d}),
        TensorRef(asData(weights), DType::F32, {c.batch, 1, h})};
    if (candidates)
      inputs.push_back(TensorRef(asData(chosen), DType::I32,
                                 {c.batch, 1, candidates->width}));
    inputs.push_back(TensorRef(const_cast<std::int8_t *>(c.pages), DType::I8,
                               {std::int64_t(rows), pageBytes}));
    inputs.push_back(
        TensorRef(asData(table), DType::I32, {c.batch, c.maxPages}));
    inputs.push_back(TensorRef(asData(lengths), DType::I32, {c.batch, 1}));
    return selects.launch(function, kernel, inputs,
                          {TensorRef(asData(out.pointer), DType::I32,
                                     {c.batch, 1, row})},
                          error) &&
           device.copyToHostAsync(c.tokens, out.pointer, tokenBytes,
                                  selects.stream, error) &&
           device.synchronizeStream(selects.stream, error);
  }

  /// A tier's store of `slots` pages, allocated; null with `error` naming
  /// the tier otherwise.
  template <typename Store>
  std::unique_ptr<PageStore>
  makeStore(const char *tier, std::uint64_t slots,
            const std::vector<std::int64_t> &layerBytes, std::string &error) {
    auto store = std::make_unique<Store>(device, layerBytes);
    if (!store->allocate(slots, error)) {
      error = std::string("the ") + tier + " tier (" + std::to_string(slots) +
              " pages of " + std::to_string(pageBytesInAllLayers(layerBytes)) +
              " bytes in " + std::to_string(layerBytes.size()) +
              " layers): " + error;
      return nullptr;
    }
    return store;
  }

  /// The artifacts are this configuration's: operand counts, element types
  /// and the sizes they fix.
  bool fits(std::string &error) const {
    const GpuFunction &a = *appends.function, &s = *selects.function;
    const size_t appendInputs = cfg.bias == "none" ? 7 : 8;
    auto fixed = [](const TensorType &t, size_t dim, std::int64_t want) {
      return t.shape.size() > dim &&
             (t.shape[dim] == want || t.shape[dim] < 0);
    };
    const size_t pagesAt = appendInputs - 2;
    const std::int64_t p = cfg.poolSize,
                       row = cfg.selectEntries() * p + p - 1;
    bool ok = a.numInputs() == appendInputs && a.numOutputs() == 3 &&
              a.inputType(0).dtype == DType::F32 &&
              fixed(a.inputType(0), 2, cfg.dim) &&
              a.inputType(1).shape.size() == (cfg.perChannelScores ? 3u : 2u) &&
              fixed(a.inputType(pagesAt), 1, cfg.pageBytes()) &&
              a.inPlaceInput(0) == std::int64_t(pagesAt) &&
              s.numInputs() == 5 && s.numOutputs() == 1 &&
              s.inputType(0).dtype == DType::F32 &&
              fixed(s.inputType(0), 2, cfg.heads) &&
              fixed(s.inputType(0), 3, cfg.dim) &&
              fixed(s.inputType(2), 1, cfg.pageBytes()) &&
              fixed(s.outputType(0), 2, row);
    if (ok && cfg.refine > 0) {
      const GpuFunction &t = *appends.tokenFunction, &r = *selects.tokenFunction;
      ok = t.numInputs() == 7 && t.numOutputs() == 3 &&
           fixed(t.inputType(0), 2, cfg.dim) &&
           fixed(t.inputType(5), 1, cfg.tokenPageBytes()) &&
           t.inPlaceInput(0) == 5 && r.numInputs() == 6 &&
           r.numOutputs() == 1 && fixed(r.inputType(0), 2, cfg.heads) &&
           fixed(r.inputType(0), 3, cfg.dim) && fixed(r.inputType(2), 2, row) &&
           fixed(r.inputType(3), 1, cfg.tokenPageBytes()) &&
           fixed(r.outputType(0), 2, cfg.k * p + p - 1);
    }
    if (!ok)
      error = "the cache's GPU kernels are not append_paged and select_paged "
              "of this configuration (f32 keys, D = " +
              std::to_string(cfg.dim) + ", H = " + std::to_string(cfg.heads) +
              ", k = " + std::to_string(cfg.k) + ", page bytes " +
              std::to_string(cfg.pageBytes()) + ", bias " + cfg.bias +
              ", scores per " + (cfg.perChannelScores ? "channel" : "token") +
              ", refine " + std::to_string(cfg.refine) + ")";
    return ok;
  }

  CudaDevice &device;
  CacheConfig cfg;
  Lane appends, selects;
};

} // namespace

std::unique_ptr<CacheKernels>
indexpool::cache::makeCudaCacheKernels(CudaDevice &device,
                                       const CacheConfig &config,
                                       const CudaCacheArtifacts &artifacts,
                                       std::string &error) {
  auto kernels = std::make_unique<CudaCacheKernels>(device, config);
  if (!kernels->load(artifacts, error))
    return nullptr;
  return kernels;
}
