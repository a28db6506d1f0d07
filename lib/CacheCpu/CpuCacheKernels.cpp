//===- CpuCacheKernels.cpp - The cache's paged kernels on the CPU ---------===//

#include "indexpool/CacheCpu/CpuCacheKernels.h"

#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"

#include <optional>

using namespace indexpool;
using namespace indexpool::cache;

namespace {

/// Scores for `rows` tokens of each of `batch` sequences: one a token, or
/// one a channel.
std::vector<std::int64_t> scoreShape(const CacheConfig &cfg, std::int64_t batch,
                                     std::int64_t rows) {
  return cfg.perChannelScores ? std::vector<std::int64_t>{batch, rows, cfg.dim}
                              : std::vector<std::int64_t>{batch, rows};
}

/// append_paged's operands: keys, scores, [bias,] tail keys, tail scores,
/// lengths, pages of `pageBytes`, block table. AppendCall (the pooled
/// tier) and TokenAppendCall (the token tier) name theirs alike; the bias
/// and the tails are the caller's.
template <typename Call>
std::vector<TensorRef> appendInputs(const CacheConfig &cfg, const Call &c,
                                    std::optional<TensorRef> bias,
                                    TensorRef tailKeys, TensorRef tailScores,
                                    std::int64_t pageBytes, std::uint64_t rows) {
  std::vector<TensorRef> inputs = {
      TensorRef(const_cast<float *>(c.keys), DType::F32,
                {c.batch, c.newTokens, cfg.dim}),
      TensorRef(const_cast<float *>(c.scores), DType::F32,
                scoreShape(cfg, c.batch, c.newTokens))};
  if (bias)
    inputs.push_back(*bias);
  inputs.push_back(tailKeys);
  inputs.push_back(tailScores);
  inputs.push_back(
      TensorRef(const_cast<std::int32_t *>(c.lengths), DType::I32, {c.batch}));
  inputs.push_back(
      TensorRef(c.pages, DType::I8, {std::int64_t(rows), pageBytes}));
  inputs.push_back(TensorRef(const_cast<std::int32_t *>(c.blockTable),
                             DType::I32, {c.batch, c.maxPages}));
  return inputs;
}

/// What append_paged writes, where it is (in_place_of): the pages, the
/// tail keys and the tail scores of appendInputs' operands.
std::vector<TensorRef> appendOutputs(const std::vector<TensorRef> &inputs) {
  const size_t n = inputs.size(); // ..., tails, lengths, pages, block table
  return {inputs[n - 2], inputs[n - 5], inputs[n - 4]};
}

/// select_paged's operands (SelectCall) or refine_paged's (RefineCall):
/// queries, weights, [candidates (refine_paged's),] pages of `pageBytes`,
/// block table, lengths.
template <typename Call>
std::vector<TensorRef> selectInputs(const CacheConfig &cfg, const Call &c,
                                    std::optional<TensorRef> candidates,
                                    std::int64_t pageBytes, std::uint64_t rows) {
  std::vector<TensorRef> inputs = {
      TensorRef(const_cast<float *>(c.queries), DType::F32,
                {c.batch, 1, cfg.heads, cfg.dim}),
      TensorRef(const_cast<float *>(c.weights), DType::F32,
                {c.batch, 1, cfg.heads})};
  if (candidates)
    inputs.push_back(*candidates);
  inputs.push_back(TensorRef(const_cast<std::int8_t *>(c.pages), DType::I8,
                             {std::int64_t(rows), pageBytes}));
  inputs.push_back(TensorRef(const_cast<std::int32_t *>(c.blockTable),
                             DType::I32, {c.batch, c.maxPages}));
  inputs.push_back(TensorRef(const_cast<std::int32_t *>(c.lengths), DType::I32,
                             {c.batch, 1}));
  return inputs;
}

/// Calls `function`; false with `error` naming `kernel` otherwise.
bool callKernel(CpuFunction &function, const char *kernel,
                const std::vector<TensorRef> &inputs,
                const std::vector<TensorRef> &outputs, std::string &error) {
  Status status = function.call(inputs, outputs);
  if (!status.ok())
    error = std::string(kernel) + ": " + status.message();
  return status.ok();
}

class CpuCacheKernels final : public CacheKernels {
public:
  CpuCacheKernels(const CacheConfig &config,
                  std::unique_ptr<CpuFunction> appendFn,
                  std::unique_ptr<CpuFunction> selectFn,
                  std::unique_ptr<CpuFunction> tokenAppendFn,
                  std::unique_ptr<CpuFunction> refineFn)
      : cfg(config), appendFn(std::move(appendFn)),
        selectFn(std::move(selectFn)), tokenAppendFn(std::move(tokenAppendFn)),
        refineFn(std::move(refineFn)) {}

