//===- VerifyingCacheKernels.cpp - Every cache call checked by the reference =//

#include "indexpool/CacheCuda/VerifyingCacheKernels.h"

#include "indexpool/Runtime/ReferenceRun.h"
#include "indexpool/Runtime/Storage.h"

#include <cstring>

using namespace indexpool;
using namespace indexpool::cache;
using namespace indexpool::runtime;
using ref::ElementType;
using ref::HostTensor;

namespace {

HostTensor fromHost(const void *data, ElementType type,
                    std::vector<std::int64_t> shape) {
  return unpackTensor(static_cast<const char *>(data), type, std::move(shape));
}

/// The symbolic manifest bound to `inputs`' shapes and its reference run.
bool runOn(const Manifest &symbolic, std::vector<HostTensor> inputs,
           Manifest &bound, ReferenceValues &values, std::string &error) {
  std::vector<std::vector<std::int64_t>> shapes;
  for (const HostTensor &t : inputs)
    shapes.push_back(t.shape);
  // The SM count sizes only launch grids, which the reference never reads.
  return bindSizes(symbolic, shapes, 1, bound, error) &&
         runReference(bound, std::move(inputs), values, error);
}

class VerifyingCacheKernels final : public CacheKernels {
public:
  VerifyingCacheKernels(std::unique_ptr<CacheKernels> inner,
                        const CacheConfig &config, VerifiedCalls *calls)
      : inner(std::move(inner)), cfg(config), calls(calls) {}

  bool load(const CudaCacheArtifacts &artifacts, std::string &error) {
    return parseManifest(artifacts.appendManifest, "append_paged", "",
                         appendManifest, error) &&
           parseManifest(artifacts.selectManifest, "select_paged", "",
                         selectManifest, error);
  }

  std::unique_ptr<PageStore>
  makeDeviceStore(std::uint64_t slots,
                  const std::vector<std::int64_t> &layerBytes,
                  std::string &error) override {
    std::unique_ptr<PageStore> made =
        inner->makeDeviceStore(slots, layerBytes, error);
    store = made.get();
    return made;
  }

  std::unique_ptr<PageStore>
  makeHostStore(std::uint64_t slots,
                const std::vector<std::int64_t> &layerBytes,
                std::string &error) override {
    return inner->makeHostStore(slots, layerBytes, error);
  }

  bool append(const AppendCall &c, std::string &error) override {
    const std::int64_t d = cfg.dim, w = cfg.scoreWidth(), tail = cfg.poolSize - 1;
    auto scoreShape = [&](std::int64_t rows) {
      return w == 1 ? std::vector<std::int64_t>{c.batch, rows}
                    : std::vector<std::int64_t>{c.batch, rows, d};
    };
    HostTensor pages;
    if (!readPages(c.pages, pages, error))
      return false;
    std::vector<HostTensor> inputs;
    inputs.push_back(fromHost(c.keys, ElementType::F32, {c.batch, c.newTokens, d}));
    inputs.push_back(fromHost(c.scores, ElementType::F32, scoreShape(c.newTokens)));
    if (cfg.bias == "slot")
      inputs.push_back(fromHost(c.bias, ElementType::F32, {cfg.poolSize}));
    else if (cfg.bias == "channel")
      inputs.push_back(fromHost(c.bias, ElementType::F32, {cfg.poolSize, d}));
    inputs.push_back(fromHost(c.tailKeys, ElementType::F32, {c.batch, tail, d}));
    inputs.push_back(fromHost(c.tailScores, ElementType::F32, scoreShape(tail)));
    inputs.push_back(fromHost(c.lengths, ElementType::I32, {c.batch}));
    inputs.push_back(std::move(pages));
    inputs.push_back(
        fromHost(c.blockTable, ElementType::I32, {c.batch, c.maxPages}));
    Manifest bound;
    ReferenceValues values;
    if (!runOn(appendManifest, std::move(inputs), bound, values, error)) {
      error = "the reference of append_paged: " + error;
      return false;
    }
    if (!inner->append(c, error))
      return false;
    // The results, in output order: pages, tail keys, tail scores.
    HostTensor actual;
    if (!readPages(c.pages, actual, error))
      return false;
    std::vector<HostTensor> results;
    results.push_back(std::move(actual));
    results.push_back(fromHost(c.tailKeys, ElementType::F32, {c.batch, tail, d}));
    results.push_back(fromHost(c.tailScores, ElementType::F32, scoreShape(tail)));
    std::vector<const Buffer *> outputs = bound.outputs();
    for (size_t i = 0; i < outputs.size() && i < results.size(); ++i) {
      Comparison cmp = compareResult(bound, values, outputs[i]->id, results[i]);
      if (!cmp.ok) {
        error = "append_paged result #" + std::to_string(i) +
                " differs from the reference: " +
                formatComparison(cmp, outputs[i]->type);
        return false;
      }
      if (calls)
        calls->offByOneCodes += std::uint64_t(cmp.offByOne);
    }
    if (calls)
      ++calls->appends;
    return true;
  }

