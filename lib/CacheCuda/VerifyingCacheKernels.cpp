//===- VerifyingCacheKernels.cpp - Every cache call checked by the reference =//

#include "indexpool/CacheCuda/VerifyingCacheKernels.h"

#include "indexpool/Runtime/ReferenceRun.h"
#include "indexpool/Runtime/Storage.h"

#include <cstring>
#include <functional>

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

/// A host array the call updates in place, read back after it.
struct HostArray {
  const float *data;
  std::vector<std::int64_t> shape;
};

class VerifyingCacheKernels final : public CacheKernels {
public:
  VerifyingCacheKernels(std::unique_ptr<CacheKernels> inner,
                        const CacheConfig &config, VerifiedCalls *calls)
      : inner(std::move(inner)), cfg(config), calls(calls) {}

  bool load(const CudaCacheArtifacts &artifacts, std::string &error) {
    if (!parseManifest(artifacts.appendManifest, "append_paged", "",
                       appendManifest, error) ||
        !parseManifest(artifacts.selectManifest, "select_paged", "",
                       selectManifest, error))
      return false;
    if (cfg.refine <= 0)
      return true;
    if (artifacts.tokenAppendManifest.empty() ||
        artifacts.refineManifest.empty()) {
      error = "the verifying cache kernels: refine " +
              std::to_string(cfg.refine) +
              " needs the token tier's artifacts (its append_paged and "
              "refine_paged)";
      return false;
    }
    return parseManifest(artifacts.tokenAppendManifest, "append_tokens", "",
                         tokenAppendManifest, error) &&
           parseManifest(artifacts.refineManifest, "refine_paged", "",
                         refineManifest, error);
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
    const std::int64_t d = cfg.dim, tail = cfg.poolSize - 1;
    std::vector<HostTensor> inputs;
    inputs.push_back(
        fromHost(c.keys, ElementType::F32, {c.batch, c.newTokens, d}));
    inputs.push_back(
        fromHost(c.scores, ElementType::F32, scoreShape(c.batch, c.newTokens)));
    if (cfg.bias == "slot")
      inputs.push_back(fromHost(c.bias, ElementType::F32, {cfg.poolSize}));
    else if (cfg.bias == "channel")
      inputs.push_back(fromHost(c.bias, ElementType::F32, {cfg.poolSize, d}));
    const std::vector<HostArray> tails = {
        {c.tailKeys, {c.batch, tail, d}},
        {c.tailScores, scoreShape(c.batch, tail)}};
    for (const HostArray &t : tails)
      inputs.push_back(fromHost(t.data, ElementType::F32, t.shape));
    inputs.push_back(fromHost(c.lengths, ElementType::I32, {c.batch}));
    if (!checkedAppend(appendManifest, "append_paged", std::move(inputs),
                       c.pages, c.blockTable, c.batch, c.maxPages,
                       /*tokenTier=*/false, tails,
                       [&] { return inner->append(c, error); }, error))
      return false;
    if (calls)
      ++calls->appends;
    return true;
  }

  bool appendTokens(const TokenAppendCall &c, std::string &error) override {
    if (cfg.refine <= 0)
      return CacheKernels::appendTokens(c, error);
    // Every token is a group of one: tails of no rows, which the reference
    // reads and writes nothing of (an address only).
    static const float noTail = 0.0f;
    const std::vector<HostArray> tails = {{&noTail, {c.batch, 0, cfg.dim}},
                                          {&noTail, scoreShape(c.batch, 0)}};
    std::vector<HostTensor> inputs;
    inputs.push_back(
        fromHost(c.keys, ElementType::F32, {c.batch, c.newTokens, cfg.dim}));
    inputs.push_back(
        fromHost(c.scores, ElementType::F32, scoreShape(c.batch, c.newTokens)));
    for (const HostArray &t : tails)
      inputs.push_back(fromHost(t.data, ElementType::F32, t.shape));
    inputs.push_back(fromHost(c.lengths, ElementType::I32, {c.batch}));
    if (!checkedAppend(tokenAppendManifest, "append_paged (token tier)",
                       std::move(inputs), c.pages, c.blockTable, c.batch,
                       c.maxPages, /*tokenTier=*/true, tails,
                       [&] { return inner->appendTokens(c, error); }, error))
      return false;
    if (calls)
      ++calls->tokenAppends;
    return true;
  }

  bool select(const SelectCall &c, std::string &error) override {
    if (!inner->select(c, error))
      return false;
    // With refine select_paged keeps C * k pooled entries: the candidates.
    const std::int64_t p = cfg.poolSize, row = cfg.selectEntries() * p + p - 1;
    std::vector<HostTensor> inputs;
    inputs.push_back(fromHost(c.queries, ElementType::F32,
                              {c.batch, 1, cfg.heads, cfg.dim}));
    inputs.push_back(
        fromHost(c.weights, ElementType::F32, {c.batch, 1, cfg.heads}));
    if (!checkedSelection(selectManifest, "select_paged", std::move(inputs),
                          c.pages, c.blockTable, c.lengths, c.batch,
                          c.maxPages, /*tokenTier=*/false, c.tokens, row,
                          error))
      return false;
    if (calls)
      ++calls->selects;
    return true;
  }

