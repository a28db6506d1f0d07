//===- PooledSelection.cpp - pooling and selection as shipped -------------===//

#include "indexpool/Fidelity/PooledSelection.h"

#include "indexpool/API/Builders.h"
#include "indexpool/API/Compiler.h"
#include "indexpool/API/Formats.h"
#include "indexpool/API/Module.h"
#include "indexpool/API/Tensor.h"
#include "indexpool/Reference/HostTensor.h"
#include "indexpool/Reference/Paged.h"
#include "indexpool/Reference/Reference.h"
#include "indexpool/Vocabulary/PageLayout.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <sstream>

namespace indexpool::fidelity {

std::string poolFormatName(PoolFormat format) {
  if (!format.codes)
    return "none";
  return format == PoolFormat::FP8 ? "fp8" : elementTypeName(*format.codes);
}

std::optional<PoolFormat> parsePoolFormat(std::string_view name,
                                          std::string &error) {
  if (name == "none")
    return PoolFormat::None;
  if (name == "fp8")
    return PoolFormat::FP8;
  constexpr uint8_t kCodes = ElementUse::DenseCode | ElementUse::PagedCode;
  if (std::optional<ElementType> codes = parseElementType(name, kCodes))
    return PoolFormat{*codes};
  error = "unknown pool format \"" + std::string(name) +
          "\" (known: none, fp8, " + elementTypeList(kCodes) + ")";
  return std::nullopt;
}

const char *firstStageName(FirstStage stage) {
  switch (stage) {
  case FirstStage::Mean: return "mean";
  case FirstStage::MaxAware: return "max-aware";
  }
  return "unknown";
}

const char *radiusFormatName(RadiusFormat format) {
  return format == RadiusFormat::E5M2 ? "e5m2" : "f32";
}

int64_t radiusBytes(RadiusFormat format) {
  return format == RadiusFormat::E5M2 ? 1 : 4;
}

float roundUpToE5M2(double x) {
  // f8E5M2: 2 mantissa bits, normals from 2^-14, subnormals in steps of
  // 2^-16, largest 57344 = 1.75 x 2^15.
  constexpr double kLargest = 57344.0, kSmallestNormal = 0x1p-14;
  if (!(x > 0))
    return 0.0f;
  if (x >= kLargest)
    return float(kLargest);
  int exponent = 0;
  std::frexp(x, &exponent); // x = m 2^exponent, m in [0.5, 1)
  double step = x < kSmallestNormal ? 0x1p-16 : std::ldexp(1.0, exponent - 3);
  return float(std::min(std::ceil(x / step) * step, kLargest));
}

/// The codes' type of the compiled compress and select (or of the paged
/// ops, compress_paged and select_paged); F32 for f32 pooled keys.
static DType codeType(PoolFormat format) {
  return format.codes.value_or(DType::F32);
}

int64_t pooledKeyBytes(PoolFormat format, int64_t dim) {
  // An entry of the page layout (codes packed, rounded up to whole bytes,
  // and the scale), or f32 values.
  return format == PoolFormat::None
             ? 4 * dim
             : elementTypeInfo(codeType(format)).packedBytes(dim) +
                   vocab::kScaleBytes;
}

/// `rows` x `dim` values as rows of `width` >= dim, zeros after them.
static std::vector<float> padColumns(const float *values, int64_t rows,
                                     int64_t dim, int64_t width) {
  std::vector<float> padded(size_t(rows * width), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    std::copy_n(values + r * dim, dim, padded.begin() + r * width);
  return padded;
}

/// The pages of `groups` paged pools: kI4PageEntries a page.
static int64_t pagesOf(int64_t groups) {
  return (groups + kI4PageEntries - 1) / kI4PageEntries;
}

/// The vocabulary's layout of a page of `width` codes of `format`.
static vocab::PageLayout entryLayout(PoolFormat format, int64_t width) {
  return {kI4PageEntries, width, codeType(format), /*scalesFirst=*/false};
}

/// The D a page of `format` holds for `dim` channels: a whole number of
/// bytes of codes (a zero channel after an odd dim of codes two a byte).
static int64_t pageDimOf(PoolFormat format, int64_t dim) {
  int64_t perByte = elementTypeInfo(codeType(format)).codesPerByte();
  return (dim + perByte - 1) / perByte * perByte;
}

/// The page layout of the paged pools.
static PageLayout pagedLayout(PoolFormat format, int64_t groups) {
  PageLayout layout;
  layout.pages = pagesOf(groups);
  layout.pageEntries = kI4PageEntries;
  layout.codeType = codeType(format);
  return layout;
}

/// pooled.codes and pooled.scales from pooled.pages (pool g at slot g), as
/// the reference decodes entries; the zero channel of an odd dim dropped.
static void unpackPages(PooledKeys &pooled) {
  int64_t dim = pooled.dim, width = pooled.pageDim,
          pages = pagesOf(pooled.groups);
  vocab::PageLayout layout = entryLayout(pooled.format, width);
  ref::HostTensor bytes{
      ref::ElementType::I8,
      {pages, layout.pageBytes()},
      std::vector<double>(pooled.pages.begin(), pooled.pages.end())};
  ref::HostTensor table =
      ref::HostTensor::zeros(ref::ElementType::I32, {1, pages});
  std::iota(table.data.begin(), table.data.end(), 0.0);
  ref::Entries entries =
      ref::gatherEntries(bytes, layout, table, 0, pooled.groups);
  pooled.codes.assign(size_t(pooled.groups * dim), 0);
  pooled.scales.assign(entries.scale.data.begin(), entries.scale.data.end());
  for (int64_t g = 0; g < pooled.groups; ++g)
    for (int64_t d = 0; d < dim; ++d)
      pooled.codes[size_t(g * dim + d)] = uint8_t(ref::encodeCode(
          layout.codes, entries.codes.data[size_t(g * width + d)]));
}

Matrix PooledKeys::dequantized() const {
  Matrix result(groups, dim);
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t d = 0; d < dim; ++d) {
      size_t i = size_t(g * dim + d);
      result.data[i] =
          format.codes ? ref::decodeCode(*format.codes, codes[i]) *
                             double(scales[size_t(g)])
                       : double(values[i]);
    }
  return result;
}

static std::string tensorType(const std::vector<int64_t> &shape,
                              const char *element) {
  std::ostringstream text;
  text << "tensor<";
  for (int64_t size : shape)
    text << size << "x";
  text << element << ">";
  return text.str();
}

/// `name` of `module` compiled for the CPU; null with `status` saying why
/// when the module (built or parsed before, `status` set then) or the
/// compilation failed.
static std::unique_ptr<CpuFunction>
compiledOnCpu(const std::unique_ptr<Module> &module, const std::string &name,
              Status &status) {
  if (!module)
    return nullptr;
  return compileForCpu(*module, name, CompileOptions(), status);
}

/// @pool(%keys [T, D] f32, %scores, [%bias]) -> [G, D] f32: indexpool.pool,
/// then indexpool.hadamard when rotating (what compress does before it
/// quantizes). The Builders have no unquantized compress.
static std::string poolFunction(int64_t tokens, int64_t dim,
                                const PoolingOptions &options,
                                bool perChannel) {
  int64_t p = options.poolSize, groups = tokens / p;
  std::string keys = tensorType({tokens, dim}, "f32");
  std::string scores = tensorType(
      perChannel ? std::vector<int64_t>{tokens, dim} : std::vector<int64_t>{tokens},
      "f32");
  std::string bias = tensorType(options.biasShape, "f32");
  std::string pooled = tensorType({groups, dim}, "f32");
  std::string weights = tensorType(
      perChannel ? std::vector<int64_t>{groups, p, dim}
                 : std::vector<int64_t>{groups, p},
      "f32");
  bool hasBias = !options.biasShape.empty();
  std::ostringstream ir;
  ir << "func.func @pool(%keys: " << keys << ", %scores: " << scores;
  if (hasBias)
    ir << ", %bias: " << bias;
  ir << ") -> " << pooled << " {\n";
  ir << "  %pooled, %weights = indexpool.pool %keys, %scores";
  if (hasBias)
    ir << " bias(%bias)";
  ir << " {pool_size = " << p << " : i64}\n      : (" << keys << ", " << scores;
  if (hasBias)
    ir << ", " << bias;
  ir << ") -> (" << pooled << ", " << weights << ")\n";
  std::string result = "%pooled";
  if (options.rotate) {
    ir << "  %rotated = indexpool.hadamard %pooled : (" << pooled << ") -> "
       << pooled << "\n";
    result = "%rotated";
  }
  ir << "  return " << result << " : " << pooled << "\n}\n";
  return ir.str();
}

Status poolKeys(const std::vector<float> &keys, int64_t tokens, int64_t dim,
                const PoolingOptions &options, PooledKeys &pooled) {
  int64_t p = options.poolSize;
  bool perChannel = options.biasShape.size() == 2;
  // Per-channel bias needs per-channel scores (pool's rule): the same score
  // of token t in every channel.
  std::vector<float> scores(size_t(perChannel ? tokens * dim : tokens), 0.0f);
  bool gated = !options.gate.empty();
  if (options.normScores || gated)
    for (int64_t t = 0; t < tokens; ++t) {
      // ||k_t||, or the gate's gate . k_t; summed in float64, stored as f32.
      double sum = 0;
      for (int64_t d = 0; d < dim; ++d)
        sum += double(keys[size_t(t * dim + d)]) *
               (gated ? options.gate[size_t(d)] : keys[size_t(t * dim + d)]);
      float value = float(gated ? sum : std::sqrt(sum));
      if (perChannel)
        std::fill_n(scores.begin() + t * dim, dim, value);
      else
        scores[size_t(t)] = value;
    }

  Status status;
  std::unique_ptr<Module> module;
  std::string name;
  std::string bias = options.biasShape.empty() ? "none"
                     : perChannel              ? "channel"
                                               : "slot";
  if (options.format == PoolFormat::None) {
    name = "pool";
    module = Module::parse(poolFunction(tokens, dim, options, perChannel),
                           status, "<fidelity-pool>");
  } else if (options.format.paged()) {
    // Such pools exist only in pages: compress_paged, pool g at slot g.
    CompressPagedSpec spec;
    spec.tokens = tokens;
    spec.dim = pageDimOf(options.format, dim);
    spec.keyType = DType::F32;
    spec.poolSize = p;
    spec.perChannelScores = perChannel;
    spec.bias = bias;
    spec.rotate = options.rotate;
    spec.layout = pagedLayout(options.format, tokens / p);
    name = spec.name;
    module = buildCompressPaged(spec, status);
  } else {
    CompressSpec spec;
    spec.tokens = tokens;
    spec.dim = dim;
    spec.keyType = DType::F32;
    spec.poolSize = p;
    spec.perChannelScores = perChannel;
    spec.bias = bias;
    spec.rotate = options.rotate;
    spec.codeType = codeType(options.format);
    name = spec.name;
    module = buildCompress(spec, status);
  }
  std::unique_ptr<CpuFunction> function = compiledOnCpu(module, name, status);
  if (!function)
    return status;

  pooled.groups = tokens / p;
  pooled.dim = dim;
  pooled.format = options.format;
  // Pages hold whole bytes of codes: an odd D of codes two a byte gets a
  // zero channel (its codes are
  // 0, it adds nothing to a score and is not counted in the bytes).
  int64_t width = options.format.paged() ? pageDimOf(options.format, dim) : dim;
  pooled.pageDim = width;
  std::vector<float> paddedKeys, paddedScores, paddedBias;
  const float *keyData = keys.data(), *biasData = options.bias.data();
  float *scoreData = scores.data();
  std::vector<int64_t> biasShape = options.biasShape;
  if (width != dim) {
    paddedKeys = padColumns(keys.data(), tokens, dim, width);
    keyData = paddedKeys.data();
    if (perChannel) {
      paddedScores = padColumns(scores.data(), tokens, dim, width);
      scoreData = paddedScores.data();
      paddedBias = padColumns(options.bias.data(), p, dim, width);
      biasData = paddedBias.data();
      biasShape = {p, width};
    }
  }
  std::vector<TensorRef> inputs = {
      TensorRef(const_cast<float *>(keyData), DType::F32, {tokens, width}),
      TensorRef(scoreData, DType::F32,
                perChannel ? std::vector<int64_t>{tokens, width}
                           : std::vector<int64_t>{tokens})};
  if (!options.biasShape.empty())
    inputs.emplace_back(const_cast<float *>(biasData), DType::F32, biasShape);
  std::vector<int64_t> slots(static_cast<size_t>(pooled.groups));
  if (options.format.paged()) {
    PageLayout layout = pagedLayout(options.format, pooled.groups);
    int64_t pageBytes = entryLayout(options.format, width).pageBytes();
    pooled.pages.assign(size_t(layout.pages * pageBytes), 0);
    std::iota(slots.begin(), slots.end(), 0);
    inputs.emplace_back(
        pooled.pages.data(), DType::I8,
        std::vector<int64_t>{layout.pages, pageBytes});
    inputs.emplace_back(slots.data(), DType::I64,
                        std::vector<int64_t>{pooled.groups});
  }
  std::vector<TensorRef> results;
  status = function->call(inputs.data(), inputs.size(), results);
  if (!status)
    return status;

  size_t elements = size_t(pooled.groups * dim);
  if (options.format == PoolFormat::None) {
    const float *values = static_cast<const float *>(results[0].data);
    pooled.values.assign(values, values + elements);
  } else if (options.format.paged()) {
    const int8_t *pages = static_cast<const int8_t *>(results[0].data);
    std::copy(pages, pages + pooled.pages.size(), pooled.pages.begin());
    unpackPages(pooled);
  } else {
    const uint8_t *codes = static_cast<const uint8_t *>(results[0].data);
    const float *scales = static_cast<const float *>(results[1].data);
    pooled.codes.assign(codes, codes + elements);
    pooled.scales.assign(scales, scales + pooled.groups);
  }
  if (options.firstStage == FirstStage::MaxAware) {
    // r_g in the space the pooled keys are stored in (H is orthonormal and
    // its own inverse, so the float64 reference rotates the keys exactly).
    Matrix space(tokens, dim);
    space.data.assign(keys.begin(), keys.end());
    if (options.rotate) {
      ref::HostTensor x{ref::ElementType::F32, {tokens, dim}, space.data};
      space.data = ref::hadamard(x, ref::ElementType::F32).data;
    }
    Matrix stored = pooled.dequantized();
    pooled.radii.assign(size_t(pooled.groups), 0.0f);
    for (int64_t g = 0; g < pooled.groups; ++g) {
      double radius = 0;
      for (int64_t s = 0; s < p; ++s) {
        double sum = 0;
        for (int64_t d = 0; d < dim; ++d) {
          double diff = space.row(g * p + s)[d] - stored.row(g)[d];
          sum += diff * diff;
        }
        radius = std::max(radius, std::sqrt(sum));
      }
      pooled.radii[size_t(g)] = options.radiusFormat == RadiusFormat::E5M2
                                    ? roundUpToE5M2(radius)
                                    : float(radius);
    }
  }
  return Status();
}

Status tokenTierKeys(const std::vector<float> &keys, int64_t tokens,
                     int64_t dim, bool rotate, PoolFormat format,
                     std::vector<float> &dequantized) {
  if (!format.codes || format.paged())
    return Status::error("tokenTierKeys: the token tier needs codes of "
                         "quantize (" +
                         elementTypeList(ElementUse::DenseCode) + ")");
  std::string rows = tensorType({tokens, dim}, "f32");
  std::string codes = tensorType(
      {tokens, dim}, elementTypeName(*format.codes));
  std::string scales = tensorType({tokens}, "f32");
  std::ostringstream ir;
  ir << "func.func @token_tier(%keys: " << rows << ") -> " << rows << " {\n";
  std::string value = "%keys";
  if (rotate) {
    ir << "  %h = indexpool.hadamard %keys : (" << rows << ") -> " << rows
       << "\n";
    value = "%h";
  }
  ir << "  %c, %s = indexpool.quantize " << value << " : (" << rows
     << ") -> (" << codes << ", " << scales << ")\n"
     << "  %d = indexpool.dequantize %c, %s : (" << codes << ", " << scales
     << ") -> " << rows << "\n";
  value = "%d";
  if (rotate) {
    // Back into the queries' space: refine scores unrotated queries.
    ir << "  %b = indexpool.hadamard %d : (" << rows << ") -> " << rows
       << "\n";
    value = "%b";
  }
  ir << "  return " << value << " : " << rows << "\n}\n";
  Status status;
  std::unique_ptr<Module> module =
      Module::parse(ir.str(), status, "<fidelity-token-tier>");
  std::unique_ptr<CpuFunction> function =
      compiledOnCpu(module, "token_tier", status);
  if (!function)
    return status;
  TensorRef input(const_cast<float *>(keys.data()), DType::F32, {tokens, dim});
  dequantized.assign(size_t(tokens * dim), 0.0f);
  TensorRef output(dequantized.data(), DType::F32, {tokens, dim});
  return function->call(&input, 1, &output, 1);
}

Status tierKeys(const std::vector<float> &keys, int64_t tokens,
                const PooledKeys &pooled, int64_t poolSize, bool rotate,
                PoolFormat residualFormat, std::vector<float> &reconstructed) {
  int64_t groups = pooled.groups, dim = pooled.dim, p = poolSize;
  // The stored pooled keys, in the keys' (unrotated) space: the normalized
  // Sylvester-Hadamard matrix is its own inverse.
  Matrix stored = pooled.dequantized();
  if (rotate) {
    ref::HostTensor x{ref::ElementType::F32, {groups, dim}, stored.data};
    stored.data = ref::hadamard(x, ref::ElementType::F32).data;
  }
  std::vector<float> pooledKeys(stored.data.begin(), stored.data.end());
  std::string keysType = tensorType({tokens, dim}, "f32");
  std::string pooledType = tensorType({groups, dim}, "f32");
  std::string rows = tensorType({groups * p, dim}, "f32");
  std::string codes = tensorType(
      {groups * p, dim}, elementTypeName(*residualFormat.codes));
  std::string scales = tensorType({groups * p}, "f32");
  std::ostringstream ir;
  ir << "func.func @tier(%keys: " << keysType << ", %pooled: " << pooledType
     << ") -> " << rows << " {\n"
     << "  %r = indexpool.residual %keys, %pooled {pool_size = " << p
     << " : i64} : (" << keysType << ", " << pooledType << ") -> " << rows
     << "\n"
     << "  %c, %s = indexpool.quantize %r : (" << rows << ") -> (" << codes
     << ", " << scales << ")\n"
     << "  %d = indexpool.dequantize %c, %s : (" << codes << ", " << scales
     << ") -> " << rows << "\n"
     << "  %k = indexpool.reconstruct %pooled residual(%d) {pool_size = " << p
     << " : i64} : (" << pooledType << ", " << rows << ") -> " << rows << "\n"
     << "  return %k : " << rows << "\n}\n";
  Status status;
  std::unique_ptr<Module> module =
      Module::parse(ir.str(), status, "<fidelity-tier>");
  std::unique_ptr<CpuFunction> function = compiledOnCpu(module, "tier", status);
  if (!function)
    return status;
  std::vector<TensorRef> inputs = {
      TensorRef(const_cast<float *>(keys.data()), DType::F32, {tokens, dim}),
      TensorRef(pooledKeys.data(), DType::F32, {groups, dim})};
  reconstructed.assign(size_t(groups * p * dim), 0.0f);
  TensorRef output(reconstructed.data(), DType::F32, {groups * p, dim});
  return function->call(inputs.data(), inputs.size(), &output, 1);
}

/// score applies ReLU per head: two heads, q with weight +1 and -q with
/// weight -1, score the raw q.k exactly: max(0, x) - max(0, -x) = x.
static void twoHeads(const std::vector<float> &queries, int64_t rows,
                     int64_t dim, std::vector<float> &query,
                     std::vector<float> &weights) {
  query.assign(size_t(rows * 2 * dim), 0.0f);
  weights.assign(size_t(rows * 2), 0.0f);
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t d = 0; d < dim; ++d) {
      float value = queries[size_t(m * dim + d)];
      query[size_t((m * 2 + 0) * dim + d)] = value;
      query[size_t((m * 2 + 1) * dim + d)] = -value;
    }
    weights[size_t(m * 2 + 0)] = 1.0f;
    weights[size_t(m * 2 + 1)] = -1.0f;
  }
}