  bool append(const AppendCall &c, std::string &error) override {
    const std::int64_t d = cfg.dim, tail = cfg.poolSize - 1;
    std::optional<TensorRef> bias;
    if (cfg.bias == "slot")
      bias = TensorRef(const_cast<float *>(c.bias), DType::F32, {cfg.poolSize});
    else if (cfg.bias == "channel")
      bias =
          TensorRef(const_cast<float *>(c.bias), DType::F32, {cfg.poolSize, d});
    std::vector<TensorRef> inputs = appendInputs(
        cfg, c, bias, TensorRef(c.tailKeys, DType::F32, {c.batch, tail, d}),
        TensorRef(c.tailScores, DType::F32, scoreShape(cfg, c.batch, tail)),
        cfg.pageBytes(), cfg.pages);
    return callKernel(*appendFn, "append_paged", inputs, appendOutputs(inputs),
                      error);
  }

  bool select(const SelectCall &c, std::string &error) override {
    const std::int64_t p = cfg.poolSize;
    return callKernel(
        *selectFn, "select_paged",
        selectInputs(cfg, c, std::nullopt, cfg.pageBytes(), cfg.pages),
        {TensorRef(c.tokens, DType::I32,
                   {c.batch, 1, cfg.selectEntries() * p + p - 1})},
        error);
  }

  bool appendTokens(const TokenAppendCall &c, std::string &error) override {
    if (!tokenAppendFn)
      return CacheKernels::appendTokens(c, error);
    // Tails of 0 rows: nothing is read or written there, but a tensor needs
    // an address.
    float noKeys = 0.0f, noScores = 0.0f;
    std::vector<TensorRef> inputs = appendInputs(
        cfg, c, std::nullopt,
        TensorRef(&noKeys, DType::F32, {c.batch, 0, cfg.dim}),
        TensorRef(&noScores, DType::F32, scoreShape(cfg, c.batch, 0)),
        cfg.tokenPageBytes(), cfg.tokenTierSlots());
    return callKernel(*tokenAppendFn, "append_paged (token tier)", inputs,
                      appendOutputs(inputs), error);
  }

  bool refine(const RefineCall &c, std::string &error) override {
    if (!refineFn)
      return CacheKernels::refine(c, error);
    const std::int64_t p = cfg.poolSize;
    // select_paged's row of tokens for each sequence
    TensorRef candidates(const_cast<std::int32_t *>(c.candidates), DType::I32,
                         {c.batch, 1, cfg.selectEntries() * p + p - 1});
    return callKernel(
        *refineFn, "refine_paged",
        selectInputs(cfg, c, candidates, cfg.tokenPageBytes(),
                     cfg.tokenTierSlots()),
        {TensorRef(c.tokens, DType::I32, {c.batch, 1, cfg.k * p + p - 1})},
        error);
  }

private:
  CacheConfig cfg;
  std::unique_ptr<CpuFunction> appendFn, selectFn;
  // The token tier's append and refine (null without refine).
  std::unique_ptr<CpuFunction> tokenAppendFn, refineFn;
};

} // namespace

bool indexpool::cache::buildCacheModules(const CacheConfig &config,
                                         CacheModules &modules,
                                         std::string &error) {
  PageLayout layout;
  layout.pageEntries = config.pageEntries;
  layout.codeType = config.codes;
  modules.append.batch = -1;
  modules.append.newTokens = -1;
  modules.append.dim = config.dim;
  modules.append.keyType = DType::F32;
  modules.append.poolSize = config.poolSize;
  modules.append.perChannelScores = config.perChannelScores;
  modules.append.bias = config.bias;
  modules.append.temperature = config.temperature;
  modules.append.layout = layout;
  modules.select.batch = -1;
  modules.select.heads = config.heads;
  modules.select.dim = config.dim;
  modules.select.queryType = DType::F32;
  modules.select.k = config.selectEntries();
  modules.select.poolSize = config.poolSize;
  modules.select.layout = layout;
  Status status;
  modules.appendModule = buildAppendPaged(modules.append, status);
  modules.selectModule =
      modules.appendModule ? buildSelectPaged(modules.select, status) : nullptr;
  if (!modules.selectModule) {
    error = "the cache's kernels: " + status.message();
    return false;
  }
  if (config.refine <= 0)
    return true;
  // The token tier: each token a group of one (its weight exactly 1: no
  // bias, the temperature cannot matter), P * E of them a page.
  PageLayout tokenLayout;
  tokenLayout.pageEntries = config.poolSize * config.pageEntries;
  modules.tokenAppend = modules.append;
  modules.tokenAppend.poolSize = 1;
  modules.tokenAppend.bias = "none";
  modules.tokenAppend.temperature = 1.0f;
  modules.tokenAppend.layout = tokenLayout;
  modules.tokenAppend.name = "append_tokens";
  const std::int64_t p = config.poolSize;
  modules.refine.batch = -1;
  modules.refine.candidates = config.selectEntries() * p + p - 1;
  modules.refine.heads = config.heads;
  modules.refine.dim = config.dim;
  modules.refine.queryType = DType::F32;
  modules.refine.k = config.k * p + p - 1;
  modules.refine.layout = tokenLayout;
  modules.tokenAppendModule = buildAppendPaged(modules.tokenAppend, status);
  modules.refineModule = modules.tokenAppendModule
                             ? buildRefinePaged(modules.refine, status)
                             : nullptr;
  if (!modules.refineModule) {
    error = "the cache's token-tier kernels: " + status.message();
    return false;
  }
  return true;
}

