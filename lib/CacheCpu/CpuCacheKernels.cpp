//===- CpuCacheKernels.cpp - The cache's paged kernels on the CPU ---------===//

#include "indexpool/CacheCpu/CpuCacheKernels.h"

#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"

using namespace indexpool;
using namespace indexpool::cache;

namespace {

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
    const std::int64_t pages = std::int64_t(cfg.pages);
    auto scoreShape = [&](std::int64_t rows) {
      return cfg.perChannelScores ? std::vector<std::int64_t>{c.batch, rows, d}
                                  : std::vector<std::int64_t>{c.batch, rows};
    };
    // keys, scores, [bias,] tail keys, tail scores, lengths, pages, block
    // table; results: pages, tail keys, tail scores, written where they are.
    std::vector<TensorRef> inputs = {
        TensorRef(const_cast<float *>(c.keys), DType::F32,
                  {c.batch, c.newTokens, d}),
        TensorRef(const_cast<float *>(c.scores), DType::F32,
                  scoreShape(c.newTokens))};
    if (cfg.bias == "slot")
      inputs.push_back(TensorRef(const_cast<float *>(c.bias), DType::F32,
                                 {cfg.poolSize}));
    else if (cfg.bias == "channel")
      inputs.push_back(TensorRef(const_cast<float *>(c.bias), DType::F32,
                                 {cfg.poolSize, d}));
    const size_t tailAt = inputs.size();
    inputs.push_back(TensorRef(c.tailKeys, DType::F32, {c.batch, tail, d}));
    inputs.push_back(TensorRef(c.tailScores, DType::F32, scoreShape(tail)));
    inputs.push_back(TensorRef(const_cast<std::int32_t *>(c.lengths),
                               DType::I32, {c.batch}));
    inputs.push_back(TensorRef(c.pages, DType::I8, {pages, cfg.pageBytes()}));
    inputs.push_back(TensorRef(const_cast<std::int32_t *>(c.blockTable),
                               DType::I32, {c.batch, c.maxPages}));
    std::vector<TensorRef> outputs = {inputs[tailAt + 3], inputs[tailAt],
                                      inputs[tailAt + 1]};
    Status status = appendFn->call(inputs, outputs);
    if (!status.ok())
      error = "append_paged: " + status.message();
    return status.ok();
  }

  bool select(const SelectCall &c, std::string &error) override {
    const std::int64_t pages = std::int64_t(cfg.pages);
    std::vector<TensorRef> inputs = {
        TensorRef(const_cast<float *>(c.queries), DType::F32,
                  {c.batch, 1, cfg.heads, cfg.dim}),
        TensorRef(const_cast<float *>(c.weights), DType::F32,
                  {c.batch, 1, cfg.heads}),
        TensorRef(const_cast<std::int8_t *>(c.pages), DType::I8,
                  {pages, cfg.pageBytes()}),
        TensorRef(const_cast<std::int32_t *>(c.blockTable), DType::I32,
                  {c.batch, c.maxPages}),
        TensorRef(const_cast<std::int32_t *>(c.lengths), DType::I32,
                  {c.batch, 1})};
    std::vector<TensorRef> outputs = {TensorRef(
        c.tokens, DType::I32,
        {c.batch, 1, cfg.selectEntries() * cfg.poolSize + cfg.poolSize - 1})};
    Status status = selectFn->call(inputs, outputs);
    if (!status.ok())
      error = "select_paged: " + status.message();
    return status.ok();
  }

  bool appendTokens(const TokenAppendCall &c, std::string &error) override {
    if (!tokenAppendFn)
      return CacheKernels::appendTokens(c, error);
    const std::int64_t d = cfg.dim, pages = std::int64_t(cfg.pages);
    auto scoreShape = [&](std::int64_t rows) {
      return cfg.perChannelScores ? std::vector<std::int64_t>{c.batch, rows, d}
                                  : std::vector<std::int64_t>{c.batch, rows};
    };
    // Tails of 0 rows: nothing is read or written there, but a tensor needs
    // an address.
    float noKeys = 0.0f, noScores = 0.0f;
    std::vector<TensorRef> inputs = {
        TensorRef(const_cast<float *>(c.keys), DType::F32,
                  {c.batch, c.newTokens, d}),
        TensorRef(const_cast<float *>(c.scores), DType::F32,
                  scoreShape(c.newTokens)),
        TensorRef(&noKeys, DType::F32, {c.batch, 0, d}),
        TensorRef(&noScores, DType::F32, scoreShape(0)),
        TensorRef(const_cast<std::int32_t *>(c.lengths), DType::I32,
                  {c.batch}),
        TensorRef(c.pages, DType::I8, {pages, cfg.tokenPageBytes()}),
        TensorRef(const_cast<std::int32_t *>(c.blockTable), DType::I32,
                  {c.batch, c.maxPages})};
    std::vector<TensorRef> outputs = {inputs[5], inputs[2], inputs[3]};
    Status status = tokenAppendFn->call(inputs, outputs);
    if (!status.ok())
      error = "append_paged (token tier): " + status.message();
    return status.ok();
  }

  bool refine(const RefineCall &c, std::string &error) override {
    if (!refineFn)
      return CacheKernels::refine(c, error);
    const std::int64_t p = cfg.poolSize, pages = std::int64_t(cfg.pages);
    std::vector<TensorRef> inputs = {
        TensorRef(const_cast<float *>(c.queries), DType::F32,
                  {c.batch, 1, cfg.heads, cfg.dim}),
        TensorRef(const_cast<float *>(c.weights), DType::F32,
                  {c.batch, 1, cfg.heads}),
        TensorRef(const_cast<std::int32_t *>(c.candidates), DType::I32,
                  {c.batch, 1, cfg.selectEntries() * p + p - 1}),
        TensorRef(const_cast<std::int8_t *>(c.pages), DType::I8,
                  {pages, cfg.tokenPageBytes()}),
        TensorRef(const_cast<std::int32_t *>(c.blockTable), DType::I32,
                  {c.batch, c.maxPages}),
        TensorRef(const_cast<std::int32_t *>(c.lengths), DType::I32,
                  {c.batch, 1})};
    std::vector<TensorRef> outputs = {
        TensorRef(c.tokens, DType::I32, {c.batch, 1, cfg.k * p + p - 1})};
    Status status = refineFn->call(inputs, outputs);
    if (!status.ok())
      error = "refine_paged: " + status.message();
    return status.ok();
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