/// The compiled indexpool.refine alone: the best k of `candidates`
/// ([rows, C] i32, -1 padding) by q.k over `keys` ([tokens, dim] f32).
static Status refineCandidates(const std::vector<float> &queries, int64_t rows,
                               int64_t dim, std::vector<int32_t> &candidates,
                               int64_t count, const RefineOptions &refine,
                               int64_t k, std::vector<int32_t> &tokens) {
  std::string query = tensorType({rows, 2, dim}, "f32");
  std::string weights = tensorType({rows, 2}, "f32");
  std::string cands = tensorType({rows, count}, "i32");
  std::string keys = tensorType({refine.tokens, dim}, "f32");
  std::string result = tensorType({rows, k}, "i32");
  std::ostringstream ir;
  ir << "func.func @refine(%q: " << query << ", %w: " << weights
     << ", %c: " << cands << ", %keys: " << keys << ") -> " << result
     << " {\n"
     << "  %t = indexpool.refine %q, %w, %c, %keys {k = " << k
     << " : i64} : (" << query << ", " << weights << ", " << cands << ", "
     << keys << ") -> " << result << "\n"
     << "  return %t : " << result << "\n}\n";
  Status status;
  std::unique_ptr<Module> module =
      Module::parse(ir.str(), status, "<fidelity-refine>");
  std::unique_ptr<CpuFunction> function =
      compiledOnCpu(module, "refine", status);
  if (!function)
    return status;
  std::vector<float> q, w;
  twoHeads(queries, rows, dim, q, w);
  std::vector<TensorRef> inputs = {
      TensorRef(q.data(), DType::F32, {rows, 2, dim}),
      TensorRef(w.data(), DType::F32, {rows, 2}),
      TensorRef(candidates.data(), DType::I32, {rows, count}),
      TensorRef(const_cast<float *>(refine.keys->data()), DType::F32,
                {refine.tokens, dim})};
  tokens.assign(size_t(rows * k), -1);
  TensorRef output(tokens.data(), DType::I32, {rows, k});
  return function->call(inputs.data(), inputs.size(), &output, 1);
}