std::unique_ptr<CacheKernels>
indexpool::cache::makeCpuCacheKernels(const CacheConfig &config, int threads,
                                      std::string &error) {
  CacheModules modules;
  if (!buildCacheModules(config, modules, error))
    return nullptr;
  const AppendPagedSpec &append = modules.append;
  const SelectPagedSpec &select = modules.select;
  Status status;
  CompileOptions options;
  options.threads = threads;
  // pages, tail keys, tail scores (one place later after a bias)
  const int shift = config.bias == "none" ? 0 : 1;
  options.inPlaceArguments = {5 + shift, 2 + shift, 3 + shift};
  std::unique_ptr<CpuFunction> appendFn =
      compileForCpu(*modules.appendModule, append.name, options, status);
  options.inPlaceArguments.clear();
  std::unique_ptr<CpuFunction> selectFn =
      appendFn ? compileForCpu(*modules.selectModule, select.name, options, status)
               : nullptr;
  if (!selectFn) {
    error = "the cache's kernels: " + status.message();
    return nullptr;
  }
  std::unique_ptr<CpuFunction> tokenAppendFn, refineFn;
  if (config.refine > 0) {
    // pages, tail keys, tail scores (no bias)
    options.inPlaceArguments = {5, 2, 3};
    tokenAppendFn = compileForCpu(*modules.tokenAppendModule,
                                  modules.tokenAppend.name, options, status);
    options.inPlaceArguments.clear();
    refineFn = tokenAppendFn ? compileForCpu(*modules.refineModule,
                                             modules.refine.name, options,
                                             status)
                             : nullptr;
    if (!refineFn) {
      error = "the cache's token-tier kernels: " + status.message();
      return nullptr;
    }
  }
  return std::make_unique<CpuCacheKernels>(
      config, std::move(appendFn), std::move(selectFn),
      std::move(tokenAppendFn), std::move(refineFn));
}

bool indexpool::cache::compileCudaCacheArtifacts(const CacheConfig &config,
                                                 const std::string &chip,
                                                 CudaCacheArtifacts &artifacts,
                                                 std::string &error) {
  CacheModules modules;
  if (!buildCacheModules(config, modules, error))
    return false;
  CompileOptions options;
  // The token tier's two kernels only with refine.
  struct Kernel {
    Module *module;
    const std::string &name;
    std::string *manifest, *binary;
  } kernels[] = {
      {modules.appendModule.get(), modules.append.name,
       &artifacts.appendManifest, &artifacts.appendBinary},
      {modules.selectModule.get(), modules.select.name,
       &artifacts.selectManifest, &artifacts.selectBinary},
      {modules.tokenAppendModule.get(), modules.tokenAppend.name,
       &artifacts.tokenAppendManifest, &artifacts.tokenAppendBinary},
      {modules.refineModule.get(), modules.refine.name,
       &artifacts.refineManifest, &artifacts.refineBinary}};
  for (const Kernel &kernel : kernels) {
    if (!kernel.module)
      continue;
    GpuArtifact artifact;
    Status status =
        compileForGpu(*kernel.module, kernel.name, chip, options, artifact);
    if (!status.ok()) {
      error = "the cache's GPU kernels for " + chip + ": " + status.message();
      return false;
    }
    *kernel.manifest = std::move(artifact.manifest);
    *kernel.binary = std::move(artifact.binary);
  }
  return true;
}