  bool select(const SelectCall &c, std::string &error) override {
    if (!inner->select(c, error))
      return false;
    const std::int64_t row = cfg.k * cfg.poolSize + cfg.poolSize - 1;
    HostTensor pages;
    if (!readPages(c.pages, pages, error))
      return false;
    std::vector<HostTensor> inputs;
    inputs.push_back(fromHost(c.queries, ElementType::F32,
                              {c.batch, 1, cfg.heads, cfg.dim}));
    inputs.push_back(fromHost(c.weights, ElementType::F32, {c.batch, 1, cfg.heads}));
    inputs.push_back(std::move(pages));
    inputs.push_back(
        fromHost(c.blockTable, ElementType::I32, {c.batch, c.maxPages}));
    inputs.push_back(fromHost(c.lengths, ElementType::I32, {c.batch, 1}));
    Manifest bound;
    ReferenceValues values;
    if (!runOn(selectManifest, std::move(inputs), bound, values, error)) {
      error = "the reference of select_paged: " + error;
      return false;
    }
    Comparison cmp =
        compareResult(bound, values, bound.outputs()[0]->id,
                      fromHost(c.tokens, ElementType::I32, {c.batch, 1, row}));
    if (!cmp.ok) {
      error = "select_paged differs from the reference: " +
              formatComparison(cmp, ElementType::I32);
      return false;
    }
    if (calls) {
      calls->nearTieSwaps += std::uint64_t(cmp.nearTieSwaps);
      ++calls->selects;
    }
    return true;
  }

private:
  /// The device tier's layer whose array is `data`, as an i8 tensor.
  bool readPages(const void *data, HostTensor &out, std::string &error) {
    const size_t pageBytes = size_t(cfg.pageBytes());
    for (std::int64_t l = 0; store && l < cfg.layers; ++l) {
      if (store->layerData(l) != data)
        continue;
      std::vector<std::int8_t> bytes(size_t(cfg.pages) * pageBytes);
      for (std::uint64_t s = 0; s < cfg.pages; ++s)
        if (!store->read(s, l, &bytes[size_t(s) * pageBytes], error))
          return false;
      out = fromHost(bytes.data(), ElementType::I8,
                     {std::int64_t(cfg.pages), cfg.pageBytes()});
      return true;
    }
    error = "the verifier: the call's pages are no layer of the device tier";
    return false;
  }

  std::unique_ptr<CacheKernels> inner;
  CacheConfig cfg;
  VerifiedCalls *calls;
  PageStore *store = nullptr;
  Manifest appendManifest, selectManifest;
};

/// Size `dim` of a manifest input, or -1 when it is symbolic or absent.
std::int64_t fixedSize(const Buffer *buffer, size_t dim) {
  if (!buffer || dim >= buffer->shape.size() ||
      (dim < buffer->dims.size() && buffer->dims[dim].isSize()))
    return -1;
  return buffer->shape[dim];
}

} // namespace

std::unique_ptr<CacheKernels> indexpool::cache::makeVerifyingCacheKernels(
    std::unique_ptr<CacheKernels> inner, const CacheConfig &config,
    const CudaCacheArtifacts &artifacts, VerifiedCalls *calls,
    std::string &error) {
  if (config.refine > 0) {
    // It checks append_paged and select_paged against their manifests'
    // computes; the token tier's two calls would need the same.
    error = "the verifying cache kernels check no token tier yet (refine " +
            std::to_string(config.refine) + ")";
    return nullptr;
  }
  auto kernels =
      std::make_unique<VerifyingCacheKernels>(std::move(inner), config, calls);
  if (!kernels->load(artifacts, error))
    return nullptr;
  return kernels;
}

bool indexpool::cache::configFromArtifacts(const CudaCacheArtifacts &artifacts,
                                           CacheConfig &config,
                                           std::string &error) {
  Manifest append, select;
  if (!parseManifest(artifacts.appendManifest, "append_paged", "", append,
                     error) ||
      !parseManifest(artifacts.selectManifest, "select_paged", "", select,
                     error))
    return false;
  auto find = [](const Manifest &m, const char *op) -> const Compute * {
    for (const Compute &c : m.computes)
      if (c.op == op)
        return &c;
    return nullptr;
  };
  // select_paged's query is the rotated input (a hadamard compute first).
  const Compute *a = find(append, "append_paged"), *s = find(select, "select_paged");
  if (!a || !s || select.inputs().empty()) {
    error = "the artifacts are not append_paged and select_paged";
    return false;
  }
  const Buffer *keys = append.findBuffer(a->operand("keys"));
  const Buffer *scores = append.findBuffer(a->operand("scores"));
  const Buffer *query = select.inputs()[0];
  const std::int64_t d = fixedSize(keys, 2), h = fixedSize(query, 2);
  if (d < 1 || h < 1 || !scores || a->poolSize < 1 || s->k < 0 ||
      a->pageEntries != s->pageEntries || a->poolSize != s->poolSize) {
    error = "the artifacts' shapes do not make a cache (D, H, P, E, k)";
    return false;
  }
  config.dim = d;
  config.heads = h;
  config.poolSize = a->poolSize;
  config.pageEntries = a->pageEntries;
  config.k = s->k;
  config.perChannelScores = scores->shape.size() == 3;
  config.temperature = float(a->temperature);
  const Buffer *bias = append.findBuffer(a->operand("bias"));
  config.bias = !bias ? "none" : bias->shape.size() == 1 ? "slot" : "channel";
  return true;
}