/// The first stage's `count` candidates a row as the tokens (no refine),
/// or refine's best k of them.
static Status keepOrRefine(const std::vector<float> &queries, int64_t rows,
                           int64_t dim, std::vector<int32_t> &candidates,
                           int64_t count, const RefineOptions &refine,
                           int64_t k, std::vector<int32_t> &tokens) {
  if (refine.factor == 0) {
    tokens = std::move(candidates);
    return Status();
  }
  return refineCandidates(queries, rows, dim, candidates, count, refine, k,
                          tokens);
}

/// Pools ranked on the host in float64 by q.p_g (q rotated as the keys are;
/// p_g dequantized), + a ||q|| r_g for FirstStage::MaxAware, the best
/// (refine factor or 1) x k / P kept (ties to the smaller pool), expanded in
/// rank order; then refine.
static Status selectOnHost(const PooledKeys &pooled,
                           const std::vector<float> &queries, int64_t rows,
                           const std::vector<int32_t> &validPools, int64_t k,
                           const PoolingOptions &options,
                           std::vector<int32_t> &tokens,
                           const RefineOptions &refine) {
  int64_t dim = pooled.dim, p = options.poolSize;
  int64_t keep = std::max<int64_t>(refine.factor, 1) * (k / p);
  bool maxAware = options.firstStage == FirstStage::MaxAware;
  if (maxAware && pooled.radii.size() != size_t(pooled.groups))
    return Status::error("max-aware selection: the pooled keys have no radii "
                         "(pool them with FirstStage::MaxAware)");
  Matrix stored = pooled.dequantized();
  ref::HostTensor q{ref::ElementType::F32, {rows, dim},
                    std::vector<double>(queries.begin(), queries.end())};
  if (options.rotate)
    q = ref::hadamard(q, ref::ElementType::F32);
  std::vector<int32_t> candidates(size_t(rows * keep * p), -1);
  std::vector<double> score;
  std::vector<int64_t> order;
  for (int64_t m = 0; m < rows; ++m) {
    const double *query = q.data.data() + m * dim;
    double queryNorm = 0;
    for (int64_t d = 0; d < dim; ++d)
      queryNorm += query[d] * query[d];
    queryNorm = std::sqrt(queryNorm);
    int64_t valid = std::min<int64_t>(validPools[size_t(m)], pooled.groups);
    score.assign(size_t(valid), 0.0);
    for (int64_t g = 0; g < valid; ++g) {
      double sum = 0;
      for (int64_t d = 0; d < dim; ++d)
        sum += query[d] * stored.row(g)[d];
      score[size_t(g)] = maxAware ? sum + options.boundWeight * queryNorm *
                                              pooled.radii[size_t(g)]
                                  : sum;
    }
    order.resize(size_t(valid));
    std::iota(order.begin(), order.end(), 0);
    size_t kept = size_t(std::min(keep, valid));
    std::partial_sort(order.begin(), order.begin() + kept, order.end(),
                      [&](int64_t a, int64_t b) {
                        double sa = score[size_t(a)], sb = score[size_t(b)];
                        return sa > sb || (sa == sb && a < b);
                      });
    for (size_t j = 0; j < kept; ++j)
      for (int64_t s = 0; s < p; ++s)
        candidates[size_t((m * keep + int64_t(j)) * p + s)] =
            int32_t(order[j] * p + s);
  }
  return keepOrRefine(queries, rows, dim, candidates, keep * p, refine, k,
                      tokens);
}