  bool refine(const RefineCall &c, std::string &error) override {
    if (cfg.refine <= 0)
      return CacheKernels::refine(c, error);
    if (!inner->refine(c, error))
      return false;
    const std::int64_t p = cfg.poolSize,
                       candidates = cfg.selectEntries() * p + p - 1,
                       row = cfg.k * p + p - 1;
    std::vector<HostTensor> inputs;
    inputs.push_back(fromHost(c.queries, ElementType::F32,
                              {c.batch, 1, cfg.heads, cfg.dim}));
    inputs.push_back(
        fromHost(c.weights, ElementType::F32, {c.batch, 1, cfg.heads}));
    // The candidates are the first stage's actual tokens (checked by
    // select), so a near tie there cannot fail this call.
    inputs.push_back(
        fromHost(c.candidates, ElementType::I32, {c.batch, 1, candidates}));
    if (!checkedSelection(refineManifest, "refine_paged", std::move(inputs),
                          c.pages, c.blockTable, c.lengths, c.batch,
                          c.maxPages, /*tokenTier=*/true, c.tokens, row,
                          error))
      return false;
    if (calls)
      ++calls->refines;
    return true;
  }

private:
  std::vector<std::int64_t> scoreShape(std::int64_t batch,
                                       std::int64_t rows) const {
    return cfg.scoreWidth() == 1
               ? std::vector<std::int64_t>{batch, rows}
               : std::vector<std::int64_t>{batch, rows, cfg.dim};
  }

  /// An append of either tier checked: `inputs` are the call's operands up
  /// to its lengths; the pages (read from the device store before `run`
  /// calls the inner backend) and the block table follow. The results, in
  /// output order: the pages read again after the call, then `tails` as
  /// the call left them.
  bool checkedAppend(const Manifest &manifest, const std::string &what,
                     std::vector<HostTensor> inputs, const std::int8_t *pages,
                     const std::int32_t *blockTable, std::int64_t batch,
                     std::int64_t maxPages, bool tokenTier,
                     const std::vector<HostArray> &tails,
                     const std::function<bool()> &run, std::string &error) {
    HostTensor before;
    if (!readPages(pages, tokenTier, before, error))
      return false;
    inputs.push_back(std::move(before));
    inputs.push_back(fromHost(blockTable, ElementType::I32, {batch, maxPages}));
    Manifest bound;
    ReferenceValues values;
    if (!runOn(manifest, std::move(inputs), bound, values, error)) {
      error = "the reference of " + what + ": " + error;
      return false;
    }
    if (!run())
      return false;
    std::vector<HostTensor> results(1);
    if (!readPages(pages, tokenTier, results[0], error))
      return false;
    for (const HostArray &t : tails)
      results.push_back(fromHost(t.data, ElementType::F32, t.shape));
    std::vector<const Buffer *> outputs = bound.outputs();
    for (size_t i = 0; i < outputs.size() && i < results.size(); ++i) {
      Comparison cmp = compareResult(bound, values, outputs[i]->id, results[i]);
      if (!cmp.ok) {
        error = what + " result #" + std::to_string(i) +
                " differs from the reference: " +
                formatComparison(cmp, outputs[i]->type);
        return false;
      }
      if (calls)
        calls->offByOneCodes += std::uint64_t(cmp.offByOne);
    }
    return true;
  }

  /// A selection of either stage checked after the inner call wrote
  /// `tokens` [B, 1, row]: `inputs` are its operands before the pages;
  /// the pages (read from the device store), block table and lengths
  /// follow. Tokens compare with the near-tie rule.
  bool checkedSelection(const Manifest &manifest, const std::string &what,
                        std::vector<HostTensor> inputs,
                        const std::int8_t *pages,
                        const std::int32_t *blockTable,
                        const std::int32_t *lengths, std::int64_t batch,
                        std::int64_t maxPages, bool tokenTier,
                        const std::int32_t *tokens, std::int64_t row,
                        std::string &error) {
    HostTensor read;
    if (!readPages(pages, tokenTier, read, error))
      return false;
    inputs.push_back(std::move(read));
    inputs.push_back(fromHost(blockTable, ElementType::I32, {batch, maxPages}));
    inputs.push_back(fromHost(lengths, ElementType::I32, {batch, 1}));
    Manifest bound;
    ReferenceValues values;
    if (!runOn(manifest, std::move(inputs), bound, values, error)) {
      error = "the reference of " + what + ": " + error;
      return false;
    }
    Comparison cmp =
        compareResult(bound, values, bound.outputs()[0]->id,
                      fromHost(tokens, ElementType::I32, {batch, 1, row}));
    if (!cmp.ok) {
      error = what + " differs from the reference: " +
              formatComparison(cmp, ElementType::I32);
      return false;
    }
    if (calls)
      calls->nearTieSwaps += std::uint64_t(cmp.nearTieSwaps);
    return true;
  }

