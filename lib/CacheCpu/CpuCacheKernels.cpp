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
                  std::unique_ptr<CpuFunction> selectFn)
      : cfg(config), appendFn(std::move(appendFn)),
        selectFn(std::move(selectFn)) {}

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
        {c.batch, 1, cfg.k * cfg.poolSize + cfg.poolSize - 1})};
    Status status = selectFn->call(inputs, outputs);
    if (!status.ok())
      error = "select_paged: " + status.message();
    return status.ok();
  }

private:
  CacheConfig cfg;
  std::unique_ptr<CpuFunction> appendFn, selectFn;
};

} // namespace

std::unique_ptr<CacheKernels>
indexpool::cache::makeCpuCacheKernels(const CacheConfig &config, int threads,
                                      std::string &error) {
  PageLayout layout;
  layout.pageEntries = config.pageEntries;
  AppendPagedSpec append;
  append.batch = -1;
  append.newTokens = -1;
  append.dim = config.dim;
  append.keyType = DType::F32;
  append.poolSize = config.poolSize;
  append.perChannelScores = config.perChannelScores;
  append.bias = config.bias;
  append.temperature = config.temperature;
  append.layout = layout;
  SelectPagedSpec select;
  select.batch = -1;
  select.heads = config.heads;
  select.dim = config.dim;
  select.queryType = DType::F32;
  select.k = config.k;
  select.poolSize = config.poolSize;
  select.layout = layout;
  Status status;
  std::unique_ptr<Module> appendModule = buildAppendPaged(append, status);
  std::unique_ptr<Module> selectModule =
      appendModule ? buildSelectPaged(select, status) : nullptr;
  if (!selectModule) {
    error = "the cache's kernels: " + status.message();
    return nullptr;
  }
  CompileOptions options;
  options.threads = threads;
  // pages, tail keys, tail scores (one place later after a bias)
  const int shift = config.bias == "none" ? 0 : 1;
  options.inPlaceArguments = {5 + shift, 2 + shift, 3 + shift};
  std::unique_ptr<CpuFunction> appendFn =
      compileForCpu(*appendModule, append.name, options, status);
  options.inPlaceArguments.clear();
  std::unique_ptr<CpuFunction> selectFn =
      appendFn ? compileForCpu(*selectModule, select.name, options, status)
               : nullptr;
  if (!selectFn) {
    error = "the cache's kernels: " + status.message();
    return nullptr;
  }
  return std::make_unique<CpuCacheKernels>(config, std::move(appendFn),
                                           std::move(selectFn));
}