/// Paged pools: the compiled select_paged over the pages of compress_paged
/// (one sequence whose query row m sees validPools[m] * P tokens, its
/// block table the pages in order), the best (refine factor or 1) x k / P
/// pools expanded; then refine.
static Status selectPaged(const PooledKeys &pooled,
                            const std::vector<float> &queries, int64_t rows,
                            const std::vector<int32_t> &validPools, int64_t k,
                            const PoolingOptions &options,
                            std::vector<int32_t> &tokens,
                            const RefineOptions &refine) {
  int64_t dim = pooled.dim, width = pooled.pageDim, p = options.poolSize;
  int64_t keep = std::max<int64_t>(refine.factor, 1) * (k / p);
  PageLayout layout = pagedLayout(pooled.format, pooled.groups);
  SelectPagedSpec spec;
  spec.batch = 1;
  spec.rows = rows;
  spec.heads = 2; // twoHeads
  spec.dim = width;
  spec.maxPages = layout.pages;
  spec.queryType = DType::F32;
  spec.k = keep;
  spec.poolSize = p;
  spec.rotate = options.rotate;
  spec.layout = layout;
  Status status;
  std::unique_ptr<Module> module = buildSelectPaged(spec, status);
  std::unique_ptr<CpuFunction> function =
      compiledOnCpu(module, spec.name, status);
  if (!function)
    return status;
  std::vector<float> query, weights;
  twoHeads(width == dim ? queries
                        : padColumns(queries.data(), rows, dim, width),
           rows, width, query, weights);
  std::vector<int32_t> table(static_cast<size_t>(layout.pages));
  std::iota(table.begin(), table.end(), 0);
  // Whole pools only: no tail tokens.
  std::vector<int32_t> lengths(static_cast<size_t>(rows));
  for (int64_t m = 0; m < rows; ++m)
    lengths[size_t(m)] =
        int32_t(std::min<int64_t>(validPools[size_t(m)], pooled.groups) * p);
  int64_t columns = keep * p + p - 1;
  std::vector<TensorRef> inputs = {
      TensorRef(query.data(), DType::F32, {1, rows, 2, width}),
      TensorRef(weights.data(), DType::F32, {1, rows, 2}),
      TensorRef(const_cast<int8_t *>(pooled.pages.data()), DType::I8,
                {layout.pages, entryLayout(pooled.format, width).pageBytes()}),
      TensorRef(table.data(), DType::I32, {1, layout.pages}),
      TensorRef(lengths.data(), DType::I32, {1, rows})};
  std::vector<int32_t> selected(size_t(rows * columns), -1);
  TensorRef output(selected.data(), DType::I32, {1, rows, columns});
  status = function->call(inputs.data(), inputs.size(), &output, 1);
  if (!status)
    return status;
  // The k x P expanded tokens of each row, without its P - 1 tail slots.
  std::vector<int32_t> candidates(size_t(rows * keep * p));
  for (int64_t m = 0; m < rows; ++m)
    std::copy_n(selected.begin() + m * columns, keep * p,
                candidates.begin() + m * keep * p);
  return keepOrRefine(queries, rows, dim, candidates, keep * p, refine, k,
                      tokens);
}