  /// The device tier's layer whose array is `data`, as an i8 tensor
  /// [pages, page bytes]: a pooled layer (stored layers 0 .. L - 1), or
  /// with `tokenTier` a token-tier one (L .. 2L - 1, their larger pages).
  bool readPages(const void *data, bool tokenTier, HostTensor &out,
                 std::string &error) {
    const std::int64_t first = tokenTier ? cfg.layers : 0;
    const std::int64_t pageBytes =
        tokenTier ? cfg.tokenPageBytes() : cfg.pageBytes();
    for (std::int64_t l = first; store && l < first + cfg.layers; ++l) {
      if (store->layerData(l) != data)
        continue;
      const size_t bytesPerPage = size_t(pageBytes);
      std::vector<std::int8_t> bytes(size_t(cfg.pages) * bytesPerPage);
      for (std::uint64_t s = 0; s < cfg.pages; ++s)
        if (!store->read(s, l, &bytes[size_t(s) * bytesPerPage], error))
          return false;
      out = fromHost(bytes.data(), ElementType::I8,
                     {std::int64_t(cfg.pages), pageBytes});
      return true;
    }
    error = std::string("the verifier: the call's pages are no ") +
            (tokenTier ? "token-tier" : "pooled") +
            " layer of the device tier";
    return false;
  }

  std::unique_ptr<CacheKernels> inner;
  CacheConfig cfg;
  VerifiedCalls *calls;
  PageStore *store = nullptr;
  Manifest appendManifest, selectManifest;
  // The token tier's (refine only).
  Manifest tokenAppendManifest, refineManifest;
};

/// Size `dim` of a manifest input, or -1 when it is symbolic or absent.
std::int64_t fixedSize(const Buffer *buffer, size_t dim) {
  if (!buffer || dim >= buffer->shape.size() ||
      (dim < buffer->dims.size() && buffer->dims[dim].isSize()))
    return -1;
  return buffer->shape[dim];
}

const Compute *findCompute(const Manifest &m, const char *op) {
  for (const Compute &c : m.computes)
    if (c.op == op)
      return &c;
  return nullptr;
}

/// k and C from the token tier's artifacts: refine_paged keeps k * P + P - 1
/// tokens of select_paged's C * k pools, over pages of P * E tokens that
/// the token append (pool_size 1) writes. False with `error` when they do
/// not make the token tier of `config` (its P, E and select_paged's k
/// already read).
bool tokenTierFromArtifacts(const CudaCacheArtifacts &artifacts,
                            std::int64_t selectK, CacheConfig &config,
                            std::string &error) {
  Manifest tokenAppend, refine;
  if (!parseManifest(artifacts.tokenAppendManifest, "append_tokens", "",
                     tokenAppend, error) ||
      !parseManifest(artifacts.refineManifest, "refine_paged", "", refine,
                     error))
    return false;
  const Compute *t = findCompute(tokenAppend, "append_paged"),
                *r = findCompute(refine, "refine_paged");
  const std::int64_t p = config.poolSize,
                     tokenEntries = p * config.pageEntries;
  const std::int64_t k = r && r->k >= p ? (r->k - (p - 1)) / p : 0;
  if (!t || !r || t->poolSize != 1 || t->pageEntries != tokenEntries ||
      r->pageEntries != tokenEntries || k < 1 || k * p + p - 1 != r->k ||
      selectK % k != 0) {
    error = "the token tier's artifacts are not append_paged (pool_size 1, "
            "page_entries P * E) and refine_paged (k * P + P - 1 tokens of "
            "the select's C * k pools) of this cache";
    return false;
  }
  config.k = k;
  config.refine = selectK / k;
  return true;
}

} // namespace

std::unique_ptr<CacheKernels> indexpool::cache::makeVerifyingCacheKernels(
    std::unique_ptr<CacheKernels> inner, const CacheConfig &config,
    const CudaCacheArtifacts &artifacts, VerifiedCalls *calls,
    std::string &error) {
  if (config.tokenTierOnHost()) {
    // It reads a call's pages back from the device tier's layers.
    error = "the verifying cache kernels check a token tier kept in the "
            "device tier only (tokenTier 'host' given)";
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
  // select_paged's query is the rotated input (a hadamard compute first).
  const Compute *a = findCompute(append, "append_paged"),
                *s = findCompute(select, "select_paged");
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
  config.refine = 0;
  config.perChannelScores = scores->shape.size() == 3;
  config.temperature = float(a->temperature);
  const Buffer *bias = append.findBuffer(a->operand("bias"));
  config.bias = !bias ? "none" : bias->shape.size() == 1 ? "slot" : "channel";
  const bool tokenAppend = !artifacts.tokenAppendManifest.empty(),
             refine = !artifacts.refineManifest.empty();
  if (tokenAppend != refine) {
    error = "the token tier needs both its artifacts (append_paged and "
            "refine_paged), not one";
    return false;
  }
  return !refine || tokenTierFromArtifacts(artifacts, s->k, config, error);
}