Status selectTokens(const PooledKeys &pooled, const std::vector<float> &queries,
                    int64_t rows, const std::vector<int32_t> &validPools,
                    int64_t k, const PoolingOptions &options,
                    std::vector<int32_t> &tokens, const RefineOptions &refine) {
  if (options.firstStage == FirstStage::MaxAware)
    return selectOnHost(pooled, queries, rows, validPools, k, options, tokens,
                        refine);
  if (pooled.format.paged())
    return selectPaged(pooled, queries, rows, validPools, k, options, tokens,
                         refine);
  int64_t dim = pooled.dim, p = options.poolSize;
  SelectSpec spec;
  spec.queries = rows;
  spec.heads = 2; // twoHeads

  spec.dim = dim;
  spec.pools = pooled.groups;
  spec.queryType = DType::F32;
  spec.codeType = codeType(pooled.format);
  spec.k = k / p;
  spec.poolSize = p;
  spec.rotate = options.rotate;
  spec.valid = true;
  if (refine.factor > 0) {
    spec.refine = refine.factor;
    spec.tokenKeyType = DType::F32;
    spec.tokens = refine.tokens;
  }
  Status status;
  std::unique_ptr<Module> module = buildSelect(spec, status);
  std::unique_ptr<CpuFunction> function =
      compiledOnCpu(module, spec.name, status);
  if (!function)
    return status;

  std::vector<float> query, weights;
  twoHeads(queries, rows, dim, query, weights);
  std::vector<TensorRef> inputs = {
      TensorRef(query.data(), DType::F32, {rows, 2, dim}),
      TensorRef(weights.data(), DType::F32, {rows, 2})};
  if (pooled.format == PoolFormat::None) {
    inputs.emplace_back(const_cast<float *>(pooled.values.data()), DType::F32,
                        std::vector<int64_t>{pooled.groups, dim});
  } else {
    inputs.emplace_back(const_cast<uint8_t *>(pooled.codes.data()),
                        spec.codeType,
                        std::vector<int64_t>{pooled.groups, dim});
    inputs.emplace_back(const_cast<float *>(pooled.scales.data()), DType::F32,
                        std::vector<int64_t>{pooled.groups});
  }
  inputs.emplace_back(const_cast<int32_t *>(validPools.data()), DType::I32,
                      std::vector<int64_t>{rows});
  if (refine.factor > 0)
    inputs.emplace_back(const_cast<float *>(refine.keys->data()), DType::F32,
                        std::vector<int64_t>{refine.tokens, dim});
  tokens.assign(size_t(rows * spec.k * p), -1);
  TensorRef output(tokens.data(), DType::I32, {rows, spec.k * p});
  return function->call(inputs.data(), inputs.size(), &output, 1);
}

} // namespace indexpool::fidelity
